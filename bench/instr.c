/* instr.c - the driver of make bench-instructions: every operation of the
 * benchmark once over a fixed data set, each kind of operation in a function
 * of its own, so that callgrind's inclusive cost of that function divided by
 * the number of operations it ran is the instructions per operation
 * (instructions.sh runs it under valgrind and prints the table).
 *
 * Compiled once per kind with exactly one of -DINSTR_FLOOR, -DINSTR_SET,
 * -DINSTR_HEAP, -DINSTR_WHEEL (as test/tk.h picks a kind), with make bench's
 * flags, and run natively by make check (test/run.sh) as a smoke test: the
 * same program, the same checks, no valgrind. Compiled as C++ with
 * -DINSTR_CXX too (a container kind only): then every call goes through the
 * class templates of timer_containers.hpp (test/cxx_shim.h gives them the C
 * names this file calls), and each measured pop is C++'s own loop over the
 * range pop returns, `for (struct item &x : c.pop(now))`, where C pops into a
 * list and drains it: the rows instructions.sh sets against the C ones.
 *
 *   ./instr_KIND [--n 200000] [--conns 100000] [--seed 1] [--only random]
 *
 * Every phase function (PHASE) counts what went wrong and returns it; main
 * exits non-zero when anything did (an item popped early, late, twice, or
 * not at all), so a count is never reported for a wrong result. The checks
 * inside a phase are a compare or two per operation, and counted with it.
 *
 * For each figure it prints one line on stdout,
 *   cell SECTION OP FUNCTION COUNT
 * meaning: SECTION's OP costs the inclusive instructions of FUNCTION divided
 * by COUNT. SECTION is "ops" (the table of single operations) or a workload
 * of make bench (random, idle, request, mixed); instructions.sh joins these
 * lines with callgrind's counts. A line "info KEY VALUE" describes the run.
 * Nothing is timed here: a cell is a count of operations, the same on every
 * run of the same binary.
 *
 * --only random runs the random phases alone (ops random-insert and
 * random-pop, and the random workload): the cache-simulation run, which is
 * slower, measures just those.
 */
#define _POSIX_C_SOURCE 200809L

/* bench_common.h serves bench.c's report too; this program uses its
 * workloads, its RNG and its floor node, not its statistics */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "bench_common.h"
#pragma GCC diagnostic pop

#if defined(INSTR_FLOOR) + defined(INSTR_SET) + defined(INSTR_HEAP) + defined(INSTR_WHEEL) != 1
#error "compile with exactly one of -DINSTR_FLOOR, -DINSTR_SET, -DINSTR_HEAP, -DINSTR_WHEEL"
#endif
#if defined(INSTR_CXX) && (defined(INSTR_FLOOR) || !defined(__cplusplus))
#error "-DINSTR_CXX: a container kind, compiled as C++"
#endif

/* A phase stays one function in the binary, under its own name, whatever
 * the optimiser would rather do: callgrind reports costs by function. gcc
 * would otherwise fold phases with the same code into one (-fipa-icf, on at
 * -O2: the two reschedule rows, the random and mixed workloads' inserts),
 * and clone or split others. */
#if defined(__clang__)
#define PHASE static __attribute__((noinline))
#else
#define PHASE static __attribute__((noinline, noclone, no_icf))
#endif

/* ---- the kind -------------------------------------------------------------- */

#if defined(INSTR_SET)
#include "timer_set.h"
#define KIND_NAME "set"
#define KIND_NODE struct timer_set_node
#define KIND_DEFINE TIMER_SET_DEFINE_NAMED
#define KIND_MIN_EXACT 1
#define KIND_CORE set
#elif defined(INSTR_HEAP)
#include "timer_heap.h"
#define KIND_NAME "heap"
#define KIND_NODE struct timer_heap_node
#define KIND_DEFINE TIMER_HEAP_DEFINE_NAMED
#define KIND_MIN_EXACT 1
#define KIND_CORE heap
#elif defined(INSTR_WHEEL)
#include "timer_wheel.h"
#define KIND_NAME "wheel"
#define KIND_NODE struct timer_wheel_node
#define KIND_DEFINE TIMER_WHEEL_DEFINE_NAMED
#define KIND_MIN_EXACT 0            /* min_time is a lower bound */
#define KIND_CORE wheel
#else
#define KIND_NAME "floor"
#endif

