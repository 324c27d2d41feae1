/* SPDX-License-Identifier: MIT */
/* timer_wheel.h - hierarchical timing wheel over int64 time: O(1) insert and
 * remove, pop that visits only occupied slots, no allocation, and no call
 * that has to sort or refine a large slot at once.
 *
 *     #include "timer_wheel.h"
 *     typedef struct conn { int fd; struct timer_wheel_node tw; } conn;
 *     TIMER_WHEEL_DEFINE(conn, tw)           // conn_wheel and conn_wheel_*()
 *
 *     conn_wheel w;
 *     struct tlist due = {0};                              // zeroed: an empty list
 *     struct tlist *link;
 *     conn_wheel_init(&w, now);
 *     conn_wheel_insert(&w, now + 5000, &some_conn);       // 0, or -EINVAL / -EBUSY
 *     ...
 *     if (!conn_wheel_empty(&w))
 *         sleep_until(conn_wheel_next_expiry(&w));         // exact: never early
 *     conn_wheel_pop(&w, now, &due);                       // every item with expire <= now
 *     tlist_drain(link, &due)                              // each off the list first
 *         close_conn(conn_wheel_entry(link));              // may insert/remove anything
 *
 * Generated API (NAME = TYPE_wheel, or the name given to TIMER_WHEEL_DEFINE_NAMED):
 *   void    NAME_init(NAME *c, int64_t now);     empty, clock = now (< 0 taken as 0)
 *   void    NAME_clear(NAME *c);                 pending items become idle
 *   void    NAME_destroy(NAME *c);               same as clear (the wheel owns no memory)
 *   int     NAME_insert(NAME *c, int64_t expire, TYPE *item);      idle -> pending
 *   int     NAME_reschedule(NAME *c, int64_t expire, TYPE *item);  any state -> pending
 *   int     NAME_reschedule_range(NAME *c, int64_t earliest, int64_t latest, TYPE *item);
 *                                                pending within [earliest, latest]: 0, no
 *                                                change; else reschedule(c, latest, item)
 *   int     NAME_reschedule_near(NAME *c, int64_t expire, int64_t slack, TYPE *item);
 *                                                pending within slack of expire (both ends
 *                                                included): 0, no change; else
 *                                                reschedule(c, expire, item) (nginx's rule)
 *   bool    NAME_remove(NAME *c, TYPE *item);    pending/due -> idle; false if idle
 *   size_t  NAME_pop(NAME *c, int64_t now, struct tlist *out);  append due items to out
 *   int64_t NAME_next_expiry(const NAME *c);     exact earliest expiry; TIMER_NEVER if empty
 *   int64_t NAME_min_time(const NAME *c);        lower bound of the earliest expiry
 *   TYPE   *NAME_first(const NAME *c);           the item pop hands out first; NULL if empty
 *   size_t  NAME_visit(const NAME *c, void (*fn)(TYPE *, void *), void *arg);
 *                                                fn(item, arg) for each pending item, list
 *                                                by list; fn must not change c
 *                                                (it may call next_expiry, first)
 *   int     NAME_visit_until(const NAME *c, int (*fn)(TYPE *, void *), void *arg);
 *                                                the same walk until fn returns non-zero:
 *                                                that value, or 0 after every item
 *   int     NAME_reserve(NAME *c, size_t n);     0: the wheel never allocates
 *   size_t  NAME_size(const NAME *c);
 *   bool    NAME_empty(const NAME *c);
 *   bool    NAME_pending(const TYPE *item);
 *   bool    NAME_due(const TYPE *item);          popped, still in a result list
 *   int64_t NAME_expire(const TYPE *item);       expiry of a pending or due item
 *                                                (an idle item: its last one; NULL: TIMER_NEVER)
 *   TYPE   *NAME_entry(struct tlist *link);      item of a result-list link; NULL for NULL
 *   const char *NAME_check(const NAME *c);       O(n) invariant check: NULL, or what is wrong
 * Errors change nothing: -EINVAL (item NULL, expire < 0; for reschedule_range
 * earliest < 0 or latest < earliest; for reschedule_near expire or slack
 * < 0), -EBUSY (insert of a pending or due item). Valid times are 0 ..
 * INT64_MAX, in any unit.
 *
 * Types without functions: TIMER_WHEEL_DEFINE(_NAMED) is
 * TIMER_WHEEL_DEFINE_TYPE(name), the container type alone, followed by
 * TIMER_WHEEL_DEFINE_FUNCTIONS(name, type, member). A public header
 * includes timer_wheel_types.h, which declares only the node and
 * DEFINE_TYPE (with struct tlist and the version) and leaves
 * TIMER_TYPES_ONLY alone (with TIMER_TYPES_ONLY defined, this header
 * declares the same), so it can embed both; one .c file then includes
 * this header and expands DEFINE_FUNCTIONS.
 *
 * Functions compiled once, for programs of many files: TIMER_WHEEL_DECLARE(name,
 * type, member) (DEFINE_TYPE and the prototypes; DECLARE_FUNCTIONS: the
 * prototypes alone) in the header every file includes, and
 * TIMER_WHEEL_IMPLEMENT(name, type, member) in one .c file after it: the same
 * functions, external (docs/big-programs.md). The results of insert, the
 * reschedules, reserve and check are TIMER_NODISCARD (list.h).
 *
 * How it works. Time is split into 6-bit groups, and an item is filed by
 * the highest group in which its expiry differs from the wheel's clock
 * (Varghese & Lauck's hierarchical wheel, addressed by the differing bits
 * as skynet's is); a bitmap says which slots hold items, so the earliest is
 * found without ticking. Each level has two groups' worth of slots: the
 * rest of the clock's own group at the level above, and the whole group
 * after it. That second half is what lets work be done before it is
 * needed: the slot of the next group at each level, the "pending" slot, is
 * refined into the finer level's second half (its items spread over finer
 * slots) a few items per pop, finest level first, so that when the clock
 * gets there the slot is ready and no single call moves a slot's worth of
 * items (Redis rehashes its tables in the same spirit). A pending slot is
 * walked before it is refined: a front of it in expiry order (fixed-delay
 * timeouts are inserted that way) becomes a sorted run instead, handed out
 * from its front, so its items are not refined level by level. Every item
 * at or behind the clock lives in a run too: an insert no earlier than the
 * last item of one of the two newest runs extends it, any other starts a
 * run, and runs merge stably, oldest first, with sizes at least doubling (a
 * binary counter): there are O(log n) of them, and nothing is ever
 * searched. pop and
 * next_expiry take the earlier of the earliest run's first item and the
 * earliest slot. Among equal expiries an item that arrived earlier is
 * always in an older run, in a run rather than a slot, or in a finer level
 * (refining appends, and a group that has begun to be refined never makes
 * a run), so the order is (expiry, arrival), as in timer_set.h and
 * timer_heap.h. A slot that holds one item is never refined for its own
 * sake: its expiry is known, and pop takes it where it is.
 *
 * Guarantees and costs, for every sequence of calls:
 * - insert, remove, reschedule O(1); an insert at or before the clock is
 *   O(1) when no earlier than the newest run's last item, else O(log k)
 *   amortised (k: items in runs);
 * - pop hands out exactly the items with expire <= now, in (expiry,
 *   arrival) order, O(1) amortised per item (an item is refined at most
 *   once per level, or walked once into a run) + O(log k) for run items; a
 *   pop before every slot and run item (nothing due) is a few compares;
 * - next_expiry and first are amortised O(1); they may move the clock
 *   forward, never past the earliest item (nothing observable depends on
 *   it); a pop with nothing left in the slots lets the clock go back to the
 *   caller's time (after pop(TIMER_NEVER) to drain, say);
 * - single calls: pops prepare the pending slots as they go (from a
 *   quarter into the group before each), 16 steps in each that is not the
 *   inline fast path and 4 per item that arrived since (an event loop
 *   re-arms what it pops), so a call moves more only for items no earlier
 *   call had the chance to prepare (a window of timers inserted in bulk
 *   and then reached at once), and an insert behind the clock may do the
 *   run merges that 32 runs in use call for. In an event loop of 1M timers
 *   (docs/design.md) no call moved more than a few dozen items;
 * - min_time is O(1), const, and never later than the earliest expiry; it
 *   is exact when the earliest item lies in the clock's finest 64-tick
 *   window or is the first item of a run known to be first; otherwise it is
 *   a slot's start. Repeating `t = min_time(); pop(t)` pops the earliest
 *   item within 11 rounds. Use next_expiry to sleep exactly.
 *
 * Misuse: an item freed while pending is not detected (remove it first).
 * next_expiry, first and visit take a const wheel but may reorganise it
 * (logically const): two threads must not call them at once.
 * remove() or reschedule() with a wheel other than the one holding the item
 * aborts in builds with asserts, before anything changes, when a walk of at
 * most 8 links from the item reaches its list's head (so in any list of up
 * to 8 items), or when this wheel is empty; otherwise at the latest when a
 * count would go wrong. TIMER_DEBUG walks the whole list and always tells.
 * With NDEBUG such a call returns false / -EINVAL and changes nothing when
 * this wheel is empty or the item is alone in a list that is not this
 * wheel's. Insert of a due item aborts in builds with asserts (naming
 * reschedule and tlist_drain); NDEBUG: -EBUSY. A DEFINE whose member is
 * not a struct timer_wheel_node, or TIMER_WHEEL_DEFINE with `struct X` or
 * a type named `timer` (timer_wheel is this header's), fails to compile;
 * the first error names the fix.
 */

