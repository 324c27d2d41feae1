/* behind.c - items inserted at or behind the clock (issue 26 item 4): what
 * each container (set, heap, wheel) costs an item, insert and its share of
 * the one pop that hands them all out, in five patterns (bench_common.h,
 * BEHIND_*): random expiries behind the clock; the same after a pop that
 * drained the container; after a next_expiry with one far item pending, and
 * with 16, which a wheel opens by moving its clock just before them; a zigzag.
 *
 *   ./timer_behind [--sizes 10000,1000000] [--reps 7] [--seed S]
 *
 * The patterns are written once over the shared API (bench_kind.h, under
 * KIND_BEHIND). Each run starts from a freshly initialised container and is
 * timed by the thread's CPU clock, as the issue timed it: on a shared
 * machine another process taking the CPU then does not count (its use of
 * the caches does). Kinds take turns within each repetition, in an order
 * rotated from one repetition to the next, on the same expiries; a figure is
 * the median over the repetitions.
 *
 * It measures and reports; it never asserts a time. It does check results
 * (every pop hands out exactly the n items, in non-decreasing expiry) and
 * exits non-zero when one is wrong.
 */
#define _POSIX_C_SOURCE 200809L

/* bench_common.h serves bench.c's report too; this program uses its arena,
 * RNG, kinds and options */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "bench_common.h"
#pragma GCC diagnostic pop
#include "bench_ours.h"

#define MAX_KINDS 3

static const struct kind *const kinds[MAX_KINDS] = { &kset_kind, &kheap_kind, &kwheel_kind };
static const char *const pattern_names[BEHIND_NPATTERNS] = {
    "random", "after drain", "after next_expiry", "next_expiry, 16 far", "zigzag"
};

/* The expiries of pattern p's n items, in insertion order. */
static void behind_when(int p, size_t n, int64_t *when)
{
    size_t i;
    for (i = 0; i < n; i++) {
        if (p == BEHIND_RANDOM)
            when[i] = (int64_t)rng_below((uint64_t)BEHIND_CLOCK);
        else if (p == BEHIND_ZIGZAG)    /* 0, n, 1, n - 1, ...: each end in turn */
            when[i] = (int64_t)(i % 2 ? n - i / 2 : i / 2);
        else
            when[i] = (int64_t)rng_below((uint64_t)BEHIND_SPAN);
    }
}

/* The cost of one thread-CPU clock pair: each run's time includes one. */
static double thread_clock_cost(void)
{
    double v[1001];
    size_t i;
    for (i = 0; i < 1001; i++) {
        double t0 = bench_thread_now();
        v[i] = bench_thread_now() - t0;
    }
    return median_of(v, 1001);
}

static void print_load(void)
{
    char line[128] = "?";
    FILE *f = fopen("/proc/loadavg", "r");
    if (f != NULL) {
        if (fgets(line, sizeof line, f) == NULL)
            snprintf(line, sizeof line, "?");
        fclose(f);
    }
    printf("  load average at start (/proc/loadavg): %s", line);
    if (strchr(line, '\n') == NULL)
        putchar('\n');
}

static void print_header(const struct config *cfg)
{
    char machine[640], date[32];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M", localtime(&now));
    machine_desc(machine, sizeof machine);
    printf("Items inserted at or behind the clock, then one pop (set, heap, wheel), %s\n", date);
    printf("  %s | RNG seed %" PRIu64 "\n", machine, cfg->seed);
    print_load();
    printf("  ns per item: thread CPU time (CLOCK_THREAD_CPUTIME_ID; a pair costs %.0f ns\n"
           "  here) of n inserts and of the pop that hands all n out, divided by n; each run\n"
           "  on a freshly initialised container (the heap's array reserved and written first,\n"
           "  untimed); the median of %d repetitions, kinds in turn on the same expiries.\n",
           thread_clock_cost(), cfg->reps);
    printf("    random               init(2^40), expiries at random in [0, 2^40), pop(2^40)\n"
           "    after drain          init(0), one item at 2^40 popped at TIMER_NEVER, then\n"
           "                         expiries at random in [0, 2^30), pop(2^30)\n"
           "    after next_expiry    init(0), one item at 2^40 and next_expiry, then as after\n"
           "                         drain; the item at 2^40 stays pending\n"
           "    next_expiry, 16 far  the same with 16 items at 2^40: a wheel searches a far\n"
           "                         slot of up to 8 items and opens a bigger one, moving its\n"
           "                         clock to just before it (only then are the n behind it)\n"
           "    zigzag               init(2^40), expiries 0, n, 1, n-1, 2, ..., pop(2^40)\n"
           "  every pop is checked: exactly the n items, in non-decreasing expiry\n\n");
    printf("%-28s %-35s %s\n", "", "insert + pop", "insert alone");
    printf("%-19s %8s %7s %7s %7s %10s %7s %7s %7s %10s\n", "pattern", "n",
           "set", "heap", "wheel", "wheel/heap", "set", "heap", "wheel", "wheel/heap");
}

