/* bench.c - benchmark of the three timer containers (set, heap, wheel).
 *
 * One driver (bench_kind.h) is included once per kind; this file holds what
 * all kinds share: options, the clock, precomputed workloads, the floor
 * (the cheapest conceivable intrusive link/unlink), repetitions, medians and
 * the report (a table on stdout, one CSV row per kind/workload/N/op).
 *
 *   ./timer_bench [--sizes 10000,1000000,10000000] [--reps 5] [--wn 1000000]
 *                 [--conns 100000] [--seed S] [--csv results.csv]
 *
 * It measures and reports; it never asserts a time. It does check results
 * (exactly the right items come out) and exits non-zero when one is wrong.
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "list.h"
#include "timer_set.h"
#include "timer_heap.h"
#include "timer_wheel.h"

#ifndef BENCH_CFLAGS
#define BENCH_CFLAGS "?"
#endif

#define MAX_SIZES 16
#define MAX_REPS 64
#define MAX_KINDS 3

/* ---- small helpers ---------------------------------------------------- */

#define BENCH_CAT_(a, b) a##b
#define BENCH_CAT(a, b) BENCH_CAT_(a, b)
/* Expands the name arguments before the DEFINE macro pastes them. */
#define BENCH_EXPAND_DEFINE(define, name, type, member) define(name, type, member)

