/* SPDX-License-Identifier: MIT */
/* timer_heap_types.h - the types of timer_heap.h alone, for a public header
 * that embeds a node in a struct or holds a container:
 *
 *     #include <timer_containers/timer_heap_types.h>
 *     TIMER_HEAP_DEFINE_TYPE(conn_timers)      // typedef struct conn_timers conn_timers
 *     struct conn { int fd; struct timer_heap_node timer; };
 *     struct server { conn_timers timers; };
 *
 * It declares struct timer_heap_node, TIMER_HEAP_DEFINE_TYPE and struct
 * tlist (a node's first member) with the version macros, and nothing else:
 * no function, no other container, no bool, no macro without the TIMER_
 * prefix; it neither reads nor changes TIMER_TYPES_ONLY. One .c file then
 * includes timer_heap.h and expands TIMER_HEAP_DEFINE_FUNCTIONS(conn_timers,
 * struct conn, timer).
 */
#define TIMER_TYPES_PASS_
#include "timer_heap.h"
#undef TIMER_TYPES_PASS_
