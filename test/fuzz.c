/* fuzz.c - randomised differential test of one kind against the reference model.
 *
 *     fuzz [SEED [STEPS]]        or TEST_SEED / TEST_STEPS in the environment
 *
 * Compiled once per kind (see tk.h). Each step is a random operation on a
 * pool of items in every state (insert, reschedule and remove of idle,
 * pending and due items, misuse included; pop; next_expiry, alone and as an
 * event loop's round; reserve; draining the result list with "callbacks"
 * that touch other items; min_time rounds; clear; destroy+init; freeing
 * items), and after every step th_verify compares everything observable
 * with the model and runs the container's check(); each pop's sequence is
 * compared item by item. Time jumps by
 * every scale of the wheel (1, 63, 64, 65, 4095, 4096, 64^k +- 1 up to k = 10,
 * anything up to INT64_MAX) and sometimes goes backwards; expiries include 0,
 * INT64_MAX, overdue ones, duplicates, and values at level boundaries.
 *
 * The run is split into episodes (fresh container, pool size, initial clock
 * and largest time scale), all drawn from the one seed. The seed is printed
 * first; the same SEED and STEPS replay the run exactly.
 */
#include "harness.h"

#include <time.h>

static int fz_maxk;              /* this episode's largest scale: 64^fz_maxk */
static int64_t fz_tick;          /* and how far a pop usually moves the clock */
static int64_t fz_scales[40];    /* the wheel's interesting distances, by level */
static size_t fz_scales_upto[11]; /* fz_scales[0 .. upto[k]) reach at most 64^k + 1 */

static struct {
    long ops[TH_DUE + 1][4]; /* [state of the item][insert, reschedule, remove, free] */
    long pops, popped, drained, rounds, episodes, next_expiry, reserves, ranges, firsts, walks;
} fz_stat;

static int64_t fz_pow64(int k)
{
    return (int64_t)(UINT64_C(1) << (6 * k));
}

static void fz_init_scales(void)
{
    static const int64_t small[] = { 1, 2, 63, 64, 65, 4095, 4096, 4097 };
    size_t n = 0, i;
    int k;

    for (i = 0; i < sizeof small / sizeof small[0]; i++)
        fz_scales[n++] = small[i];
    fz_scales_upto[0] = 3; /* 1, 2, 63 */
    fz_scales_upto[1] = 5; /* ... 64, 65 */
    for (k = 2; k <= 10; k++) {
        fz_scales[n++] = fz_pow64(k) - 1;
        fz_scales[n++] = fz_pow64(k);
        fz_scales[n++] = fz_pow64(k) + 1;
        fz_scales_upto[k] = n;
    }
}

/* t + d and t - d for t, d >= 0, kept inside 0 .. INT64_MAX */
static int64_t fz_add(int64_t t, int64_t d)
{
    return t > INT64_MAX - d ? INT64_MAX : t + d;
}

static int64_t fz_sub(int64_t t, int64_t d)
{
    return t < d ? 0 : t - d;
}

/* A jump in time: mostly short, often one of the wheel's scales, rarely huge. */
static int64_t fz_delta(void)
{
    uint64_t r = th_below(100);
    if (r < 20)
        return (int64_t)th_below(70);
    if (r < 50)
        return fz_scales[th_below(fz_scales_upto[fz_maxk])];
    if (r < 97)
        return (int64_t)th_below((UINT64_C(1) << (6 * fz_maxk)) + 2);
    return (int64_t)(th_rand() >> 1);
}

/* Near the start of the next level-k window after t (k = 1..kmax): where a
 * wheel moves items from one level to the next. */
static int64_t fz_boundary(int64_t t, int kmax)
{
    int k = 1 + (int)th_below((uint64_t)kmax);
    uint64_t b = (((uint64_t)t >> (6 * k)) + 1) << (6 * k);
    int64_t v = b > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)b;
    return fz_sub(fz_add(v, 1), (int64_t)th_below(3));
}

