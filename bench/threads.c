/* threads.c - what timer_service.h costs, from 1, 2 and 4 threads (make bench-threads).
 *
 *   timer_threads [--reps N] [--ms MS] [--samples N] [--idle-ms MS]
 *
 * Measures and prints; it never judges a time (a benchmark on a shared
 * machine). Each figure is the median of --reps runs, with the range.
 *
 * 1. arm+cancel pairs per second from 1, 2 and 4 threads, each thread on
 *    its own timers (arm one, cancel the one armed 512 arms before), into
 *    containers that already hold 10,000 far timers per thread (so an arm is
 *    rarely the earliest, as in a loaded program): the service with a shard
 *    per thread (each thread's timers on its own shard, and on random ones),
 *    with one shard for all, and the baseline a program writes today: one
 *    heap under one pthread mutex, locked by each call (arm, cancel) as a
 *    program's own arm and cancel functions do. The service's threads run;
 *    no timer comes due during the run. Beside each figure, the arms that
 *    signalled a sleeping service thread, per second (stats.wake_signals:
 *    an arm earlier than the time the thread wakes by itself).
 * 2. the owner's uncontended cost: one thread, ns per arm+cancel pair on
 *    the service against the same pair on the bare container (insert,
 *    remove), each kind.
 * 3. wake-up latency, expiry to callback, of the service's thread: timers
 *    armed one at a time 0.2 to 1.2 ms ahead from another thread;
 *    p50/p99/max of timer_service_now() in the callback minus the expiry.
 * 4. idle wake-ups per second of the service's threads (4 shards): with no
 *    timer, and with 1,000 timers an hour ahead (stats.wakeups).
 * 5. bytes per timer and per shard.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/prctl.h>
#endif

#include "timer_service.h"

TIMER_SERVICE_DEFINE(svc_heap, heap)
TIMER_SERVICE_DEFINE(svc_wheel, wheel)
TIMER_SERVICE_DEFINE(svc_set, set)

#define MAX_THREADS 4
#define WORKING 1024            /* timers per thread that are armed and cancelled */
#define BACKGROUND 10000        /* far timers per thread, already pending */
#define SECOND INT64_C(1000000000)

/* One of the services (by kind) or the baseline, behind one set of calls. */
enum { KIND_HEAP, KIND_WHEEL, KIND_SET, BASELINE };
static const char *const kind_names[] = {"heap", "wheel", "set", "baseline"};

struct base_item {
    struct timer_heap_node node;
};
TIMER_HEAP_DEFINE_NAMED(base_heap, struct base_item, node)

struct bench {
    int kind;
    svc_heap heap;
    svc_wheel wheel;
    svc_set set;
    pthread_mutex_t mu;         /* the baseline's one lock */
    base_heap base;
};

static int b_arm(struct bench *b, struct timer_service_timer *t, int64_t e)
{
    switch (b->kind) {
    case KIND_HEAP: return svc_heap_arm(&b->heap, t, e);
    case KIND_WHEEL: return svc_wheel_arm(&b->wheel, t, e);
    default: return svc_set_arm(&b->set, t, e);
    }
}

static struct timer_service_result b_cancel(struct bench *b, struct timer_service_timer *t)
{
    switch (b->kind) {
    case KIND_HEAP: return svc_heap_cancel(&b->heap, t);
    case KIND_WHEEL: return svc_wheel_cancel(&b->wheel, t);
    default: return svc_set_cancel(&b->set, t);
    }
}

static int b_init(struct bench *b, int kind, unsigned shards)
{
    struct timer_service_options o;
    memset(&o, 0, sizeof o);
    o.shards = shards;
    b->kind = kind;
    switch (kind) {
    case KIND_HEAP: return svc_heap_init(&b->heap, &o) || svc_heap_start(&b->heap);
    case KIND_WHEEL: return svc_wheel_init(&b->wheel, &o) || svc_wheel_start(&b->wheel);
    case KIND_SET: return svc_set_init(&b->set, &o) || svc_set_start(&b->set);
    default:
        base_heap_init(&b->base, 0);
        return pthread_mutex_init(&b->mu, NULL);
    }
}

