/* bench_kind.h - the benchmark driver, written once over the shared container
 * API and included once per container kind: by bench_ours.h for ours, and by
 * peers.c for the BSD tree.h set (bsd_timer.h), which offers the same API.
 *
 * Before each inclusion the includer defines:
 *   KIND               token that prefixes every generated name (kset, kheap, kwheel)
 *   KIND_NAME          the kind as printed ("set")
 *   KIND_NODE          the node type (struct timer_set_node)
 *   KIND_DEFINE        the container's DEFINE_NAMED macro
 *   KIND_OWNED(c)      bytes the container owns beyond the caller's items
 *   KIND_MIN_EXACT     1 if min_time is exact right after init, 0 if only a lower bound
 *   KIND_TOUCH(c)      optional, where reserve allocates: write every page it reserved
 *   KIND_LATENCY       optional, for a kind with next_expiry, pending and due: the
 *                      per-call latency workloads (latency.c)
 *   KIND_BEHIND        optional, for a kind with next_expiry: the patterns of items
 *                      inserted behind the clock (behind.c)
 * This file #undefs them at its end, so the next inclusion starts clean.
 *
 * Each kind gets its own item array element: the kind's node plus the
 * expiry the benchmark expects (`when`), so a kind's cache footprint is its
 * own node's size, not the sum of three nodes.
 */

#define K_(suffix) BENCH_CAT(KIND, suffix)
#define C_(fn) BENCH_CAT(KIND, BENCH_CAT(_c_, fn))
#define ITEM struct K_(_item)
#define CONT K_(_c)

struct K_(_item) {
    KIND_NODE node;
    int64_t when;           /* the expiry the benchmark expects to see popped */
};

BENCH_EXPAND_DEFINE(KIND_DEFINE, CONT, ITEM, node)

/* Pop at `now` and check that exactly `want` comes out (ordered-insert
 * protocol). */
static inline void K_(_pop_one)(CONT *c, struct tlist *out, int64_t now, ITEM *want)
{
    size_t k = C_(pop)(c, now, out);
    ITEM *got = C_(entry)(tlist_pop_front(out));
    if (k != 1 || got != want || !tlist_empty(out))
        bench_fail("%s: pop(%" PRId64 ") returned %zu item(s), expected exactly item %zu",
                   KIND_NAME, now, k, (size_t)(want - (ITEM *)bench_arena));
}

/* Pop at `now` and drain the result list, checking that every item is due
 * (when <= now: no early firing) and was not due at the previous pop
 * (when > prev: no timer left behind). Returns the number popped. */
static inline size_t K_(_drain)(CONT *c, struct tlist *out, int64_t prev, int64_t now)
{
    size_t k = C_(pop)(c, now, out), seen = 0;
    ITEM *it;
    while ((it = C_(entry)(tlist_pop_front(out))) != NULL) {
        if (it->when > now || it->when <= prev)
            bench_fail("%s: pop(%" PRId64 ") after pop(%" PRId64 ") returned an item expiring at %" PRId64,
                       KIND_NAME, now, prev, it->when);
        seen++;
    }
    if (seen != k)
        bench_fail("%s: pop(%" PRId64 ") returned %zu but listed %zu items", KIND_NAME, now, k, seen);
    return k;
}

static void K_(_expect_empty)(const CONT *c, const char *where)
{
    if (C_(size)(c) != 0 || !C_(empty)(c) || C_(min_time)(c) != TIMER_NEVER)
        bench_fail("%s: %s: container not empty at the end (size %zu)", KIND_NAME, where, C_(size)(c));
}

static void K_(_reinsert)(CONT *c, ITEM *it, size_t from, size_t to)
{
    size_t i;
    C_(init)(c, 0);
    for (i = from; i < to; i++)
        if (C_(insert)(c, ORDERED_WHEN(i), &it[i]) != 0)
            bench_fail("%s: ordered re-insert %zu failed", KIND_NAME, i);
}

/* The ordered-insert protocol: insert N at base + i*97, remove the first
 * half, pop each remaining item at exactly its expiry; then re-insert the
 * second half and time min_time + pop against a plain pop loop, in the same
 * round, block by block (BENCH_MT_BLOCK; min_time is the median of the
 * rounds' differences). Small N runs in rounds (bench_rounds); total is
 * insert + remove + pop per timer. */