#include "list.h"   /* first: it stops a header of another version */

/* ---- the types: also for a public header (TIMER_TYPES_ONLY, timer_wheel_types.h) */
#ifndef TIMER_WHEEL_H_TYPES
#define TIMER_WHEEL_H_TYPES

/* The states (compare timer_set.h and timer_heap.h):
 *   idle     link.next == NULL (a zeroed node; what tlist_pop_front leaves)
 *   pending  link in a slot list or a run; expire >= 0
 *   due      link in a caller's result list; expire holds ~expiry (< 0)
 * so the sign of `expire` tells pending from due without a flag field. */
struct timer_wheel_node {
    struct tlist link;
    int64_t expire;
};

/* The container type alone: typedef struct name name, holding the layout
 * of struct timer_wheel (below, with the functions) without its name; the
 * functions' part checks that the two agree. */
#define TIMER_WHEEL_DEFINE_TYPE(name)                                                                \
    typedef struct name { struct { int64_t now; uint64_t limit; int64_t runs_low, upto; int best;     \
        size_t count, debt, settled; size_t run_size[64]; uint64_t occupied[22];                     \
        struct tlist slot[1408]; } wheel; } name;

#endif /* TIMER_WHEEL_H_TYPES */

/* ---- the functions ---------------------------------------------------------- */
#if !defined(TIMER_TYPES_ONLY) && !defined(TIMER_TYPES_PASS_) && !defined(TIMER_WHEEL_H_FUNCTIONS)
#define TIMER_WHEEL_H_FUNCTIONS

#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdbool.h>
#include "bitmap.h"

#define TIMER_WHEEL_BITS 6
#define TIMER_WHEEL_SLOTS 64
#define TIMER_WHEEL_LEVELS 11
/* List heads: level L's 128 slots at 128 * L (level 10 needs only its
 * first 64: no time has a group above it), then the 64 runs, oldest first. */
#define TIMER_WHEEL_RUN0 (128 * (TIMER_WHEEL_LEVELS - 1) + 64)
#define TIMER_WHEEL_NSLOTS (TIMER_WHEEL_RUN0 + 64)

struct TIMER_MAY_ALIAS_ timer_wheel {
    int64_t now;            /* the clock: every slot item is later than it */
    /* A lower bound of every occupied slot's start, later than the clock
     * (UINT64_MAX: no slot). An expiry at or after it is filed straight
     * into its slot, and a pop before it has no slot to look at. */
    uint64_t limit;
    int64_t runs_low;       /* a lower bound of every run item (TIMER_NEVER: none) */
    /* The run pop hands out from first (best, -1: not known) and the latest
     * expiry it may hand out before another run's item (upto). */
    int64_t upto;
    int best;
    size_t count;           /* pending items */
    size_t debt;            /* items handed out since the background last worked */
    size_t settled;         /* the count when it last worked */
    size_t run_size[64];    /* items a run received, less those popped: >= its length */
    /* Bit i set <=> slot[i] is non-empty. A head is initialised when its
     * bit is set, so init only has to clear 22 words. */
    uint64_t occupied[TIMER_WHEEL_NSLOTS / 64];
    struct tlist slot[TIMER_WHEEL_NSLOTS];
};
TIMER_WHEEL_DEFINE_TYPE(timer_wheel_layout_)
TIMER_STATIC_CHECK_(timer_wheel_layout_check_, sizeof(timer_wheel_layout_) == sizeof(struct timer_wheel) &&
                    offsetof(timer_wheel_layout_, wheel.slot) == offsetof(struct timer_wheel, slot))

TIMER_FUNCTIONS_BEGIN_

/* Test instrumentation, default nothing: ON_MOVE_() runs once for every
 * item moved from one list to another inside the wheel, ON_WALK_(k) for k
 * links walked without moving (the tests count both to prove the bounds). */
#ifndef TIMER_WHEEL_ON_MOVE_
#define TIMER_WHEEL_ON_MOVE_() ((void)0)
#endif
#ifndef TIMER_WHEEL_ON_WALK_
#define TIMER_WHEEL_ON_WALK_(k) ((void)0)
#endif