static void bench_fail(const char *fmt, ...)
{
    va_list ap;
    fflush(stdout);
    fputs("\nbench: FAILED: ", stderr);   /* after the progress line */
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

static double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Cost of one bench_now() pair with nothing between; subtracted from each
 * short batch in the workloads that interleave operation kinds. */
static double bench_clock_cost;

/* Results that the compiler must not discard. */
static volatile uint64_t bench_sink;

/* splitmix64: fast, good enough for workloads, replayable from the seed. */
static uint64_t rng_state;
static uint64_t rng_next(void)
{
    uint64_t z = (rng_state += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}
static uint64_t rng_below(uint64_t n) { return rng_next() % n; }
static double rng_unit(void) { return (double)(rng_next() >> 11) * (1.0 / 9007199254740992.0); }

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (p == NULL)
        bench_fail("out of memory (%zu bytes)", bytes);
    return p;
}

/* One item array for every run, faulted in once at start so that page
 * faults are never timed; each run zeroes the part it uses (a zeroed node
 * is idle). */
static void *bench_arena;
static size_t bench_arena_bytes;

static void *bench_items(size_t bytes)
{
    if (bytes > bench_arena_bytes)
        bench_fail("item arena too small (%zu > %zu)", bytes, bench_arena_bytes);
    memset(bench_arena, 0, bytes);
    return bench_arena;
}

/* ---- the seed protocol's expiries ------------------------------------- */

#define SEED_BASE INT64_C(1000)
#define SEED_STEP INT64_C(97)
#define SEED_WHEN(i) (SEED_BASE + (int64_t)(i) * SEED_STEP)

struct seed_result {
    double insert, remove, pop, min_time;   /* ns per op */
    size_t owned_bytes;
};

/* ---- workloads, precomputed so that no RNG is timed -------------------- */

#define TICK_MS 1                       /* 1 tick = 1 ms */
#define RANDOM_HORIZON (INT64_C(1) << 24)
#define RANDOM_STEPS 4096
#define IDLE_TIMEOUT INT64_C(10000)     /* 10 s */
#define IDLE_TICKS INT64_C(20000)       /* 20 s of traffic */
#define IDLE_SILENT_PERMILLE 10         /* 1% of connections go silent */
#define REQ_DELAY INT64_C(1000)         /* every request times out after 1 s */
#define REQ_PER_TICK 100
#define REQ_ANSWERED_PERCENT 95
#define MIXED_NOW0 (INT64_C(1) << 20)
#define MIXED_LOG2_MAX 40

struct random_wl {
    size_t n;
    int64_t *when, step, horizon;
};

struct idle_wl {
    size_t conns, silent;
    int64_t ticks, timeout;
    int64_t *first_when;        /* expiry at start: connected up to 1 s ago */
    uint32_t *msg;              /* connection of each message, by tick */
    size_t *msg_at;             /* messages of tick t: msg[msg_at[t] .. msg_at[t+1]) */
};

struct request_wl {
    size_t n, per_tick, timeouts;
    int64_t delay, ticks;
    uint32_t *resp;             /* request answered at tick t: resp[resp_at[t] .. resp_at[t+1]) */
    size_t *resp_at;
};

struct mixed_wl {
    size_t n, nsteps;
    int64_t now0, *when, *steps;
    uint32_t *order;            /* removal order: a random permutation */
};

/* One workload's measurements: ns per op for each kind of op it does. */
#define WL_MAX_OPS 6
struct wl_result {
    int nops;
    const char *op[WL_MAX_OPS];
    double ns[WL_MAX_OPS];      /* ns per op */
};

static void wl_put(struct wl_result *r, const char *op, double total_ns, size_t count)
{
    r->op[r->nops] = op;
    r->ns[r->nops] = count ? total_ns / (double)count : 0.0;
    r->nops++;
}

static void random_make(struct random_wl *w, size_t n)
{
    size_t i;
    w->n = n;
    w->horizon = RANDOM_HORIZON;
    w->step = RANDOM_HORIZON / RANDOM_STEPS;
    w->when = (int64_t *)xmalloc(n * sizeof *w->when);
    for (i = 0; i < n; i++)
        w->when[i] = (int64_t)rng_below((uint64_t)RANDOM_HORIZON);
}

static void idle_make(struct idle_wl *w, size_t conns)
{
    int64_t *silent_at = (int64_t *)xmalloc(conns * sizeof *silent_at);
    size_t per_tick = conns / 1000 ? conns / 1000 : 1;     /* 1 message/s per connection */
    size_t i, k = 0;
    int64_t t;

    w->conns = conns;
    w->ticks = IDLE_TICKS;
    w->timeout = IDLE_TIMEOUT;
    w->silent = 0;
    w->first_when = (int64_t *)xmalloc(conns * sizeof *w->first_when);
    w->msg = (uint32_t *)xmalloc((size_t)w->ticks * per_tick * sizeof *w->msg);
    w->msg_at = (size_t *)xmalloc(((size_t)w->ticks + 2) * sizeof *w->msg_at);
    for (i = 0; i < conns; i++) {
        w->first_when[i] = w->timeout - (int64_t)rng_below(1000);
        silent_at[i] = INT64_MAX;
        if (rng_below(1000) < IDLE_SILENT_PERMILLE) {
            /* silent early enough to expire before the traffic ends */
            silent_at[i] = (int64_t)rng_below((uint64_t)(w->ticks - w->timeout));
            w->silent++;
        }
    }
    w->msg_at[0] = w->msg_at[1] = 0;
    for (t = 1; t <= w->ticks; t++) {
        for (i = 0; i < per_tick; i++) {
            uint32_t id = (uint32_t)rng_below(conns);
            if (t < silent_at[id])
                w->msg[k++] = id;
        }
        w->msg_at[t + 1] = k;
    }
    free(silent_at);
}

static void request_make(struct request_wl *w, size_t n)
{
    size_t *count, i, t;
    int64_t *answer_at = (int64_t *)xmalloc(n * sizeof *answer_at);

    w->n = n;
    w->per_tick = REQ_PER_TICK;
    w->delay = REQ_DELAY;
    w->ticks = (int64_t)((n + w->per_tick - 1) / w->per_tick) + w->delay;
    w->timeouts = 0;
    w->resp = (uint32_t *)xmalloc(n * sizeof *w->resp);
    w->resp_at = (size_t *)xmalloc(((size_t)w->ticks + 2) * sizeof *w->resp_at);
    count = (size_t *)calloc((size_t)w->ticks + 2, sizeof *count);
    if (count == NULL)
        bench_fail("out of memory");
    for (i = 0; i < n; i++) {
        int64_t arrival = (int64_t)(i / w->per_tick);
        if (rng_below(100) < REQ_ANSWERED_PERCENT) {
            answer_at[i] = arrival + 1 + (int64_t)rng_below((uint64_t)w->delay - 1);
            count[answer_at[i]]++;
        } else {
            answer_at[i] = -1;
            w->timeouts++;
        }
    }
    /* counting sort of the answers by tick */
    w->resp_at[0] = 0;
    for (t = 0; t <= (size_t)w->ticks; t++)
        w->resp_at[t + 1] = w->resp_at[t] + count[t];
    memset(count, 0, ((size_t)w->ticks + 2) * sizeof *count);
    for (i = 0; i < n; i++)
        if (answer_at[i] >= 0) {
            t = (size_t)answer_at[i];
            w->resp[w->resp_at[t] + count[t]++] = (uint32_t)i;
        }
    free(count);
    free(answer_at);
}

static void mixed_make(struct mixed_wl *w, size_t n)
{
    size_t i, k;
    w->n = n;
    w->now0 = MIXED_NOW0;
    w->when = (int64_t *)xmalloc(n * sizeof *w->when);
    w->order = (uint32_t *)xmalloc(n * sizeof *w->order);
    for (i = 0; i < n; i++) {
        /* log-uniform delay in [1, 2^40] */
        int64_t d = (int64_t)exp2(rng_unit() * MIXED_LOG2_MAX);
        w->when[i] = w->now0 + (d < 1 ? 1 : d);
        w->order[i] = (uint32_t)i;
    }
    for (i = n; i > 1; i--) {          /* Fisher-Yates */
        size_t j = (size_t)rng_below(i);
        uint32_t tmp = w->order[i - 1];
        w->order[i - 1] = w->order[j];
        w->order[j] = tmp;
    }
    /* pop at now0 + 2^(k/4): each step covers the same share of delays */
    w->steps = (int64_t *)xmalloc((4 * MIXED_LOG2_MAX + 2) * sizeof *w->steps);
    w->nsteps = 0;
    for (k = 0; k <= 4 * MIXED_LOG2_MAX; k++) {
        int64_t t = w->now0 + (int64_t)exp2((double)k / 4.0);
        if (w->nsteps == 0 || t > w->steps[w->nsteps - 1])
            w->steps[w->nsteps++] = t;
    }
}

/* ---- the floor: cheapest conceivable intrusive link and unlink --------- */

/* A 24-byte node (a list link plus its expiry, like the wheel's node) linked
 * at the tail of one of FLOOR_HEADS lists chosen by the expiry's low bits,
 * and unlinked again: same N and order as the seed protocol's insert and
 * remove, with no search, no bitmap, no counter. */
#define FLOOR_HEADS 256

struct floor_node {
    struct tlist link;
    int64_t expire;
};

static void floor_run(size_t n, double *insert, double *remove)
{
    struct floor_node *it = (struct floor_node *)bench_items(n * sizeof *it);
    struct tlist heads[FLOOR_HEADS];
    size_t i, half = n / 2, busy = 0;
    double t0;

    for (i = 0; i < FLOOR_HEADS; i++)
        tlist_init(&heads[i]);
    t0 = bench_now();
    for (i = 0; i < n; i++) {
        it[i].expire = SEED_WHEN(i);
        tlist_push_back(&heads[it[i].expire & (FLOOR_HEADS - 1)], &it[i].link);
    }
    *insert = (bench_now() - t0) / (double)n;
    t0 = bench_now();
    for (i = 0; i < half; i++)
        tlist_remove(&it[i].link);
    *remove = (bench_now() - t0) / (double)half;
    for (i = 0; i < FLOOR_HEADS; i++)
        busy += !tlist_empty(&heads[i]);
    bench_sink += busy;
}

/* ---- the kinds ---------------------------------------------------------- */

struct kind {
    const char *name;
    size_t node_bytes;
    void (*seed)(size_t n, struct seed_result *r);
    void (*random)(const struct random_wl *w, struct wl_result *r);
    void (*idle)(const struct idle_wl *w, struct wl_result *r);
    void (*request)(const struct request_wl *w, struct wl_result *r);
    void (*mixed)(const struct mixed_wl *w, struct wl_result *r);
};

#define KIND kset
#define KIND_NAME "set"
#define KIND_NODE struct timer_set_node
#define KIND_DEFINE TIMER_SET_DEFINE_NAMED
#define KIND_OWNED(c) sizeof(*(c))
#define KIND_MIN_EXACT 1
#include "bench_kind.h"

#define KIND kheap
#define KIND_NAME "heap"
#define KIND_NODE struct timer_heap_node
#define KIND_DEFINE TIMER_HEAP_DEFINE_NAMED
#define KIND_OWNED(c) (sizeof(*(c)) + (c)->heap.cap * sizeof(struct timer_heap_entry))
#define KIND_MIN_EXACT 1
#include "bench_kind.h"

#define KIND kwheel
#define KIND_NAME "wheel"
#define KIND_NODE struct timer_wheel_node
#define KIND_DEFINE TIMER_WHEEL_DEFINE_NAMED
#define KIND_OWNED(c) sizeof(*(c))
#define KIND_MIN_EXACT 0
#include "bench_kind.h"

static const struct kind *const kinds[MAX_KINDS] = { &kset_kind, &kheap_kind, &kwheel_kind };

/* ---- samples, medians ---------------------------------------------------- */

/* One figure (kind, workload, N, op) over the repetitions: its ns per op and
 * its ratio to the floor insert measured in the same repetition. */
struct rec {
    const char *workload, *kind, *op;
    size_t n, node_bytes;
    double owned_kb;            /* < 0: not applicable */
    int count;
    double ns[MAX_REPS], ratio[MAX_REPS];
};

static struct rec *recs;
static size_t nrecs, caprecs;
static int recording;           /* 0 during the warm-up repetition */

static struct rec *rec_find(const char *workload, const char *kind, size_t n, const char *op)
{
    size_t i;
    for (i = 0; i < nrecs; i++)
        if (recs[i].n == n && !strcmp(recs[i].workload, workload) &&
            !strcmp(recs[i].kind, kind) && !strcmp(recs[i].op, op))
            return &recs[i];
    return NULL;
}

static struct rec *rec_get(const char *workload, const char *kind, size_t n, const char *op)
{
    struct rec *r = rec_find(workload, kind, n, op);
    if (r != NULL)
        return r;
    if (nrecs == caprecs) {
        caprecs = caprecs ? 2 * caprecs : 64;
        recs = (struct rec *)realloc(recs, caprecs * sizeof *recs);
        if (recs == NULL)
            bench_fail("out of memory");
    }
    memset(&recs[nrecs], 0, sizeof recs[nrecs]);
    recs[nrecs].workload = workload;
    recs[nrecs].kind = kind;
    recs[nrecs].op = op;
    recs[nrecs].n = n;
    recs[nrecs].owned_kb = -1;
    return &recs[nrecs++];
}

static void record(const char *workload, const char *kind, size_t n, const char *op,
                   double ns, double floor_insert, size_t node_bytes)
{
    struct rec *r;
    if (!recording)
        return;
    r = rec_get(workload, kind, n, op);
    r->node_bytes = node_bytes;
    r->ns[r->count] = ns;
    r->ratio[r->count] = ns / floor_insert;
    r->count++;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

struct stats { double median, min, max; };

static struct stats stats_of(const double *v, int count)
{
    double s[MAX_REPS];
    struct stats st;
    memcpy(s, v, (size_t)count * sizeof *s);
    qsort(s, (size_t)count, sizeof *s, cmp_double);
    st.min = s[0];
    st.max = s[count - 1];
    st.median = count % 2 ? s[count / 2] : (s[count / 2 - 1] + s[count / 2]) / 2;
    return st;
}

/* The cost of one bench_now() pair with nothing between. The mean, not the
 * median: the clock ticks in steps of several ns, so single differences are
 * quantised, and what is subtracted from thousands of timed batches should
 * be the expected cost. Samples above 1 us (preemption) are left out. */
static double clock_cost(void)
{
    double sum = 0;
    long i, kept = 0;
    for (i = 0; i < 200000; i++) {
        double t0 = bench_now(), d = bench_now() - t0;
        if (d < 1000) {
            sum += d;
            kept++;
        }
    }
    return kept ? sum / (double)kept : 0;
}

/* ---- the run ---------------------------------------------------------------- */

struct config {
    size_t sizes[MAX_SIZES];
    int nsizes, reps;
    size_t wn, conns;
    uint64_t seed;
    const char *csv;
};

/* Floor insert ns per repetition and N; measured on first use in each rep. */
struct floor_cache { size_t n[2 * MAX_SIZES]; double ins[2 * MAX_SIZES]; int count; };

static double floor_for(struct floor_cache *fc, size_t n)
{
    int i;
    double ins, rem;
    for (i = 0; i < fc->count; i++)
        if (fc->n[i] == n)
            return fc->ins[i];
    floor_run(n, &ins, &rem);
    record("seed", "floor", n, "insert", ins, ins, sizeof(struct floor_node));
    record("seed", "floor", n, "remove", rem, ins, sizeof(struct floor_node));
    fc->n[fc->count] = n;
    fc->ins[fc->count] = ins;
    fc->count++;
    return ins;
}

static void record_wl(const char *workload, const struct kind *k, size_t n,
                      const struct wl_result *r, double floor_insert)
{
    int i;
    for (i = 0; i < r->nops; i++)
        record(workload, k->name, n, r->op[i], r->ns[i], floor_insert, k->node_bytes);
}

static void run(const struct config *cfg, const struct random_wl *rw, const struct idle_wl *iw,
                const struct request_wl *qw, const struct mixed_wl *mw)
{
    int rep, s, j;
    /* rep 0 is a warm-up whose figures are dropped: it takes the first-touch
     * costs (malloc growing the process, cold caches) out of the spread */
    for (rep = 0; rep <= cfg->reps; rep++) {
        struct floor_cache fc;
        fc.count = 0;
        recording = rep > 0;
        bench_clock_cost = clock_cost();    /* the clock may drift with the CPU's state */
        if (rep == 0)
            fprintf(stderr, "warm-up ...");
        else
            fprintf(stderr, "\rrepetition %d/%d ...", rep, cfg->reps);
        /* rotate the kinds' order so no kind always runs right after another */
        for (s = 0; s < cfg->nsizes; s++) {
            size_t n = cfg->sizes[s];
            double fl = floor_for(&fc, n);
            for (j = 0; j < MAX_KINDS; j++) {
                const struct kind *k = kinds[(j + rep) % MAX_KINDS];
                struct seed_result r;
                k->seed(n, &r);
                record("seed", k->name, n, "insert", r.insert, fl, k->node_bytes);
                record("seed", k->name, n, "remove", r.remove, fl, k->node_bytes);
                record("seed", k->name, n, "pop", r.pop, fl, k->node_bytes);
                record("seed", k->name, n, "min_time", r.min_time, fl, k->node_bytes);
                if (recording)
                    rec_get("seed", k->name, n, "insert")->owned_kb = (double)r.owned_bytes / 1024.0;
            }
        }
        for (j = 0; j < MAX_KINDS; j++) {
            const struct kind *k = kinds[(j + rep) % MAX_KINDS];
            struct wl_result r;
            r.nops = 0;
            k->random(rw, &r);
            record_wl("random", k, rw->n, &r, floor_for(&fc, rw->n));
            r.nops = 0;
            k->idle(iw, &r);
            record_wl("idle", k, iw->conns, &r, floor_for(&fc, iw->conns));
            r.nops = 0;
            k->request(qw, &r);
            record_wl("request", k, qw->n, &r, floor_for(&fc, qw->n));
            r.nops = 0;
            k->mixed(mw, &r);
            record_wl("mixed", k, mw->n, &r, floor_for(&fc, mw->n));
        }
    }
    fprintf(stderr, "\r%*s\r", 40, "");
}

/* ---- report -------------------------------------------------------------- */

static void cpu_model(char *buf, size_t len)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    snprintf(buf, len, "unknown");
    if (f == NULL)
        return;
    while (fgets(line, sizeof line, f) != NULL) {
        char *colon = strchr(line, ':');
        if (colon != NULL && !strncmp(line, "model name", 10)) {
            size_t l;
            colon++;
            while (*colon == ' ' || *colon == '\t')
                colon++;
            l = strcspn(colon, "\n");
            snprintf(buf, len, "%.*s", (int)l, colon);
            break;
        }
    }
    fclose(f);
}

static const char *compiler(void)
{
#if defined(__clang__)
    return "clang " __clang_version__;
#elif defined(__GNUC__)
    return "gcc " __VERSION__;
#else
    return "unknown compiler";
#endif
}

/* One figure: median ns/op, median ratio to the floor insert, and the
 * spread as max - min in ns (absolute, so that it stays meaningful for
 * min_time, a difference that can be close to 0). */
#define CELL_W 24
static void print_cell(const struct rec *r)
{
    struct stats ns, ratio;
    if (r == NULL || r->count == 0) {
        printf("  %-*s", CELL_W, "-");
        return;
    }
    ns = stats_of(r->ns, r->count);
    ratio = stats_of(r->ratio, r->count);
    printf("  %7.1f %8.2fx %6.1f", ns.median, ratio.median, ns.max - ns.min);
}

static void print_cell_heads(int count)
{
    int i;
    for (i = 0; i < count; i++)
        printf("  %7s %9s %6s", "ns/op", "x floor", "range");
}

static void print_seed_table(const struct config *cfg)
{
    static const char *const ops[] = { "insert", "remove", "pop", "min_time" };
    const char *names[MAX_KINDS + 1];
    int s, k, o;

    names[0] = "floor";
    for (k = 0; k < MAX_KINDS; k++)
        names[k + 1] = kinds[k]->name;
    printf("\nSeed protocol: insert N at base + i*97, remove the first half, pop each at its expiry;\n"
           "min_time = (min_time + pop loop) - (pop loop), both over a freshly re-inserted second half.\n"
           "Cell: median ns/op; median of (ns / floor insert ns at the same N, same repetition);\n"
           "range = max - min ns/op over the repetitions. min_time near 0 means free (within noise).\n\n");
    printf("%-6s %10s", "kind", "N");
    for (o = 0; o < 4; o++)
        printf("  %-*s", CELL_W, ops[o]);
    printf(" %10s %7s\n%17s", "mem KB", "node B", "");
    print_cell_heads(4);
    printf("\n");
    for (s = 0; s < cfg->nsizes; s++) {
        for (k = 0; k <= MAX_KINDS; k++) {
            struct rec *ins = rec_find("seed", names[k], cfg->sizes[s], "insert");
            printf("%-6s %10zu", names[k], cfg->sizes[s]);
            for (o = 0; o < 4; o++)
                print_cell(rec_find("seed", names[k], cfg->sizes[s], ops[o]));
            if (ins != NULL && ins->owned_kb >= 0)
                printf(" %10.2f", ins->owned_kb);
            else
                printf(" %10s", "-");
            printf(" %7zu\n", ins != NULL ? ins->node_bytes : (size_t)0);
        }
        printf("\n");
    }
}

static void print_workload_table(const struct idle_wl *iw)
{
    static const char *const wls[] = { "random", "idle", "request", "mixed" };
    int w, k;
    size_t i, j;

    printf("Workloads (tick = 1 ms); cells as above, x floor = ratio to the floor insert at the workload's N.\n");
    printf("  random:  N expiries uniform over 2^24 ticks, all inserted, popped in %d steps\n", RANDOM_STEPS);
    printf("  idle:    N connections, %zu msgs/ms to random ones, each reschedules to now + %" PRId64
           " ms; %zu went silent;\n"
           "           pop every ms: pop = ns per expired item, pop_call = ns per pop call\n",
           iw->conns / 1000 ? iw->conns / 1000 : 1, iw->timeout, iw->silent);
    printf("  request: %d requests/ms, each armed for %" PRId64 " ms; %d%% removed before expiry, "
           "the rest popped\n", REQ_PER_TICK, REQ_DELAY, REQ_ANSWERED_PERCENT);
    printf("  mixed:   delays log-uniform over 1 .. 2^%d ticks; a random half removed in random order;\n"
           "           the rest popped at now0 + 2^(k/4)\n", MIXED_LOG2_MAX);
    printf("  floor insert, median ns/op at the workload's N:");
    for (w = 0; w < 4; w++)
        for (i = 0; i < nrecs; i++)
            if (!strcmp(recs[i].workload, wls[w])) {
                const struct rec *f = rec_find("seed", "floor", recs[i].n, "insert");
                if (f != NULL)
                    printf(" %s %.2f", wls[w], stats_of(f->ns, f->count).median);
                break;
            }
    printf("\n");
    printf("\n%-8s %8s %-11s", "workload", "N", "op");
    for (k = 0; k < MAX_KINDS; k++)
        printf("  %-*s", CELL_W, kinds[k]->name);
    printf("\n%29s", "");
    print_cell_heads(MAX_KINDS);
    printf("\n");
    for (w = 0; w < 4; w++) {
        /* ops in the order the driver recorded them */
        for (i = 0; i < nrecs; i++) {
            int first = 1;
            if (strcmp(recs[i].workload, wls[w]) || strcmp(recs[i].kind, kinds[0]->name))
                continue;
            for (j = 0; j < i; j++)
                if (!strcmp(recs[j].workload, wls[w]) && !strcmp(recs[j].kind, kinds[0]->name) &&
                    !strcmp(recs[j].op, recs[i].op))
                    first = 0;
            if (!first)
                continue;
            printf("%-8s %8zu %-11s", wls[w], recs[i].n, recs[i].op);
            for (k = 0; k < MAX_KINDS; k++)
                print_cell(rec_find(wls[w], kinds[k]->name, recs[i].n, recs[i].op));
            printf("\n");
        }
    }
}

static void write_csv(const char *path)
{
    FILE *f = fopen(path, "w");
    size_t i;
    if (f == NULL)
        bench_fail("cannot write %s", path);
    fprintf(f, "workload,kind,n,op,median_ns,min_ns,max_ns,ratio_to_floor_insert,reps,node_bytes,container_kb\n");
    for (i = 0; i < nrecs; i++) {
        struct stats ns = stats_of(recs[i].ns, recs[i].count);
        struct stats ratio = stats_of(recs[i].ratio, recs[i].count);
        fprintf(f, "%s,%s,%zu,%s,%.2f,%.2f,%.2f,%.4f,%d,%zu,", recs[i].workload, recs[i].kind,
                recs[i].n, recs[i].op, ns.median, ns.min, ns.max, ratio.median, recs[i].count,
                recs[i].node_bytes);
        if (recs[i].owned_kb >= 0)
            fprintf(f, "%.2f", recs[i].owned_kb);
        fprintf(f, "\n");
    }
    if (fclose(f) != 0)
        bench_fail("error writing %s", path);
}

/* ---- options ------------------------------------------------------------- */

/* "10000", "1e6", "10k", "10M" */
static size_t parse_count(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    if (*end == 'k' || *end == 'K')
        v *= 1e3, end++;
    else if (*end == 'm' || *end == 'M')
        v *= 1e6, end++;
    if (end == s || (*end != '\0' && *end != ',' && *end != ' ') || v < 2 || v > 4e9)
        bench_fail("bad count '%s' (use e.g. 10000, 1e6, 10k, 10M; at least 2)", s);
    return (size_t)v;
}

static void parse_sizes(struct config *cfg, const char *s)
{
    cfg->nsizes = 0;
    while (*s) {
        while (*s == ',' || *s == ' ')
            s++;
        if (!*s)
            break;
        if (cfg->nsizes == MAX_SIZES)
            bench_fail("at most %d sizes", MAX_SIZES);
        cfg->sizes[cfg->nsizes++] = parse_count(s);
        s += strcspn(s, ", ");
    }
    if (cfg->nsizes == 0)
        bench_fail("no sizes given");
}

static void usage(void)
{
    fprintf(stderr,
            "usage: timer_bench [--sizes N,N,...] [--reps R] [--wn N] [--conns N] [--seed S] [--csv PATH]\n"
            "  --sizes  seed-protocol sizes (default 10000,1000000,10000000)\n"
            "  --reps   repetitions; median and spread are over them (default 5)\n"
            "  --wn     items in the random, request and mixed workloads (default 1000000)\n"
            "  --conns  connections in the idle workload (default 100000)\n"
            "  --seed   RNG seed of the workloads (default 1)\n"
            "  --csv    where to write the CSV (default results.csv; '-' for none)\n");
    exit(2);
}

int main(int argc, char **argv)
{
    struct config cfg;
    struct random_wl rw;
    struct idle_wl iw;
    struct request_wl qw;
    struct mixed_wl mw;
    char cpu[256], cc[256];
    size_t maxn, item_bytes = sizeof(struct floor_node);
    size_t kind_item_bytes[MAX_KINDS];
    int i;

    memset(&cfg, 0, sizeof cfg);
    parse_sizes(&cfg, "10000,1000000,10000000");
    cfg.reps = 5;
    cfg.wn = 1000000;
    cfg.conns = 100000;
    cfg.seed = 1;
    cfg.csv = "results.csv";
    for (i = 1; i < argc; i += 2) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (v == NULL)
            usage();
        if (!strcmp(a, "--sizes"))
            parse_sizes(&cfg, v);
        else if (!strcmp(a, "--reps"))
            cfg.reps = atoi(v);
        else if (!strcmp(a, "--wn"))
            cfg.wn = parse_count(v);
        else if (!strcmp(a, "--conns"))
            cfg.conns = parse_count(v);
        else if (!strcmp(a, "--seed"))
            cfg.seed = strtoull(v, NULL, 0);
        else if (!strcmp(a, "--csv"))
            cfg.csv = v;
        else
            usage();
    }
    if (cfg.reps < 1 || cfg.reps > MAX_REPS)
        bench_fail("--reps must be 1..%d", MAX_REPS);
    if (cfg.wn > UINT32_MAX || cfg.conns > UINT32_MAX)
        bench_fail("--wn and --conns must fit in 32 bits");

    bench_clock_cost = clock_cost();

    cpu_model(cpu, sizeof cpu);
    snprintf(cc, sizeof cc, "%s", compiler());
    for (i = (int)strlen(cc); i > 0 && cc[i - 1] == ' '; i--)
        cc[i - 1] = '\0';              /* clang's version string ends in a space */
    printf("Timer container benchmark | %s | flags: %s | CPU: %s\n", cc, BENCH_CFLAGS, cpu);
    printf("reps %d + 1 warm-up (median, range = max-min) | seed %" PRIu64
           " | clock_gettime(CLOCK_MONOTONIC) pair %.1f ns, subtracted per timed batch in idle/request\n",
           cfg.reps, cfg.seed, bench_clock_cost);
    printf("items: one malloc'd array, one element per item = that kind's node + int64 expected expiry;\n"
           "node B = sizeof the kind's node; mem KB = container-owned memory after N inserts (heap: its array)\n");
    fflush(stdout);

    /* workloads are generated once, before any timing */
    rng_state = cfg.seed;
    random_make(&rw, cfg.wn);
    idle_make(&iw, cfg.conns);
    request_make(&qw, cfg.wn);
    mixed_make(&mw, cfg.wn);

    maxn = cfg.wn > cfg.conns ? cfg.wn : cfg.conns;
    for (i = 0; i < cfg.nsizes; i++)
        if (cfg.sizes[i] > maxn)
            maxn = cfg.sizes[i];
    kind_item_bytes[0] = sizeof(struct kset_item);
    kind_item_bytes[1] = sizeof(struct kheap_item);
    kind_item_bytes[2] = sizeof(struct kwheel_item);
    for (i = 0; i < MAX_KINDS; i++)
        if (kind_item_bytes[i] > item_bytes)
            item_bytes = kind_item_bytes[i];
    bench_arena_bytes = maxn * item_bytes;
    bench_arena = xmalloc(bench_arena_bytes);
    memset(bench_arena, 1, bench_arena_bytes);     /* fault every page in now */

    run(&cfg, &rw, &iw, &qw, &mw);

    print_seed_table(&cfg);
    print_workload_table(&iw);
    if (strcmp(cfg.csv, "-") != 0) {
        write_csv(cfg.csv);
        printf("\nCSV: %s\n", cfg.csv);
    }
    free(rw.when);
    free(iw.first_when);
    free(iw.msg);
    free(iw.msg_at);
    free(qw.resp);
    free(qw.resp_at);
    free(mw.when);
    free(mw.steps);
    free(mw.order);
    free(bench_arena);
    free(recs);
    return 0;
}
