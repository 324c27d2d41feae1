/* SPDX-License-Identifier: MIT */
/* timer_wheel.h - hierarchical timing wheel over int64 time: O(1) insert and
 * remove, pop that visits only occupied slots, no allocation.
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
 *   bool    NAME_remove(NAME *c, TYPE *item);    pending/due -> idle; false if idle
 *   size_t  NAME_pop(NAME *c, int64_t now, struct tlist *out);  append due items to out
 *   int64_t NAME_next_expiry(const NAME *c);     exact earliest expiry; TIMER_NEVER if empty
 *   int64_t NAME_min_time(const NAME *c);        lower bound of the earliest expiry
 *   TYPE   *NAME_first(const NAME *c);           the item pop hands out first; NULL if empty
 *   size_t  NAME_visit(const NAME *c, void (*fn)(TYPE *, void *), void *arg);
 *                                                fn(item, arg) for each pending item, slot
 *                                                by slot; fn must not change c
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
 * earliest < 0 or latest < earliest), -EBUSY (insert of a pending or due
 * item). Valid times are 0 .. INT64_MAX, in any unit.
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
 * How it works. Time is split into 6-bit groups; with `clock` the wheel's
 * current time, an item lives in level L = the highest group in which its
 * expiry differs from the clock, in slot = that group of its expiry (the
 * scheme of Varghese & Lauck's hierarchical wheels, with skynet-style
 * addressing by the differing bits). 11 levels x 64 slots cover 66 bits; one
 * 704-bit occupancy bitmap says which slots hold items. Within a level every
 * occupied slot is ahead of the clock's group, and every item of level L is
 * earlier than every item of level L+1, so the first set bit is the earliest
 * slot. Items at or before the clock wait in an overdue list, sorted.
 *
 * pop(now) walks the occupied slots in time order up to now. A level-0 slot
 * is one tick: all its items share one expiry, and it is taken whole. A
 * coarser slot is "refined": the clock moves to the slot's first tick (never
 * past an expiry still pending) and its items move to the finer slots their
 * expiries now map to (those exactly at the new clock to the overdue list),
 * until the walk passes now. So pop hands items out in expiry order, and
 * because every list append keeps the arrival order of the items it
 * carries, in arrival order among equal expiries: the same order as
 * timer_set.h and timer_heap.h. A slot that holds a single due item is taken
 * without refining it. A coarse slot whose items are already in expiry
 * order (fixed-delay timeouts are inserted that way; pop finds out by
 * walking the slot until two items are out of order) is not refined
 * either: it becomes its level's run, a sorted list that pop hands out from
 * the front, merged with the finer slots and runs it overlaps. So an item
 * inserted in order is moved once, onto the result list, instead of once
 * per level. next_expiry opens the earliest slot the same way until its
 * first item is exact. A refined item moves at least one level down, so it
 * moves at most 10 times in its life (then once to the overdue list at
 * most) and never cycles.
 *
 * Guarantees and costs:
 * - insert, remove, reschedule O(1) (an insert at or before the clock goes
 *   into the sorted overdue list: O(1) near either end, so for runs in
 *   increasing or decreasing order; O(overdue items) at worst). A
 *   reschedule appends the item to its new slot (a new arrival), or only
 *   stores the new expiry when the item is last in that slot already;
 * - pop(now) appends exactly the items with expire <= now, in non-decreasing
 *   expiry and FIFO among equal expiries (insert or reschedule order);
 *   O(1) amortised per item (O(runs) per item while several runs overlap,
 *   at most 10) plus O(11) words of bitmap per slot visited; a
 *   pop with now behind the clock only looks at the overdue list, and costs
 *   O(items it pops); a pop before every slot's start (the wheel keeps a
 *   lower bound of it, `limit`) with nothing overdue, what an event loop's
 *   pop with nothing due and a run of fixed-delay timeouts are, is a few
 *   compares inline (plus the run items it hands out);
 * - next_expiry and first are amortised O(1) (the moves they make are moves
 *   pop would make); they may move the clock forward, never past the
 *   earliest pending expiry, which nothing observable depends on. So may a
 *   far-ahead pop (pop(TIMER_NEVER) to drain). An insert that then falls
 *   between the caller's time (the `now` of the latest init or pop, even
 *   one that went back) and that clock goes into the overdue list when its
 *   place is within 16 items of either end (O(1)), or else moves the clock
 *   back first: one list splice per occupied slot below the level where
 *   the two times differ, and the overdue items later than the caller's
 *   time back to slots, so a burst of such inserts in any order stays O(1)
 *   each; the next next_expiry refines again;
 * - min_time is O(1), const, and never later than the earliest expiry. It is
 *   exact when the earliest item is at or before the caller's time or lies
 *   in its finest 64-tick window; also when it is alone in its slot or first in a run,
 *   unless a remove or reschedule took a run's first item (then it may
 *   report that item's time, until a pop reaches it or next_expiry runs);
 *   otherwise it is the start of the earliest occupied slot.
 *   Repeating `t = min_time(); pop(t)` pops the earliest item within 11
 *   rounds (each round moves it at least one level down, or makes a run's
 *   time exact). Use next_expiry to sleep exactly until the earliest expiry;
 * - the clock moves forward by pop (to now), next_expiry and first, and
 *   back to the caller's time only for an insert as above.
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
 *   pending  link in a slot list or the overdue list; expire >= 0
 *   due      link in a caller's result list; expire holds ~expiry (< 0)
 * so the sign of `expire` tells pending from due without a flag field. */
struct timer_wheel_node {
    struct tlist link;
    int64_t expire;
};

/* The container type alone: typedef struct name name, holding the layout
 * of struct timer_wheel (below, with the functions) without its name or
 * its macros; the functions' part checks that the two agree. */
#define TIMER_WHEEL_DEFINE_TYPE(name)                                                          \
    typedef struct name {                                                                      \
        struct { int64_t now; uint64_t limit; int64_t base; size_t count; int64_t run_low[10]; \
                 uint64_t occupied[12]; struct tlist slot[715]; } wheel;                        \
    } name;

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
/* List heads after the 704 wheel slots: the overdue list, then the run of
 * each level 1 .. 10 (at TIMER_WHEEL_OVERDUE + level). The overdue list and
 * the runs share one bitmap word. */