static void K_(_ordered)(size_t n, struct wl_result *r, size_t *owned_bytes)
{
    static struct round_ns ins, rem, pop, mt, total;
    size_t i, half = n / 2, rounds = bench_rounds(n), round, b;
    size_t nblocks = (n - half + BENCH_MT_BLOCK - 1) / BENCH_MT_BLOCK;
    double *blk = (double *)xmalloc(nblocks * sizeof *blk);   /* per block: base ns, then diff per op */
    struct tlist out;
    CONT c;
    double t0;
    uint64_t sum = 0;          /* keeps the min_time calls alive */

    tlist_init(&out);
    for (round = 0; round < rounds; round++) {
        ITEM *it = (ITEM *)bench_items(n * sizeof(ITEM));
        C_(init)(&c, 0);
        t0 = bench_now();
        for (i = 0; i < n; i++)
            if (C_(insert)(&c, ORDERED_WHEN(i), &it[i]) != 0)
                bench_fail("%s: ordered insert %zu failed", KIND_NAME, i);
        ins.ns[round] = bench_since(t0);
        if (round == 0)
            *owned_bytes = KIND_OWNED(&c);
        if (C_(size)(&c) != n)
            bench_fail("%s: size %zu after %zu inserts", KIND_NAME, C_(size)(&c), n);

        t0 = bench_now();
        for (i = 0; i < half; i++)
            if (!C_(remove)(&c, &it[i]))
                bench_fail("%s: ordered remove %zu returned false", KIND_NAME, i);
        rem.ns[round] = bench_since(t0);

        t0 = bench_now();
        for (i = half; i < n; i++)
            K_(_pop_one)(&c, &out, ORDERED_WHEN(i), &it[i]);
        pop.ns[round] = bench_since(t0);
        total.ns[round] = ins.ns[round] + rem.ns[round] + pop.ns[round];
        K_(_expect_empty)(&c, "ordered pop");

        /* The baseline for min_time is a plain pop loop over a freshly
         * re-inserted second half: the same state the min_time loop starts
         * from (after the removals above a heap's array is ordered
         * differently). */
        C_(destroy)(&c);
        K_(_reinsert)(&c, it, half, n);
        for (b = 0, i = half; i < n; b++) {
            size_t stop = i + BENCH_MT_BLOCK < n ? i + BENCH_MT_BLOCK : n;
            t0 = bench_now();
            for (; i < stop; i++)
                K_(_pop_one)(&c, &out, ORDERED_WHEN(i), &it[i]);
            blk[b] = bench_since(t0);
        }

        C_(destroy)(&c);
        K_(_reinsert)(&c, it, half, n);
        for (b = 0, i = half; i < n; b++) {
            size_t from = i, stop = i + BENCH_MT_BLOCK < n ? i + BENCH_MT_BLOCK : n;
            t0 = bench_now();
            for (; i < stop; i++) {
                int64_t t = C_(min_time)(&c);
                /* Right after init the wheel's bound may lie anywhere before
                 * the first expiry; from then on the clock sits at expiry[i-1]. */
                int check_left = KIND_MIN_EXACT || i > half;
                if (t > ORDERED_WHEN(i) || (check_left && i > 0 && t <= ORDERED_WHEN(i - 1)))
                    bench_fail("%s: min_time %" PRId64 " outside (%" PRId64 ", %" PRId64 "] at step %zu",
                               KIND_NAME, t, i > 0 ? ORDERED_WHEN(i - 1) : -1, ORDERED_WHEN(i), i);
                sum += (uint64_t)t;
                K_(_pop_one)(&c, &out, ORDERED_WHEN(i), &it[i]);
            }
            blk[b] = (bench_since(t0) - blk[b]) / (double)(stop - from);
        }
        mt.ns[round] = median_of(blk, nblocks) * (double)(n - half);
        K_(_expect_empty)(&c, "ordered min_time");
        C_(destroy)(&c);
    }
    free(blk);
    wl_put(r, "insert", round_median(&ins, rounds), n);
    wl_put(r, "remove", round_median(&rem, rounds), half);
    wl_put(r, "pop", round_median(&pop, rounds), n - half);
    wl_put_diff(r, "min_time", round_median(&mt, rounds), n - half);
    wl_put(r, "total", round_median(&total, rounds), n);
    bench_sink += sum;
}

#ifdef KIND_TOUCH
/* The ordered-insert protocol's inserts again, after reserve(N), beside the
 * kind's own insert row, where the array doubles as the inserts arrive. It
 * separates the structure's own work from the kernel's: reserve allocates
 * the whole array at once but writes none of it, so the inserts still take
 * a page fault at the first write to each page (touch 0: what a program
 * that calls reserve gets, the reallocations gone); touch 1 writes the
 * reserved array first, untimed (KIND_TOUCH), so that no insert faults and
 * what remains is the structure. */
static void K_(_reserved)(size_t n, int touch, struct wl_result *r)
{
    static struct round_ns ins;
    size_t i, rounds = bench_rounds(n), round;
    CONT c;
    double t0;

    for (round = 0; round < rounds; round++) {
        ITEM *it = (ITEM *)bench_items(n * sizeof(ITEM));
        C_(init)(&c, 0);
        if (C_(reserve)(&c, n) != 0)
            bench_fail("%s: reserve(%zu) failed", KIND_NAME, n);
        if (touch)
            KIND_TOUCH(&c);
        t0 = bench_now();
        for (i = 0; i < n; i++)
            if (C_(insert)(&c, ORDERED_WHEN(i), &it[i]) != 0)
                bench_fail("%s: ordered insert %zu after reserve failed", KIND_NAME, i);
        ins.ns[round] = bench_since(t0);
        if (C_(size)(&c) != n)
            bench_fail("%s: size %zu after %zu inserts", KIND_NAME, C_(size)(&c), n);
        C_(destroy)(&c);
    }
    wl_put(r, "insert", round_median(&ins, rounds), n);
}
#endif