#define timer_wheel_node_of_(l) tlist_entry(l, struct timer_wheel_node, link)
#define timer_wheel_front_(w, i) (timer_wheel_node_of_((w)->slot[i].next)->expire)
#define timer_wheel_back_(w, i) (timer_wheel_node_of_((w)->slot[i].prev)->expire)
#define timer_wheel_runs_(w) ((w)->occupied[TIMER_WHEEL_RUN0 / 64])

TIMER_INLINE_ bool timer_wheel_node_pending(const struct timer_wheel_node *n)
{
    return n != NULL && n->link.next != NULL && n->expire >= 0;
}

TIMER_INLINE_ bool timer_wheel_node_due(const struct timer_wheel_node *n)
{
    return n != NULL && n->link.next != NULL && n->expire < 0;
}

TIMER_INLINE_ int64_t timer_wheel_node_expire(const struct timer_wheel_node *n)
{
    return n == NULL ? TIMER_NEVER : n->expire < 0 ? ~n->expire : n->expire;
}

/* The two state changes, each in one place. Idle: unlinked. Due: the sign
 * flips; the caller links it into the result list. */
TIMER_INLINE_ void timer_wheel_make_idle_(struct timer_wheel_node *n)
{
    n->link.next = n->link.prev = NULL;
}

TIMER_INLINE_ void timer_wheel_make_due_(struct timer_wheel_node *n)
{
    n->expire = ~n->expire;
}

TIMER_INLINE_ void timer_wheel_init(struct timer_wheel *w, int64_t now)
{
    w->now = now < 0 ? 0 : now;
    w->limit = UINT64_MAX;
    w->runs_low = TIMER_NEVER;
    w->best = -1;
    w->count = w->debt = w->settled = 0;
    tbitmap_zero(w->occupied, TIMER_WHEEL_NSLOTS);
}

/* The slot of an expiry later than the clock: the highest bit in which
 * the two differ, divided by 6 (as x * 43 >> 8, exact for 0 .. 63), is its
 * level; the low 7 bits of its group at that level pick the slot. */
TIMER_INLINE_ size_t timer_wheel_slot_(int64_t clock, int64_t expire)
{
    unsigned l = (tbitmap_highest((uint64_t)expire ^ (uint64_t)clock) * 43) >> 8;  /* the bit / 6 */
    return 128 * l + (size_t)(((uint64_t)expire >> (TIMER_WHEEL_BITS * l)) & 127);
}

/* The first tick of slot i: its level's group is the clock's one level up,
 * or the next one for the second half, then the slot's 6 bits. */
TIMER_INLINE_ int64_t timer_wheel_slot_start_(int64_t clock, size_t i)
{
    unsigned s = (unsigned)(i >> 7) * TIMER_WHEEL_BITS;
    uint64_t up = ((uint64_t)clock >> s) >> TIMER_WHEEL_BITS;
    up += ((i >> 6) ^ up) & 1;
    return (int64_t)(((up << TIMER_WHEEL_BITS) | (i & 63)) << s);
}

/* Level l's pending slot: the group after the clock's. */
TIMER_INLINE_ size_t timer_wheel_pending_(const struct timer_wheel *w, unsigned l)
{
    return 128 * l + ((((uint64_t)w->now >> (TIMER_WHEEL_BITS * l)) + 1) & 127);
}

/* Append an unlinked node to list i, initialising the head if i was empty.
 * Appending is what keeps each list in arrival order. */
TIMER_INLINE_ void timer_wheel_link_(struct timer_wheel *w, size_t i, struct timer_wheel_node *n)
{
    if (!tbitmap_test(w->occupied, i)) {
        tbitmap_set(w->occupied, i);
        tlist_init(&w->slot[i]);
    }
    tlist_push_back_(&w->slot[i], &n->link);
}

/* ---- the runs: sorted lists, oldest first ---------------------------------
 * Items at or behind the clock, and pending slots found in expiry order.
 * Among equal expiries an older run's items arrived first, and so did a
 * run's than any slot item's. Run r is list RUN0 + r. */

/* Merge run b into the older run a, stably (a's items first among equal
 * expiries): O(length of b + a's items up to b's last); O(1) when one of
 * them ends before the other starts. */
TIMER_INLINE_ void timer_wheel_merge_(struct timer_wheel *w, size_t a, size_t b)
{
    struct tlist *ha = &w->slot[TIMER_WHEEL_RUN0 + a], *hb = &w->slot[TIMER_WHEEL_RUN0 + b], *x,
                 *pos = timer_wheel_back_(w, TIMER_WHEEL_RUN0 + a) <= timer_wheel_front_(w, TIMER_WHEEL_RUN0 + b) ? ha : ha->next;
    if (timer_wheel_back_(w, TIMER_WHEEL_RUN0 + b) < timer_wheel_front_(w, TIMER_WHEEL_RUN0 + a))
        tlist_splice_range_(ha->next, hb->next, hb->prev);  /* all of b before a */
    else
        while ((x = hb->next) != hb) {      /* pos == ha at once: all of b after a */
            for (; pos != ha && timer_wheel_node_of_(pos)->expire <= timer_wheel_node_of_(x)->expire; pos = pos->next)
                TIMER_WHEEL_ON_WALK_(1);
            if (pos == ha) {                /* the rest of b is later: after a's last */
                tlist_splice_range_(ha, x, hb->prev);
                break;
            }
            TIMER_WHEEL_ON_MOVE_();
            tlist_remove(x);
            tlist_splice_range_(pos, x, x); /* i.e. link x just before pos */
        }
    tbitmap_clear(w->occupied, TIMER_WHEEL_RUN0 + b);
    w->run_size[a] += w->run_size[b];
}

/* Pack the runs to the front, oldest first (pops empty the oldest first,
 * so the newest run reaches the last head long before 64 are in use); when
 * 32 or more are, merge each with the one before it while that is not more
 * than twice its size: sizes then more than double towards the oldest, so
 * there are O(log n) runs and each item takes part in O(log n) merges (a
 * binary counter). */
TIMER_NOINLINE_ void timer_wheel_normalize_(struct timer_wheel *w)
{
    uint64_t runs = timer_wheel_runs_(w);
    size_t r, top = 0, used = 0;
    for (; runs != 0; runs &= runs - 1)
        used++;
    for (r = 0; (r = tbitmap_find_first(w->occupied, TIMER_WHEEL_RUN0 + r, TIMER_WHEEL_NSLOTS) - TIMER_WHEEL_RUN0) < 64; r++) {
        struct tlist *h = &w->slot[TIMER_WHEEL_RUN0 + top];
        if (r != top) {                     /* move the head down; its items stay */
            *h = w->slot[TIMER_WHEEL_RUN0 + r];
            h->next->prev = h->prev->next = h;
            tbitmap_clear(w->occupied, TIMER_WHEEL_RUN0 + r);
            tbitmap_set(w->occupied, TIMER_WHEEL_RUN0 + top);
            w->run_size[top] = w->run_size[r];
        }
        for (top++; used >= 32 && top >= 2 && w->run_size[top - 2] <= 2 * w->run_size[top - 1]; top--)
            timer_wheel_merge_(w, top - 2, top - 1);
    }
    if (top == 64)                          /* sizes past 2^63: not in this universe */
        timer_wheel_merge_(w, top - 2, top - 1);
    w->best = -1;
}