static void b_destroy(struct bench *b)
{
    switch (b->kind) {
    case KIND_HEAP: svc_heap_destroy(&b->heap); break;
    case KIND_WHEEL: svc_wheel_destroy(&b->wheel); break;
    case KIND_SET: svc_set_destroy(&b->set); break;
    default:
        base_heap_destroy(&b->base);
        pthread_mutex_destroy(&b->mu);
    }
}

static void noop(struct timer_service_timer *t, void *arg, const struct timer_service_fire *f)
{
    (void)t;
    (void)arg;
    (void)f;
}

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * UINT64_C(2685821657736338717);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ---- 1. arm+cancel pairs per second ------------------------------------- */

struct worker {
    pthread_t th;
    struct bench *b;
    struct timer_service_timer *t;  /* WORKING + BACKGROUND */
    struct base_item *items;        /* the baseline's */
    uint64_t rng;
    long pairs;
    int index;
};

static int go, stop_flag;   /* atomics */
static int64_t far_base;

static int64_t far_expiry(uint64_t *rng)
{
    return far_base + 10 * SECOND + (int64_t)(rnd(rng) % (uint64_t)(10 * SECOND));
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    long pairs = 0;
    unsigned i = 0;
    /* a copy of its own: the workers' structs share cache lines (an array on
     * main's stack), and a random number written back each pair made the
     * 2-thread rows swing 2x from one process to the next */
    uint64_t rng = w->rng;
    while (!__atomic_load_n(&go, __ATOMIC_ACQUIRE))
        ;
    if (w->b->kind == BASELINE) {
        while (!__atomic_load_n(&stop_flag, __ATOMIC_RELAXED)) {
            struct base_item *a = &w->items[i % WORKING], *c = &w->items[(i + WORKING / 2) % WORKING];
            int64_t e = far_expiry(&rng);
            pthread_mutex_lock(&w->b->mu);      /* arm and cancel, two calls as a program's */
            if (base_heap_reschedule(&w->b->base, e, a) != 0)
                abort();
            pthread_mutex_unlock(&w->b->mu);
            pthread_mutex_lock(&w->b->mu);
            base_heap_remove(&w->b->base, c);
            pthread_mutex_unlock(&w->b->mu);
            pairs++;
            i++;
        }
    } else {
        while (!__atomic_load_n(&stop_flag, __ATOMIC_RELAXED)) {
            if (b_arm(w->b, &w->t[i % WORKING], far_expiry(&rng)) < 0)
                abort();
            b_cancel(w->b, &w->t[(i + WORKING / 2) % WORKING]);
            pairs++;
            i++;
        }
    }
    w->pairs = pairs;
    return NULL;
}

/* The arms that signalled a shard's thread, every shard together. */
static double b_signals(struct bench *b, unsigned shards)
{
    struct timer_service_stats st;
    double n = 0;
    unsigned i;
    for (i = 0; i < shards && b->kind != BASELINE; i++) {
        int r = b->kind == KIND_HEAP    ? svc_heap_stats(&b->heap, i, &st)
                : b->kind == KIND_WHEEL ? svc_wheel_stats(&b->wheel, i, &st)
                                        : svc_set_stats(&b->set, i, &st);
        if (r == 0)
            n += (double)st.wake_signals;
    }
    return n;
}

/* homes: 0 = each thread's timers on its shard, 1 = random shards; *signals:
 * the wake signals per second of the run */
