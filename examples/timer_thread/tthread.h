/* tthread.h - timers whose functions run on a few threads of their own, for
 * programs with no event loop to fold timers into (heartbeat/ and
 * epoll_shards/ show that way).
 *
 * A thin layer over timer_service.h: a service with one shard per thread
 * (each thread sleeps until its shard's next expiry, and only an add that
 * makes that earlier wakes it), timers spread over the shards round robin,
 * time in ms of CLOCK_MONOTONIC, one function per timer. What is its own:
 * those choices; the locking, waking and the cancel that waits are the
 * service's.
 *
 *     struct job { struct tthread_timer timer; int id; };
 *
 *     static void job_expired(struct tthread_timer *t)     // on a timer thread
 *     {
 *         struct job *j = (struct job *)t;                   // timer is the first member
 *         ...                                                // may add t again
 *     }
 *
 *     struct tthread *tt = tthread_start(2);                 // 2 threads
 *     tthread_timer_init(tt, &j->timer, job_expired);        // once, before the first add
 *     tthread_add(tt, &j->timer, tthread_now() + 30);        // in 30 ms
 *     ...
 *     if (tthread_cancel_sync(tt, &j->timer) >= 0)           // not running, will not run:
 *         free(j);                                           // it is ours again
 *     tthread_stop(tt);
 *
 * API:
 *   struct tthread *tthread_start(int threads);    NULL (errno set) if it cannot start
 *   int64_t tthread_now(void);                     ms of CLOCK_MONOTONIC: the timers' clock
 *   void tthread_timer_init(struct tthread *tt, struct tthread_timer *t,
 *                           void (*fn)(struct tthread_timer *t));
 *                         the function, and a thread for life; only while the timer is
 *                         the caller's (new, or after tthread_cancel_sync)
 *   int  tthread_add(struct tthread *tt, struct tthread_timer *t, int64_t expire_ms);
 *                         0, or 1 if it was pending (moved: that run will not happen);
 *                         -EINVAL if expire_ms < 0 or t has no function
 *   enum tthread_cancel_result tthread_cancel(struct tthread *tt, struct tthread_timer *t);
 *                         never blocks
 *   int  tthread_cancel_sync(struct tthread *tt, struct tthread_timer *t);
 *                         returns when fn is not running and will not run (unless
 *                         added again), and t is the caller's to free: 1 if it took a
 *                         pending run out (fn will not be called for it), else 0;
 *                         -EDEADLK from t's own fn (nothing changed)
 *   uint64_t tthread_wakeups(struct tthread *tt);  times the threads have woken, see below
 *   void tthread_stop(struct tthread *tt);         joins the threads; pending timers are
 *                                                  dropped (the caller's again)
 *
 * Timing. A timer never runs before its ms has begun: its expiry is that
 * ms's first ns of CLOCK_MONOTONIC, and a thread's timed wait ends at that
 * very instant.
 *
 * tthread_wakeups(): how many times the threads have come out of their
 * waits: at an expiry, when an add made a thread's deadline earlier, at
 * stop. Nothing else wakes them: with no timer, or only far ones, the count
 * stays put. A cancelled timer that was a thread's earliest still costs one
 * wake-up at its old expiry.
 *
 * Who owns a timer. The caller, until tthread_add returns >= 0. Then the
 * service, until tthread_cancel returns TTHREAD_CANCELLED (fn will never be
 * called for that add), tthread_cancel_sync returns, or fn is called (fn
 * may add t again; it may free t if no other thread can still add or cancel
 * it). TTHREAD_TOO_LATE: fn has run, runs, or is about to: use
 * tthread_cancel_sync to know when it is done.
 */
#ifndef TTHREAD_H
#define TTHREAD_H

#include <stddef.h>
#include <stdint.h>
#include "timer_service.h"

struct tthread_timer {
    struct timer_service_timer st;      /* the service's */
    void (*fn)(struct tthread_timer *t);
};

enum tthread_cancel_result {
    TTHREAD_TOO_LATE = 0,               /* it has run, runs, or is about to (or was never added) */
    TTHREAD_CANCELLED                   /* removed before it ran: fn will not be called */
};

struct tthread;

struct tthread *tthread_start(int threads);
int64_t tthread_now(void);
void tthread_timer_init(struct tthread *tt, struct tthread_timer *t,
                        void (*fn)(struct tthread_timer *t));
int tthread_add(struct tthread *tt, struct tthread_timer *t, int64_t expire_ms);
enum tthread_cancel_result tthread_cancel(struct tthread *tt, struct tthread_timer *t);
int tthread_cancel_sync(struct tthread *tt, struct tthread_timer *t);
uint64_t tthread_wakeups(struct tthread *tt);
void tthread_stop(struct tthread *tt);

#endif /* TTHREAD_H */
