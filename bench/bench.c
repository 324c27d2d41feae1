/* bench.c - benchmark of the three timer containers (set, heap, wheel).
 *
 * One driver (bench_kind.h) is included once per kind (bench_ours.h);
 * bench_common.h holds what all kinds and benchmark programs share: options,
 * the clock, precomputed workloads, the floor (the cheapest conceivable
 * intrusive link/unlink), medians and the CSV. This file runs the repetitions
 * and prints the report: the ordered-insert protocol, the workloads at a
 * small and a large N, and a verdict drawn from this run's medians; one CSV
 * row per kind/workload/N/op.
 *
 *   ./timer_bench [--sizes 1000,10000,1000000,10000000] [--reps 3] [--wn 1000000]
 *                 [--conns 100000] [--small 1000] [--seed S] [--csv results.csv]
 *
 * It measures and reports; it never asserts a time. It does check results
 * (exactly the right items come out) and exits non-zero when one is wrong.
 */
#define _POSIX_C_SOURCE 200809L

#include "bench_common.h"
#include "bench_ours.h"

#include <unistd.h>

#define MAX_KINDS 3

static const struct kind *const kinds[MAX_KINDS] = { &kset_kind, &kheap_kind, &kwheel_kind };

/* Below this N a size counts as small in the verdict: 10000 items (about
 * 400 KB with their nodes) still live in a CPU's caches, 1M do not. */
#define SMALL_BELOW 100000

/* The verdict calls a kind to avoid when its total is this many times the
 * fastest kind's: below that the choice matters less than other needs. */
#define AVOID_RATIO 1.5

/* The verdict names the fastest kind only when its lead over the runner-up
 * is worth choosing by and this run resolved it (lead_resolved): the
 * runner-up's median score is WIN_RATIO times the fastest's or more, and
 * the two medians lie further apart than twice their spreads added (half of
 * a kind's samples lie within one spread of its median, stats.spread).
 * Otherwise it says so, and names no winner. At 1,000 timers leads of
 * 1.1-1.2x (random, idle) came out on either side in different runs, and
 * moved by 5% with no more than the order of the runs changed. */
#define WIN_RATIO 1.25

/* The warm-up repetition runs nothing larger (see run). */
#define WARMUP_MAX_N 100000

/* A small run (N < SMALL_BELOW) takes milliseconds where a large one takes
 * seconds, so each repetition runs the small ones SMALL_PASSES times, in
 * passes spread between the large runs, each pass a sample of its own. The
 * rounds' median already leaves out an interrupt; a slow spell of a shared
 * machine that outlasts a run then slows a few of 15 samples, where two
 * such spells among 3 moved the median, and the verdict at 1,000 timers
 * changed sides between runs. */
#define SMALL_PASSES 5
#if SMALL_PASSES * MAX_REPS > MAX_SAMPLES
#error "MAX_SAMPLES too small for SMALL_PASSES samples in each of MAX_REPS repetitions"
#endif

static const char *const wl_names[] = { "random", "idle", "idle-range", "request", "mixed", "game" };
#define NWL 6

/* ---- the run ---------------------------------------------------------------- */

static size_t wl_n(const struct workloads *w, int i)
{
    return i == 1 || i == 2 ? w->iw.conns : i == 3 ? w->qw.n : i == 4 ? w->mw.n : i == 5 ? w->gw.conns : w->rw.n;
}

/* Whether the runs over n timers take part in a pass: pass 0 is the
 * warm-up; a repetition is SMALL_PASSES passes, the last of which runs the
 * large sizes too. */
static int in_pass(size_t n, int pass)
{
    if (pass == 0)
        return n <= WARMUP_MAX_N;
    return n < SMALL_BELOW || pass % SMALL_PASSES == 0;
}