/* Add the sorted chain first .. last (k items, out of any list) to the
 * runs: onto whichever of the two newest runs has the latest last item
 * not after it (two ascending streams that interleave, re-arms behind the
 * clock and timers due now, each keep their run), else as a new run. The
 * older of the two takes it only when the newer has no item of an expiry
 * in the chain, so ties still go out in the order they came. */
TIMER_NOINLINE_ void timer_wheel_add_run_(struct timer_wheel *w, struct tlist *first, struct tlist *last, size_t k)
{
    int64_t f = timer_wheel_node_of_(first)->expire;
    uint64_t runs = timer_wheel_runs_(w);
    size_t r = runs != 0 ? tbitmap_highest(runs) : 0, q = runs & (runs - 1) ? tbitmap_highest(runs ^ (uint64_t)1 << r) : r;
    if (q != r && timer_wheel_back_(w, TIMER_WHEEL_RUN0 + q) <= f && (timer_wheel_node_of_(last)->expire < timer_wheel_front_(w, TIMER_WHEEL_RUN0 + r)
            || timer_wheel_back_(w, TIMER_WHEEL_RUN0 + q) > timer_wheel_back_(w, TIMER_WHEEL_RUN0 + r)))
        r = q;
    if (runs != 0 && timer_wheel_back_(w, TIMER_WHEEL_RUN0 + r) > f && ++r == 64) {
        timer_wheel_normalize_(w);
        timer_wheel_add_run_(w, first, last, k);
        return;
    }
    if (!tbitmap_test(w->occupied, TIMER_WHEEL_RUN0 + r)) {     /* a new run */
        tbitmap_set(w->occupied, TIMER_WHEEL_RUN0 + r);
        tlist_init(&w->slot[TIMER_WHEEL_RUN0 + r]);
        w->run_size[r] = 0;
        w->runs_low = f < w->runs_low ? f : w->runs_low;
        w->best = -1;
    }
    tlist_splice_range_(&w->slot[TIMER_WHEEL_RUN0 + r], first, last);
    w->run_size[r] += k;
}

/* Choose the run pop hands out from first: the earliest first item, ties
 * to the older run (the lower index). upto: how far it may go before
 * another run's item must go first. runs_low becomes exact. */
TIMER_NOINLINE_ void timer_wheel_pick_(struct timer_wheel *w)
{
    uint64_t runs = timer_wheel_runs_(w);
    int64_t t = TIMER_NEVER, upto = TIMER_NEVER;
    for (w->best = -1; runs != 0; runs &= runs - 1) {
        int r = (int)tbitmap_lowest(runs);
        int64_t f = timer_wheel_front_(w, TIMER_WHEEL_RUN0 + (size_t)r);
        if (w->best >= 0 && f >= t) {       /* a newer run: its ties go after */
            upto = f < upto ? f : upto;
            continue;
        }
        upto = w->best < 0 ? upto : t - 1;  /* an older best's ties go first */
        w->best = r;
        t = f;
    }
    w->upto = upto;
    w->runs_low = t;
}

/* The run whose first item pop hands out first (its list), or NSLOTS. */
TIMER_INLINE_ size_t timer_wheel_best_run_(struct timer_wheel *w)
{
    size_t i = TIMER_WHEEL_RUN0 + (size_t)w->best;
    if (w->best >= 0 && tbitmap_test(w->occupied, i) && timer_wheel_front_(w, i) <= w->upto)
        return i;
    timer_wheel_pick_(w);
    return w->best < 0 ? TIMER_WHEEL_NSLOTS : TIMER_WHEEL_RUN0 + (size_t)w->best;
}

/* Hand out list i's items up to `upto` from its front (the first is no
 * later), in order: one cut from the list onto out's end. For a run,
 * runs_low follows its new first item. */
TIMER_INLINE_ size_t timer_wheel_take_front_(struct timer_wheel *w, size_t i, int64_t upto, struct tlist *out)
{
    struct tlist *head = &w->slot[i], *first = head->next, *last = first, *next;
    size_t k = 1;
    tlist_ready_(out);
    timer_wheel_make_due_(timer_wheel_node_of_(first));
    for (; (next = last->next) != head && timer_wheel_node_of_(next)->expire <= upto; last = next, k++)
        timer_wheel_make_due_(timer_wheel_node_of_(next));
    head->next = next;
    next->prev = head;
    tlist_splice_range_(out, first, last);
    if (next == head)
        tbitmap_clear(w->occupied, i);
    if (i >= TIMER_WHEEL_RUN0) {
        w->run_size[i - TIMER_WHEEL_RUN0] -= k;
        w->runs_low = next != head && timer_wheel_node_of_(next)->expire < w->upto ? timer_wheel_node_of_(next)->expire : w->upto;
    }
    return k;
}

/* Hand out every run item with expire <= bound, in pop order: from the
 * best run as far as upto allows, then from the next best. */
TIMER_NOINLINE_ size_t timer_wheel_take_runs_slow_(struct timer_wheel *w, int64_t bound, struct tlist *out)
{
    size_t k = 0, i;
    while ((i = timer_wheel_best_run_(w)) < TIMER_WHEEL_NSLOTS && timer_wheel_front_(w, i) <= bound)
        k += timer_wheel_take_front_(w, i, bound < w->upto ? bound : w->upto, out);
    if (i < TIMER_WHEEL_NSLOTS)
        w->runs_low = timer_wheel_front_(w, i);
    return k;
}

/* The same, in line for the common case: the best run is known and no
 * other run's item can be due by bound, so its due items go in one cut. */
TIMER_INLINE_ size_t timer_wheel_take_runs_(struct timer_wheel *w, int64_t bound, struct tlist *out)
{
    size_t i = TIMER_WHEEL_RUN0 + (size_t)w->best;
    if (w->best < 0 || bound >= w->upto || w->slot[i].next == &w->slot[i] || timer_wheel_front_(w, i) > bound)
        return timer_wheel_take_runs_slow_(w, bound, out);
    return timer_wheel_take_front_(w, i, bound, out);
}

/* ---- insert, remove, reschedule ------------------------------------------ */

/* File an unlinked node at `expire`: at or after limit, straight into its
 * slot (the common insert); earlier, into its slot with limit lowered to
 * its start, or at or before the clock into the runs. */
TIMER_NOINLINE_ void timer_wheel_file_early_(struct timer_wheel *w, struct timer_wheel_node *n)
{
    size_t i;
    if (n->expire <= w->now) {
        timer_wheel_add_run_(w, &n->link, &n->link, 1);
        return;
    }
    timer_wheel_link_(w, i = timer_wheel_slot_(w->now, n->expire), n);
    if ((uint64_t)timer_wheel_slot_start_(w->now, i) < w->limit)
        w->limit = (uint64_t)timer_wheel_slot_start_(w->now, i);
}