#define TIMER_WHEEL_OVERDUE (TIMER_WHEEL_LEVELS * TIMER_WHEEL_SLOTS)
#define TIMER_WHEEL_NSLOTS (TIMER_WHEEL_OVERDUE + TIMER_WHEEL_LEVELS)

struct TIMER_MAY_ALIAS_ timer_wheel {
    int64_t now;            /* the clock: every slot item is later than it */
    /* A lower bound of every occupied slot's start (UINT64_MAX: no slot),
     * and always later than the clock. So a pop at a time before it, with
     * nothing overdue, has no slot to take or open: only the runs matter,
     * and the clock may move there at once (pop's fast path); and an
     * expiry at or after it maps to a slot that starts there or later, so
     * inserting it keeps the bound (insert's fast path). Exact after a pop
     * that walked the slots; an earlier insert lowers it to its slot's
     * start; what moves the clock otherwise resets it to clock + 1, a bound
     * that always holds. */
    uint64_t limit;
    int64_t base;           /* the latest time given to init or pop, <= now:
                               next_expiry may move the clock past it */
    size_t count;           /* pending items */
    /* For each run (by level): a lower bound of its first expiry, later
     * than the clock. Exact when the run forms; a remove or reschedule of
     * its first item leaves it early, until a pop reaches it or next_expiry
     * runs. So a pop with nothing due, and min_time, need not read a run's
     * first item. */
    /* Of level L at L - 1 (level 0 has no run): one word less keeps the
     * slots at an offset that is a multiple of their 16 bytes, which saves
     * an add in every slot address (callgrind: 2.6 instructions a refined
     * item on random pops). */
    int64_t run_low[TIMER_WHEEL_LEVELS - 1];
    /* Bit i set <=> slot[i] (a slot, the overdue list or a run) is
     * non-empty. A head is initialised when its bit is set, so init only
     * has to clear 12 words. */
    uint64_t occupied[(TIMER_WHEEL_NSLOTS + 63) / 64];
    struct tlist slot[TIMER_WHEEL_NSLOTS];
};

TIMER_WHEEL_DEFINE_TYPE(timer_wheel_layout_)
TIMER_STATIC_CHECK_(timer_wheel_layout_check_, sizeof(timer_wheel_layout_) == sizeof(struct timer_wheel) &&
                    offsetof(timer_wheel_layout_, wheel.count) == offsetof(struct timer_wheel, count) &&
                    offsetof(timer_wheel_layout_, wheel.occupied) == offsetof(struct timer_wheel, occupied) &&
                    offsetof(timer_wheel_layout_, wheel.slot) == offsetof(struct timer_wheel, slot))

TIMER_FUNCTIONS_BEGIN_

/* Test instrumentation: runs once for every item a refine, a run's forming
 * or a rewind moves (the tests count them to prove next_expiry amortised
 * O(1)). Default: nothing. */
#ifndef TIMER_WHEEL_ON_MOVE_
#define TIMER_WHEEL_ON_MOVE_() ((void)0)
#endif

#define timer_wheel_node_of_(l) tlist_entry(l, struct timer_wheel_node, link)

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
    if (n == NULL)
        return TIMER_NEVER;
    return n->expire < 0 ? ~n->expire : n->expire;
}

/* The two state changes, each in one place. Idle: unlinked. Due: the sign
 * flips; the caller links it into the result list (alone, or with its
 * whole slot by one splice). */
TIMER_INLINE_ void timer_wheel_make_idle_(struct timer_wheel_node *n)
{
    n->link.next = NULL;
    n->link.prev = NULL;
}

TIMER_INLINE_ void timer_wheel_make_due_(struct timer_wheel_node *n)
{
    n->expire = ~n->expire;
}

TIMER_INLINE_ void timer_wheel_init(struct timer_wheel *w, int64_t now)
{
    w->now = now < 0 ? 0 : now;
    w->base = w->now;
    w->count = 0;
    w->limit = UINT64_MAX;
    tbitmap_zero(w->occupied, TIMER_WHEEL_NSLOTS);
}

/* The slot of an expiry that is later than the clock: by the highest bit
 * in which the two differ, two table lookups give its level's first slot
 * and the shift of its 6-bit group (instead of a division by 6 and two
 * multiplications on every insert). */
TIMER_INLINE_ size_t timer_wheel_slot_(int64_t clock, int64_t expire)
{
#define TIMER_WHEEL_L6_(l) l, l, l, l, l, l
    static const unsigned char shift[64] = {
        TIMER_WHEEL_L6_(0), TIMER_WHEEL_L6_(6), TIMER_WHEEL_L6_(12), TIMER_WHEEL_L6_(18),
        TIMER_WHEEL_L6_(24), TIMER_WHEEL_L6_(30), TIMER_WHEEL_L6_(36), TIMER_WHEEL_L6_(42),
        TIMER_WHEEL_L6_(48), TIMER_WHEEL_L6_(54), 60, 60, 60, 60};
    static const unsigned short first[64] = {
        TIMER_WHEEL_L6_(0), TIMER_WHEEL_L6_(64), TIMER_WHEEL_L6_(128), TIMER_WHEEL_L6_(192),
        TIMER_WHEEL_L6_(256), TIMER_WHEEL_L6_(320), TIMER_WHEEL_L6_(384), TIMER_WHEEL_L6_(448),
        TIMER_WHEEL_L6_(512), TIMER_WHEEL_L6_(576), 640, 640, 640, 640};
#undef TIMER_WHEEL_L6_
    unsigned bit = tbitmap_highest((uint64_t)expire ^ (uint64_t)clock);
    return first[bit] + (size_t)(((uint64_t)expire >> shift[bit]) & (TIMER_WHEEL_SLOTS - 1));
}

/* The first tick of wheel slot i: the clock's groups above the slot's level,
 * the slot's group, zeros below. For a level-0 slot, the expiry of its items. */
TIMER_INLINE_ int64_t timer_wheel_slot_start_(int64_t clock, size_t i)
{
    unsigned shift = (unsigned)(i / TIMER_WHEEL_SLOTS) * TIMER_WHEEL_BITS;
    uint64_t high = shift + TIMER_WHEEL_BITS < 64 ? (uint64_t)clock >> (shift + TIMER_WHEEL_BITS)
                                                        << (shift + TIMER_WHEEL_BITS)
                                                 : 0;
    return (int64_t)(high | ((uint64_t)(i % TIMER_WHEEL_SLOTS) << shift));
}

