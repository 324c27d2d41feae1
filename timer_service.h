/* SPDX-License-Identifier: MIT */
/* timer_service.h - timers from any thread: arm, cancel and a cancel that
 * waits for the callback, over N shards of one of the timer containers (set,
 * heap or wheel). The service's own threads or the program's event loop run
 * the callbacks. C99 with POSIX threads; header-only and intrusive, like the
 * containers; nothing is allocated per call.
 *
 *     #define _POSIX_C_SOURCE 200809L          // before any #include (or -std=gnu99)
 *     #include <stdio.h>
 *     #include <stdlib.h>
 *     #include "timer_service.h"
 *     TIMER_SERVICE_DEFINE(svc, wheel)         // svc, svc_init(), ... (no ';')
 *
 *     struct job { int id; struct timer_service_timer timer; };
 *
 *     static void job_due(struct timer_service_timer *t, void *arg,
 *                         const struct timer_service_fire *f)
 *     {
 *         struct job *j = arg;                 // t is &j->timer
 *         printf("job %d, %llu ticks missed\n", j->id, (unsigned long long)f->missed);
 *         (void)t;
 *     }
 *
 *     int main(void)
 *     {
 *         struct timespec ms = {0, 1000000};
 *         struct job *j = calloc(1, sizeof *j);
 *         svc s;
 *         if (j == NULL || svc_init(&s, NULL) != 0 || svc_start(&s) != 0)
 *             return 1;                        // NULL: 1 shard; start: its thread
 *         timer_service_timer_init(&j->timer, 0, job_due, j);     // home: shard 0, for life
 *         svc_arm_periodic(&s, &j->timer, timer_service_now(), 300000,   // now, every 0.3 ms
 *                          TIMER_SERVICE_SKIP);                  // (ns of CLOCK_MONOTONIC)
 *         nanosleep(&ms, NULL);                // any thread may arm and cancel meanwhile
 *         if (svc_shutdown_sync(&s, &j->timer) >= 0)   // not running, will not run:
 *             free(j);                                 // the service forgets it at once
 *         svc_destroy(&s);                     // stops the thread
 *         return 0;
 *     }
 *
 * Generated API (NAME = the name given to TIMER_SERVICE_DEFINE(NAME, kind),
 * kind = set, heap or wheel: the container every shard holds):
 *   int  NAME_init(NAME *s, const struct timer_service_options *opt);
 *                                   shards, containers, locks: 0, -EINVAL, -ENOMEM,
 *                                   or pthread's error; opt NULL: the defaults
 *   void NAME_destroy(NAME *s);     stop, then pending timers become idle; frees
 *   int  NAME_start(NAME *s);       one thread per shard runs its callbacks: 0,
 *                                   -EBUSY (started, or a run() is in progress)
 *   void NAME_stop(NAME *s);        stop and join them; pending timers stay
 *   int  NAME_arm(NAME *s, struct timer_service_timer *t, int64_t expire);
 *                                   pending at expire: 0, or 1 if it was pending
 *                                   (moved: that run will not happen)
 *   int  NAME_arm_periodic(NAME *s, struct timer_service_timer *t, int64_t first,
 *                          int64_t period, enum timer_service_policy policy);
 *                                   the same, then every period (policy: missed ticks)
 *   int  NAME_cancel(NAME *s, struct timer_service_timer *t);          never blocks
 *   int  NAME_cancel_sync(NAME *s, struct timer_service_timer *t);     see the table
 *   int  NAME_shutdown_sync(NAME *s, struct timer_service_timer *t);   and arms fail
 *   bool NAME_pending(const struct timer_service_timer *t);    (timer_service_pending)
 *   int64_t NAME_next_expiry(const NAME *s);                   all shards, lock-free
 *   int64_t NAME_shard_next_expiry(const NAME *s, unsigned shard);     lock-free
 *   int  NAME_run(NAME *s, unsigned shard, int64_t now, int budget);
 *                                   the program's loop: run up to budget (> 0) due
 *                                   callbacks of a shard; how many, -EINVAL, or
 *                                   -EBUSY (its thread or another run() has it)
 *   unsigned NAME_shards(const NAME *s);
 *   int  NAME_reserve(NAME *s, unsigned shard, size_t n);      heap: room for n
 *   int  NAME_stats(NAME *s, unsigned shard, struct timer_service_stats *out);
 *                                   the shard's counters: 0, or -EINVAL (zeros)
 * And for any kind:
 *   void timer_service_timer_init(struct timer_service_timer *t, unsigned shard,
 *                                 timer_service_fn *fn, void *arg);
 *                                   the callback and the home shard; only while the
 *                                   service does not hold t (never armed, or after
 *                                   cancel_sync/shutdown_sync returned); revives a
 *                                   shut-down timer
 *   bool timer_service_pending(const struct timer_service_timer *t);
 *                                   armed and its run not started (a snapshot)
 *   int64_t timer_service_now(void);    ns of CLOCK_MONOTONIC: the threads' clock
 *
 * The callback: fn(t, arg, f), with no lock held, on the shard's thread or in
 * run(); f->expire is the expiry it runs for, f->now the time it was found
 * due, f->period 0 or the period, f->missed the periods between the two
 * ((now - expire) / period; 0 for a one-shot timer).
 *
 * Calls from any thread. cancel's and cancel_sync's result is a set of bits:
 * TIMER_SERVICE_STOPPED (a pending run was removed: that callback never
 * happens) and TIMER_SERVICE_RUNNING (its callback was running on another
 * thread: cancel could not stop it; cancel_sync waited until it returned).
 *
 *   the timer is ...        cancel              cancel_sync,         arm
 *                           (never blocks)      shutdown_sync
 *   idle, or its callback   0: nothing to do    0                    0: pending
 *     has returned
 *   pending                 STOPPED             STOPPED              1: moved
 *   running its callback    RUNNING, | STOPPED  waits (no spinning)  0, or 1 if re-armed:
 *     (another thread)      if a re-arm (a      until it returns,    pending again; runs
 *                           periodic one, say)  removing re-arms:    after this callback
 *                           was dropped         RUNNING | ...        (never overlapping)
 *   calling from inside     STOPPED if it took  -EDEADLK, nothing    allowed, as above
 *     its own callback      a re-arm out, or 0  changed
 *   shut down               0                   0                    -ESHUTDOWN
 *
 * After cancel_sync or shutdown_sync returns (>= 0), the service neither reads
 * nor writes the timer: the caller may free it at once. shutdown_sync also
 * marks it shut down first, so a re-arm by its running callback fails too
 * (Linux's timer_shutdown_sync); timer_service_timer_init revives it. A
 * one-shot timer's callback may free its own timer when no other thread can
 * still arm or cancel it: the service touches nothing of a timer once its
 * callback has returned.
 *
 * Errors change nothing: -EINVAL (s or t NULL, t never given a callback, its
 * shard not below the service's count, expire or first < 0, period <= 0, an
 * unknown policy, budget <= 0), -ESHUTDOWN (arm of a shut-down timer),
 * -EDEADLK (cancel_sync or shutdown_sync from the timer's own callback),
 * -ENOMEM (heap: arm of an idle timer when the shard's array cannot grow;
 * reserve() first and it cannot happen). What cannot be detected: a
 * cancel_sync called while holding a lock that the callback takes, and two
 * callbacks that cancel_sync each other's timers, deadlock, as pthread_join
 * would (Linux documents the same for timer_delete_sync): use cancel there.
 * stop and destroy join the threads: not from a callback. init, start, stop
 * and destroy are the program's to call from one thread at a time, and
 * destroy when no other thread uses the service. A timer is armed in one
 * service for life.
 *
 * Periodic timers: the next run is armed before the callback runs (so a
 * cancel, from anywhere, drops it), by the timer's policy; with missed =
 * (now - expire) / period,
 *   TIMER_SERVICE_BURST   next = expire + period: every missed tick runs, back
 *                         to back (missed says how many still follow; Java's
 *                         scheduleAtFixedRate)
 *   TIMER_SERVICE_SKIP    next = expire + (missed + 1) * period: the next tick
 *                         after now, on the original grid (Linux's
 *                         hrtimer_forward and its overrun count; Go's Ticker
 *                         drops ticks likewise)
 *   TIMER_SERVICE_DELAY   next = now + period (Java's scheduleWithFixedDelay)
 * A next tick past INT64_MAX ends the series (the timer is idle after it).
 *
 * Who runs the callbacks. Each shard has one runner at a time, so one timer's
 * callbacks never overlap (its home shard is fixed by timer_init):
 * - NAME_start: a thread per shard, sleeping on a condition variable on
 *   CLOCK_MONOTONIC until the shard's next expiry (no timeout when the shard
 *   is empty). Only an arm that makes the shard's deadline earlier wakes it,
 *   once (not a later arm, not a cancel; a cancelled earliest timer costs one
 *   wake-up at its old expiry). Time is ns of timer_service_now(). One thread
 *   for all timers: one shard.
 * - the program's loop (not started): it sleeps until NAME_next_expiry (or a
 *   shard's), calls NAME_run(s, shard, now, budget) and sleeps again; an arm
 *   from any thread that makes a shard's deadline earlier calls opt->wake
 *   (arg, shard) once, with no lock held (an eventfd write, say). Time is
 *   whatever unit the program passes as now.
 *
 * Costs: arm and cancel take the shard's lock and make one container call
 * (O(1) wheel, O(log n) heap and set) plus, when the earliest timer went, one
 * next_expiry; a fire is first + remove (or reschedule). next_expiry reads
 * one atomic per shard. Memory: sizeof(struct timer_service_timer) per timer
 * (64 bytes on 64-bit targets: the three kinds' nodes share a union), and per
 * shard the container with its lock, two condition variables and counters,
 * on cache lines of its own. No allocation but init's (and the heap's array).
 *
 * Build: POSIX threads (-pthread), clock_gettime and pthread_condattr_setclock
 * (CLOCK_MONOTONIC condition variables: Linux, the BSDs; not macOS). Atomics
 * through the gcc/clang __atomic builtins, so the header compiles as C99 and
 * as C++11 (C++: timer_service.hpp wraps it). Not in timer_containers.h,
 * which stays free of threads.
 *
 * Test builds may define the hooks under "the hooks" below before including
 * (TIMER_SERVICE_LOCK_, ..., TIMER_SERVICE_ON_STEP_): test/service_test.c
 * turns the lock, wait, wake and atomic points into yield points of a
 * deterministic scheduler and logs every step for a model check.
 */
