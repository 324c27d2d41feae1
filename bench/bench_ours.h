/* bench_ours.h - our three containers, each instantiated once from the
 * driver bench_kind.h (kset_kind, kheap_kind, kwheel_kind). Included after
 * bench_common.h by every benchmark program that measures them.
 */
#ifndef BENCH_OURS_H
#define BENCH_OURS_H

#include "timer_set.h"
#include "timer_heap.h"
#include "timer_wheel.h"

#define KIND kset
#define KIND_NAME "set"
#define KIND_NODE struct timer_set_node
#define KIND_DEFINE TIMER_SET_DEFINE_NAMED
#define KIND_OWNED(c) sizeof(*(c))
#define KIND_MIN_EXACT 1
#define KIND_LATENCY 1
#define KIND_BEHIND 1
#include "bench_kind.h"

#define KIND kheap
#define KIND_NAME "heap"
#define KIND_NODE struct timer_heap_node
#define KIND_DEFINE TIMER_HEAP_DEFINE_NAMED
#define KIND_OWNED(c) (sizeof(*(c)) + kheap_c_ccore_(c)->cap * sizeof(struct timer_heap_entry))
#define KIND_MIN_EXACT 1
#define KIND_TOUCH(c) memset(kheap_c_core_(c)->a, 0, kheap_c_core_(c)->cap * sizeof(struct timer_heap_entry))
#define KIND_LATENCY 1
#define KIND_BEHIND 1
#include "bench_kind.h"

#define KIND kwheel
#define KIND_NAME "wheel"
#define KIND_NODE struct timer_wheel_node
#define KIND_DEFINE TIMER_WHEEL_DEFINE_NAMED
#define KIND_OWNED(c) sizeof(*(c))
#define KIND_MIN_EXACT 0
#define KIND_LATENCY 1
#define KIND_BEHIND 1
#include "bench_kind.h"

#endif /* BENCH_OURS_H */