static void run(const struct config *cfg, const struct workloads *wls, int nsets)
{
    int pass, s, j, w, t;
    /* pass 0 is a warm-up whose figures are dropped: it takes the first-touch
     * costs (malloc growing the process, cold caches) out of the spread of
     * the small runs, where they would weigh most. It skips the runs above
     * WARMUP_MAX_N, which would make it cost as much as a repetition: their
     * items are faulted in at start; what remains (the heap's array faulted
     * in at 1M; glibc maps arrays of 10M afresh at every malloc anyway)
     * makes the first repetition the slowest, which the median leaves out. */
    for (pass = 0; pass <= cfg->reps * SMALL_PASSES; pass++) {
        struct floor_cache fc;
        fc.count = 0;
        recording = pass > 0;
        bench_clock_cost = clock_cost();    /* the clock may drift with the CPU's state */
        if (pass == 0)
            fprintf(stderr, "warm-up ...");
        else if ((pass - 1) % SMALL_PASSES == 0)
            fprintf(stderr, "\rrepetition %d/%d ...", (pass + SMALL_PASSES - 1) / SMALL_PASSES, cfg->reps);
        /* rotate the kinds' order so no kind always runs right after another */
        for (s = 0; s < cfg->nsizes; s++) {
            size_t n = cfg->sizes[s];
            double fl;
            if (!in_pass(n, pass))
                continue;
            fl = floor_for(&fc, n);
            for (j = 0; j < MAX_KINDS; j++) {
                const struct kind *k = kinds[(j + pass) % MAX_KINDS];
                struct wl_result r;
                size_t owned;
                r.nops = 0;
                k->ordered(n, &r, &owned);
                record_wl("ordered", k, n, &r, fl);
                if (recording)
                    rec_get("ordered", k->name, n, "insert")->owned_kb = (double)owned / 1024.0;
                for (t = 0; k->reserved != NULL && t < 2; t++) {
                    r.nops = 0;
                    k->reserved(n, t, &r);
                    record("ordered", k->reserved_as[t], n, "insert", r.ns[0], 0, fl, k->node_bytes);
                }
            }
        }
        for (w = 0; w < nsets; w++) {
            const struct workloads *wl = &wls[w];
            for (j = 0; j < MAX_KINDS; j++) {
                const struct kind *k = kinds[(j + pass) % MAX_KINDS];
                struct wl_result r;
                if (in_pass(wl->rw.n, pass)) {
                    r.nops = 0;
                    k->random(&wl->rw, &r);
                    record_wl("random", k, wl->rw.n, &r, floor_for(&fc, wl->rw.n));
                }
                if (in_pass(wl->iw.conns, pass)) {
                    r.nops = 0;
                    k->idle(&wl->iw, &r);
                    record_wl("idle", k, wl->iw.conns, &r, floor_for(&fc, wl->iw.conns));
                    r.nops = 0;
                    k->idle_range(&wl->iw, &r);
                    record_wl("idle-range", k, wl->iw.conns, &r, floor_for(&fc, wl->iw.conns));
                }
                if (in_pass(wl->qw.n, pass)) {
                    r.nops = 0;
                    k->request(&wl->qw, &r);
                    record_wl("request", k, wl->qw.n, &r, floor_for(&fc, wl->qw.n));
                }
                if (in_pass(wl->mw.n, pass)) {
                    r.nops = 0;
                    k->mixed(&wl->mw, &r);
                    record_wl("mixed", k, wl->mw.n, &r, floor_for(&fc, wl->mw.n));
                }
                if (in_pass(wl->gw.conns, pass)) {
                    r.nops = 0;
                    k->idle(&wl->gw, &r);   /* the idle loop, messages with their own expiries */
                    record_wl("game", k, wl->gw.conns, &r, floor_for(&fc, wl->gw.conns));
                }
            }
        }
    }
    /* on a terminal, erase the progress line; in a log, end it */
    fprintf(stderr, isatty(2) ? "\r%*s\r" : "%.*s\n", 40, "");
}

