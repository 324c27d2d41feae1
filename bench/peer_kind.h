/* peer_kind.h - the workloads of bench_kind.h, written once over a small
 * adapter to an event loop's public timer API, and included by peers.c once
 * per library whose clock is the real one (libev, libuv, libevent, DPDK's
 * rte_timer).
 *
 * Before each inclusion peers.c defines PEER (the adapter's prefix token),
 * PEER_NAME (as printed) and PEER_TIMER (the library's timer type), and the
 * adapter itself: struct PEER_ctx (a loop that watches one idle fd and holds
 * one far sentinel timer, so that every run polls the backend as a real
 * program's does), struct PEER_item (the library's timer first, then a
 * struct peer_mark), and these functions:
 *
 *   open(c) / close(c)         create the loop / destroy it (untimed)
 *   init(c, it) / fini(c, it)  prepare / release one timer (untimed)
 *   arm(c, it, ticks)          start an idle timer `ticks` from the loop's now, 1 tick = 1 s
 *   restart(c, it, ticks)      move a pending timer to `ticks` from the loop's now
 *   cancel(c, it)              stop a pending timer
 *   arm_due(c, it, ago, rank, nrank)
 *                              start an idle timer so that it is due at the run after
 *                              wait_due(c), with a key ordered as the workload orders it:
 *                              `ago` ticks before the loop's now where the library takes
 *                              a past key; else rank/nrank of a short window (libuv)
 *   wait_due(c)                make everything armed by arm_due due (untimed)
 *   fixed(c, ticks)            the workload arms and restarts with this one delay from now on
 *                              (a library with a structure for one shared delay may set it up)
 *   run(c)                     one non-blocking run of the loop
 *   pending(it)                the library's own "is this timer pending"
 *
 * How the workloads map onto a loop whose clock is the real one (the loop
 * cannot take the workload's tick):
 *   - insert / remove / reschedule are the library's start / stop / restart,
 *     in the workload's order, timed like bench_kind.h times ours;
 *   - ordered, random, mixed: every timer is armed with arm_due (its key in the
 *     past, in the workload's expiry order), so after the removals one run
 *     fires all that remain: pop = (that run - an empty run) / timers fired;
 *   - idle, request: timers are armed 1 tick = 1 s ahead of the loop's clock,
 *     and the loop runs once per tick (pop_call) firing nothing, because the
 *     benchmark's real time is far shorter than a tick; afterwards the timers
 *     the workload expires are re-armed due (untimed) and fired in one run
 *     with the rest still pending.
 * Every callback checks that its timer was expected to fire; every run's
 * count of fired timers is checked.
 *
 * With PEER_FIXED_ONLY defined, only the workloads with one shared delay
 * (idle, request) are generated; the others are NULL in the struct peer.
 */

#define P_(x) BENCH_CAT(PEER, BENCH_CAT(_, x))
#define ITEM struct P_(item)
#define CTX struct P_(ctx)

/* Items for n timers from the arena, each initialised (untimed). */
static ITEM *P_(items)(CTX *c, size_t n)
{
    ITEM *it = (ITEM *)bench_items(n * sizeof(ITEM));
    size_t i;
    for (i = 0; i < n; i++)
        P_(init)(c, &it[i]);
    return it;
}

/* Every timer must be idle by now; release them and the loop. */
static void P_(done)(CTX *c, ITEM *it, size_t n, const char *where)
{
    size_t i;
    for (i = 0; i < n; i++) {
        if (P_(pending)(&it[i]))
            bench_fail("%s: %s: timer %zu still pending at the end", PEER_NAME, where, i);
        P_(fini)(c, &it[i]);
    }
    P_(close)(c);
}

/* Mean cost of one run that fires nothing: the loop's fixed cost per run. */
static double P_(empty_run)(CTX *c)
{
    size_t before = peer_fired;
    double t0 = bench_now();
    int i;
    for (i = 0; i < PEER_EMPTY_RUNS; i++)
        P_(run)(c);
    t0 = (bench_now() - t0) / PEER_EMPTY_RUNS;
    if (peer_fired != before)
        bench_fail("%s: an empty run fired a timer", PEER_NAME);
    return t0;
}

/* One run over `expect` timers marked MARK_EXPECTED, all due: pop is the
 * run's time less an empty run's, per timer fired; run is the empty run. */
static void P_(fire)(CTX *c, size_t expect, const char *where, struct wl_result *r)
{
    double t0, ns, empty;
    P_(wait_due)(c);
    peer_fired = 0;
    t0 = bench_now();
    P_(run)(c);
    ns = bench_now() - t0;
    if (peer_fired != expect)
        bench_fail("%s: %s: the run fired %zu timers, expected %zu", PEER_NAME, where, peer_fired, expect);
    empty = P_(empty_run)(c);
    wl_put_diff(r, "pop", ns - empty, expect);
    wl_put(r, "run", empty, 1);
}