#ifndef TIMER_SERVICE_H
#define TIMER_SERVICE_H

#include "timer_set.h"
#include "timer_heap.h"
#include "timer_wheel.h"

#if defined(TIMER_TYPES_ONLY)
#error "timer_service.h needs the functions: include it where TIMER_TYPES_ONLY is not defined"
#endif

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if !defined(CLOCK_MONOTONIC)
#error "timer_service.h needs POSIX: define _POSIX_C_SOURCE 200809L before any #include"
#endif
#if !defined(__GNUC__) && !defined(__clang__)
#error "timer_service.h uses the gcc/clang __atomic builtins"
#endif
#if !defined(ESHUTDOWN)
#define ESHUTDOWN ECANCELED
#endif

/* ---- the types ------------------------------------------------------------- */

struct timer_service_timer;

/* What a callback learns: see the header's top. */
struct timer_service_fire {
    int64_t expire;
    int64_t now;
    int64_t period;
    uint64_t missed;
};

typedef void timer_service_fn(struct timer_service_timer *t, void *arg,
                              const struct timer_service_fire *f);

enum timer_service_policy {
    TIMER_SERVICE_BURST,
    TIMER_SERVICE_SKIP,
    TIMER_SERVICE_DELAY
};

/* cancel's and cancel_sync's result bits */
#define TIMER_SERVICE_STOPPED 1
#define TIMER_SERVICE_RUNNING 2