/* ---- report -------------------------------------------------------------- */

/* 1000, 10k, 1M, 10M; other counts in full */
static const char *short_n(size_t n, char *buf, size_t len)
{
    if (n >= 1000000 && n % 1000000 == 0)
        snprintf(buf, len, "%zuM", n / 1000000);
    else if (n >= 10000 && n % 1000 == 0)
        snprintf(buf, len, "%zuk", n / 1000);
    else
        snprintf(buf, len, "%zu", n);
    return buf;
}

/* One figure: median ns/op (or <noise), median ratio to the floor insert,
 * and the spread as max - min in ns (absolute, so that it stays meaningful
 * for a difference that can be close to 0). */
#define CELL_W 24
static void print_cell(const struct rec *r)
{
    struct stats ns, ratio;
    char med[32];
    if (r == NULL || r->count == 0) {
        printf("  %-*s", CELL_W, "-");
        return;
    }
    ns = stats_of(r->ns, r->count);
    ratio = stats_of(r->ratio, r->count);
    fmt_median(r, med, sizeof med);
    if (med[0] == '<')
        printf("  %7s %9s %6.1f", med, "-", ns.max - ns.min);
    else
        printf("  %7s %8.2fx %6.1f", med, ratio.median, ns.max - ns.min);
}

static void print_cell_heads(int count)
{
    int i;
    for (i = 0; i < count; i++)
        printf("  %7s %9s %6s", "ns/op", "x floor", "range");
}

static void print_header(const struct config *cfg)
{
    char machine[640];
    machine_desc(machine, sizeof machine);
    printf("Timer container benchmark: set (red-black tree), heap (indexed %d-ary min-heap), "
           "wheel (hierarchical timing wheel)\n", TIMER_HEAP_ARITY);
    printf("  %s\n", machine);
    printf("  %d repetitions after 1 warm-up (N <= %d), in each of which N < %d runs %d times: a figure is\n"
           "  the median over its %d or %d samples, range = max - min | RNG seed %" PRIu64 "\n",
           cfg->reps, WARMUP_MAX_N, SMALL_BELOW, SMALL_PASSES, cfg->reps * SMALL_PASSES, cfg->reps, cfg->seed);
    printf("  every batch is timed with a clock_gettime(CLOCK_MONOTONIC) pair (%.1f ns here) and that cost\n"
           "  subtracted; runs on fewer than %d timers repeat in rounds on the same items (%d ops of\n"
           "  each kind per sample), and their figure is the median over the rounds\n",
           bench_clock_cost, BENCH_MIN_OPS, BENCH_MIN_OPS);
    printf("  items: one array, each element the kind's node + the int64 expiry the benchmark expects;\n"
           "  every pop is checked: exactly the items due come out\n");
}

