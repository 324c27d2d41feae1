/* lib_api.h - the public header of a library that uses timer_containers
 * inside (as libuv's uv.h would): it embeds a node and holds a container,
 * through <timer_containers/timer_heap_types.h>, which declares nothing
 * but the node and DEFINE_TYPE (v2.2). */
#ifndef LIB_API_H
#define LIB_API_H

#include <timer_containers/timer_heap_types.h>

TIMER_HEAP_DEFINE_TYPE(lib_timers)

struct lib_timer {
    int id;
    struct timer_heap_node node;
};

struct lib_loop {
    lib_timers timers;
    struct lib_timer t[3];
};

/* Arms three timers, pops them; 0 when they came out in expiry order. */
int lib_run(struct lib_loop *loop);

#endif