TIMER_INLINE_ void timer_wheel_file_(struct timer_wheel *w, int64_t expire, struct timer_wheel_node *n)
{
    n->expire = expire;
    if ((uint64_t)expire >= w->limit)
        timer_wheel_link_(w, timer_wheel_slot_(w->now, expire), n);
    else
        timer_wheel_file_early_(w, n);
}

TIMER_INLINE_ int timer_wheel_insert(struct timer_wheel *w, int64_t expire, struct timer_wheel_node *n)
{
    if (n == NULL || expire < 0)
        return -EINVAL;
    if (n->link.next != NULL)
        return -EBUSY;
    timer_wheel_file_(w, expire, n);
    w->count++;
    return 0;
}

/* Is l one of w's list heads? */
TIMER_INLINE_ bool timer_wheel_is_head_(const struct timer_wheel *w, const struct tlist *l)
{
    return (uintptr_t)l - (uintptr_t)w->slot < sizeof w->slot;
}

/* May w hold n? False only when n is pending and w is empty, or a walk
 * round n's list comes back to n without meeting one of w's heads (n is
 * in another wheel). remove and reschedule assert it with a walk of at most
 * 8 links, so the check stays O(1); TIMER_DEBUG walks the whole list. */
TIMER_INLINE_ bool timer_wheel_holds_(const struct timer_wheel *w, const struct timer_wheel_node *n, size_t limit)
{
    const struct tlist *pos;
    if (!timer_wheel_node_pending(n))
        return true;
    for (pos = n->link.next; w->count != 0 && pos != &n->link; pos = pos->next)
        if (timer_wheel_is_head_(w, pos) || limit-- == 0)
            return true;
    return false;
}

TIMER_INLINE_ bool timer_wheel_owns_(const struct timer_wheel *w, const struct timer_wheel_node *n)
{
    return timer_wheel_holds_(w, n, SIZE_MAX);
}

/* Take a pending node out of its list (the count and the node's own state
 * are the caller's). False, with nothing changed, when the check of every
 * build finds it is another wheel's: w is empty, or n was alone in a list
 * whose head is not w's (it reads only what unlinking reads anyway). */
TIMER_INLINE_ bool timer_wheel_cut_(struct timer_wheel *w, struct timer_wheel_node *n)
{
    struct tlist *prev = n->link.prev, *next = n->link.next;
    bool ours = w->count != 0 && (prev != next || timer_wheel_is_head_(w, prev));
    assert(ours &&
           "timer_wheel_remove/reschedule: the item is not in this wheel (another wheel holds it, or init was called while this one held it)");
    if (!ours)
        return false;
    if (prev == next)                       /* n was alone: its list is empty now */
        tbitmap_clear(w->occupied, (size_t)(prev - w->slot));
    prev->next = next;
    next->prev = prev;
    return true;
}

TIMER_INLINE_ bool timer_wheel_remove(struct timer_wheel *w, struct timer_wheel_node *n)
{
    if (n == NULL || n->link.next == NULL)
        return false;
    assert(timer_wheel_holds_(w, n, 7) &&
           "timer_wheel_remove: the item is not in this wheel (another wheel holds it, or init was called while this one held it)");
    if (n->expire < 0)
        tlist_remove(&n->link);             /* due: leave the result list */
    else if (!timer_wheel_cut_(w, n))
        return false;                       /* another wheel's item: nothing changes */
    else
        w->count--;
    timer_wheel_make_idle_(n);
    return true;
}

/* A pending item moving to a slot (a connection timeout pushed back) is
 * unlinked from wherever it is and appended, as an insert would, since a
 * reschedule is a new arrival; one that is last in the slot its new expiry
 * maps to is there already: only the expiry changes. */
TIMER_INLINE_ int timer_wheel_reschedule(struct timer_wheel *w, int64_t expire, struct timer_wheel_node *n)
{
    if (n == NULL || expire < 0)
        return -EINVAL;
    assert(timer_wheel_holds_(w, n, 7) &&
           "timer_wheel_reschedule: the item is not in this wheel (another wheel holds it, or init was called while this one held it)");
    if (timer_wheel_node_pending(n) && (uint64_t)expire >= w->limit) {
        size_t i = timer_wheel_slot_(w->now, expire);
        if (n->link.next != &w->slot[i]) {
            if (!timer_wheel_cut_(w, n))
                return -EINVAL;             /* another wheel's item: nothing changes */
            n->link.next = NULL;
            timer_wheel_link_(w, i, n);
        }
        n->expire = expire;
        return 0;
    }
    if (!timer_wheel_remove(w, n) && n->link.next != NULL)
        return -EINVAL;                     /* another wheel's item: nothing changes */
    timer_wheel_file_(w, expire, n);
    w->count++;
    return 0;
}

/* ---- refining ahead of the clock ------------------------------------------ */

/* Prepare level l's pending slot P, which is not empty (the callers see to
 * it), up to `budget` steps. It returns the items moved, or walked into a
 * run, or walked when the budget ended the walk; 0 only when a walk took
 * the budget and moved nothing (the background moves on). With budget
 * SIZE_MAX a call always empties P or makes a run of its front. P's items
 * go, front first, to the second half of level l - 1, which is P's range
 * (refining). Before anything of P's group went down (to that half, or to
 * a finer second half inside P's range while the clock's groups below are
 * at their last slot), P is walked first: a front of 8 or more items in
 * expiry order (fixed-delay timeouts are inserted that way) becomes a run,
 * so its items are not refined level by level; a few items are refined all
 * the same (a run would cost as much), and so is a front short of P's end
 * while 16 runs are in use (fronts of unordered items that tie, thousands a
 * tick, would otherwise fill the runs, and merging them is not spread over
 * calls). Once any item of the group went down, its later items follow: a
 * run would hold items that arrived after them. Every list stays in arrival
 * order. */