/* Steps of the random pop (ticks), and the span of its expiries. */
#define RPOP_STEP INT64_C(1000)
#define RSPAN (INT64_C(1) << 20)

static size_t failures;

static void check(size_t bad, const char *what)
{
    if (bad != 0) {
        fprintf(stderr, "instr %s: %s: %zu wrong result(s)\n", KIND_NAME, what, bad);
        failures += bad;
    }
}

static void cell(const char *section, const char *op, const char *fn, size_t count)
{
    printf("cell %s %s %s %zu\n", section, op, fn, count);
}

#if defined(INSTR_FLOOR)

/* ---- the floor: bench_common.h's floor_run, without the clock ------------ */

PHASE void fl_insert(struct tlist *heads, struct floor_node *it, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        it[i].expire = ORDERED_WHEN(i);
        tlist_push_back(&heads[it[i].expire & (FLOOR_HEADS - 1)], &it[i].link);
    }
}

PHASE void fl_remove(struct floor_node *it, size_t half)
{
    size_t i;
    for (i = 0; i < half; i++)
        tlist_remove(&it[i].link);
}

static void run(size_t n, size_t conns, uint64_t seed, int only_random)
{
    struct tlist heads[FLOOR_HEADS];
    struct floor_node *it = (struct floor_node *)bench_items(n * sizeof *it);
    size_t i, left = 0;

    (void)conns;
    (void)seed;
    printf("info item_bytes %zu\n", sizeof *it);
    if (only_random)
        return;
    for (i = 0; i < FLOOR_HEADS; i++)
        tlist_init(&heads[i]);
    fl_insert(heads, it, n);
    fl_remove(it, n / 2);
    for (i = 0; i < FLOOR_HEADS; i++)
        left += tlist_size(&heads[i]);
    check(left != n - n / 2, "floor: wrong count left after the removals");
    cell("ops", "insert", "fl_insert", n);
    cell("ops", "remove", "fl_remove", n / 2);
}

#else /* a container */

/* The item: the kind's node and the expiry the driver expects (make bench's
 * item, bench_kind.h). */
struct item {
    KIND_NODE node;
    int64_t when;
};

#if defined(INSTR_CXX)
#include "test/cxx_shim.h"
typedef timer_containers::KIND_CORE<struct item, &item::node> ic_cxx;
TIMER_CXX_SHIM(ic, ic_cxx, struct item, KIND_CORE)
#else
BENCH_EXPAND_DEFINE(KIND_DEFINE, ic, struct item, node)
#endif

/* ---- helpers (not measured) ------------------------------------------------ */

/* A fresh container holding items from .. to-1 at their ordered-insert
 * expiries plus shift. */
static void fill_ordered(ic *c, struct item *it, size_t from, size_t to, int64_t shift)
{
    size_t i, bad = 0;
    ic_init(c, 0);
    for (i = from; i < to; i++) {
        it[i].when = ORDERED_WHEN(i) + shift;
        bad += ic_insert(c, it[i].when, &it[i]) != 0;
    }
    check(bad, "setup insert");
}

/* Pops everything still pending and checks it: `want` items, in expiry
 * order, each at the expiry the driver gave it, then an empty container. */
static void drain_all(ic *c, size_t want, const char *what)
{
    struct tlist out = {0, 0};
    struct tlist *pos;
    size_t got = ic_pop(c, TIMER_NEVER, &out), seen = 0, bad = 0;
    int64_t last = -1;

    tlist_drain(pos, &out) {
        struct item *x = ic_entry(pos);
        bad += ic_expire(x) != x->when || x->when < last;
        last = x->when;
        seen++;
    }
    bad += got != want || seen != want || !ic_empty(c) || ic_size(c) != 0;
    check(bad, what);
    ic_destroy(c);
}

