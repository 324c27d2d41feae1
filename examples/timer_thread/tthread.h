/* tthread.h - a timer thread that feeds worker threads.
 *
 * One thread owns a timer wheel and sleeps on a condition variable until the
 * earliest expiry (next_expiry), or without a timeout when there is no
 * timer; an add that makes an earlier expiry wakes it. So an idle service,
 * with no timer or none due soon, wakes no thread at all. Any thread adds
 * and cancels timers through one mutex. Expired timers go to a pool of
 * worker threads through a queue, and a worker calls each timer's function.
 * This is the way to drive timers for programs with no event loop to fold
 * them into (heartbeat/ shows the other way: an epoll loop).
 *
 *     struct job { struct tthread_timer timer; int id; };
 *
 *     static void job_expired(struct tthread_timer *t)      // runs on a worker
 *     {
 *         struct job *j = (struct job *)t;                    // timer is the first member
 *         ...                                                 // j is ours now
 *     }
 *
 *     struct tthread *tt = tthread_start(4);                  // 4 workers
 *     tthread_add(tt, &j->timer, tthread_now() + 30, job_expired);    // in 30 ms
 *     ...
 *     if (tthread_cancel(tt, &j->timer) != TTHREAD_TOO_LATE)
 *         free(j);                                            // it will never run
 *     tthread_stop(tt);
 *
 * API:
 *   struct tthread *tthread_start(int workers);     NULL (errno set) if it cannot start
 *   int64_t tthread_now(void);                      ms of CLOCK_MONOTONIC: the timers' clock
 *   int  tthread_add(struct tthread *tt, struct tthread_timer *t, int64_t expire_ms,
 *                    void (*fn)(struct tthread_timer *t));
 *                         0; -EBUSY if t is added already and has not run; -EINVAL if expire_ms < 0
 *   enum tthread_cancel_result tthread_cancel(struct tthread *tt, struct tthread_timer *t);
 *   size_t tthread_queued(struct tthread *tt);      expired timers waiting for a worker
 *   uint64_t tthread_wakeups(struct tthread *tt);   times the timer thread has woken, see below
 *   size_t tthread_stop(struct tthread *tt);        see below
 *
 * Timing. Time is ms of CLOCK_MONOTONIC (tthread_now). A timer never runs
 * before its ms has begun: the timer thread's timed wait ends at that very
 * instant (pthread_cond_timedwait on CLOCK_MONOTONIC), after which the timer
 * is handed to a worker; how late it runs is the scheduler's wake-up
 * latency, plus waiting for a free worker.
 *
 * tthread_wakeups(): how many times the timer thread has woken since
 * tthread_start: at an expiry, when tthread_add made an expiry earlier than
 * the one it slept until, on stop, and on the rare spurious wake-up of a
 * condition variable. Nothing else wakes it: with no timer, or with only
 * far ones, the count stays put (the test checks this). A cancelled timer
 * that was the earliest still costs one wake-up at its old expiry, which
 * finds nothing due. For tests and monitoring.
 *
 * Who owns a timer. The caller, until tthread_add() returns 0. Then the
 * service, until exactly one of two things happens: tthread_cancel() returns
 * TTHREAD_CANCELLED_PENDING or TTHREAD_CANCELLED_DUE (the function will never
 * be called; the caller owns the timer again), or a worker calls the function
 * (the function owns the timer: it may free it or add it again). A zeroed
 * struct tthread_timer is ready to add; it needs no init call.
 *
 * Cancelling a timer that is due but not yet handled. Pop hands expired
 * timers out linked in a result list: the contract's "due" state. Here that
 * result list is the worker queue itself, so a timer stays due while it waits
 * for a worker, and the container's remove() takes a due timer out of the
 * queue. A cancel therefore succeeds right up to the moment a worker takes
 * the timer off the queue (under the same mutex), and from then on it returns
 * TTHREAD_TOO_LATE. There is no window in which a timer is neither
 * cancellable nor certain to run.
 *
 * TTHREAD_TOO_LATE means the function has run, is running or is about to
 * run: the timer is not the caller's to free. (To free it anyway, the caller
 * needs a way to know the function has finished, such as a reference count.)
 *
 * tthread_stop(): stops the timer thread, lets the workers run every timer
 * that has expired by then, joins all threads and frees the service. Timers
 * that had not expired are dropped, not run: they are the caller's again, and
 * their number is returned. Only a worker's function may still add or cancel
 * timers during the call (added ones are dropped too); no thread may use tt
 * after it.
 */
#ifndef TTHREAD_H
#define TTHREAD_H

#include <stddef.h>
#include <stdint.h>
#include "timer_wheel.h"

struct tthread_timer {
    struct timer_wheel_node node;       /* the service's, under its mutex */
    void (*fn)(struct tthread_timer *t);
};

enum tthread_cancel_result {
    TTHREAD_TOO_LATE = 0,               /* a worker has it (or it was never added) */
    TTHREAD_CANCELLED_PENDING,          /* removed before it expired */
    TTHREAD_CANCELLED_DUE               /* it had expired: removed from the worker queue */
};

struct tthread;

struct tthread *tthread_start(int workers);
int64_t tthread_now(void);
int tthread_add(struct tthread *tt, struct tthread_timer *t, int64_t expire_ms, void (*fn)(struct tthread_timer *t));
enum tthread_cancel_result tthread_cancel(struct tthread *tt, struct tthread_timer *t);
size_t tthread_queued(struct tthread *tt);
uint64_t tthread_wakeups(struct tthread *tt);
size_t tthread_stop(struct tthread *tt);

#endif /* TTHREAD_H */