TIMER_NOINLINE_ size_t timer_wheel_step_(struct timer_wheel *w, unsigned l, size_t budget)
{
    uint64_t group = ((uint64_t)w->now >> (TIMER_WHEEL_BITS * l)) + 1, up;
    size_t p = 128 * l + (group & 127), k = 0, j = l - 1;
    struct tlist *ph = &w->slot[p], *pos = NULL, *next, *first = NULL, *end;
    int64_t last = 0;
    bool fresh = w->occupied[2 * j + (group & 1)] == 0, run = false;
    for (; fresh && j > 0 && ((up = (uint64_t)w->now >> (TIMER_WHEEL_BITS * j)) & 63) == 63; j--)
        fresh = w->occupied[2 * (j - 1) + ((up + 1) & 1)] == 0;
    if (fresh) {
        for (pos = first = ph->next; pos != ph && k < budget && timer_wheel_node_of_(pos)->expire >= last; pos = pos->next, k++)
            last = timer_wheel_node_of_(pos)->expire;
        TIMER_WHEEL_ON_WALK_(k);
        if (k < 8 && k == budget)           /* sorted as far as walked: later */
            return k;
        for (up = timer_wheel_runs_(w), j = 0; up != 0; up &= up - 1)
            j++;                            /* runs in use */
        run = k >= 8 && (pos == ph || j < 16);  /* a sorted front: a run */
    }
    if (!run)
        for (pos = ph->next, end = ph->prev, budget -= k, k = 0; pos != ph && budget-- != 0; pos = next, k++) {
            next = pos->next;
            /* A second chain of loads, from the back until the two meet:
             * two cache misses in flight, and the front finds those items
             * loaded (volatile: the compiler keeps loads nothing reads). */
            end = end == pos || end == next || end == NULL ? NULL : ((volatile struct tlist *)end)->prev;
            TIMER_WHEEL_ON_MOVE_();
            pos->next = NULL;
            timer_wheel_link_(w, 128 * (l - 1) + (((uint64_t)timer_wheel_node_of_(pos)->expire >> (TIMER_WHEEL_BITS * (l - 1))) & 127),
                              timer_wheel_node_of_(pos));
        }
    end = pos->prev;                        /* the front's last, if a run */
    ph->next = pos;                         /* P keeps what follows */
    pos->prev = ph;
    if (pos == ph)
        tbitmap_clear(w->occupied, p);
    if (run)
        timer_wheel_add_run_(w, first, end, k);
    return k;
}

/* The background: 16 steps (items refined or walked), and 4 more for each
 * item that arrived since it last worked and is still pending (the count
 * then, less the items handed out since, to the count now), on the pending
 * slots of the clock now, finest level first (its deadline is the nearest),
 * up to the coarsest level in use; level 2 and up once the clock is a
 * quarter into the group before the slot's, since what it walks earlier may
 * leave before it is due (idle connections push their timeouts back on
 * every message), and the rest of the group leaves it the same time. A slot
 * of one item is left where it is: the scan compares it there, and pop
 * takes it from there. What arrives is
 * what must be prepared: an event loop re-arms what it pops, while a pop
 * through timers inserted in bulk finds its slots where the inserts put
 * them, and refines each when it gets there, at once, from both ends of its
 * list (cache misses in pairs), not ahead in small parts. Each slow pop
 * ends with it, and an inline pop once it has handed out 64 items since (a
 * loop of fixed-delay timeouts pops them from runs, in line). */
TIMER_NOINLINE_ void timer_wheel_work_(struct timer_wheel *w)
{
    size_t in = w->count + w->debt, budget = 16 + 4 * (in > w->settled ? in - w->settled : 0), p, k;
    unsigned l = 2 * TIMER_WHEEL_LEVELS - 2, top;
    while (l > 1 && (w->occupied[l] | w->occupied[l - 1]) == 0)
        l -= 2;                             /* above level l / 2 every slot is empty */
    for (top = l / 2, l = 1; l <= top && budget != 0; l++)
        while ((l < 2 || ((uint64_t)w->now >> (TIMER_WHEEL_BITS * l - 2) & 3) != 0) && tbitmap_test(w->occupied, p = timer_wheel_pending_(w, l)) &&
               w->slot[p].next != w->slot[p].prev && (k = timer_wheel_step_(w, l, budget)) != 0)
            budget -= k;                    /* step_ spends no more than budget */
    w->settled = w->count;
    w->debt = 0;
}

/* The pending slots whose range is level l's second half: level l + 1's,
 * and more levels' while the clock is in the last group at each. Their
 * items may be earlier than the second half's, and arrived later, so they
 * are prepared first; or, with `prepare` false, reported as *pend. One
 * item alone, earlier than the second half's first slot, is returned
 * instead (pop may take it where it is); else NSLOTS. */
TIMER_NOINLINE_ size_t timer_wheel_range_(struct timer_wheel *w, unsigned l, bool prepare, bool *pend)
{
    unsigned top = l + 1, m;
    size_t p = timer_wheel_pending_(w, top), word = 2 * l + 1 - (((uint64_t)w->now >> (TIMER_WHEEL_BITS * top)) & 1);
    while (top + 1 < TIMER_WHEEL_LEVELS && (((uint64_t)w->now >> (TIMER_WHEEL_BITS * top)) & 63) == 63)
        top++;
    if (top == l + 1 && tbitmap_test(w->occupied, p) && w->slot[p].next == w->slot[p].prev &&
        timer_wheel_front_(w, p) < timer_wheel_slot_start_(w->now, 64 * word + tbitmap_lowest(w->occupied[word])))
        return p;
    for (m = top; m > l; m--) {
        if (!prepare && tbitmap_test(w->occupied, timer_wheel_pending_(w, m))) {
            *pend = true;
            return p;
        }
        while (tbitmap_test(w->occupied, timer_wheel_pending_(w, m)))
            (void)timer_wheel_step_(w, m, SIZE_MAX);    /* until P is empty */
    }
    return TIMER_WHEEL_NSLOTS;
}

/* The earliest occupied slot, or NSLOTS, from level l up (every level
 * below the one a scan returns is empty: after refining what it found at
 * level m, the next scan may start at m - 1). Level by level: the rest of
 * the clock's group first (earlier than anything coarser), then the second
 * half, once the pending slots sharing its range are seen to. An empty
 * second half leaves the pending slot one level up to be found first
 * there (it is that level's first slot). */
TIMER_INLINE_ size_t timer_wheel_scan_(struct timer_wheel *w, unsigned l, bool prepare, bool *pend)
{
    for (; l < TIMER_WHEEL_LEVELS; l++) {
        uint64_t g = (uint64_t)w->now >> (TIMER_WHEEL_BITS * l), up = g >> 6, bits;
        size_t word = 2 * l + (up & 1), i;
        if ((bits = w->occupied[word] & (~UINT64_C(1) << (g & 63))) != 0)
            return 64 * word + tbitmap_lowest(bits);
        if (l + 1 == TIMER_WHEEL_LEVELS || w->occupied[word ^ 1] == 0)
            continue;
        if ((tbitmap_test(w->occupied, 128 * (l + 1) + ((up + 1) & 127)) || (up & 63) == 63) &&
            (i = timer_wheel_range_(w, l, prepare, pend)) < TIMER_WHEEL_NSLOTS)
            return i;
        return 64 * (word ^ 1) + tbitmap_lowest(w->occupied[word ^ 1]);
    }
    return TIMER_WHEEL_NSLOTS;
}

/* Slot i's earliest expiry when it is known without refining (a level-0
 * slot is one tick; a slot of one item), else -1. */
TIMER_INLINE_ int64_t timer_wheel_exact_(const struct timer_wheel *w, size_t i)
{
    return i < 128 ? timer_wheel_slot_start_(w->now, i) : w->slot[i].next == w->slot[i].prev ? timer_wheel_front_(w, i) : -1;
}

