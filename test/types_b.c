/* types_b.c - the one file that brings in the functions: the full headers
 * after the public one, and DEFINE_FUNCTIONS for each container type. */
#include "types_pub.h"
#if defined(USE_SINGLE_HEADER)
#include "timer_containers.h"
#else
#include "timer_set.h"
#include "timer_heap.h"
#include "timer_wheel.h"
#endif

TIMER_WHEEL_DEFINE_FUNCTIONS(srv_idle_timers, struct srv_conn, idle)
TIMER_HEAP_DEFINE_FUNCTIONS(srv_request_timers, struct srv_conn, request)
TIMER_SET_DEFINE_FUNCTIONS(srv_job_timers, struct srv_conn, job)

void srv_init(struct srv *s, long long now)
{
    srv_idle_timers_init(&s->idle, now);
    srv_request_timers_init(&s->requests, now);
    srv_job_timers_init(&s->jobs, now);
}

int srv_watch(struct srv *s, struct srv_conn *c, long long idle_at, long long request_at, long long job_at)
{
    int r = srv_idle_timers_insert(&s->idle, idle_at, c);
    if (r == 0)
        r = srv_request_timers_insert(&s->requests, request_at, c);
    if (r == 0)
        r = srv_job_timers_insert(&s->jobs, job_at, c);
    return r;
}

int srv_expire(struct srv *s, long long now, int *fds, int max)
{
    struct tlist *link;
    int n = 0;
    srv_idle_timers_pop(&s->idle, now, &s->expired);
    while ((link = tlist_pop_front(&s->expired)) != NULL)
        if (n < max)
            fds[n++] = srv_idle_timers_entry(link)->fd;
    srv_request_timers_pop(&s->requests, now, &s->expired);
    while ((link = tlist_pop_front(&s->expired)) != NULL)
        if (n < max)
            fds[n++] = srv_request_timers_entry(link)->fd;
    srv_job_timers_pop(&s->jobs, now, &s->expired);
    while ((link = tlist_pop_front(&s->expired)) != NULL)
        if (n < max)
            fds[n++] = srv_job_timers_entry(link)->fd;
    return n;
}

void srv_fini(struct srv *s)
{
    srv_idle_timers_destroy(&s->idle);
    srv_request_timers_destroy(&s->requests);
    srv_job_timers_destroy(&s->jobs);
}