/* Pop at now, drain the result list, count the items that were not due in
 * (prev, now]: make bench's check (no early firing, none left behind).
 * Always inline, in C and C++ alike, so that the phases compare the same
 * code: g++ kept the C++ form (a range and its destructor) out of line in
 * the idle phase, which counted the call in the C++ row only. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline size_t pop_drain(ic *c, int64_t prev, int64_t now, size_t *bad)
{
#if defined(INSTR_CXX)
    ic_cxx::due_range due = ic_obj(c).pop(now);
    size_t k = due.popped(), seen = 0;

    for (struct item &x : due) {
        *bad += x.when > now || x.when <= prev;
        seen++;
    }
#else
    struct tlist out = {0, 0};
    struct tlist *pos;
    size_t k = ic_pop(c, now, &out), seen = 0;

    tlist_drain(pos, &out) {
        struct item *x = ic_entry(pos);
        *bad += x->when > now || x->when <= prev;
        seen++;
    }
#endif
    *bad += seen != k;
    return k;
}

/* ---- the ordered-insert protocol ------------------------------------------- */

PHASE size_t ph_insert(ic *c, struct item *it, size_t n)
{
    size_t i, bad = 0;
    for (i = 0; i < n; i++)
        bad += ic_insert(c, ORDERED_WHEN(i), &it[i]) != 0;
    return bad;
}

PHASE size_t ph_remove(ic *c, struct item *it, size_t half)
{
    size_t i, bad = 0;
    for (i = 0; i < half; i++)
        bad += !ic_remove(c, &it[i]);
    return bad;
}

/* One pop call per item, at exactly its expiry, and the result list drained
 * (what a caller must do with it): exactly item i must come out. */
PHASE size_t ph_pop(ic *c, struct item *it, size_t from, size_t to)
{
    size_t i, bad = 0;
#if defined(INSTR_CXX)
    for (i = from; i < to; i++) {
        ic_cxx::due_range due = ic_obj(c).pop(ORDERED_WHEN(i));
        bad += due.popped() != 1;
        for (struct item &x : due)
            bad += &x != &it[i];
    }
#else
    struct tlist out = {0, 0};
    struct tlist *pos;
    for (i = from; i < to; i++) {
        bad += ic_pop(c, ORDERED_WHEN(i), &out) != 1;
        tlist_drain(pos, &out)
            bad += ic_entry(pos) != &it[i];
    }
#endif
    return bad;
}

/* The same with min_time before each pop (exact for set and heap; for the
 * wheel a lower bound of the next expiry). */
PHASE size_t ph_min_time_pop(ic *c, struct item *it, size_t from, size_t to)
{
    size_t i, bad = 0;
#if defined(INSTR_CXX)
    for (i = from; i < to; i++) {
        int64_t t = ic_obj(c).min_time();
        bad += t > ORDERED_WHEN(i) || (KIND_MIN_EXACT && t != ORDERED_WHEN(i));
        ic_cxx::due_range due = ic_obj(c).pop(ORDERED_WHEN(i));
        bad += due.popped() != 1;
        for (struct item &x : due)
            bad += &x != &it[i];
    }
#else
    struct tlist out = {0, 0};
    struct tlist *pos;
    for (i = from; i < to; i++) {
        int64_t t = ic_min_time(c);
        bad += t > ORDERED_WHEN(i) || (KIND_MIN_EXACT && t != ORDERED_WHEN(i));
        bad += ic_pop(c, ORDERED_WHEN(i), &out) != 1;
        tlist_drain(pos, &out)
            bad += ic_entry(pos) != &it[i];
    }
#endif
    return bad;
}

/* An event loop's round: sleep until next_expiry, pop at it, drain. */
PHASE size_t ph_next_expiry_pop(ic *c, struct item *it, size_t from, size_t to)
{
    size_t i, bad = 0;
#if defined(INSTR_CXX)
    for (i = from; i < to; i++) {
        int64_t t = ic_obj(c).next_expiry();
        bad += t != ORDERED_WHEN(i);
        ic_cxx::due_range due = ic_obj(c).pop(t);
        bad += due.popped() != 1;
        for (struct item &x : due)
            bad += &x != &it[i];
    }
#else
    struct tlist out = {0, 0};
    struct tlist *pos;
    for (i = from; i < to; i++) {
        int64_t t = ic_next_expiry(c);
        bad += t != ORDERED_WHEN(i);
        bad += ic_pop(c, t, &out) != 1;
        tlist_drain(pos, &out)
            bad += ic_entry(pos) != &it[i];
    }
#endif
    return bad;
}