/* The runs. When the clock reaches a coarse slot whose items are already in
 * expiry order (fixed-delay timeouts are inserted that way), the slot is not
 * spread over finer slots: the whole list becomes the run of its level, and
 * pop hands it out from the front. A run of level L holds items in the
 * clock's own group at level L, so it interleaves with finer slots and finer
 * runs, never with its level's slots; since the clock never leaves that
 * group while the run holds items, a level has at most one. Its items are
 * later than the clock, and arrived before any finer item in its range
 * (which went to finer slots once the clock entered the range): among equal
 * expiries, coarser runs go first, then finer runs, then slots. */
TIMER_INLINE_ uint64_t timer_wheel_runs_(const struct timer_wheel *w)
{
    /* Bit L of the overdue list's word: the run of level L is non-empty. */
    return w->occupied[TIMER_WHEEL_OVERDUE / 64] & UINT64_C(0x7FE);
}

#define timer_wheel_front_(w, i) (timer_wheel_node_of_((w)->slot[i].next)->expire)

/* Append an unlinked node to slot i, initialising the head if i was empty.
 * (Written so that the tail load does not wait for the bitmap test: a
 * variant that chose the tail from the test ran twice as slow on random
 * inserts.) Appending is what keeps equal expiries in arrival order. */
TIMER_INLINE_ void timer_wheel_link_(struct timer_wheel *w, size_t i, struct timer_wheel_node *n)
{
    struct tlist *head = &w->slot[i];
    if (!tbitmap_test(w->occupied, i)) {
        tbitmap_set(w->occupied, i);
        tlist_init(head);
    }
    tlist_push_back_(head, &n->link);
}

/* Overdue items are kept sorted (FIFO among equal expiries). Link n in
 * its place, found within `bound` items of either end, and return true;
 * false (nothing changed) when the search would go further. The walk goes
 * from both ends at once: the last item from the back no later than n, or
 * the first from the front later than n, places it. So inserts in
 * increasing or decreasing order are O(1), and so are inserts before a
 * batch that next_expiry put there (items exactly at the clock). */
TIMER_INLINE_ bool timer_wheel_link_overdue_(struct timer_wheel *w, struct timer_wheel_node *n, size_t bound)
{
    struct tlist *head = &w->slot[TIMER_WHEEL_OVERDUE], *pos, *fwd;
    if (!tbitmap_test(w->occupied, TIMER_WHEEL_OVERDUE)) {
        tbitmap_set(w->occupied, TIMER_WHEEL_OVERDUE);
        tlist_init(head);
    }
    for (pos = head->prev, fwd = head->next; pos != head; pos = pos->prev, fwd = fwd->next) {
        if (timer_wheel_node_of_(pos)->expire <= n->expire)
            break;
        if (timer_wheel_node_of_(fwd)->expire > n->expire) {
            pos = fwd->prev;
            break;
        }
        if (bound-- == 0)
            return false;
    }
    tlist_push_back_(pos->next, &n->link);  /* i.e. link n just after pos */
    return true;
}

/* Move the clock back to base (< now). next_expiry's refinement moved it
 * ahead of the caller's time, so an insert between the two cannot be
 * addressed in a slot; without this, each would search the sorted overdue
 * list, and a burst of them in no order would cost O(n) apiece. Every item
 * at a level below D (the highest 6-bit group where base and the clock
 * differ) lies in the clock's level-D window, which with the clock at base
 * is the one slot (D, the clock's group D): those slots are spliced into it
 * in time order, one splice per slot, and each keeps its arrival order;
 * so are the runs of levels D and below (next_expiry may have made them),
 * first, coarsest first, since their items arrived before any finer one.
 * Items at level D and above stay where they are, and so do the runs above
 * D (base is in their range too). Overdue items later than base go back
 * into slots, in list order. */
TIMER_INLINE_ void timer_wheel_rewind_(struct timer_wheel *w)
{
    int64_t base = w->base;
    size_t to = timer_wheel_slot_(base, w->now);              /* level D, the clock's group D */
    size_t below = to - to % TIMER_WHEEL_SLOTS, i = 0;         /* the slots of levels below D */
    struct tlist *head = &w->slot[TIMER_WHEEL_OVERDUE], *pos, *next;
    struct tlist moved;
    uint64_t runs = timer_wheel_runs_(w) & ((UINT64_C(2) << (to / TIMER_WHEEL_SLOTS)) - 1);
    assert(base < w->now);
    w->limit = (uint64_t)base + 1;              /* every slot starts after the clock */
    tlist_init(&moved);
    while (runs != 0) {
        unsigned level = tbitmap_highest(runs);
        tlist_splice_back_(&moved, &w->slot[TIMER_WHEEL_OVERDUE + level]);
        tbitmap_clear(w->occupied, TIMER_WHEEL_OVERDUE + level);
        runs &= ~(UINT64_C(1) << level);
    }
    while ((i = tbitmap_find_first(w->occupied, i, below)) < below) {
        tlist_splice_back_(&moved, &w->slot[i]);
        tbitmap_clear(w->occupied, i);
    }
    w->now = base;
    if (!tlist_empty(&moved)) {                  /* slot `to` was empty: the clock's own group */
        tbitmap_set(w->occupied, to);
        tlist_init(&w->slot[to]);
        tlist_splice_back_(&w->slot[to], &moved);
    }
    assert(tbitmap_test(w->occupied, TIMER_WHEEL_OVERDUE));  /* an insert's search failed in it */
    for (pos = head->next; pos != head && timer_wheel_node_of_(pos)->expire <= base; pos = pos->next)
        ;
    for (; pos != head; pos = next) {            /* later than base: to its slot, in order */
        next = pos->next;
        tlist_remove(pos);
        TIMER_WHEEL_ON_MOVE_();
        timer_wheel_link_(w, timer_wheel_slot_(base, timer_wheel_node_of_(pos)->expire), timer_wheel_node_of_(pos));
    }
    if (tlist_empty(head))
        tbitmap_clear(w->occupied, TIMER_WHEEL_OVERDUE);
}

