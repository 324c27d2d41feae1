/* tthread_test.c - run the timer threads with producer threads and check that
 * every timer fires exactly once or is cancelled exactly once.
 *
 *   tthread_test [-p PRODUCERS] [-n TIMERS] [-t THREADS] [-s SEED] [NAME]
 *
 * Part 1, cancel_sync: a timer's function is held running; another thread's
 * tthread_cancel_sync must return only after it has returned (the function
 * marks its return first), and the timer must never run again; the
 * function's own tthread_cancel_sync is refused (-EDEADLK), not a deadlock.
 *
 * Part 2, stress: PRODUCERS threads each add TIMERS timers due in 0-24 ms,
 * and cancel a random third of their own timers at random moments (half of
 * them with tthread_cancel_sync), so cancels land on pending, running and
 * already-run timers. Then every timer must have run exactly once or been
 * cancelled exactly once, never both; none may run before its expiry.
 *
 * Part 3, waking: a timer added while the threads sleep until one 60 s
 * away runs at its time, not the far one's, in at most NEAR_WAKEUPS
 * wake-ups (the add's and the expiry's: more would mean a thread spins).
 *
 * Meant to run under ThreadSanitizer as well as at -O2. No check judges a
 * duration: the waits below are backstops against a hang. Prints detail
 * lines, then "PASS NAME" or "FAIL NAME: reason"; exits 0 or 1. The seed
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
#define BACKSTOP_MS 20000           /* a wait longer than this is a hang */
#define FAR_MS 60000                /* part 3: the far timer, beyond the test's end */
#define NEAR_MS 20                  /* part 3: the near timer */
#define NEAR_WAKEUPS 4              /* part 3: at most, to run the near timer */

struct test_timer {
    struct tthread_timer timer;     /* what the service sees: first */
    int64_t expire_ms;
    int64_t fired_ns;               /* when fn ran */
    int fired;                      /* times fn ran: under stats.lock */
    bool cancel_tried;              /* written by the owning producer only */
    bool cancelled;
};

/* What the timer functions record, under one lock of the test's own (never
 * held while calling the service). */
static struct {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    long resolved;                  /* part 2: timers fired or cancelled */
    int held, release, returned;    /* part 1 */
    int own_sync;                   /* part 1: the function's own cancel_sync */
} stats = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0, 0, 0};

static const char *test_name = "timer_thread";
static int failures;
static char first_reason[300];
static struct tthread *part1_tt;

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
            "usage: tthread_test [-p PRODUCERS] [-n TIMERS] [-t THREADS] [-s SEED] [NAME]\n"
            "  -p PRODUCERS  producer threads (default 4)\n"
            "  -n TIMERS     timers per producer (default 4000)\n"
            "  -t THREADS    timer threads (default 2)\n"
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
        snprintf(msg, sizeof msg, "%s must be a number from %ld to %ld, not '%s'", what, min, max,
                 s);
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

/* Wait, with stats.lock held, until done(); false after BACKSTOP_MS (a hang).
 * The short timed waits are on the realtime clock pthread_cond_timedwait uses. */