static double pairs_per_second(int kind, int threads, unsigned shards, int homes, int ms,
                               double *signals)
{
    struct bench *b = calloc(1, sizeof *b);
    struct worker w[MAX_THREADS];
    struct timespec run = {ms / 1000, (long)(ms % 1000) * 1000000};
    long total = 0;
    int64_t t0, t1;
    double signals0;
    int k, i;

    if (b == NULL || b_init(b, kind, shards) != 0) {
        fprintf(stderr, "timer_threads: init failed\n");
        exit(1);
    }
    far_base = timer_service_now();
    __atomic_store_n(&go, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&stop_flag, 0, __ATOMIC_RELAXED);
    for (k = 0; k < threads; k++) {
        memset(&w[k], 0, sizeof w[k]);
        w[k].b = b;
        w[k].index = k;
        w[k].rng = UINT64_C(0x9E3779B97F4A7C15) * (uint64_t)(k + 1);
        if (kind == BASELINE) {
            w[k].items = calloc(WORKING + BACKGROUND, sizeof *w[k].items);
            if (w[k].items == NULL)
                exit(1);
            for (i = 0; i < WORKING + BACKGROUND; i++)
                if ((i >= WORKING || i % 2 == 0) &&
                    base_heap_insert(&b->base, far_expiry(&w[k].rng), &w[k].items[i]) != 0)
                    exit(1);
        } else {
            w[k].t = calloc(WORKING + BACKGROUND, sizeof *w[k].t);
            if (w[k].t == NULL)
                exit(1);
            for (i = 0; i < WORKING + BACKGROUND; i++) {
                unsigned home = homes == 0 ? (unsigned)k % shards : (unsigned)(rnd(&w[k].rng) % shards);
                timer_service_timer_init(&w[k].t[i], home, noop, NULL);
                if (i >= WORKING || i % 2 == 0)
                    b_arm(b, &w[k].t[i], far_expiry(&w[k].rng));
            }
        }
        pthread_create(&w[k].th, NULL, worker_main, &w[k]);
    }
    signals0 = b_signals(b, shards);
    t0 = timer_service_now();
    __atomic_store_n(&go, 1, __ATOMIC_RELEASE);
    nanosleep(&run, NULL);
    __atomic_store_n(&stop_flag, 1, __ATOMIC_RELAXED);
    for (k = 0; k < threads; k++) {
        pthread_join(w[k].th, NULL);
        total += w[k].pairs;
    }
    t1 = timer_service_now();
    *signals = (b_signals(b, shards) - signals0) / ((double)(t1 - t0) / 1e9);
    b_destroy(b);
    for (k = 0; k < threads; k++) {
        free(w[k].t);
        free(w[k].items);
    }
    free(b);
    return (double)total / ((double)(t1 - t0) / 1e9);
}

/* ---- 2. the owner's uncontended cost ------------------------------------ */

struct heap_item {
    struct timer_heap_node node;
};
struct wheel_item {
    struct timer_wheel_node node;
};
struct set_item {
    struct timer_set_node node;
};
TIMER_HEAP_DEFINE_NAMED(bare_heap, struct heap_item, node)
TIMER_WHEEL_DEFINE_NAMED(bare_wheel, struct wheel_item, node)
TIMER_SET_DEFINE_NAMED(bare_set, struct set_item, node)

#define OWNER_PAIRS 2000000

/* ns per arm+cancel pair, one thread, BACKGROUND far timers pending: each
 * kind's calls made directly, ARM(c, item, expire) (< 0 only on an error)
 * and STOP(c, item), on a C that OPEN(c, items) made (0: ready) */
#define OWNER_PAIRS_(fn, C, ITEM, OPEN, ARM, STOP, CLOSE)                                          \
    static double fn(void)                                                                         \
    {                                                                                              \
        C c;                                                                                       \
        ITEM *it = calloc(WORKING + BACKGROUND, sizeof *it);                                       \
        uint64_t rng = 7;                                                                          \
        int64_t t0, t1;                                                                            \
        long i;                                                                                    \
        if (it == NULL || OPEN(&c, it) != 0)                                                       \
            exit(1);                                                                               \
        far_base = timer_service_now();                                                            \
        for (i = 0; i < WORKING + BACKGROUND; i++)                                                 \
            if ((i >= WORKING || i % 2 == 0) && ARM(&c, &it[i], far_expiry(&rng)) != 0)           \
                exit(1);                                                                           \
        t0 = timer_service_now();                                                                  \
        for (i = 0; i < OWNER_PAIRS; i++) {                                                        \
            if (ARM(&c, &it[i % WORKING], far_expiry(&rng)) < 0)                                   \
                abort();                                                                           \
            STOP(&c, &it[(i + WORKING / 2) % WORKING]);                                            \
        }                                                                                          \
        t1 = timer_service_now();                                                                  \
        CLOSE(&c);                                                                                 \
        free(it);                                                                                  \
        return (double)(t1 - t0) / OWNER_PAIRS;                                                    \
    }