/* file_'s uncommon case: an expiry before limit. A slot insert lowers
 * limit to its slot's start. An expiry at or before the clock goes to the
 * overdue list. While the clock is ahead of base (next_expiry or a
 * far-ahead pop moved it there), the list may hold items later than base,
 * and an insert whose place is more than 16 items from both of the list's
 * ends (a zero-delay timer at base after inserts in order, a burst in no
 * order) rewinds the clock first: the items later than base go back into
 * slots, and the insert is a slot insert again or searches only items due
 * by base. A few inserts out of order stay cheap without a rewind, which
 * would cost the next next_expiry a refinement of what it undid. */
TIMER_NOINLINE_ void timer_wheel_file_early_(struct timer_wheel *w, struct timer_wheel_node *n)
{
    int64_t expire = n->expire;
    size_t i;
    uint64_t start;
    if (expire <= w->now) {
        if (timer_wheel_link_overdue_(w, n, w->now > w->base ? 16 : SIZE_MAX))
            return;
        timer_wheel_rewind_(w);
        if (expire <= w->now) {
            (void)timer_wheel_link_overdue_(w, n, SIZE_MAX);
            return;
        }
    }
    i = timer_wheel_slot_(w->now, expire);
    start = (uint64_t)timer_wheel_slot_start_(w->now, i);
    if (start < w->limit)
        w->limit = start;
    timer_wheel_link_(w, i, n);
}

/* File an unlinked node at `expire` relative to the current clock: at or
 * after limit (so later than the clock), straight into its slot. */
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

/* Is l one of w's list heads (a slot, a run or the overdue list)? */
TIMER_INLINE_ bool timer_wheel_is_head_(const struct timer_wheel *w, const struct tlist *l)
{
    return (uintptr_t)l - (uintptr_t)w->slot < sizeof w->slot;
}

/* Does w hold n (pending)? A walk round n's list to its head: 1 when the
 * head is one of w's, 0 when the list has none of w's heads (n is in
 * another wheel), -1 when the first `limit` links were all items (cannot
 * tell). remove and reschedule assert it with a small limit, so the check
 * stays O(1); TIMER_DEBUG walks the whole list. */
TIMER_INLINE_ int timer_wheel_holds_(const struct timer_wheel *w, const struct timer_wheel_node *n, size_t limit)
{
    const struct tlist *pos;
    for (pos = n->link.next; pos != &n->link; pos = pos->next) {
        if (timer_wheel_is_head_(w, pos))
            return 1;
        if (limit-- == 0)
            return -1;
    }
    return 0;
}

/* What remove and reschedule assert: n is not pending, or may be in w. */
TIMER_INLINE_ bool timer_wheel_may_hold_(const struct timer_wheel *w, const struct timer_wheel_node *n)
{
    return !timer_wheel_node_pending(n) || (w->count != 0 && timer_wheel_holds_(w, n, 7) != 0);  /* 8 links */
}

/* The check of every build, on the pending n: false when w cannot hold it
 * (w is empty, or n is alone in a list whose head is not w's). It reads
 * only what unlinking n reads anyway. */
TIMER_INLINE_ bool timer_wheel_may_own_(const struct timer_wheel *w, const struct timer_wheel_node *n)
{
    return w->count != 0 && (n->link.next != n->link.prev || timer_wheel_is_head_(w, n->link.next));
}

/* Take a pending node out of its slot (the count is the caller's, as is
 * the node's own state). */
TIMER_INLINE_ void timer_wheel_cut_(struct timer_wheel *w, struct timer_wheel_node *n)
{
    struct tlist *prev = n->link.prev, *next = n->link.next;
    prev->next = next;
    next->prev = prev;
    /* After the unlink, prev == next only when the head is the one node
     * left: the slot is empty. */
    if (prev == next) {
        /* Checked in every build: a head outside this wheel (an item of
         * another wheel) must not become a write into this one's bitmap. */
        bool ours = timer_wheel_is_head_(w, prev);
        assert(ours && "timer_wheel_remove/reschedule: the item is pending in another wheel, not this one");
        if (ours)
            tbitmap_clear(w->occupied, (size_t)(prev - w->slot));
    }
}

TIMER_INLINE_ void timer_wheel_unlink_(struct timer_wheel *w, struct timer_wheel_node *n)
{
    assert(w->count > 0 && "timer_wheel: an item of another wheel removed through this empty one");
    w->count--;
    timer_wheel_cut_(w, n);
}

TIMER_INLINE_ bool timer_wheel_remove(struct timer_wheel *w, struct timer_wheel_node *n)
{
    if (n == NULL || n->link.next == NULL)
        return false;
    assert(timer_wheel_may_hold_(w, n) && "timer_wheel_remove: the item is pending in another wheel, not this one");
    if (n->expire >= 0) {
        if (!timer_wheel_may_own_(w, n))
            return false;                   /* another wheel's item: nothing changes */
        timer_wheel_unlink_(w, n);
    } else
        tlist_remove(&n->link);             /* due: leave the result list */
    timer_wheel_make_idle_(n);
    return true;
}

TIMER_INLINE_ int timer_wheel_reschedule(struct timer_wheel *w, int64_t expire, struct timer_wheel_node *n)
{
    if (n == NULL || expire < 0)
        return -EINVAL;
    assert(timer_wheel_may_hold_(w, n) && "timer_wheel_reschedule: the item is pending in another wheel, not this one");
    if (timer_wheel_node_pending(n) && !timer_wheel_may_own_(w, n))
        return -EINVAL;                     /* another wheel's item: nothing changes */
    /* A pending item moving to a later slot (the common case: a connection
     * timeout pushed back): unlink it from wherever it is (a slot, a run,
     * the overdue list) and append it, as an insert would, since a
     * reschedule is a new arrival. An item that is last in the slot its new
     * expiry maps to is there already: only the expiry changes. */
    if (timer_wheel_node_pending(n) && (uint64_t)expire >= w->limit) {
        size_t i = timer_wheel_slot_(w->now, expire);
        if (n->link.next != &w->slot[i]) {
            timer_wheel_cut_(w, n);         /* the count stays */
            n->link.next = NULL;
            n->expire = expire;
            timer_wheel_link_(w, i, n);
        } else {
            n->expire = expire;
        }
        return 0;
    }
    timer_wheel_remove(w, n);
    timer_wheel_file_(w, expire, n);
    w->count++;
    return 0;
}

