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
 *         if (svc_shutdown_sync(&s, &j->timer).error == 0)   // not running, will not run:
 *             free(j);                                       // the service forgets it
 *         svc_destroy(&s);                     // stops the thread
 *         return 0;
 *     }
 *
 * Generated API (NAME = the name given to TIMER_SERVICE_DEFINE(NAME, kind),
 * kind = set, heap or wheel: the container every shard holds):
 *   int  NAME_init(NAME *s, const struct timer_service_options *opt);
 *                                   shards, containers, locks: 0, -EINVAL, -ENOMEM,
 *                                   or pthread's error; opt NULL: the defaults
 *   size_t NAME_destroy(NAME *s);   stop; hand every pending timer, idle by then, to
 *                                   opt->left (if set); free. Returns how many
 *   int  NAME_start(NAME *s);       one thread per shard runs its callbacks: 0,
 *                                   -EBUSY (started, or a run() is in progress)
 *   void NAME_stop(NAME *s);        stop and join them; pending timers stay
 *   int  NAME_arm(NAME *s, struct timer_service_timer *t, int64_t expire);
 *                                   one-shot at expire: 0, or 1 if it was pending
 *                                   (moved: that run will not happen)
 *   int  NAME_arm_range(NAME *s, struct timer_service_timer *t, int64_t earliest,
 *                       int64_t latest);
 *                                   pending one-shot within [earliest, latest]: 1,
 *                                   nothing changes; else arm(s, t, latest)
 *   int  NAME_arm_periodic(NAME *s, struct timer_service_timer *t, int64_t first,
 *                          int64_t period, enum timer_service_policy policy);
 *                                   at first, then every period (policy: missed ticks)
 *   struct timer_service_result NAME_cancel(NAME *s, struct timer_service_timer *t);
 *                                   never blocks; the table below
 *   struct timer_service_result NAME_cancel_sync(NAME *s, struct timer_service_timer *t);
 *   struct timer_service_result NAME_shutdown_sync(NAME *s, struct timer_service_timer *t);
 *                                   returns when its callback is not running; then
 *                                   arms fail (Linux's timer_shutdown_sync)
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
 *                                   zeroes t, then sets the callback and the home
 *                                   shard; only while the service does not hold t
 *                                   (never armed, or after cancel_sync/shutdown_sync
 *                                   returned); revives a shut-down timer
 *   bool timer_service_pending(const struct timer_service_timer *t);
 *                                   armed and its run not started (a snapshot)
 *   int64_t timer_service_now(void);    ns of CLOCK_MONOTONIC: the threads' clock
 *
 * The callback: fn(t, arg, f), with no lock held, on the shard's thread or in
 * run(); f->expire is the expiry it runs for, f->now the time it was found
 * due, f->period 0 or the period, f->missed the periods between the two
 * ((now - expire) / period; 0 for a one-shot timer), f->next the expiry of
 * the run armed before this callback (a periodic timer's next tick), or
 * TIMER_NEVER when this run ends its arm: a one-shot timer, or the last tick
 * of a series (its next would reach TIMER_NEVER).
 *
 * Every arm that made a timer pending ends exactly once: its callback runs
 * with f->next == TIMER_NEVER, or exactly one cancel, cancel_sync or
 * shutdown_sync reports `stopped` for it, or destroy hands it to opt->left.
 * This holds under every interleaving of any number of threads, so a program
 * may hold one reference per arm: take one, arm, and give it back when arm
 * returns anything but 0 (1: the pending run holds one already; < 0: nothing
 * armed); give one back in the callback when f->next == TIMER_NEVER, and for
 * each result whose .stopped is true.
 *
 * cancel, cancel_sync and shutdown_sync return a struct timer_service_result:
 * .error (0, or a negative errno: then nothing changed, and both flags are
 * false), .stopped (a pending run was taken out: that callback never
 * happens) and .running (its callback was running on another thread: cancel
 * could not stop it; the sync calls waited until it returned).
 *
 *   the timer is ...        cancel              cancel_sync,         arm, arm_periodic
 *                           (never blocks)      shutdown_sync
 *   idle, or its callback   {0}: nothing to do  {0}                  0: pending
 *     has returned
 *   pending                 stopped             stopped              1: moved
 *   running its callback    running; stopped    waits (no spinning)  0, or 1 if pending
 *     (another thread)      too if it took out  until it returns,    (re-armed): pending
 *                           a re-arm (a         then takes out what  again; runs after
 *                           periodic one, say)  is pending: running; this callback
 *                                               stopped if it did    (never overlapping)
 *   calling from inside     stopped if it took  .error -EDEADLK,     allowed, as above
 *     its own callback      a re-arm out        nothing changed
 *   shut down               {0}                 {0}                  -ESHUTDOWN
 *
 * While its callback runs, cancel_sync takes nothing out (Linux's
 * try_to_del_timer_sync): an arm meanwhile finds a re-arm still pending and
 * returns 1. When the callback returns, its runner takes out what is pending
 * before anything else can run it, and one waiting cancel_sync (the first to
 * have called) reports it. So a re-arm is never reported twice, nor missed.
 * After cancel_sync or shutdown_sync returns (.error 0), the service neither
 * reads nor writes the timer unless another thread arms it again: the caller
 * may free it at once when no other thread can (as Linux asks of
 * timer_delete_sync's callers). shutdown_sync marks it shut down first, so
 * every arm fails from then on, its callback's too; timer_service_timer_init
 * revives it. A one-shot timer's callback may free its own timer when no
 * other thread can still arm or cancel it: the service touches nothing of a
 * timer once its callback has returned, and "running" names a run, not an
 * address (a new timer at a freed one's address is not running).
 *
 * arm and arm_range on a periodic timer make it one-shot (the arm replaces
 * what the timer was armed with, as Go's Reset and Linux's mod_timer do);
 * they return 1 when that took out a pending run, as any move.
 *
 * Errors change nothing: -EINVAL (s or t NULL, t never given a callback, its
 * shard not below the service's count, expire or first < 0, latest <
 * earliest, period <= 0, first == TIMER_NEVER or a second tick at or past
 * TIMER_NEVER (a series that could never tick again: use arm), an unknown
 * policy, budget <= 0), -ESHUTDOWN (arm of a shut-down timer), -EDEADLK
 * (cancel_sync or shutdown_sync from the timer's own callback), -ENOMEM
 * (heap: arm of an idle timer when the shard's array cannot grow; reserve()
 * first and it cannot happen), -ECHILD (a fork()ed child calls a service
 * its parent initialised: its threads stayed there; init one in the child).
 * What cannot be detected: a cancel_sync called while holding a lock that
 * the callback takes, and two callbacks that cancel_sync each other's
 * timers, deadlock, as pthread_join would (Linux documents the same for
 * timer_delete_sync): use cancel there. stop and destroy join the threads:
 * not from a callback. No wait inside a call is a pthread_cancel point.
 * init, start, stop and destroy are the program's to call from one thread
 * at a time, and destroy when no other thread uses the service. A timer is
 * armed in one service for life.
 *
 * Periodic timers: the next run is armed before the callback runs (so a
 * cancel, from anywhere, drops it, and the published deadline is right
 * while it runs), by the timer's policy; with missed = (now - expire) /
 * period,
 *   TIMER_SERVICE_BURST   next = expire + period: every missed tick runs, back
 *                         to back (missed says how many still follow; Java's
 *                         scheduleAtFixedRate)
 *   TIMER_SERVICE_SKIP    next = expire + (missed + 1) * period: the next tick
 *                         after now, on the original grid (Linux's
 *                         hrtimer_forward and its overrun count; Go's Ticker
 *                         drops ticks likewise)
 *   TIMER_SERVICE_DELAY   next = now + period: a period from when the run was
 *                         found due (libuv's repeating timers). Java's
 *                         scheduleWithFixedDelay counts from the callback's
 *                         return instead: arm a one-shot timer again at the
 *                         end of its callback for that.
 * A tick at or past TIMER_NEVER ends the series: the callback before it gets
 * f->next == TIMER_NEVER, and the timer is idle after it.
 *
 * Who runs the callbacks. Each shard has one runner at a time, so one timer's
 * callbacks never overlap (its home shard is fixed by timer_init):
 * - NAME_start: a thread per shard, sleeping on a condition variable on
 *   CLOCK_MONOTONIC until the shard's deadline (no timeout when it is
 *   empty). An arm wakes it only when the new expiry is earlier than the
 *   time the thread will wake anyway, by more than the slack: 0.1% of the
 *   time from when it went to sleep to the expiry, at most opt->slack
 *   (default 100 ms; Linux's poll and select take the same 0.1% up to
 *   100 ms). A timer may so run late by that slack, never early. Nothing
 *   else wakes it: 0 wake-ups while idle or while only far timers wait.
 *   Time is ns of timer_service_now(). One thread for all timers: one shard.
 * - the program's loop (not started): it sleeps until NAME_next_expiry (or a
 *   shard's), calls NAME_run(s, shard, now, budget), reads the deadline again
 *   and sleeps until it; an arm from any thread that makes a shard's
 *   published deadline earlier (by more than the slack, if opt->slack > 0)
 *   calls opt->wake(arg, shard) once, with no lock held (an eventfd write,
 *   say). Time is whatever unit the program passes as now, the slack too.
 *
 * Costs: arm and cancel take the shard's lock and make one container call
 * (O(1) wheel, O(log n) heap and set) plus, when the earliest timer went, one
 * next_expiry; a fire is first + remove (or reschedule) + next_expiry.
 * next_expiry reads one atomic per shard. The shard's lock is Drepper's
 * "mutex3" (Futexes Are Tricky, 2004): one compare-and-swap to take it and
 * one exchange to give it back when nobody waits; a taker that finds it
 * taken sleeps on a condition variable of the shard (a futex where POSIX
 * has none). Memory: sizeof(struct timer_service_timer) per timer (64 bytes on
 * 64-bit targets: the three kinds' nodes share a union), and per shard the
 * container with its lock, condition variables and counters, on cache lines
 * of its own. No allocation but init's (and the heap's array).
 *
 * Build: POSIX threads (-pthread), clock_gettime and pthread_condattr_setclock
 * (CLOCK_MONOTONIC condition variables: Linux, the BSDs; not macOS). Atomics
 * through the gcc/clang __atomic builtins, so the header compiles as C99 and
 * as C++11 (C++: timer_service.hpp wraps it). Not in timer_containers.h,
 * which stays free of threads. Each file that includes it registers a
 * pthread_atfork handler at start-up that counts the fork()s of the process
 * (the -ECHILD check: one load per call).
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
#include <unistd.h>

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
    int64_t next;           /* the run armed before this one, or TIMER_NEVER: the arm ends */
};

typedef void timer_service_fn(struct timer_service_timer *t, void *arg,
                              const struct timer_service_fire *f);

enum timer_service_policy {
    TIMER_SERVICE_BURST,
    TIMER_SERVICE_SKIP,
    TIMER_SERVICE_DELAY
};

/* What cancel, cancel_sync and shutdown_sync did. A struct, so that no test
 * of a flag can read an error as "stopped" (an int of bits could not keep
 * the two apart: -EDEADLK & 1 is 1). */
struct timer_service_result {
    int error;              /* 0, or a negative errno: nothing changed, both flags false */
    bool stopped;           /* a pending run was taken out: its callback never runs */
    bool running;           /* its callback was running on another thread */
};

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
    uint16_t run;           /* the stamp of its latest run on its shard; 0: none since init */
    unsigned char policy;
    unsigned char state;    /* TIMER_SERVICE_PENDING_ | TIMER_SERVICE_SHUT_: written under
                               the shard's lock, read lock-free by timer_service_pending */
};

struct timer_service_options {
    unsigned shards;        /* 0: 1 */
    int64_t now;            /* every container's starting clock (< 0: 0) */
    void (*wake)(void *arg, unsigned shard);    /* the program's loop: see the top */
    void *wake_arg;
    /* The most a timer may run late so that its arm need not wake the
     * sleeper (0.1% of its distance, at most this): 0, the default: 100 ms
     * for the service's threads, none for a program's loop (its unit is the
     * program's); < 0: none. */
    int64_t slack;
    /* destroy hands each timer it finds pending to left(t, t's arg), idle by
     * then (it may free it); it must not call the service. NULL: none. */
    void (*left)(struct timer_service_timer *t, void *arg);
};

/* Counters per shard, for tests and monitoring (NAME_stats). */
struct timer_service_stats {
    uint64_t callbacks;         /* callbacks run */
    uint64_t wakeups;           /* the shard's thread came out of its wait */
    uint64_t wakeups_for_nothing;   /* ... neither woken by an arm nor at its deadline */
    uint64_t wake_signals;      /* arms that signalled the shard's thread */
    uint64_t wake_calls;        /* arms that called opt->wake */
    uint64_t handoffs;          /* re-arms a runner took out for a waiting cancel_sync */
    uint64_t lock_sleeps;       /* takes of the shard's lock that slept on it */
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

/* A cancel_sync waiting for a callback to return, on its own stack. */
struct timer_service_waiter_ {
    struct timer_service_waiter_ *next;
    bool done;                  /* the callback returned (the runner sets it) */
    bool stopped;               /* the runner took out a re-arm for this waiter */
};

/* One shard: its lock guards everything here (but `lock` and `next`) and the
 * state of every timer whose home it is. The first cache line holds what an
 * arm and a cancel touch. */
struct timer_service_shard_ {
    int lock;                   /* 0 free, 1 taken, 2 taken and someone may sleep on it */
    unsigned index;
    /* The exact earliest expiry of the container, written under the lock,
     * read lock-free (next_expiry). */
    int64_t next;
    /* The service's thread: the time its wait ends by itself (TIMER_NEVER:
     * no timeout), or INT64_MIN while it is awake (it reads `next` again
     * before it sleeps). An arm earlier than this, by more than the slack,
     * signals it. */
    int64_t sleeps_until;
    int64_t slept_at;           /* when it went to sleep, or the latest run()'s now */
    struct timer_service_timer *running;    /* whose callback runs now, or NULL */
    uint16_t run;               /* the stamp of the latest run (never 0) */
    bool in_run;                /* a runner holds the shard: its thread, or a run() */
    bool has_thread;
    bool stopping;
    bool signalled;             /* an arm woke the thread since it went to sleep */
    struct timer_service_waiter_ *waiters;  /* cancel_syncs waiting for this run */
    struct timer_service *svc;
    pthread_t runner;           /* the thread running it (valid while running != NULL) */
    pthread_t thread;           /* the shard's own thread, once started */
    pthread_mutex_t park;       /* the condition variables' mutex */
    pthread_cond_t lock_cv;     /* a taker of the lock sleeps on it */
    pthread_cond_t wake_cv;     /* CLOCK_MONOTONIC; the shard's thread sleeps on it */
    pthread_cond_t done_cv;     /* cancel_sync waits on it for a callback to return */
    struct timer_service_stats stats;
};

struct timer_service {
    const struct timer_service_ops_ *ops;
    void *mem;                  /* the shards, each on cache lines of its own */
    size_t stride;
    unsigned nshards;
    bool started;
    unsigned forks;             /* timer_service_forks_ at init */
    pid_t pid;                  /* getpid() at init */
    int64_t slack;
    void (*wake)(void *arg, unsigned shard);
    void *wake_arg;
    void (*left)(struct timer_service_timer *t, void *arg);
};

/* ---- the hooks (test builds) -------------------------------------------------
 * Each may be defined before including: test/service_test.c makes the lock,
 * wait, wake and atomic points yield points of its scheduler and logs every
 * step. Nothing of this exists in a normal build. */
struct timer_service_shard_;
/* take and give back a shard's lock (struct timer_service_shard_ *) */
#ifndef TIMER_SERVICE_LOCK_
#define TIMER_SERVICE_LOCK_(sh) timer_service_lock_real_(sh)
#endif
#ifndef TIMER_SERVICE_UNLOCK_
#define TIMER_SERVICE_UNLOCK_(sh) timer_service_unlock_real_(sh)
#endif
/* With the shard's lock held: give it back and wait on cv until it is
 * signalled or until the time `until` of TIMER_SERVICE_CLOCK_ (TIMER_NEVER:
 * no timeout), then take the lock again: 0 when woken, ETIMEDOUT at the
 * deadline. */
#ifndef TIMER_SERVICE_SLEEP_
#define TIMER_SERVICE_SLEEP_(sh, cv, until) timer_service_sleep_(sh, cv, until)
#endif
/* With the shard's lock held: wake one waiter of cv, or all. */
#ifndef TIMER_SERVICE_SIGNAL_
#define TIMER_SERVICE_SIGNAL_(sh, cv) timer_service_signal_(sh, cv, false)
#endif
#ifndef TIMER_SERVICE_BROADCAST_
#define TIMER_SERVICE_BROADCAST_(sh, cv) timer_service_signal_(sh, cv, true)
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
    TIMER_SERVICE_STEP_KEEP_,       /* arm_range left t as it was: a = its expiry */
    TIMER_SERVICE_STEP_SHUT_,       /* shutdown_sync marked t shut down */
    TIMER_SERVICE_STEP_REMOVE_,     /* a cancel took t out of its container: a = expiry */
    TIMER_SERVICE_STEP_WAIT_,       /* a cancel_sync waits for t's callback */
    TIMER_SERVICE_STEP_TAKE_,       /* it woke: a = 1 if the runner took a re-arm out for it */
    TIMER_SERVICE_STEP_CANCEL_,     /* a = sync (0, 1; 2: shutdown), c = result (see below) */
    TIMER_SERVICE_STEP_FIRE_,       /* a = expire, b = now, c = next expiry (-1: none) */
    TIMER_SERVICE_STEP_HANDOFF_,    /* t's runner took its re-arm out for a waiter: a = expiry */
    TIMER_SERVICE_STEP_DONE_        /* t's callback returned */
};
/* A cancel's result in one number, for the hook: its error, or the flags. */
#define TIMER_SERVICE_STEP_RESULT_(r) ((r).error != 0 ? (r).error : (r).stopped + 2 * (r).running)

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
/* The default slack of the service's threads, in ns (Linux's select: 100 ms). */
#define TIMER_SERVICE_SLACK_NS_ ((int64_t)100000000)

/* The cores that take a container's table: inlined into each typed wrapper,
 * where the table is a constant. */
#define TIMER_SERVICE_CORE_ static inline __attribute__((always_inline, unused))

/* fork()s this process descends through, as this file counts them (each file
 * that includes the header keeps its own count; every count starts at 0 in
 * the first process and each grows by one in every child). A service keeps
 * the count and the pid of the process that initialised it. */
static unsigned timer_service_forks_;
TIMER_INLINE_ void timer_service_count_fork_(void)
{
    timer_service_forks_++;
}
__attribute__((constructor, unused)) static void timer_service_watch_forks_(void)
{
    pthread_atfork(NULL, NULL, timer_service_count_fork_);
}

/* A process other than the one that called init: only a fork()ed child
 * (one load in the parent; a file whose count differs for another reason,
 * one loaded after a fork, pays a getpid to tell). */
TIMER_INLINE_ bool timer_service_forked_(const struct timer_service *s)
{
    return s->forks != timer_service_forks_ && s->pid != getpid();
}

TIMER_INLINE_ int64_t timer_service_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
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

/* ---- the shard's lock: Drepper's mutex3, with a condition variable for the
 * futex. 0 free, 1 taken, 2 taken and a taker may sleep: a giver that finds 2
 * wakes one. A taker that finds it taken holds `park`, swaps in 2 and sleeps
 * on lock_cv until its swap finds 0; a giver's signal needs `park`, so it
 * cannot fall between that swap and the sleep. It sleeps at once, as glibc's
 * default mutex does: spinning first measured 3 to 10 times slower with two
 * threads on one shard (make bench-threads' random and one-shard rows), for
 * the lock shares its cache line with what its holder writes. */

TIMER_INLINE_ bool timer_service_trylock_(struct timer_service_shard_ *sh)
{
    int free_ = 0;
    return __atomic_compare_exchange_n(&sh->lock, &free_, 1, false, __ATOMIC_ACQUIRE,
                                       __ATOMIC_RELAXED);
}

/* No wait of the service is a cancellation point (pthread_cancel): a taker
 * or a waiter cancelled there would leave the shard's lock taken, or its
 * record linked on its dead stack. */
TIMER_NOINLINE_ void timer_service_lock_slow_(struct timer_service_shard_ *sh)
{
    int cancel;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
    pthread_mutex_lock(&sh->park);
    while (__atomic_exchange_n(&sh->lock, 2, __ATOMIC_ACQUIRE) != 0)
        pthread_cond_wait(&sh->lock_cv, &sh->park);
    pthread_mutex_unlock(&sh->park);
    pthread_setcancelstate(cancel, NULL);
    sh->stats.lock_sleeps++;    /* the lock is ours */
}

TIMER_INLINE_ void timer_service_lock_real_(struct timer_service_shard_ *sh)
{
    if (!timer_service_trylock_(sh))
        timer_service_lock_slow_(sh);
}

TIMER_NOINLINE_ void timer_service_wake_taker_(struct timer_service_shard_ *sh)
{
    pthread_mutex_lock(&sh->park);
    pthread_cond_signal(&sh->lock_cv);
    pthread_mutex_unlock(&sh->park);
}

TIMER_INLINE_ void timer_service_unlock_real_(struct timer_service_shard_ *sh)
{
    if (__atomic_exchange_n(&sh->lock, 0, __ATOMIC_RELEASE) == 2)
        timer_service_wake_taker_(sh);
}

/* Release the lock and wait on cv (see TIMER_SERVICE_SLEEP_). `park` is
 * taken before the lock is given back, so a signal (sent with the lock held,
 * under `park`) cannot fall before the wait. */
TIMER_NOINLINE_ int timer_service_sleep_(struct timer_service_shard_ *sh, pthread_cond_t *cv,
                                         int64_t until)
{
    struct timespec ts;
    int r, cancel;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
    pthread_mutex_lock(&sh->park);
    if (__atomic_exchange_n(&sh->lock, 0, __ATOMIC_RELEASE) == 2)
        pthread_cond_signal(&sh->lock_cv);      /* `park` is held already */
    if (until >= TIMER_SERVICE_MAX_WAIT_NS) {
        r = pthread_cond_wait(cv, &sh->park);
    } else {
        ts.tv_sec = (time_t)(until / 1000000000);
        ts.tv_nsec = (long)(until % 1000000000);
        r = pthread_cond_timedwait(cv, &sh->park, &ts);
    }
    pthread_mutex_unlock(&sh->park);
    timer_service_lock_real_(sh);
    pthread_setcancelstate(cancel, NULL);
    return r;
}

TIMER_NOINLINE_ void timer_service_signal_(struct timer_service_shard_ *sh, pthread_cond_t *cv,
                                           bool all)
{
    pthread_mutex_lock(&sh->park);
    if (all)
        pthread_cond_broadcast(cv);
    else
        pthread_cond_signal(cv);
    pthread_mutex_unlock(&sh->park);
}

TIMER_INLINE_ void timer_service_lock_(struct timer_service_shard_ *sh)
{
    TIMER_SERVICE_LOCK_(sh);
}

TIMER_INLINE_ void timer_service_unlock_(struct timer_service_shard_ *sh)
{
    TIMER_SERVICE_UNLOCK_(sh);
}

/* ---- the deadline --------------------------------------------------------- */

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
    timer_service_publish_(sh, ops->next_expiry(timer_service_container_(sh)));
}

/* How late a timer at `expire` may run so that its arm need not wake the
 * sleeper: 0.1% of its distance from when the sleeper went to sleep, at most
 * the service's slack (Linux's select/poll: __estimate_accuracy). */
TIMER_INLINE_ int64_t timer_service_slack_(const struct timer_service *s,
                                           const struct timer_service_shard_ *sh, int64_t expire)
{
    int64_t most = s->slack != 0 ? s->slack : sh->has_thread ? TIMER_SERVICE_SLACK_NS_ : 0;
    int64_t part = expire > sh->slept_at ? (expire - sh->slept_at) / 1024 : 0;
    return most < 0 ? 0 : part < most ? part : most;
}

/* "Running" names a run, not an address: the shard's running timer and the
 * stamp of its run. A callback may free its timer and a new one come to the
 * same address meanwhile; timer_init zeroed the new one's stamp, and the
 * shard never stamps a run 0 (Go's timers keep a sequence number against
 * stale entries the same way). */
TIMER_INLINE_ bool timer_service_is_running_(const struct timer_service_shard_ *sh,
                                             const struct timer_service_timer *t)
{
    return sh->running == t && t->run == sh->run;
}

TIMER_INLINE_ bool timer_service_is_runner_(const struct timer_service_shard_ *sh)
{
    return pthread_equal(sh->runner, pthread_self()) != 0;
}

/* The checks of every call on a timer: 0, or -EINVAL or -ECHILD. */
TIMER_INLINE_ int timer_service_check_(const struct timer_service *s,
                                       const struct timer_service_timer *t)
{
    if (s == NULL || t == NULL || t->fn == NULL || t->shard >= s->nshards)
        return -EINVAL;
    if (timer_service_forked_(s))
        return -ECHILD;
    return 0;
}

/* An arm's expiries: -EINVAL for what could never run (see the top). With
 * period 0 it is one-shot at expire (within [earliest, expire] for
 * arm_range; earliest -1: plain arm). */
TIMER_INLINE_ bool timer_service_arm_ok_(int64_t earliest, int64_t expire, int64_t period,
                                         int policy)
{
    if (expire < 0 || expire < earliest)
        return false;
    if (period == 0)
        return true;
    return period > 0 && expire < TIMER_NEVER && period < TIMER_NEVER - expire &&
           policy >= TIMER_SERVICE_BURST && policy <= TIMER_SERVICE_DELAY;
}

/* Wake whoever sleeps on the shard for an arm at `expire` when it will not
 * look by itself early enough (lock held; `before` is the deadline published
 * before the arm). Returns true when opt->wake is to be called, after the
 * lock is given back. */
TIMER_INLINE_ bool timer_service_wake_for_(struct timer_service *s,
                                           struct timer_service_shard_ *sh, int64_t expire,
                                           int64_t before)
{
    if (sh->has_thread) {
        if (expire >= sh->sleeps_until ||
            sh->sleeps_until - expire <= timer_service_slack_(s, sh, expire))
            return false;
        sh->sleeps_until = INT64_MIN;   /* awake: it reads the deadline before it sleeps */
        sh->signalled = true;
        sh->stats.wake_signals++;
        TIMER_SERVICE_SIGNAL_(sh, &sh->wake_cv);
        return false;
    }
    if (s->wake == NULL || expire >= before ||
        before - expire <= timer_service_slack_(s, sh, expire))
        return false;
    sh->stats.wake_calls++;
    return true;
}

/* arm, arm_range and arm_periodic: the timer pending at expire (period 0:
 * one-shot; earliest >= 0: arm_range's window, [earliest, expire]). */
TIMER_SERVICE_CORE_ int timer_service_arm_(struct timer_service *s,
                                           const struct timer_service_ops_ *ops,
                                           struct timer_service_timer *t, int64_t earliest,
                                           int64_t expire, int64_t period, int policy)
{
    struct timer_service_shard_ *sh;
    bool call_wake = false;
    unsigned shard;
    int r = timer_service_check_(s, t);

    if (r != 0)
        return r;
    if (!timer_service_arm_ok_(earliest, expire, period, policy))
        return -EINVAL;
    shard = t->shard;
    sh = timer_service_shard_at_(s, shard);
    timer_service_lock_(sh);
    if (t->state & TIMER_SERVICE_SHUT_) {
        r = -ESHUTDOWN;
    } else {
        void *c = timer_service_container_(sh);
        bool was = (t->state & TIMER_SERVICE_PENDING_) != 0;
        int64_t old = was ? ops->expire(t) : TIMER_NEVER, before = sh->next;
        if (was && earliest >= 0 && t->period == 0 && old >= earliest && old <= expire) {
            TIMER_SERVICE_ON_STEP_(shard, TIMER_SERVICE_STEP_KEEP_, t, old, 0, 1);
            timer_service_unlock_(sh);
            return 1;   /* arm_range: inside the window, nothing changes */
        }
        r = was ? ops->reschedule(c, expire, t) : ops->insert(c, expire, t);
        if (r == 0) {
            r = was;
            t->period = period;
            t->policy = (unsigned char)policy;
            timer_service_set_state_(t, TIMER_SERVICE_PENDING_);
            if (expire < before) {
                timer_service_publish_(sh, expire);
                call_wake = timer_service_wake_for_(s, sh, expire, before);
            } else if (old == before) {
                timer_service_republish_(ops, sh);  /* it was the earliest */
            }
        }
    }
    TIMER_SERVICE_ON_STEP_(shard, TIMER_SERVICE_STEP_ARM_, t, expire, period, r);
    timer_service_unlock_(sh);
    if (call_wake)
        s->wake(s->wake_arg, shard);
    return r;
}

/* Take t out of its container (pending, lock held): its run will not happen. */
TIMER_INLINE_ void timer_service_take_out_(const struct timer_service_ops_ *ops,
                                           struct timer_service_shard_ *sh,
                                           struct timer_service_timer *t, int step)
{
    int64_t when = ops->expire(t);
    (void)step;     /* the hook's */
    ops->remove(timer_service_container_(sh), t);
    timer_service_set_state_(t, (unsigned char)(t->state & ~TIMER_SERVICE_PENDING_));
    TIMER_SERVICE_ON_STEP_(sh->index, step, t, when, 0, 0);
    if (when <= sh->next)
        timer_service_republish_(ops, sh);
}

/* cancel (sync 0), cancel_sync (1) and shutdown_sync (2): see the table.
 * While t's callback runs on another thread, a sync cancel takes nothing
 * out: it waits on its own record until the runner, when the callback
 * returns, has taken out what is pending and said whether it did for this
 * record (timer_service_release_waiters_). Linux's timer_delete_sync loops
 * on try_to_del_timer_sync, which takes nothing out while the callback
 * runs, for the same reason: a re-arm made during the wait is reported
 * once, by one caller. */
TIMER_SERVICE_CORE_ struct timer_service_result
timer_service_cancel_(struct timer_service *s, const struct timer_service_ops_ *ops,
                      struct timer_service_timer *t, int sync)
{
    struct timer_service_result r = {0, false, false};
    struct timer_service_shard_ *sh;

    r.error = timer_service_check_(s, t);
    if (r.error != 0)
        return r;
    sh = timer_service_shard_at_(s, t->shard);
    timer_service_lock_(sh);
    r.running = timer_service_is_running_(sh, t);
    if (r.running && timer_service_is_runner_(sh)) {
        r.running = false;      /* its own callback: it runs here, not on another thread */
        if (sync) {
            r.error = -EDEADLK; /* it would wait for itself: refuse, change nothing */
            TIMER_SERVICE_ON_STEP_(t->shard, TIMER_SERVICE_STEP_CANCEL_, t, sync, 0,
                                   TIMER_SERVICE_STEP_RESULT_(r));
            timer_service_unlock_(sh);
            return r;
        }
    }
    if (sync == 2) {
        timer_service_set_state_(t, (unsigned char)(t->state | TIMER_SERVICE_SHUT_));
        TIMER_SERVICE_ON_STEP_(t->shard, TIMER_SERVICE_STEP_SHUT_, t, 0, 0, 0);
    }
    if (r.running && sync) {
        struct timer_service_waiter_ me;
        me.next = sh->waiters;
        me.done = false;
        me.stopped = false;
        sh->waiters = &me;
        TIMER_SERVICE_ON_STEP_(t->shard, TIMER_SERVICE_STEP_WAIT_, t, 0, 0, 0);
        while (!me.done)
            TIMER_SERVICE_SLEEP_(sh, &sh->done_cv, TIMER_NEVER);
        r.stopped = me.stopped;
        TIMER_SERVICE_ON_STEP_(t->shard, TIMER_SERVICE_STEP_TAKE_, t, me.stopped, 0, 0);
    } else if (t->state & TIMER_SERVICE_PENDING_) {
        timer_service_take_out_(ops, sh, t, TIMER_SERVICE_STEP_REMOVE_);
        r.stopped = true;
    }
    TIMER_SERVICE_ON_STEP_(t->shard, TIMER_SERVICE_STEP_CANCEL_, t, sync, 0,
                           TIMER_SERVICE_STEP_RESULT_(r));
    timer_service_unlock_(sh);
    return r;
}

/* t's callback returned and cancel_syncs wait for it (lock held; t is alive:
 * they hold it). Take out what is pending before anything can run it, and
 * give the "stopped" to the waiter that came first; then release them all. */
TIMER_INLINE_ void timer_service_release_waiters_(const struct timer_service_ops_ *ops,
                                                  struct timer_service_shard_ *sh,
                                                  struct timer_service_timer *t)
{
    struct timer_service_waiter_ *w = sh->waiters, *first = w;
    if (t->state & TIMER_SERVICE_PENDING_) {
        timer_service_take_out_(ops, sh, t, TIMER_SERVICE_STEP_HANDOFF_);
        sh->stats.handoffs++;
        while (first->next != NULL)     /* each waiter pushed itself on the front */
            first = first->next;
        first->stopped = true;
    }
    for (; w != NULL; w = w->next)
        w->done = true;
    sh->waiters = NULL;
    TIMER_SERVICE_BROADCAST_(sh, &sh->done_cv);
}

/* A periodic timer's next expiry after running for `expire` at `now`, or
 * TIMER_NEVER when it would reach TIMER_NEVER (the series ends). */
TIMER_INLINE_ int64_t timer_service_next_tick_(int policy, int64_t expire, int64_t now,
                                               int64_t period, uint64_t missed)
{
    int64_t base = expire, room;
    uint64_t ticks = 1;
    if (policy == TIMER_SERVICE_SKIP)
        ticks = missed + 1;
    else if (policy == TIMER_SERVICE_DELAY)
        base = now;
    room = TIMER_NEVER - 1 - base;      /* base + ticks * period < TIMER_NEVER, no overflow */
    if (room < 0 || ticks > (uint64_t)room / (uint64_t)period)
        return TIMER_NEVER;
    return base + (int64_t)ticks * period;
}

/* Run up to budget due callbacks of sh at `now`, the lock held on entry and
 * on return (each callback runs without it). A periodic timer is re-armed
 * before its callback runs, so that a cancel drops the next run, and the
 * deadline is published again before the callback: a lock-free reader sees
 * it right while the callback runs (Go's runtime moves a ticker's `when`
 * before it runs f, the same way). Returns how many ran. */
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

    while (n < budget && sh->next <= now && (t = ops->first(c)) != NULL) {
        f.expire = ops->expire(t);
        f.now = now;
        f.period = t->period;
        f.missed = 0;
        f.next = TIMER_NEVER;
        if (f.period > 0) {
            f.missed = (uint64_t)(now - f.expire) / (uint64_t)f.period;
            f.next = timer_service_next_tick_(t->policy, f.expire, now, f.period, f.missed);
        }
        /* a reschedule of a pending timer never allocates, so never fails */
        if (f.next == TIMER_NEVER || ops->reschedule(c, f.next, t) != 0) {
            f.next = TIMER_NEVER;
            ops->remove(c, t);
            timer_service_set_state_(t, (unsigned char)(t->state & ~TIMER_SERVICE_PENDING_));
        }
        timer_service_republish_(ops, sh);
        sh->run = (uint16_t)(sh->run + 1 != 0x10000 ? sh->run + 1 : 1);
        t->run = sh->run;
        sh->running = t;
        sh->runner = pthread_self();
        TIMER_SERVICE_ON_STEP_(sh->index, TIMER_SERVICE_STEP_FIRE_, t, f.expire, now,
                               f.next == TIMER_NEVER ? -1 : f.next);
        fn = t->fn;
        arg = t->arg;
        timer_service_unlock_(sh);
        fn(t, arg, &f);
        timer_service_lock_(sh);
        /* t may be freed by now, unless a cancel_sync waits for it */
        sh->running = NULL;
        if (sh->waiters != NULL)
            timer_service_release_waiters_(ops, sh, t);
        TIMER_SERVICE_ON_STEP_(sh->index, TIMER_SERVICE_STEP_DONE_, t, 0, 0, 0);
        sh->stats.callbacks++;
        n++;
    }
    return n;
}

/* A shard's own thread: run what is due, then sleep until the deadline; an
 * arm earlier than the time it sleeps until signals wake_cv. Both are read
 * and written under the lock, which the wait gives back atomically: no arm
 * falls between the two. */
TIMER_INLINE_ void *timer_service_thread_main_(void *arg)
{
    struct timer_service_shard_ *sh = (struct timer_service_shard_ *)arg;
    int64_t until, now;
    int woke;

    timer_service_lock_(sh);
    while (!sh->stopping) {
        timer_service_run_locked_(sh->svc, sh, TIMER_SERVICE_CLOCK_(), TIMER_SERVICE_BATCH_);
        until = sh->next;
        now = TIMER_SERVICE_CLOCK_();
        if (sh->stopping || until <= now)
            continue;
        sh->signalled = false;
        sh->sleeps_until = until;
        sh->slept_at = now;
        woke = TIMER_SERVICE_SLEEP_(sh, &sh->wake_cv, until);
        sh->sleeps_until = INT64_MIN;
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
    sh->sleeps_until = INT64_MIN;
    timer_service_unlock_(sh);
}

TIMER_INLINE_ void timer_service_stop_(struct timer_service *s)
{
    unsigned i;
    if (s == NULL || !s->started || timer_service_forked_(s))
        return;     /* a fork()ed child: the threads are not here */
    for (i = 0; i < s->nshards; i++) {
        struct timer_service_shard_ *sh = timer_service_shard_at_(s, i);
        timer_service_lock_(sh);
        sh->stopping = true;
        TIMER_SERVICE_SIGNAL_(sh, &sh->wake_cv);
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
    if (timer_service_forked_(s))
        return -ECHILD;
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
    if (timer_service_forked_(s))
        return -ECHILD;
    sh = timer_service_shard_at_(s, shard);
    timer_service_lock_(sh);
    if (sh->in_run) {
        timer_service_unlock_(sh);
        return -EBUSY;
    }
    sh->in_run = true;
    n = timer_service_run_locked_(s, sh, now, budget);
    sh->slept_at = now;
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

/* Every pending timer of a shard idle, each handed to opt->left (Java's
 * shutdownNow hands back the tasks that never ran): how many. */
TIMER_INLINE_ size_t timer_service_empty_shard_(const struct timer_service *s,
                                                struct timer_service_shard_ *sh)
{
    void *c = timer_service_container_(sh);
    struct timer_service_timer *t;
    size_t n = 0;
    while ((t = s->ops->first(c)) != NULL) {
        s->ops->remove(c, t);
        timer_service_set_state_(t, (unsigned char)(t->state & ~TIMER_SERVICE_PENDING_));
        n++;
        if (s->left != NULL)
            s->left(t, t->arg);     /* it may free t */
    }
    return n;
}

TIMER_INLINE_ size_t timer_service_destroy_(struct timer_service *s)
{
    bool child;
    size_t n = 0;
    unsigned i;
    if (s == NULL || s->mem == NULL)
        return 0;
    child = timer_service_forked_(s);
    timer_service_stop_(s);
    for (i = 0; i < s->nshards; i++) {
        struct timer_service_shard_ *sh = timer_service_shard_at_(s, i);
        if (!child)     /* a child's copy: the parent's timers, locks that may look taken */
            n += timer_service_empty_shard_(s, sh);
        s->ops->destroy(timer_service_container_(sh));
        if (child)
            continue;
        pthread_cond_destroy(&sh->done_cv);
        pthread_cond_destroy(&sh->wake_cv);
        pthread_cond_destroy(&sh->lock_cv);
        pthread_mutex_destroy(&sh->park);
    }
    free(s->mem);
    s->mem = NULL;
    s->nshards = 0;
    return n;
}

/* A shard's mutex and condition variables; wake_cv on CLOCK_MONOTONIC, the
 * clock of timer_service_now (the default, CLOCK_REALTIME, jumps when the
 * system time is set). 0 or pthread's error, with nothing left initialised. */
TIMER_INLINE_ int timer_service_shard_init_(struct timer_service_shard_ *sh)
{
    pthread_condattr_t attr;
    int err = pthread_mutex_init(&sh->park, NULL);
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
    if (err == 0 && (err = pthread_cond_init(&sh->lock_cv, NULL)) != 0) {
        pthread_cond_destroy(&sh->done_cv);
        pthread_cond_destroy(&sh->wake_cv);
    }
    if (err != 0)
        pthread_mutex_destroy(&sh->park);
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
    s->forks = timer_service_forks_;
    s->pid = getpid();
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
        sh->sleeps_until = INT64_MIN;
        sh->run = 1;
        ops->init(timer_service_container_(sh), now);
        s->nshards = i + 1;
    }
    if (opt != NULL) {
        s->wake = opt->wake;
        s->wake_arg = opt->wake_arg;
        s->slack = opt->slack;
        s->left = opt->left;
    }
    return 0;
}

TIMER_INLINE_ int timer_service_reserve_(struct timer_service *s, unsigned shard, size_t n)
{
    struct timer_service_shard_ *sh;
    int r;
    if (s == NULL || shard >= s->nshards)
        return -EINVAL;
    if (timer_service_forked_(s))
        return -ECHILD;
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
    if (timer_service_forked_(s))
        return -ECHILD;
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
    TIMER_INLINE_ size_t name##_destroy(name *s_)                                                  \
    { return timer_service_destroy_(TIMER_SERVICE_S_(s_)); }                                       \
    TIMER_INLINE_ int name##_start(name *s_)                                                       \
    { return timer_service_start_(TIMER_SERVICE_S_(s_)); }                                         \
    TIMER_INLINE_ void name##_stop(name *s_) { timer_service_stop_(TIMER_SERVICE_S_(s_)); }        \
    TIMER_INLINE_ int name##_arm(name *s_, struct timer_service_timer *t_, int64_t e_)             \
    { return timer_service_arm_(TIMER_SERVICE_S_(s_), TIMER_SERVICE_K_(kind), t_, -1, e_, 0, 0); } \
    TIMER_INLINE_ int name##_arm_range(name *s_, struct timer_service_timer *t_, int64_t lo_,      \
                                       int64_t hi_)                                                \
    {                                                                                              \
        return lo_ < 0 ? -EINVAL                                                                   \
                       : timer_service_arm_(TIMER_SERVICE_S_(s_), TIMER_SERVICE_K_(kind), t_, lo_, \
                                            hi_, 0, 0);                                            \
    }                                                                                              \
    TIMER_INLINE_ int name##_arm_periodic(name *s_, struct timer_service_timer *t_, int64_t e_,    \
                                          int64_t p_, enum timer_service_policy y_)                \
    {                                                                                              \
        return p_ <= 0 ? -EINVAL                                                                   \
                       : timer_service_arm_(TIMER_SERVICE_S_(s_), TIMER_SERVICE_K_(kind), t_, -1,  \
                                            e_, p_, TIMER_CAST_(int, y_));                         \
    }                                                                                              \
    TIMER_INLINE_ struct timer_service_result name##_cancel(name *s_,                              \
                                                            struct timer_service_timer *t_)        \
    { return timer_service_cancel_(TIMER_SERVICE_S_(s_), TIMER_SERVICE_K_(kind), t_, 0); }         \
    TIMER_INLINE_ struct timer_service_result name##_cancel_sync(name *s_,                         \
                                                                 struct timer_service_timer *t_)   \
    { return timer_service_cancel_(TIMER_SERVICE_S_(s_), TIMER_SERVICE_K_(kind), t_, 1); }         \
    TIMER_INLINE_ struct timer_service_result name##_shutdown_sync(name *s_,                       \
                                                                   struct timer_service_timer *t_) \
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
