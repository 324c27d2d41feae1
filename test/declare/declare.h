/* declare.h - the DECLARE/IMPLEMENT forms (v2.3) as a big program uses them,
 * stb's IMPLEMENTATION pattern: every file includes this header, which
 * declares the container type and the functions; the one file that defines
 * DECLARE_IMPLEMENTATION before including it gets the definitions too.
 * Compiled once per kind: -DTK_SET, -DTK_HEAP or neither (the wheel). */
#ifndef DECLARE_H
#define DECLARE_H

#include <errno.h>

#if defined(TK_SET)
#include "timer_set.h"
#define DC_KIND "set"
#define DC_NODE struct timer_set_node
#define DC_DECLARE TIMER_SET_DECLARE
#define DC_IMPLEMENT TIMER_SET_IMPLEMENT
#elif defined(TK_HEAP)
#include "timer_heap.h"
#define DC_KIND "heap"
#define DC_NODE struct timer_heap_node
#define DC_DECLARE TIMER_HEAP_DECLARE
#define DC_IMPLEMENT TIMER_HEAP_IMPLEMENT
#else
#include "timer_wheel.h"
#define DC_KIND "wheel"
#define DC_NODE struct timer_wheel_node
#define DC_DECLARE TIMER_WHEEL_DECLARE
#define DC_IMPLEMENT TIMER_WHEEL_IMPLEMENT
#endif

struct ditem {
    int id;
    DC_NODE node;
};
DC_DECLARE(dc, struct ditem, node)
#ifdef DECLARE_IMPLEMENTATION
DC_IMPLEMENT(dc, struct ditem, node)
#endif

/* declare_b.c's functions; C linkage, so that b may be built as C++ */
#ifdef __cplusplus
extern "C" {
#endif
typedef int (*dc_insert_fn)(dc *, int64_t, struct ditem *);
typedef bool (*dc_remove_fn)(dc *, struct ditem *);
/* The addresses b's calls go to, and a round of calls made from b. */
dc_insert_fn declare_b_insert(void);
dc_remove_fn declare_b_remove(void);
int declare_b_calls(dc *c, struct ditem *items, int n);
#ifdef __cplusplus
}
#endif

#endif /* DECLARE_H */