static void print_ordered_table(const struct config *cfg)
{
    static const char *const ops[] = { "insert", "remove", "pop", "min_time" };
    const char *names[3 * MAX_KINDS + 1];
    int s, k, o, nnames = 0;

    names[nnames++] = "floor";
    for (k = 0; k < MAX_KINDS; k++) {
        names[nnames++] = kinds[k]->name;
        if (kinds[k]->reserved != NULL) {
            names[nnames++] = kinds[k]->reserved_as[0];
            names[nnames++] = kinds[k]->reserved_as[1];
        }
    }
    printf("\n== 1. Ordered-insert protocol ==\n"
           "  insert N timers at base + i*97 (ascending), remove the first half, pop each remaining one at\n"
           "  exactly its expiry; then again with min_time before each pop:\n"
           "  min_time = (min_time + pop loop) - (pop loop), both over a freshly re-inserted second half:\n"
           "  the median over blocks of %d pops of the same block's difference.\n"
           "  floor: the cheapest conceivable intrusive link/unlink (a list per expiry's low 8 bits), same N.\n"
           "  Cell: median ns per op | x floor: median of ns / floor insert ns (same N, same repetition) |\n"
           "  range: max - min ns/op. mem KB: container-owned memory after N inserts (heap: its array).\n"
           "  heap+rsv: the inserts again after reserve(N) (the array allocated at once, its pages still\n"
           "  faulted in by the first write to each); heap+pf: after reserve(N) and a write to every\n"
           "  page of the array (untimed): the heap's own work, no kernel. Not in the verdict.\n"
           "  Node bytes:", BENCH_MT_BLOCK);
    for (k = 0; k <= MAX_KINDS; k++) {
        const char *name = k == 0 ? "floor" : kinds[k - 1]->name;
        const struct rec *ins = rec_find("ordered", name, cfg->sizes[0], "insert");
        printf(" %s %zu%s", name, ins != NULL ? ins->node_bytes : (size_t)0, k < MAX_KINDS ? "," : ".\n\n");
    }
    printf("%-8s %10s", "kind", "N");
    for (o = 0; o < 4; o++)
        printf("  %-*s", CELL_W, ops[o]);
    printf(" %10s\n%19s", "mem KB", "");
    print_cell_heads(4);
    printf("\n");
    for (s = 0; s < cfg->nsizes; s++) {
        for (k = 0; k < nnames; k++) {
            struct rec *ins = rec_find("ordered", names[k], cfg->sizes[s], "insert");
            printf("%-8s %10zu", names[k], cfg->sizes[s]);
            for (o = 0; o < 4; o++)
                print_cell(rec_find("ordered", names[k], cfg->sizes[s], ops[o]));
            if (ins != NULL && ins->owned_kb >= 0)
                printf(" %10.2f\n", ins->owned_kb);
            else
                printf(" %10s\n", "-");
        }
        if (s + 1 < cfg->nsizes)
            printf("\n");
    }
}