/* A zeroed timer is idle and has no callback (arm refuses it). The node
 * comes first: a container's node pointer is the timer's. The three kinds'
 * nodes share one union, so that one timer type serves every service. */
struct timer_service_timer {
    union {
        struct timer_set_node set;
        struct timer_heap_node heap;
        struct timer_wheel_node wheel;
    } node;
    timer_service_fn *fn;
    void *arg;
    int64_t period;         /* 0: one-shot */
    unsigned shard;         /* home for life */
    unsigned char policy;
    unsigned char state;    /* TIMER_SERVICE_PENDING_ | TIMER_SERVICE_SHUT_: written under
                               the shard's lock, read lock-free by timer_service_pending */
};

struct timer_service_options {
    unsigned shards;        /* 0: 1 */
    int64_t now;            /* every container's starting clock (< 0: 0) */
    void (*wake)(void *arg, unsigned shard);    /* the program's loop: see the top */
    void *wake_arg;
};

/* Counters per shard, for tests and monitoring (NAME_stats). */
struct timer_service_stats {
    uint64_t callbacks;         /* callbacks run */
    uint64_t wakeups;           /* the shard's thread came out of its wait */
    uint64_t wakeups_for_nothing;   /* ... neither woken by an arm nor at its deadline */
    uint64_t wake_signals;      /* arms that signalled the shard's thread */
    uint64_t wake_calls;        /* arms that called opt->wake */
};

/* A container's calls, over the untyped timer (one table per kind, below),
 * passed to the always-inlined cores as a constant, so that the compiler
 * calls the container directly (Linux's rb_augment_callbacks, the same way). */
struct timer_service_ops_ {
    size_t size;
    void (*init)(void *c, int64_t now);
    void (*destroy)(void *c);
    int (*insert)(void *c, int64_t expire, struct timer_service_timer *t);
    int (*reschedule)(void *c, int64_t expire, struct timer_service_timer *t);
    bool (*remove)(void *c, struct timer_service_timer *t);
    struct timer_service_timer *(*first)(void *c);
    int64_t (*next_expiry)(void *c);
    int64_t (*expire)(const struct timer_service_timer *t);
    int (*reserve)(void *c, size_t n);
};

/* One shard: its lock guards everything here (but `next`) and the state of
 * every timer whose home it is. */
struct timer_service_shard_ {
    pthread_mutex_t lock;
    pthread_cond_t wake_cv;     /* CLOCK_MONOTONIC; the shard's thread sleeps on it */
    pthread_cond_t done_cv;     /* cancel_sync waits on it for a callback to return */
    /* The deadline its runner knows: the earliest expiry when it last looked,
     * or earlier (an arm since). An arm earlier than this wakes the runner and
     * lowers it. Written under the lock, read lock-free (next_expiry). */
    int64_t next;
    struct timer_service_timer *running;    /* whose callback runs now, or NULL */
    pthread_t runner;           /* the thread running it (valid while running != NULL) */
    pthread_t thread;           /* the shard's own thread, once started */
    struct timer_service *svc;
    unsigned index;
    unsigned waiters;           /* cancel_sync callers in done_cv */
    bool in_run;                /* a runner holds the shard: its thread, or a run() */
    bool has_thread;
    bool stopping;
    bool signalled;             /* an arm woke the thread since it went to sleep */
    struct timer_service_stats stats;
};

struct timer_service {
    const struct timer_service_ops_ *ops;
    void *mem;                  /* the shards, each on cache lines of its own */
    size_t stride;
    unsigned nshards;
    bool started;
    void (*wake)(void *arg, unsigned shard);
    void *wake_arg;
};

/* ---- the hooks (test builds) -------------------------------------------------
 * Each may be defined before including: test/service_test.c makes the lock,
 * wait, wake and atomic points yield points of its scheduler and logs every
 * step. Nothing of this exists in a normal build. */
#ifndef TIMER_SERVICE_LOCK_
#define TIMER_SERVICE_LOCK_(m) pthread_mutex_lock(m)
#endif
#ifndef TIMER_SERVICE_UNLOCK_
#define TIMER_SERVICE_UNLOCK_(m) pthread_mutex_unlock(m)
#endif
#ifndef TIMER_SERVICE_WAIT_
#define TIMER_SERVICE_WAIT_(cv, m) pthread_cond_wait(cv, m)
#endif
/* Wait on cv until the time `until` of TIMER_SERVICE_CLOCK_ (TIMER_NEVER:
 * no timeout): 0 when woken, ETIMEDOUT at the deadline. */
#ifndef TIMER_SERVICE_SLEEP_
#define TIMER_SERVICE_SLEEP_(cv, m, until) timer_service_sleep_(cv, m, until)
#endif
#ifndef TIMER_SERVICE_SIGNAL_
#define TIMER_SERVICE_SIGNAL_(cv) pthread_cond_signal(cv)
#endif
#ifndef TIMER_SERVICE_BROADCAST_
#define TIMER_SERVICE_BROADCAST_(cv) pthread_cond_broadcast(cv)
#endif
#ifndef TIMER_SERVICE_CLOCK_
#define TIMER_SERVICE_CLOCK_() timer_service_now()
#endif
#ifndef TIMER_SERVICE_THREAD_START_
#define TIMER_SERVICE_THREAD_START_(th, fn, arg) pthread_create(th, NULL, fn, arg)
#endif
#ifndef TIMER_SERVICE_THREAD_JOIN_
#define TIMER_SERVICE_THREAD_JOIN_(th) pthread_join(th, NULL)
#endif
/* before each lock-free access */
#ifndef TIMER_SERVICE_POINT_
#define TIMER_SERVICE_POINT_(what) ((void)0)
#endif
/* each change of a timer's state, under the shard's lock (test/service_test.c's model) */
#ifndef TIMER_SERVICE_ON_STEP_
#define TIMER_SERVICE_ON_STEP_(shard, step, t, a, b, c) ((void)0)
#endif
enum timer_service_step_ {
    TIMER_SERVICE_STEP_ARM_,        /* a = expire, b = period, c = result */
    TIMER_SERVICE_STEP_SHUT_,       /* shutdown_sync marked t shut down */
    TIMER_SERVICE_STEP_REMOVE_,     /* a cancel took t out of its container */
    TIMER_SERVICE_STEP_WAIT_,       /* a cancel_sync waits for t's callback */
    TIMER_SERVICE_STEP_CANCEL_,     /* a = sync (0, 1; 2: shutdown), c = result */
    TIMER_SERVICE_STEP_FIRE_,       /* a = expire, b = now, c = next expiry (-1: none) */
    TIMER_SERVICE_STEP_DONE_        /* t's callback returned */
};