/* through the service's shard 0 (1 shard, no thread): arm and cancel */
static int svc_timers_(struct timer_service_timer *t)
{
    int i;
    for (i = 0; i < WORKING + BACKGROUND; i++)
        timer_service_timer_init(&t[i], 0, noop, NULL);
    return 0;
}
#define SVC_OPEN_(s, t) (svc_timers_(t) != 0 || SVC_INIT_(s, NULL) != 0)
#define SVC_INIT_ svc_heap_init
OWNER_PAIRS_(owner_svc_heap, svc_heap, struct timer_service_timer, SVC_OPEN_, svc_heap_arm,
             svc_heap_cancel, svc_heap_destroy)
#undef SVC_INIT_
#define SVC_INIT_ svc_wheel_init
OWNER_PAIRS_(owner_svc_wheel, svc_wheel, struct timer_service_timer, SVC_OPEN_, svc_wheel_arm,
             svc_wheel_cancel, svc_wheel_destroy)
#undef SVC_INIT_
#define SVC_INIT_ svc_set_init
OWNER_PAIRS_(owner_svc_set, svc_set, struct timer_service_timer, SVC_OPEN_, svc_set_arm,
             svc_set_cancel, svc_set_destroy)
#undef SVC_INIT_

/* the same pairs on the bare container: insert (-EBUSY: armed already, left
 * as it is, where the service's arm moves it) and remove */
#define BARE_(NAME, ITEM)                                                                          \
    static int NAME##_open_(NAME *c, ITEM *items)                                                  \
    {                                                                                              \
        (void)items;                                                                               \
        NAME##_init(c, 0);                                                                         \
        return 0;                                                                                  \
    }                                                                                              \
    static int NAME##_arm_(NAME *c, ITEM *item, int64_t e)                                         \
    {                                                                                              \
        return NAME##_insert(c, e, item) == -EINVAL ? -1 : 0;                                      \
    }                                                                                              \
    OWNER_PAIRS_(bare_##NAME, NAME, ITEM, NAME##_open_, NAME##_arm_, NAME##_remove, NAME##_destroy)
BARE_(bare_heap, struct heap_item)
BARE_(bare_wheel, struct wheel_item)
BARE_(bare_set, struct set_item)

/* ---- 3. wake-up latency -------------------------------------------------- */

static pthread_mutex_t lat_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t lat_cv = PTHREAD_COND_INITIALIZER;
static int lat_fired, lat_slack_set;
static double lat_sample;

/* arg non-NULL: the first callback sets its thread's timer slack to 1 ns
 * (Linux rounds a sleeper's deadline up by up to 50 us by default). */
static void lat_cb(struct timer_service_timer *t, void *arg, const struct timer_service_fire *f)
{
    int64_t now = timer_service_now();
    (void)t;
#if defined(__linux__)
    if (arg != NULL && !lat_slack_set)
        lat_slack_set = prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL) == 0;
#else
    (void)arg;
#endif
    pthread_mutex_lock(&lat_mu);
    lat_sample = (double)(now - f->expire) / 1000.0;     /* us */
    lat_fired = 1;
    pthread_cond_signal(&lat_cv);
    pthread_mutex_unlock(&lat_mu);
}

/* p50, p99, max in us of `samples` timers, one at a time (slack: see lat_cb) */
static void latency(int samples, int slack, double out[3])
{
    svc_wheel s;
    struct timer_service_timer t;
    double *v = calloc((size_t)samples, sizeof *v);
    uint64_t rng = 11;
    int i;
    if (v == NULL || svc_wheel_init(&s, NULL) != 0 || svc_wheel_start(&s) != 0)
        exit(1);
    lat_slack_set = 0;
    timer_service_timer_init(&t, 0, lat_cb, slack ? &lat_slack_set : NULL);
    for (i = 0; i < samples; i++) {
        pthread_mutex_lock(&lat_mu);
        lat_fired = 0;
        svc_wheel_arm(&s, &t, timer_service_now() + 200000 + (int64_t)(rnd(&rng) % 1000000));
        while (!lat_fired)
            pthread_cond_wait(&lat_cv, &lat_mu);
        v[i] = lat_sample;
        pthread_mutex_unlock(&lat_mu);
    }
    svc_wheel_destroy(&s);
    qsort(v, (size_t)samples, sizeof *v, cmp_double);
    out[0] = v[samples / 2];
    out[1] = v[(samples * 99) / 100];
    out[2] = v[samples - 1];
    free(v);
}