/* An expiry: valid ones of every kind, and now and then a negative one. */
static int64_t fz_expire(const struct th *h)
{
    size_t j;
    int k;

    switch (th_below(20)) {
    case 0:
        return 0;
    case 1:
        return INT64_MAX - (int64_t)th_below(2);
    case 2:
    case 3:
        return fz_sub(h->clock, fz_delta()); /* overdue */
    case 4:
        return h->clock;
    case 5:
    case 6: /* a duplicate of an expiry in use */
        j = th_below(h->n);
        return h->m[j].state != TH_IDLE ? h->m[j].expire : fz_add(h->clock, (int64_t)th_below(64));
    case 7: /* around a power of two */
        k = (int)th_below(63);
        return fz_sub(fz_add((int64_t)(UINT64_C(1) << k), 1), (int64_t)th_below(3));
    case 8:
    case 9:
        return fz_boundary(h->clock, 10);
    case 10:
        return th_below(4) ? -1 - (int64_t)th_below(64) : INT64_MIN;
    case 11:
        return (int64_t)(th_rand() >> 1);
    default:
        return fz_add(h->clock, fz_delta());
    }
}

/* A new expiry for item i close to its current one: a timeout pushed back
 * or forward a little, which may keep it in the same wheel slot. */
static int64_t fz_expire_near(const struct th *h, size_t i)
{
    int64_t d = th_below(2) ? (int64_t)th_below(70) : fz_delta();
    if (h->m[i].state == TH_IDLE)
        return fz_expire(h);
    return th_below(4) ? fz_add(h->m[i].expire, d) : fz_sub(h->m[i].expire, d);
}

/* A pop time: mostly time passing by the episode's tick, so that items pile
 * up across the levels; sometimes a jump, a step back, or an exact expiry. */
static int64_t fz_now(const struct th *h)
{
    int64_t t;
    size_t j;

    switch (th_below(20)) {
    case 0:
        return fz_sub(h->clock, fz_delta());
    case 1:
        t = tc_min_time(&h->c);
        return t == TIMER_NEVER ? h->clock : t;
    case 2:
        j = th_below(h->n);
        if (h->m[j].state != TH_PENDING)
            return h->clock;
        return fz_sub(h->m[j].expire, (int64_t)th_below(2));
    case 3:
        return fz_boundary(h->clock, fz_maxk);
    case 4:
        return fz_add(h->clock, fz_delta());
    default:
        return fz_add(h->clock, (int64_t)th_below(2 * (uint64_t)fz_tick));
    }
}

static int64_t fz_init_now(void)
{
    switch (th_below(6)) {
    case 0:
        return 0;
    case 1:
        return -1 - (int64_t)th_below(1000); /* taken as 0 */
    case 2:
        return (int64_t)th_below(1 << 20);
    case 3:
        return fz_pow64(1 + (int)th_below(10)) - 1;
    case 4:
        return INT64_MAX - (int64_t)th_below(UINT64_C(1) << 40);
    default:
        return (int64_t)(th_rand() >> 1);
    }
}

/* An item in state `want` when there is one, else any: so that every
 * operation meets every state often. */
static size_t fz_pick_in(const struct th *h, enum th_state want)
{
    size_t start = th_below(h->n), i;

    for (i = 0; i < h->n; i++) {
        size_t j = (start + i) % h->n;
        if (h->m[j].state == want)
            return j;
    }
    return start;
}

static size_t fz_pick(const struct th *h)
{
    return fz_pick_in(h, (enum th_state)th_below(3));
}

/* Mostly an idle item: an insert of a busy one is a (tested) misuse. */
static size_t fz_pick_for_insert(const struct th *h)
{
    return th_below(8) ? fz_pick_in(h, TH_IDLE) : fz_pick(h);
}

/* The heap may be told that its next allocation (or every one) fails. */
static void fz_maybe_fail_next(void)
{
    if (th_below(8) == 0)
        tk_fail_next();
}