/* Hand the whole of slot i to out as due items, in its order. The walk that
 * marks them runs from both ends at once: two independent chains of loads,
 * so two cache misses are in flight when the items are cold. */
TIMER_INLINE_ size_t timer_wheel_take_slot_(struct timer_wheel *w, size_t i, struct tlist *out)
{
    struct tlist *head = &w->slot[i], *a = head->next, *b = head->prev;
    size_t k = 0;
    tlist_ready_(out);                      /* here, so that a pop with nothing due is not taxed */
    for (;;) {
        timer_wheel_make_due_(timer_wheel_node_of_(a));
        k++;
        if (a == b)
            break;
        timer_wheel_make_due_(timer_wheel_node_of_(b));
        k++;
        a = a->next;
        if (a == b)
            break;
        b = b->prev;
    }
    tlist_splice_back_(out, head);
    tbitmap_clear(w->occupied, i);
    return k;
}

/* now is behind the clock: pop the due prefix of the sorted overdue list. */
TIMER_INLINE_ size_t timer_wheel_pop_overdue_(struct timer_wheel *w, int64_t now, struct tlist *out)
{
    struct tlist *head = &w->slot[TIMER_WHEEL_OVERDUE], *pos;
    size_t k = 0;
    if (timer_wheel_node_of_(head->next)->expire <= now)
        tlist_ready_(out);                  /* only when something is due */
    while ((pos = head->next) != head && timer_wheel_node_of_(pos)->expire <= now) {
        struct timer_wheel_node *n = timer_wheel_node_of_(pos);
        tlist_remove(pos);
        timer_wheel_make_due_(n);
        tlist_push_back_(out, pos);
        k++;
    }
    if (tlist_empty(head))
        tbitmap_clear(w->occupied, TIMER_WHEEL_OVERDUE);
    return k;
}

/* Move one item of a slot being refined to where its expiry maps now: a
 * finer slot, or the overdue list's end when it is exactly the clock. */
TIMER_INLINE_ void timer_wheel_refile_one_(struct timer_wheel *w, struct tlist *pos)
{
    struct timer_wheel_node *n = timer_wheel_node_of_(pos);
    int64_t expire = n->expire;
    TIMER_WHEEL_ON_MOVE_();
    pos->next = NULL;                       /* detached from the old slot */
    timer_wheel_link_(w, expire > w->now ? timer_wheel_slot_(w->now, expire) : TIMER_WHEEL_OVERDUE, n);
}

/* Spread slot i's items (the clock just moved to its first tick) over the
 * finer levels. Every target is empty, and each is filled by appends in the
 * slot's own order, so equal expiries keep their arrival order (the overdue
 * items are all exactly at the new clock: sorted). The walk files from the
 * front while a second chain of loads runs from the back, so two cache
 * misses are in flight; the back half is filed afterwards, in order, from
 * nodes it has already loaded. */
TIMER_INLINE_ void timer_wheel_refine_(struct timer_wheel *w, size_t i)
{
    struct tlist *head = &w->slot[i], *a = head->next, *b = head->prev, *next;
    while (a != b) {
        next = a->next;
        timer_wheel_refile_one_(w, a);
        a = next;
        if (a == b)
            break;
        b = b->prev;
    }
    while (a != head) {
        next = a->next;
        timer_wheel_refile_one_(w, a);
        a = next;
    }
}

/* The least of the runs' lower bounds; TIMER_NEVER without runs. */
TIMER_INLINE_ int64_t timer_wheel_runs_low_(const struct timer_wheel *w)
{
    uint64_t runs = timer_wheel_runs_(w);
    int64_t low = TIMER_NEVER;
    for (; runs != 0; runs &= runs - 1) {
        int64_t b = w->run_low[tbitmap_lowest(runs) - 1];
        if (b < low)
            low = b;
    }
    return low;
}

/* Of the runs (the bits of runs, not 0): the one to hand out from first,
 * the one with the earliest front, ties to the coarser. *front: its first
 * expiry; *upto: the latest expiry it may hand out before another run's
 * item must go first. Every run's lower bound becomes exact. */
TIMER_INLINE_ size_t timer_wheel_next_run_(struct timer_wheel *w, uint64_t runs, int64_t *front, int64_t *upto)
{
    size_t best = 0;
    int64_t t = 0, lim = INT64_MAX;
    do {                                    /* coarsest first */
        unsigned level = tbitmap_highest(runs);
        size_t r = TIMER_WHEEL_OVERDUE + level;
        int64_t f = timer_wheel_front_(w, r);
        w->run_low[level - 1] = f;
        runs &= ~(UINT64_C(1) << level);
        if (best == 0) {
            best = r;
            t = f;
        } else if (f < t) {                 /* coarser runs' items at t or later go first */
            lim = t - 1;
            best = r;
            t = f;
        } else if (f < lim) {               /* a finer run: its ties go after best's */
            lim = f;
        }
    } while (runs != 0);
    *front = t;
    *upto = lim;
    return best;
}

/* Hand out run r's items up to `upto` (its first item is no later), in
 * order: one cut from the run onto out's end. */
TIMER_INLINE_ size_t timer_wheel_take_front_(struct timer_wheel *w, size_t r, int64_t upto, struct tlist *out)
{
    struct tlist *head = &w->slot[r], *first = head->next, *last = first, *next;
    size_t k = 1;
    tlist_ready_(out);
    timer_wheel_make_due_(timer_wheel_node_of_(first));
    while ((next = last->next) != head && timer_wheel_node_of_(next)->expire <= upto) {
        timer_wheel_make_due_(timer_wheel_node_of_(next));
        last = next;
        k++;
    }
    head->next = next;                      /* the run now starts at next */
    next->prev = head;
    tlist_splice_range_(out, first, last);
    if (next == head)
        tbitmap_clear(w->occupied, r);
    else
        w->run_low[r - TIMER_WHEEL_OVERDUE - 1] = timer_wheel_node_of_(next)->expire;
    return k;
}

/* take_runs_ with two runs or more: out of line, so that the one-run
 * case stays short where pop inlines it. */
