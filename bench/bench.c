/* bench.c - benchmark of the three timer containers (set, heap, wheel).
 *
 * One driver (bench_kind.h) is included once per kind (bench_ours.h);
 * bench_common.h holds what all kinds and benchmark programs share: options,
 * the clock, precomputed workloads, the floor (the cheapest conceivable
 * intrusive link/unlink), medians and the CSV. This file runs the repetitions
 * and prints the report (a table on stdout, one CSV row per kind/workload/N/op).
 *
 *   ./timer_bench [--sizes 10000,1000000,10000000] [--reps 5] [--wn 1000000]
 *                 [--conns 100000] [--seed S] [--csv results.csv]
 *
 * It measures and reports; it never asserts a time. It does check results
 * (exactly the right items come out) and exits non-zero when one is wrong.
 */
#define _POSIX_C_SOURCE 200809L

#include "bench_common.h"
#include "bench_ours.h"

#define MAX_KINDS 3

static const struct kind *const kinds[MAX_KINDS] = { &kset_kind, &kheap_kind, &kwheel_kind };

/* ---- the run ---------------------------------------------------------------- */

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
                struct wl_result r;
                size_t owned;
                r.nops = 0;
                k->ordered(n, &r, &owned);
                record_wl("ordered", k, n, &r, fl);
                if (recording)
                    rec_get("ordered", k->name, n, "insert")->owned_kb = (double)owned / 1024.0;
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

static void print_ordered_table(const struct config *cfg)
{
    static const char *const ops[] = { "insert", "remove", "pop", "min_time" };
    const char *names[MAX_KINDS + 1];
    int s, k, o;

    names[0] = "floor";
    for (k = 0; k < MAX_KINDS; k++)
        names[k + 1] = kinds[k]->name;
    printf("\nOrdered-insert protocol: insert N at base + i*97, remove the first half, pop each at its expiry;\n"
           "min_time = (min_time + pop loop) - (pop loop), both over a freshly re-inserted second half.\n"
           "Cell: median ns/op; median of (ns / floor insert ns at the same N, same repetition);\n"
           "range = max - min ns/op over the repetitions. <x: below the noise x, too small for this\n"
           "run to resolve: a difference (min_time; idle, request per op) shows only when its median\n"
           "exceeds its range, and no figure below 0.05 ns or a negative median's size.\n\n");
    printf("%-6s %10s", "kind", "N");
    for (o = 0; o < 4; o++)
        printf("  %-*s", CELL_W, ops[o]);
    printf(" %10s %7s\n%17s", "mem KB", "node B", "");
    print_cell_heads(4);
    printf("\n");
    for (s = 0; s < cfg->nsizes; s++) {
        for (k = 0; k <= MAX_KINDS; k++) {
            struct rec *ins = rec_find("ordered", names[k], cfg->sizes[s], "insert");
            printf("%-6s %10zu", names[k], cfg->sizes[s]);
            for (o = 0; o < 4; o++)
                print_cell(rec_find("ordered", names[k], cfg->sizes[s], ops[o]));
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
                const struct rec *f = rec_find("ordered", "floor", recs[i].n, "insert");
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

static void usage(void)
{
    fprintf(stderr,
            "usage: timer_bench [--sizes N,N,...] [--reps R] [--wn N] [--conns N] [--seed S] [--csv PATH]\n"
            "  --sizes  ordered-insert protocol sizes (default 10000,1000000,10000000)\n"
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

    parse_args(&cfg, argc, argv, "10000,1000000,10000000", "results.csv", usage);

    bench_clock_cost = clock_cost();

    cpu_model(cpu, sizeof cpu);
    snprintf(cc, sizeof cc, "%s", compiler());
    for (i = (int)strlen(cc); i > 0 && cc[i - 1] == ' '; i--)
        cc[i - 1] = '\0';              /* clang's version string ends in a space */
    printf("Timer container benchmark | %s | flags: %s | CPU: %s\n", cc, BENCH_CFLAGS, cpu);
    printf("reps %d + 1 warm-up (median, range = max-min) | RNG seed %" PRIu64
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

    print_ordered_table(&cfg);
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