/* Slot i, which starts at `start`, is the earliest and must be refined
 * (every run item is later than its start): move the clock to just before
 * it, where it is its level's pending slot, and prepare it. */
TIMER_NOINLINE_ void timer_wheel_refine_(struct timer_wheel *w, size_t i, int64_t start)
{
    unsigned l = (unsigned)(i >> 7);
    if (i != timer_wheel_pending_(w, l))
        w->now = start - 1;
    w->limit = (uint64_t)start;
    while (tbitmap_test(w->occupied, i))
        (void)timer_wheel_step_(w, l, SIZE_MAX);        /* until P is empty */
}

/* ---- pop, next_expiry, first ------------------------------------------------ */

/* pop when the fast path does not apply: now behind the clock (then only
 * run items can be due), or a run item or slot at or before now. Slots and
 * runs are taken in time order, a run's items first among equal expiries;
 * a coarse slot that starts by now is refined first. The clock follows
 * each level-0 slot taken (all is handed out up to it), so the next one is
 * in the clock's own group. Afterwards the clock is now, and limit the
 * earliest slot's start (or its half's, in a second half, where the
 * pending slot one level up starts and an insert may still go). */
TIMER_NOINLINE_ size_t timer_wheel_pop_slow_(struct timer_wheel *w, int64_t now, struct tlist *out)
{
    size_t k = 0, i;
    uint64_t bits;
    unsigned l;
    bool pend;
    if (now < w->now) {
        k = timer_wheel_take_runs_(w, now, out);
        /* With no slot item to keep in place, the clock may go back to
         * the caller's time (after pop(TIMER_NEVER) to drain, say), so
         * that later inserts are not all behind it. */
        if (tbitmap_find_first(w->occupied, 0, TIMER_WHEEL_RUN0) == TIMER_WHEEL_RUN0) {
            w->now = now < 0 ? 0 : now;
            w->limit = UINT64_MAX;
        }
    } else {
        for (l = 0; (i = timer_wheel_scan_(w, l, true, &pend)) < TIMER_WHEEL_NSLOTS; l = (unsigned)(i >> 7) - (i >= 128)) {
            int64_t x = timer_wheel_exact_(w, i), start = timer_wheel_slot_start_(w->now, i), t = x < 0 ? start : x;
            if (w->runs_low <= (t < now ? t : now))
                k += timer_wheel_take_runs_(w, t < now ? t : now, out);
            if (start > now)
                break;
            if (x < 0 || x > now) {
                timer_wheel_refine_(w, i, start);
            } else {                        /* then the rest of a level-0 word, straight */
                for (k += timer_wheel_take_front_(w, i, x, out); i < 128; k += timer_wheel_take_front_(w, i, x, out)) {
                    w->now = x;
                    if ((bits = w->occupied[i >> 6] & (~UINT64_C(1) << (x & 63))) == 0 ||
                        (x = (x & ~INT64_C(63)) + (int64_t)tbitmap_lowest(bits)) > now || w->runs_low <= x)
                        break;
                    i = (i & ~(size_t)63) + (size_t)(x & 63);
                }
            }
        }
        if (i == TIMER_WHEEL_NSLOTS && w->runs_low <= now)
            k += timer_wheel_take_runs_(w, now, out);
        w->now = now;
        if (i < TIMER_WHEEL_NSLOTS && ((i >> 6) ^ ((uint64_t)now >> (TIMER_WHEEL_BITS * (i >> 7)) >> 6)) & 1)
            i &= ~(size_t)63;               /* a second half: where the pending slot above starts */
        w->limit = i < TIMER_WHEEL_NSLOTS ? (uint64_t)timer_wheel_slot_start_(now, i) : UINT64_MAX;
        w->debt += k;
        timer_wheel_work_(w);
    }
    assert(k <= w->count && "timer_wheel_pop: more items than the count (an item was removed through another wheel)");
    w->count -= k;
    return k;
}

/* The common pop, inline: at or after the clock and before limit no slot
 * starts, so only run items can be due (none before runs_low), and every
 * slot keeps its place with the clock at now. */
TIMER_INLINE_ size_t timer_wheel_pop(struct timer_wheel *w, int64_t now, struct tlist *out)
{
    size_t k = 0;
    if ((uint64_t)now >= w->limit || now < w->now)
        return timer_wheel_pop_slow_(w, now, out);
    w->now = now;
    if (now >= w->runs_low) {
        k = timer_wheel_take_runs_(w, now, out);
        assert(k <= w->count && "timer_wheel_pop: more items than the count (an item was removed through another wheel)");
        w->count -= k;
        if ((w->debt += k) >= 64)
            timer_wheel_work_(w);
    }
    return k;
}

/* The list whose first item pop would hand out first (a run, a level-0
 * slot or a slot of one item), with that item's expiry in *t; NSLOTS (and
 * TIMER_NEVER) when empty. A run item no later than limit goes first (no
 * slot item is earlier); otherwise the earliest slot (the scan may make a
 * run) is refined until it is exact: the moves are moves pop would make,
 * and nothing observable changes. */
TIMER_INLINE_ size_t timer_wheel_locate_(struct timer_wheel *w, int64_t *t)
{
    for (;;) {
        size_t i = TIMER_WHEEL_NSLOTS, r;
        int64_t x = TIMER_NEVER;
        bool pend;
        if ((timer_wheel_runs_(w) == 0 || (uint64_t)timer_wheel_front_(w, timer_wheel_best_run_(w)) > w->limit) &&
            (i = timer_wheel_scan_(w, 0, true, &pend)) < TIMER_WHEEL_NSLOTS && (x = timer_wheel_exact_(w, i)) < 0)
            x = timer_wheel_slot_start_(w->now, i);
        if (timer_wheel_runs_(w) != 0 && timer_wheel_front_(w, r = timer_wheel_best_run_(w)) <= x) {
            *t = timer_wheel_front_(w, r);  /* a run goes first among equal expiries */
            return r;
        }
        if (i == TIMER_WHEEL_NSLOTS || timer_wheel_exact_(w, i) >= 0) {
            *t = x;
            return i;
        }
        timer_wheel_refine_(w, i, x);       /* x: the slot's start */
    }
}

/* next_expiry and first take a const wheel, as a poll-timeout function
 * has one: the reorganising inside is not observable (logically const). */
TIMER_INLINE_ int64_t timer_wheel_next_expiry(const struct timer_wheel *cw)
{
    int64_t t;
    (void)timer_wheel_locate_((struct timer_wheel *)(uintptr_t)cw, &t);
    return t;
}

TIMER_INLINE_ struct timer_wheel_node *timer_wheel_first(const struct timer_wheel *cw)
{
    int64_t t;
    size_t i = timer_wheel_locate_((struct timer_wheel *)(uintptr_t)cw, &t);
    return i == TIMER_WHEEL_NSLOTS ? NULL : timer_wheel_node_of_(cw->slot[i].next);
}