/* Random expiries uniform over 2^24 ticks, all inserted, then popped in
 * RANDOM_STEPS equal steps of time. */
static void K_(_random)(const struct random_wl *w, struct wl_result *r)
{
    static struct round_ns ins, pop, total;
    struct tlist out;
    CONT c;
    size_t i, popped, rounds = bench_rounds(w->n), round;
    int64_t now, prev;
    double t0;

    tlist_init(&out);
    for (round = 0; round < rounds; round++) {
        ITEM *it = (ITEM *)bench_items(w->n * sizeof(ITEM));
        const int64_t *when = w->when + round % w->variants * w->n;     /* keys of its own */
        for (i = 0; i < w->n; i++)
            it[i].when = when[i];
        C_(init)(&c, 0);
        t0 = bench_now();
        for (i = 0; i < w->n; i++)
            if (C_(insert)(&c, it[i].when, &it[i]) != 0)
                bench_fail("%s: random insert %zu failed", KIND_NAME, i);
        ins.ns[round] = bench_since(t0);

        popped = 0;
        prev = -1;
        t0 = bench_now();
        for (now = w->step; prev < w->horizon; now += w->step) {
            popped += K_(_drain)(&c, &out, prev, now);
            prev = now;
        }
        pop.ns[round] = bench_since(t0);
        total.ns[round] = ins.ns[round] + pop.ns[round];
        if (popped != w->n)
            bench_fail("%s: random: popped %zu of %zu", KIND_NAME, popped, w->n);
        K_(_expect_empty)(&c, "random");
        C_(destroy)(&c);
    }
    wl_put(r, "insert", round_median(&ins, rounds), w->n);
    wl_put(r, "pop", round_median(&pop, rounds), w->n);
    wl_put(r, "total", round_median(&total, rounds), w->n);
}

/* One message of an idle workload at tick t: the connection's expiry as
 * the contract gives it (`when`, what the drain checks), then the call.
 * idle: reschedule to now + timeout (game: to the message's own expiry). idle-range: reschedule_range over
 * [now + timeout, now + timeout + slack]: an expiry already within it stays
 * (written as a select, so that the model adds no branch the container's
 * own test does not already take), else it moves to the window's end. */
static inline void K_(_idle_msg)(CONT *c, ITEM *it, const uint32_t *msg, int64_t t, const struct idle_wl *w, int range)
{
    ITEM *x = &it[*msg];
    int64_t lo = w->msg_when ? w->msg_when[msg - w->msg] : t + w->timeout, hi = lo + w->slack;
    int rc;
    if (!range) {
        x->when = lo;
        rc = C_(reschedule)(c, lo, x);
    } else {
        x->when = x->when < lo || x->when > hi ? hi : x->when;
        rc = C_(reschedule_range)(c, lo, hi, x);
    }
    if (rc != 0)
        bench_fail("%s: idle reschedule failed", KIND_NAME);
}

/* Idle connections: every message reschedules its connection to now +
 * timeout (idle), or within a window of slack after it (idle-range, range
 * 1); the container is popped once per ms; silent connections expire.
 * Rounds alternate between two timings of the same work. Even rounds time
 * each tick's reschedules and its pop apart, for the figures per op: batches
 * as small as one reschedule or one empty pop call, so these are the
 * clock's mean cost subtracted from a batch of about the same size, marked
 * as differences. Odd rounds time the whole tick loop with no clock read
 * inside, for the total. Hence at least two rounds. Every pop must hand out
 * exactly the connections whose expiry is that tick, and the count within
 * the traffic must be idle_model's: so in idle-range each silent connection
 * expires at most slack after its last message's now + timeout. */