static void fz_maybe_fail_all(void)
{
    if (th_below(8) == 0)
        tk_fail_all(true);
}

/* Pop, then drain the whole result list as a user's loop would; each item's
 * "callback" may re-arm itself and insert, reschedule, remove or free any
 * item, including due ones that are still in the list. */
static void fz_callback_drain(struct th *h)
{
    long id;

    th_pop(h, fz_now(h));
    while ((id = th_drain_one(h)) >= 0) {
        int k, actions = (int)th_below(4);
        fz_stat.drained++;
        for (k = 0; k < actions; k++) {
            size_t j = fz_pick(h);
            switch (th_below(7)) {
            case 0:
                th_reschedule(h, (size_t)id, fz_expire(h));
                break;
            case 1:
                th_insert(h, fz_pick_for_insert(h), fz_expire(h));
                break;
            case 2:
                th_reschedule(h, j, fz_expire(h));
                break;
            case 3:
                th_remove(h, j);
                break;
            case 4:
                th_free_item(h, j);
                break;
            case 5:
                th_next_expiry(h); /* a loop computing its next sleep mid-drain */
                break;
            default:
                th_free_item(h, (size_t)id);
                break;
            }
            th_verify(h);
        }
    }
}

/* [lo, hi] for reschedule_range: often around the item's expiry (a
 * timeout pushed back within its slack: nothing changes), sometimes not,
 * now and then invalid. */
static void fz_range(const struct th *h, size_t i, int64_t *lo, int64_t *hi)
{
    int64_t t = h->m[i].state != TH_IDLE ? h->m[i].expire : fz_expire(h);
    switch (th_below(8)) {
    case 0:
        *lo = fz_expire(h);
        *hi = fz_expire(h);          /* anything, hi < lo included */
        return;
    case 1:
        *lo = -1 - (int64_t)th_below(3);
        *hi = t;
        return;
    default:
        *lo = fz_sub(t, th_below(2) ? (int64_t)th_below(70) : fz_delta());
        *hi = fz_add(t < 0 ? 0 : t, th_below(4) ? (int64_t)th_below(70) : fz_delta());
        if (th_below(4) == 0)
            *lo = fz_add(*lo, (int64_t)th_below(140)); /* the item may fall below */
        return;
    }
}

/* expire and slack for reschedule_near: the expiry often near the item's
 * (a timeout pushed back within the slack: nothing changes), sometimes
 * anywhere; now and then one of them negative. */
static void fz_near(const struct th *h, size_t i, int64_t *expire, int64_t *slack)
{
    int64_t t = h->m[i].state != TH_IDLE ? h->m[i].expire : fz_expire(h);
    *slack = th_below(3) ? (int64_t)th_below(70) : fz_delta();
    switch (th_below(8)) {
    case 0:
        *expire = fz_expire(h);
        return;
    case 1:
        *expire = t < 0 ? 0 : t;
        if (th_below(2))
            *expire = -1 - (int64_t)th_below(3);
        else
            *slack = -1 - (int64_t)th_below(3);
        return;
    default:
        *expire = th_below(2) ? fz_add(t < 0 ? 0 : t, (int64_t)th_below(140)) : fz_sub(t, (int64_t)th_below(140));
        return;
    }
}

/* reschedule_range or reschedule_near of item i, half and half. */
static void fz_keep(struct th *h, size_t i)
{
    int64_t a, b;
    if (th_below(2)) {
        fz_range(h, i, &a, &b);
        th_reschedule_range(h, i, a, b);
    } else {
        fz_near(h, i, &a, &b);
        th_reschedule_near(h, i, a, b);
    }
}

/* The body of a tlist_foreach walk over the due list: re-arm the item
 * (a periodic timer), remove or free it, take a later due item out, insert
 * another, or leave it due. */
