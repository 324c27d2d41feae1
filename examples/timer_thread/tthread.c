/* tthread.c - a timer thread that feeds worker threads; see tthread.h. */
#define _POSIX_C_SOURCE 200809L     /* clock_gettime, pthread_condattr_setclock */
#include "tthread.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

TIMER_WHEEL_DEFINE_NAMED(tthread_wheel, struct tthread_timer, node)

/* clock_sleeps_until while the timer thread is not waiting: no add needs to
 * wake it, as it computes its next wait after it has popped. */
#define TTHREAD_AWAKE INT64_MIN

/* The latest deadline the timer thread waits for: 2^31 - 1 s, which even a
 * 32-bit time_t holds. CLOCK_MONOTONIC starts near 0 at boot, so no timer
 * later than this (TIMER_NEVER, say) comes due while the program runs: the
 * thread waits for those without a timeout. */
#define TTHREAD_MAX_DEADLINE_MS ((int64_t)2147483647 * 1000)

struct tthread {
    pthread_mutex_t lock;       /* guards everything below and every added timer's node */
    pthread_cond_t ready_cv;    /* signalled when `ready` gains timers, or on stop */
    pthread_cond_t clock_cv;    /* on CLOCK_MONOTONIC; wakes the timer thread: see tthread_add */
    tthread_wheel wheel;        /* pending timers; time in ms */
    struct tlist ready;         /* expired timers for the workers: pop's result list */
    int64_t clock_sleeps_until; /* the timer thread waits until this ms (TIMER_NEVER: no
                                   timeout), or TTHREAD_AWAKE */
    uint64_t wakeups;           /* times the timer thread's wait returned */
    bool stopping;              /* tells the timer thread to finish */
    bool clock_done;            /* the timer thread has popped for the last time */
    pthread_t clock_thread;
    int workers;                /* worker threads running */
    pthread_t *worker;
};