static void K_(_idle_with)(const struct idle_wl *w, struct wl_result *r, int range)
{
    static struct round_ns resched, pop, total;
    const char *name = w->msg_when ? "game" : range ? "idle-range" : "idle";
    struct tlist out;
    CONT c;
    size_t i, m, popped = 0, calls = 0, msgs = 0, rounds, round, split = 0, whole = 0;
    int64_t t;
    double t0;

    for (t = 1; t <= w->ticks; t++)
        msgs += w->msg_at[t + 1] - w->msg_at[t];
    rounds = 2 * bench_rounds(msgs);
    if (rounds > BENCH_MAX_ROUNDS)
        rounds = BENCH_MAX_ROUNDS;
    tlist_init(&out);
    for (round = 0; round < rounds; round++) {
        ITEM *it = (ITEM *)bench_items(w->conns * sizeof(ITEM));
        size_t round_popped = 0;
        C_(init)(&c, 0);
        for (i = 0; i < w->conns; i++) {
            it[i].when = w->first_when[i];
            if (C_(insert)(&c, it[i].when, &it[i]) != 0)
                bench_fail("%s: %s insert %zu failed", KIND_NAME, name, i);
        }
        if (round % 2 == 0) {
            double resched_ns = 0, pop_ns = 0;
            for (t = 1; t <= w->ticks; t++) {
                const uint32_t *msg = w->msg + w->msg_at[t], *end = w->msg + w->msg_at[t + 1];
                t0 = bench_now();
                for (; msg < end; msg++)
                    K_(_idle_msg)(&c, it, msg, t, w, range);
                resched_ns += bench_since(t0);
                t0 = bench_now();
                round_popped += K_(_drain)(&c, &out, t - 1, t);
                pop_ns += bench_since(t0);
            }
            resched.ns[split] = resched_ns;
            pop.ns[split++] = pop_ns;
            popped = round_popped;
            calls = (size_t)w->ticks;
        } else {
            t0 = bench_now();
            for (t = 1; t <= w->ticks; t++) {
                const uint32_t *msg = w->msg + w->msg_at[t], *end = w->msg + w->msg_at[t + 1];
                for (; msg < end; msg++)
                    K_(_idle_msg)(&c, it, msg, t, w, range);
                round_popped += K_(_drain)(&c, &out, t - 1, t);
            }
            total.ns[whole++] = bench_since(t0);
        }
        if (round_popped != w->expire[range])
            bench_fail("%s: %s: %zu expiries, expected %zu (%zu connections went silent)",
                       KIND_NAME, name, round_popped, w->expire[range], w->silent);
        /* Everything still pending expires within one timeout (and the slack). */
        m = C_(size)(&c);
        if (K_(_drain)(&c, &out, w->ticks, w->ticks + w->timeout + (range ? w->slack : 0)) != m)
            bench_fail("%s: %s: final pop missed items", KIND_NAME, name);
        K_(_expect_empty)(&c, name);
        C_(destroy)(&c);
    }
    wl_put_diff(r, "reschedule", round_median(&resched, split), msgs);
    wl_put_diff(r, "pop", round_median(&pop, split), popped);
    wl_put_diff(r, "pop_call", round_median(&pop, split), calls);
    wl_put(r, "total", round_median(&total, whole), w->conns);
}

static void K_(_idle)(const struct idle_wl *w, struct wl_result *r) { K_(_idle_with)(w, r, 0); }
static void K_(_idle_range)(const struct idle_wl *w, struct wl_result *r) { K_(_idle_with)(w, r, 1); }

/* Request timeouts: per_tick requests per ms, each armed with the same
 * delay; 95% are answered (removed) before they expire. Timed as idle is:
 * per tick and kind of op in even rounds, the whole tick loop in odd ones. */
static void K_(_request)(const struct request_wl *w, struct wl_result *r)
{
    static struct round_ns ins, rem, pop, total;
    struct tlist out;
    CONT c;
    size_t next, popped = 0, calls = 0, removed = 0, rounds, round, split = 0, whole = 0;
    int64_t t;
    double t0;

    rounds = 2 * bench_rounds(w->n);
    if (rounds > BENCH_MAX_ROUNDS)
        rounds = BENCH_MAX_ROUNDS;
    tlist_init(&out);
    for (round = 0; round < rounds; round++) {
        ITEM *it = (ITEM *)bench_items(w->n * sizeof(ITEM));
        size_t round_popped = 0, round_removed = 0;
        next = 0;
        C_(init)(&c, 0);
        if (round % 2 == 0) {
            double ins_ns = 0, rem_ns = 0, pop_ns = 0;
            for (t = 0; t <= w->ticks; t++) {
                size_t stop = next + w->per_tick < w->n ? next + w->per_tick : w->n;
                const uint32_t *id = w->resp + w->resp_at[t], *end = w->resp + w->resp_at[t + 1];
                t0 = bench_now();
                for (; next < stop; next++) {
                    it[next].when = t + w->delay;
                    if (C_(insert)(&c, it[next].when, &it[next]) != 0)
                        bench_fail("%s: request insert failed", KIND_NAME);
                }
                ins_ns += bench_since(t0);
                round_removed += (size_t)(end - id);
                t0 = bench_now();
                for (; id < end; id++)
                    if (!C_(remove)(&c, &it[*id]))
                        bench_fail("%s: request remove of a pending item returned false", KIND_NAME);
                rem_ns += bench_since(t0);
                t0 = bench_now();
                round_popped += K_(_drain)(&c, &out, t - 1, t);
                pop_ns += bench_since(t0);
            }
            ins.ns[split] = ins_ns;
            rem.ns[split] = rem_ns;
            pop.ns[split++] = pop_ns;
            popped = round_popped;
            removed = round_removed;
            calls = (size_t)w->ticks + 1;
        } else {
            t0 = bench_now();
            for (t = 0; t <= w->ticks; t++) {
                size_t stop = next + w->per_tick < w->n ? next + w->per_tick : w->n;
                const uint32_t *id = w->resp + w->resp_at[t], *end = w->resp + w->resp_at[t + 1];
                for (; next < stop; next++) {
                    it[next].when = t + w->delay;
                    if (C_(insert)(&c, it[next].when, &it[next]) != 0)
                        bench_fail("%s: request insert failed", KIND_NAME);
                }
                round_removed += (size_t)(end - id);
                for (; id < end; id++)
                    if (!C_(remove)(&c, &it[*id]))
                        bench_fail("%s: request remove of a pending item returned false", KIND_NAME);
                round_popped += K_(_drain)(&c, &out, t - 1, t);
            }
            total.ns[whole++] = bench_since(t0);
        }
        if (round_popped != w->timeouts || round_removed + round_popped != w->n)
            bench_fail("%s: request: %zu timed out, expected %zu", KIND_NAME, round_popped, w->timeouts);
        K_(_expect_empty)(&c, "request");
        C_(destroy)(&c);
    }
    wl_put_diff(r, "insert", round_median(&ins, split), w->n);
    wl_put_diff(r, "remove", round_median(&rem, split), removed);
    wl_put_diff(r, "pop", round_median(&pop, split), popped);
    wl_put_diff(r, "pop_call", round_median(&pop, split), calls);
    wl_put(r, "total", round_median(&total, whole), w->n);
}

