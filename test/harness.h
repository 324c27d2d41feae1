/* harness.h - the test item, the reference model and the checked operations.
 *
 * Every th_ operation calls the container under test, predicts the result
 * from a plain reference model (arrays, O(n) per call: it is the contract
 * executed, with no idea how the container works), reports any difference,
 * and then updates the model. th_verify compares everything observable:
 * size, empty, min_time, every item's state (pending(), due()) and expiry,
 * the result list, and the container's own check(). th_pop checks each
 * pop's exact sequence: every kind promises one order (non-decreasing
 * expiry, arrival order among equal expiries). The result list starts
 * zeroed, never inited: a zeroed struct tlist is an empty list. Failures print the kind, the test, and for the
 * randomised tests the seed, step and operation to replay. Built with
 * -DTH_ABORT_ON_FAIL (the libFuzzer targets), the first failure aborts.
 *
 * Everything here is static inline: each program uses only part of it, and
 * unused static inline functions do not warn.
 */
#ifndef TH_HARNESS_H
#define TH_HARNESS_H

#include "tk.h"

#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct titem {
    TK_NODE node;  /* in the container under test, tc */
    TK_NODE node2; /* in a second container over the same struct */
    int id;        /* index in the harness pool */
};
typedef struct titem titem;

#define TK_CAT_(a, b, c) a##b##c
#define TK_CAT(a, b, c) TK_CAT_(a, b, c)

#if defined(TK_CXX)
/* Built as C++ with -DTK_CXX: the container under test is the C++ class
 * template of the kind (timer_containers.hpp), and tc_*() call its members
 * (cxx_shim.h), so every test written over tc_*() checks the C++ interface. */
#include "cxx_shim.h"
typedef timer_containers::TK_SUFFIX<titem, &titem::node> tc_cxx;
TIMER_CXX_SHIM(tc, tc_cxx, struct titem, TK_SUFFIX)
#else
/* DEFINE_NAMED over a `struct` type: the container tc and tc_*(). */
TK_DEFINE_NAMED(tc, struct titem, node)
#endif
/* DEFINE over a typedef, second member: titem_set, titem_heap or titem_wheel. */
TK_DEFINE(titem, node2)

/* An item's result-list link: every node type begins with it. */
#define TH_LINK(it) ((struct tlist *)(void *)&(it)->node)

/* T2(insert) is titem_<kind>_insert; T2_TYPE is the second container type. */
#define T2(fn) TK_CAT(titem_, TK_SUFFIX, _##fn)
#define T2_TYPE TK_CAT(titem_, TK_SUFFIX, )

/* ---- failure reporting ------------------------------------------------- */

static struct {
    const char *test; /* the test case running */
    bool random;      /* a randomised test: print seed/episode/step */
    bool input;       /* a fuzz input: print the step (its operation number) */
    bool stop;        /* exit at the first failure (later ones are echoes) */
    uint64_t seed;
    long episode, step;
    const char *op; /* the last operation started, with its arguments */
    long op_item;   /* -1: none */
    bool op_timed;
    int64_t op_time;
} th_ctx;

static long th_failures;

/* "FAIL kind test [seed episode step] [op item time]": where a failure happened. */
static inline void th_print_where(void)
{
    printf("FAIL %s %s", TK_KIND, th_ctx.test ? th_ctx.test : "");
    if (th_ctx.random)
        printf(" seed=%" PRIu64 " episode=%ld step=%ld", th_ctx.seed, th_ctx.episode, th_ctx.step);
    else if (th_ctx.input)
        printf(" step=%ld", th_ctx.step);
    if (th_ctx.op)
        printf(" op=%s", th_ctx.op);
    if (th_ctx.op && th_ctx.op_item >= 0)
        printf(" item=%ld", th_ctx.op_item);
    if (th_ctx.op && th_ctx.op_timed)
        printf(" time=%" PRId64, th_ctx.op_time);
}

#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 2, 3)))
#endif
static inline void th_fail(int line, const char *fmt, ...)
{
    va_list ap;
    th_print_where();
    printf(" [line %d]: ", line);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    fflush(stdout);
    th_failures++;
#if defined(TH_ABORT_ON_FAIL)
    abort(); /* a crash, which libFuzzer records with the input that caused it */
#endif
    if (th_ctx.stop || th_failures >= 50)
        exit(1);
}

/* A header's assert (or a sanitizer run with abort_on_error=1) aborts the
 * program: say where, so the run can be replayed. printf is not
 * async-signal-safe, but the process is going down anyway. */
