/* types_pub.h - a library's public header that embeds timer nodes and holds
 * timer containers, and brings in no function (contract v2, "types without
 * functions"). types_a.c includes only this; types_b.c includes it and then
 * the full headers, and expands the functions in one place. -DUSE_SINGLE_HEADER:
 * the same through timer_containers.h, the five headers in one file, and
 * TIMER_TYPES_ONLY. */
#ifndef TYPES_PUB_H
#define TYPES_PUB_H

#if defined(USE_SINGLE_HEADER)
/* The single file has no types-only header: TIMER_TYPES_ONLY, set here
 * only if the includer had not set it, so that its setting survives. */
#if !defined(TIMER_TYPES_ONLY)
#define TIMER_TYPES_ONLY
#define TYPES_PUB_SET_TYPES_ONLY
#endif
#include "timer_containers.h"
#if defined(TYPES_PUB_SET_TYPES_ONLY)
#undef TIMER_TYPES_ONLY
#undef TYPES_PUB_SET_TYPES_ONLY
#endif
#else
/* v2.2: the types headers declare each node and DEFINE_TYPE alone, and
 * leave TIMER_TYPES_ONLY as they find it. */
#include "timer_set_types.h"
#include "timer_heap_types.h"
#include "timer_wheel_types.h"
#endif

TIMER_WHEEL_DEFINE_TYPE(srv_idle_timers)
TIMER_HEAP_DEFINE_TYPE(srv_request_timers)
TIMER_SET_DEFINE_TYPE(srv_job_timers)

struct srv_conn {
    int fd;
    struct timer_wheel_node idle;      /* in srv.idle */
    struct timer_heap_node request;    /* in srv.requests */
    struct timer_set_node job;         /* in srv.jobs */
};

struct srv {
    srv_idle_timers idle;
    srv_request_timers requests;
    srv_job_timers jobs;
    struct tlist expired;               /* zeroed: empty */
};

void srv_init(struct srv *s, long long now);
int srv_watch(struct srv *s, struct srv_conn *c, long long idle_at, long long request_at, long long job_at);
/* fds of the connections whose timers expired by now, in expiry order
 * (FIFO on ties), written to fds[]; returns how many, at most max. */
int srv_expire(struct srv *s, long long now, int *fds, int max);
void srv_fini(struct srv *s);

#endif
