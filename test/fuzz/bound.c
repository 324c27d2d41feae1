/* bound.c - the complexity fuzzer: it hunts for one call of the wheel that
 * does more work than the bound per call allows (contract v2.3 and v2.4,
 * ../bound.h, docs/guarantees.md), as SlowFuzz and PerfFuzz hunt for slow
 * inputs.
 *
 *   clang -fsanitize=fuzzer[,address,undefined] ...
 *       libFuzzer drives LLVMFuzzerTestOneInput; run with
 *       -use_value_profile=1, so that the comparison of a call's steps with
 *       its bound is a feature and inputs that bring the two closer are
 *       kept. The first call over its bound aborts (the input is saved).
 *   cc -DFB_STANDALONE ...
 *       bound [replay] FILE|DIR...   run each input (the corpus, a crash)
 *       bound search SECONDS [SEED]  a seeded random search where libFuzzer
 *                                    is missing: random programs, and
 *                                    mutations of the best ones so far
 *       FB_TRACE=1 prints every call with its steps and bound.
 *
 * The wheel is built with C = 8 and a pace of 4 (TIMER_WHEEL_C and
 * TIMER_WHEEL_PACE; 4,088 and 48 in a real build): the constant part of
 * the bound shrinks with them, so a mechanism that costs O(n) in one call
 * shows with a few thousand items, where an input runs in milliseconds.
 * FB_ALLOWANCE=0 builds the real thing.
 *
 * What is checked, for every call (steps: items moved and links walked, the
 * wheel's test hooks):
 *   insert, reschedule, reschedule_range, remove: steps <= FB_C_CHANGE
 *   pop, next_expiry, first, visit: steps <= FB_C + 8 x items handed out
 *       + 8 x (changes since the previous such call) + X
 * where X is the one exception (contract v2.4), computed here from this
 * file's own model of the pending items and of the clock (the wheel's
 * `now`, which only pop moves), level by level from 1 to 10. The call
 * reaches the groups of level l from the one after the clock's (at its
 * start) to the one of its time T (pop: now; next_expiry, first: the expiry
 * it answers).
 *   - The group after the clock's is the pending one. If its window was open
 *     when the previous query ended, it may cost 2 steps (a move down and a
 *     link walked) for each item that pacing left there: those in its range
 *     when the window opened and those that came since, less the share of
 *     each pop that moved the clock and stopped short of its pace (it did
 *     the share of the ticks it moved, as timer_wheel.h's work_ computes
 *     it), and none after a query that stopped short of its 8s (it did all
 *     there was). Otherwise the call jumped over the window: 2 for each of
 *     its items.
 *   - Each later group was never pending, and no call could prepare it: l + 2
 *     steps for each of its items (a query that must read such a slot puts
 *     it in order: a radix pass for each of at most l digits, a walk, a
 *     merge).
 * Every item is checked too: the items each pop hands out and their order,
 * next_expiry and first, against the model. Correctness is
 * test/fuzz/target.c's job and is checked only as far as the bound needs it.
 *
 * The input is a program: byte 0 sizes the pool (64 << (b % 7) items), byte
 * 1 the first clock; then opcode bytes (b % 18) with their operands (see
 * fb_op). Bytes past the end read as 0. bound_seeds.py writes the corpus
 * (bound-corpus/), the inputs that broke 2.2.0 and 2.3.0, in this encoding.
 */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef FB_ALLOWANCE
#define FB_ALLOWANCE 8
#endif
#if FB_ALLOWANCE != 0
#define TIMER_WHEEL_C FB_ALLOWANCE
#define TIMER_WHEEL_PACE (FB_ALLOWANCE / 2)
#endif
static unsigned long long fb_steps;
#define TIMER_WHEEL_ON_MOVE_() ((void)fb_steps++)
#define TIMER_WHEEL_ON_WALK_(k) ((void)(fb_steps += (unsigned long long)(k)))
#include "../../timer_wheel.h"
#include "../bound.h"
#include "input.h"

/* The constant parts of the bound at this C (docs/guarantees.md derives
 * them): a query stops the work owed at its limit C (or, when C is smaller,
 * spends the FEW + 1 links it may walk to read a small slot), and a step of
 * that work may go FEW beyond it (a run cut walks at least FEW links); a
 * change merges 8 items on each tier of the merge behind the clock. In a
 * real build they come to 4,096 (C is 4,088) and 313 (an insert behind the
 * clock, out of order, while many items wait there); a pop that keeps pace
 * stops at PACE, 56 with the overshoot (within the loops' C = 64). */