static void fz_walk_body(struct th *h, size_t id, void *ctx)
{
    long j;
    (void)ctx;
    switch (th_below(9)) {
    case 0:
    case 1:
        th_reschedule(h, id, fz_add(h->clock, fz_delta()));
        break;
    case 2:
        fz_keep(h, id);
        break;
    case 3:
        th_remove(h, id);
        break;
    case 4:
        th_free_item(h, id);
        break;
    case 5:
        if ((j = th_due_after(h, id, th_rand())) >= 0) {
            if (th_below(3) == 0)
                th_reschedule(h, (size_t)j, fz_expire(h));
            else if (th_below(2))
                th_remove(h, (size_t)j);
            else
                th_free_item(h, (size_t)j);
        }
        break;
    case 6:
        th_insert(h, fz_pick_in(h, TH_IDLE), fz_expire(h));
        break;
    default:
        break;
    }
    th_verify(h);
}

/* One random operation. The weights keep containers well filled (clear and
 * destroy+init are rare, because they empty everything). */
static void fz_step(struct th *h)
{
    size_t i = fz_pick(h), before;
    enum th_state s = h->m[i].state;
    uint64_t r = th_below(1000);
    int k;

    if (r < 30) {
        /* a burst of inserts, so that big containers occur too */
        for (k = (int)th_below(40); k > 0; k--) {
            th_insert(h, fz_pick_in(h, TH_IDLE), fz_expire(h));
            th_verify(h);
        }
    } else if (r < 380) {
        i = fz_pick_for_insert(h);
        s = h->m[i].state;
        fz_stat.ops[s][0]++;
        fz_maybe_fail_next();
        th_insert(h, i, fz_expire(h));
    } else if (r < 555) {
        fz_stat.ops[s][1]++;
        fz_maybe_fail_next();
        th_reschedule(h, i, th_below(3) ? fz_expire(h) : fz_expire_near(h, i));
    } else if (r < 580) {
        fz_stat.ranges++;
        fz_maybe_fail_next();
        fz_keep(h, i);
    } else if (r < 660) {
        fz_stat.ops[s][2]++;
        fz_maybe_fail_all();
        th_remove(h, i);
    } else if (r < 760) {
        fz_maybe_fail_all();
        fz_stat.pops++;
        fz_stat.popped += (long)th_pop(h, fz_now(h));
    } else if (r < 775) {
        fz_stat.next_expiry++;
        th_next_expiry(h);
    } else if (r < 785) {
        fz_stat.firsts++;
        th_first(h);
    } else if (r < 800) {
        fz_stat.next_expiry++;
        fz_maybe_fail_all();
        th_next_expiry_round(h);
    } else if (r < 900) {
        for (k = (int)th_below(6); k > 0 && th_drain_one(h) >= 0; k--)
            fz_stat.drained++;
    } else if (r < 918) {
        fz_callback_drain(h);
    } else if (r < 930) {
        fz_maybe_fail_all();
        fz_stat.walks++;
        th_pop(h, fz_now(h));
        th_walk_due(h, fz_walk_body, NULL);
    } else if (r < 955) {
        before = th_count(h, TH_DUE);
        th_min_time_rounds(h);
        fz_stat.rounds += th_count(h, TH_DUE) > before;
    } else if (r < 985) {
        fz_stat.ops[s][3]++;
        th_free_item(h, i);
    } else if (r < 990) {
        th_null_item(h);
    } else if (r < 994) {
        /* reserve: often more than the pool, so that inserts then meet an
         * allocator that fails and must not care */
        fz_stat.reserves++;
        if (th_below(3) == 0)
            tk_fail_next();
        th_reserve(h, (size_t)th_below(2 * h->n + 2));
        if (th_below(2))
            tk_fail_all(true);
        for (k = (int)th_below(8); k > 0; k--) {
            th_insert(h, fz_pick_for_insert(h), fz_expire(h));
            th_verify(h);
        }
    } else if (r < 997) {
        th_clear(h);
    } else {
        th_reinit(h, fz_init_now());
        TH_EQ(tk_live_blocks(), 0); /* destroy freed the heap's array */
    }
    tk_fail_none();
}

