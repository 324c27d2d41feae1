/* tthread.c - a timer thread that feeds worker threads; see tthread.h. */
#define _POSIX_C_SOURCE 200809L     /* clock_gettime, nanosleep */
#include "tthread.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

/* The timer thread wakes four times per 1 ms tick, so a timer runs at most
 * about a quarter of a tick after its expiry (plus scheduling). A shorter
 * nap costs CPU when idle; a longer one costs lateness. */
#define TTHREAD_NAP_NS 250000

TIMER_WHEEL_DEFINE_NAMED(tthread_wheel, struct tthread_timer, node)

struct tthread {
    pthread_mutex_t lock;       /* guards everything below and every added timer's node */
    pthread_cond_t ready_cv;    /* signalled when `ready` gains timers, or on stop */
    tthread_wheel wheel;        /* pending timers; time in ms */
    struct tlist ready;         /* expired timers for the workers: pop's result list */
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

/* The timer thread: the only caller of pop. pop(now) fires what has
 * expire <= now with now rounded down, so a timer never runs before the
 * millisecond it names has fully begun. */
static void *tthread_clock_main(void *arg)
{
    struct tthread *tt = arg;
    struct timespec nap = {0, TTHREAD_NAP_NS};

    pthread_mutex_lock(&tt->lock);
    for (;;) {
        /* Pop once more after a stop request: whatever has expired by the
         * time tthread_stop() is called still runs. */
        if (tthread_wheel_pop(&tt->wheel, tthread_now(), &tt->ready) > 0)
            pthread_cond_broadcast(&tt->ready_cv);
        if (tt->stopping)
            break;
        pthread_mutex_unlock(&tt->lock);
        nanosleep(&nap, NULL);  /* without the lock: producers add and cancel now */
        pthread_mutex_lock(&tt->lock);
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
    pthread_cond_destroy(&tt->ready_cv);
    pthread_mutex_destroy(&tt->lock);
    free(tt->worker);
    free(tt);
    return dropped;
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
    tthread_wheel_init(&tt->wheel, tthread_now());
    tlist_init(&tt->ready);

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
    if (err == 0)
        t->fn = fn;
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

size_t tthread_stop(struct tthread *tt)
{
    return tthread_shutdown(tt, true);
}