TIMER_NOINLINE_ size_t timer_wheel_take_merged_runs_(struct timer_wheel *w, int64_t bound, struct tlist *out)
{
    size_t k = 0;
    uint64_t runs;
    if (timer_wheel_runs_low_(w) > bound)
        return 0;
    while ((runs = timer_wheel_runs_(w)) != 0) {
        int64_t front, upto;
        size_t r = timer_wheel_next_run_(w, runs, &front, &upto);
        if (front > bound)
            break;
        k += timer_wheel_take_front_(w, r, upto < bound ? upto : bound, out);
        if ((runs & (runs - 1)) == 0)       /* the only run: done */
            break;
    }
    return k;
}

/* Hand out every run item with expire <= bound, merged in pop order; runs
 * is timer_wheel_runs_(w), which the caller has read. */
TIMER_INLINE_ size_t timer_wheel_take_runs_(struct timer_wheel *w, uint64_t runs, int64_t bound, struct tlist *out)
{
    unsigned level;
    size_t r;
    int64_t front;
    if (runs == 0)
        return 0;
    if ((runs & (runs - 1)) != 0)
        return timer_wheel_take_merged_runs_(w, bound, out);
    level = tbitmap_lowest(runs);           /* one run, the common case */
    r = TIMER_WHEEL_OVERDUE + level;
    if (w->run_low[level - 1] > bound)
        return 0;                           /* nothing due: no item read */
    if ((front = timer_wheel_front_(w, r)) > bound) {
        w->run_low[level - 1] = front;      /* its first item was removed */
        return 0;
    }
    return timer_wheel_take_front_(w, r, bound, out);   /* which updates the bound */
}

/* Slot i (level >= 1) is the earliest occupied slot, the overdue list is
 * empty and every run item is later than the slot's first tick: move the
 * clock to that tick. A slot in expiry order becomes the run of its level
 * (its items exactly at the new clock go to the overdue list, as a refine
 * would put them); any other is refined. Finding out walks the list until
 * two items are out of order: the whole of a sorted slot, once. */
TIMER_INLINE_ void timer_wheel_open_(struct timer_wheel *w, size_t i)
{
    struct tlist *head = &w->slot[i], *pos, *run;
    size_t r = TIMER_WHEEL_OVERDUE + i / TIMER_WHEEL_SLOTS;
    assert(i >= TIMER_WHEEL_SLOTS && !tbitmap_test(w->occupied, TIMER_WHEEL_OVERDUE));
    tbitmap_clear(w->occupied, i);
    w->now = timer_wheel_slot_start_(w->now, i);
    for (pos = head->next; pos->next != head; pos = pos->next)
        if (timer_wheel_node_of_(pos->next)->expire < timer_wheel_node_of_(pos)->expire)
            break;
    if (pos->next != head) {
        timer_wheel_refine_(w, i);
        return;
    }
    assert(!tbitmap_test(w->occupied, r) && "timer_wheel: a second run at one level");
    run = &w->slot[r];
    tlist_init(run);
    tlist_splice_back_(run, head);
    tbitmap_set(w->occupied, r);
    while ((pos = run->next) != run && timer_wheel_node_of_(pos)->expire == w->now) {
        tlist_remove(pos);
        TIMER_WHEEL_ON_MOVE_();
        timer_wheel_link_(w, TIMER_WHEEL_OVERDUE, timer_wheel_node_of_(pos));
    }
    if (run->next == run)
        tbitmap_clear(w->occupied, r);
    else
        w->run_low[r - TIMER_WHEEL_OVERDUE - 1] = timer_wheel_front_(w, r);
}

/* pop's walk over the slots, for a pop that has something other than run
 * items to hand out: the overdue list, or an occupied slot up to `end` (the
 * slot now falls in when now > clock; with now == clock, only the overdue
 * list). The occupied slots are taken in time order: every slot up to
 * `end` starts at or before now, every one after it later. All slots before i are empty; opening a slot moves the clock
 * (so `end` with it) and fills slots before i and the overdue list, so the
 * search starts again. Run items up to a slot's first expiry go before the
 * slot's; the caller hands out the rest of the due run items. */
TIMER_NOINLINE_ size_t timer_wheel_pop_slots_(struct timer_wheel *w, int64_t now, size_t end, struct tlist *out)
{
    size_t k = 0, i = 0;
    if (tbitmap_test(w->occupied, TIMER_WHEEL_OVERDUE))
        k += timer_wheel_take_slot_(w, TIMER_WHEEL_OVERDUE, out);   /* all <= clock <= now */
    while (now > w->now && (i = tbitmap_find_first(w->occupied, i, end + 1)) <= end) {
        struct tlist *head = &w->slot[i];
        bool lone = i >= TIMER_WHEEL_SLOTS && head->next == head->prev;    /* a coarse slot, one item */
        bool whole = i < TIMER_WHEEL_SLOTS || (lone && timer_wheel_front_(w, i) <= now);
        if (timer_wheel_runs_(w) != 0) {    /* its first expiry, needed only here */
            int64_t first = lone ? timer_wheel_front_(w, i) : timer_wheel_slot_start_(w->now, i);
            k += timer_wheel_take_runs_(w, timer_wheel_runs_(w), first < now ? first : now, out);
        }
        if (whole) {
            k += timer_wheel_take_slot_(w, i, out);     /* one expiry, or one item */
            i++;
        } else {
            timer_wheel_open_(w, i);
            if (tbitmap_test(w->occupied, TIMER_WHEEL_OVERDUE))
                k += timer_wheel_take_slot_(w, TIMER_WHEEL_OVERDUE, out);   /* exactly at the clock */
            end = now > w->now ? timer_wheel_slot_(w->now, now) : 0;
            i = 0;
        }
    }
    return k;
}

/* The start of the earliest occupied slot, UINT64_MAX when there is none. */
TIMER_INLINE_ uint64_t timer_wheel_first_start_(const struct timer_wheel *w)
{
    size_t i = tbitmap_find_first(w->occupied, 0, TIMER_WHEEL_OVERDUE);
    return i < TIMER_WHEEL_OVERDUE ? (uint64_t)timer_wheel_slot_start_(w->now, i) : UINT64_MAX;
}

/* pop when the fast path does not apply: now behind the clock (then only
 * overdue items can be due), items overdue, or a slot that starts at or
 * before now (taken, or opened). Afterwards limit is exact again. */