/* What an event loop does on every iteration that no timer is due in: a pop
 * call (and the drain of its empty list), the clock one tick later each
 * call, every pending item later than the last call. */
PHASE size_t ph_pop_none(ic *c, size_t calls)
{
    size_t bad = 0;
    int64_t now;
#if defined(INSTR_CXX)
    for (now = 0; now < (int64_t)calls; now++) {
        ic_cxx::due_range due = ic_obj(c).pop(now);
        bad += due.popped();
        for (struct item &x : due) {
            (void)x;
            bad++;
        }
    }
#else
    struct tlist out = {0, 0};
    struct tlist *pos;
    for (now = 0; now < (int64_t)calls; now++) {
        bad += ic_pop(c, now, &out);
        tlist_drain(pos, &out)
            bad++;
    }
#endif
    return bad;
}

/* Each pending item pushed back by delta[i] (an idle connection's timeout
 * after a message), in item order. Two functions for two callgrind rows. */
static inline size_t resched_(ic *c, struct item *it, const int64_t *delta, size_t n)
{
    size_t i, bad = 0;
    for (i = 0; i < n; i++) {
        it[i].when += delta[i];
        bad += ic_reschedule(c, it[i].when, &it[i]) != 0;
    }
    return bad;
}

PHASE size_t ph_resched_near(ic *c, struct item *it, const int64_t *delta, size_t n)
{
    return resched_(c, it, delta, n);
}

PHASE size_t ph_resched_far(ic *c, struct item *it, const int64_t *delta, size_t n)
{
    return resched_(c, it, delta, n);
}

/* Random expiries (set in it[].when), the items taken in a random order. */
PHASE size_t ph_random_insert(ic *c, struct item *it, const uint32_t *perm, size_t n)
{
    size_t k, bad = 0;
    for (k = 0; k < n; k++) {
        struct item *x = &it[perm[k]];
        bad += ic_insert(c, x->when, x) != 0;
    }
    return bad;
}

/* ... popped in steps of RPOP_STEP ticks: returns the count popped. */
PHASE size_t ph_random_pop(ic *c, size_t *bad)
{
    size_t popped = 0;
    int64_t now, prev = -1;
    for (now = RPOP_STEP; prev < RSPAN; now += RPOP_STEP) {
        popped += pop_drain(c, prev, now, bad);
        prev = now;
    }
    return popped;
}

/* ---- make bench's workloads (bench_kind.h), each timed part a function --- */

PHASE size_t wl_random_insert(ic *c, struct item *it, size_t n)
{
    size_t i, bad = 0;
    for (i = 0; i < n; i++)
        bad += ic_insert(c, it[i].when, &it[i]) != 0;
    return bad;
}

PHASE size_t wl_random_pop(ic *c, const struct random_wl *w, size_t *bad)
{
    size_t popped = 0;
    int64_t now, prev = -1;
    for (now = w->step; prev < w->horizon; now += w->step) {
        popped += pop_drain(c, prev, now, bad);
        prev = now;
    }
    return popped;
}

/* make bench's "total": insert + pop, per timer */
PHASE size_t wl_random(ic *c, struct item *it, const struct random_wl *w, size_t *bad)
{
    *bad += wl_random_insert(c, it, w->n);
    return wl_random_pop(c, w, bad);
}

PHASE size_t wl_idle_resched(ic *c, struct item *it, const uint32_t *msg, const uint32_t *end, int64_t when)
{
    size_t bad = 0;
    for (; msg < end; msg++) {
        struct item *x = &it[*msg];
        x->when = when;
        bad += ic_reschedule(c, when, x) != 0;
    }
    return bad;
}

PHASE size_t wl_idle_pop(ic *c, int64_t prev, int64_t now, size_t *bad)
{
    return pop_drain(c, prev, now, bad);
}

/* make bench's "total": the tick loop (the connections' first inserts and
 * the last drain are set-up, as there) */
PHASE size_t wl_idle(ic *c, struct item *it, const struct idle_wl *w, size_t *bad)
{
    size_t popped = 0;
    int64_t t;
    for (t = 1; t <= w->ticks; t++) {
        *bad += wl_idle_resched(c, it, w->msg + w->msg_at[t], w->msg + w->msg_at[t + 1], t + w->timeout);
        popped += wl_idle_pop(c, t - 1, t, bad);
    }
    return popped;
}