static void print_workload_table(const struct workloads *wls, int nsets)
{
    int w, k, set;
    size_t i, j;
    char a[24], b[24];

    printf("\n== 2. Workloads (1 tick = 1 ms), each at a small and a large N ==\n");
    printf("  random:  N expiries uniform over 2^24 ticks, all inserted, then popped in %d steps\n", RANDOM_STEPS);
    printf("  idle:    N connections, each sends 1 message/s; a message reschedules its connection to now +"
           " %" PRId64 " ms;\n"
           "           1%% go silent and expire (", wls[0].iw.timeout);
    for (set = 0; set < nsets; set++)
        printf("%s%zu of %s", set ? ", " : "", wls[set].iw.silent, short_n(wls[set].iw.conns, a, sizeof a));
    printf("); pop every ms\n");
    printf("  idle-range: the same, but a message calls reschedule_range(now + %" PRId64 ", now + %" PRId64
           " + %" PRId64 "):\n"
           "           an expiry already in that window (slack %d%% of the timeout) stays where it is;\n"
           "           expiries within the traffic, checked against the contract (idle / idle-range):",
           wls[0].iw.timeout, wls[0].iw.timeout, wls[0].iw.slack, IDLE_SLACK_PERCENT);
    for (set = 0; set < nsets; set++)
        printf("%s %zu / %zu at %s", set ? "," : "", wls[set].iw.expire[0], wls[set].iw.expire[1],
               short_n(wls[set].iw.conns, a, sizeof a));
    printf("\n");
    printf("  request: %d requests/ms, each armed for %" PRId64 " ms; %d%% removed before expiry, "
           "the rest popped\n", REQ_PER_TICK, REQ_DELAY, REQ_ANSWERED_PERCENT);
    printf("  mixed:   delays log-uniform over 1 .. 2^%d ticks; a random half removed in random order;\n"
           "           the rest popped at now0 + 2^(k/4)\n", MIXED_LOG2_MAX);
    printf("  game:    N timers: cooldowns of %" PRId64 " ms .. %" PRId64 " s, %d%% effects of %" PRId64 " s .. %"
           PRId64 " min; N/%d actions a ms,\n"
           "           each a reschedule of a random timer (pending or fired) to now + its delay; pop every ms;\n"
           "           %" PRId64 " s of play; expiries within it, checked against the contract:",
           GAME_COOLDOWN_MIN, GAME_COOLDOWN_MAX / 1000, GAME_EFFECT_PERCENT, GAME_EFFECT_MIN / 1000,
           GAME_EFFECT_MAX / 60000, GAME_ACTION_DIVISOR, GAME_TICKS / 1000);
    for (set = 0; set < nsets; set++)
        printf("%s %zu at %s", set ? "," : "", wls[set].gw.expire[0], short_n(wls[set].gw.conns, a, sizeof a));
    printf("\n");
    printf("  Cells as in 1; x floor = ratio to the floor insert at the workload's N (median ns:");
    for (i = 0; i < nrecs; i++) {
        int used = 0;
        if (strcmp(recs[i].workload, "ordered") || strcmp(recs[i].kind, "floor") || strcmp(recs[i].op, "insert"))
            continue;
        for (set = 0; set < nsets; set++)
            for (w = 0; w < NWL; w++)
                used |= wl_n(&wls[set], w) == recs[i].n;
        if (used)
            printf(" %.2f at %s", stats_of(recs[i].ns, recs[i].count).median, short_n(recs[i].n, b, sizeof b));
    }
    printf(").\n"
           "  idle, idle-range, request, game: each tick's ops of one kind are timed as a batch of their own\n"
           "  (one message a tick at N 1000: less the clock's cost, a difference); pop = ns per item popped\n"
           "  (every tick's pop call, most of which find nothing, / items popped), pop_call = ns per pop call.\n\n");
    printf("%-10s %8s %-11s", "workload", "N", "op");
    for (k = 0; k < MAX_KINDS; k++)
        printf("  %-*s", CELL_W, kinds[k]->name);
    printf("\n%31s", "");
    print_cell_heads(MAX_KINDS);
    printf("\n");
    for (w = 0; w < NWL; w++) {
        for (set = 0; set < nsets; set++) {
            size_t n = wl_n(&wls[set], w);
            /* ops in the order the driver recorded them; total is the verdict's */
            for (i = 0; i < nrecs; i++) {
                int first = 1;
                if (strcmp(recs[i].workload, wl_names[w]) || recs[i].n != n ||
                    strcmp(recs[i].kind, kinds[0]->name) || !strcmp(recs[i].op, "total"))
                    continue;
                for (j = 0; j < i; j++)
                    if (!strcmp(recs[j].workload, wl_names[w]) && recs[j].n == n &&
                        !strcmp(recs[j].kind, kinds[0]->name) && !strcmp(recs[j].op, recs[i].op))
                        first = 0;
                if (!first)
                    continue;
                printf("%-10s %8zu %-11s", wl_names[w], n, recs[i].op);
                for (k = 0; k < MAX_KINDS; k++)
                    print_cell(rec_find(wl_names[w], kinds[k]->name, n, recs[i].op));
                printf("\n");
            }
        }
        if (w + 1 < NWL)
            printf("\n");
    }
}

/* ---- verdict ------------------------------------------------------------- */

/* One kind's score over a group of sizes of one workload, per sample:
 * the geometric mean of its totals (ns per timer) over the sizes, so that
 * each size weighs the same. Sample i of every figure of one size class ran
 * in the same pass, so a score per sample is meaningful. Returns 0 when a
 * figure is missing or below the noise. */