/* Every repetition of every pattern at n, then its rows. */
static void run_size(const struct config *cfg, size_t n, int64_t *when)
{
    static double total[BEHIND_NPATTERNS][MAX_KINDS][MAX_REPS];
    static double ins[BEHIND_NPATTERNS][MAX_KINDS][MAX_REPS];
    double t[MAX_KINDS], in[MAX_KINDS], ns[2];
    int rep, p, j, k;

    for (rep = 0; rep < cfg->reps; rep++)
        for (p = 0; p < BEHIND_NPATTERNS; p++) {
            behind_when(p, n, when);
            for (j = 0; j < MAX_KINDS; j++) {
                k = (j + rep) % MAX_KINDS;
                kinds[k]->behind(p, when, n, ns);
                ins[p][k][rep] = ns[0] / (double)n;
                total[p][k][rep] = (ns[0] + ns[1]) / (double)n;
            }
        }
    for (p = 0; p < BEHIND_NPATTERNS; p++) {
        for (k = 0; k < MAX_KINDS; k++) {
            t[k] = median_of(total[p][k], (size_t)cfg->reps);
            in[k] = median_of(ins[p][k], (size_t)cfg->reps);
        }
        printf("%-19s %8zu %7.1f %7.1f %7.1f %9.1fx %7.1f %7.1f %7.1f %9.1fx\n", pattern_names[p],
               n, t[0], t[1], t[2], t[2] / t[1], in[0], in[1], in[2], in[2] / in[1]);
    }
    fflush(stdout);
}

static void usage(void)
{
    fprintf(stderr,
            "usage: timer_behind [--sizes 10000,1000000] [--reps 7] [--seed S]\n"
            "  --sizes  items per run (default 10000 1000000)\n"
            "  --reps   repetitions; a figure is their median (default 7, at most %d)\n"
            "  --seed   RNG seed (default 1)\n", MAX_REPS);
    exit(2);
}

static void parse(struct config *cfg, int argc, char **argv)
{
    int i;
    memset(cfg, 0, sizeof *cfg);
    parse_sizes(cfg, "10000 1000000");
    cfg->reps = 7;
    cfg->seed = 1;
    for (i = 1; i < argc; i += 2) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (v == NULL)
            usage();
        if (!strcmp(a, "--sizes"))
            parse_sizes(cfg, v);
        else if (!strcmp(a, "--reps"))
            cfg->reps = atoi(v);
        else if (!strcmp(a, "--seed"))
            cfg->seed = strtoull(v, NULL, 0);
        else
            usage();
    }
    if (cfg->reps < 1 || cfg->reps > MAX_REPS)
        bench_fail("--reps must be 1..%d", MAX_REPS);
}

int main(int argc, char **argv)
{
    struct config cfg;
    size_t item_bytes = sizeof(struct kset_item), most = 0;
    int64_t *when;
    int s;

    parse(&cfg, argc, argv);
    rng_state = cfg.seed;
    for (s = 0; s < cfg.nsizes; s++)
        if (cfg.sizes[s] > most)
            most = cfg.sizes[s];
    if (sizeof(struct kheap_item) > item_bytes)
        item_bytes = sizeof(struct kheap_item);
    if (sizeof(struct kwheel_item) > item_bytes)
        item_bytes = sizeof(struct kwheel_item);
    bench_arena_bytes = (most + BEHIND_FAR_MANY) * item_bytes;    /* + the far items */
    bench_arena = xmalloc(bench_arena_bytes);
    memset(bench_arena, 1, bench_arena_bytes);     /* fault every page in now */
    when = (int64_t *)xmalloc(most * sizeof *when);
    print_header(&cfg);
    for (s = 0; s < cfg.nsizes; s++)
        run_size(&cfg, cfg.sizes[s], when);
    printf("\nA benchmark measures and reports; compare kinds within one run "
           "(the machine may be shared).\n");
    free(when);
    free(bench_arena);
    return 0;
}