#define FB_OWN (TIMER_WHEEL_FEW + 1)    /* a slot of at most FEW items, searched */
#define FB_C ((TIMER_WHEEL_C > FB_OWN ? TIMER_WHEEL_C : FB_OWN) + TIMER_WHEEL_FEW)
#define FB_C_CHANGE (8 * TIMER_WHEEL_TIERS + 1)

struct fitem {
    struct timer_wheel_node node;
    uint64_t seq;
};
TIMER_WHEEL_DEFINE_NAMED(fw, struct fitem, node)

/* ---- the model: the pending items, sorted by (expiry, arrival) ----------- */

struct mrec {
    int64_t expire;
    uint64_t seq;
    int id;
};

static struct {
    struct mrec *r;         /* sorted */
    size_t n;
    int64_t *expire;        /* by id; -1: not pending */
    uint64_t seq;
} fm;

static int fm_less(const struct mrec *a, int64_t e, uint64_t s)
{
    return a->expire < e || (a->expire == e && a->seq < s);
}

/* The index of the first record not less than (e, s). */
static size_t fm_lower(int64_t e, uint64_t s)
{
    size_t lo = 0, hi = fm.n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (fm_less(&fm.r[mid], e, s))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void fm_del(int id, uint64_t seq)
{
    size_t i = fm_lower(fm.expire[id], seq);
    memmove(&fm.r[i], &fm.r[i + 1], (fm.n - i - 1) * sizeof fm.r[0]);
    fm.n--;
    fm.expire[id] = -1;
}

static void fm_arm(int id, int64_t e, uint64_t *seq)
{
    size_t i;
    *seq = ++fm.seq;
    i = fm_lower(e, *seq);
    memmove(&fm.r[i + 1], &fm.r[i], (fm.n - i) * sizeof fm.r[0]);
    fm.r[i].expire = e;
    fm.r[i].seq = *seq;
    fm.r[i].id = id;
    fm.n++;
    fm.expire[id] = e;
}

/* Pending items with lo <= expire <= hi (seq 0 is before every arrival). */
static size_t fm_count(int64_t lo, int64_t hi)
{
    if (hi < lo)
        return 0;
    return (hi == INT64_MAX ? fm.n : fm_lower(hi + 1, 0)) - fm_lower(lo, 0);
}

/* ---- the run --------------------------------------------------------------- */

static struct {
    fw w;
    struct fitem *it;
    int n;
    unsigned long long changes;   /* since the previous query */
    /* By level, after the previous query: the pending group when its
     * window is open (else 0: no group is pending at 0), and the items that
     * count as its work left (see the top). */
    uint64_t pg[TIMER_WHEEL_LEVELS];
    size_t pn[TIMER_WHEEL_LEVELS];
    long long worst;              /* the least margin (bound - steps) of this input */
    unsigned long long xused;     /* the most of the exception one call needed */
    const char *worst_call;
    int trace;
    uint64_t rng;
} fb;

static uint64_t fb_rand(void)
{
    fb.rng ^= fb.rng << 13;
    fb.rng ^= fb.rng >> 7;
    fb.rng ^= fb.rng << 17;
    return fb.rng;
}

static int64_t fb_add(int64_t a, int64_t d)
{
    if (d > 0 && a > INT64_MAX - d)
        return INT64_MAX;
    if (d < 0 && a < -d)
        return 0;
    return a + d;
}

static void fb_fail(const char *what, unsigned long long steps, unsigned long long bound)
{
    printf("FAIL bound: %s took %llu steps, its bound is %llu (allowance C = %d)\n", what, steps, bound,
           TIMER_WHEEL_C);
    fflush(stdout);
    abort();
}

static void fb_expect(int ok, const char *what)
{
    if (!ok) {
        printf("FAIL bound: %s (a wrong answer: see test/fuzz/target.c)\n", what);
        fflush(stdout);
        abort();
    }
}

static int64_t fb_clock(void)
{
    return fw_ccore_(&fb.w)->now;
}

/* The group of t at level l, and its first tick (saturating). */
static uint64_t fb_group(int64_t t, int l)
{
    return (uint64_t)t >> (TIMER_WHEEL_BITS * l);
}

static int64_t fb_start(uint64_t g, int l)
{
    return g > ((uint64_t)INT64_MAX >> (TIMER_WHEEL_BITS * l)) ? INT64_MAX : (int64_t)(g << (TIMER_WHEEL_BITS * l));
}

/* The last tick of group g at level l (INT64_MAX for the last group). */
static int64_t fb_end(uint64_t g, int l)
{
    return g >= ((uint64_t)INT64_MAX >> (TIMER_WHEEL_BITS * l)) ? INT64_MAX : fb_start(g + 1, l) - 1;
}

/* X: what a query from clock c0 to time T may do beyond the rest of B. */
static unsigned long long fb_exception(int64_t c0, int64_t t)
{
    unsigned long long x = 0;
    int l;
    for (l = 1; l < TIMER_WHEEL_LEVELS; l++) {
        uint64_t g0 = fb_group(c0, l), gt = fb_group(t, l);
        if (gt <= g0)
            continue;
        if (fb.pg[l] == g0 + 1)
            x += 2 * fb.pn[l];
        else
            x += 2 * fm_count(fb_start(g0 + 1, l), fb_end(g0 + 1, l));
        if (gt >= g0 + 2)
            x += (unsigned long long)(l + 2) * fm_count(fb_start(g0 + 2, l), fb_end(gt, l));
    }
    return x;
}

/* Is level l's window open with the clock at c (the clock's digit at level
 * l - 1 is BOUND_WINDOW_FROM or more; level 1: always)? */
static int fb_open(int64_t c, int l)
{
    return l == 1 || (fb_group(c, l - 1) & 63) >= BOUND_WINDOW_FROM;
}

/* After a query that started at clock c0 and spent `steps`, having handed
 * out `items`, `changes` calls after the previous query: by level, the
 * pending group whose window is open, and its work left (timer_wheel.h's
 * pacing): all its items when its window has just opened; after a pop that
 * moved the clock and kept within the pace (less than PACE + 8 per item + 8
 * per change: it did each level's share), the share of the ticks left;
 * after a query that did not move the clock and spent less than its 8 per
 * item and change, nothing (it did all there was); else what it had. */
static void fb_after_query(int64_t c0, unsigned long long steps, size_t items,
                           unsigned long long changes)
{
    int64_t c = fb_clock();
    unsigned long long eights = BOUND_PER_ITEM * (unsigned long long)items + BOUND_PER_CHANGE * changes;
    int l;
    for (l = 1; l < TIMER_WHEEL_LEVELS; l++) {
        uint64_t g = fb_group(c, l) + 1, start = (uint64_t)fb_start(g, l);
        if (!fb_open(c, l)) {
            fb.pg[l] = 0;
            continue;
        }
        if (g != fb.pg[l]) {
            fb.pg[l] = g;
            fb.pn[l] = fm_count(fb_start(g, l), fb_end(g, l));
        } else if (c > c0 && steps + TIMER_WHEEL_FEW < TIMER_WHEEL_PACE + eights) {
            uint64_t k = (start - (uint64_t)c) / (uint64_t)(c - c0);   /* its share: see work_ */
            fb.pn[l] -= (size_t)((fb.pn[l] + k) / (k + 1));
        } else if (c == c0 && steps + TIMER_WHEEL_FEW < eights) {
            fb.pn[l] = 0;
        }
    }
    fb.changes = 0;
}

/* An item came into the range of a pending group whose window is open:
 * work for that window. */
static void fb_arrive(int64_t e)
{
    int l;
    for (l = 1; l < TIMER_WHEEL_LEVELS; l++)
        if (fb.pg[l] != 0 && fb_group(e, l) == fb.pg[l])
            fb.pn[l]++;
}

/* Judge one call: steps against its bound, of which x is the exception
 * (the most a call used of it is reported: 0 means every call met B). */
static void fb_judge(const char *what, unsigned long long steps, unsigned long long bound,
                     unsigned long long x)
{
    if (steps + x > bound && steps + x - bound > fb.xused)
        fb.xused = steps + x - bound;
    long long margin = (long long)bound - (long long)steps;
    if (fb.trace)
        printf("  %-12s steps %6llu bound %8llu\n", what, steps, bound);
    if (margin < fb.worst) {
        fb.worst = margin;
        fb.worst_call = what;
    }
    if (steps > bound)  /* with -use_value_profile=1, a feature: the distance of the two */
        fb_fail(what, steps, bound);
}

static void fb_change(const char *what, unsigned long long s0)
{
    fb_judge(what, fb_steps - s0, FB_C_CHANGE, 0);
    fb.changes++;
}

static void fb_insert(int id, int64_t e)
{
    unsigned long long s0 = fb_steps;
    int rc;
    if (fm.expire[id] >= 0) {          /* pending: a reschedule */
        uint64_t old = fb.it[id].seq;
        rc = fw_reschedule(&fb.w, e, &fb.it[id]);
        fb_change("reschedule", s0);
        fb_expect(rc == 0, "reschedule returned an error");
        fm_del(id, old);
    } else {
        rc = fw_insert(&fb.w, e, &fb.it[id]);
        fb_change("insert", s0);
        fb_expect(rc == 0, "insert returned an error");
    }
    fm_arm(id, e, &fb.it[id].seq);
    fb_arrive(e);
}

static void fb_remove(int id)
{
    unsigned long long s0 = fb_steps;
    bool got = fw_remove(&fb.w, &fb.it[id]);
    fb_change("remove", s0);
    fb_expect(got == (fm.expire[id] >= 0), "remove answered wrong");
    if (fm.expire[id] >= 0)
        fm_del(id, fb.it[id].seq);
}

static void fb_range(int id, int64_t lo, int64_t hi)
{
    unsigned long long s0 = fb_steps;
    bool inside = fm.expire[id] >= lo && fm.expire[id] <= hi && fm.expire[id] >= 0;
    int rc = fw_reschedule_range(&fb.w, lo, hi, &fb.it[id]);
    fb_change("reschedule_range", s0);
    fb_expect(rc == 0, "reschedule_range returned an error");
    if (!inside) {
        if (fm.expire[id] >= 0)
            fm_del(id, fb.it[id].seq);
        fm_arm(id, hi, &fb.it[id].seq);
        fb_arrive(hi);
    }
}

/* pop(now): exactly the model's prefix, in order; then the bound. The due
 * items are re-armed as `rearm` says (0: left idle). */
static size_t fb_pop(int64_t now, int64_t rearm)
{
    struct tlist out = {0, 0}, *link;
    unsigned long long s0 = fb_steps;
    int64_t c0 = fb_clock();
    size_t k = fw_pop(&fb.w, now, &out), i = 0;
    unsigned long long steps = fb_steps - s0, x;
    int *ids = (int *)malloc((k ? k : 1) * sizeof *ids);
    fb_expect(ids != NULL, "out of memory");
    while ((link = tlist_pop_front(&out)) != NULL) {
        struct fitem *it = fw_entry(link);
        fb_expect(i < k && i < fm.n && fm.r[i].id == (int)(it - fb.it) && fm.r[i].expire <= now,
                  "pop handed out the wrong item");
        ids[i++] = (int)(it - fb.it);
    }
    fb_expect(i == k && (k == fm.n || fm.r[k].expire > now), "pop left a due item or handed out too few");
    if (fb.trace)
        printf("  pop(%lld): clock %lld -> %lld, %zu handed out, %zu pending\n", (long long)now, (long long)c0,
               (long long)fb_clock(), k, fm.n - k);
    x = fb_exception(c0, now > c0 ? now : c0);
    fb_judge("pop", steps, bound_of_c(FB_C, true, k, fb.changes) + x, x);
    memmove(fm.r, fm.r + k, (fm.n - k) * sizeof fm.r[0]);
    fm.n -= k;
    for (i = 0; i < k; i++)
        fm.expire[ids[i]] = -1;
    fb_after_query(c0, steps, k, fb.changes);
    for (i = 0; rearm != 0 && i < k; i++)
        fb_insert(ids[i], fb_add(now, rearm > 0 ? rearm : 1 + (int64_t)(fb_rand() % (uint64_t)-rearm)));
    free(ids);
    return k;
}

static void fb_count_one(struct fitem *it, void *arg)
{
    (void)it;
    ++*(size_t *)arg;
}

/* next_expiry (0), first (1) or visit (2). */
static void fb_query(int kind)
{
    static const char *const name[] = {"next_expiry", "first", "visit"};
    unsigned long long s0 = fb_steps;
    int64_t c0 = fb_clock(), want = fm.n ? fm.r[0].expire : TIMER_NEVER, t;
    if (kind == 0) {
        t = fw_next_expiry(&fb.w);
        fb_expect(t == want, "next_expiry answered wrong");
    } else if (kind == 1) {
        struct fitem *f = fw_first(&fb.w);
        fb_expect(f == (fm.n ? &fb.it[fm.r[0].id] : NULL), "first answered wrong");
        t = want;
    } else {
        size_t seen = 0;
        fb_expect(fw_visit(&fb.w, fb_count_one, &seen) == fm.n && seen == fm.n, "visit answered wrong");
        t = want;
    }
    {
        int64_t c1 = fb_clock(), upto = fm.n == 0 ? c1 : (t > c1 ? t : c1);
        unsigned long long steps = fb_steps - s0;
        if (fb.trace)
            printf("  %s: clock %lld -> %lld, answer %lld, %zu pending\n", name[kind], (long long)c0,
                   (long long)c1, (long long)t, fm.n);
        unsigned long long x = fb_exception(c0, upto > c0 ? upto : c0);
        fb_judge(name[kind], steps, bound_of_c(FB_C, true, 0, fb.changes) + x, x);
        fb_after_query(c0, steps, 0, fb.changes);
    }
}

/* ---- the program ----------------------------------------------------------- */

/* A distance: a scale 64^k of the wheel (b >> 2 picks k), 64^k - 1, 64^k
 * plus up to 63 of its 64ths, or any value up to 2^32 (4 bytes + 1). */
static int64_t fb_distance(void)
{
    unsigned b = fz_byte(), k = (b >> 2) % 11;
    int64_t unit = (int64_t)1 << (TIMER_WHEEL_BITS * k);
    switch (b & 3) {
    case 0:
        return unit;
    case 1:
        return unit - 1 + (k == 0);
    case 2:
        return unit + (int64_t)(fz_byte() % 64) * (unit / 64 + 1);
    default:                           /* any, up to 2^32 */
        return 1 + (int64_t)fz_bytes(4);
    }
}

/* A time: ahead of the clock, behind it, a level boundary, or a tie. */
static int64_t fb_time(void)
{
    unsigned b = fz_byte();
    int64_t c = fb_clock();
    switch (b % 6) {
    case 0:
    case 1:
        return fb_add(c, fb_distance());
    case 2:
        return fb_add(c, -fb_distance());
    case 3: {                          /* the next boundary of a level */
        int l = (int)(b / 6) % 11;
        return fb_start(fb_group(c, l) + 1 + (b / 66), l);
    }
    case 4:
        return fm.n ? fm.r[fz_byte() % fm.n].expire : c;
    default:
        return b >= 250 ? INT64_MAX - (int64_t)(b - 250) : fb_add(c, (int64_t)(b * 37));
    }
}

static int fb_id(void)
{
    return (int)(fz_bytes(2) % (uint64_t)fb.n);
}

/* An idle item, or -1. */
static int fb_idle(void)
{
    int tries;
    for (tries = 0; tries < 16; tries++) {
        int id = (int)(fb_rand() % (uint64_t)fb.n);
        if (fm.expire[id] < 0)
            return id;
    }
    return -1;
}

/* A bulk fill of one window: 1 + 16 b idle items at times in [t, t + span),
 * t and span read next from the input. */
static void fb_fill(void)
{
    unsigned k = 1 + fz_byte() * 16, i;
    int64_t t = fb_time(), span = fb_distance();
    for (i = 0; i < k; i++) {
        int id = fb_idle();
        if (id >= 0)
            fb_insert(id, fb_add(t, (int64_t)(fb_rand() % (uint64_t)span)));
    }
}

static void fb_op(void)
{
    unsigned op = fz_byte() % 18, k, i;
    int64_t c = fb_clock(), t, d, span;
    switch (op) {
    case 0:                            /* insert or reschedule one */
    case 1:
        fb_insert(fb_id(), fb_time());
        break;
    case 2:                            /* reschedule_range */
        i = (unsigned)fb_id();
        t = fb_time();
        fb_range((int)i, t, fb_add(t, fb_distance()));
        break;
    case 3:
        fb_remove(fb_id());
        break;
    case 4:                            /* pop: stepping, jumping or going back */
        k = fz_byte();
        t = k < 64 ? fb_add(c, k % 8) : k < 192 ? fb_time() : k < 250 ? fb_add(c, -fb_distance()) : INT64_MAX;
        fb_pop(t, 0);
        break;
    case 5:
    case 6:
        fb_query((int)op - 5);
        break;
    case 7:
        fb_query(fb.n <= 1024 ? 2 : 0);
        break;
    case 8:                            /* a bulk fill of one window: no query in between */
        fb_fill();
        break;
    case 9:                            /* a push-back storm: now + T - jitter, no order */
        k = fz_byte();
        d = fb_distance();
        span = fb_distance();
        for (i = 0; i < fm.n && i < 16u * k + 16; i++) {
            int id = fm.r[fb_rand() % fm.n].id;
            fb_insert(id, fb_add(fb_add(c, d), -(int64_t)(fb_rand() % (uint64_t)span)));
        }
        break;
    case 10: {                         /* interleaved fixed delays */
        int64_t dd[3];
        k = 1 + fz_byte() * 8;
        dd[0] = fb_distance(), dd[1] = fb_distance(), dd[2] = fb_distance();
        for (i = 0; i < k; i++) {
            int id = fb_idle();
            if (id >= 0)
                fb_insert(id, fb_add(c, dd[i % 3]));
        }
        break;
    }
    case 11:                           /* ticks: pops one step each */
        k = 1 + fz_byte();
        d = 1 + (int64_t)(fz_byte() % 64);
        for (i = 0; i < k; i++)
            fb_pop(fb_add(fb_clock(), d), 0);
        break;
    case 12:                           /* event loop rounds: next_expiry, pop at it, re-arm */
        k = 1 + fz_byte();
        d = fb_distance();
        for (i = 0; i < k && fm.n; i++) {
            fb_query(0);
            fb_pop(fm.n ? fm.r[0].expire : fb_clock(), -d);
        }
        break;
    case 13:
        fb_pop(INT64_MAX, 0);
        break;
    case 14:                           /* the clock far ahead: a glitch, or next_expiry to a far item */
        if (fz_byte() & 1)
            fb_pop(fb_add(c, (int64_t)1 << 40), 0);
        else
            fb_query(0);
        break;
    case 16:                           /* a query, then arrivals (2.3's stale state: libevent's
                                          callbacks arm timers after a next_expiry) */
        fb_query((int)(fz_byte() & 1));
        fb_fill();
        break;
    case 17:                           /* a dense steady loop: a pop every tick, each due
                                          item re-armed at now + 1 .. d */
        k = 1 + fz_byte() * 4;
        d = 1 + (int64_t)(fz_bytes(2) % 4096);
        for (i = 0; i < k; i++)
            fb_pop(fb_add(fb_clock(), 1), -d);
        break;
    default:                           /* inserts behind the clock in random order */
        k = 1 + fz_byte() * 8;
        span = fb_distance();
        for (i = 0; i < k; i++) {
            int id = fb_idle();
            if (id >= 0)
                fb_insert(id, fb_add(c, -(int64_t)(fb_rand() % (uint64_t)span)));
        }
        break;
    }
}

static int fb_run(const uint8_t *data, size_t size)
{
    int i;
    fz_in = data;
    fz_left = size;
    fb.n = 64 << (fz_byte() % 7);
    fb.it = (struct fitem *)calloc((size_t)fb.n, sizeof *fb.it);
    fm.r = (struct mrec *)malloc((size_t)fb.n * sizeof *fm.r);
    fm.expire = (int64_t *)malloc((size_t)fb.n * sizeof *fm.expire);
    if (fb.it == NULL || fm.r == NULL || fm.expire == NULL)
        abort();
    for (i = 0; i < fb.n; i++)
        fm.expire[i] = -1;
    fm.n = 0;
    fm.seq = 0;
    fb.rng = 0x9e3779b97f4a7c15u ^ size;
    fb.changes = 0;
    fb.worst = LLONG_MAX;
    fb.xused = 0;
    fb.worst_call = "";
    fw_init(&fb.w, (int64_t)fz_bytes(1) << (TIMER_WHEEL_BITS * 3));
    for (i = 0; i < TIMER_WHEEL_LEVELS; i++)
        fb.pg[i] = 0;
    fb_after_query(fb_clock(), 0, 0, 0);   /* the windows open now, empty */
    while (fz_left > 0)
        fb_op();
    fb_pop(INT64_MAX, 0);
    fb_expect(fm.n == 0 && fw_empty(&fb.w), "items left after pop(TIMER_NEVER)");
    fb_expect(fw_check(&fb.w) == NULL, "check() failed");
    fw_destroy(&fb.w);
    free(fb.it);
    free(fm.r);
    free(fm.expire);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fb_run(data, size);
}

#if defined(FB_STANDALONE)
#include <dirent.h>
#include <sys/stat.h>
#include <time.h>

static long fb_runs;

static int fb_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    long len;
    uint8_t *buf;
    if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        printf("FAIL cannot read %s\n", path);
        return 1;
    }
    buf = (uint8_t *)malloc((size_t)len + 1);
    if (buf == NULL || (len > 0 && fread(buf, 1, (size_t)len, f) != (size_t)len)) {
        printf("FAIL cannot read %s\n", path);
        fclose(f);
        return 1;
    }
    fclose(f);
    fb_run(buf, (size_t)len);
    printf("ok   %-40s least margin %lld steps (%s), exception used %llu\n", path, fb.worst,
           fb.worst_call, fb.xused);
    free(buf);
    fb_runs++;
    return 0;
}