static uint64_t fz_fresh_seed(void)
{
    uint64_t s = (uint64_t)time(NULL) ^ ((uint64_t)clock() << 32);
    s ^= (uint64_t)(uintptr_t)&s; /* address randomisation adds a few bits */
    th_rng = s;
    return th_rand();
}

int main(int argc, char **argv)
{
    static const size_t sizes[] = { 1, 2, 5, 16, 64, 200 };
    /* an empty argument (what run.sh passes without SEED) means "not given" */
    const char *seed_arg = argc > 1 && *argv[1] ? argv[1] : getenv("TEST_SEED");
    const char *steps_arg = argc > 2 && *argv[2] ? argv[2] : getenv("TEST_STEPS");
    uint64_t seed = seed_arg && *seed_arg ? strtoull(seed_arg, NULL, 0) : fz_fresh_seed();
    long steps = steps_arg && *steps_arg ? atol(steps_arg) : 200000, done = 0;
    struct th h;

    printf("fuzz %s: seed %" PRIu64 ", %ld steps (replay: %s %" PRIu64 " %ld)\n", TK_KIND, seed, steps, argv[0], seed, steps);
    fflush(stdout);
    fz_init_scales();
    th_rng = seed;
    th_ctx.test = "fuzz";
    th_ctx.random = true;
    th_ctx.stop = true;
    th_ctx.seed = seed;
    signal(SIGABRT, th_on_abort);
    while (done < steps) {
        long s, len = 200 + (long)th_below(4000);
        if (len > steps - done)
            len = steps - done;
        fz_maxk = 1 + (int)th_below(10);
        fz_tick = fz_pow64((int)th_below((uint64_t)fz_maxk));
        th_ctx.episode = fz_stat.episodes++;
        th_ctx.step = done;
        th_init(&h, sizes[th_below(sizeof sizes / sizeof sizes[0])], fz_init_now());
        th_verify(&h);
        for (s = 0; s < len; s++) {
            th_ctx.step = done + s;
            fz_step(&h);
            th_verify(&h);
        }
        /* the end of the episode: by INT64_MAX everything is due */
        th_pop(&h, INT64_MAX);
        th_verify(&h);
        TH_EQ(tc_size(&h.c), 0);
        th_fini(&h);
        done += len;
    }
    printf("fuzz %s: %ld episodes; insert/reschedule/remove/free of idle %ld/%ld/%ld/%ld, pending %ld/%ld/%ld/%ld, "
           "due %ld/%ld/%ld/%ld; %ld pops took %ld items; %ld drained; %ld min_time rounds popped; "
           "%ld next_expiry; %ld reserve; %ld reschedule_range or _near; %ld first; %ld tlist_foreach walks\n",
           TK_KIND, fz_stat.episodes, fz_stat.ops[TH_IDLE][0], fz_stat.ops[TH_IDLE][1], fz_stat.ops[TH_IDLE][2],
           fz_stat.ops[TH_IDLE][3], fz_stat.ops[TH_PENDING][0], fz_stat.ops[TH_PENDING][1], fz_stat.ops[TH_PENDING][2],
           fz_stat.ops[TH_PENDING][3], fz_stat.ops[TH_DUE][0], fz_stat.ops[TH_DUE][1], fz_stat.ops[TH_DUE][2],
           fz_stat.ops[TH_DUE][3], fz_stat.pops, fz_stat.popped, fz_stat.drained, fz_stat.rounds,
           fz_stat.next_expiry, fz_stat.reserves, fz_stat.ranges, fz_stat.firsts, fz_stat.walks);
    printf("fuzz %s: %s\n", TK_KIND, th_failures ? "FAILED" : "ok");
    return th_failures != 0;
}