static bool wait_stats(bool (*done)(void))
{
    int64_t deadline = mono_ns() + (int64_t)BACKSTOP_MS * MS;
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

/* ---- part 1: cancel_sync waits for a running function ---- */

static bool held(void) { return stats.held == 1; }

static void hold(struct tthread_timer *t)
{
    int own = tthread_cancel_sync(part1_tt, t);     /* would wait for itself */
    pthread_mutex_lock(&stats.lock);
    ((struct test_timer *)t)->fired++;
    stats.own_sync = own;
    stats.held++;
    pthread_cond_broadcast(&stats.changed);
    while (!stats.release)
        pthread_cond_wait(&stats.changed, &stats.lock);
    stats.returned = 1;                             /* the last thing it does */
    pthread_mutex_unlock(&stats.lock);
}

struct syncer {
    pthread_t thread;
    struct test_timer *tm;
    int r, returned_at_return;
};

static void *syncer_main(void *arg)
{
    struct syncer *c = arg;
    c->r = tthread_cancel_sync(part1_tt, &c->tm->timer);
    pthread_mutex_lock(&stats.lock);
    c->returned_at_return = stats.returned;
    pthread_mutex_unlock(&stats.lock);
    return NULL;
}

static void part1(int threads)
{
    static struct test_timer tm;
    struct syncer c;
    memset(&c, 0, sizeof c);
    part1_tt = tthread_start(threads);
    if (part1_tt == NULL) {
        fail("tthread_start(%d): %s", threads, strerror(errno));
        return;
    }
    tthread_timer_init(part1_tt, &tm.timer, hold);
    if (tthread_add(part1_tt, &tm.timer, tthread_now()) != 0)
        fail("part 1: tthread_add failed");
    pthread_mutex_lock(&stats.lock);
    if (!wait_stats(held))
        fail("part 1: the timer did not run");
    pthread_mutex_unlock(&stats.lock);
    c.tm = &tm;
    pthread_create(&c.thread, NULL, syncer_main, &c);
    sleep_ms(20);               /* not a check: only gives cancel_sync time to start waiting */
    pthread_mutex_lock(&stats.lock);
    stats.release = 1;
    pthread_cond_broadcast(&stats.changed);
    pthread_mutex_unlock(&stats.lock);
    pthread_join(c.thread, NULL);
    tthread_stop(part1_tt);
    printf("  cancel_sync of a running timer: returned %d after its function had returned (%s); "
           "the function's own cancel_sync: %d (-EDEADLK is %d); it ran %d time(s)\n", c.r,
           c.returned_at_return ? "yes" : "no", stats.own_sync, -EDEADLK, tm.fired);
    if (c.r != 0 || !c.returned_at_return)
        fail("part 1: cancel_sync returned %d before the running function had returned", c.r);
    if (stats.own_sync != -EDEADLK)
        fail("part 1: cancel_sync from the timer's own function gave %d, not -EDEADLK",
             stats.own_sync);
    if (tm.fired != 1)
        fail("part 1: the timer ran %d times", tm.fired);
}

/* ---- part 2: producers adding and cancelling at random ---- */

static long part2_total;

static bool all_resolved(void) { return stats.resolved == part2_total; }

static void record_fire(struct tthread_timer *t)
{
    int64_t now = mono_ns();
    pthread_mutex_lock(&stats.lock);
    ((struct test_timer *)t)->fired++;
    ((struct test_timer *)t)->fired_ns = now;
    if (++stats.resolved == part2_total)
        pthread_cond_broadcast(&stats.changed);
    pthread_mutex_unlock(&stats.lock);
}

struct producer {
    pthread_t thread;
    struct tthread *tt;
    struct test_timer *timers;
    int count;
    uint64_t rng;
    long cancelled, too_late, add_errors;
};

static void *producer_main(void *arg)
{
    struct producer *p = arg;
    int i;

    for (i = 0; i < p->count; i++) {
        struct test_timer *tm = &p->timers[i];
        tthread_timer_init(p->tt, &tm->timer, record_fire);
        tm->expire_ms = tthread_now() + (int64_t)(next_random(&p->rng) % 25);
        if (tthread_add(p->tt, &tm->timer, tm->expire_ms) != 0)
            p->add_errors++;
        /* A third of the time, cancel one of ours: just added (pending), a
         * few ms old (pending or running), or old (usually run already). */
        if (next_random(&p->rng) % 3 == 0) {
            int back = (int)(next_random(&p->rng) % 64), j = i - back;
            if (j >= 0 && !p->timers[j].cancel_tried) {
                struct test_timer *victim = &p->timers[j];
                bool stopped;
                victim->cancel_tried = true;
                if (next_random(&p->rng) % 2)
                    stopped = tthread_cancel(p->tt, &victim->timer) == TTHREAD_CANCELLED;
                else
                    stopped = tthread_cancel_sync(p->tt, &victim->timer) == 1;
                victim->cancelled = stopped;
                if (stopped) {
                    p->cancelled++;
                    pthread_mutex_lock(&stats.lock);
                    if (++stats.resolved == part2_total)
                        pthread_cond_broadcast(&stats.changed);
                    pthread_mutex_unlock(&stats.lock);
                } else {
                    p->too_late++;
                }
            }
        }
        if (i % 16 == 15)
            sleep_ms(1);            /* spread the adds over a few hundred ms */
    }
    return NULL;
}

static void part2(int producers, int count, int threads, uint64_t seed)
{
    struct producer *p = calloc((size_t)producers, sizeof *p);
    long fired = 0, cancelled = 0, too_late = 0, both = 0, twice = 0, neither = 0, early = 0;
    struct tthread *tt;
    int i, k, err;
    bool resolved;

    if (p == NULL) {
        fail("out of memory");
        exit(finish());
    }
    tt = tthread_start(threads);
    if (tt == NULL) {
        fail("tthread_start(%d): %s", threads, strerror(errno));
        exit(finish());
    }
    part2_total = (long)producers * count;
    for (i = 0; i < producers; i++) {
        p[i].tt = tt;
        p[i].count = count;
        p[i].rng = seed + (uint64_t)i * UINT64_C(0x9E3779B97F4A7C15);
        if (p[i].rng == 0)
            p[i].rng = 1;
        p[i].timers = calloc((size_t)count, sizeof *p[i].timers);
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

    pthread_mutex_lock(&stats.lock);
    resolved = wait_stats(all_resolved);
    pthread_mutex_unlock(&stats.lock);
    tthread_stop(tt);
    if (!resolved)
        fail("part 2: only %ld of %ld timers fired or were cancelled", stats.resolved, part2_total);

    /* All threads are joined: the records can be read without locks. */
    for (i = 0; i < producers; i++) {
        if (p[i].add_errors != 0)
            fail("part 2: %ld adds failed", p[i].add_errors);
        cancelled += p[i].cancelled;
        too_late += p[i].too_late;
        for (k = 0; k < count; k++) {
            struct test_timer *tm = &p[i].timers[k];
            twice += tm->fired > 1;
            both += tm->fired && tm->cancelled;
            neither += !tm->fired && !tm->cancelled;
            if (tm->fired) {
                fired++;
                early += tm->fired_ns < tm->expire_ms * MS;
            }
        }
    }
    printf("  stress: %d producers x %d timers due in 0-24 ms, %d timer threads: %ld fired, "
           "%ld cancelled, %ld cancels too late (run or running)\n", producers, count, threads,
           fired, cancelled, too_late);
    printf("  exactly once: %ld of %ld timers; fired twice %ld, fired and cancelled %ld, "
           "neither %ld, early %ld\n", part2_total - twice - both - neither, part2_total, twice,
           both, neither, early);
    if (twice || both || neither)
        fail("part 2: %ld timers fired twice, %ld fired and were cancelled, %ld did neither", twice,
             both, neither);
    if (early)
        fail("part 2: %ld timers fired before their expiry", early);
    for (i = 0; i < producers; i++)
        free(p[i].timers);
    free(p);
}

/* ---- part 3: an add wakes a thread sleeping until a far timer ---- */

static int near_fired;

static bool near_done(void) { return near_fired == 1; }

static void record_near(struct tthread_timer *t)
{
    int64_t now = mono_ns();
    pthread_mutex_lock(&stats.lock);
    ((struct test_timer *)t)->fired++;
    ((struct test_timer *)t)->fired_ns = now;
    near_fired++;
    pthread_cond_broadcast(&stats.changed);
    pthread_mutex_unlock(&stats.lock);
}

static void must_not_run(struct tthread_timer *t)
{
    pthread_mutex_lock(&stats.lock);
    ((struct test_timer *)t)->fired++;
    pthread_mutex_unlock(&stats.lock);
}

static void part3(void)
{
    static struct test_timer far, near;
    struct tthread *tt = tthread_start(1);
    uint64_t before, woke;
    bool fired;

    if (tt == NULL) {
        fail("tthread_start(1): %s", strerror(errno));
        return;
    }
    tthread_timer_init(tt, &far.timer, must_not_run);
    tthread_timer_init(tt, &near.timer, record_near);
    if (tthread_add(tt, &far.timer, tthread_now() + FAR_MS) != 0)
        fail("part 3: tthread_add failed");
    sleep_ms(10);               /* not a check: lets the thread go to sleep until the far timer */
    before = tthread_wakeups(tt);
    near.expire_ms = tthread_now() + NEAR_MS;
    if (tthread_add(tt, &near.timer, near.expire_ms) != 0)
        fail("part 3: tthread_add failed");
    pthread_mutex_lock(&stats.lock);
    fired = wait_stats(near_done);
    pthread_mutex_unlock(&stats.lock);
    woke = tthread_wakeups(tt) - before;
    if (tthread_cancel(tt, &far.timer) != TTHREAD_CANCELLED)
        fail("part 3: the far timer could not be cancelled");
    tthread_stop(tt);
    printf("  a timer %d ms ahead, added while the thread slept until one %d s away: ran %s its "
           "expiry, in %llu wake-ups (required: not before, at most %d)\n", NEAR_MS, FAR_MS / 1000,
           near.fired_ns >= near.expire_ms * MS ? "at or after" : "BEFORE",
           (unsigned long long)woke, NEAR_WAKEUPS);
    if (!fired)
        fail("part 3: the near timer did not run (the add did not wake the thread?)");
    else if (near.fired_ns < near.expire_ms * MS)
        fail("part 3: the near timer ran before its expiry");
    if (woke > NEAR_WAKEUPS)
        fail("part 3: the thread woke %llu times to run one timer: it spins",
             (unsigned long long)woke);
    if (far.fired != 0)
        fail("part 3: the far timer ran");
}

int main(int argc, char **argv)
{
    int producers = 4, count = 4000, threads = 2, opt;
    uint64_t seed = (uint64_t)(mono_ns() % 2147483647);

    while ((opt = getopt(argc, argv, "p:n:t:s:")) != -1) {
        switch (opt) {
        case 'p': producers = (int)parse_number(optarg, 1, 64, "-p PRODUCERS"); break;
        case 'n': count = (int)parse_number(optarg, 1, 1000000, "-n TIMERS"); break;
        case 't': threads = (int)parse_number(optarg, 1, 64, "-t THREADS"); break;
        case 's': seed = (uint64_t)parse_number(optarg, 0, 2147483647, "-s SEED"); break;
        default: usage("unknown option"); break;
        }
    }
    if (argc - optind > 1)
        usage("unexpected argument");
    if (argc - optind == 1)
        test_name = argv[optind];
    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("  seed %lu (replay the random choices: -s %lu)\n", (unsigned long)seed,
           (unsigned long)seed);

    part1(threads);
    part2(producers, count, threads, seed);
    part3();
    return finish();
}