TIMER_NOINLINE_ size_t timer_wheel_pop_slow_(struct timer_wheel *w, int64_t now, struct tlist *out)
{
    size_t k = 0, end = 0;
    if (now < w->now) {
        /* Only overdue items can be due: the rest are later than the clock.
         * The caller's time is now, wherever the clock went before (a
         * far-ahead pop, pop(TIMER_NEVER) to drain): inserts after it file
         * relative to base and rewind the clock to it, instead of piling
         * into the sorted overdue list. */
        if (tbitmap_test(w->occupied, TIMER_WHEEL_OVERDUE))
            k = timer_wheel_pop_overdue_(w, now, out);
        w->base = now < 0 ? 0 : now;
        assert(k <= w->count && "timer_wheel_pop: more items than the count (an item was removed through another wheel)");
        w->count -= k;
        return k;
    }
    if (now > w->now)
        end = timer_wheel_slot_(w->now, now);
    if (tbitmap_test(w->occupied, TIMER_WHEEL_OVERDUE) ||
        (now > w->now && tbitmap_find_first(w->occupied, 0, end + 1) <= end))
        k = timer_wheel_pop_slots_(w, now, end, out);
    k += timer_wheel_take_runs_(w, timer_wheel_runs_(w), now, out);
    /* Every slot left starts after now, so every item stays in the slot its
     * expiry maps to with the clock at now; every run item is later too. */
    w->now = now;
    w->base = now;
    w->limit = timer_wheel_first_start_(w);
    assert(k <= w->count && "timer_wheel_pop: more items than the count (an item was removed through another wheel)");
    w->count -= k;
    return k;
}

/* The common pop, inline: at or after the clock and before limit, with
 * nothing overdue, no slot starts at or before now, so only run items can
 * be due (one bitmap word says which runs hold items) and every slot keeps
 * its place with the clock at now. An event loop's pop with nothing due,
 * and a pop of fixed-delay timeouts handed out from a run, stop here. */
TIMER_INLINE_ size_t timer_wheel_pop(struct timer_wheel *w, int64_t now, struct tlist *out)
{
    size_t k = 0;
    uint64_t lists = w->occupied[TIMER_WHEEL_OVERDUE / 64];    /* the overdue list and the runs */
    if ((uint64_t)now >= w->limit || now < w->now)
        return timer_wheel_pop_slow_(w, now, out);
    if (lists != 0) {
        if ((lists & 1) != 0)               /* items overdue */
            return timer_wheel_pop_slow_(w, now, out);
        k = timer_wheel_take_runs_(w, lists, now, out);     /* the other bits: the runs */
        assert(k <= w->count && "timer_wheel_pop: more items than the count (an item was removed through another wheel)");
        w->count -= k;
    }
    w->now = now;
    w->base = now;
    return k;
}

/* The earliest first expiry of the runs, TIMER_NEVER without runs: read
 * from the items, so exact (for min_time, which cannot refresh the bounds
 * as timer_wheel_next_run_ does). */
TIMER_INLINE_ int64_t timer_wheel_runs_front_(const struct timer_wheel *w)
{
    uint64_t runs = timer_wheel_runs_(w);
    int64_t front = TIMER_NEVER;
    for (; runs != 0; runs &= runs - 1) {
        int64_t f = timer_wheel_front_(w, TIMER_WHEEL_OVERDUE + tbitmap_lowest(runs));
        if (f < front)
            front = f;
    }
    return front;
}

/* The list (the overdue list, a run or a slot) whose first item pop would
 * hand out first, with that item's expiry in *t; TIMER_WHEEL_NSLOTS (and
 * TIMER_NEVER) when empty. Opens the earliest coarse slot, as pop would,
 * until its first item is known: O(1) amortised, since the moves are moves
 * pop would make, and nothing observable changes. A run goes before a slot
 * whose items are no earlier than its front (its items arrived first). */
TIMER_INLINE_ size_t timer_wheel_locate_(struct timer_wheel *w, int64_t *t)
{
    for (;;) {
        size_t i, r = TIMER_WHEEL_NSLOTS;
        int64_t run = TIMER_NEVER, upto, start;
        uint64_t runs = timer_wheel_runs_(w);
        if (tbitmap_test(w->occupied, TIMER_WHEEL_OVERDUE)) {
            *t = timer_wheel_front_(w, TIMER_WHEEL_OVERDUE);
            return TIMER_WHEEL_OVERDUE;
        }
        if (runs != 0)                      /* the earliest front; the bounds become exact */
            r = timer_wheel_next_run_(w, runs, &run, &upto);
        *t = run;
        i = tbitmap_find_first(w->occupied, 0, TIMER_WHEEL_OVERDUE);
        if (i == TIMER_WHEEL_OVERDUE)
            return r;
        start = timer_wheel_slot_start_(w->now, i);
        if (r != TIMER_WHEEL_NSLOTS && run <= start)
            return r;                       /* no item of slot i goes earlier */
        if (i >= TIMER_WHEEL_SLOTS && w->slot[i].next == w->slot[i].prev) {
            start = timer_wheel_front_(w, i);   /* a lone item: exact */
            if (r != TIMER_WHEEL_NSLOTS && run <= start)
                return r;
        } else if (i >= TIMER_WHEEL_SLOTS) {
            timer_wheel_open_(w, i);        /* then look again */
            w->limit = (uint64_t)w->now + 1;    /* a bound that always holds */
            continue;
        }
        *t = start;                         /* at level 0 a slot is one tick: exact */
        return i;
    }
}

/* next_expiry and first take a const wheel, as a poll-timeout function
 * has one: the refinement inside is not observable (logically const). An
 * empty wheel is not written at all. */
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

/* In the order of the lists: the slots level by level, the overdue list,
 * the runs. The earliest item is located first, as next_expiry would, so
 * that a next_expiry or first called by fn (both const) finds it in place
 * and moves nothing under the walk. Until fn returns non-zero. */
TIMER_INLINE_ int timer_wheel_visit(const struct timer_wheel *w, int (*fn)(struct timer_wheel_node *, void *), void *arg)
{
    size_t i = 0;
    int r;
    (void)timer_wheel_next_expiry(w);
    while ((i = tbitmap_find_first(w->occupied, i, TIMER_WHEEL_NSLOTS)) < TIMER_WHEEL_NSLOTS) {
        const struct tlist *head = &w->slot[i];
        struct tlist *pos, *next;
        for (pos = head->next; pos != head; pos = next) {
            next = pos->next;
            if ((r = fn(timer_wheel_node_of_(pos), arg)) != 0)
                return r;
        }
        i++;
    }
    return 0;
}