/* Far and near mixed: delays log-uniform over 1 .. 2^40 ticks; a random
 * half removed in random order; the rest popped at geometrically growing
 * times so that every step pops about as many items. */
static void K_(_mixed)(const struct mixed_wl *w, struct wl_result *r)
{
    static struct round_ns ins, rem, pop, total;
    struct tlist out;
    CONT c;
    size_t i, half = w->n / 2, popped, rounds = bench_rounds(w->n), round;
    int64_t prev;
    double t0;

    tlist_init(&out);
    for (round = 0; round < rounds; round++) {
        ITEM *it = (ITEM *)bench_items(w->n * sizeof(ITEM));
        const int64_t *when = w->when + round % w->variants * w->n;     /* keys and order of its own */
        const uint32_t *order = w->order + round % w->variants * w->n;
        for (i = 0; i < w->n; i++)
            it[i].when = when[i];
        C_(init)(&c, w->now0);
        t0 = bench_now();
        for (i = 0; i < w->n; i++)
            if (C_(insert)(&c, it[i].when, &it[i]) != 0)
                bench_fail("%s: mixed insert %zu failed", KIND_NAME, i);
        ins.ns[round] = bench_since(t0);

        t0 = bench_now();
        for (i = 0; i < half; i++)
            if (!C_(remove)(&c, &it[order[i]]))
                bench_fail("%s: mixed remove returned false", KIND_NAME);
        rem.ns[round] = bench_since(t0);

        popped = 0;
        prev = w->now0;
        t0 = bench_now();
        for (i = 0; i < w->nsteps; i++) {
            popped += K_(_drain)(&c, &out, prev, w->steps[i]);
            prev = w->steps[i];
        }
        pop.ns[round] = bench_since(t0);
        total.ns[round] = ins.ns[round] + rem.ns[round] + pop.ns[round];
        if (popped != w->n - half)
            bench_fail("%s: mixed: popped %zu of %zu", KIND_NAME, popped, w->n - half);
        K_(_expect_empty)(&c, "mixed");
        C_(destroy)(&c);
    }
    wl_put(r, "insert", round_median(&ins, rounds), w->n);
    wl_put(r, "remove", round_median(&rem, rounds), half);
    wl_put(r, "pop", round_median(&pop, rounds), w->n - half);
    wl_put(r, "total", round_median(&total, rounds), w->n);
}

#ifdef KIND_LATENCY
/* ---- per-call latency (latency.c): every call timed on its own ---------- */

/* One pop at now, timed. */
static inline size_t K_(_lat_pop)(CONT *c, struct lat_calls *l, struct tlist *out, int64_t now)
{
    size_t k = 0;
    LAT_TIMED(l, LAT_POP, k = C_(pop)(c, now, out));
    l->popped += k;
    if (k > l->max_burst)
        l->max_burst = k;
    return k;
}

/* The next item of a pop's result list, off the list (idle again), as a
 * loop runs its callbacks one at a time; NULL at the end. Checked (due:
 * when <= now; when == now if exact, where the loop pops at the exact next
 * expiry) and mixed into the digest. */
static inline ITEM *K_(_lat_due)(struct lat_calls *l, const struct lat_wl *w, struct tlist *out, ITEM *it,
                                 int64_t now, int exact)
{
    ITEM *x = C_(entry)(tlist_pop_front(out));
    if (x == NULL)
        return NULL;
    if (x->when > now || (exact && x->when != now))
        bench_fail("%s: %s: pop(%" PRId64 ") handed out an item expiring at %" PRId64,
                   KIND_NAME, w->name, now, x->when);
    l->digest = lat_mix(l->digest, (uint64_t)(x - it));
    l->listed++;
    return x;
}

static inline void K_(_lat_insert)(CONT *c, struct lat_calls *l, const struct lat_wl *w, ITEM *x, int64_t when)
{
    int rc = 0;
    x->when = when;
    LAT_TIMED(l, LAT_INSERT, rc = C_(insert)(c, when, x));
    if (rc != 0)
        bench_fail("%s: %s: insert at %" PRId64 " failed (%d)", KIND_NAME, w->name, when, rc);
}

/* The plain event loop: n timers with delays uniform in [1, delay]; each
 * round next_expiry, pop at exactly that time, and each due timer re-armed
 * at now + a new delay. */
