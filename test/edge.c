/* edge.c - time at the edges, exhaustively, for one kind.
 *
 * Compiled once per kind (see tk.h); every operation goes through the
 * harness, so each pop's items (and order, for set and heap), min_time and
 * the container's check() are compared with the reference model.
 *
 * The times: E = 0, 1, 2, 2^k - 1, 2^k, 2^k + 1 for every k in 0..62, and
 * INT64_MAX - 2 .. INT64_MAX and INT64_MAX - 65 .. INT64_MAX - 63 at the
 * top (INT64_MAX - 63 is the last level-1 boundary). X = the wheel's level boundaries away from
 * the powers of two: m * 64^k - 1, m * 64^k, m * 64^k + 1 for k in 1..10 and
 * m in 1, 5, 63, and the last level-k boundary below INT64_MAX, +-1.
 *
 * - pop_exact: for every clock c, every now n and all expiries of the set at
 *   once (as many items): init(c), insert them all (those <= c are overdue),
 *   pop(n) must take exactly those <= n; then pop(INT64_MAX) the rest. The
 *   now n also takes -1 and INT64_MIN, and every n < c is a step back.
 * - pop_after_pop: the same, but the clock reaches c by a pop (init(0),
 *   insert, pop(c)), the popped items are inserted again (overdue now), and
 *   pop(n) follows: every jump from 0 to c, then every step back or ahead.
 * - min_time_rounds: for every clock c and expiry e, the item alone, then
 *   with companions that share its wheel slot (e + 1 and the slot's last
 *   tick), then with one in the slot before: min_time is checked against the
 *   model's rule after every step, and repeating t = min_time(); pop(t) must
 *   pop the earliest within 11 rounds (set and heap: one).
 * - drain_by_rounds: for every clock c, all expiries at once, emptied only
 *   by min_time rounds, each of which must pop the next earliest.
 * - drain_by_next_expiry: the same emptied by an event loop's rounds,
 *   t = next_expiry(); pop(t - 1) must pop nothing and pop(t) the earliest
 *   (next_expiry is exact for every kind); half of the clocks first have
 *   their latest item removed, so that next_expiry meets a slot emptied
 *   under it.
 * Run for E and for X (the crossing set), so that clocks and jumps meet every
 * wheel boundary from both sides. `edge quick` (make test) takes every 4th
 * clock, a different quarter in each case, with every now and expiry.
 */
#include "harness.h"

#include <time.h>

#define ED_MAX 256

struct ed_set {
    const char *name;
    size_t n;
    int64_t t[ED_MAX];
};

/* 1: every clock of the set; `edge quick` (make test) takes every 4th clock,
 * a different quarter per case, and still every now and every expiry. */
static size_t ed_stride = 1, ed_first = 0;

