/* soak.c - tens of millions of timers through random operations, for one kind.
 *
 *     soak [SEED [TIMERS [POOL [SECONDS]]]]
 *          defaults: a fresh seed (printed), rounds of 10000000 timers, a pool
 *          of 1000000 items, 20 s; an empty argument means the default.
 *
 * Compiled once per kind (see tk.h). A pool of POOL items goes through a
 * server-like mix: arm idle items (insert), cancel or push back pending ones
 * (remove, reschedule), pop as time advances by small steps, big jumps, and
 * steps back, and drain the result list with callbacks that re-arm their own
 * timer or cancel others, due ones still in the list included. A "timer" is
 * one arming (a successful insert, or a reschedule, which ends the arming it
 * replaces). Rounds of TIMERS timers run until SECONDS have passed, two at
 * least; then pop(INT64_MAX) delivers the rest. The time is bounded: no
 * round starts after SECONDS, and a round still running SECONDS + 300 s
 * after the start fails (only a pathologically slow container gets there).
 *
 * What is checked. This is not a second reference model (the O(n) model in
 * harness.h cannot hold a million items): it is a ledger. Each item's state
 * (idle, pending, due) follows from the calls' results, and
 * - every item a pop appends must be pending with expire <= now, and is
 *   delivered at most once (then due; idle when drained);
 * - after pop(now) nothing with expire <= now is left: min_time() > now
 *   (min_time is never later than the earliest expiry; harness tests check
 *   that bound), so no timer is lost;
 * - size() matches the pending count after every pop, check() passes at the
 *   end of each round, and at the very end every arming ended exactly once:
 *       armed == delivered + removed + replaced, nothing pending or due;
 * - memory: the process's peak RSS after the last round exceeds that after
 *   round 1 by at most what the heap's array grew by (a later round may set
 *   a new peak count) plus 1 MiB: the same load needs no more memory; the
 *   heap's array never exceeds twice its peak item count (64 at least), and
 *   destroy frees it (the test allocator counts live blocks).
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, stat, opendir under -std=c99 */
#include "harness.h"

#include <sys/resource.h>
#include <time.h>

enum { SK_IDLE, SK_PENDING, SK_DUE };

static titem *sk_pool;
static unsigned char *sk_state;
static size_t sk_pool_n;
static tc sk_c;
static struct tlist sk_out;
static int64_t sk_now;   /* the clock the pops have reached */
static size_t sk_pending, sk_due, sk_peak_count;
static size_t sk_peak_array_bytes; /* the heap's array at its largest */
static struct {
    uint64_t armed, delivered, removed, replaced;
    uint64_t pops, backward_pops, jumps, busy, callbacks;
} sk;

static double sk_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long sk_maxrss_kib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

static int64_t sk_add(int64_t t, int64_t d)
{
    return t > INT64_MAX - d ? INT64_MAX : t + d;
}

/* An expiry: mostly a timeout of up to 2^16 ticks, some much longer, a few
 * overdue, a few at the end of time. */
static int64_t sk_expire(void)
{
    uint64_t r = th_below(100);
    if (r < 60)
        return sk_add(sk_now, 1 + (int64_t)th_below(1 << 16));
    if (r < 85)
        return sk_add(sk_now, 1 + (int64_t)th_below(1 << 24));
    if (r < 95)
        return sk_add(sk_now, (int64_t)th_below(UINT64_C(1) << 40));
    if (r < 98)
        return sk_now - (int64_t)th_below((uint64_t)sk_now + 1); /* overdue, down to 0 */
    return INT64_MAX - (int64_t)th_below(1 << 12);
}

static void sk_track_peak(void)
{
    if (sk_pending > sk_peak_count)
        sk_peak_count = sk_pending;
}

/* The ledger's side of a successful insert or reschedule of item i. */
static void sk_armed(size_t i)
{
    if (sk_state[i] == SK_PENDING) {
        sk.replaced++;
        sk_pending--;
    } else if (sk_state[i] == SK_DUE) {
        sk.replaced++;
        sk_due--;
    }
    sk_state[i] = SK_PENDING;
    sk_pending++;
    sk.armed++;
    sk_track_peak();
}

