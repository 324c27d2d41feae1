/* two_tu.h - the same DEFINEs, expanded in two translation units that are
 * linked into one program: the generated functions must not clash. */
#ifndef TWO_TU_H
#define TWO_TU_H

#include "timer_set.h"
#include "timer_heap.h"
#include "timer_wheel.h"

typedef struct conn {
    int fd;
    struct timer_set_node ts;
    struct timer_heap_node th;
    struct timer_wheel_node tw;
} conn;
TIMER_SET_DEFINE(conn, ts)
TIMER_HEAP_DEFINE(conn, th)
TIMER_WHEEL_DEFINE(conn, tw)

/* In two_tu_b.c: 0 when its half of the smoke test passes. */
int two_tu_b(void);

#endif