static void K_(_lat_loop)(const struct lat_wl *w, struct lat_calls *l)
{
    ITEM *it = (ITEM *)bench_items(w->n * sizeof(ITEM)), *x;
    struct tlist out;
    CONT c;
    size_t i, r;
    int64_t t = 0, now = 0;

    lat_escape(&c);
    tlist_init(&out);
    rng_state = w->seed;
    C_(init)(&c, 0);
    for (i = 0; i < w->n; i++) {
        it[i].when = 1 + (int64_t)rng_below((uint64_t)w->delay);
        if (C_(insert)(&c, it[i].when, &it[i]) != 0)
            bench_fail("%s: %s: insert %zu failed", KIND_NAME, w->name, i);
    }
    for (r = 0; r < w->rounds; r++) {
        LAT_TIMED(l, LAT_NEXT, t = C_(next_expiry)(&c));
        if (t <= now)   /* every re-arm lies after the time it was armed at */
            bench_fail("%s: %s: next_expiry %" PRId64 " at time %" PRId64, KIND_NAME, w->name, t, now);
        now = t;
        K_(_lat_pop)(&c, l, &out, now);
        while ((x = K_(_lat_due)(l, w, &out, it, now, 1)) != NULL)
            K_(_lat_insert)(&c, l, w, x, now + 1 + (int64_t)rng_below((uint64_t)w->delay));
    }
    if (C_(size)(&c) != w->n)
        bench_fail("%s: %s: %zu timers at the end, not %zu", KIND_NAME, w->name, C_(size)(&c), w->n);
    l->clock_end = now;
    C_(destroy)(&c);
}

/* A loop that stalls and catches up: `periodic` timers, each re-armed at
 * its last expiry + its period (keeping its phase, as a fixed-step game or
 * simulation tick does, and each firing missed in a stall runs late), each
 * firing posting a zero-delay timer (a deferred callback), beside timers
 * with delays in [1, delay] re-armed at now + a new delay. Each round
 * next_expiry; when that lies ahead the loop sleeps until then, except
 * after `every` ticks of running, when it wakes `step` ticks late (a long
 * callback, a GC pause, the process stopped): then one pop hands out
 * everything due in the stall, and each periodic timer re-arms behind now,
 * due again at once, so the next rounds pop at the same time until it has
 * caught up. The run ends `every` ticks after the last stall. Items:
 * periodic [0, p), their zero-delay timers [p, 2p), the others [2p, n). */
static void K_(_lat_stall)(const struct lat_wl *w, struct lat_calls *l)
{
    ITEM *it = (ITEM *)bench_items(w->n * sizeof(ITEM)), *x;
    int64_t *period = (int64_t *)xmalloc(w->periodic * sizeof *period);
    struct tlist out;
    CONT c;
    size_t i, stalls = 0, p = w->periodic;
    int64_t t = 0, now = 0, mark = w->every;

    lat_escape(&c);
    tlist_init(&out);
    rng_state = w->seed;
    C_(init)(&c, 0);
    for (i = 0; i < w->n; i++) {
        if (i < p) {
            period[i] = w->period_min + (int64_t)rng_below((uint64_t)(w->period_max - w->period_min + 1));
            it[i].when = 1 + (int64_t)rng_below((uint64_t)period[i]);    /* a random phase */
        } else if (i < 2 * p) {
            continue;                                                   /* posted when its timer fires */
        } else {
            it[i].when = 1 + (int64_t)rng_below((uint64_t)w->delay);
        }
        if (C_(insert)(&c, it[i].when, &it[i]) != 0)
            bench_fail("%s: %s: insert %zu failed", KIND_NAME, w->name, i);
    }
    for (;;) {
        LAT_TIMED(l, LAT_NEXT, t = C_(next_expiry)(&c));
        if (t > now && t >= mark) {             /* the loop would sleep past a stall's mark */
            if (stalls == w->stalls)
                break;
            now = t + w->step;                  /* and wakes step late */
            mark = now + w->every;
            stalls++;
        } else if (t > now) {
            now = t;
        } else if (t < now) {
            l->catchup++;                       /* due before the time it pops at: catching up */
        }
        K_(_lat_pop)(&c, l, &out, now);
        while ((x = K_(_lat_due)(l, w, &out, it, now, 0)) != NULL) {
            size_t ix = (size_t)(x - it);
            if (ix < p) {
                ITEM *z = &it[p + ix];
                K_(_lat_insert)(&c, l, w, x, x->when + period[ix]);
                if (!C_(pending)(z) && !C_(due)(z))     /* post its zero-delay timer, unless posted */
                    K_(_lat_insert)(&c, l, w, z, now);
            } else if (ix >= 2 * p) {           /* (a zero-delay timer has run: idle again) */
                K_(_lat_insert)(&c, l, w, x, now + 1 + (int64_t)rng_below((uint64_t)w->delay));
            }
        }
    }
    if (C_(size)(&c) != w->n - p)
        bench_fail("%s: %s: %zu timers at the end, not %zu", KIND_NAME, w->name, C_(size)(&c), w->n - p);
    l->clock_end = now;
    C_(destroy)(&c);
    free(period);
}

/* libevent's loop with its timers on the container: n timeouts pending
 * (delays in [long_min, delay]); each round next_expiry (the poll
 * timeout), the clock one tick on, pop, and then one callback arms
 * `shorts` short timers (delays in [1, short_max], so in no order) and
 * cancels them in a random order before the next round (requests that
 * start and finish within one turn of the loop). Items: the timeouts
 * [0, n), the short timers [n, n + shorts). */