static void sk_insert(size_t i)
{
    int rc = tc_insert(&sk_c, sk_expire(), &sk_pool[i]);
    if (sk_state[i] != SK_IDLE) {
        TH_EXPECT(rc == -EBUSY, "insert of a busy item returned %d, want -EBUSY", rc);
        sk.busy++;
        return;
    }
    TH_EXPECT(rc == 0, "insert of an idle item returned %d", rc);
    if (rc == 0)
        sk_armed(i);
}

static void sk_reschedule(size_t i, int64_t expire)
{
    int rc = tc_reschedule(&sk_c, expire, &sk_pool[i]);
    TH_EXPECT(rc == 0, "reschedule returned %d", rc);
    if (rc == 0)
        sk_armed(i);
}

static void sk_remove(size_t i)
{
    bool got = tc_remove(&sk_c, &sk_pool[i]);
    TH_EXPECT(got == (sk_state[i] != SK_IDLE), "remove of an item in state %d returned %d", sk_state[i], (int)got);
    if (!got)
        return;
    if (sk_state[i] == SK_PENDING)
        sk_pending--;
    else
        sk_due--;
    sk_state[i] = SK_IDLE;
    sk.removed++;
}

/* pop(now): every appended item was pending and is due by now; nothing due is left. */
static void sk_pop(int64_t now)
{
    struct tlist *last = sk_out.prev, *link;
    size_t got, k = 0;
    int64_t m;

    th_note_t("pop", -1, now);
    got = tc_pop(&sk_c, now, &sk_out);
    for (link = last->next; link != &sk_out; link = link->next, k++) {
        titem *it = tc_entry(link);
        size_t i = (size_t)(it - sk_pool);
        TH_EXPECT(i < sk_pool_n, "pop appended a link that is not one of the pool's items");
        if (i >= sk_pool_n)
            exit(1);
        TH_EXPECT(sk_state[i] == SK_PENDING, "pop(%" PRId64 ") delivered item %zu, which is %s", now, i,
                  sk_state[i] == SK_DUE ? "due already" : "idle");
        TH_EXPECT(tc_expire(it) <= now, "pop(%" PRId64 ") delivered item %zu early: expire %" PRId64, now, i,
                  tc_expire(it));
        sk_state[i] = SK_DUE;
    }
    TH_EXPECT(got == k, "pop(%" PRId64 ") returned %zu but appended %zu items", now, got, k);
    sk_pending -= k;
    sk_due += k;
    m = tc_min_time(&sk_c);
    TH_EXPECT(m > now || (now == INT64_MAX && tc_empty(&sk_c)),
              "pop(%" PRId64 ") left an item behind: min_time() = %" PRId64 " afterwards", now, m);
    TH_EXPECT(tc_size(&sk_c) == sk_pending, "size() = %zu, the ledger counts %zu pending", tc_size(&sk_c), sk_pending);
    if (now > sk_now)
        sk_now = now;
    sk.pops++;
}

/* Take up to n items off the result list; each one's callback may re-arm
 * it or cancel another item (pending, or due and still in the list). */
static void sk_drain(size_t n)
{
    struct tlist *link;

    th_note("drain", -1);
    while (n-- > 0 && (link = tlist_pop_front(&sk_out)) != NULL) {
        titem *it = tc_entry(link);
        size_t i = (size_t)(it - sk_pool);
        TH_EXPECT(sk_state[i] == SK_DUE, "the result list held item %zu in state %d", i, sk_state[i]);
        sk_state[i] = SK_IDLE;
        sk_due--;
        sk.delivered++;
        switch (th_below(8)) {
        case 0: /* a periodic timer re-arms itself */
            sk.callbacks++;
            sk_reschedule(i, sk_expire());
            break;
        case 1: /* the callback cancels another timer */
            sk.callbacks++;
            sk_remove((size_t)th_below(sk_pool_n));
            break;
        default:
            break;
        }
    }
}

/* A pop time: mostly a small step, sometimes a jump, sometimes a step back. */
static int64_t sk_pop_time(void)
{
    uint64_t r = th_below(1000);
    if (r < 20) {
        sk.backward_pops++;
        return sk_now - (int64_t)th_below((uint64_t)sk_now + 1);
    }
    if (r < 22) {
        sk.jumps++;
        return sk_add(sk_now, (int64_t)th_below(UINT64_C(1) << 30));
    }
    return sk_add(sk_now, (int64_t)th_below(512));
}