static int kind_scores(const char *wl, const char *kind, const size_t *ns, int nn, const char *op,
                       double *score, int *count)
{
    int i, r;
    *count = MAX_SAMPLES;
    for (r = 0; r < MAX_SAMPLES; r++)
        score[r] = 0;
    for (i = 0; i < nn; i++) {
        const struct rec *rc = rec_find(wl, kind, ns[i], op);
        if (rc == NULL || rc->count == 0 || rec_resolved(rc) != rec_resolved(rc))
            return 0;
        if (rc->count < *count)
            *count = rc->count;
        for (r = 0; r < rc->count; r++) {
            if (rc->ns[r] <= 0)
                return 0;
            score[r] += log(rc->ns[r]) / nn;
        }
    }
    for (r = 0; r < *count; r++)
        score[r] = exp(score[r]);
    return 1;
}

/* Geometric mean over the sizes of the medians of one op; NAN if unresolved. */
static double op_median(const char *wl, const char *kind, const size_t *ns, int nn, const char *op)
{
    double sum = 0;
    int i;
    for (i = 0; i < nn; i++) {
        double m = rec_resolved(rec_find(wl, kind, ns[i], op));
        if (!(m > 0))
            return NAN;
        sum += log(m) / nn;
    }
    return exp(sum);
}

/* Whether the samples of a kind (other) resolve it as slower than the
 * fastest kind (best) by a margin worth choosing by; see WIN_RATIO. */
static int lead_resolved(const struct stats *best, const struct stats *other)
{
    return other->median >= WIN_RATIO * best->median &&
           other->median - best->median > 2 * (best->spread + other->spread);
}

/* One line: the fastest kind by total and by how much it leads the next, or
 * "no clear winner" and the kinds its lead over is not resolved; and the
 * kind to avoid, with the op where it loses most. */
static void verdict_line(const char *label, const char *wl, const size_t *ns, int nn)
{
    double score[MAX_KINDS][MAX_SAMPLES];
    struct stats st[MAX_KINDS];
    int order[MAX_KINDS], count, k, i, j, worst_tied;
    const struct kind *best, *next, *worst;
    const char *worst_op = NULL;
    double worst_op_ratio = 0, lead, ratio;
    size_t r;

    printf("  %-24s ", label);
    for (k = 0; k < MAX_KINDS; k++) {
        if (!kind_scores(wl, kinds[k]->name, ns, nn, "total", score[k], &count)) {
            printf("not resolved in this run (a total is missing or below the noise)\n");
            return;
        }
        st[k] = stats_of(score[k], count);
        order[k] = k;
    }
    for (i = 1; i < MAX_KINDS; i++)           /* insertion sort by median score */
        for (j = i; j > 0 && st[order[j]].median < st[order[j - 1]].median; j--) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    best = kinds[order[0]];
    next = kinds[order[1]];
    worst = kinds[order[MAX_KINDS - 1]];
    lead = st[order[1]].median / st[order[0]].median;
    ratio = st[order[MAX_KINDS - 1]].median / st[order[0]].median;
    worst_tied = !lead_resolved(&st[order[0]], &st[order[MAX_KINDS - 1]]);
    if (lead_resolved(&st[order[0]], &st[order[1]])) {
        printf("%s (%.1f ns/timer), %.2fx faster than %s", best->name, st[order[0]].median, lead, next->name);
    } else {
        printf("no clear winner: %s (%.1f ns/timer)", best->name, st[order[0]].median);
        for (k = 1; k < MAX_KINDS; k++)
            if (!lead_resolved(&st[order[0]], &st[order[k]]))
                printf(", %s %.2fx", kinds[order[k]]->name, st[order[k]].median / st[order[0]].median);
    }
    if (worst_tied) {
        printf("; none to avoid\n");
        return;
    }
    if (ratio < AVOID_RATIO) {
        printf("; %s only %.2fx slower: none to avoid\n", worst->name, ratio);
        return;
    }
    /* the op of that workload where the worst kind loses most to the best */
    for (r = 0; r < nrecs; r++) {
        double a, b;
        if (strcmp(recs[r].workload, wl) || strcmp(recs[r].kind, worst->name) || recs[r].n != ns[0] ||
            !strcmp(recs[r].op, "total") || !strcmp(recs[r].op, "min_time"))
            continue;
        a = op_median(wl, worst->name, ns, nn, recs[r].op);
        b = op_median(wl, best->name, ns, nn, recs[r].op);
        if (a / b > worst_op_ratio) {
            worst_op_ratio = a / b;
            worst_op = recs[r].op;
        }
    }
    printf("; avoid %s: %.1fx slower", worst->name, ratio);
    if (worst_op != NULL && worst_op_ratio > ratio)
        printf(" (its %s %.0fx)", worst_op, worst_op_ratio);
    printf("\n");
}