/* ---- the functions ------------------------------------------------------- */

TIMER_FUNCTIONS_BEGIN_

#define TIMER_SERVICE_PENDING_ 1
#define TIMER_SERVICE_SHUT_ 2
#define TIMER_SERVICE_LINE_ 64
/* The latest deadline a thread's timed wait takes: 2^31 - 1 s, which even a
 * 32-bit time_t holds; CLOCK_MONOTONIC starts near 0 at boot, so a later
 * expiry (TIMER_NEVER, say) is waited for without a timeout. */
#define TIMER_SERVICE_MAX_WAIT_NS ((int64_t)2147483647 * 1000000000)
/* Callbacks a shard's thread runs before it looks at the clock and at stop again. */
#define TIMER_SERVICE_BATCH_ 64

/* The cores that take a container's table: inlined into each typed wrapper,
 * where the table is a constant. */
#define TIMER_SERVICE_CORE_ static inline __attribute__((always_inline, unused))

TIMER_INLINE_ int64_t timer_service_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

TIMER_INLINE_ int timer_service_sleep_(pthread_cond_t *cv, pthread_mutex_t *m, int64_t until)
{
    struct timespec ts;
    if (until >= TIMER_SERVICE_MAX_WAIT_NS)
        return pthread_cond_wait(cv, m);
    ts.tv_sec = (time_t)(until / 1000000000);
    ts.tv_nsec = (long)(until % 1000000000);
    return pthread_cond_timedwait(cv, m, &ts);
}

TIMER_INLINE_ void timer_service_timer_init(struct timer_service_timer *t, unsigned shard,
                                            timer_service_fn *fn, void *arg)
{
    memset(t, 0, sizeof *t);
    t->fn = fn;
    t->arg = arg;
    t->shard = shard;
}

TIMER_INLINE_ bool timer_service_pending(const struct timer_service_timer *t)
{
    TIMER_SERVICE_POINT_("pending");
    return t != NULL &&
           (__atomic_load_n(&t->state, __ATOMIC_ACQUIRE) & TIMER_SERVICE_PENDING_) != 0;
}

/* The one place a timer's state changes (under its shard's lock). */
TIMER_INLINE_ void timer_service_set_state_(struct timer_service_timer *t, unsigned char state)
{
    TIMER_SERVICE_POINT_("state");
    __atomic_store_n(&t->state, state, __ATOMIC_RELEASE);
}

TIMER_INLINE_ struct timer_service_shard_ *timer_service_shard_at_(const struct timer_service *s,
                                                                   unsigned i)
{
    return (struct timer_service_shard_ *)(void *)((char *)s->mem + (size_t)i * s->stride);
}

/* The container follows the shard's head, on a cache line boundary. */
#define TIMER_SERVICE_LINES_(bytes)                                                                \
    (((bytes) + TIMER_SERVICE_LINE_ - 1) / TIMER_SERVICE_LINE_ * TIMER_SERVICE_LINE_)
#define TIMER_SERVICE_HEAD_SIZE_ TIMER_SERVICE_LINES_(sizeof(struct timer_service_shard_))

TIMER_INLINE_ void *timer_service_container_(struct timer_service_shard_ *sh)
{
    return (char *)sh + TIMER_SERVICE_HEAD_SIZE_;
}

TIMER_INLINE_ void timer_service_lock_(struct timer_service_shard_ *sh)
{
    TIMER_SERVICE_LOCK_(&sh->lock);
}

TIMER_INLINE_ void timer_service_unlock_(struct timer_service_shard_ *sh)
{
    TIMER_SERVICE_UNLOCK_(&sh->lock);
}

TIMER_INLINE_ void timer_service_publish_(struct timer_service_shard_ *sh, int64_t next)
{
    TIMER_SERVICE_POINT_("publish");
    __atomic_store_n(&sh->next, next, __ATOMIC_RELEASE);
}

TIMER_INLINE_ int64_t timer_service_read_next_(const struct timer_service_shard_ *sh)
{
    TIMER_SERVICE_POINT_("read next");
    return __atomic_load_n(&sh->next, __ATOMIC_ACQUIRE);
}

/* After the earliest timer may have left: the exact deadline again. */
TIMER_INLINE_ void timer_service_republish_(const struct timer_service_ops_ *ops,
                                            struct timer_service_shard_ *sh)
{
    void *c = timer_service_container_(sh);
    timer_service_publish_(sh, ops->first(c) == NULL ? TIMER_NEVER : ops->next_expiry(c));
}

TIMER_INLINE_ bool timer_service_is_runner_(const struct timer_service_shard_ *sh)
{
    return sh->running != NULL && pthread_equal(sh->runner, pthread_self());
}

/* Both checks of every call on a timer: 0, or -EINVAL. */
TIMER_INLINE_ int timer_service_check_(const struct timer_service *s,
                                       const struct timer_service_timer *t)
{
    if (s == NULL || t == NULL || t->fn == NULL || t->shard >= s->nshards)
        return -EINVAL;
    return 0;
}

/* arm and arm_periodic: the timer pending at expire (period 0: one-shot).
 * An expiry earlier than the deadline its runner knows wakes the runner,
 * once: the deadline becomes this expiry, and a later arm is not earlier. */