PHASE size_t wl_request_insert(ic *c, struct item *it, size_t from, size_t to, int64_t when)
{
    size_t bad = 0;
    for (; from < to; from++) {
        it[from].when = when;
        bad += ic_insert(c, when, &it[from]) != 0;
    }
    return bad;
}

PHASE size_t wl_request_remove(ic *c, struct item *it, const uint32_t *id, const uint32_t *end)
{
    size_t bad = 0;
    for (; id < end; id++)
        bad += !ic_remove(c, &it[*id]);
    return bad;
}

PHASE size_t wl_request_pop(ic *c, int64_t prev, int64_t now, size_t *bad)
{
    return pop_drain(c, prev, now, bad);
}

/* make bench's "total": the whole tick loop */
PHASE size_t wl_request(ic *c, struct item *it, const struct request_wl *w, size_t *bad)
{
    size_t next = 0, popped = 0;
    int64_t t;
    for (t = 0; t <= w->ticks; t++) {
        size_t stop = next + w->per_tick < w->n ? next + w->per_tick : w->n;
        *bad += wl_request_insert(c, it, next, stop, t + w->delay);
        next = stop;
        *bad += wl_request_remove(c, it, w->resp + w->resp_at[t], w->resp + w->resp_at[t + 1]);
        popped += wl_request_pop(c, t - 1, t, bad);
    }
    return popped;
}

PHASE size_t wl_mixed_insert(ic *c, struct item *it, size_t n)
{
    size_t i, bad = 0;
    for (i = 0; i < n; i++)
        bad += ic_insert(c, it[i].when, &it[i]) != 0;
    return bad;
}

PHASE size_t wl_mixed_remove(ic *c, struct item *it, const uint32_t *order, size_t half)
{
    size_t i, bad = 0;
    for (i = 0; i < half; i++)
        bad += !ic_remove(c, &it[order[i]]);
    return bad;
}

PHASE size_t wl_mixed_pop(ic *c, const struct mixed_wl *w, size_t *bad)
{
    size_t i, popped = 0;
    int64_t prev = w->now0;
    for (i = 0; i < w->nsteps; i++) {
        popped += pop_drain(c, prev, w->steps[i], bad);
        prev = w->steps[i];
    }
    return popped;
}

/* make bench's "total": insert + remove + pop */
PHASE size_t wl_mixed(ic *c, struct item *it, const struct mixed_wl *w, size_t *bad)
{
    *bad += wl_mixed_insert(c, it, w->n);
    *bad += wl_mixed_remove(c, it, w->order, w->n / 2);
    return wl_mixed_pop(c, w, bad);
}

/* ---- the run ----------------------------------------------------------------- */

static void run_ordered(ic *c, size_t n)
{
    struct item *it = (struct item *)bench_items(n * sizeof *it);
    size_t half = n / 2, i;
    int64_t *delta = (int64_t *)xmalloc(n * sizeof *delta);

    /* insert, remove the first half, pop the rest one at a time */
    for (i = 0; i < n; i++)
        it[i].when = ORDERED_WHEN(i);
    ic_init(c, 0);
    check(ph_insert(c, it, n), "ordered insert");
    check(ic_size(c) != n, "size after the ordered inserts");
    check(ph_remove(c, it, half), "ordered remove");
    check(ph_pop(c, it, half, n), "ordered pop");
    drain_all(c, 0, "ordered pop: left over");
    cell("ops", "insert", "ph_insert", n);
    cell("ops", "remove", "ph_remove", half);
    cell("ops", "pop", "ph_pop", n - half);

    /* the same second half from a fresh insert, with min_time, next_expiry */
    fill_ordered(c, it, half, n, 0);
    check(ph_min_time_pop(c, it, half, n), "min_time + pop");
    drain_all(c, 0, "min_time + pop: left over");
    cell("ops", "min_time+pop", "ph_min_time_pop", n - half);
    fill_ordered(c, it, half, n, 0);
    check(ph_next_expiry_pop(c, it, half, n), "next_expiry + pop");
    drain_all(c, 0, "next_expiry + pop: left over");
    cell("ops", "next_expiry+pop", "ph_next_expiry_pop", n - half);

    /* n calls of pop at 0 .. n-1 over n items due from n + ORDERED_BASE on */
    fill_ordered(c, it, 0, n, (int64_t)n);
    check(ph_pop_none(c, n), "pop with nothing due");
    drain_all(c, n, "pop with nothing due: the items");
    cell("ops", "pop-none", "ph_pop_none", n);

    /* every item pushed back by 0..15 ticks, then by 0..100000 */
    for (i = 0; i < n; i++)
        delta[i] = (int64_t)rng_below(16);
    fill_ordered(c, it, 0, n, 0);
    check(ph_resched_near(c, it, delta, n), "reschedule +0..15");
    drain_all(c, n, "reschedule +0..15: the items");
    cell("ops", "reschedule-near", "ph_resched_near", n);
    for (i = 0; i < n; i++)
        delta[i] = (int64_t)rng_below(100001);
    fill_ordered(c, it, 0, n, 0);
    check(ph_resched_far(c, it, delta, n), "reschedule +0..100000");
    drain_all(c, n, "reschedule +0..100000: the items");
    cell("ops", "reschedule-far", "ph_resched_far", n);
    free(delta);
}

