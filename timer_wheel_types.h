/* SPDX-License-Identifier: MIT */
/* timer_wheel_types.h - the types of timer_wheel.h alone, for a public header
 * that embeds a node in a struct or holds a container:
 *
 *     #include <timer_containers/timer_wheel_types.h>
 *     TIMER_WHEEL_DEFINE_TYPE(conn_timers)      // typedef struct conn_timers conn_timers
 *     struct conn { int fd; struct timer_wheel_node timer; };
 *     struct server { conn_timers timers; };
 *
 * It declares struct timer_wheel_node, TIMER_WHEEL_DEFINE_TYPE and struct
 * tlist (a node's first member) with the version macros, and nothing else:
 * no function, no other container, no bool, no macro without the TIMER_
 * prefix; it neither reads nor changes TIMER_TYPES_ONLY. One .c file then
 * includes timer_wheel.h and expands TIMER_WHEEL_DEFINE_FUNCTIONS(conn_timers,
 * struct conn, timer).
 */
#define TIMER_TYPES_PASS_
#include "timer_wheel.h"
#undef TIMER_TYPES_PASS_