TIMER_SERVICE_CORE_ int timer_service_arm_(struct timer_service *s,
                                           const struct timer_service_ops_ *ops,
                                           struct timer_service_timer *t, int64_t expire,
                                           int64_t period, int policy)
{
    struct timer_service_shard_ *sh;
    bool was, call_wake = false;
    int64_t old;
    unsigned shard;
    int r = timer_service_check_(s, t);

    if (r != 0 || expire < 0 || period < 0 || policy < TIMER_SERVICE_BURST ||
        policy > TIMER_SERVICE_DELAY)
        return -EINVAL;
    shard = t->shard;
    sh = timer_service_shard_at_(s, shard);
    timer_service_lock_(sh);
    if (t->state & TIMER_SERVICE_SHUT_) {
        r = -ESHUTDOWN;
    } else {
        void *c = timer_service_container_(sh);
        was = (t->state & TIMER_SERVICE_PENDING_) != 0;
        old = was ? ops->expire(t) : TIMER_NEVER;
        r = was ? ops->reschedule(c, expire, t) : ops->insert(c, expire, t);
        if (r == 0) {
            r = was;
            t->period = period;
            t->policy = (unsigned char)policy;
            timer_service_set_state_(t, TIMER_SERVICE_PENDING_);
            if (expire < sh->next) {
                timer_service_publish_(sh, expire);
                if (sh->has_thread) {
                    sh->signalled = true;
                    sh->stats.wake_signals++;
                    TIMER_SERVICE_SIGNAL_(&sh->wake_cv);
                } else if (s->wake != NULL) {
                    sh->stats.wake_calls++;
                    call_wake = true;
                }
            } else if (old <= sh->next) {
                timer_service_republish_(ops, sh);  /* it may have been the earliest */
            }
        }
    }
    TIMER_SERVICE_ON_STEP_(shard, TIMER_SERVICE_STEP_ARM_, t, expire, period, r);
    timer_service_unlock_(sh);
    if (call_wake)
        s->wake(s->wake_arg, shard);
    return r;
}

/* cancel (sync 0), cancel_sync (1) and shutdown_sync (2): see the table. */
TIMER_SERVICE_CORE_ int timer_service_cancel_(struct timer_service *s,
                                              const struct timer_service_ops_ *ops,
                                              struct timer_service_timer *t, int sync)
{
    struct timer_service_shard_ *sh;
    int r = timer_service_check_(s, t);

    if (r != 0)
        return r;
    sh = timer_service_shard_at_(s, t->shard);
    timer_service_lock_(sh);
    if (sync && sh->running == t && timer_service_is_runner_(sh)) {
        r = -EDEADLK;       /* it would wait for itself: refuse, change nothing */
    } else {
        if (sync == 2) {
            timer_service_set_state_(t, (unsigned char)(t->state | TIMER_SERVICE_SHUT_));
            TIMER_SERVICE_ON_STEP_(t->shard, TIMER_SERVICE_STEP_SHUT_, t, 0, 0, 0);
        }
        /* Linux's del_timer_sync loop: take the timer out, and while its
         * callback runs (which may re-arm it), wait and take it out again. */
        for (;;) {
            if (t->state & TIMER_SERVICE_PENDING_) {
                int64_t when = ops->expire(t);
                ops->remove(timer_service_container_(sh), t);
                timer_service_set_state_(t, (unsigned char)(t->state & ~TIMER_SERVICE_PENDING_));
                r |= TIMER_SERVICE_STOPPED;
                TIMER_SERVICE_ON_STEP_(t->shard, TIMER_SERVICE_STEP_REMOVE_, t, when, 0, 0);
                if (when <= sh->next)
                    timer_service_republish_(ops, sh);
            }
            if (sh->running != t || timer_service_is_runner_(sh))
                break;
            r |= TIMER_SERVICE_RUNNING;
            if (!sync)
                break;
            TIMER_SERVICE_ON_STEP_(t->shard, TIMER_SERVICE_STEP_WAIT_, t, 0, 0, 0);
            sh->waiters++;
            TIMER_SERVICE_WAIT_(&sh->done_cv, &sh->lock);
            sh->waiters--;
        }
    }
    TIMER_SERVICE_ON_STEP_(t->shard, TIMER_SERVICE_STEP_CANCEL_, t, sync, 0, r);
    timer_service_unlock_(sh);
    return r;
}

/* A periodic timer's next expiry after running for `expire` at `now`, or -1
 * when it would pass INT64_MAX (the series ends). */
TIMER_INLINE_ int64_t timer_service_next_tick_(int policy, int64_t expire, int64_t now,
                                               int64_t period, uint64_t missed)
{
    int64_t base = expire;
    uint64_t ticks = 1;
    if (policy == TIMER_SERVICE_SKIP)
        ticks = missed + 1;
    else if (policy == TIMER_SERVICE_DELAY)
        base = now;
    /* base + ticks * period <= INT64_MAX, without overflow */
    if (ticks > (uint64_t)(INT64_MAX - base) / (uint64_t)period)
        return -1;
    return base + (int64_t)ticks * period;
}

/* Run up to budget due callbacks of sh at `now`, the lock held on entry and
 * on return (each callback runs without it). A periodic timer is re-armed
 * before its callback runs, so that a cancel drops the next run, and the
 * runner's deadline stays exact. Returns how many ran. */