static int fb_path(const char *path)
{
    struct stat st;
    DIR *d;
    struct dirent *e;
    char sub[4096];
    int bad = 0;
    if (stat(path, &st) != 0) {
        printf("FAIL no such file or directory: %s\n", path);
        return 1;
    }
    if (!S_ISDIR(st.st_mode))
        return fb_file(path);
    if ((d = opendir(path)) == NULL)
        return 1;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.') {
            snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
            bad |= fb_path(sub);
        }
    closedir(d);
    return bad;
}

/* A random program: a pool size, a clock, and opcodes with operands. */
static size_t fb_random_input(uint8_t *buf, size_t cap, uint64_t *s)
{
    size_t n = 2 + (size_t)(*s % (cap - 2)), i;
    for (i = 0; i < n; i++) {
        *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
        buf[i] = (uint8_t)(*s >> 24);
    }
    return n;
}

int main(int argc, char **argv)
{
    int i, bad = 0;
    fb.trace = getenv("FB_TRACE") != NULL;
    if (argc >= 3 && strcmp(argv[1], "search") == 0) {
        double secs = atof(argv[2]);
        uint64_t seed = argc > 3 ? strtoull(argv[3], NULL, 0) : (uint64_t)time(NULL), s = seed | 1;
        uint8_t buf[512], best[512];
        size_t len, blen = 0;
        long long best_margin = LLONG_MAX;
        clock_t t0 = clock();
        printf("bound search: seed %llu, %.0f s, allowance C = %d (replay one input: FB_TRACE=1 bound FILE)\n",
               (unsigned long long)seed, secs, TIMER_WHEEL_C);
        while ((double)(clock() - t0) / CLOCKS_PER_SEC < secs) {
            if (blen > 0 && (s & 3) != 0) { /* mutate the closest call so far */
                memcpy(buf, best, blen);
                len = blen;
                for (i = 0; i < 4; i++) {
                    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
                    buf[2 + (s >> 8) % (len - 2 ? len - 2 : 1)] = (uint8_t)(s >> 40);
                }
            } else {
                len = fb_random_input(buf, sizeof buf, &s);
            }
            {
                FILE *f = fopen("bound-last-input", "wb");  /* what an abort leaves */
                if (f != NULL) {
                    fwrite(buf, 1, len, f);
                    fclose(f);
                }
            }
            fb_run(buf, len);
            fb_runs++;
            if (fb.worst < best_margin) {
                best_margin = fb.worst;
                memcpy(best, buf, len);
                blen = len;
            }
        }
        remove("bound-last-input");
        printf("bound search: %ld inputs, no call over its bound; the closest call came within %lld steps\n",
               fb_runs, best_margin);
        return 0;
    }
    for (i = 1; i < argc; i++)
        if (strcmp(argv[i], "replay") != 0)
            bad |= fb_path(argv[i]);
    printf("bound: %ld inputs, %s\n", fb_runs, bad ? "FAILED" : "no call over its bound");
    return bad;
}
#endif
