/* tthread_test.c - run the timer thread with producer threads and check that
 * every timer fires exactly once or is cancelled exactly once.
 *
 *   tthread_test [-p PRODUCERS] [-n TIMERS] [-w WORKERS] [-s SEED] [NAME]
 *
 * Part 1, the due state, made deterministic: every worker is held busy, a
 * batch of timers expires and waits in the worker queue, and cancelling them
 * must take each one out of the queue (TTHREAD_CANCELLED_DUE); none may run.
 *
 * Part 2, stress: PRODUCERS threads each add TIMERS timers due in 0-24 ms,
 * and cancel a random third of their own timers at random moments, so
 * cancels land on pending, due and already-run timers. Then every timer
 * must have run exactly once or been cancelled exactly once, never both;
 * none may run before its expiry; none may be dropped.
 *
 * Part 3, idle: the timer thread sleeps until the earliest expiry, so its
 * wake-ups (tthread_wakeups) are counted over IDLE_MS with no timer, with
 * one far timer (60 s away), and again after a near timer has fired while
 * the far one waits: each must be 0. A timer added with a near expiry, to
 * an empty service and to one sleeping until the far timer, must wake the
 * thread and run on time: not before its expiry, within NEAR_LATE_BOUND_MS,
 * and in at most NEAR_WAKEUPS wake-ups (2 expected: the add's, the expiry's;
 * more would mean the thread spun while waiting for it).
 *
 * "On time" is judged against a control measured in the same run, never a
 * fixed bound alone: a thread of this process wakes every 2 ms on a plain
 * clock_nanosleep and records each wake-up more than 5 ms late as a stall
 * (the process stopped, or starved of CPU). A timer's lateness less the
 * stalls that overlap it, from its expiry to its run, must stay within
 * the bound; what a stall took, no timer can give back. Waits for what must
 * happen give up only after a backstop far beyond any timer (20 s).
 *
 * Meant to run under ThreadSanitizer as well as at -O2. Prints detail lines,
 * then "PASS NAME" or "FAIL NAME: reason"; exits 0 or 1. The seed only
 * replays the random choices, not the threads' interleaving.
 */
#define _POSIX_C_SOURCE 200809L     /* clock_gettime, nanosleep, getopt */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tthread.h"

#define MS 1000000                  /* ns per ms */
#define LATE_BOUND_MS 1000          /* a timer later than this was as good as lost */
#define DUE_BATCH 100               /* part 1: timers cancelled while due */
#define IDLE_MS 250                 /* part 3: each idle interval */
#define FAR_MS 60000                /* part 3: the far timer, beyond the test's end */
#define NEAR_MS 20                  /* part 3: the near timers */
#define NEAR_LATE_BOUND_MS 250      /* part 3: "on time", generous for a busy machine */
#define NEAR_WAKEUPS 4              /* part 3: at most, to run one near timer */
#define BACKSTOP_MS 20000           /* a wait for what must happen gives up (a hang) after this */
#define TICK_MS 2                   /* the control's period */
#define STALL_MS 5                  /* a control wake-up this late is a stall */
#define MAX_STALLS 4096

struct test_timer {
    struct tthread_timer timer;     /* what the service sees */
    int64_t expire_ms;
    int64_t fired_ns;               /* when fn ran */
    int fired;                      /* times fn ran: under stats.lock */
    bool cancel_tried;              /* written by the owning producer only */
    enum tthread_cancel_result cancel;
};

#define TEST_TIMER(t) ((struct test_timer *)(void *)((char *)(t) - offsetof(struct test_timer, timer)))

/* What the timer functions record, under one lock of the test's own (never
 * held together with the service's lock). */
static struct {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    long resolved;                  /* part 2: timers fired or cancelled */
    int blocked;                    /* part 1: workers held in block_worker() */
    bool release;                   /* part 1: let them go */
    int near_fired;                 /* part 3: near timers run */
} stats = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, false, 0};

struct producer {
    pthread_t thread;
    struct tthread *tt;
    struct test_timer *timers;
    int count;
    uint64_t rng;
    long cancelled[3];              /* by enum tthread_cancel_result */
    int add_errors;
};