TIMER_INLINE_ int timer_service_run_locked_(struct timer_service *s,
                                            struct timer_service_shard_ *sh, int64_t now,
                                            int budget)
{
    const struct timer_service_ops_ *ops = s->ops;
    void *c = timer_service_container_(sh);
    struct timer_service_timer *t;
    struct timer_service_fire f;
    timer_service_fn *fn;
    void *arg;
    int n = 0;

    while (n < budget && (t = ops->first(c)) != NULL && (f.expire = ops->expire(t)) <= now) {
        int64_t next = -1;
        f.now = now;
        f.period = t->period;
        f.missed = 0;
        if (f.period > 0) {
            f.missed = (uint64_t)(now - f.expire) / (uint64_t)f.period;
            next = timer_service_next_tick_(t->policy, f.expire, now, f.period, f.missed);
        }
        /* a reschedule of a pending timer never allocates, so never fails */
        if (next < 0 || ops->reschedule(c, next, t) != 0) {
            next = -1;
            ops->remove(c, t);
            timer_service_set_state_(t, (unsigned char)(t->state & ~TIMER_SERVICE_PENDING_));
        }
        TIMER_SERVICE_ON_STEP_(sh->index, TIMER_SERVICE_STEP_FIRE_, t, f.expire, now, next);
        sh->running = t;
        sh->runner = pthread_self();
        fn = t->fn;
        arg = t->arg;
        timer_service_unlock_(sh);
        fn(t, arg, &f);
        timer_service_lock_(sh);
        /* t may be freed by now: only its address is used */
        TIMER_SERVICE_ON_STEP_(sh->index, TIMER_SERVICE_STEP_DONE_, t, 0, 0, 0);
        sh->running = NULL;
        sh->stats.callbacks++;
        if (sh->waiters > 0)
            TIMER_SERVICE_BROADCAST_(&sh->done_cv);
        n++;
    }
    timer_service_republish_(ops, sh);
    return n;
}

/* A shard's own thread: run what is due, then sleep until the deadline,
 * which an earlier arm lowers (signalling wake_cv). The deadline is
 * re-read under the lock before every wait, and the wait releases the lock
 * atomically: no arm falls between the two. */
TIMER_INLINE_ void *timer_service_thread_main_(void *arg)
{
    struct timer_service_shard_ *sh = (struct timer_service_shard_ *)arg;
    int64_t until;
    int woke;

    timer_service_lock_(sh);
    while (!sh->stopping) {
        timer_service_run_locked_(sh->svc, sh, TIMER_SERVICE_CLOCK_(), TIMER_SERVICE_BATCH_);
        until = sh->next;
        if (sh->stopping || until <= TIMER_SERVICE_CLOCK_())
            continue;
        sh->signalled = false;
        woke = TIMER_SERVICE_SLEEP_(&sh->wake_cv, &sh->lock, until);
        sh->stats.wakeups++;
        if (woke != ETIMEDOUT && !sh->signalled && !sh->stopping)
            sh->stats.wakeups_for_nothing++;
    }
    timer_service_unlock_(sh);
    return NULL;
}

/* A shard back to run()'s use, its thread (if any) gone. */
TIMER_INLINE_ void timer_service_release_(struct timer_service_shard_ *sh)
{
    timer_service_lock_(sh);
    sh->in_run = false;
    sh->has_thread = false;
    sh->stopping = false;
    timer_service_unlock_(sh);
}

TIMER_INLINE_ void timer_service_stop_(struct timer_service *s)
{
    unsigned i;
    if (s == NULL || !s->started)
        return;
    for (i = 0; i < s->nshards; i++) {
        struct timer_service_shard_ *sh = timer_service_shard_at_(s, i);
        timer_service_lock_(sh);
        sh->stopping = true;
        TIMER_SERVICE_SIGNAL_(&sh->wake_cv);
        timer_service_unlock_(sh);
    }
    for (i = 0; i < s->nshards; i++) {
        struct timer_service_shard_ *sh = timer_service_shard_at_(s, i);
        if (sh->has_thread)     /* only start() and stop() change it, on this thread */
            TIMER_SERVICE_THREAD_JOIN_(sh->thread);
        timer_service_release_(sh);
    }
    s->started = false;
}

/* Take every shard from run() (or none: -EBUSY), then start their threads. */
TIMER_INLINE_ int timer_service_start_(struct timer_service *s)
{
    unsigned i, taken;
    bool busy = false;
    int err;
    if (s == NULL)
        return -EINVAL;
    if (s->started)
        return -EBUSY;
    for (taken = 0; taken < s->nshards && !busy; taken++) {
        struct timer_service_shard_ *sh = timer_service_shard_at_(s, taken);
        timer_service_lock_(sh);
        busy = sh->in_run;
        sh->in_run = true;
        sh->has_thread = !busy;
        timer_service_unlock_(sh);
    }
    if (busy) {
        for (i = 0; i + 1 < taken; i++)     /* the busy one stays its run()'s */
            timer_service_release_(timer_service_shard_at_(s, i));
        return -EBUSY;
    }
    s->started = true;
    for (i = 0; i < s->nshards; i++) {
        struct timer_service_shard_ *sh = timer_service_shard_at_(s, i);
        err = TIMER_SERVICE_THREAD_START_(&sh->thread, timer_service_thread_main_, sh);
        if (err != 0) {
            for (; i < s->nshards; i++)     /* no thread to join there */
                timer_service_release_(timer_service_shard_at_(s, i));
            timer_service_stop_(s);
            return -err;
        }
    }
    return 0;
}

TIMER_INLINE_ int timer_service_run_(struct timer_service *s, unsigned shard, int64_t now,
                                     int budget)
{
    struct timer_service_shard_ *sh;
    int n;
    if (s == NULL || shard >= s->nshards || budget <= 0)
        return -EINVAL;
    sh = timer_service_shard_at_(s, shard);
    timer_service_lock_(sh);
    if (sh->in_run) {
        timer_service_unlock_(sh);
        return -EBUSY;
    }
    sh->in_run = true;
    n = timer_service_run_locked_(s, sh, now, budget);
    sh->in_run = false;
    timer_service_unlock_(sh);
    return n;
}

TIMER_INLINE_ int64_t timer_service_shard_next_(const struct timer_service *s, unsigned shard)
{
    if (s == NULL || shard >= s->nshards)
        return TIMER_NEVER;
    return timer_service_read_next_(timer_service_shard_at_(s, shard));
}