/* Re-arm the pending timers listed in `due` (sorted by the workload's
 * expiry) so that they are all due, in that order, and mark them. */
static void P_(rearm_due)(CTX *c, ITEM *it, const struct peer_due *due, size_t k)
{
    size_t j;
    for (j = 0; j < k; j++) {
        ITEM *x = &it[due[j].i];
        if (!P_(pending)(x))
            bench_fail("%s: timer %u should still be pending", PEER_NAME, (unsigned)due[j].i);
        P_(cancel)(c, x);
        P_(arm_due)(c, x, (int64_t)(k - j), j, k);
        x->mark.state = MARK_EXPECTED;
    }
}

#ifndef PEER_FIXED_ONLY
/* Ordered-insert protocol: arm N (expiries base + i*97, ascending), cancel
 * the first half, fire the rest in one run. */
static void P_(ordered)(size_t n, struct wl_result *r)
{
    CTX c;
    ITEM *it;
    size_t i, half = n / 2;
    double t0;

    P_(open)(&c);
    it = P_(items)(&c, n);
    t0 = bench_now();
    for (i = 0; i < n; i++)
        P_(arm_due)(&c, &it[i], ORDERED_WHEN(n - 1) - ORDERED_WHEN(i) + 1, i, n);
    wl_put(r, "insert", bench_now() - t0, n);
    t0 = bench_now();
    for (i = 0; i < half; i++)
        P_(cancel)(&c, &it[i]);
    wl_put(r, "remove", bench_now() - t0, half);
    for (i = 0; i < n; i++) {
        if (!P_(pending)(&it[i]) != (i < half))
            bench_fail("%s: ordered: timer %zu is %spending", PEER_NAME, i, i < half ? "" : "not ");
        it[i].mark.when = ORDERED_WHEN(i);
        it[i].mark.state = i < half ? MARK_IDLE : MARK_EXPECTED;
    }
    P_(fire)(&c, n - half, "ordered", r);
    P_(done)(&c, it, n, "ordered");
}

/* Random: arm N with expiries uniform over 2^24 ticks, fire all. */
static void P_(random)(const struct random_wl *w, struct wl_result *r)
{
    CTX c;
    ITEM *it;
    size_t i;
    double t0;

    P_(open)(&c);
    it = P_(items)(&c, w->n);
    t0 = bench_now();
    for (i = 0; i < w->n; i++)
        P_(arm_due)(&c, &it[i], w->horizon - w->when[i], peer_random_rank[i], w->n);
    wl_put(r, "insert", bench_now() - t0, w->n);
    for (i = 0; i < w->n; i++) {
        it[i].mark.when = w->when[i];
        it[i].mark.state = MARK_EXPECTED;
    }
    P_(fire)(&c, w->n, "random", r);
    P_(done)(&c, it, w->n, "random");
}

#endif /* PEER_FIXED_ONLY */

/* Idle connections: every message restarts its connection's timer; the loop
 * runs once per tick; then the timers the workload expires fire in one run
 * while the other connections' timers stay pending. */
static void P_(idle)(const struct idle_wl *w, struct wl_result *r)
{
    CTX c;
    ITEM *it;
    struct peer_due *due;
    size_t i, k = 0, msgs = 0;
    int64_t t;
    double t0, resched_ns = 0, run_ns = 0;

    P_(open)(&c);
    it = P_(items)(&c, w->conns);
    for (i = 0; i < w->conns; i++) {
        it[i].mark.when = w->first_when[i];
        P_(arm)(&c, &it[i], w->first_when[i]);
    }
    P_(fixed)(&c, w->timeout);
    for (t = 1; t <= w->ticks; t++) {
        const uint32_t *msg = w->msg + w->msg_at[t], *end = w->msg + w->msg_at[t + 1];
        msgs += (size_t)(end - msg);
        t0 = bench_now();
        for (; msg < end; msg++) {
            ITEM *x = &it[*msg];
            x->mark.when = t + w->timeout;
            P_(restart)(&c, x, w->timeout);
        }
        resched_ns += bench_since(t0);
        t0 = bench_now();
        P_(run)(&c);
        run_ns += bench_since(t0);
    }
    wl_put_diff(r, "reschedule", resched_ns, msgs);
    wl_put_diff(r, "pop_call", run_ns, (size_t)w->ticks);

    /* the workload expires every connection whose last expiry lies within the traffic */
    due = (struct peer_due *)xmalloc(w->conns * sizeof *due);
    for (i = 0; i < w->conns; i++)
        if (it[i].mark.when <= w->ticks) {
            due[k].when = it[i].mark.when;
            due[k++].i = (uint32_t)i;
        }
    if (k < w->silent)
        bench_fail("%s: idle: only %zu timers to expire, but %zu connections went silent", PEER_NAME, k, w->silent);
    peer_sort_due(due, k);
    P_(rearm_due)(&c, it, due, k);
    free(due);
    P_(fire)(&c, k, "idle", r);
    for (i = 0; i < w->conns; i++)
        if (it[i].mark.state != MARK_FIRED)
            P_(cancel)(&c, &it[i]);
    P_(done)(&c, it, w->conns, "idle");
}