static void K_(_lat_libevent)(const struct lat_wl *w, struct lat_calls *l)
{
    ITEM *it = (ITEM *)bench_items((w->n + w->shorts) * sizeof(ITEM)), *x, *s = it + w->n;
    size_t *order = (size_t *)xmalloc(w->shorts * sizeof *order);
    struct tlist out;
    CONT c;
    size_t i, j, r;
    int64_t t = 0, now = 0, span = w->delay - w->long_min + 1;
    int ok = 0;

    lat_escape(&c);
    tlist_init(&out);
    rng_state = w->seed;
    C_(init)(&c, 0);
    for (i = 0; i < w->n; i++) {
        it[i].when = w->long_min + (int64_t)rng_below((uint64_t)span);
        if (C_(insert)(&c, it[i].when, &it[i]) != 0)
            bench_fail("%s: %s: insert %zu failed", KIND_NAME, w->name, i);
    }
    for (r = 0; r < w->rounds; r++) {
        LAT_TIMED(l, LAT_NEXT, t = C_(next_expiry)(&c));
        if (t <= now)
            bench_fail("%s: %s: next_expiry %" PRId64 " at time %" PRId64, KIND_NAME, w->name, t, now);
        l->digest = lat_mix(l->digest, (uint64_t)t);
        now++;
        K_(_lat_pop)(&c, l, &out, now);
        while ((x = K_(_lat_due)(l, w, &out, it, now, 0)) != NULL)
            K_(_lat_insert)(&c, l, w, x, now + w->long_min + (int64_t)rng_below((uint64_t)span));
        for (j = 0; j < w->shorts; j++) {
            K_(_lat_insert)(&c, l, w, &s[j], now + 1 + (int64_t)rng_below((uint64_t)w->short_max));
            order[j] = j;
        }
        for (j = w->shorts; j > 1; j--) {       /* Fisher-Yates */
            size_t q = (size_t)rng_below(j), tmp = order[j - 1];
            order[j - 1] = order[q];
            order[q] = tmp;
        }
        for (j = 0; j < w->shorts; j++) {
            LAT_TIMED(l, LAT_REMOVE, ok = C_(remove)(&c, &s[order[j]]));
            if (!ok)
                bench_fail("%s: %s: remove of a pending timer returned false", KIND_NAME, w->name);
        }
    }
    if (C_(size)(&c) != w->n)
        bench_fail("%s: %s: %zu timers at the end, not %zu", KIND_NAME, w->name, C_(size)(&c), w->n);
    l->clock_end = now;
    C_(destroy)(&c);
    free(order);
}

/* Issue 26's idle-connection loop, a server that ticks every ms: n
 * connections, each a timer that closes it after `timeout` ticks of
 * silence, connected at random times in the last `timeout` ticks. Each
 * tick, `msgs` messages arrive on random connections; each pushes its
 * connection's timer back to now + timeout less a jitter in [0, jitter),
 * so pushed-back expiries come in no order (no sorted run takes them).
 * Then one pop: each connection due is closed and a new one takes its
 * place, due a whole timeout on. Timers filed long before they expire and
 * often pushed back are what a wheel must not prepare too early. */
static void K_(_lat_idle)(const struct lat_wl *w, struct lat_calls *l)
{
    ITEM *it = (ITEM *)bench_items(w->n * sizeof(ITEM)), *x;
    struct tlist out;
    CONT c;
    size_t i, j;
    int64_t now = 0;
    int rc = 0;

    lat_escape(&c);
    tlist_init(&out);
    rng_state = w->seed;
    C_(init)(&c, 0);
    for (i = 0; i < w->n; i++) {
        it[i].when = 1 + (int64_t)rng_below((uint64_t)w->timeout);
        if (C_(insert)(&c, it[i].when, &it[i]) != 0)
            bench_fail("%s: %s: insert %zu failed", KIND_NAME, w->name, i);
    }
    while (now < (int64_t)w->rounds) {
        now++;
        for (j = 0; j < w->msgs; j++) {
            x = &it[rng_below(w->n)];
            if (!C_(pending)(x))        /* a server's check; here a closed id is reused at once */
                continue;
            x->when = now + w->timeout - (int64_t)rng_below((uint64_t)w->jitter);
            LAT_TIMED(l, LAT_RESCHEDULE, rc = C_(reschedule)(&c, x->when, x));
            if (rc != 0)
                bench_fail("%s: %s: reschedule to %" PRId64 " failed (%d)", KIND_NAME, w->name,
                           x->when, rc);
        }
        K_(_lat_pop)(&c, l, &out, now);
        while ((x = K_(_lat_due)(l, w, &out, it, now, 0)) != NULL)
            K_(_lat_insert)(&c, l, w, x, now + w->timeout);
    }
    if (C_(size)(&c) != w->n)
        bench_fail("%s: %s: %zu timers at the end, not %zu", KIND_NAME, w->name, C_(size)(&c),
                   w->n);
    l->clock_end = now;
    C_(destroy)(&c);
}