TIMER_INLINE_ int64_t timer_service_next_(const struct timer_service *s)
{
    int64_t next = TIMER_NEVER;
    unsigned i;
    for (i = 0; s != NULL && i < s->nshards; i++) {
        int64_t n = timer_service_read_next_(timer_service_shard_at_(s, i));
        if (n < next)
            next = n;
    }
    return next;
}

/* Every pending timer of a shard idle: taken out one by one, so that each
 * one's state says so too. */
TIMER_INLINE_ void timer_service_empty_shard_(const struct timer_service_ops_ *ops,
                                              struct timer_service_shard_ *sh)
{
    void *c = timer_service_container_(sh);
    struct timer_service_timer *t;
    while ((t = ops->first(c)) != NULL) {
        ops->remove(c, t);
        timer_service_set_state_(t, (unsigned char)(t->state & ~TIMER_SERVICE_PENDING_));
    }
}

TIMER_INLINE_ void timer_service_destroy_(struct timer_service *s)
{
    unsigned i;
    if (s == NULL || s->mem == NULL)
        return;
    timer_service_stop_(s);
    for (i = 0; i < s->nshards; i++) {
        struct timer_service_shard_ *sh = timer_service_shard_at_(s, i);
        timer_service_empty_shard_(s->ops, sh);
        s->ops->destroy(timer_service_container_(sh));
        pthread_cond_destroy(&sh->done_cv);
        pthread_cond_destroy(&sh->wake_cv);
        pthread_mutex_destroy(&sh->lock);
    }
    free(s->mem);
    s->mem = NULL;
    s->nshards = 0;
}

/* A shard's lock and condition variables; wake_cv on CLOCK_MONOTONIC, the
 * clock of timer_service_now (the default, CLOCK_REALTIME, jumps when the
 * system time is set). 0 or pthread's error, with nothing left initialised. */
TIMER_INLINE_ int timer_service_shard_init_(struct timer_service_shard_ *sh)
{
    pthread_condattr_t attr;
    int err = pthread_mutex_init(&sh->lock, NULL);
    if (err != 0)
        return err;
    if ((err = pthread_condattr_init(&attr)) == 0) {
        err = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
        if (err == 0)
            err = pthread_cond_init(&sh->wake_cv, &attr);
        pthread_condattr_destroy(&attr);
    }
    if (err == 0 && (err = pthread_cond_init(&sh->done_cv, NULL)) != 0)
        pthread_cond_destroy(&sh->wake_cv);
    if (err != 0)
        pthread_mutex_destroy(&sh->lock);
    return err;
}

TIMER_INLINE_ int timer_service_init_(struct timer_service *s, const struct timer_service_ops_ *ops,
                                      const struct timer_service_options *opt)
{
    unsigned i, n = opt != NULL && opt->shards > 0 ? opt->shards : 1;
    int64_t now = opt != NULL && opt->now > 0 ? opt->now : 0;
    void *mem;
    int err;

    if (s == NULL)
        return -EINVAL;
    memset(s, 0, sizeof *s);
    s->ops = ops;
    s->stride = TIMER_SERVICE_LINES_(TIMER_SERVICE_HEAD_SIZE_ + ops->size);
    if (n > SIZE_MAX / s->stride)
        return -EINVAL;
    if (posix_memalign(&mem, TIMER_SERVICE_LINE_, n * s->stride) != 0)
        return -ENOMEM;
    memset(mem, 0, n * s->stride);
    s->mem = mem;
    for (i = 0; i < n; i++) {
        struct timer_service_shard_ *sh = timer_service_shard_at_(s, i);
        if ((err = timer_service_shard_init_(sh)) != 0) {
            s->nshards = i;
            timer_service_destroy_(s);
            return -err;
        }
        sh->svc = s;
        sh->index = i;
        sh->next = TIMER_NEVER;
        ops->init(timer_service_container_(sh), now);
        s->nshards = i + 1;
    }
    if (opt != NULL) {
        s->wake = opt->wake;
        s->wake_arg = opt->wake_arg;
    }
    return 0;
}

TIMER_INLINE_ int timer_service_reserve_(struct timer_service *s, unsigned shard, size_t n)
{
    struct timer_service_shard_ *sh;
    int r;
    if (s == NULL || shard >= s->nshards)
        return -EINVAL;
    sh = timer_service_shard_at_(s, shard);
    timer_service_lock_(sh);
    r = s->ops->reserve(timer_service_container_(sh), n);
    timer_service_unlock_(sh);
    return r;
}

TIMER_INLINE_ int timer_service_stats_(struct timer_service *s, unsigned shard,
                                       struct timer_service_stats *out)
{
    struct timer_service_shard_ *sh;
    if (out != NULL)
        memset(out, 0, sizeof *out);    /* an error leaves zeros, never garbage */
    if (s == NULL || out == NULL || shard >= s->nshards)
        return -EINVAL;
    sh = timer_service_shard_at_(s, shard);
    timer_service_lock_(sh);
    *out = sh->stats;
    timer_service_unlock_(sh);
    return 0;
}

/* ---- each container's table -------------------------------------------------
 * The node is the timer's first member, so a node pointer is the timer's. */