static inline void th_on_abort(int sig)
{
    th_print_where();
    printf(": aborted (see the assertion or sanitizer report)\n");
    fflush(stdout);
    signal(sig, SIG_DFL);
    raise(sig);
}

#define TH_EXPECT(cond, ...)                  \
    do {                                      \
        if (!(cond))                          \
            th_fail(__LINE__, __VA_ARGS__);   \
    } while (0)

#define TH_EQ(got, want) th_eq(__LINE__, #got, (int64_t)(got), (int64_t)(want))

static inline bool th_eq(int line, const char *expr, int64_t got, int64_t want)
{
    if (got == want)
        return true;
    th_fail(line, "%s = %" PRId64 ", want %" PRId64, expr, got, want);
    return false;
}

/* Remember the operation under way, for failure lines. */
static inline void th_note(const char *op, long item)
{
    th_ctx.op = op;
    th_ctx.op_item = item;
    th_ctx.op_timed = false;
}

static inline void th_note_t(const char *op, long item, int64_t t)
{
    th_note(op, item);
    th_ctx.op_timed = true;
    th_ctx.op_time = t;
}

/* ---- random numbers (splitmix64: tiny, and every seed is a good one) ---- */

static uint64_t th_rng;

static inline uint64_t th_rand(void)
{
    uint64_t z = (th_rng += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* Uniform enough below n (n > 0); the modulo bias is irrelevant here. */
static inline uint64_t th_below(uint64_t n)
{
    return th_rand() % n;
}

/* ---- the reference model ----------------------------------------------- */

enum th_state { TH_IDLE, TH_PENDING, TH_DUE };
static const char *const th_state_name[] = { "idle", "pending", "due" };

struct th_model {
    enum th_state state;
    int64_t expire; /* while pending or due */
    uint64_t seq;   /* arrival order: every pop is FIFO among equal expiries */
    uint64_t dseq;  /* while due: position in the result list */
};

struct th_key {
    int64_t expire;
    uint64_t seq;
    size_t id;
};

struct th {
    tc c;
    int64_t clock; /* init's now (>= 0), raised by every later pop */
    int64_t high;  /* the same, never lowered: contract v2.4's clock (min_time's window) */
    size_t n;
    titem **item; /* item[i]->id == i; replaced by a fresh one when freed */
    struct th_model *m;
    uint64_t seq, dseq;
    struct tlist out; /* the result list: exactly the due items, in dseq order */
    size_t reserved;  /* the last successful reserve(n) since init: inserts
                         while fewer are pending must not fail (the heap) */
    struct th_key *keys;
    unsigned char *seen;
};

static inline void *th_alloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (p == NULL) {
        printf("FAIL out of memory in the test itself\n");
        exit(1);
    }
    return p;
}

/* calloc: an all-zero node must be idle without any init call. */
static inline titem *th_new_item(size_t id)
{
    titem *it = (titem *)th_alloc(1, sizeof *it);
    it->id = (int)id;
    return it;
}

static inline int64_t th_clamp0(int64_t t)
{
    return t < 0 ? 0 : t;
}

static inline void th_init(struct th *h, size_t n, int64_t now)
{
    size_t i;
    memset(h, 0, sizeof *h);
    h->n = n;
    h->item = (titem **)th_alloc(n, sizeof *h->item);
    h->m = (struct th_model *)th_alloc(n, sizeof *h->m);
    h->keys = (struct th_key *)th_alloc(n, sizeof *h->keys);
    h->seen = (unsigned char *)th_alloc(n, 1);
    for (i = 0; i < n; i++)
        h->item[i] = th_new_item(i);
    tc_init(&h->c, now);
    h->clock = h->high = th_clamp0(now);
    /* h->out stays zeroed (memset above): an empty list without tlist_init */
}

static inline size_t th_count(const struct th *h, enum th_state s)
{
    size_t i, k = 0;
    for (i = 0; i < h->n; i++)
        k += h->m[i].state == s;
    return k;
}

/* The earliest pending expiry, TIMER_NEVER when none. */
static inline int64_t th_earliest(const struct th *h)
{
    size_t i;
    int64_t e = TIMER_NEVER;
    for (i = 0; i < h->n; i++)
        if (h->m[i].state == TH_PENDING && h->m[i].expire < e)
            e = h->m[i].expire;
    return e;
}

static inline size_t th_pending_upto(const struct th *h, int64_t t)
{
    size_t i, k = 0;
    for (i = 0; i < h->n; i++)
        k += h->m[i].state == TH_PENDING && h->m[i].expire <= t;
    return k;
}

/* The item behind a result-list link, or -1 (reported) if it is none of ours. */
static inline long th_id_of(const struct th *h, struct tlist *link, int line)
{
    titem *it = tc_entry(link);
    if (it == NULL || it->id < 0 || (size_t)it->id >= h->n || h->item[it->id] != it) {
        th_fail(line, "result list holds a link that is not one of the test's live items");
        return -1;
    }
    return it->id;
}

/* min_time: exact for set and heap. For the wheel a lower bound t of the
 * earliest expiry E, exact when E lies in the finest 64-tick window of the
 * clock, the latest time given to init or pop that no later pop went back
 * from (contract v2.4; 2.3 was also exact for every E behind the clock); the
 * 11-round progress promise is checked by th_min_time_rounds. */
static inline void th_check_min_time(const struct th *h)
{
    int64_t t = tc_min_time(&h->c), e = th_earliest(h);
    if (th_count(h, TH_PENDING) == 0) {
        TH_EXPECT(t == TIMER_NEVER, "min_time() = %" PRId64 " on an empty container, want TIMER_NEVER", t);
    } else if (TK_MIN_EXACT || (e >> 6) == (h->high >> 6)) {
        TH_EXPECT(t == e, "min_time() = %" PRId64 ", want exactly %" PRId64 " (clock %" PRId64 ")", t, e, h->clock);
    } else {
        TH_EXPECT(t <= e, "min_time() = %" PRId64 " is later than the earliest expiry %" PRId64 " (clock %" PRId64 ")",
                  t, e, h->clock);
    }
}

/* The pending item with the least (expiry, arrival): the one pop would hand
 * out first; -1 when nothing is pending. */
static inline long th_want_first(const struct th *h)
{
    size_t i;
    long want = -1;
    for (i = 0; i < h->n; i++) {
        const struct th_model *m = &h->m[i];
        if (m->state == TH_PENDING && (want < 0 || m->expire < h->m[want].expire ||
                                       (m->expire == h->m[want].expire && m->seq < h->m[want].seq)))
            want = (long)i;
    }
    return want;
}

/* visit's callback: the item must be one of ours, pending, seen once; and
 * the const calls next_expiry and first, made from inside the walk, must
 * answer as outside it (the wheel refines in next_expiry: the walk must
 * survive that). */
struct th_visit {
    const struct th *h;
    unsigned char *seen;
    size_t calls, bad, wrong;
    int64_t earliest;
    const titem *first;
};

static inline void th_visit_one(titem *it, void *arg)
{
    struct th_visit *v = (struct th_visit *)arg;
    v->calls++;
    v->wrong += tc_next_expiry(&v->h->c) != v->earliest || tc_first(&v->h->c) != v->first;
    if (it == NULL || it->id < 0 || (size_t)it->id >= v->h->n || v->h->item[it->id] != it ||
        v->h->m[it->id].state != TH_PENDING || v->seen[it->id]++) {
        v->bad++;
        return;
    }
}

/* visit calls fn exactly once for every pending item, and returns the count. */
static inline void th_check_visit(const struct th *h, size_t npending)
{
    struct th_visit v;
    size_t got;
    long want = th_want_first(h);
    v.h = h;
    v.seen = (unsigned char *)th_alloc(h->n, 1);
    v.calls = 0;
    v.bad = 0;
    v.wrong = 0;
    v.earliest = th_earliest(h);
    v.first = want < 0 ? NULL : h->item[want];
    got = tc_visit(&h->c, th_visit_one, &v);
    TH_EXPECT(got == npending && v.calls == npending && v.bad == 0,
              "visit() returned %zu after %zu calls (%zu of an item not pending, not ours, or seen twice); %zu pending", got,
              v.calls, v.bad, npending);
    TH_EXPECT(v.wrong == 0, "next_expiry() or first() called from visit's fn answered wrong %zu times of %zu", v.wrong,
              v.calls);
    free(v.seen);
}

/* Everything observable must match the model. */
static unsigned th_verify_turn;

static inline void th_verify(const struct th *h)
{
    const char *why = tc_check(&h->c);
    size_t i, npending = th_count(h, TH_PENDING), ndue = 0;
    uint64_t last = 0;
    const struct tlist *link;

    TH_EXPECT(why == NULL, "check(): %s", why ? why : "");
    TH_EQ(tc_size(&h->c), npending);
    TH_EQ(tc_empty(&h->c), npending == 0);
    th_check_min_time(h);
    /* visit locates the earliest item as next_expiry does (the wheel may
     * refine); every other verify leaves the container as the operation
     * left it, so that operations also start from unrefined states. */
    if ((th_verify_turn ^= 1) != 0)
        th_check_visit(h, npending);
    for (i = 0; i < h->n; i++) {
        const struct th_model *m = &h->m[i];
        TH_EXPECT(tc_pending(h->item[i]) == (m->state == TH_PENDING), "item %zu: pending() = %d, model says %s", i,
                  (int)tc_pending(h->item[i]), th_state_name[m->state]);
        TH_EXPECT(tc_due(h->item[i]) == (m->state == TH_DUE), "item %zu: due() = %d, model says %s", i,
                  (int)tc_due(h->item[i]), th_state_name[m->state]);
        if (m->state != TH_IDLE)
            TH_EXPECT(tc_expire(h->item[i]) == m->expire, "item %zu (%s): expire() = %" PRId64 ", want %" PRId64, i,
                      th_state_name[m->state], tc_expire(h->item[i]), m->expire);
    }
    /* The result list holds exactly the due items, in the order they were
     * appended (removing or rescheduling one must unlink only that one). */
    for (link = h->out.next ? h->out.next : &h->out; link != &h->out; link = link->next) {
        long id = th_id_of(h, (struct tlist *)link, __LINE__);
        if (id < 0 || ++ndue > h->n)
            return;
        TH_EXPECT(link->next->prev == link, "result list: broken back link at item %ld", id);
        TH_EXPECT(h->m[id].state == TH_DUE, "result list holds item %ld, which the model says is %s", id,
                  th_state_name[h->m[id].state]);
        TH_EXPECT(h->m[id].dseq > last, "result list: item %ld is out of its delivery order", id);
        last = h->m[id].dseq;
    }
    TH_EQ(ndue, th_count(h, TH_DUE));
}

/* ---- operations: call the container, predict, compare, update ---------- */

/* Accepts `alt` too when it is non-zero (two errors apply, or an injected
 * allocation failure may surface as -ENOMEM). */
static inline void th_check_rc(int line, const char *op, int rc, int want, int alt)
{
    if (rc != want && !(alt != 0 && rc == alt))
        th_fail(line, "%s returned %d, want %d%s", op, rc, want, alt == -ENOMEM ? " (or -ENOMEM)" : alt ? " (or the other error)" : "");
}

/* The model side of a successful insert or reschedule (a new insertion). */
static inline void th_model_arm(struct th *h, size_t i, int64_t expire)
{
    h->m[i].state = TH_PENDING;
    h->m[i].expire = expire;
    h->m[i].seq = ++h->seq;
}

/* -ENOMEM is only acceptable from an allocation the test made fail. */
static inline int th_nomem_alt(int want, bool armed)
{
    return want == 0 && armed ? -ENOMEM : 0;
}

static inline void th_check_nomem(int rc, long failed_before)
{
    if (rc == -ENOMEM)
        TH_EXPECT(tk_failed_allocs() > failed_before, "-ENOMEM although no allocation failed");
}

/* An allocation may fail only where the heap needs room for one more
 * item: not below what reserve() promised. */
static inline bool th_may_need_memory(const struct th *h)
{
    return th_count(h, TH_PENDING) >= h->reserved;
}

static inline int th_insert(struct th *h, size_t i, int64_t expire)
{
    bool armed = tk_fail_armed() && th_may_need_memory(h);
    long failed = tk_failed_allocs();
    enum th_state s = h->m[i].state;
    int want, alt, rc;

    th_note_t("insert", (long)i, expire);
#if !defined(NDEBUG)
    /* Insert of a due item aborts in builds with asserts (v2.2; debug.c
     * tests that): here it is made only with NDEBUG, where it must return
     * -EBUSY and change nothing. */
    if (s == TH_DUE)
        return -EBUSY;
#endif
    rc = tc_insert(&h->c, expire, h->item[i]);
    if (expire < 0) {
        want = -EINVAL;
        alt = s != TH_IDLE ? -EBUSY : 0;
    } else {
        want = s != TH_IDLE ? -EBUSY : 0;
        alt = th_nomem_alt(want, armed);
    }
    th_check_rc(__LINE__, "insert", rc, want, alt);
    th_check_nomem(rc, failed);
    if (rc == 0)
        th_model_arm(h, i, expire);
    return rc;
}

/* Rescheduling a pending item never allocates (v2), so it never fails with
 * -ENOMEM; an idle or due one needs room like an insert. */
static inline int th_reschedule(struct th *h, size_t i, int64_t expire)
{
    bool armed = tk_fail_armed() && h->m[i].state != TH_PENDING && th_may_need_memory(h);
    long failed = tk_failed_allocs();
    int want = expire < 0 ? -EINVAL : 0, rc;

    th_note_t("reschedule", (long)i, expire);
    rc = tc_reschedule(&h->c, expire, h->item[i]);
    th_check_rc(__LINE__, "reschedule", rc, want, th_nomem_alt(want, armed));
    th_check_nomem(rc, failed);
    if (rc == 0)
        th_model_arm(h, i, expire);
    return rc;
}

/* What reschedule_range and reschedule_near share, after the call: a
 * pending item `inside` the window stays as it is (0, not even a new
 * arrival); bad arguments change nothing (want -EINVAL); anything else is
 * reschedule(to), which may need memory as any re-arm of an idle or due
 * item (armed: an allocation failure was armed; failed: the count before). */
static inline int th_kept(struct th *h, size_t i, int line, const char *op, int rc, int want, bool inside, int64_t to,
                          bool armed, long failed)
{
    th_check_rc(line, op, rc, want, want == 0 && !inside ? th_nomem_alt(want, armed) : 0);
    th_check_nomem(rc, failed);
    if (rc == 0 && !inside)
        th_model_arm(h, i, to);
    return rc;
}

/* reschedule_range (v2.1): a pending item already within [lo, hi] stays as
 * it is; anything else is reschedule(hi). */
static inline int th_reschedule_range(struct th *h, size_t i, int64_t lo, int64_t hi)
{
    const struct th_model *m = &h->m[i];
    bool inside = m->state == TH_PENDING && m->expire >= lo && m->expire <= hi;
    bool armed = tk_fail_armed() && m->state != TH_PENDING && th_may_need_memory(h);
    long failed = tk_failed_allocs();

    th_note_t("reschedule_range", (long)i, hi);
    return th_kept(h, i, __LINE__, "reschedule_range", tc_reschedule_range(&h->c, lo, hi, h->item[i]),
                   lo < 0 || hi < lo ? -EINVAL : 0, inside, hi, armed, failed);
}

/* reschedule_near (v2.3): a pending item whose expiry is within slack of
 * expire (expire - slack <= it <= expire + slack) stays as it is (0, not
 * even a new arrival); expire or slack negative changes nothing (-EINVAL);
 * anything else is reschedule(expire). The model's rule, written apart
 * from list.h's. */
static inline int th_reschedule_near(struct th *h, size_t i, int64_t expire, int64_t slack)
{
    const struct th_model *m = &h->m[i];
    bool inside = m->state == TH_PENDING && expire >= 0 && slack >= 0 &&
                  (m->expire <= expire ? (uint64_t)(expire - m->expire) <= (uint64_t)slack
                                       : (uint64_t)(m->expire - expire) <= (uint64_t)slack);
    bool armed = tk_fail_armed() && m->state != TH_PENDING && th_may_need_memory(h);
    long failed = tk_failed_allocs();

    th_note_t("reschedule_near", (long)i, expire);
    return th_kept(h, i, __LINE__, "reschedule_near", tc_reschedule_near(&h->c, expire, slack, h->item[i]),
                   expire < 0 || slack < 0 ? -EINVAL : 0, inside, expire, armed, failed);
}

/* first (v2.1): the pending item with the least (expiry, arrival), the one
 * pop would hand out first; NULL when nothing is pending. */
static inline void th_first(struct th *h)
{
    long want;
    titem *got;

    th_note("first", -1);
    want = th_want_first(h);
    got = tc_first(&h->c);
    TH_EXPECT(got == (want < 0 ? NULL : h->item[want]), "first() is item %d, want item %ld", got ? got->id : -1, want);
}

static inline bool th_remove(struct th *h, size_t i)
{
    bool want = h->m[i].state != TH_IDLE, got;

    th_note("remove", (long)i);
    got = tc_remove(&h->c, h->item[i]);
    TH_EXPECT(got == want, "remove of a %s item returned %d", th_state_name[h->m[i].state], (int)got);
    if (got)
        h->m[i].state = TH_IDLE;
    return got;
}

/* next_expiry: exact for every kind, TIMER_NEVER when nothing is pending
 * (and also for an item pending at TIMER_NEVER: empty() tells them apart). */
static inline int64_t th_next_expiry(struct th *h)
{
    int64_t got, want = th_earliest(h);
    th_note("next_expiry", -1);
    got = tc_next_expiry(&h->c);
    TH_EXPECT(got == want, "next_expiry() = %" PRId64 ", want %" PRId64 " (clock %" PRId64 ", %zu pending)", got, want,
              h->clock, th_count(h, TH_PENDING));
    return got;
}

/* reserve(n): 0 (set and wheel always; the heap unless its allocation was
 * made to fail: -ENOMEM, nothing changed). Afterwards inserts while fewer
 * than n items are pending must not fail. */
static inline int th_reserve(struct th *h, size_t n)
{
    bool armed = tk_fail_armed();
    long failed = tk_failed_allocs();
    int rc;

    th_note_t("reserve", -1, (int64_t)n);
    rc = tc_reserve(&h->c, n);
    th_check_rc(__LINE__, "reserve", rc, 0, armed ? -ENOMEM : 0);
    th_check_nomem(rc, failed);
    if (rc == 0)
        h->reserved = n;
    return rc;
}

/* NULL is an error for insert (and for reschedule, as every header
 * documents) and a no-op for remove; th_verify then finds nothing changed. */
static inline void th_null_item(struct th *h)
{
    th_note("insert/reschedule/remove NULL", -1);
    TH_EQ(tc_insert(&h->c, 0, NULL), -EINVAL);
    TH_EQ(tc_insert(&h->c, -1, NULL), -EINVAL);
    TH_EQ(tc_reschedule(&h->c, 0, NULL), -EINVAL);
    TH_EQ(tc_remove(&h->c, NULL), false);
}

static inline int th_key_cmp(const void *a, const void *b)
{
    const struct th_key *x = (const struct th_key *)a, *y = (const struct th_key *)b;
    if (x->expire != y->expire)
        return x->expire < y->expire ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* pop must append exactly the pending items with expire <= now: none early,
 * none lost, none twice, in the order the kind promises. */
static inline size_t th_pop(struct th *h, int64_t now)
{
    struct tlist *last = tlist_last_(&h->out), *link;
    size_t i, want = 0, got, k = 0;
    int64_t prev = 0;

    th_note_t("pop", -1, now);
    for (i = 0; i < h->n; i++) {
        if (h->m[i].state == TH_PENDING && h->m[i].expire <= now) {
            h->keys[want].expire = h->m[i].expire;
            h->keys[want].seq = h->m[i].seq;
            h->keys[want].id = i;
            want++;
        }
    }
    qsort(h->keys, want, sizeof *h->keys, th_key_cmp);
    memset(h->seen, 0, h->n);

    got = tc_pop(&h->c, now, &h->out);

    for (link = tlist_first_(last); link != &h->out; link = link->next, k++) {
        long id = th_id_of(h, link, __LINE__);
        const struct th_model *m;
        if (id < 0 || k >= h->n)
            break;
        m = &h->m[id];
        if (m->state != TH_PENDING || m->expire > now) {
            th_fail(__LINE__, "pop(%" PRId64 ") delivered item %ld, which is %s with expire %" PRId64, now, id,
                    th_state_name[m->state], m->expire);
            continue;
        }
        TH_EXPECT(!h->seen[id], "pop(%" PRId64 ") delivered item %ld twice", now, id);
        h->seen[id] = 1;
        if (k < want && h->keys[k].id != (size_t)id)
            th_fail(__LINE__, "pop(%" PRId64 ") position %zu: item %ld (expire %" PRId64 "), want item %zu (expire %" PRId64 ")%s",
                    now, k, id, m->expire, h->keys[k].id, h->keys[k].expire,
                    k > 0 && m->expire < prev ? " (not in expiry order)" : " (equal expiries out of arrival order?)");
        prev = m->expire;
    }
    TH_EXPECT(got == want && k == want, "pop(%" PRId64 ") returned %zu and appended %zu items, want %zu (clock %" PRId64 ")", now,
              got, k, want, h->clock);
    for (i = 0; i < want; i++)
        TH_EXPECT(h->seen[h->keys[i].id], "pop(%" PRId64 ") lost item %zu (expire %" PRId64 ")", now, h->keys[i].id,
                  h->keys[i].expire);

    /* The appended items are due now, in the order they were appended. */
    for (link = tlist_first_(last), k = 0; link != &h->out && k < h->n; link = link->next, k++) {
        long id = th_id_of(h, link, __LINE__);
        if (id < 0)
            break;
        h->m[id].state = TH_DUE;
        h->m[id].dseq = ++h->dseq;
    }
    h->clock = th_clamp0(now); /* the latest time given to init or pop (v2.1: also backwards) */
    h->high = h->clock > h->high ? h->clock : h->high;
    return got;
}

/* Take the first item off the result list, as a user's drain loop does: it
 * must be the due item appended first; it is idle afterwards. -1 when empty. */
static inline long th_drain_one(struct th *h)
{
    struct tlist *link;
    size_t i;
    long want = -1, id;

    th_note("drain", -1);
    for (i = 0; i < h->n; i++)
        if (h->m[i].state == TH_DUE && (want < 0 || h->m[i].dseq < h->m[want].dseq))
            want = (long)i;
    link = tlist_pop_front(&h->out);
    if (link == NULL) {
        TH_EXPECT(tc_entry(link) == NULL, "entry(NULL) is not NULL");
        TH_EXPECT(want < 0, "the result list is empty, but item %ld is still due", want);
        return -1;
    }
    id = th_id_of(h, link, __LINE__);
    if (id < 0)
        return -1;
    TH_EXPECT(id == want, "the result list's front is item %ld (%s), want item %ld", id, th_state_name[h->m[id].state], want);
    h->m[id].state = TH_IDLE;
    TH_EXPECT(!tc_pending(h->item[id]), "item %ld is pending after leaving the result list", id);
    return id;
}

/* th_drain_one until the list is empty, with the same checks, in O(n log n)
 * for the whole list instead of O(n) per item. */
static inline void th_drain_all(struct th *h)
{
    size_t i, nd = 0;
    struct tlist *link;

    for (i = 0; i < h->n; i++) {
        if (h->m[i].state == TH_DUE) {
            h->keys[nd].expire = 0;
            h->keys[nd].seq = h->m[i].dseq;
            h->keys[nd].id = i;
            nd++;
        }
    }
    qsort(h->keys, nd, sizeof *h->keys, th_key_cmp);
    th_note("drain", -1);
    for (i = 0; i < nd; i++) {
        long id;
        link = tlist_pop_front(&h->out);
        if (link == NULL) {
            th_fail(__LINE__, "the result list ended after %zu items, but item %zu is still due", i, h->keys[i].id);
            return;
        }
        id = th_id_of(h, link, __LINE__);
        if (id < 0)
            return;
        TH_EXPECT((size_t)id == h->keys[i].id, "the result list's front is item %ld (%s), want item %zu", id,
                  th_state_name[h->m[id].state], h->keys[i].id);
        h->m[id].state = TH_IDLE;
        TH_EXPECT(!tc_pending(h->item[id]), "item %ld is pending after leaving the result list", id);
    }
    link = tlist_pop_front(&h->out);
    TH_EXPECT(link == NULL, "the result list holds more than the due items");
}

/* A due item after `id` in the result list (by delivery order), or -1. */
static inline long th_due_after(const struct th *h, size_t id, uint64_t r)
{
    size_t i, k = 0;
    for (i = 0; i < h->n; i++)
        k += h->m[i].state == TH_DUE && h->m[i].dseq > h->m[id].dseq;
    if (k == 0)
        return -1;
    k = (size_t)(r % k);
    for (i = 0; i < h->n; i++)
        if (h->m[i].state == TH_DUE && h->m[i].dseq > h->m[id].dseq && k-- == 0)
            return (long)i;
    return -1;
}

/* Walk the result list with tlist_foreach, as a handler loop that keeps
 * the list does (v2.1): body(h, id, ctx) runs for each item and may
 * re-arm, remove or free that item, and remove or reschedule due items
 * after it (through the th_ operations, which keep the model). The walk
 * must visit exactly the items that are still due when it reaches them, in
 * the list's order, each once, and end. The body must not pop. */
static inline void th_walk_due(struct th *h, void (*body)(struct th *h, size_t id, void *ctx), void *ctx)
{
    struct tlist *pos;
    size_t *order = (size_t *)th_alloc(h->n, sizeof *order), n = 0, k = 0, i;
    for (i = 0; i < h->n; i++) {
        if (h->m[i].state == TH_DUE) {
            h->keys[n].expire = 0;
            h->keys[n].seq = h->m[i].dseq;
            h->keys[n].id = i;
            n++;
        }
    }
    qsort(h->keys, n, sizeof *h->keys, th_key_cmp);
    for (i = 0; i < n; i++)
        order[i] = h->keys[i].id;
    th_note("walk (tlist_foreach)", -1);
    tlist_foreach(pos, &h->out) {
        long id = th_id_of(h, pos, __LINE__);
        while (k < n && h->m[order[k]].state != TH_DUE)
            k++; /* taken out of the list by an earlier body */
        if (id < 0 || k >= n) {
            th_fail(__LINE__, "tlist_foreach went on past the due items (at item %ld)", id);
            break;
        }
        TH_EXPECT((size_t)id == order[k], "tlist_foreach visited item %ld, want item %zu", id, order[k]);
        k++;
        body(h, (size_t)id, ctx);
    }
    while (k < n && h->m[order[k]].state != TH_DUE)
        k++;
    TH_EXPECT(k == n, "tlist_foreach ended before item %zu, which is still due", k < n ? order[k] : 0);
    free(order);
}

static inline void th_clear(struct th *h)
{
    size_t i;
    th_note("clear", -1);
    tc_clear(&h->c);
    for (i = 0; i < h->n; i++)
        if (h->m[i].state == TH_PENDING)
            h->m[i].state = TH_IDLE;
}

/* destroy, then init again at now: pending items become idle, due ones stay
 * the caller's, and the container starts over with a new clock. */
static inline void th_reinit(struct th *h, int64_t now)
{
    size_t i;
    th_note_t("destroy+init", -1, now);
    tc_destroy(&h->c);
    for (i = 0; i < h->n; i++) {
        if (h->m[i].state == TH_PENDING) {
            h->m[i].state = TH_IDLE;
            TH_EXPECT(!tc_pending(h->item[i]), "item %zu is still pending after destroy", i);
        }
    }
    tc_init(&h->c, now);
    h->clock = h->high = th_clamp0(now);
    h->reserved = 0;
}

/* A user frees an item: remove first (it may be pending, due or idle), then
 * free. A container that still points at it is caught by ASan. */
static inline void th_free_item(struct th *h, size_t i)
{
    if (h->m[i].state != TH_IDLE)
        th_remove(h, i);
    th_note("free", (long)i);
    free(h->item[i]);
    h->item[i] = th_new_item(i);
    memset(&h->m[i], 0, sizeof h->m[i]);
}

/* Repeating t = min_time(); pop(t) with no other calls must pop the earliest
 * item within 11 rounds (exactly one round for set and heap). */
static inline void th_min_time_rounds(struct th *h)
{
    int64_t e = th_earliest(h), t = 0;
    int round;

    if (th_count(h, TH_PENDING) == 0)
        return;
    for (round = 1; round <= 11; round++) {
        t = tc_min_time(&h->c);
        th_pop(h, t);
        th_verify(h);
        if (th_pending_upto(h, e) == 0) {
            if (TK_MIN_EXACT)
                TH_EQ(round, 1);
            return;
        }
    }
    th_fail(__LINE__, "after 11 rounds of pop(min_time()) the earliest item (expire %" PRId64 ") is still pending; "
                      "min_time() = %" PRId64 ", clock %" PRId64, e, t, h->clock);
}

/* What an event loop does: t = next_expiry(); pop(t). It must pop the
 * earliest item at once (next_expiry is exact), and pop nothing at t - 1. */
static inline void th_next_expiry_round(struct th *h)
{
    int64_t t;
    if (th_count(h, TH_PENDING) == 0) {
        TH_EQ(th_next_expiry(h), TIMER_NEVER);
        return;
    }
    t = th_next_expiry(h);
    th_verify(h);
    if (t > 0)
        TH_EQ(th_pop(h, t - 1), 0);
    TH_EXPECT(th_pop(h, t) >= 1, "pop(next_expiry() = %" PRId64 ") popped nothing", t);
}

/* destroy, and make sure every item ends idle and every heap block is freed. */
static inline void th_fini(struct th *h)
{
    size_t i;
    th_drain_all(h);
    tc_destroy(&h->c);
    for (i = 0; i < h->n; i++) {
        TH_EXPECT(!tc_pending(h->item[i]), "item %zu is still pending after destroy", i);
        free(h->item[i]);
    }
    TH_EQ(tk_live_blocks(), 0);
    free(h->item);
    free(h->m);
    free(h->keys);
    free(h->seen);
}

#endif /* TH_HARNESS_H */