static void K_(_latency)(const struct lat_wl *w, struct lat_calls *l)
{
    if (w->which == LAT_LOOP)
        K_(_lat_loop)(w, l);
    else if (w->which == LAT_STALL)
        K_(_lat_stall)(w, l);
    else if (w->which == LAT_IDLE)
        K_(_lat_idle)(w, l);
    else
        K_(_lat_libevent)(w, l);
}
#endif

#ifdef KIND_BEHIND
/* ---- items at or behind the clock (behind.c): the patterns BEHIND_* ------- */

/* Sets up pattern p (bench_common.h) in c for n items, with its far items
 * (behind_far), and returns the time its pop is at. Not timed: nor is the
 * heap's array, reserved and its pages written here, since what is
 * compared is the work on items behind the clock, not an allocation. */
static int64_t K_(_behind_setup)(CONT *c, int p, size_t n, ITEM *far)
{
    struct tlist out;
    size_t i, nfar = behind_far(p);
    C_(init)(c, nfar ? 0 : BEHIND_CLOCK);
    if (C_(reserve)(c, n + nfar) != 0)
        bench_fail("%s: behind: reserve(%zu) failed", KIND_NAME, n + nfar);
#ifdef KIND_TOUCH
    KIND_TOUCH(c);
#endif
    if (nfar == 0)
        return BEHIND_CLOCK;
    for (i = 0; i < nfar; i++) {
        far[i].when = BEHIND_CLOCK;
        if (C_(insert)(c, BEHIND_CLOCK, &far[i]) != 0)
            bench_fail("%s: behind: insert of far item %zu failed", KIND_NAME, i);
    }
    if (p == BEHIND_DRAINED) {
        tlist_init(&out);
        if (C_(pop)(c, TIMER_NEVER, &out) != nfar)
            bench_fail("%s: behind: pop(TIMER_NEVER) did not hand out the far items", KIND_NAME);
        while (tlist_pop_front(&out) != NULL)
            continue;
    } else if (C_(next_expiry)(c) != BEHIND_CLOCK) {
        bench_fail("%s: behind: next_expiry is not the far items' expiry", KIND_NAME);
    }
    return BEHIND_SPAN;
}

/* One run of pattern p: the thread CPU ns of n inserts at when[i] (ns[0])
 * and of the pop that hands them out (ns[1]). The pop must hand out exactly
 * those n, in non-decreasing expiry, and leave only the far items, if any,
 * which go after. */
static void K_(_behind)(int p, const int64_t *when, size_t n, double ns[2])
{
    size_t i, k, seen = 0, nfar = behind_far(p);
    ITEM *it = (ITEM *)bench_items((n + nfar) * sizeof(ITEM)), *x;
    struct tlist out;
    CONT c;
    int64_t now, prev = 0;
    double t0, t1;

    lat_escape(&c);
    tlist_init(&out);
    now = K_(_behind_setup)(&c, p, n, &it[n]);
    for (i = 0; i < n; i++)
        it[i].when = when[i];
    t0 = bench_thread_now();
    for (i = 0; i < n; i++)
        if (C_(insert)(&c, it[i].when, &it[i]) != 0)
            bench_fail("%s: behind: insert %zu at %" PRId64 " failed", KIND_NAME, i, it[i].when);
    t1 = bench_thread_now();
    k = C_(pop)(&c, now, &out);
    ns[1] = bench_thread_now() - t1;
    ns[0] = t1 - t0;
    while ((x = C_(entry)(tlist_pop_front(&out))) != NULL) {
        if (x->when < prev || x->when > now)
            bench_fail("%s: behind: pop(%" PRId64 ") handed out an item expiring at %" PRId64
                       " after one at %" PRId64, KIND_NAME, now, x->when, prev);
        prev = x->when;
        seen++;
    }
    if (k != n || seen != n)
        bench_fail("%s: behind: pop(%" PRId64 ") returned %zu and listed %zu of %zu items",
                   KIND_NAME, now, k, seen, n);
    for (i = n; i < n + nfar && p != BEHIND_DRAINED; i++)
        if (!C_(remove)(&c, &it[i]))
            bench_fail("%s: behind: a far item was not pending after the pop", KIND_NAME);
    K_(_expect_empty)(&c, "behind");
    C_(destroy)(&c);
}
#endif

static const struct kind K_(_kind) = {
    KIND_NAME, sizeof(KIND_NODE),
    K_(_ordered), K_(_random), K_(_idle), K_(_idle_range), K_(_request), K_(_mixed),
#ifdef KIND_TOUCH
    K_(_reserved), { KIND_NAME "+rsv", KIND_NAME "+pf" },
#else
    NULL, { NULL, NULL },
#endif
#ifdef KIND_LATENCY
    K_(_latency),
#else
    NULL,
#endif
#ifdef KIND_BEHIND
    K_(_behind)
#else
    NULL
#endif
};

#undef K_
#undef C_
#undef ITEM
#undef CONT
#undef KIND
#undef KIND_NAME
#undef KIND_NODE
#undef KIND_DEFINE
#undef KIND_OWNED
#undef KIND_MIN_EXACT
#undef KIND_TOUCH
#undef KIND_LATENCY
#undef KIND_BEHIND