static void print_verdict(const struct config *cfg, const struct workloads *wls, int nsets)
{
    size_t ns[MAX_SIZES];
    int s, w, set, k, cls;
    char label[96], a[24];

    printf("\n== 3. Verdict, from this run's medians ==\n"
           "  Basis: total = every timed operation of one run of the workload / its N timers, in ns per timer\n"
           "  (each timer: its insert, then its remove or pop). ordered: insert + remove + pop (min_time left\n"
           "  out); random: insert + pop; mixed: insert + remove + pop; idle, idle-range, request: the whole\n"
           "  tick loop (reschedules or inserts and removes, and the pop call of every tick) timed in one\n"
           "  batch, in rounds of their own; idle and idle-range are per connection, over its ~20\n"
           "  reschedules (or reschedule_range calls) in 20 s.\n"
           "  A size class of the ordered protocol (small: N < %d) scores the geometric mean over its sizes.\n"
           "  The fastest is named when the runner-up's median is %.2fx its own or more and the two lie\n"
           "  further apart than twice their spreads added (spread: the median distance of a kind's samples\n"
           "  from its median); else 'no clear winner', with the kinds not resolved slower and their ratios.\n"
           "  'avoid' when the slowest total is %.1fx the fastest or more; 'its op' = where it loses most.\n\n",
           SMALL_BELOW, WIN_RATIO, AVOID_RATIO);
    printf("%-10s %8s", "total", "N");
    for (k = 0; k < MAX_KINDS; k++)
        printf("  %15s", kinds[k]->name);
    printf("\n%19s", "");
    for (k = 0; k < MAX_KINDS; k++)
        printf("  %15s", "ns/timer range");
    printf("\n");
    for (w = -1; w < NWL; w++) {
        int count = w < 0 ? cfg->nsizes : nsets;
        for (s = 0; s < count; s++) {
            const char *wl = w < 0 ? "ordered" : wl_names[w];
            size_t n = w < 0 ? cfg->sizes[s] : wl_n(&wls[s], w);
            printf("%-10s %8zu", wl, n);
            for (k = 0; k < MAX_KINDS; k++) {
                const struct rec *r = rec_find(wl, kinds[k]->name, n, "total");
                char med[32];
                if (r == NULL || r->count == 0) {
                    printf("  %15s", "-");
                    continue;
                }
                {
                    struct stats st = stats_of(r->ns, r->count);
                    printf("  %8s %6.1f", fmt_median(r, med, sizeof med), st.max - st.min);
                }
            }
            printf("\n");
        }
    }
    printf("\n");
    for (cls = 0; cls < 2; cls++) {
        int nn = 0, len;
        for (s = 0; s < cfg->nsizes; s++)
            if ((cfg->sizes[s] < SMALL_BELOW) == (cls == 0))
                ns[nn++] = cfg->sizes[s];
        if (nn == 0)
            continue;
        len = snprintf(label, sizeof label, "ordered %s, N", cls == 0 ? "small" : "large");
        for (s = 0; s < nn && len < (int)sizeof label - 16; s++)
            len += snprintf(label + len, sizeof label - (size_t)len, "%s%s", s ? "," : " ",
                            short_n(ns[s], a, sizeof a));
        snprintf(label + len, sizeof label - (size_t)len, ":");
        verdict_line(label, "ordered", ns, nn);
    }
    for (w = 0; w < NWL; w++)
        for (set = 0; set < nsets; set++) {
            size_t n = wl_n(&wls[set], w);
            snprintf(label, sizeof label, "%s, N %s:", wl_names[w], short_n(n, a, sizeof a));
            verdict_line(label, wl_names[w], &n, 1);
        }
}