static void sk_op(void)
{
    size_t i = (size_t)th_below(sk_pool_n);
    uint64_t r = th_below(100);

    if (r < 3) {
        sk_pop(sk_pop_time());
        sk_drain(th_below(4) ? (size_t)-1 : (size_t)th_below(64));
        return;
    }
    switch (sk_state[i]) {
    case SK_IDLE:
        sk_insert(i);
        break;
    case SK_PENDING:
        if (r < 40)
            sk_remove(i);
        else if (r < 95)
            sk_reschedule(i, th_below(2) ? sk_expire() : sk_add(tc_expire(&sk_pool[i]), (int64_t)th_below(64)));
        else
            sk_insert(i); /* -EBUSY */
        break;
    default:
        if (r < 50)
            sk_remove(i);
        else
            sk_reschedule(i, sk_expire());
        break;
    }
}

static void sk_check_memory(void)
{
#if defined(TK_HEAP)
    size_t cap = tc_ccore_(&sk_c)->cap, bound = 2 * sk_peak_count;
    if (cap * sizeof(struct timer_heap_entry) > sk_peak_array_bytes)
        sk_peak_array_bytes = cap * sizeof(struct timer_heap_entry);
    if (bound < TIMER_HEAP_MIN_CAP)
        bound = TIMER_HEAP_MIN_CAP;
    TH_EXPECT(cap <= bound, "the heap's array holds %zu entries, more than twice the peak of %zu items", cap,
              sk_peak_count);
    TH_EXPECT(tk_live_blocks() <= 1, "the heap owns %ld blocks", tk_live_blocks());
#endif
}

/* Run until `timers` more armings; fail if the hard limit passes first. */
static bool sk_round(int round, uint64_t timers, double hard_limit, double t0)
{
    uint64_t goal = sk.armed + timers, ops = 0;
    const char *why;

    while (sk.armed < goal) {
        th_ctx.step++; /* operations since the start, in failure lines */
        sk_op();
        if ((++ops & 4095) == 0) {
            sk_check_memory();
            if (sk_seconds() > hard_limit) {
                th_fail(__LINE__, "round %d did only %" PRIu64 " of %" PRIu64 " timers within the hard time limit", round,
                        timers - (goal - sk.armed), timers);
                return false;
            }
        }
    }
    why = tc_check(&sk_c);
    TH_EXPECT(why == NULL, "check() after round %d: %s", round, why ? why : "");
    TH_EXPECT(tc_size(&sk_c) == sk_pending, "size() = %zu, the ledger counts %zu pending", tc_size(&sk_c), sk_pending);
    sk_check_memory();
    printf("soak %s: round %d: %" PRIu64 " timers, %.1f s so far; %zu pending, %zu due; peak RSS %ld KiB\n", TK_KIND,
           round, timers, sk_seconds() - t0, sk_pending, sk_due, sk_maxrss_kib());
    fflush(stdout);
    return true;
}

static uint64_t sk_fresh_seed(void)
{
    uint64_t s = (uint64_t)time(NULL) ^ ((uint64_t)clock() << 32);
    s ^= (uint64_t)(uintptr_t)&s;
    th_rng = s;
    return th_rand();
}

static const char *sk_arg(int argc, char **argv, int i)
{
    return argc > i && *argv[i] ? argv[i] : NULL;
}