int64_t tthread_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Until when the timer thread may sleep: the earliest expiry, or
 * TIMER_NEVER for no timeout. empty() is the test for "no timer", since a
 * timer may itself be set for TIMER_NEVER; next_expiry is the exact expiry
 * (the wheel's min_time may be early, and would wake the thread for nothing). */
static int64_t tthread_sleep_until(struct tthread *tt)
{
    int64_t next;
    if (tthread_wheel_empty(&tt->wheel))
        return TIMER_NEVER;
    next = tthread_wheel_next_expiry(&tt->wheel);
    return next > TTHREAD_MAX_DEADLINE_MS ? TIMER_NEVER : next;
}

/* The timer thread: the only caller of pop. It sleeps on clock_cv until the
 * earliest expiry, so an idle service, with no timer or none due soon,
 * costs no wake-up at all; tthread_add wakes it for an earlier timer.
 *
 * Rounding. pop(now) fires what has expire <= now with now rounded down, so
 * a timer never runs before the ms it names has begun. The wait's deadline
 * is that very instant, expire ms on CLOCK_MONOTONIC (the clock of
 * tthread_now, set on clock_cv), and a timed wait returns no earlier: then
 * now >= expire, and the timer pops, with no rounding delay. A wait that
 * returns before the deadline (a signal, a spurious wake-up) pops what is
 * due and computes the deadline again: the same absolute instant, still
 * ahead, so the thread waits again and never spins. */
static void *tthread_clock_main(void *arg)
{
    struct tthread *tt = arg;
    struct timespec deadline;
    int64_t until;

    pthread_mutex_lock(&tt->lock);
    for (;;) {
        /* Pop once more after a stop request: whatever has expired by the
         * time tthread_stop() is called still runs. */
        if (tthread_wheel_pop(&tt->wheel, tthread_now(), &tt->ready) > 0)
            pthread_cond_broadcast(&tt->ready_cv);
        if (tt->stopping)
            break;
        /* The wait releases the lock: producers add and cancel meanwhile. */
        until = tthread_sleep_until(tt);
        tt->clock_sleeps_until = until;
        if (until == TIMER_NEVER) {
            pthread_cond_wait(&tt->clock_cv, &tt->lock);
        } else {
            deadline.tv_sec = (time_t)(until / 1000);
            deadline.tv_nsec = (long)(until % 1000) * 1000000;
            pthread_cond_timedwait(&tt->clock_cv, &tt->lock, &deadline);
        }
        tt->clock_sleeps_until = TTHREAD_AWAKE;
        tt->wakeups++;
    }
    tt->clock_done = true;
    pthread_cond_broadcast(&tt->ready_cv);
    pthread_mutex_unlock(&tt->lock);
    return NULL;
}

static void *tthread_worker_main(void *arg)
{
    struct tthread *tt = arg;
    struct tthread_timer *t;
    void (*fn)(struct tthread_timer *);

    pthread_mutex_lock(&tt->lock);
    for (;;) {
        /* Taking a timer off the queue makes it idle: from this moment a
         * cancel returns TTHREAD_TOO_LATE, and the timer belongs to fn. */
        t = tthread_wheel_entry(tlist_pop_front(&tt->ready));
        if (t == NULL) {
            if (tt->clock_done)
                break;          /* nothing more will come: every expired timer has run */
            pthread_cond_wait(&tt->ready_cv, &tt->lock);
            continue;
        }
        fn = t->fn;             /* read under the lock: fn may re-add t with another fn */
        pthread_mutex_unlock(&tt->lock);
        fn(t);
        pthread_mutex_lock(&tt->lock);
    }
    pthread_mutex_unlock(&tt->lock);
    return NULL;
}

/* Stop and join the threads started so far, and free tt. */
static size_t tthread_shutdown(struct tthread *tt, bool clock_started)
{
    size_t dropped;
    int i;

    pthread_mutex_lock(&tt->lock);
    tt->stopping = true;
    pthread_cond_signal(&tt->clock_cv);
    if (!clock_started) {
        tt->clock_done = true;
        pthread_cond_broadcast(&tt->ready_cv);
    }
    pthread_mutex_unlock(&tt->lock);
    if (clock_started)
        pthread_join(tt->clock_thread, NULL);     /* the workers exit once it has */
    for (i = 0; i < tt->workers; i++)
        pthread_join(tt->worker[i], NULL);
    /* No thread is left: what is still in the wheel never expired. clear()
     * makes those timers idle, so their owners may reuse or free them. */
    dropped = tthread_wheel_size(&tt->wheel);
    tthread_wheel_destroy(&tt->wheel);
    pthread_cond_destroy(&tt->clock_cv);
    pthread_cond_destroy(&tt->ready_cv);
    pthread_mutex_destroy(&tt->lock);
    free(tt->worker);
    free(tt);
    return dropped;
}

/* clock_cv measures timed waits on CLOCK_MONOTONIC, the timers' clock (the
 * default, CLOCK_REALTIME, jumps when the system time is set). */
static int tthread_clock_cv_init(pthread_cond_t *cv)
{
    pthread_condattr_t attr;
    int err = pthread_condattr_init(&attr);
    if (err != 0)
        return err;
    err = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    if (err == 0)
        err = pthread_cond_init(cv, &attr);
    pthread_condattr_destroy(&attr);
    return err;
}

struct tthread *tthread_start(int workers)
{
    struct tthread *tt;
    int err;

    if (workers < 1) {
        errno = EINVAL;
        return NULL;
    }
    tt = calloc(1, sizeof *tt);
    if (tt == NULL)
        return NULL;
    tt->worker = calloc((size_t)workers, sizeof *tt->worker);
    if (tt->worker == NULL) {
        free(tt);
        return NULL;
    }
    if ((err = pthread_mutex_init(&tt->lock, NULL)) != 0) {
        free(tt->worker);
        free(tt);
        errno = err;
        return NULL;
    }
    if ((err = pthread_cond_init(&tt->ready_cv, NULL)) != 0) {
        pthread_mutex_destroy(&tt->lock);
        free(tt->worker);
        free(tt);
        errno = err;
        return NULL;
    }
    if ((err = tthread_clock_cv_init(&tt->clock_cv)) != 0) {
        pthread_cond_destroy(&tt->ready_cv);
        pthread_mutex_destroy(&tt->lock);
        free(tt->worker);
        free(tt);
        errno = err;
        return NULL;
    }
    tthread_wheel_init(&tt->wheel, tthread_now());
    tt->clock_sleeps_until = TTHREAD_AWAKE;     /* tt->ready: zeroed, an empty list */

    if ((err = pthread_create(&tt->clock_thread, NULL, tthread_clock_main, tt)) != 0) {
        tthread_shutdown(tt, false);
        errno = err;
        return NULL;
    }
    for (tt->workers = 0; tt->workers < workers; tt->workers++) {
        if ((err = pthread_create(&tt->worker[tt->workers], NULL, tthread_worker_main, tt)) != 0) {
            tthread_shutdown(tt, true);
            errno = err;
            return NULL;
        }
    }
    return tt;
}

int tthread_add(struct tthread *tt, struct tthread_timer *t, int64_t expire_ms, void (*fn)(struct tthread_timer *t))
{
    int err;
    pthread_mutex_lock(&tt->lock);
    err = tthread_wheel_insert(&tt->wheel, expire_ms, t);
    if (err == 0) {
        t->fn = fn;
        /* Wake the timer thread only if it sleeps past this timer's expiry,
         * and only once: it then sleeps until the earliest expiry again. */
        if (expire_ms < tt->clock_sleeps_until) {
            tt->clock_sleeps_until = TTHREAD_AWAKE;
            pthread_cond_signal(&tt->clock_cv);
        }
    }
    pthread_mutex_unlock(&tt->lock);
    return err;
}

enum tthread_cancel_result tthread_cancel(struct tthread *tt, struct tthread_timer *t)
{
    enum tthread_cancel_result r;

    pthread_mutex_lock(&tt->lock);
    /* The timer's state says it all. Due: pop linked it into the worker
     * queue and no worker has taken it yet; remove() takes it out of the
     * queue. Pending: remove() takes it out of the wheel. Idle: a worker has
     * it (or it was never added). */
    if (tthread_wheel_due(t)) {
        tthread_wheel_remove(&tt->wheel, t);
        r = TTHREAD_CANCELLED_DUE;
    } else if (tthread_wheel_remove(&tt->wheel, t)) {
        r = TTHREAD_CANCELLED_PENDING;
    } else {
        r = TTHREAD_TOO_LATE;
    }
    pthread_mutex_unlock(&tt->lock);
    return r;
}

size_t tthread_queued(struct tthread *tt)
{
    size_t n;
    pthread_mutex_lock(&tt->lock);
    n = tlist_size(&tt->ready);
    pthread_mutex_unlock(&tt->lock);
    return n;
}

uint64_t tthread_wakeups(struct tthread *tt)
{
    uint64_t n;
    pthread_mutex_lock(&tt->lock);
    n = tt->wakeups;
    pthread_mutex_unlock(&tt->lock);
    return n;
}

size_t tthread_stop(struct tthread *tt)
{
    return tthread_shutdown(tt, true);
}