static void print_notes(void)
{
    printf("\nNotes\n"
           "  <x  below the noise: too small for this run to resolve, not a cost. A median is shown only\n"
           "      when it exceeds its noise x. For a difference (min_time: two timed loops subtracted;\n"
           "      idle, idle-range and request per op: per-tick batches of a few ops, less the clock\n"
           "      pair's mean cost) x is twice the median distance of its samples from their median:\n"
           "      shown, it is a figure most samples agree on to better than half its size (one slow\n"
           "      repetition does not hide it, as their range would). For every figure x is at least\n"
           "      0.05 ns (the printed resolution) and at least the size of a negative median (nothing\n"
           "      costs less than zero: that much is noise).\n"
           "  The machine may be shared and noisy: compare kinds within one run, not across runs.\n"
           "  Per-call latency (p50/p99/p99.9/max of next_expiry, pop, insert at 1M timers, in event\n"
           "  loops that run, stall and catch up): make bench-latency (about 2 minutes).\n");
}

static void usage(void)
{
    fprintf(stderr,
            "usage: timer_bench [--sizes N,N,...] [--reps R] [--wn N] [--conns N] [--small N] [--seed S]\n"
            "                   [--csv PATH]\n"
            "  --sizes  ordered-insert protocol sizes (default 1000,10000,1000000,10000000)\n"
            "  --reps   repetitions; median and spread are over them (default 3; N < %d runs %d\n"
            "           times in each)\n"
            "  --wn     items in the large random, request and mixed workloads (default 1000000)\n"
            "  --conns  connections in the large idle workload (default 100000)\n"
            "  --small  items and connections in the small workloads (default 1000; 0: none)\n"
            "  --seed   RNG seed of the workloads (default 1)\n"
            "  --csv    where to write the CSV (default results.csv; '-' for none)\n",
            SMALL_BELOW, SMALL_PASSES);
    exit(2);
}

int main(int argc, char **argv)
{
    struct config cfg;
    struct workloads wls[2];
    size_t maxn, item_bytes = sizeof(struct floor_node);
    size_t kind_item_bytes[MAX_KINDS];
    int i, nsets = 0;

    parse_args(&cfg, argc, argv, "1000,10000,1000000,10000000", 3, 1000, "results.csv", usage);

    bench_clock_cost = clock_cost();
    print_header(&cfg);
    fflush(stdout);

    /* workloads are generated once, before any timing; the large set first,
     * so that it is the same as make bench-peers draws from the same seed */
    rng_state = cfg.seed;
    workloads_make(&wls[1], cfg.wn, cfg.conns);
    if (cfg.small != 0) {
        workloads_make(&wls[0], cfg.small, cfg.small);
        nsets = 2;
    } else {
        wls[0] = wls[1];
        nsets = 1;
    }

    maxn = cfg.wn > cfg.conns ? cfg.wn : cfg.conns;
    if (cfg.small > maxn)
        maxn = cfg.small;
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

    run(&cfg, wls, nsets);

    print_ordered_table(&cfg);
    print_workload_table(wls, nsets);
    print_verdict(&cfg, wls, nsets);
    print_notes();
    if (strcmp(cfg.csv, "-") != 0) {
        write_csv(cfg.csv);
        printf("\nCSV: %s (every figure with min, max, reps; noise_ns and below_noise for differences)\n",
               cfg.csv);
    }
    for (i = 0; i < nsets; i++)
        workloads_free(&wls[i]);
    free(bench_arena);
    free(recs);
    return 0;
}