static const char *test_name = "timer_thread";
static int failures;
static char first_reason[300];

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void fail(const char *fmt, ...)
{
    char msg[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (failures == 0)
        snprintf(first_reason, sizeof first_reason, "%s", msg);
    if (failures < 10)
        printf("  error: %s\n", msg);
    failures++;
}

static int finish(void)
{
    if (failures == 0)
        printf("PASS %s\n", test_name);
    else if (failures == 1)
        printf("FAIL %s: %s\n", test_name, first_reason);
    else
        printf("FAIL %s: %s (and %d more errors)\n", test_name, first_reason, failures - 1);
    return failures == 0 ? 0 : 1;
}

static void usage(const char *why)
{
    fprintf(stderr,
            "tthread_test: %s\n"
            "usage: tthread_test [-p PRODUCERS] [-n TIMERS] [-w WORKERS] [-s SEED] [NAME]\n"
            "  -p PRODUCERS  producer threads (default 4)\n"
            "  -n TIMERS     timers per producer (default 4000)\n"
            "  -w WORKERS    worker threads (default 3)\n"
            "  -s SEED       seed of the random choices (default: from the clock; printed)\n"
            "  NAME          test name for the PASS/FAIL line (default timer_thread)\n",
            why);
    exit(2);
}

static long parse_number(const char *s, long min, long max, const char *what)
{
    char *end, msg[160];
    long v;
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < min || v > max) {
        snprintf(msg, sizeof msg, "%s must be a number from %ld to %ld, not '%s'", what, min, max, s);
        usage(msg);
    }
    return v;
}

/* xorshift64*: small, and each producer has its own state. */
static uint64_t next_random(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * UINT64_C(2685821657736338717);
}

static void sleep_ms(int ms)
{
    struct timespec ts;
    ts.tv_sec = ms / 1000;
    ts.tv_nsec = (long)(ms % 1000) * MS;
    nanosleep(&ts, NULL);
}

/* Wait, with stats.lock held, until done() or timeout_ms has passed;
 * returns done(). The deadline is on the monotonic clock; the short timed
 * waits are on the realtime clock that pthread_cond_timedwait uses. */
static bool wait_stats(bool (*done)(void), int timeout_ms)
{
    int64_t deadline = mono_ns() + (int64_t)timeout_ms * MS;
    while (!done() && mono_ns() < deadline) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 10 * MS;
        if (ts.tv_nsec >= 1000000000) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&stats.changed, &stats.lock, &ts);
    }
    return done();
}

/* ---- the control: a plain timer's lateness in this process ---- */

static pthread_mutex_t stalls_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    pthread_t thread;
    int64_t from[MAX_STALLS], to[MAX_STALLS];   /* [due, woke] of each late tick */
    int n;
    bool stop;
} stalls;                           /* under stalls_lock */

static void *stall_watch(void *arg)
{
    int64_t due = mono_ns();
    (void)arg;
    for (;;) {
        struct timespec ts;
        int64_t now;
        bool stop;
        due += TICK_MS * MS;
        ts.tv_sec = (time_t)(due / 1000000000);
        ts.tv_nsec = (long)(due % 1000000000);
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
            continue;
        now = mono_ns();
        pthread_mutex_lock(&stalls_lock);
        if (now - due > STALL_MS * MS && stalls.n < MAX_STALLS) {
            stalls.from[stalls.n] = due;
            stalls.to[stalls.n] = now;
            stalls.n++;
        }
        stop = stalls.stop;
        pthread_mutex_unlock(&stalls_lock);
        if (stop)
            return NULL;
        if (now - due > TICK_MS * MS)
            due = now;      /* resume, rather than catch up tick by tick */
    }
}

/* How much of [a, b] the control saw this process stalled. */
static int64_t stalled_ns(int64_t a, int64_t b)
{
    int64_t sum = 0;
    int i;
    pthread_mutex_lock(&stalls_lock);
    for (i = 0; i < stalls.n; i++) {
        int64_t lo = stalls.from[i] > a ? stalls.from[i] : a, hi = stalls.to[i] < b ? stalls.to[i] : b;
        if (hi > lo)
            sum += hi - lo;
    }
    pthread_mutex_unlock(&stalls_lock);
    return sum;
}