int main(int argc, char **argv)
{
    const char *a;
    uint64_t seed = (a = sk_arg(argc, argv, 1)) ? strtoull(a, NULL, 0) : sk_fresh_seed();
    uint64_t timers = (a = sk_arg(argc, argv, 2)) ? strtoull(a, NULL, 0) : 10000000;
    size_t i;
    double limit, t0, hard_limit;
    long rss1, rss2, array1, array2;
    int rounds;

    sk_pool_n = (a = sk_arg(argc, argv, 3)) ? (size_t)strtoull(a, NULL, 0) : 1000000;
    limit = (a = sk_arg(argc, argv, 4)) ? atof(a) : 20;
    if (sk_pool_n == 0)
        sk_pool_n = 1;
    printf("soak %s: seed %" PRIu64 ", rounds of %" PRIu64 " timers for %.0f s (2 at least), pool %zu (replay: %s %" PRIu64
           " %" PRIu64 " %zu %.0f)\n",
           TK_KIND, seed, timers, limit, sk_pool_n, argv[0], seed, timers, sk_pool_n, limit);
    fflush(stdout);
    th_rng = seed;
    th_ctx.test = "soak";
    th_ctx.random = true;
    th_ctx.stop = true;
    th_ctx.seed = seed;
    signal(SIGABRT, th_on_abort);

    sk_pool = (titem *)th_alloc(sk_pool_n, sizeof *sk_pool); /* zeroed: every node idle */
    sk_state = (unsigned char *)th_alloc(sk_pool_n, 1);
    for (i = 0; i < sk_pool_n; i++)
        sk_pool[i].id = (int)i;
    sk_now = (int64_t)th_below(UINT64_C(1) << 40);
    tc_init(&sk_c, sk_now);
    tlist_init(&sk_out);

    /* Rounds of `timers` timers until `limit` seconds have passed, two at
     * least (the second one's peak RSS is compared with the first's). */
    t0 = sk_seconds();
    hard_limit = t0 + limit + 300; /* only a pathologically slow container hits this */
    if (!sk_round(1, timers, hard_limit, t0))
        return 1;
    rss1 = sk_maxrss_kib();
    array1 = (long)(sk_peak_array_bytes / 1024);
    for (rounds = 2;; rounds++) {
        if (!sk_round(rounds, timers, hard_limit, t0))
            return 1;
        if (sk_seconds() - t0 >= limit)
            break;
    }
    rss2 = sk_maxrss_kib();
    array2 = (long)(sk_peak_array_bytes / 1024);

    /* The end: by INT64_MAX everything is due. Callbacks may re-arm items
     * while it drains, so repeat until nothing is left. */
    while (!tc_empty(&sk_c) || !tlist_empty(&sk_out)) {
        sk_pop(INT64_MAX);
        sk_drain((size_t)-1);
    }
    TH_EXPECT(sk_pending == 0 && sk_due == 0 && tc_empty(&sk_c) && tlist_empty(&sk_out),
              "at the end %zu pending, %zu due, size() = %zu", sk_pending, sk_due, tc_size(&sk_c));
    TH_EXPECT(sk.armed == sk.delivered + sk.removed + sk.replaced,
              "%" PRIu64 " armed != %" PRIu64 " delivered + %" PRIu64 " removed + %" PRIu64 " replaced", sk.armed,
              sk.delivered, sk.removed, sk.replaced);
    for (i = 0; i < sk_pool_n; i++)
        if (tc_pending(&sk_pool[i]) || sk_state[i] != SK_IDLE)
            th_fail(__LINE__, "item %zu is not idle at the end", i);
    /* The same load again: no growth beyond what the heap's array grew by
     * (it doubles when a later round sets a new peak count), 1 MiB of slack. */
    TH_EXPECT(rss2 <= rss1 + (array2 - array1) + 1024,
              "peak RSS grew from %ld KiB after round 1 to %ld KiB after round %d (the heap's array: %ld to %ld KiB)",
              rss1, rss2, rounds, array1, array2);
    tc_destroy(&sk_c);
    TH_EXPECT(tk_live_blocks() == 0, "destroy left %ld heap blocks", tk_live_blocks());

    printf("soak %s: %d rounds, %" PRIu64 " armed = %" PRIu64 " delivered + %" PRIu64 " removed + %" PRIu64
           " replaced; %" PRIu64 " pops (%" PRIu64 " backwards, %" PRIu64 " jumps), %" PRIu64 " callbacks, %" PRIu64
           " -EBUSY; peak %zu pending; peak RSS %ld KiB after round 1, %ld KiB after round %d"
#if defined(TK_HEAP)
           " (the heap's array at most %ld KiB)"
#endif
           "; %.1f s\n",
           TK_KIND, rounds, sk.armed, sk.delivered, sk.removed, sk.replaced, sk.pops, sk.backward_pops, sk.jumps,
           sk.callbacks, sk.busy, sk_peak_count, rss1, rss2, rounds,
#if defined(TK_HEAP)
           array2,
#endif
           sk_seconds() - t0);
    printf("soak %s: %s\n", TK_KIND, th_failures ? "FAILED" : "ok");
    free(sk_pool);
    free(sk_state);
    return th_failures != 0;
}
