/* lockstep.c - the three containers driven by the same calls must behave as one.
 *
 *     lockstep [SEED [STEPS]]        (an empty argument: a fresh seed, printed)
 *
 * Contract v2 promises that a program behaves identically whichever
 * container it uses. This test holds all three at once: every item embeds a
 * set, a heap and a wheel node, and each random call (insert, reschedule and
 * remove of idle, pending and due items, pop with now jumping by every wheel
 * scale or going back, draining with callbacks that touch other items,
 * next_expiry, reserve, clear, destroy+init, freeing items) goes to all three
 * with the same arguments. After every call it requires:
 *   - the same return value from each (errors included);
 *   - the same result lists: each pop appends the same items in the same
 *     order to each container's list, and draining takes the same item off
 *     the front of each;
 *   - the same next_expiry from each (in "strict" episodes after every call;
 *     in "lazy" ones every 32nd call, so that pops also meet wheels that
 *     next_expiry has not refined), and the same min_time from set and heap,
 *     never later for the wheel;
 *   - the same size, and for every touched item the same pending() and
 *     due() in the three containers;
 * and each container's check() passes every 256 calls and at the end of
 * each episode. This is not a model of the contract (harness.h is, for each
 * kind alone): it proves the kinds agree with each other, over many more
 * calls than the O(n) model can afford. The seed and the failing step are
 * printed; the same SEED and STEPS replay the run.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c99 */
#include "timer_set.h"
#include "timer_heap.h"
#include "timer_wheel.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct ls_item {
    struct timer_set_node sn;
    struct timer_heap_node hn;
    struct timer_wheel_node wn;
    size_t id;
};

TIMER_SET_DEFINE_NAMED(ls_set, struct ls_item, sn)
TIMER_HEAP_DEFINE_NAMED(ls_heap, struct ls_item, hn)
TIMER_WHEEL_DEFINE_NAMED(ls_wheel, struct ls_item, wn)

static ls_set S;
static ls_heap H;
static ls_wheel W;
static struct tlist S_out, H_out, W_out; /* zeroed: empty lists */
static struct ls_item **pool;
static size_t pool_n;
static int64_t clock_hi; /* the latest now passed to init or pop */

static uint64_t rng, seed;
static long step, episode;
static const char *op = "";
static bool strict;