/* ---- 4. idle wake-ups ----------------------------------------------------- */

static void idle_wakeups(int ms, double out[2])
{
    svc_wheel s;
    struct timer_service_options o;
    struct timer_service_timer *t = calloc(1000, sizeof *t);
    struct timespec run = {ms / 1000, (long)(ms % 1000) * 1000000};
    struct timer_service_stats st;
    uint64_t before, after;
    unsigned i;
    int phase;
    memset(&o, 0, sizeof o);
    o.shards = 4;
    if (t == NULL || svc_wheel_init(&s, &o) != 0 || svc_wheel_start(&s) != 0)
        exit(1);
    for (phase = 0; phase < 2; phase++) {
        if (phase == 1) {
            struct timespec settle = {0, 10000000};
            for (i = 0; i < 1000; i++) {
                timer_service_timer_init(&t[i], i % 4, noop, NULL);
                svc_wheel_arm(&s, &t[i], timer_service_now() + 3600 * SECOND);
            }
            nanosleep(&settle, NULL);   /* the arms' own wake-ups (one per shard) come first */
        }
        for (before = 0, i = 0; i < 4; i++) {
            svc_wheel_stats(&s, i, &st);
            before += st.wakeups;
        }
        nanosleep(&run, NULL);
        for (after = 0, i = 0; i < 4; i++) {
            svc_wheel_stats(&s, i, &st);
            after += st.wakeups;
        }
        out[phase] = (double)(after - before) / ((double)ms / 1000.0);
    }
    svc_wheel_destroy(&s);
    free(t);
}

/* ---- main ---------------------------------------------------------------- */