static void run_random(ic *c, size_t n)
{
    struct item *it = (struct item *)bench_items(n * sizeof *it);
    uint32_t *perm = (uint32_t *)xmalloc(n * sizeof *perm);
    size_t i, bad = 0, popped;

    for (i = 0; i < n; i++) {
        it[i].when = (int64_t)rng_below((uint64_t)RSPAN);
        perm[i] = (uint32_t)i;
    }
    for (i = n; i > 1; i--) {          /* Fisher-Yates */
        size_t j = (size_t)rng_below(i);
        uint32_t tmp = perm[i - 1];
        perm[i - 1] = perm[j];
        perm[j] = tmp;
    }
    ic_init(c, 0);
    check(ph_random_insert(c, it, perm, n), "random insert");
    popped = ph_random_pop(c, &bad);
    check(bad + (popped != n), "random pop");
    drain_all(c, 0, "random pop: left over");
    cell("ops", "random-insert", "ph_random_insert", n);
    cell("ops", "random-pop", "ph_random_pop", n);
    free(perm);
}

static void run_workloads(ic *c, const struct workloads *w, int only_random)
{
    struct item *it;
    size_t i, bad = 0, popped, pending, msgs, removed;
    int64_t t;

    it = (struct item *)bench_items(w->rw.n * sizeof *it);
    for (i = 0; i < w->rw.n; i++)
        it[i].when = w->rw.when[i];
    ic_init(c, 0);
    popped = wl_random(c, it, &w->rw, &bad);
    check(bad + (popped != w->rw.n), "workload random");
    drain_all(c, 0, "workload random: left over");
    cell("random", "total", "wl_random", w->rw.n);
    cell("random", "insert", "wl_random_insert", w->rw.n);
    cell("random", "pop", "wl_random_pop", w->rw.n);
    cell("random", "pop-call", "wl_random_pop", (size_t)(w->rw.horizon / w->rw.step));
    if (only_random)
        return;

    it = (struct item *)bench_items(w->iw.conns * sizeof *it);
    ic_init(c, 0);
    for (i = 0; i < w->iw.conns; i++) {
        it[i].when = w->iw.first_when[i];
        bad += ic_insert(c, it[i].when, &it[i]) != 0;
    }
    popped = wl_idle(c, it, &w->iw, &bad);
    check(bad + (popped < w->iw.silent), "workload idle");
    /* everything still pending expires within one timeout */
    pending = ic_size(c);
    bad = 0;
    check(pop_drain(c, w->iw.ticks, w->iw.ticks + w->iw.timeout, &bad) != pending || bad, "workload idle: the rest");
    drain_all(c, 0, "workload idle: left over");
    for (msgs = 0, t = 1; t <= w->iw.ticks; t++)
        msgs += w->iw.msg_at[t + 1] - w->iw.msg_at[t];
    cell("idle", "total", "wl_idle", w->iw.conns);
    cell("idle", "reschedule", "wl_idle_resched", msgs);
    cell("idle", "pop", "wl_idle_pop", popped);
    cell("idle", "pop-call", "wl_idle_pop", (size_t)w->iw.ticks);

    it = (struct item *)bench_items(w->qw.n * sizeof *it);
    ic_init(c, 0);
    bad = 0;
    popped = wl_request(c, it, &w->qw, &bad);
    removed = w->qw.resp_at[w->qw.ticks + 1];
    check(bad + (popped != w->qw.timeouts) + (removed + popped != w->qw.n), "workload request");
    drain_all(c, 0, "workload request: left over");
    cell("request", "total", "wl_request", w->qw.n);
    cell("request", "insert", "wl_request_insert", w->qw.n);
    cell("request", "remove", "wl_request_remove", removed);
    cell("request", "pop", "wl_request_pop", popped);
    cell("request", "pop-call", "wl_request_pop", (size_t)w->qw.ticks + 1);

    it = (struct item *)bench_items(w->mw.n * sizeof *it);
    for (i = 0; i < w->mw.n; i++)
        it[i].when = w->mw.when[i];
    ic_init(c, w->mw.now0);
    bad = 0;
    popped = wl_mixed(c, it, &w->mw, &bad);
    check(bad + (popped != w->mw.n - w->mw.n / 2), "workload mixed");
    drain_all(c, 0, "workload mixed: left over");
    cell("mixed", "total", "wl_mixed", w->mw.n);
    cell("mixed", "insert", "wl_mixed_insert", w->mw.n);
    cell("mixed", "remove", "wl_mixed_remove", w->mw.n / 2);
    cell("mixed", "pop", "wl_mixed_pop", popped);
    cell("mixed", "pop-call", "wl_mixed_pop", w->mw.nsteps);
}

