/* tthread.c - timers whose functions run on a few threads; see tthread.h. */
#define _POSIX_C_SOURCE 200809L     /* clock_gettime, pthread_condattr_setclock */
#include "tthread.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

TIMER_SERVICE_DEFINE(tthread_svc, wheel)

#define NS_PER_MS 1000000

struct tthread {
    tthread_svc svc;                    /* a shard and a thread per tthread thread */
    unsigned next_home;                 /* round robin over the shards (atomic) */
};

int64_t tthread_now(void)
{
    return timer_service_now() / NS_PER_MS;
}

/* Every timer's callback: its own function. The service calls it on the
 * thread of the timer's shard, with no lock held. */
static void tthread_fire(struct timer_service_timer *st, void *arg,
                         const struct timer_service_fire *f)
{
    struct tthread_timer *t = arg;
    (void)st;
    (void)f;
    t->fn(t);
}

struct tthread *tthread_start(int threads)
{
    struct timer_service_options opt;
    struct tthread *tt;
    int err;

    if (threads < 1) {
        errno = EINVAL;
        return NULL;
    }
    tt = calloc(1, sizeof *tt);
    if (tt == NULL)
        return NULL;
    memset(&opt, 0, sizeof opt);
    opt.shards = (unsigned)threads;
    if ((err = tthread_svc_init(&tt->svc, &opt)) == 0 && (err = tthread_svc_start(&tt->svc)) != 0)
        tthread_svc_destroy(&tt->svc);
    if (err != 0) {
        free(tt);
        errno = -err;
        return NULL;
    }
    return tt;
}

void tthread_timer_init(struct tthread *tt, struct tthread_timer *t,
                        void (*fn)(struct tthread_timer *t))
{
    unsigned home = __atomic_fetch_add(&tt->next_home, 1, __ATOMIC_RELAXED);
    home %= tthread_svc_shards(&tt->svc);
    timer_service_timer_init(&t->st, home, tthread_fire, t);
    t->fn = fn;
}

/* ms to the service's ns: an expiry at the start of its ms (so never early),
 * saturating far in the future. */
int tthread_add(struct tthread *tt, struct tthread_timer *t, int64_t expire_ms)
{
    if (expire_ms < 0 || t->fn == NULL)
        return -EINVAL;
    if (expire_ms > INT64_MAX / NS_PER_MS)
        return tthread_svc_arm(&tt->svc, &t->st, TIMER_NEVER);
    return tthread_svc_arm(&tt->svc, &t->st, expire_ms * NS_PER_MS);
}

enum tthread_cancel_result tthread_cancel(struct tthread *tt, struct tthread_timer *t)
{
    return tthread_svc_cancel(&tt->svc, &t->st).stopped ? TTHREAD_CANCELLED : TTHREAD_TOO_LATE;
}

int tthread_cancel_sync(struct tthread *tt, struct tthread_timer *t)
{
    struct timer_service_result r = tthread_svc_cancel_sync(&tt->svc, &t->st);
    return r.error != 0 ? r.error : r.stopped;
}

uint64_t tthread_wakeups(struct tthread *tt)
{
    struct timer_service_stats st;
    uint64_t n = 0;
    unsigned i;
    for (i = 0; i < tthread_svc_shards(&tt->svc); i++)
        if (tthread_svc_stats(&tt->svc, i, &st) == 0)
            n += st.wakeups;
    return n;
}

void tthread_stop(struct tthread *tt)
{
    tthread_svc_destroy(&tt->svc);      /* joins; pending timers become idle */
    free(tt);
}