/* ---- part 1: cancelling timers that are due but not yet handled ---- */

static int part1_workers;

static bool all_blocked(void) { return stats.blocked == part1_workers; }

/* Holds a worker until the test releases it, so that expired timers pile
 * up in the queue. */
static void block_worker(struct tthread_timer *t)
{
    pthread_mutex_lock(&stats.lock);
    TEST_TIMER(t)->fired++;
    stats.blocked++;
    pthread_cond_broadcast(&stats.changed);
    while (!stats.release)
        pthread_cond_wait(&stats.changed, &stats.lock);
    pthread_mutex_unlock(&stats.lock);
}

static void must_not_run(struct tthread_timer *t)
{
    pthread_mutex_lock(&stats.lock);
    TEST_TIMER(t)->fired++;
    pthread_mutex_unlock(&stats.lock);
}

static void part1(int workers)
{
    static struct test_timer blockers[64], due[DUE_BATCH];
    struct tthread *tt = tthread_start(workers);
    int64_t deadline;
    int i, as_due = 0, fired = 0;
    size_t queued = 0;

    if (tt == NULL) {
        fail("tthread_start(%d): %s", workers, strerror(errno));
        return;
    }
    part1_workers = workers;
    for (i = 0; i < workers; i++)
        if (tthread_add(tt, &blockers[i].timer, tthread_now(), block_worker) != 0)
            fail("part 1: tthread_add failed");
    pthread_mutex_lock(&stats.lock);
    if (!wait_stats(all_blocked, BACKSTOP_MS))
        fail("part 1: only %d of %d workers took a blocking timer within %d s", stats.blocked, workers,
             BACKSTOP_MS / 1000);
    pthread_mutex_unlock(&stats.lock);

    /* Every worker is busy: these expire and stay queued, due. */
    for (i = 0; i < DUE_BATCH; i++)
        if (tthread_add(tt, &due[i].timer, tthread_now() + 1 + i % 3, must_not_run) != 0)
            fail("part 1: tthread_add failed");
    deadline = mono_ns() + BACKSTOP_MS * (int64_t)MS;
    while ((queued = tthread_queued(tt)) < DUE_BATCH && mono_ns() < deadline)
        sleep_ms(1);
    if (queued != DUE_BATCH)
        fail("part 1: %zu of %d expired timers in the worker queue after %d s", queued, DUE_BATCH, BACKSTOP_MS / 1000);
    for (i = 0; i < DUE_BATCH; i++)
        as_due += tthread_cancel(tt, &due[i].timer) == TTHREAD_CANCELLED_DUE;
    queued = tthread_queued(tt);

    pthread_mutex_lock(&stats.lock);
    stats.release = true;
    pthread_cond_broadcast(&stats.changed);
    pthread_mutex_unlock(&stats.lock);
    if (tthread_stop(tt) != 0)
        fail("part 1: timers were left in the wheel");
    for (i = 0; i < DUE_BATCH; i++)     /* the workers are joined: no lock needed */
        fired += due[i].fired;
    printf("  due state: %d timers expired while all %d workers were busy; cancelled %d of them as due "
           "(taken out of the worker queue), queue then held %zu, %d ran\n",
           DUE_BATCH, workers, as_due, queued, fired);
    if (as_due != DUE_BATCH)
        fail("part 1: only %d of %d queued timers were cancelled as due", as_due, DUE_BATCH);
    if (queued != 0)
        fail("part 1: %zu cancelled timers are still in the worker queue", queued);
    if (fired != 0)
        fail("part 1: %d of the queued timers ran although cancelled", fired);
}

/* ---- part 2: producers adding and cancelling at random ---- */

static long part2_total;

static bool all_resolved(void) { return stats.resolved == part2_total; }

static void record_fire(struct tthread_timer *t)
{
    int64_t now = mono_ns();
    pthread_mutex_lock(&stats.lock);
    TEST_TIMER(t)->fired++;
    TEST_TIMER(t)->fired_ns = now;
    stats.resolved++;
    if (stats.resolved == part2_total)
        pthread_cond_broadcast(&stats.changed);
    pthread_mutex_unlock(&stats.lock);
}

