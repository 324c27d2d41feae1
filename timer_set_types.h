/* SPDX-License-Identifier: MIT */
/* timer_set_types.h - the types of timer_set.h alone, for a public header
 * that embeds a node in a struct or holds a container:
 *
 *     #include <timer_containers/timer_set_types.h>
 *     TIMER_SET_DEFINE_TYPE(conn_timers)      // typedef struct conn_timers conn_timers
 *     struct conn { int fd; struct timer_set_node timer; };
 *     struct server { conn_timers timers; };
 *
 * It declares struct timer_set_node, TIMER_SET_DEFINE_TYPE and struct
 * tlist (a node's first member) with the version macros, and nothing else:
 * no function, no other container, no bool, no macro without the TIMER_
 * prefix; it neither reads nor changes TIMER_TYPES_ONLY. One .c file then
 * includes timer_set.h and expands TIMER_SET_DEFINE_FUNCTIONS(conn_timers,
 * struct conn, timer).
 */
#define TIMER_TYPES_PASS_
#include "timer_set.h"
#undef TIMER_TYPES_PASS_