TIMER_INLINE_ int64_t timer_wheel_min_time(const struct timer_wheel *w)
{
    size_t i, end = TIMER_WHEEL_OVERDUE - 1;
    int64_t t = TIMER_NEVER, run;
    const struct tlist *head;
    if (tbitmap_test(w->occupied, TIMER_WHEEL_OVERDUE))
        return timer_wheel_front_(w, TIMER_WHEEL_OVERDUE);
    /* The runs: their lower bounds (early after a remove or reschedule of
     * a run's first item, until a pop or next_expiry); read the items when
     * the earliest bound lies in the clock's finest 64-tick window. Only
     * slots up to the one that time falls in can start before it: the
     * search stops there. */
    run = timer_wheel_runs_low_(w);
    if (run != TIMER_NEVER && ((uint64_t)run ^ (uint64_t)w->now) < TIMER_WHEEL_SLOTS)
        run = timer_wheel_runs_front_(w);
    if ((uint64_t)run < w->limit)
        return run;                         /* no slot starts before it */
    if (run != TIMER_NEVER)
        end = timer_wheel_slot_(w->now, run);
    i = tbitmap_find_first(w->occupied, 0, end + 1);
    if (i <= end) {
        head = &w->slot[i];
        if (head->next == head->prev)       /* alone in its slot: exact */
            t = timer_wheel_front_(w, i);
        else                                /* exact at level 0, where a slot is one tick */
            t = timer_wheel_slot_start_(w->now, i);
    }
    return run < t ? run : t;
}

/* The wheel never allocates: room for any number of items is always there. */
TIMER_INLINE_ int timer_wheel_reserve(struct timer_wheel *w, size_t n)
{
    (void)w;
    (void)n;
    return 0;
}

TIMER_INLINE_ void timer_wheel_clear(struct timer_wheel *w)
{
    size_t i = 0;
    struct tlist *pos, *next;
    while ((i = tbitmap_find_first(w->occupied, i, TIMER_WHEEL_NSLOTS)) < TIMER_WHEEL_NSLOTS) {
        struct tlist *head = &w->slot[i];
        for (pos = head->next; pos != head; pos = next) {
            next = pos->next;
            timer_wheel_make_idle_(timer_wheel_node_of_(pos));
        }
        tbitmap_clear(w->occupied, i);
    }
    w->count = 0;
    w->limit = UINT64_MAX;
}

/* The wheel owns no memory: destroy is clear. */
TIMER_INLINE_ void timer_wheel_destroy(struct timer_wheel *w)
{
    timer_wheel_clear(w);
}

/* False only when n is pending in a list that none of w's slots heads: in
 * another container. O(items in n's list); TIMER_DEBUG calls it. */
TIMER_INLINE_ bool timer_wheel_owns_(const struct timer_wheel *w, const struct timer_wheel_node *n)
{
    return !timer_wheel_node_pending(n) || timer_wheel_holds_(w, n, SIZE_MAX) != 0;
}

/* O(n + slots). NULL when every item sits in the slot its expiry maps to,
 * the bitmap matches the slots and the count matches the items. */
TIMER_INLINE_ const char *timer_wheel_check(const struct timer_wheel *w)
{
    size_t i, seen = 0;
    const struct tlist *pos;
    if (w->now < 0)
        return "clock is negative";
    if (w->base < 0 || w->base > w->now)
        return "base is negative or later than the clock";
    if (w->limit <= (uint64_t)w->now)
        return "limit is not later than the clock";
    for (i = 0; i < TIMER_WHEEL_NSLOTS; i++) {
        const struct tlist *head = &w->slot[i];
        int64_t last = -1;
        if (!tbitmap_test(w->occupied, i))
            continue;
        if (head->next == head)
            return "bitmap marks an empty slot";
        for (pos = head->next; pos != head; pos = pos->next) {
            const struct timer_wheel_node *n = (const struct timer_wheel_node *)(const void *)
                ((const char *)pos - offsetof(struct timer_wheel_node, link));
            if (++seen > w->count)
                return "more items in slots than the count";
            if (pos->next == NULL || pos->next->prev != pos || pos->prev->next != pos)
                return "broken slot list";
            if (n->expire < 0)
                return "a due item is in a slot";
            if (i == TIMER_WHEEL_OVERDUE) {
                if (n->expire > w->now)
                    return "overdue list holds an item later than the clock";
                if (n->expire < last)
                    return "overdue list is not sorted";
                last = n->expire;
            } else if (i > TIMER_WHEEL_OVERDUE) {   /* the run of level i - OVERDUE */
                if (pos == head->next && (w->run_low[i - TIMER_WHEEL_OVERDUE - 1] > n->expire ||
                                          w->run_low[i - TIMER_WHEEL_OVERDUE - 1] <= w->now))
                    return "a run's lower bound is later than its first item or not later than the clock";
                if (n->expire <= w->now)
                    return "a run holds an item at or before the clock";
                if (timer_wheel_slot_(w->now, n->expire) / TIMER_WHEEL_SLOTS >= i - TIMER_WHEEL_OVERDUE)
                    return "a run holds an item outside the clock's group at its level";
                if (n->expire < last)
                    return "a run is not sorted";
                last = n->expire;
            } else if (n->expire <= w->now || timer_wheel_slot_(w->now, n->expire) != i) {
                return "item is not in the slot its expiry maps to";
            } else if ((uint64_t)timer_wheel_slot_start_(w->now, i) < w->limit) {
                return "a slot starts before limit";
            }
        }
    }
    if (seen != w->count)
        return "count does not match the items in slots";
    return NULL;
}

#define TIMER_WHEEL_DEFINE_FUNCTIONS(name, type, member) TIMER_DEFINE_WRAPPERS_(name, type, member, timer_wheel, wheel)

#define TIMER_WHEEL_DEFINE_NAMED(name, type, member) \
    TIMER_WHEEL_DEFINE_TYPE(name)                    \
    TIMER_WHEEL_DEFINE_FUNCTIONS(name, type, member)

#define TIMER_WHEEL_DEFINE(type, member) TIMER_SHORT_DEFINE_(WHEEL, wheel, type, member)

TIMER_FUNCTIONS_END_

#endif /* TIMER_WHEEL_H_FUNCTIONS */