static void usage(void)
{
    fprintf(stderr, "usage: timer_threads [--reps N] [--ms MS] [--samples N] [--idle-ms MS]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    int reps = 5, ms = 200, samples = 1000, idle_ms = 1000, i, r, k;
    static const int thread_counts[] = {1, 2, 4};
    double v[64], sig[64], lat[3], lats[3][64], idle[2];

    for (i = 1; i < argc; i++) {
        if (i + 1 >= argc)
            usage();
        if (strcmp(argv[i], "--reps") == 0)
            reps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--ms") == 0)
            ms = atoi(argv[++i]);
        else if (strcmp(argv[i], "--samples") == 0)
            samples = atoi(argv[++i]);
        else if (strcmp(argv[i], "--idle-ms") == 0)
            idle_ms = atoi(argv[++i]);
        else
            usage();
    }
    if (reps < 1 || reps > 64 || ms < 1 || samples < 100 || idle_ms < 1)
        usage();
    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("timer_service.h: make bench-threads on this machine, %ld cores online (sysconf): with 4 "
           "threads on 2 cores, threads share cores.\nEach figure: the median of %d runs [min-max]; %d ms "
           "per throughput run.\n\n", sysconf(_SC_NPROCESSORS_ONLN), reps, ms);

    printf("1. arm+cancel pairs per second (millions), each thread on its own %d timers, %d far timers "
           "per thread pending:\n", WORKING, BACKGROUND);
    printf("   %-44s %27s %27s %27s\n", "", "1 thread, signals/s", "2 threads", "4 threads");
    {
        struct row {
            const char *name;
            int kind, shards_per_thread, homes;
        } rows[] = {
            {"baseline: one heap under one mutex", BASELINE, 0, 0},
            {"service, heap, a shard per thread", KIND_HEAP, 1, 0},
            {"service, wheel, a shard per thread", KIND_WHEEL, 1, 0},
            {"service, wheel, a shard per thread, random", KIND_WHEEL, 1, 1},
            {"service, heap, one shard", KIND_HEAP, 0, 0},
            {"service, wheel, one shard", KIND_WHEEL, 0, 0},
        };
        for (k = 0; k < (int)(sizeof rows / sizeof rows[0]); k++) {
            printf("   %-44s", rows[k].name);
            for (i = 0; i < 3; i++) {
                int n = thread_counts[i];
                unsigned shards = rows[k].shards_per_thread ? (unsigned)n : 1;
                for (r = 0; r < reps; r++)
                    v[r] = pairs_per_second(rows[k].kind, n, shards, rows[k].homes, ms, &sig[r]) /
                           1e6;
                {
                    double lo, hi, med = median(v, reps);
                    lo = v[0];
                    hi = v[reps - 1];
                    printf(" %6.2f [%5.2f-%5.2f] %6.0f", med, lo, hi, median(sig, reps));
                }
            }
            printf("\n");
        }
    }
    printf("   (random: each timer's home shard drawn at random, so threads share shards)\n\n");

    printf("2. the owner's uncontended cost: ns per arm+cancel pair, one thread, %d far timers pending\n",
           BACKGROUND);
    printf("   %-10s %22s %22s %8s\n", "kind", "service (1 shard)", "bare container", "ratio");
    for (k = 0; k < 3; k++) {
        double sv[64], bv[64], ms_, mb;
        for (r = 0; r < reps; r++) {
            sv[r] = k == KIND_HEAP ? owner_svc_heap() : k == KIND_WHEEL ? owner_svc_wheel()
                                   : owner_svc_set();
            bv[r] = k == KIND_HEAP ? bare_bare_heap() : k == KIND_WHEEL ? bare_bare_wheel() : bare_bare_set();
        }
        ms_ = median(sv, reps);
        mb = median(bv, reps);
        printf("   %-10s %8.1f [%5.1f-%5.1f] %8.1f [%5.1f-%5.1f] %7.2fx\n", kind_names[k], ms_, sv[0],
               sv[reps - 1], mb, bv[0], bv[reps - 1], ms_ / mb);
    }
    printf("\n");

    printf("3. wake-up latency, expiry to callback, the service's thread (wheel), %d timers one at a "
           "time, 0.2-1.2 ms ahead:\n", samples);
    for (i = 0; i < 2; i++) {
        for (r = 0; r < reps; r++) {
            latency(samples, i, lat);
            for (k = 0; k < 3; k++)
                lats[k][r] = lat[k];
        }
        for (k = 0; k < 3; k++)
            lat[k] = median(lats[k], reps);     /* sorts each: [0] and [reps - 1] are the range */
        printf("   %-38s p50 %6.1f us [%.1f-%.1f], p99 %6.1f us [%.1f-%.1f], max %7.1f us [%.1f-%.1f]\n",
               i == 0 ? "the kernel's default timer slack:" : "the thread's timer slack set to 1 ns:",
               lat[0], lats[0][0], lats[0][reps - 1], lat[1], lats[1][0], lats[1][reps - 1], lat[2],
               lats[2][0], lats[2][reps - 1]);
    }
    printf("\n");

    idle_wakeups(idle_ms, idle);
    printf("4. idle wake-ups per second of the service's 4 threads (4 shards), one run of %d ms each: "
           "no timer %.1f, 1,000 timers an hour ahead %.1f\n\n", idle_ms, idle[0], idle[1]);

    printf("5. memory: %zu bytes per timer (struct timer_service_timer, every kind; the heap adds a "
           "16-byte array entry per pending timer); per shard: heap %zu, wheel %zu, set %zu bytes "
           "(lock, condition variables, counters, the container)\n",
           sizeof(struct timer_service_timer), TIMER_SERVICE_LINES_(TIMER_SERVICE_HEAD_SIZE_ +
           sizeof(struct timer_heap)), TIMER_SERVICE_LINES_(TIMER_SERVICE_HEAD_SIZE_ +
           sizeof(struct timer_wheel)), TIMER_SERVICE_LINES_(TIMER_SERVICE_HEAD_SIZE_ +
           sizeof(struct timer_set)));
    return 0;
}
