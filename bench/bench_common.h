/* bench_common.h - what every benchmark program in bench/ shares: the clock,
 * the item arena, the ordered-insert protocol's expiries, the precomputed
 * workloads, the floor, repetitions and medians (one record per
 * kind/workload/N/op), the machine's description, the CSV and the options'
 * parsers.
 *
 * Included once, by bench.c (our containers) and by peers.c (our containers
 * beside libev, libuv, libevent and a BSD tree.h set). The including file
 * defines _POSIX_C_SOURCE (or more) first.
 */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "list.h"

#ifndef BENCH_CFLAGS
#define BENCH_CFLAGS "?"
#endif

#define MAX_SIZES 16
#define MAX_REPS 64
/* Samples of one figure: make bench runs its small sizes several times in
 * each repetition (SMALL_PASSES in bench.c). */
#define MAX_SAMPLES (8 * MAX_REPS)

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

/* The calling thread's CPU time (ns): time the thread spent off the CPU,
 * while other processes ran, does not count (behind.c) */
static double bench_thread_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Cost of one bench_now() pair with nothing between; subtracted from each
 * timed batch (bench_since). */
static double bench_clock_cost;

/* Time since t0 of the batch run in between: less the clock pair itself. */
static double bench_since(double t0)
{
    return bench_now() - t0 - bench_clock_cost;
}

/* Rounds. A run over few timers (1000 inserts take microseconds) is repeated
 * in rounds over the same items, as hot in the cache as a small container in
 * a program, until the rounds together run at least BENCH_MIN_OPS operations
 * of each kind. Each round's batches are timed on their own, and a figure is
 * the median over the rounds: a round hit by an interrupt, or by another
 * process taking the CPU, does not move it. A large run is one round. */
#define BENCH_MIN_OPS 131072
#define BENCH_MAX_ROUNDS 1024