static void *producer_main(void *arg)
{
    struct producer *p = arg;
    int i, err;

    for (i = 0; i < p->count; i++) {
        struct test_timer *tm = &p->timers[i];
        tm->expire_ms = tthread_now() + (int64_t)(next_random(&p->rng) % 25);
        err = tthread_add(p->tt, &tm->timer, tm->expire_ms, record_fire);
        if (err != 0)
            p->add_errors++;
        /* A third of the time, cancel one of ours: just added (pending),
         * a few ms old (pending or due), or old (usually run already). */
        if (next_random(&p->rng) % 3 == 0) {
            int back = (int)(next_random(&p->rng) % 64), j = i - back;
            if (j >= 0 && !p->timers[j].cancel_tried) {
                struct test_timer *victim = &p->timers[j];
                victim->cancel_tried = true;
                victim->cancel = tthread_cancel(p->tt, &victim->timer);
                p->cancelled[victim->cancel]++;
                if (victim->cancel != TTHREAD_TOO_LATE) {
                    pthread_mutex_lock(&stats.lock);
                    stats.resolved++;
                    if (stats.resolved == part2_total)
                        pthread_cond_broadcast(&stats.changed);
                    pthread_mutex_unlock(&stats.lock);
                }
            }
        }
        if (i % 16 == 15)
            sleep_ms(1);            /* spread the adds over a few hundred ms */
    }
    return NULL;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void part2(int producers, int count, int workers, uint64_t seed)
{
    struct producer *p = calloc((size_t)producers, sizeof *p);
    double *late = calloc((size_t)producers * (size_t)count, sizeof *late);
    long fired = 0, cancelled[3] = {0, 0, 0}, both = 0, twice = 0, neither = 0, early = 0, too_late = 0;
    struct tthread *tt;
    size_t dropped;
    int i, k, n_late = 0, err;
    bool resolved;

    /* A test that cannot set up fails at once. */
    if (p == NULL || late == NULL) {
        fail("out of memory");
        exit(finish());
    }
    tt = tthread_start(workers);
    if (tt == NULL) {
        fail("tthread_start(%d): %s", workers, strerror(errno));
        exit(finish());
    }
    part2_total = (long)producers * count;
    for (i = 0; i < producers; i++) {
        p[i].tt = tt;
        p[i].count = count;
        p[i].rng = seed + (uint64_t)i * UINT64_C(0x9E3779B97F4A7C15);
        if (p[i].rng == 0)
            p[i].rng = 1;
        p[i].timers = calloc((size_t)count, sizeof *p[i].timers);   /* zeroed: idle */
        if (p[i].timers == NULL) {
            fail("out of memory");
            exit(finish());
        }
    }
    for (i = 0; i < producers; i++) {
        if ((err = pthread_create(&p[i].thread, NULL, producer_main, &p[i])) != 0) {
            fail("pthread_create: %s", strerror(err));
            exit(finish());
        }
    }
    for (i = 0; i < producers; i++)
        pthread_join(p[i].thread, NULL);

    /* Everything expires within 25 ms of the last add; allow far more. */
    pthread_mutex_lock(&stats.lock);
    resolved = wait_stats(all_resolved, BACKSTOP_MS);
    pthread_mutex_unlock(&stats.lock);
    dropped = tthread_stop(tt);
    if (!resolved)
        fail("part 2: only %ld of %ld timers fired or were cancelled within %d s of the last add",
             stats.resolved, part2_total, BACKSTOP_MS / 1000);
    if (dropped != 0)
        fail("part 2: %zu timers were still pending at stop", dropped);

    /* All threads are joined: the records can be read without locks. */
    for (i = 0; i < producers; i++) {
        if (p[i].add_errors != 0)
            fail("part 2: %d adds failed", p[i].add_errors);
        for (k = 0; k < 3; k++)
            cancelled[k] += p[i].cancelled[k];
        for (k = 0; k < count; k++) {
            struct test_timer *tm = &p[i].timers[k];
            bool cancelled_ok = tm->cancel_tried && tm->cancel != TTHREAD_TOO_LATE;
            if (tm->fired > 1)
                twice++;
            if (tm->fired && cancelled_ok)
                both++;
            if (!tm->fired && !cancelled_ok)
                neither++;
            if (tm->fired) {
                double ms = (double)(tm->fired_ns - tm->expire_ms * MS) / MS;
                fired++;
                late[n_late++] = ms;
                early += ms < 0;
                too_late += ms - (double)stalled_ns(tm->expire_ms * MS, tm->fired_ns) / MS > LATE_BOUND_MS;
            }
        }
    }
    printf("  stress: %d producers x %d timers due in 0-24 ms, %d workers: %ld fired, %ld cancelled "
           "(%ld pending, %ld due), %ld cancels too late (already run)\n",
           producers, count, workers, fired, cancelled[TTHREAD_CANCELLED_PENDING] + cancelled[TTHREAD_CANCELLED_DUE],
           cancelled[TTHREAD_CANCELLED_PENDING], cancelled[TTHREAD_CANCELLED_DUE], cancelled[TTHREAD_TOO_LATE]);
    printf("  exactly once: %ld of %ld timers; fired twice %ld, fired and cancelled %ld, neither %ld\n",
           part2_total - twice - both - neither, part2_total, twice, both, neither);
    if (n_late > 0) {
        qsort(late, (size_t)n_late, sizeof *late, compare_double);
        printf("  lateness of fired timers: min %.2f / median %.2f / p99 %.2f / max %.2f ms "
               "(early: %ld; bound %d ms)\n",
               late[0], late[n_late / 2], late[(int)(0.99 * (n_late - 1) + 0.5)], late[n_late - 1], early,
               LATE_BOUND_MS);
    }
    if (twice || both || neither)
        fail("part 2: %ld timers fired twice, %ld fired and were cancelled, %ld did neither", twice, both, neither);
    if (early)
        fail("part 2: %ld timers fired before their expiry", early);
    if (too_late)
        fail("part 2: %ld timers fired more than %d ms late, less what the control saw this process stalled",
             too_late, LATE_BOUND_MS);
    for (i = 0; i < producers; i++)
        free(p[i].timers);
    free(p);
    free(late);
}

/* ---- part 3: an idle service does not wake; an add wakes it ---- */

static void record_near(struct tthread_timer *t)
{
    int64_t now = mono_ns();
    pthread_mutex_lock(&stats.lock);
    TEST_TIMER(t)->fired++;
    TEST_TIMER(t)->fired_ns = now;
    stats.near_fired++;
    pthread_cond_broadcast(&stats.changed);
    pthread_mutex_unlock(&stats.lock);
}

static int near_wanted;

static bool near_done(void) { return stats.near_fired == near_wanted; }

/* The timer thread's wake-ups over IDLE_MS in which nothing is due. */
static void idle_interval(struct tthread *tt, const char *what)
{
    uint64_t before = tthread_wakeups(tt), after;
    sleep_ms(IDLE_MS);
    after = tthread_wakeups(tt);
    printf("  idle, %s: %llu timer-thread wake-ups in %d ms (required: 0)\n", what,
           (unsigned long long)(after - before), IDLE_MS);
    if (after != before)
        fail("part 3: idle with %s, the timer thread woke %llu times in %d ms", what,
             (unsigned long long)(after - before), IDLE_MS);
}

/* Add a timer NEAR_MS ahead and wait for it: the add must wake the thread. */
static void near_timer(struct tthread *tt, struct test_timer *tm, const char *what)
{
    uint64_t before = tthread_wakeups(tt), woke;
    double late, stalled;
    bool fired;

    tm->expire_ms = tthread_now() + NEAR_MS;
    if (tthread_add(tt, &tm->timer, tm->expire_ms, record_near) != 0) {
        fail("part 3: tthread_add failed");
        return;
    }
    pthread_mutex_lock(&stats.lock);
    near_wanted++;
    fired = wait_stats(near_done, BACKSTOP_MS);
    pthread_mutex_unlock(&stats.lock);
    woke = tthread_wakeups(tt) - before;
    if (!fired) {
        fail("part 3: a timer %d ms ahead, added %s, had not run %d s later (the add did not wake the "
             "timer thread?)", NEAR_MS, what, BACKSTOP_MS / 1000);
        return;
    }
    late = (double)(tm->fired_ns - tm->expire_ms * MS) / MS;   /* written under stats.lock */
    stalled = (double)stalled_ns(tm->expire_ms * MS, tm->fired_ns) / MS;
    printf("  a timer %d ms ahead, added %s: ran %.2f ms after its expiry (the control saw %.1f ms of it "
           "stalled), %llu timer-thread wake-ups (required: >= 0 ms, <= %d ms less the stalls, <= %d wake-ups)\n",
           NEAR_MS, what, late, stalled, (unsigned long long)woke, NEAR_LATE_BOUND_MS, NEAR_WAKEUPS);
    if (late < 0)
        fail("part 3: a timer added %s ran %.3f ms before its expiry", what, -late);
    else if (late - stalled > NEAR_LATE_BOUND_MS)
        fail("part 3: a timer added %s ran %.1f ms late, %.1f ms of them not stalled", what, late, late - stalled);
    if (woke > NEAR_WAKEUPS)
        fail("part 3: the timer thread woke %llu times to run one timer %d ms ahead: it spins",
             (unsigned long long)woke, NEAR_MS);
}

static void part3(int workers)
{
    static struct test_timer far, near[2];
    struct tthread *tt = tthread_start(workers);
    int64_t give_up;
    uint64_t before;

    if (tt == NULL) {
        fail("tthread_start(%d): %s", workers, strerror(errno));
        return;
    }
    idle_interval(tt, "no timer");
    near_timer(tt, &near[0], "to an empty service");

    /* The add wakes the thread once, to sleep until the far timer: let that
     * wake-up be counted before the interval starts. */
    before = tthread_wakeups(tt);
    if (tthread_add(tt, &far.timer, tthread_now() + FAR_MS, must_not_run) != 0)
        fail("part 3: tthread_add failed");
    give_up = mono_ns() + BACKSTOP_MS * (int64_t)MS;
    while (tthread_wakeups(tt) == before && mono_ns() < give_up)
        sleep_ms(1);
    idle_interval(tt, "one timer 60 s away");
    near_timer(tt, &near[1], "while the thread sleeps until one 60 s away");
    idle_interval(tt, "one timer 60 s away, after running a near one");

    if (tthread_cancel(tt, &far.timer) != TTHREAD_CANCELLED_PENDING)
        fail("part 3: the far timer could not be cancelled as pending");
    if (tthread_stop(tt) != 0)
        fail("part 3: timers were left in the wheel");
    if (far.fired != 0)
        fail("part 3: the far timer ran");
}

int main(int argc, char **argv)
{
    int producers = 4, count = 4000, workers = 3, opt;
    uint64_t seed = (uint64_t)(mono_ns() % 2147483647);

    while ((opt = getopt(argc, argv, "p:n:w:s:")) != -1) {
        switch (opt) {
        case 'p': producers = (int)parse_number(optarg, 1, 64, "-p PRODUCERS"); break;
        case 'n': count = (int)parse_number(optarg, 1, 1000000, "-n TIMERS"); break;
        case 'w': workers = (int)parse_number(optarg, 1, 64, "-w WORKERS"); break;
        case 's': seed = (uint64_t)parse_number(optarg, 0, 2147483647, "-s SEED"); break;
        default: usage("unknown option"); break;
        }
    }
    if (argc - optind > 1)
        usage("unexpected argument");
    if (argc - optind == 1)
        test_name = argv[optind];
    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("  seed %lu (replay the random choices: -s %lu)\n", (unsigned long)seed, (unsigned long)seed);

    if (pthread_create(&stalls.thread, NULL, stall_watch, NULL) != 0) {
        fail("pthread_create: the control thread");
        return finish();
    }
    part1(workers);
    part2(producers, count, workers, seed);
    part3(workers);
    pthread_mutex_lock(&stalls_lock);
    stalls.stop = true;
    pthread_mutex_unlock(&stalls_lock);
    pthread_join(stalls.thread, NULL);
    printf("  the control (a %d ms clock_nanosleep in this process) saw %d stalls of more than %d ms\n", TICK_MS,
           stalls.n, STALL_MS);
    return finish();
}