/* Request timeouts: per_tick timers armed per tick, 95% cancelled before they
 * expire, the loop run once per tick; then the unanswered fire in one run. */
static void P_(request)(const struct request_wl *w, struct wl_result *r)
{
    CTX c;
    ITEM *it;
    struct peer_due *due;
    size_t i, next = 0, removed = 0, k = 0;
    int64_t t;
    double t0, ins_ns = 0, rem_ns = 0, run_ns = 0;

    P_(open)(&c);
    it = P_(items)(&c, w->n);
    P_(fixed)(&c, w->delay);
    for (t = 0; t <= w->ticks; t++) {
        size_t stop = next + w->per_tick < w->n ? next + w->per_tick : w->n;
        const uint32_t *id = w->resp + w->resp_at[t], *end = w->resp + w->resp_at[t + 1];
        t0 = bench_now();
        for (; next < stop; next++) {
            it[next].mark.when = t + w->delay;
            P_(arm)(&c, &it[next], w->delay);
        }
        ins_ns += bench_since(t0);
        removed += (size_t)(end - id);
        t0 = bench_now();
        for (; id < end; id++)
            P_(cancel)(&c, &it[*id]);
        rem_ns += bench_since(t0);
        t0 = bench_now();
        P_(run)(&c);
        run_ns += bench_since(t0);
    }
    wl_put_diff(r, "insert", ins_ns, w->n);
    wl_put_diff(r, "remove", rem_ns, removed);
    wl_put_diff(r, "pop_call", run_ns, (size_t)w->ticks + 1);

    /* the unanswered requests, in arrival (= expiry) order */
    due = (struct peer_due *)xmalloc((w->n - removed + 1) * sizeof *due);
    for (i = 0; i < w->n; i++)
        if (P_(pending)(&it[i])) {
            if (k == w->n - removed)
                bench_fail("%s: request: more timers pending than unanswered requests", PEER_NAME);
            due[k].when = it[i].mark.when;
            due[k++].i = (uint32_t)i;
        }
    if (k != w->timeouts)
        bench_fail("%s: request: %zu timers pending, expected %zu", PEER_NAME, k, w->timeouts);
    P_(rearm_due)(&c, it, due, k);
    free(due);
    P_(fire)(&c, k, "request", r);
    P_(done)(&c, it, w->n, "request");
}

#ifndef PEER_FIXED_ONLY
/* Far and near mixed: arm N with log-uniform delays, cancel a random half in
 * random order, fire the rest. */
static void P_(mixed)(const struct mixed_wl *w, struct wl_result *r)
{
    CTX c;
    ITEM *it;
    size_t i, half = w->n / 2;
    double t0;

    P_(open)(&c);
    it = P_(items)(&c, w->n);
    t0 = bench_now();
    for (i = 0; i < w->n; i++)
        P_(arm_due)(&c, &it[i], peer_mixed_end - w->when[i], peer_mixed_rank[i], w->n);
    wl_put(r, "insert", bench_now() - t0, w->n);
    t0 = bench_now();
    for (i = 0; i < half; i++)
        P_(cancel)(&c, &it[w->order[i]]);
    wl_put(r, "remove", bench_now() - t0, half);
    for (i = 0; i < w->n; i++) {
        it[i].mark.when = w->when[i];
        it[i].mark.state = P_(pending)(&it[i]) ? MARK_EXPECTED : MARK_IDLE;
    }
    for (i = 0; i < half; i++)
        if (it[w->order[i]].mark.state != MARK_IDLE)
            bench_fail("%s: mixed: a cancelled timer is still pending", PEER_NAME);
    P_(fire)(&c, w->n - half, "mixed", r);
    P_(done)(&c, it, w->n, "mixed");
}

static const struct peer P_(peer) = {
    PEER_NAME, sizeof(PEER_TIMER),
    P_(ordered), P_(random), P_(idle), P_(request), P_(mixed)
};
#else
static const struct peer P_(peer) = {
    PEER_NAME, sizeof(PEER_TIMER),
    NULL, NULL, P_(idle), P_(request), NULL
};
#endif /* PEER_FIXED_ONLY */

#undef P_
#undef ITEM
#undef CTX
#undef PEER
#undef PEER_NAME
#undef PEER_TIMER
#undef PEER_FIXED_ONLY