static void run(size_t n, size_t conns, uint64_t seed, int only_random)
{
    struct workloads w;
    ic c;

    printf("info item_bytes %zu\n", sizeof(struct item));
    /* The workloads as make bench WN=n CONNS=conns SEED=seed draws them
     * (random first: --only random draws just that one), then each data set
     * of the single operations from a seed of its own, so that --only
     * random measures the same data as a full run. */
    memset(&w, 0, sizeof w);
    rng_state = seed;
    if (only_random)
        random_make(&w.rw, n);
    else
        workloads_make(&w, n, conns);
    rng_state = seed + 1;
    if (!only_random)
        run_ordered(&c, n);
    rng_state = seed + 2;
    run_random(&c, n);
    run_workloads(&c, &w, only_random);
    workloads_free(&w);
}

#endif /* a container */

static void usage(void)
{
    fprintf(stderr, "usage: instr_%s [--n 200000] [--conns 100000] [--seed 1] [--only random]\n", KIND_NAME);
    exit(2);
}

int main(int argc, char **argv)
{
    size_t n = 200000, conns = 100000;
    uint64_t seed = 1;
    int i, only_random = 0;

    for (i = 1; i < argc; i += 2) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (v == NULL)
            usage();
        if (!strcmp(a, "--n"))
            n = parse_count(v);
        else if (!strcmp(a, "--conns"))
            conns = parse_count(v);
        else if (!strcmp(a, "--seed"))
            seed = strtoull(v, NULL, 0);
        else if (!strcmp(a, "--only") && !strcmp(v, "random"))
            only_random = 1;
        else
            usage();
    }
    if (n > UINT32_MAX || conns > UINT32_MAX)
        bench_fail("--n and --conns must fit in 32 bits");
    printf("info kind %s\ninfo n %zu\ninfo conns %zu\ninfo seed %" PRIu64 "\ninfo compiler %s %s\n",
           KIND_NAME, n, conns, seed, compiler(), BENCH_CFLAGS);

    /* one item array, every page touched now: no page fault inside a phase,
     * and the cache simulation starts from pages already mapped */
    bench_arena_bytes = (n > conns ? n : conns) * 64;
    bench_arena = xmalloc(bench_arena_bytes);
    memset(bench_arena, 1, bench_arena_bytes);

    run(n, conns, seed, only_random);
    free(bench_arena);
    if (failures != 0) {
        fprintf(stderr, "instr %s: FAILED: %zu wrong result(s)\n", KIND_NAME, failures);
        return 1;
    }
    return 0;
}