static size_t bench_rounds(size_t ops_per_round)
{
    size_t r;
    if (ops_per_round == 0 || ops_per_round >= BENCH_MIN_OPS)
        return 1;
    r = (BENCH_MIN_OPS + ops_per_round - 1) / ops_per_round;
    return r < BENCH_MAX_ROUNDS ? r : BENCH_MAX_ROUNDS;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of v[0 .. n) (sorts them). */
static double median_of(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* One figure's time (ns) in each round of a run. */
struct round_ns {
    double ns[BENCH_MAX_ROUNDS];
};

/* The median over the rounds (sorts them). */
static double round_median(struct round_ns *r, size_t rounds)
{
    return median_of(r->ns, rounds);
}

/* min_time is the difference of two pop loops over the same items, one
 * with a min_time call before each pop. Both are timed in blocks of this
 * many pops, block b of one at the same positions as block b of the other,
 * and the figure is the median over the blocks of their difference: a slow
 * spell of the machine during a block of one loop is left out, where it
 * would move the difference of two whole loops (at 1M timers, one round of
 * two loops of 500,000 pops). Runs of fewer pops are one block. */
#define BENCH_MT_BLOCK 4096

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

/* ---- the ordered-insert protocol's expiries ------------------------------ */

#define ORDERED_BASE INT64_C(1000)
#define ORDERED_STEP INT64_C(97)
#define ORDERED_WHEN(i) (ORDERED_BASE + (int64_t)(i) * ORDERED_STEP)

/* ---- workloads, precomputed so that no RNG is timed -------------------- */

#define TICK_MS 1                       /* 1 tick = 1 ms */
#define RANDOM_HORIZON (INT64_C(1) << 24)
#define RANDOM_STEPS 4096
#define IDLE_TIMEOUT INT64_C(10000)     /* 10 s */
#define IDLE_TICKS INT64_C(20000)       /* 20 s of traffic */
#define IDLE_SILENT_PERMILLE 10         /* 1% of connections go silent */
#define GAME_TICKS INT64_C(10000)       /* 10 s of play */
#define GAME_COOLDOWN_MIN INT64_C(50)   /* cooldowns: 50 ms .. 3 s */
#define GAME_COOLDOWN_MAX INT64_C(3000)
#define GAME_EFFECT_MIN INT64_C(10000)  /* effects: 10 s .. 2 min */
#define GAME_EFFECT_MAX INT64_C(120000)
#define GAME_EFFECT_PERCENT 5           /* of the timers */
#define GAME_ACTION_DIVISOR 1000        /* actions per tick: N / 1000 (each timer every ~1 s) */
#define IDLE_SLACK_PERCENT 10           /* idle-range: an expiry may stay up to 10% of the timeout late */
#define REQ_DELAY INT64_C(1000)         /* every request times out after 1 s */
#define REQ_PER_TICK 100
#define REQ_ANSWERED_PERCENT 95
#define MIXED_NOW0 (INT64_C(1) << 20)
#define MIXED_LOG2_MAX 40

/* random and mixed draw their expiries (and mixed its removal order) once
 * for every round a small run repeats (bench_rounds): round r uses variant
 * r. Repeating one sequence of random keys in every round let the CPU's
 * branch predictors learn it: the set's random inserts at 1,000 timers ran
 * 14 or 24 ns depending on how the binary's code fell (same code), and the
 * verdict of a small size moved with it. when[r * n + i], order[r * n + i]. */
struct random_wl {
    size_t n, variants;
    int64_t *when, step, horizon;
};

struct idle_wl {
    size_t conns, silent;
    int64_t ticks, timeout;
    int64_t slack;              /* idle-range: reschedule_range(now + timeout, now + timeout + slack) */
    size_t expire[2];           /* pops within the traffic that the contract gives: [0] idle, [1] idle-range */
    int64_t *first_when;        /* expiry at start: connected up to 1 s ago */
    uint32_t *msg;              /* connection of each message, by tick */
    size_t *msg_at;             /* messages of tick t: msg[msg_at[t] .. msg_at[t+1]) */
    int64_t *msg_when;          /* game: each message's new expiry (idle: NULL, now + timeout) */
};

struct request_wl {
    size_t n, per_tick, timeouts;
    int64_t delay, ticks;
    uint32_t *resp;             /* request answered at tick t: resp[resp_at[t] .. resp_at[t+1]) */
    size_t *resp_at;
};

struct mixed_wl {
    size_t n, nsteps, variants;
    int64_t now0, *when, *steps;
    uint32_t *order;            /* removal order: a random permutation */
};

/* One workload's measurements: ns per op for each kind of op it does, and
 * "total": every timed operation of the run divided by its N timers. */
#define WL_MAX_OPS 6
struct wl_result {
    int nops;
    const char *op[WL_MAX_OPS];
    double ns[WL_MAX_OPS];      /* ns per op */
    int derived[WL_MAX_OPS];    /* a difference of timings: see rec_noise */
};

static void wl_put_as(struct wl_result *r, const char *op, double total_ns, size_t count, int derived)
{
    if (r->nops == WL_MAX_OPS)
        bench_fail("more than %d figures in one workload", WL_MAX_OPS);
    r->op[r->nops] = op;
    r->ns[r->nops] = count ? total_ns / (double)count : 0.0;
    r->derived[r->nops] = derived;
    r->nops++;
}

/* A figure timed directly: one or more batches of the op alone. */
static void wl_put(struct wl_result *r, const char *op, double total_ns, size_t count)
{
    wl_put_as(r, op, total_ns, count, 0);
}

/* A figure that is a difference: two timed loops (min_time), or batches of
 * a few ops each from which the clock pair's mean cost was subtracted. */
static void wl_put_diff(struct wl_result *r, const char *op, double total_ns, size_t count)
{
    wl_put_as(r, op, total_ns, count, 1);
}

static void random_make(struct random_wl *w, size_t n)
{
    size_t i;
    w->n = n;
    w->variants = bench_rounds(n);
    w->horizon = RANDOM_HORIZON;
    w->step = RANDOM_HORIZON / RANDOM_STEPS;
    w->when = (int64_t *)xmalloc(n * w->variants * sizeof *w->when);
    for (i = 0; i < n * w->variants; i++)
        w->when[i] = (int64_t)rng_below((uint64_t)RANDOM_HORIZON);
}

/* The pops within the traffic that the contract gives the idle workload,
 * with a pop every tick after that tick's messages: each message moves its
 * connection's expiry to now + timeout (slack 0: reschedule), or leaves it
 * where it lies within [now + timeout, now + timeout + slack] and else moves
 * it to the end of that window (reschedule_range). An expiry before the
 * message's tick was popped then, and the message inserts the connection
 * again; a connection may expire more than once. */
static size_t idle_model(const struct idle_wl *w, int64_t slack)
{
    int64_t *when = (int64_t *)xmalloc(w->conns * sizeof *when), t;
    size_t i, m, popped = 0;
    for (i = 0; i < w->conns; i++)
        when[i] = w->first_when[i];
    for (t = 1; t <= w->ticks; t++)
        for (m = w->msg_at[t]; m < w->msg_at[t + 1]; m++) {
            int64_t *e = &when[w->msg[m]], lo = w->msg_when ? w->msg_when[m] : t + w->timeout;
            popped += *e < t;
            if (*e < lo || *e > lo + slack)
                *e = lo + slack;
        }
    for (i = 0; i < w->conns; i++)
        popped += when[i] <= w->ticks;
    free(when);
    return popped;
}

static void idle_make(struct idle_wl *w, size_t conns)
{
    int64_t *silent_at = (int64_t *)xmalloc(conns * sizeof *silent_at);
    size_t per_tick = conns / 1000 ? conns / 1000 : 1;     /* 1 message/s per connection */
    size_t i, k = 0;
    int64_t t;

    w->conns = conns;
    w->msg_when = NULL;
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
    w->slack = w->timeout * IDLE_SLACK_PERCENT / 100;
    w->expire[0] = idle_model(w, 0);
    w->expire[1] = idle_model(w, w->slack);
}

/* A game: n timers, most of them abilities' cooldowns of GAME_COOLDOWN_MIN
 * to _MAX ticks, GAME_EFFECT_PERCENT of them long effects (buffs, respawns)
 * of GAME_EFFECT_MIN to _MAX; every tick n / GAME_ACTION_DIVISOR actions,
 * each on a random timer, reschedule it to now + its kind's delay (an
 * ability used again, an effect refreshed), whether it was pending or had
 * fired; a pop every tick. An idle workload whose messages carry their own
 * expiry (msg_when), so that one loop times both; timeout is the longest
 * delay, within which the final drain pops what is left. */
static void game_make(struct idle_wl *w, size_t n)
{
    size_t per_tick = n / GAME_ACTION_DIVISOR ? n / GAME_ACTION_DIVISOR : 1, i, k = 0;
    int64_t t;

    w->conns = n;
    w->ticks = GAME_TICKS;
    w->timeout = GAME_EFFECT_MAX;
    w->slack = 0;
    w->silent = 0;
    w->first_when = (int64_t *)xmalloc(n * sizeof *w->first_when);
    w->msg = (uint32_t *)xmalloc((size_t)w->ticks * per_tick * sizeof *w->msg);
    w->msg_when = (int64_t *)xmalloc((size_t)w->ticks * per_tick * sizeof *w->msg_when);
    w->msg_at = (size_t *)xmalloc(((size_t)w->ticks + 2) * sizeof *w->msg_at);
    for (i = 0; i < n; i++)
        w->first_when[i] = i % 100 < GAME_EFFECT_PERCENT ? GAME_EFFECT_MIN + (int64_t)rng_below(GAME_EFFECT_MAX - GAME_EFFECT_MIN)
                                                          : GAME_COOLDOWN_MIN + (int64_t)rng_below(GAME_COOLDOWN_MAX - GAME_COOLDOWN_MIN);
    w->msg_at[0] = w->msg_at[1] = 0;
    for (t = 1; t <= w->ticks; t++) {
        for (i = 0; i < per_tick; i++, k++) {
            uint32_t id = (uint32_t)rng_below(n);
            w->msg[k] = id;
            w->msg_when[k] = t + (id % 100 < GAME_EFFECT_PERCENT
                                      ? GAME_EFFECT_MIN + (int64_t)rng_below(GAME_EFFECT_MAX - GAME_EFFECT_MIN)
                                      : GAME_COOLDOWN_MIN + (int64_t)rng_below(GAME_COOLDOWN_MAX - GAME_COOLDOWN_MIN));
        }
        w->msg_at[t + 1] = k;
    }
    w->expire[0] = idle_model(w, 0);
    w->expire[1] = 0;
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
    size_t i, k, v;
    w->n = n;
    w->variants = bench_rounds(n);
    w->now0 = MIXED_NOW0;
    w->when = (int64_t *)xmalloc(n * w->variants * sizeof *w->when);
    w->order = (uint32_t *)xmalloc(n * w->variants * sizeof *w->order);
    for (v = 0; v < w->variants; v++) {
        int64_t *when = w->when + v * n;
        uint32_t *order = w->order + v * n;
        for (i = 0; i < n; i++) {
            /* log-uniform delay in [1, 2^40] */
            int64_t d = (int64_t)exp2(rng_unit() * MIXED_LOG2_MAX);
            when[i] = w->now0 + (d < 1 ? 1 : d);
            order[i] = (uint32_t)i;
        }
        for (i = n; i > 1; i--) {      /* Fisher-Yates */
            size_t j = (size_t)rng_below(i);
            uint32_t tmp = order[i - 1];
            order[i - 1] = order[j];
            order[j] = tmp;
        }
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

/* The workloads at one size, generated in this order from the RNG (the
 * same order in bench.c and peers.c, so that one seed gives one workload;
 * the game, added last, leaves the others as they were). */
struct workloads {
    struct random_wl rw;
    struct idle_wl iw;
    struct request_wl qw;
    struct mixed_wl mw;
    struct idle_wl gw;          /* the game: timers = conns */
};

static void workloads_make(struct workloads *w, size_t n, size_t conns)
{
    random_make(&w->rw, n);
    idle_make(&w->iw, conns);
    request_make(&w->qw, n);
    mixed_make(&w->mw, n);
    game_make(&w->gw, conns);
}

static void workloads_free(struct workloads *w)
{
    free(w->rw.when);
    free(w->iw.first_when);
    free(w->iw.msg);
    free(w->iw.msg_at);
    free(w->qw.resp);
    free(w->qw.resp_at);
    free(w->mw.when);
    free(w->mw.steps);
    free(w->mw.order);
    free(w->gw.first_when);
    free(w->gw.msg);
    free(w->gw.msg_when);
    free(w->gw.msg_at);
}

/* ---- the floor: cheapest conceivable intrusive link and unlink --------- */

/* A 24-byte node (a list link plus its expiry, like the wheel's node) linked
 * at the tail of one of FLOOR_HEADS lists chosen by the expiry's low bits,
 * and unlinked again: same N and order as the ordered-insert protocol's
 * insert and remove, with no search, no bitmap, no counter. */
#define FLOOR_HEADS 256

struct floor_node {
    struct tlist link;
    int64_t expire;
};

static void floor_run(size_t n, double *insert, double *remove)
{
    static struct round_ns ins, rem;
    struct tlist heads[FLOOR_HEADS];
    size_t i, half = n / 2, busy = 0, rounds = bench_rounds(n), round;
    double t0;

    for (round = 0; round < rounds; round++) {
        struct floor_node *it = (struct floor_node *)bench_items(n * sizeof *it);
        for (i = 0; i < FLOOR_HEADS; i++)
            tlist_init(&heads[i]);
        t0 = bench_now();
        for (i = 0; i < n; i++) {
            it[i].expire = ORDERED_WHEN(i);
            tlist_push_back(&heads[it[i].expire & (FLOOR_HEADS - 1)], &it[i].link);
        }
        ins.ns[round] = bench_since(t0);
        t0 = bench_now();
        for (i = 0; i < half; i++)
            tlist_remove(&it[i].link);
        rem.ns[round] = bench_since(t0);
        for (i = 0; i < FLOOR_HEADS; i++)
            busy += !tlist_empty(&heads[i]);
    }
    *insert = round_median(&ins, rounds) / (double)n;
    *remove = round_median(&rem, rounds) / (double)half;
    bench_sink += busy;
}

/* ---- per-call latency (latency.c, make bench-latency) -------------------- */

/* The event-loop workloads whose every call of the ops below is timed on
 * its own (the driver: bench_kind.h, under KIND_LATENCY). */
enum { LAT_LOOP, LAT_STALL, LAT_LIBEVENT, LAT_IDLE, LAT_NWL };
enum { LAT_NEXT, LAT_POP, LAT_INSERT, LAT_REMOVE, LAT_RESCHEDULE, LAT_NOPS };

struct lat_wl {
    int which;                  /* LAT_LOOP, ... */
    const char *name;
    uint64_t seed;              /* each run starts the RNG here: every run, every kind the same calls */
    size_t n;                   /* timers */
    int64_t delay;              /* loop, stall's background timers: delays uniform in [1, delay] */
    size_t rounds;              /* loop, libevent: rounds; idle: ticks (one pop each) */
    size_t periodic;            /* stall: periodic timers (and as many zero-delay ones) */
    int64_t period_min, period_max;     /* stall: periods uniform in [min, max] */
    int64_t every, step;        /* stall: a stall each `every` ticks of the clock, `step` ticks long */
    size_t stalls;
    size_t shorts;              /* libevent: short timers armed and cancelled a round */
    int64_t short_max;          /* libevent: their delays uniform in [1, short_max] */
    int64_t long_min;           /* libevent: the pending timeouts' delays in [long_min, delay] */
    int64_t timeout, jitter;    /* idle: closed after timeout ticks of silence; a message pushes */
    size_t msgs;                /* its timer back to now + timeout - [0, jitter); msgs a tick */
};

/* One kind's calls of one workload. Each call's time is kept as the least
 * over the runs (the runs make the same calls, which the counts and the
 * digest check), as a 16-bit code (lat_code): 2 bytes a call. */
struct lat_calls {
    uint16_t *code[LAT_NOPS];
    size_t count[LAT_NOPS];     /* calls so far in this run */
    size_t cap[LAT_NOPS];
    size_t calls[LAT_NOPS];     /* calls in the first run */
    int runs;                   /* runs finished */
    double cost;                /* the clock pair's cost, subtracted from every call */
    uint64_t digest, digest0;   /* what the pops handed out, in order: this run, the first run */
    /* facts of the workload (the same for every kind; the first run's) */
    int64_t clock_end;          /* the loop's time at the end */
    size_t popped, max_burst;   /* items popped; the most in one pop */
    size_t listed;              /* items found in the result lists: must be popped */
    size_t catchup;             /* stall: pops of items due before the time (catching up) */
};

/* A call's time, ns, as a 16-bit code that orders as the times do: below
 * 1024 ns the ns themselves; above, a float with a 10-bit mantissa (within
 * 0.1%, rounded down). 65,536 codes: one counting pass finds a percentile. */
static inline uint16_t lat_code(double ns)
{
    uint32_t v;
    int e = 10;
    if (!(ns >= 0.5))
        return 0;
    v = ns >= 4294967295.0 ? UINT32_MAX : (uint32_t)(ns + 0.5);
    if (v < 1024)
        return (uint16_t)v;
    while (v >> (e + 1))
        e++;
    return (uint16_t)(((uint32_t)(e - 9) << 10) | ((v >> (e - 10)) & 1023));
}

static inline uint32_t lat_decode(uint16_t code)
{
    if (code < 1024)
        return code;
    return (uint32_t)(1024 + (code & 1023)) << ((code >> 10) - 1);
}

/* One call of op took ns (the clock pair included): the first run stores
 * it, a later run keeps the least. Between the clock reads of two calls,
 * never inside a timed one. */
static inline void lat_put(struct lat_calls *l, int op, double ns)
{
    size_t i = l->count[op]++;
    uint16_t v = lat_code(ns - l->cost);
    if (i == l->cap[op]) {
        if (l->runs > 0)
            bench_fail("latency: run %d made more calls of op %d than the first (%zu)", l->runs + 1, op, l->cap[op]);
        l->cap[op] = l->cap[op] ? 2 * l->cap[op] : 1 << 20;
        l->code[op] = (uint16_t *)realloc(l->code[op], l->cap[op] * sizeof *l->code[op]);
        if (l->code[op] == NULL)
            bench_fail("out of memory (latency: %zu calls)", l->cap[op]);
    }
    if (l->runs == 0 || v < l->code[op][i])
        l->code[op][i] = v;
}

/* A call timed alone: the clock pair around it, its time kept by lat_put. */
#define LAT_TIMED(l, op, call)                          \
    do {                                                \
        double lat_t0_ = bench_now();                   \
        call;                                           \
        lat_put((l), (op), bench_now() - lat_t0_);      \
    } while (0)

/* A popped item's index into the digest (FNV-1a over 64-bit words). */
static inline uint64_t lat_mix(uint64_t digest, uint64_t v)
{
    return (digest ^ v) * UINT64_C(0x100000001b3);
}

/* The container's address taken out of the compiler's sight, so that
 * clock_gettime, for all it knows, may read it: no work on the container
 * moves across a clock read. */
static void *volatile lat_escape_sink;
static inline void lat_escape(void *p) { lat_escape_sink = p; }

/* ---- items at or behind the clock (behind.c, make bench-behind) ----------- */

/* Issue 26 item 4's patterns (the driver: bench_kind.h, under KIND_BEHIND):
 * n items inserted at or behind where a wheel's clock stands, into a
 * freshly initialised container, then one pop hands them all out.
 *   random     init at BEHIND_CLOCK, expiries at random in [0, BEHIND_CLOCK)
 *   drained    init at 0, one item at BEHIND_CLOCK popped at TIMER_NEVER (a
 *              wheel's clock goes far ahead), expiries at random in [0, BEHIND_SPAN)
 *   next       init at 0, one far item at BEHIND_CLOCK and next_expiry, then
 *              expiries as drained; the far item stays pending through the pop
 *   next_open  the same with BEHIND_FAR_MANY far items: a wheel searches a far
 *              slot of at most 8 items (TIMER_WHEEL_FEW) and opens a bigger one,
 *              moving its clock to just before it, so only these items are behind it
 *   zigzag     init at BEHIND_CLOCK, expiries 0, n, 1, n - 1, 2, ...
 * The pop is at BEHIND_CLOCK (random, zigzag) or BEHIND_SPAN (the others). */
enum {
    BEHIND_RANDOM, BEHIND_DRAINED, BEHIND_NEXT, BEHIND_NEXT_OPEN, BEHIND_ZIGZAG, BEHIND_NPATTERNS
};
#define BEHIND_CLOCK (INT64_C(1) << 40)
#define BEHIND_SPAN (INT64_C(1) << 30)
#define BEHIND_FAR_MANY 16

/* The far items pattern p inserts at BEHIND_CLOCK before its n items. */
static size_t behind_far(int p)
{
    if (p == BEHIND_NEXT_OPEN)
        return BEHIND_FAR_MANY;
    return p == BEHIND_DRAINED || p == BEHIND_NEXT;
}

/* ---- the kinds ---------------------------------------------------------- */

struct kind {
    const char *name;
    size_t node_bytes;
    void (*ordered)(size_t n, struct wl_result *r, size_t *owned_bytes);
    void (*random)(const struct random_wl *w, struct wl_result *r);
    void (*idle)(const struct idle_wl *w, struct wl_result *r);
    void (*idle_range)(const struct idle_wl *w, struct wl_result *r);
    void (*request)(const struct request_wl *w, struct wl_result *r);
    void (*mixed)(const struct mixed_wl *w, struct wl_result *r);
    /* The ordered-insert protocol's inserts after reserve(N) (NULL: none),
     * without and with the reserved array's pages written first: see
     * bench_kind.h. Rows of their own, as kind reserved_as[touch]. */
    void (*reserved)(size_t n, int touch, struct wl_result *r);
    const char *reserved_as[2];
    /* One run of a latency workload, its calls into l (NULL: a kind with no
     * next_expiry, as the peers' sets) */
    void (*latency)(const struct lat_wl *w, struct lat_calls *l);
    /* One run of a pattern behind the clock (BEHIND_*) over n items expiring
     * at when[i]: the thread CPU ns of the inserts (ns[0]) and of the pop
     * (ns[1]) (NULL: a kind with no next_expiry) */
    void (*behind)(int pattern, const int64_t *when, size_t n, double ns[2]);
};

/* ---- samples, medians ---------------------------------------------------- */

/* One figure (kind, workload, N, op) over the repetitions: its ns per op and
 * its ratio to the floor insert measured in the same repetition. */
struct rec {
    const char *workload, *kind, *op;
    size_t n, node_bytes;
    double owned_kb;            /* < 0: not applicable */
    int derived;                /* a difference of timings: see rec_noise */
    int count;                  /* samples: one per repetition, or per pass (bench.c) */
    double ns[MAX_SAMPLES], ratio[MAX_SAMPLES];
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
                   double ns, int derived, double floor_insert, size_t node_bytes)
{
    struct rec *r;
    if (!recording)
        return;
    r = rec_get(workload, kind, n, op);
    if (r->count == MAX_SAMPLES)
        bench_fail("more than %d samples of %s %s %zu %s", MAX_SAMPLES, workload, kind, n, op);
    r->node_bytes = node_bytes;
    r->derived = derived;
    r->ns[r->count] = ns;
    r->ratio[r->count] = ns / floor_insert;
    r->count++;
}

/* spread: the median distance of the samples from their median (the median
 * absolute deviation): half of them lie within it. Unlike max - min, one
 * slow repetition of three does not move it. */
struct stats { double median, min, max, spread; };

static double median_sorted(const double *s, int count)
{
    return count % 2 ? s[count / 2] : (s[count / 2 - 1] + s[count / 2]) / 2;
}

static struct stats stats_of(const double *v, int count)
{
    double s[MAX_SAMPLES];
    struct stats st;
    int i;
    memcpy(s, v, (size_t)count * sizeof *s);
    qsort(s, (size_t)count, sizeof *s, cmp_double);
    st.min = s[0];
    st.max = s[count - 1];
    st.median = median_sorted(s, count);
    for (i = 0; i < count; i++)
        s[i] = fabs(s[i] - st.median);
    qsort(s, (size_t)count, sizeof *s, cmp_double);
    st.spread = median_sorted(s, count);
    return st;
}

/* The noise of a figure: for a difference (rec.derived: min_time, or
 * batches of a few ops less the clock's mean cost) twice the spread of its
 * samples: a difference is shown only where most of its samples agree on
 * it to better than half its size. Not their range (max - min),
 * which one slow repetition sets: a 20 ns figure printed "<70" then. For
 * any figure at least the size of a negative median (no operation costs
 * less than nothing: that much is bias or noise), and at least 0.05 ns, the
 * printed resolution. A median below its noise is printed "<noise". */
static double rec_noise(const struct rec *r)
{
    struct stats st;
    double noise = 0.05;
    if (r->count == 0)
        return noise;
    st = stats_of(r->ns, r->count);
    if (r->derived && 2 * st.spread > noise)
        noise = 2 * st.spread;
    if (-st.median > noise)
        noise = -st.median;
    return noise;
}

/* The median ns/op, NAN when below the noise (or missing). */
static double rec_resolved(const struct rec *r)
{
    double m;
    if (r == NULL || r->count == 0)
        return NAN;
    m = stats_of(r->ns, r->count).median;
    return m < rec_noise(r) ? NAN : m;
}

/* A median as printed: "12.3", or "<0.8" below the noise, or "-". */
static const char *fmt_median(const struct rec *r, char *buf, size_t len)
{
    double m, noise;
    if (r == NULL || r->count == 0) {
        snprintf(buf, len, "-");
        return buf;
    }
    m = stats_of(r->ns, r->count).median;
    noise = rec_noise(r);
    if (m < noise)
        snprintf(buf, len, "<%.1f", ceil(noise * 10) / 10);
    else
        snprintf(buf, len, "%.1f", m);
    return buf;
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

/* ---- options; the floor of each repetition ----------------------------------- */

struct config {
    size_t sizes[MAX_SIZES];
    int nsizes, reps;
    size_t wn, conns;
    size_t small;               /* N of the small workloads; 0: none */
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
    record("ordered", "floor", n, "insert", ins, 0, ins, sizeof(struct floor_node));
    record("ordered", "floor", n, "remove", rem, 0, ins, sizeof(struct floor_node));
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
        record(workload, k->name, n, r->op[i], r->ns[i], r->derived[i], floor_insert, k->node_bytes);
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

/* The compiler as the reports print it: clang's version string ends in a space. */
static void compiler_name(char *buf, size_t len)
{
    size_t i;
    snprintf(buf, len, "%s", compiler());
    for (i = strlen(buf); i > 0 && buf[i - 1] == ' '; i--)
        buf[i - 1] = '\0';
}

/* "gcc 12.2.0 | -std=c99 ... | CPU: AMD EPYC, 2 online": what a report's
 * figures were taken with. */
static void machine_desc(char *buf, size_t len)
{
    char cpu[256], cc[256];
    cpu_model(cpu, sizeof cpu);
    compiler_name(cc, sizeof cc);
    snprintf(buf, len, "%s | %s | CPU: %s, %ld online", cc, BENCH_CFLAGS, cpu, sysconf(_SC_NPROCESSORS_ONLN));
}

static void write_csv(const char *path)
{
    FILE *f = fopen(path, "w");
    size_t i;
    if (f == NULL)
        bench_fail("cannot write %s", path);
    /* noise_ns: rec_noise; below_noise: 1 when the median is under it, and
     * then says no more than "too small to resolve in this run" */
    fprintf(f, "workload,kind,n,op,median_ns,min_ns,max_ns,ratio_to_floor_insert,reps,node_bytes,container_kb,"
               "noise_ns,below_noise\n");
    for (i = 0; i < nrecs; i++) {
        struct stats ns = stats_of(recs[i].ns, recs[i].count);
        struct stats ratio = stats_of(recs[i].ratio, recs[i].count);
        double noise = rec_noise(&recs[i]);
        fprintf(f, "%s,%s,%zu,%s,%.2f,%.2f,%.2f,%.4f,%d,%zu,", recs[i].workload, recs[i].kind,
                recs[i].n, recs[i].op, ns.median, ns.min, ns.max, ratio.median, recs[i].count,
                recs[i].node_bytes);
        if (recs[i].owned_kb >= 0)
            fprintf(f, "%.2f", recs[i].owned_kb);
        fprintf(f, ",%.2f,%d\n", noise, ns.median < noise);
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

/* The options both programs take: --sizes --reps --wn --conns --seed --csv,
 * and --small where small_default is not 0, over the defaults given;
 * anything else calls usage(), which exits. */
static void parse_args(struct config *cfg, int argc, char **argv, const char *sizes, int reps,
                       size_t small_default, const char *csv, void (*usage)(void))
{
    int i;
    memset(cfg, 0, sizeof *cfg);
    parse_sizes(cfg, sizes);
    cfg->small = small_default;
    cfg->reps = reps;
    cfg->wn = 1000000;
    cfg->conns = 100000;
    cfg->seed = 1;
    cfg->csv = csv;
    for (i = 1; i < argc; i += 2) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (v == NULL)
            usage();
        if (!strcmp(a, "--sizes"))
            parse_sizes(cfg, v);
        else if (!strcmp(a, "--reps"))
            cfg->reps = atoi(v);
        else if (!strcmp(a, "--wn"))
            cfg->wn = parse_count(v);
        else if (!strcmp(a, "--conns"))
            cfg->conns = parse_count(v);
        else if (!strcmp(a, "--small") && small_default != 0)
            cfg->small = strcmp(v, "0") ? parse_count(v) : 0;
        else if (!strcmp(a, "--seed"))
            cfg->seed = strtoull(v, NULL, 0);
        else if (!strcmp(a, "--csv"))
            cfg->csv = v;
        else
            usage();
    }
    if (cfg->reps < 1 || cfg->reps > MAX_REPS)
        bench_fail("--reps must be 1..%d", MAX_REPS);
    if (cfg->wn > UINT32_MAX || cfg->conns > UINT32_MAX || cfg->small > UINT32_MAX)
        bench_fail("--wn, --conns and --small must fit in 32 bits");
}

#endif /* BENCH_COMMON_H */