#define TIMER_SERVICE_C_(kind, c) ((struct timer_##kind *)(c))
#define TIMER_SERVICE_OPS_(kind)                                                                   \
    TIMER_INLINE_ void timer_service_##kind##_init_(void *c, int64_t now)                          \
    { timer_##kind##_init(TIMER_SERVICE_C_(kind, c), now); }                                       \
    TIMER_INLINE_ void timer_service_##kind##_destroy_(void *c)                                    \
    { timer_##kind##_destroy(TIMER_SERVICE_C_(kind, c)); }                                         \
    TIMER_INLINE_ int timer_service_##kind##_insert_(void *c, int64_t e,                           \
                                                     struct timer_service_timer *t)                \
    { return timer_##kind##_insert(TIMER_SERVICE_C_(kind, c), e, &t->node.kind); }                 \
    TIMER_INLINE_ int timer_service_##kind##_reschedule_(void *c, int64_t e,                       \
                                                         struct timer_service_timer *t)            \
    { return timer_##kind##_reschedule(TIMER_SERVICE_C_(kind, c), e, &t->node.kind); }             \
    TIMER_INLINE_ bool timer_service_##kind##_remove_(void *c, struct timer_service_timer *t)      \
    { return timer_##kind##_remove(TIMER_SERVICE_C_(kind, c), &t->node.kind); }                    \
    TIMER_INLINE_ struct timer_service_timer *timer_service_##kind##_first_(void *c)               \
    {                                                                                              \
        struct timer_##kind##_node *n_ = timer_##kind##_first(TIMER_SERVICE_C_(kind, c));          \
        return (struct timer_service_timer *)(void *)n_;                                           \
    }                                                                                              \
    TIMER_INLINE_ int64_t timer_service_##kind##_next_(void *c)                                    \
    { return timer_##kind##_next_expiry(TIMER_SERVICE_C_(kind, c)); }                              \
    TIMER_INLINE_ int64_t timer_service_##kind##_expire_(const struct timer_service_timer *t)      \
    { return timer_##kind##_node_expire(&t->node.kind); }                                          \
    TIMER_INLINE_ int timer_service_##kind##_reserve_(void *c, size_t n)                           \
    { return timer_##kind##_reserve(TIMER_SERVICE_C_(kind, c), n); }                               \
    static const struct timer_service_ops_ timer_service_##kind##_ops_ __attribute__((unused)) = { \
        sizeof(struct timer_##kind), timer_service_##kind##_init_,                                 \
        timer_service_##kind##_destroy_, timer_service_##kind##_insert_,                           \
        timer_service_##kind##_reschedule_, timer_service_##kind##_remove_,                        \
        timer_service_##kind##_first_, timer_service_##kind##_next_,                               \
        timer_service_##kind##_expire_, timer_service_##kind##_reserve_};

TIMER_SERVICE_OPS_(set)
TIMER_SERVICE_OPS_(heap)
TIMER_SERVICE_OPS_(wheel)

TIMER_FUNCTIONS_END_

/* ---- the typed service ---------------------------------------------------
 * NAME holds the untyped core; each wrapper passes the kind's table. The
 * cores take a NULL service (-EINVAL, or nothing to do). */
#define TIMER_SERVICE_S_(s) ((s) != NULL ? &(s)->core : NULL)
#define TIMER_SERVICE_K_(kind) (&timer_service_##kind##_ops_)
#define TIMER_SERVICE_DEFINE(name, kind)                                                           \
    typedef struct name { struct timer_service core; } name;                                       \
    TIMER_INLINE_ int name##_init(name *s_, const struct timer_service_options *o_)                \
    { return timer_service_init_(TIMER_SERVICE_S_(s_), TIMER_SERVICE_K_(kind), o_); }              \
    TIMER_INLINE_ void name##_destroy(name *s_) { timer_service_destroy_(TIMER_SERVICE_S_(s_)); }  \
    TIMER_INLINE_ int name##_start(name *s_)                                                       \
    { return timer_service_start_(TIMER_SERVICE_S_(s_)); }                                         \
    TIMER_INLINE_ void name##_stop(name *s_) { timer_service_stop_(TIMER_SERVICE_S_(s_)); }        \
    TIMER_INLINE_ int name##_arm(name *s_, struct timer_service_timer *t_, int64_t e_)             \
    { return timer_service_arm_(TIMER_SERVICE_S_(s_), TIMER_SERVICE_K_(kind), t_, e_, 0, 0); }     \
    TIMER_INLINE_ int name##_arm_periodic(name *s_, struct timer_service_timer *t_, int64_t e_,    \
                                          int64_t p_, enum timer_service_policy y_)                \
    { return timer_service_arm_(TIMER_SERVICE_S_(s_), TIMER_SERVICE_K_(kind), t_, e_,              \
                                p_ > 0 ? p_ : -1, TIMER_CAST_(int, y_)); }                         \
    TIMER_INLINE_ int name##_cancel(name *s_, struct timer_service_timer *t_)                      \
    { return timer_service_cancel_(TIMER_SERVICE_S_(s_), TIMER_SERVICE_K_(kind), t_, 0); }         \
    TIMER_INLINE_ int name##_cancel_sync(name *s_, struct timer_service_timer *t_)                 \
    { return timer_service_cancel_(TIMER_SERVICE_S_(s_), TIMER_SERVICE_K_(kind), t_, 1); }         \
    TIMER_INLINE_ int name##_shutdown_sync(name *s_, struct timer_service_timer *t_)               \
    { return timer_service_cancel_(TIMER_SERVICE_S_(s_), TIMER_SERVICE_K_(kind), t_, 2); }         \
    TIMER_INLINE_ bool name##_pending(const struct timer_service_timer *t_)                        \
    { return timer_service_pending(t_); }                                                          \
    TIMER_INLINE_ int64_t name##_next_expiry(const name *s_)                                       \
    { return timer_service_next_(TIMER_SERVICE_S_(s_)); }                                          \
    TIMER_INLINE_ int64_t name##_shard_next_expiry(const name *s_, unsigned i_)                    \
    { return timer_service_shard_next_(TIMER_SERVICE_S_(s_), i_); }                                \
    TIMER_INLINE_ int name##_run(name *s_, unsigned i_, int64_t now_, int budget_)                 \
    { return timer_service_run_(TIMER_SERVICE_S_(s_), i_, now_, budget_); }                        \
    TIMER_INLINE_ unsigned name##_shards(const name *s_) { return s_ ? s_->core.nshards : 0; }     \
    TIMER_INLINE_ int name##_reserve(name *s_, unsigned i_, size_t n_)                             \
    { return timer_service_reserve_(TIMER_SERVICE_S_(s_), i_, n_); }                               \
    TIMER_INLINE_ int name##_stats(name *s_, unsigned i_, struct timer_service_stats *out_)        \
    { return timer_service_stats_(TIMER_SERVICE_S_(s_), i_, out_); }

#endif /* TIMER_SERVICE_H */