static int ed_cmp(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static void ed_add(struct ed_set *s, int64_t t)
{
    if (t < 0 || s->n >= ED_MAX)
        return;
    s->t[s->n++] = t;
}

/* sort and drop duplicates */
static void ed_finish(struct ed_set *s)
{
    size_t i, k = 0;
    qsort(s->t, s->n, sizeof s->t[0], ed_cmp);
    for (i = 0; i < s->n; i++)
        if (k == 0 || s->t[i] != s->t[k - 1])
            s->t[k++] = s->t[i];
    s->n = k;
}

static void ed_make_edges(struct ed_set *s)
{
    int k;
    memset(s, 0, sizeof *s);
    s->name = "E";
    ed_add(s, 0);
    ed_add(s, 1);
    ed_add(s, 2);
    for (k = 0; k <= 62; k++) {
        int64_t p = (int64_t)(UINT64_C(1) << k);
        ed_add(s, p - 1);
        ed_add(s, p);
        ed_add(s, p + 1);
    }
    for (k = 0; k <= 2; k++)
        ed_add(s, INT64_MAX - k);
    for (k = 63; k <= 65; k++) /* around the last level-1 boundary */
        ed_add(s, INT64_MAX - k);
    ed_finish(s);
}

static void ed_make_crossings(struct ed_set *s)
{
    static const int64_t ms[] = { 1, 5, 63 };
    size_t j;
    int k;
    memset(s, 0, sizeof *s);
    s->name = "X";
    for (k = 1; k <= 10; k++) {
        uint64_t unit = UINT64_C(1) << (6 * k);
        uint64_t top = ((uint64_t)INT64_MAX / unit) * unit; /* the last boundary */
        for (j = 0; j < sizeof ms / sizeof ms[0]; j++) {
            uint64_t b = (uint64_t)ms[j] * unit;
            if (unit > (uint64_t)INT64_MAX / (uint64_t)ms[j])
                continue;
            ed_add(s, (int64_t)b - 1);
            ed_add(s, (int64_t)b);
            if (b < (uint64_t)INT64_MAX)
                ed_add(s, (int64_t)b + 1);
        }
        ed_add(s, (int64_t)top - 1);
        ed_add(s, (int64_t)top);
        ed_add(s, (int64_t)top + 1);
    }
    ed_finish(s);
}

/* Take everything off the result list. */
static void ed_drain(struct th *h)
{
    th_drain_all(h);
}

/* Insert every idle item i at t[i]. */
static void ed_insert_all(struct th *h, const struct ed_set *s)
{
    size_t i;
    for (i = 0; i < s->n; i++)
        if (h->m[i].state == TH_IDLE)
            TH_EQ(th_insert(h, i, s->t[i]), 0);
}

/* The nows: every time of the set, and two that are before time itself. */
static int64_t ed_now(const struct ed_set *s, size_t j)
{
    if (j < s->n)
        return s->t[j];
    return j == s->n ? -1 : INT64_MIN;
}

static void ed_pop_exact(const struct ed_set *s)
{
    struct th h;
    size_t ci, nj;

    th_init(&h, s->n, 0);
    for (ci = ed_first; ci < s->n; ci += ed_stride) {
        for (nj = 0; nj < s->n + 2; nj++) {
            th_reinit(&h, s->t[ci]);
            ed_insert_all(&h, s);
            th_pop(&h, ed_now(s, nj));
            th_verify(&h);
            th_pop(&h, INT64_MAX);
            ed_drain(&h);
        }
    }
    th_fini(&h);
}

static void ed_pop_after_pop(const struct ed_set *s)
{
    struct th h;
    size_t ci, nj;

    th_init(&h, s->n, 0);
    for (ci = ed_first; ci < s->n; ci += ed_stride) {
        for (nj = 0; nj < s->n + 2; nj++) {
            th_reinit(&h, 0);
            ed_insert_all(&h, s);
            th_pop(&h, s->t[ci]); /* the clock jumps from 0 to c */
            ed_drain(&h);
            ed_insert_all(&h, s); /* those <= c are overdue now */
            th_pop(&h, ed_now(s, nj)); /* a step back or ahead */
            th_verify(&h);
            th_pop(&h, INT64_MAX);
            ed_drain(&h);
        }
    }
    th_fini(&h);
}

/* The last tick of the wheel slot that e occupies with the clock at c (e > c):
 * the slot spans 64^L ticks, L the highest 6-bit group where e and c differ. */
static int64_t ed_slot_end(int64_t c, int64_t e)
{
    uint64_t x = (uint64_t)e ^ (uint64_t)c;
    unsigned hi = 0, level;
    while (x >> 1) {
        x >>= 1;
        hi++;
    }
    level = hi / 6;
    if (6 * level >= 63)
        return INT64_MAX;
    return (int64_t)((uint64_t)e | ((UINT64_C(1) << (6 * level)) - 1));
}

static int64_t ed_plus(int64_t t, int64_t d)
{
    return t > INT64_MAX - d ? INT64_MAX : t + d;
}

/* Rounds until the container is empty: each call must pop the earliest. */
static void ed_rounds_to_empty(struct th *h)
{
    int guard = 0;
    while (th_count(h, TH_PENDING) > 0 && guard++ < ED_MAX + 8) {
        th_min_time_rounds(h);
        ed_drain(h);
    }
    TH_EQ(th_count(h, TH_PENDING), 0);
}

static void ed_min_time_rounds(const struct ed_set *s)
{
    struct th h;
    size_t ci, ei;

    th_init(&h, 3, 0);
    for (ci = ed_first; ci < s->n; ci += ed_stride) {
        int64_t c = s->t[ci];
        for (ei = 0; ei < s->n; ei++) {
            int64_t e = s->t[ei];
            /* alone */
            th_reinit(&h, c);
            TH_EQ(th_insert(&h, 0, e), 0);
            th_verify(&h);
            ed_rounds_to_empty(&h);
            if (e <= c)
                continue;
            /* with the rest of its slot: e + 1 and the slot's last tick */
            th_reinit(&h, c);
            TH_EQ(th_insert(&h, 0, e), 0);
            TH_EQ(th_insert(&h, 1, ed_plus(e, 1)), 0);
            TH_EQ(th_insert(&h, 2, ed_slot_end(c, e)), 0);
            th_verify(&h);
            ed_rounds_to_empty(&h);
            /* the earliest removed: the next one must still come within 11 */
            th_reinit(&h, c);
            TH_EQ(th_insert(&h, 0, e), 0);
            TH_EQ(th_insert(&h, 1, ed_slot_end(c, e)), 0);
            TH_EQ(th_insert(&h, 2, ed_plus(ed_slot_end(c, e), 1)), 0);
            TH_EQ(th_remove(&h, 0), true);
            th_verify(&h);
            ed_rounds_to_empty(&h);
        }
    }
    th_fini(&h);
}

static void ed_drain_by_rounds(const struct ed_set *s)
{
    struct th h;
    size_t ci;

    th_init(&h, s->n, 0);
    for (ci = ed_first; ci < s->n; ci += ed_stride) {
        th_reinit(&h, s->t[ci]);
        ed_insert_all(&h, s);
        th_verify(&h);
        ed_rounds_to_empty(&h);
    }
    th_fini(&h);
}

static void ed_drain_by_next_expiry(const struct ed_set *s)
{
    struct th h;
    size_t ci;

    th_init(&h, s->n, 0);
    for (ci = ed_first; ci < s->n; ci += ed_stride) {
        int guard = 0;
        th_reinit(&h, s->t[ci]);
        ed_insert_all(&h, s);
        if (ci & 1)
            TH_EQ(th_remove(&h, s->n - 1), true);
        th_verify(&h);
        while (th_count(&h, TH_PENDING) > 0 && guard++ < ED_MAX + 8) {
            th_next_expiry_round(&h);
            th_verify(&h);
            ed_drain(&h);
        }
        TH_EQ(th_count(&h, TH_PENDING), 0);
        TH_EQ(th_next_expiry(&h), TIMER_NEVER);
    }
    th_fini(&h);
}

static const struct {
    const char *name;
    void (*run)(const struct ed_set *);
} ed_cases[] = {
    { "pop_exact", ed_pop_exact },
    { "pop_after_pop", ed_pop_after_pop },
    { "min_time_rounds", ed_min_time_rounds },
    { "drain_by_rounds", ed_drain_by_rounds },
    { "drain_by_next_expiry", ed_drain_by_next_expiry },
};

int main(int argc, char **argv)
{
    static struct ed_set sets[2];
    char name[64];
    size_t si, i, failed = 0, ran = 0;

    if (argc > 1 && strcmp(argv[1], "quick") == 0)
        ed_stride = 4;
    ed_make_edges(&sets[0]);
    ed_make_crossings(&sets[1]);
    signal(SIGABRT, th_on_abort);
    if (ed_stride > 1)
        printf("edge %s: quick: every %zuth clock of each set, every now and expiry\n", TK_KIND, ed_stride);
    for (si = 0; si < 2; si++) {
        double t0 = (double)clock();
        printf("edge %s: set %s has %zu times, %" PRId64 " .. %" PRId64 "\n", TK_KIND, sets[si].name, sets[si].n,
               sets[si].t[0], sets[si].t[sets[si].n - 1]);
        for (i = 0; i < sizeof ed_cases / sizeof ed_cases[0]; i++) {
            long before = th_failures;
            snprintf(name, sizeof name, "%s.%s", ed_cases[i].name, sets[si].name);
            th_ctx.test = name;
            th_ctx.op = NULL;
            ed_first = ed_stride > 1 ? (i + si) % ed_stride : 0;
            ed_cases[i].run(&sets[si]);
            ran++;
            if (th_failures != before)
                failed++;
            printf("%s %s %s (%.2f s)\n", th_failures == before ? "pass" : "FAIL", TK_KIND, name,
                   ((double)clock() - t0) / CLOCKS_PER_SEC);
            t0 = (double)clock();
            fflush(stdout);
        }
    }
    printf("edge %s: %zu of %zu cases failed\n", TK_KIND, failed, ran);
    return failed != 0;
}