static uint64_t rnd(void)
{
    uint64_t z = (rng += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static uint64_t below(uint64_t n)
{
    return rnd() % n;
}

static void fail(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

static void fail(const char *fmt, ...)
{
    va_list ap;
    printf("FAIL lockstep seed=%" PRIu64 " episode=%ld step=%ld op=%s: ", seed, episode, step, op);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n(replay: lockstep %" PRIu64 " STEPS)\n", seed);
    exit(1);
}

/* ---- times ---------------------------------------------------------------- */

static int64_t sat_add(int64_t t, int64_t d)
{
    return t > INT64_MAX - d ? INT64_MAX : t + d;
}

static int64_t sat_sub(int64_t t, int64_t d)
{
    return t < d ? 0 : t - d;
}

static int ep_maxk;     /* this episode's largest scale: 64^ep_maxk */
static int64_t ep_tick; /* how far a pop usually moves */
static int ep_spread;   /* expiries per tick drawn from: small means many ties */

static int64_t pow64(int k)
{
    return (int64_t)(UINT64_C(1) << (6 * k));
}

static int64_t delta(void)
{
    switch (below(8)) {
    case 0:
        return (int64_t)below(3);
    case 1:
    case 2:
        return pow64((int)below((uint64_t)ep_maxk + 1)) + (int64_t)below(3) - 1;
    case 7:
        return below(30) ? (int64_t)below((uint64_t)pow64(ep_maxk) + 2) : (int64_t)(rnd() >> 1);
    default:
        return (int64_t)below((uint64_t)ep_tick * 4 + 1);
    }
}

/* An expiry; ties are frequent (ep_spread), negative ones rare. */
static int64_t expiry(void)
{
    int64_t t;
    switch (below(24)) {
    case 0:
        return -1 - (int64_t)below(5);
    case 1:
        return INT64_MAX - (int64_t)below(2);
    case 2:
    case 3:
        return sat_sub(clock_hi, delta()); /* overdue */
    case 4: {
        size_t j = below(pool_n); /* the expiry of another item: a tie */
        return ls_set_pending(pool[j]) || ls_set_due(pool[j]) ? ls_set_expire(pool[j]) : clock_hi;
    }
    default:
        t = sat_add(clock_hi, delta());
        return ep_spread ? t - t % ep_spread : t;
    }
}

static int64_t pop_time(void)
{
    switch (below(16)) {
    case 0:
        return sat_sub(clock_hi, delta()); /* back */
    case 1:
        return -1;
    case 2:
        return sat_add(clock_hi, pow64((int)below((uint64_t)ep_maxk + 1)));
    default:
        return sat_add(clock_hi, (int64_t)below((uint64_t)ep_tick * 2 + 1));
    }
}

/* ---- the three containers, compared ------------------------------------------ */

static void same_item_state(const struct ls_item *it)
{
    bool p = ls_set_pending(it), d = ls_set_due(it);
    if (ls_heap_pending(it) != p || ls_wheel_pending(it) != p)
        fail("item %zu: pending() set %d heap %d wheel %d", it->id, p, ls_heap_pending(it), ls_wheel_pending(it));
    if (ls_heap_due(it) != d || ls_wheel_due(it) != d)
        fail("item %zu: due() set %d heap %d wheel %d", it->id, d, ls_heap_due(it), ls_wheel_due(it));
    if ((p || d) && (ls_heap_expire(it) != ls_set_expire(it) || ls_wheel_expire(it) != ls_set_expire(it)))
        fail("item %zu: expire() set %" PRId64 " heap %" PRId64 " wheel %" PRId64, it->id, ls_set_expire(it),
             ls_heap_expire(it), ls_wheel_expire(it));
}

static void same_rc(int s, int h, int w)
{
    if (h != s || w != s)
        fail("returned set %d heap %d wheel %d", s, h, w);
}

static void same_next_expiry(void)
{
    int64_t s = ls_set_next_expiry(&S), h = ls_heap_next_expiry(&H), w = ls_wheel_next_expiry(&W);
    if (h != s || w != s)
        fail("next_expiry() set %" PRId64 " heap %" PRId64 " wheel %" PRId64, s, h, w);
}

/* After every call: sizes, min_time, and next_expiry (always when strict). */
static void same_after(void)
{
    int64_t ms = ls_set_min_time(&S), mh = ls_heap_min_time(&H), mw = ls_wheel_min_time(&W);
    if (ls_heap_size(&H) != ls_set_size(&S) || ls_wheel_size(&W) != ls_set_size(&S))
        fail("size() set %zu heap %zu wheel %zu", ls_set_size(&S), ls_heap_size(&H), ls_wheel_size(&W));
    if (mh != ms || mw > ms)
        fail("min_time() set %" PRId64 " heap %" PRId64 " wheel %" PRId64 " (the wheel's may only be earlier)", ms, mh, mw);
    if (strict || (step & 31) == 0)
        same_next_expiry();
    if ((step & 255) == 0) {
        const char *why;
        if ((why = ls_set_check(&S)) != NULL || (why = ls_heap_check(&H)) != NULL || (why = ls_wheel_check(&W)) != NULL)
            fail("check(): %s", why);
    }
}

static void insert(size_t i, int64_t t)
{
    op = "insert";
#if !defined(NDEBUG)
    if (ls_set_due(pool[i]))
        return; /* aborts in builds with asserts (v2.2; debug.c tests it) */
#endif
    same_rc(ls_set_insert(&S, t, pool[i]), ls_heap_insert(&H, t, pool[i]), ls_wheel_insert(&W, t, pool[i]));
    same_item_state(pool[i]);
}

static void reschedule(size_t i, int64_t t)
{
    op = "reschedule";
    same_rc(ls_set_reschedule(&S, t, pool[i]), ls_heap_reschedule(&H, t, pool[i]), ls_wheel_reschedule(&W, t, pool[i]));
    same_item_state(pool[i]);
}

static void reschedule_range(size_t i, int64_t lo, int64_t hi)
{
    op = "reschedule_range";
    same_rc(ls_set_reschedule_range(&S, lo, hi, pool[i]), ls_heap_reschedule_range(&H, lo, hi, pool[i]),
            ls_wheel_reschedule_range(&W, lo, hi, pool[i]));
    same_item_state(pool[i]);
}

static void reschedule_near(size_t i, int64_t t, int64_t slack)
{
    op = "reschedule_near";
    same_rc(ls_set_reschedule_near(&S, t, slack, pool[i]), ls_heap_reschedule_near(&H, t, slack, pool[i]),
            ls_wheel_reschedule_near(&W, t, slack, pool[i]));
    same_item_state(pool[i]);
}

/* first: the same item from each (pop's first); visit: every pending item
 * once, so the same count and the same sum of ids. */
static void count_visit(struct ls_item *it, void *arg)
{
    size_t *acc = (size_t *)arg;
    acc[0]++;
    acc[1] += it->id;
}

static void same_first_and_visit(void)
{
    struct ls_item *a = ls_set_first(&S), *b = ls_heap_first(&H), *c = ls_wheel_first(&W);
    size_t vs[2] = { 0, 0 }, vh[2] = { 0, 0 }, vw[2] = { 0, 0 }, ks, kh, kw;
    op = "first";
    if (b != a || c != a)
        fail("first() set %zu heap %zu wheel %zu", a ? a->id : (size_t)-1, b ? b->id : (size_t)-1, c ? c->id : (size_t)-1);
    op = "visit";
    ks = ls_set_visit(&S, count_visit, vs);
    kh = ls_heap_visit(&H, count_visit, vh);
    kw = ls_wheel_visit(&W, count_visit, vw);
    if (ks != ls_set_size(&S) || kh != ks || kw != ks || vs[0] != ks || vh[0] != ks || vw[0] != ks || vh[1] != vs[1] ||
        vw[1] != vs[1])
        fail("visit() returned set %zu heap %zu wheel %zu, called fn %zu / %zu / %zu times, id sums %zu / %zu / %zu", ks, kh,
             kw, vs[0], vh[0], vw[0], vs[1], vh[1], vw[1]);
}

static void remove_item(size_t i)
{
    op = "remove";
    same_rc(ls_set_remove(&S, pool[i]), ls_heap_remove(&H, pool[i]), ls_wheel_remove(&W, pool[i]));
    same_item_state(pool[i]);
}

/* Pop all three; the items each appends (after what its list held) must be
 * the same, in the same order. */
static size_t pop(int64_t now)
{
    struct tlist *s = tlist_last_(&S_out), *h = tlist_last_(&H_out), *w = tlist_last_(&W_out);
    size_t ks, kh, kw, k;
    op = "pop";
    ks = ls_set_pop(&S, now, &S_out);
    kh = ls_heap_pop(&H, now, &H_out);
    kw = ls_wheel_pop(&W, now, &W_out);
    if (kh != ks || kw != ks)
        fail("pop(%" PRId64 ") popped set %zu heap %zu wheel %zu", now, ks, kh, kw);
    for (k = 0; k < ks; k++) {
        struct ls_item *a, *b, *c;
        s = s->next; /* from the old last link, or from the head when it was empty */
        h = h->next;
        w = w->next;
        a = ls_set_entry(s);
        b = ls_heap_entry(h);
        c = ls_wheel_entry(w);
        if (b != a || c != a)
            fail("pop(%" PRId64 ") position %zu of %zu: set item %zu (expire %" PRId64 "), heap item %zu (%" PRId64
                 "), wheel item %zu (%" PRId64 ")",
                 now, k, ks, a->id, ls_set_expire(a), b->id, ls_heap_expire(b), c->id, ls_wheel_expire(c));
        same_item_state(a);
    }
    if (now > clock_hi)
        clock_hi = now;
    return ks;
}

/* Take the front of each result list: the same item, or none in all three. */
static struct ls_item *drain_one(void)
{
    struct ls_item *a, *b, *c;
    op = "drain";
    a = ls_set_entry(tlist_pop_front(&S_out));
    b = ls_heap_entry(tlist_pop_front(&H_out));
    c = ls_wheel_entry(tlist_pop_front(&W_out));
    if (b != a || c != a)
        fail("result lists' fronts differ: set %zu heap %zu wheel %zu", a ? a->id : (size_t)-1, b ? b->id : (size_t)-1,
             c ? c->id : (size_t)-1);
    if (a != NULL)
        same_item_state(a);
    return a;
}

/* The user frees an item: remove it from all three first. */
static void free_item(size_t i)
{
    remove_item(i);
    op = "free";
    free(pool[i]);
    pool[i] = (struct ls_item *)calloc(1, sizeof *pool[i]);
    if (pool[i] == NULL)
        fail("out of memory");
    pool[i]->id = i;
}

static void drain_with_callbacks(void)
{
    struct ls_item *it;
    pop(pop_time());
    same_after();
    while ((it = drain_one()) != NULL) {
        size_t self = it->id; /* it may be freed below: pool[self] is then a fresh item */
        int k;
        for (k = (int)below(4); k > 0; k--) {
            size_t j = below(pool_n);
            switch (below(6)) {
            case 0:
                reschedule(self, expiry()); /* re-arm itself */
                break;
            case 1:
                insert(j, expiry());
                break;
            case 2:
                reschedule(j, expiry());
                break;
            case 3:
                remove_item(j); /* maybe a due one still in the lists */
                break;
            case 4:
                op = "next_expiry";
                same_next_expiry();
                break;
            default:
                free_item(j);
                break;
            }
            same_after();
        }
    }
}

static void reinit(int64_t now)
{
    op = "destroy+init";
    ls_set_destroy(&S);
    ls_heap_destroy(&H);
    ls_wheel_destroy(&W);
    ls_set_init(&S, now);
    ls_heap_init(&H, now);
    ls_wheel_init(&W, now);
    clock_hi = now < 0 ? 0 : now;
}

static void step_once(void)
{
    uint64_t r = below(1000);
    size_t i = below(pool_n), k;
    if (r < 330) {
        insert(i, expiry());
    } else if (r < 470) {
        int64_t t = expiry();
        if (below(3) == 0 && (ls_set_pending(pool[i]) || ls_set_due(pool[i])))
            t = sat_add(ls_set_expire(pool[i]), (int64_t)below(70)); /* pushed back a little: same wheel slot */
        reschedule(i, t);
    } else if (r < 500) {
        /* an idle timeout pushed back within its slack: often nothing changes */
        int64_t t = ls_set_pending(pool[i]) ? ls_set_expire(pool[i]) : expiry(), lo, hi;
        lo = below(8) == 0 ? expiry() : sat_sub(t < 0 ? 0 : t, (int64_t)below(100));
        hi = below(8) == 0 ? expiry() : sat_add(t < 0 ? 0 : t, (int64_t)below(100));
        if (below(2))
            reschedule_range(i, lo, hi);
        else
            reschedule_near(i, below(8) == 0 ? expiry() : hi, below(32) == 0 ? -1 : (int64_t)below(100));
    } else if (r < 600) {
        remove_item(i);
    } else if (r < 760) {
        pop(pop_time());
    } else if (r < 880) {
        for (k = below(8); k > 0 && drain_one() != NULL; k--)
            ;
    } else if (r < 920) {
        drain_with_callbacks();
    } else if (r < 950) {
        int64_t t;
        op = "next_expiry round"; /* an event loop: sleep until next_expiry, pop */
        same_next_expiry();
        t = ls_set_next_expiry(&S);
        if (!ls_set_empty(&S) && pop(t) == 0)
            fail("pop(next_expiry() = %" PRId64 ") popped nothing", t);
    } else if (r < 960) {
        free_item(i);
    } else if (r < 970) {
        same_first_and_visit();
    } else if (r < 985) {
        op = "reserve";
        k = below(2 * pool_n + 1);
        same_rc(ls_set_reserve(&S, k), ls_heap_reserve(&H, k), ls_wheel_reserve(&W, k));
    } else if (r < 993) {
        op = "clear";
        ls_set_clear(&S);
        ls_heap_clear(&H);
        ls_wheel_clear(&W);
    } else {
        reinit(below(2) ? clock_hi : (int64_t)(rnd() >> (1 + below(62))));
    }
    same_after();
}

static void end_episode(void)
{
    const char *why;
    size_t i;
    op = "end of episode";
    pop(INT64_MAX);
    if (!ls_set_empty(&S) || !ls_heap_empty(&H) || !ls_wheel_empty(&W))
        fail("pop(INT64_MAX) left items pending");
    while (drain_one() != NULL)
        ;
    if ((why = ls_set_check(&S)) != NULL || (why = ls_heap_check(&H)) != NULL || (why = ls_wheel_check(&W)) != NULL)
        fail("check(): %s", why);
    for (i = 0; i < pool_n; i++) {
        same_item_state(pool[i]);
        if (ls_set_pending(pool[i]) || ls_set_due(pool[i]))
            fail("item %zu is still pending or due", i);
        free(pool[i]);
    }
    free(pool);
    ls_set_destroy(&S);
    ls_heap_destroy(&H);
    ls_wheel_destroy(&W);
}

int main(int argc, char **argv)
{
    static const size_t sizes[] = { 1, 3, 16, 100, 1000, 5000 };
    const char *seed_arg = argc > 1 && *argv[1] ? argv[1] : NULL;
    long steps = argc > 2 && *argv[2] ? atol(argv[2]) : 1000000, done = 0, strict_eps = 0;
    size_t i;

    if (seed_arg != NULL) {
        seed = strtoull(seed_arg, NULL, 0);
    } else {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        rng = (uint64_t)ts.tv_sec * 1000000007u ^ (uint64_t)ts.tv_nsec ^ (uint64_t)(uintptr_t)&ts;
        seed = rnd();
    }
    printf("lockstep: seed %" PRIu64 ", %ld steps (replay: %s %" PRIu64 " %ld)\n", seed, steps, argv[0], seed, steps);
    fflush(stdout);
    rng = seed;
    while (done < steps) {
        long len = 500 + (long)below(20000), s;
        if (len > steps - done)
            len = steps - done;
        pool_n = sizes[below(sizeof sizes / sizeof sizes[0])];
        pool = (struct ls_item **)calloc(pool_n, sizeof *pool);
        if (pool == NULL)
            fail("out of memory");
        for (i = 0; i < pool_n; i++) {
            pool[i] = (struct ls_item *)calloc(1, sizeof *pool[i]); /* zeroed nodes: idle */
            if (pool[i] == NULL)
                fail("out of memory");
            pool[i]->id = i;
        }
        ep_maxk = 1 + (int)below(10);
        ep_tick = pow64((int)below((uint64_t)ep_maxk));
        ep_spread = below(3) == 0 ? 0 : (int)(1 + below(ep_tick > 64 ? 64 : (uint64_t)ep_tick));
        strict = below(2) == 0;
        strict_eps += strict;
        reinit(below(4) == 0 ? 0 : (int64_t)(rnd() >> (1 + below(62))));
        for (s = 0; s < len; s++) {
            step = done + s;
            step_once();
        }
        step = done + len;
        end_episode();
        done += len;
        episode++;
    }
    printf("lockstep: %ld episodes (%ld strict), %ld steps: set, heap and wheel agreed on every call\n", episode,
           strict_eps, done);
    return 0;
}