/* In the order of the lists, until fn returns non-zero. The earliest item
 * is located first, as next_expiry would, so that a next_expiry or first
 * called by fn finds it in place and moves nothing under the walk. */
TIMER_INLINE_ int timer_wheel_visit(const struct timer_wheel *cw, int (*fn)(struct timer_wheel_node *, void *), void *arg)
{
    size_t i = 0;
    struct tlist *pos, *next;
    int r = 0;
    (void)timer_wheel_next_expiry(cw);
    for (; r == 0 && (i = tbitmap_find_first(cw->occupied, i, TIMER_WHEEL_NSLOTS)) < TIMER_WHEEL_NSLOTS; i++)
        for (pos = cw->slot[i].next; pos != &cw->slot[i] && r == 0; pos = next) {
            next = pos->next;
            r = fn(timer_wheel_node_of_(pos), arg);
        }
    return r;
}

/* The runs' first item (exact, or their bound where it cannot be early
 * enough to matter), then the earliest slot's start (exact for a level-0
 * slot or a slot of one item), or the start of a pending range not yet
 * prepared. The scan writes nothing (prepare is false). */
TIMER_INLINE_ int64_t timer_wheel_min_time(const struct timer_wheel *cw)
{
    struct timer_wheel *w = (struct timer_wheel *)(uintptr_t)cw;
    int64_t t = TIMER_NEVER, run = w->runs_low;
    uint64_t runs = timer_wheel_runs_(w);
    bool pend = false;
    size_t i = TIMER_WHEEL_RUN0 + (size_t)w->best;
    /* The best run's first item when it is known to be first; else the
     * bound, which may be early (a first item removed): then the first
     * items are read where min_time promises exactness. */
    if (w->best >= 0 && tbitmap_test(w->occupied, i) && timer_wheel_front_(w, i) <= w->upto)
        run = timer_wheel_front_(w, i);
    else if (runs == 0 || run <= (w->now | 63))
        for (run = TIMER_NEVER; runs != 0; runs &= runs - 1)
            if ((t = timer_wheel_front_(w, TIMER_WHEEL_RUN0 + tbitmap_lowest(runs))) < run)
                run = t;
    if ((uint64_t)run <= w->limit)
        return run;
    t = TIMER_NEVER;
    if ((i = timer_wheel_scan_(w, 0, false, &pend)) < TIMER_WHEEL_NSLOTS && (pend || (t = timer_wheel_exact_(w, i)) < 0))
        t = timer_wheel_slot_start_(w->now, i);
    return run < t ? run : t;
}

/* ---- the rest ---------------------------------------------------------------- */

/* The wheel never allocates: room for any number of items is always there. */
TIMER_INLINE_ int timer_wheel_reserve(struct timer_wheel *w, size_t n)
{
    return ((void)w, (void)n, 0);
}

TIMER_INLINE_ void timer_wheel_clear(struct timer_wheel *w)
{
    size_t i = 0;
    struct tlist *pos, *next;
    for (; (i = tbitmap_find_first(w->occupied, i, TIMER_WHEEL_NSLOTS)) < TIMER_WHEEL_NSLOTS; i++)
        for (pos = w->slot[i].next; pos != &w->slot[i]; pos = next) {
            next = pos->next;
            timer_wheel_make_idle_(timer_wheel_node_of_(pos));
        }
    timer_wheel_init(w, w->now);
}

/* The wheel owns no memory: destroy is clear. */
TIMER_INLINE_ void timer_wheel_destroy(struct timer_wheel *w)
{
    timer_wheel_clear(w);
}

/* O(n + slots). NULL when every slot item lies where its expiry maps to,
 * every run is sorted, the bitmap matches the lists and the count the items. */
TIMER_INLINE_ const char *timer_wheel_check(const struct timer_wheel *w)
{
    size_t i, seen = 0;
    const struct tlist *pos;
    if (w->now < 0 || w->limit <= (uint64_t)w->now)
        return "clock is negative, or limit is not later than the clock";
    for (i = 0; (i = tbitmap_find_first(w->occupied, i, TIMER_WHEEL_NSLOTS)) < TIMER_WHEEL_NSLOTS; i++) {
        unsigned s = (unsigned)(i >> 7) * TIMER_WHEEL_BITS;
        uint64_t c = (uint64_t)w->now >> s;
        int64_t last = -1;
        if (w->slot[i].next == &w->slot[i] || (i < TIMER_WHEEL_RUN0 && (uint64_t)timer_wheel_slot_start_(w->now, i) < w->limit))
            return "bitmap marks an empty list, or a slot starts before limit";
        for (pos = w->slot[i].next; pos != &w->slot[i]; pos = pos->next) {
            const struct timer_wheel_node *n = timer_wheel_node_of_((struct tlist *)(uintptr_t)pos);
            uint64_t e = (uint64_t)n->expire >> s;
            if (++seen > w->count || pos->next == NULL || pos->next->prev != pos || pos->prev->next != pos || n->expire < 0)
                return "more items in lists than the count, a broken list, or a due item in one";
            if (i >= TIMER_WHEEL_RUN0 && (n->expire < last || n->expire < w->runs_low))
                return "a run is not sorted, or holds an item earlier than runs_low";
            if (i < TIMER_WHEEL_RUN0 && ((e & 127) != (i & 127) || e <= c || (e >> 6) > (c >> 6) + 1))
                return "item is not in the slot its expiry maps to";
            last = n->expire;
        }
    }
    return seen != w->count ? "count does not match the items in lists" : NULL;
}

#define TIMER_WHEEL_DEFINE_FUNCTIONS(name, type, member) TIMER_DEFINE_WRAPPERS_(name, type, member, timer_wheel, wheel)

#define TIMER_WHEEL_DEFINE_NAMED(name, type, member) \
    TIMER_WHEEL_DEFINE_TYPE(name)                    \
    TIMER_WHEEL_DEFINE_FUNCTIONS(name, type, member)

#define TIMER_WHEEL_DEFINE(type, member) TIMER_SHORT_DEFINE_(WHEEL, wheel, type, member)

/* The functions compiled once (docs/big-programs.md): DECLARE in the header
 * every file includes (the container type and prototypes), IMPLEMENT in one
 * .c file after it (the definitions, external). */
#define TIMER_WHEEL_DECLARE_FUNCTIONS(name, type, member) TIMER_DECLARE_WRAPPERS_(name, type)
#define TIMER_WHEEL_DECLARE(name, type, member) \
    TIMER_WHEEL_DEFINE_TYPE(name)                \
    TIMER_WHEEL_DECLARE_FUNCTIONS(name, type, member)
#define TIMER_WHEEL_IMPLEMENT(name, type, member) TIMER_WRAPPERS_(name, type, member, timer_wheel, wheel, extern_)

TIMER_FUNCTIONS_END_

#endif /* TIMER_WHEEL_H_FUNCTIONS */
