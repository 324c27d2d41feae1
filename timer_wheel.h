/* SPDX-License-Identifier: MIT */
/* timer_wheel.h - hierarchical timing wheel over int64 time: O(1) insert and
 * remove, pop that visits only occupied slots, no allocation, and a bound on
 * the work of every single call (docs/guarantees.md).
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
 *                                                reschedule(c, expire, item). A strict rule,
 *                                                "keep if less than d away", is slack d - 1
 *                                                in integer time: nginx's < 300 ms is 299
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
 * What a caller may drop with (void): reschedule, reschedule_range and
 * reschedule_near cannot fail for a valid item (idle, due, or pending in
 * this wheel) and times >= 0 (latest >= earliest): they return 0; reserve
 * returns 0; insert of an idle item returns 0 (docs/guarantees.md).
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
 * reschedules, reserve and check are TIMER_NODISCARD (list.h): a (void)
 * cast silences it.
 *
 * How it works. Time is split into 6-bit groups; an item is filed by the
 * highest group in which its expiry differs from the wheel's clock
 * (Varghese & Lauck's hierarchical wheel, addressed by the differing bits as
 * skynet's is), and a bitmap says which slots hold items, so the earliest is
 * found without ticking. Each level has two groups' worth of slots: the rest
 * of the clock's own group at the level above, and the whole group after it.
 * The slot the clock enters next at each level, the "pending" slot, can so be
 * refined (its items spread one level down, into that second half) before
 * the clock gets there.
 *
 * That is a schedule with a deadline, kept as Redis keeps its incremental
 * rehash. A pending slot has a window: the last quarter of the group
 * before it (its level-(l - 1) digit 48 to 63; level 1: the whole group).
 * Every pop, next_expiry and first moves up to Q = 128 items of each
 * pending slot whose window is open one level down, coarsest level first
 * (levels whose pending slots share a deadline pool their quanta), plus 8
 * per item inserted into such a slot since the previous such call (an item
 * that must go down more than 8 levels, at a clock just before a multiple
 * of 2^54, has its insert pay for the rest at once). Before
 * its window a slot is left alone: items are filed long before they
 * expire, and an idle connection's timeout is pushed back many times, so
 * preparing them early would move items that leave again. A pop that hands
 * out nothing keeps the inline fast path only while no open window has
 * work left, and stops where a window opens. A pending slot whose front is
 * in expiry order (fixed-delay timeouts) becomes its group's run instead:
 * walked once, handed out from its front, never refined. A slot of one
 * item is never refined for its own sake: its expiry is known.
 *
 * The invariant (check() asserts its conditions, test/adversarial.c and
 * test/fuzz/bound.c the counts, after every call): a pending slot that
 * held N items when its window opened has at most max(0, N - Q x calls
 * since) left to prepare. When the clock enters a slot, whatever is left
 * of it is refined there and then; that is the only work a call does
 * beyond its quanta and credit. It is zero when the program made N / Q
 * calls in the window (a pop every tick: up to 8,192 items in a level-1
 * slot, 131,072 in a level-2 slot, 64 times more a level up), and all of
 * the slot when the clock jumped into it from before its window (no call
 * could prepare it): the one exception to the bound below.
 *
 * Items at or behind the clock (inserted overdue, or before a time that
 * next_expiry moved the clock to) are all earlier than every slot item, and
 * pop hands them out first. The "due run" takes those inserted in expiry
 * order, in O(1); the others go into a log-structured merge of sorted runs
 * (tier t: at most two runs of up to 2^t items and the merge of the two),
 * which each such insert advances by 8 steps on every tier that is merging:
 * O(log k) per insert, like a tree, and never a merge at once.
 *
 * The clock moves when pop moves it. next_expiry and first move it only to
 * open a far slot (nothing before it, not pending) of more than 8 items, over
 * the empty gap; a far slot of 8 or fewer is searched. Among equal expiries
 * an item that arrived earlier is always in the due run (rather than the
 * merge), in an older tier, in a run rather than a slot, in a coarser run, or
 * in a finer slot (refining takes from the front and appends, and a group
 * that has begun to be refined makes no run), so the order is (expiry,
 * arrival), as in timer_set.h and timer_heap.h.
 *
 * Guarantees and costs, for every sequence of calls (steps: items moved
 * between the wheel's lists and links walked; docs/guarantees.md):
 * - insert, reschedule, reschedule_range and remove: O(1); an insert at or
 *   before the clock O(1) in expiry order, else O(log k) (k: items behind the
 *   clock); at most 4,096 steps each, whatever the input;
 * - pop, next_expiry and first: at most 4,096 + 8 x (items handed out) + 8 x
 *   (inserts, reschedules and removes since the previous pop, next_expiry or
 *   first) steps, except as above: a call that enters a slot that the calls
 *   in its window could not prepare in full pays for what is left of it,
 *   one move per item and level. pop hands out exactly the items with expire <= now, in (expiry,
 *   arrival) order, O(1) amortised per item (+ O(log k) behind the clock);
 * - next_expiry and first are amortised O(1); min_time is O(1), const, and
 *   never later than the earliest expiry: exact when the earliest item lies
 *   behind the clock, in its finest 64-tick window, or first in a run known to
 *   be first; otherwise a slot's start. Repeating `t = min_time(); pop(t)`
 *   pops the earliest item within 11 rounds. Use next_expiry to sleep exactly.
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
 * wheel's. Insert of a linked item that is not pending here aborts in
 * builds with asserts, naming what it is: due (popped, still in a result
 * list: use reschedule, or tlist_drain), or linked by something other than
 * this wheel (another wheel, as the 8-link walk tells; a list that reused
 * the node; a result list inited again while it held the item: stale);
 * NDEBUG: -EBUSY, nothing changed. A DEFINE whose member is
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
#define TIMER_WHEEL_DEFINE_TYPE(name)                                                  \
    typedef struct name {                                                              \
        struct {                                                                       \
            int64_t now; uint64_t limit, wake; int64_t runs_low, upto, high;           \
            uint64_t merging; size_t count; uint64_t pending[11], refined[11];         \
            uint32_t credit[11]; int best, visiting; unsigned owed, pad_;              \
            uint64_t occupied[24]; struct tlist slot[1536];                            \
        } wheel;                                                                       \
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
/* Q: the items of each level's pending slot a call prepares in its window
 * (see the top). Tests may set TIMER_WHEEL_QUANTUM_ (test/fuzz/bound.c: 4,
 * so that what costs O(n) in one call shows at a few thousand items). */
#ifdef TIMER_WHEEL_QUANTUM_
#define TIMER_WHEEL_QUANTUM TIMER_WHEEL_QUANTUM_
#else
#define TIMER_WHEEL_QUANTUM 128
#endif
/* Level l's pending slot is prepared in its window: while the clock is in
 * the last quarter of the group before it, from its level-(l - 1) digit
 * 48 on (level 1: the whole group, 64 ticks). Items are filed long before
 * they expire, and a connection's timeout is pushed back many times:
 * preparing a slot earlier would move items that leave it again. */
#ifndef TIMER_WHEEL_WINDOW
#define TIMER_WHEEL_WINDOW 48
#endif
/* A far slot (nothing before it, not pending) of at most this many items is
 * searched by next_expiry and first; a bigger one is opened. */
#define TIMER_WHEEL_FEW 8
/* List heads: level L's 128 slots at 128 * L (level 10 needs only its first
 * 64: no time has a group above it); the runs of pending and current groups,
 * two per level from 1 (by the group's parity); the due run; then the tiers
 * of the merge behind the clock, three each (D, X, Y), the highest first, so
 * that the lists behind the clock lie in the order their ties go out. */
#define TIMER_WHEEL_RUNS (128 * (TIMER_WHEEL_LEVELS - 1) + 64)
#define TIMER_WHEEL_DUE (TIMER_WHEEL_RUNS + 2 * (TIMER_WHEEL_LEVELS - 1))
#define TIMER_WHEEL_TIERS 57
#define TIMER_WHEEL_NSLOTS (TIMER_WHEEL_DUE + 1 + 3 * TIMER_WHEEL_TIERS)

struct TIMER_MAY_ALIAS_ timer_wheel {
    int64_t now;            /* the clock: slot and run items are later, the rest not */
    /* A lower bound of every occupied slot's start, later than the clock
     * (UINT64_MAX: no slot): an expiry at or after it is filed straight
     * into its slot. */
    uint64_t limit;
    /* A pop at or after it, or before the clock, takes the slow path: at
     * most limit and the time an occupied slot becomes pending; the clock
     * while a pending slot has work left or items are behind it. */
    uint64_t wake;
    int64_t runs_low;       /* a lower bound of every run item (TIMER_NEVER: none) */
    /* The run pop hands out from first (best, -1: not known) and the latest
     * expiry it may hand out before another run's item (upto). */
    int64_t upto;
    int64_t high;           /* the latest expiry the due run took (-1: none since empty) */
    uint64_t merging;       /* bit t: tier t merges its two runs */
    size_t count;           /* pending items */
    /* By level: its pending group while its window is open, as of the
     * last slow call (an insert there is an arrival to prepare), else
     * UINT64_MAX; and the group of which something went down (refined) last. */
    uint64_t pending[TIMER_WHEEL_LEVELS], refined[TIMER_WHEEL_LEVELS];
    uint32_t credit[TIMER_WHEEL_LEVELS];    /* extra steps: 8 per arrival in its pending slot */
    int best;
    int visiting;           /* a visit walks the lists: next_expiry and first prepare nothing */
    unsigned owed;          /* bit l: level l's window is open and its pending slot may owe */
    unsigned pad_;          /* keeps slot[] at a multiple of a head's size (one add less) */
    /* Bit i set <=> slot[i] is non-empty. A head is initialised when its
     * bit is set, so init only has to clear 24 words. */
    uint64_t occupied[TIMER_WHEEL_NSLOTS / 64];
    struct tlist slot[TIMER_WHEEL_NSLOTS];
};
TIMER_WHEEL_DEFINE_TYPE(timer_wheel_layout_)
TIMER_STATIC_CHECK_(timer_wheel_layout_check_,
                    sizeof(timer_wheel_layout_) == sizeof(struct timer_wheel) &&
                        offsetof(timer_wheel_layout_, wheel.slot) ==
                            offsetof(struct timer_wheel, slot) &&
                        offsetof(struct timer_wheel, slot) % sizeof(struct tlist) == 0)

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
/* The runs of levels 1 to 10: bits 0 to 19 of one bitmap word. */
#define timer_wheel_runs_(w) ((w)->occupied[TIMER_WHEEL_RUNS / 64] & 0xfffff)
#define timer_wheel_single_(w, i) ((w)->slot[i].next == (w)->slot[i].prev)

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

/* ---- geometry ---------------------------------------------------------------- */

/* The level of an expiry against a different clock: the highest bit in
 * which the two differ, divided by 6 (as x * 43 >> 8, exact for 0 .. 63). */
TIMER_INLINE_ unsigned timer_wheel_level_(int64_t clock, int64_t expire)
{
    return (tbitmap_highest((uint64_t)expire ^ (uint64_t)clock) * 43) >> 8;
}

/* Level l's slot for an expiry: the low 7 bits of its group there (the
 * seventh, the parity of its group one level up, picks the half). */
TIMER_INLINE_ size_t timer_wheel_index_(unsigned l, int64_t expire)
{
    return 128 * (size_t)l + (size_t)(((uint64_t)expire >> (TIMER_WHEEL_BITS * l)) & 127);
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

/* The clock's 6-bit digit at level l. */
#define timer_wheel_digit_(w, l) (((uint64_t)(w)->now >> (TIMER_WHEEL_BITS * (l))) & 63)

/* Is level l's window open (see TIMER_WHEEL_WINDOW)? */
TIMER_INLINE_ bool timer_wheel_ready_(const struct timer_wheel *w, unsigned l)
{
    return l == 1 || timer_wheel_digit_(w, l - 1) >= TIMER_WHEEL_WINDOW;
}

/* When does the window of level l's slot for group g open? In the group
 * before g, at level l - 1's digit 48 (level 1: 0). */
TIMER_INLINE_ uint64_t timer_wheel_opens_(uint64_t g, unsigned l)
{
    uint64_t from = l == 1 ? 0 : TIMER_WHEEL_WINDOW;
    return (((g - 1) << TIMER_WHEEL_BITS) + from) << (TIMER_WHEEL_BITS * (l - 1));
}

/* Level l's pending group if its window is open, else UINT64_MAX. */
TIMER_INLINE_ uint64_t timer_wheel_open_group_(const struct timer_wheel *w, unsigned l)
{
    return l != 0 && timer_wheel_ready_(w, l) ? ((uint64_t)w->now >> (TIMER_WHEEL_BITS * l)) + 1
                                                : UINT64_MAX;
}

/* Has level l's pending slot work left (two items or more)? */
TIMER_INLINE_ bool timer_wheel_owes_(const struct timer_wheel *w, unsigned l)
{
    size_t p = timer_wheel_pending_(w, l);
    return tbitmap_test(w->occupied, p) && !timer_wheel_single_(w, p);
}

/* After the clock moved (in a slow call, or in fast pops since the last
 * slow call): every level whose group changed has a new pending group,
 * and every level one above it may have opened its window; a level whose
 * window is open may owe work. Level 1's pending group (its window is
 * always open) tells where the clock was. */
TIMER_INLINE_ void timer_wheel_sync_(struct timer_wheel *w)
{
    uint64_t moved = (w->pending[1] - 1) ^ ((uint64_t)w->now >> TIMER_WHEEL_BITS), below;
    unsigned top, l;
    if (moved == 0)
        return;
    top = 2 + (tbitmap_highest(moved) * 43 >> 8);
    top = top < TIMER_WHEEL_LEVELS ? top : TIMER_WHEEL_LEVELS - 1;
    for (l = 1, below = (uint64_t)w->now; l <= top; l++, below >>= TIMER_WHEEL_BITS) {
        uint64_t g = (below >> TIMER_WHEEL_BITS) + 1;
        size_t p = 128 * l + (g & 127);
        w->pending[l] = UINT64_MAX;
        if (l == 1 || (below & 63) >= TIMER_WHEEL_WINDOW) {     /* timer_wheel_ready_ */
            w->pending[l] = g;
            if (tbitmap_test(w->occupied, p) && !timer_wheel_single_(w, p))
                w->owed |= 1u << l;
        }
    }
}

/* Move the clock to t, in a slow call. */
TIMER_INLINE_ void timer_wheel_advance_(struct timer_wheel *w, int64_t t)
{
    w->now = t;
    timer_wheel_sync_(w);
}

TIMER_INLINE_ void timer_wheel_init(struct timer_wheel *w, int64_t now)
{
    size_t l;
    w->now = now < 0 ? 0 : now;
    w->limit = w->wake = UINT64_MAX;
    w->runs_low = TIMER_NEVER;
    w->high = -1;
    w->best = -1;
    w->visiting = 0;
    w->owed = 0;
    w->merging = 0;
    w->count = 0;
    for (l = 0; l < TIMER_WHEEL_LEVELS; l++) {
        w->credit[l] = 0;
        w->refined[l] = UINT64_MAX;
        w->pending[l] = timer_wheel_open_group_(w, (unsigned)l);
    }
    tbitmap_zero(w->occupied, TIMER_WHEEL_NSLOTS);
}

/* ---- lists ------------------------------------------------------------------- */

/* Append a node that is in no list of the wheel's (its links may be stale:
 * they are overwritten) to list i, initialising the head if i was empty.
 * Appending is what keeps each list in arrival order. */
TIMER_INLINE_ void timer_wheel_link_(struct timer_wheel *w, size_t i, struct timer_wheel_node *n)
{
    if (!tbitmap_test(w->occupied, i)) {
        tbitmap_set(w->occupied, i);
        tlist_init(&w->slot[i]);
    }
    tlist_splice_range_(&w->slot[i], &n->link, &n->link);
}

/* Append the whole of list `from` (not empty) to list `to`. */
TIMER_INLINE_ void timer_wheel_move_list_(struct timer_wheel *w, size_t to, size_t from)
{
    if (!tbitmap_test(w->occupied, to)) {
        tbitmap_set(w->occupied, to);
        tlist_init(&w->slot[to]);
    }
    tlist_splice_back_(&w->slot[to], &w->slot[from]);
    tbitmap_clear(w->occupied, from);
}

/* Merge the sorted list b into the sorted list a, stably (a's items first
 * among equal expiries): O(length of b + a's items up to b's last). */
TIMER_NOINLINE_ void timer_wheel_merge_(struct tlist *a, struct tlist *b)
{
    struct tlist *pos = a->next, *x;
    while ((x = b->next) != b) {
        int64_t e = timer_wheel_node_of_(x)->expire;
        for (; pos != a && timer_wheel_node_of_(pos)->expire <= e; pos = pos->next)
            TIMER_WHEEL_ON_WALK_(1);
        if (pos == a) {                     /* the rest of b is later than all of a */
            tlist_splice_back_(a, b);
            break;
        }
        TIMER_WHEEL_ON_MOVE_();
        tlist_remove(x);
        tlist_splice_range_(pos, x, x);     /* i.e. link x just before pos */
    }
    tlist_init(b);
}

/* ---- the runs of pending and current groups -------------------------------- */

/* Choose the run pop hands out from first: the earliest first item, ties
 * to the coarser level (its items arrived first). upto: how far it may go
 * before another run's item must go first. runs_low becomes exact. */
TIMER_NOINLINE_ void timer_wheel_pick_(struct timer_wheel *w)
{
    uint64_t runs = timer_wheel_runs_(w);
    int64_t t = TIMER_NEVER, upto = TIMER_NEVER;
    for (w->best = -1; runs != 0; runs &= ~(UINT64_C(1) << tbitmap_highest(runs))) {
        int r = (int)tbitmap_highest(runs);  /* coarsest first */
        int64_t f = timer_wheel_front_(w, TIMER_WHEEL_RUNS + (size_t)r);
        if (w->best < 0 || f < t) {         /* a finer run that goes first: up to t - 1 */
            upto = w->best < 0 ? upto : t - 1 < upto ? t - 1 : upto;
            w->best = r;
            t = f;
        } else if (f < upto) {              /* a finer run: its ties go after best's */
            upto = f;
        }
    }
    w->upto = upto;
    w->runs_low = t;
}

/* The run whose first item pop hands out first (its list), or NSLOTS. */
TIMER_INLINE_ size_t timer_wheel_best_run_(struct timer_wheel *w)
{
    size_t i = TIMER_WHEEL_RUNS + (size_t)w->best;
    if (w->best < 0 || !tbitmap_test(w->occupied, i) || timer_wheel_front_(w, i) > w->upto)
        timer_wheel_pick_(w);
    return w->best < 0 ? TIMER_WHEEL_NSLOTS : TIMER_WHEEL_RUNS + (size_t)w->best;
}

/* Hand out list i's items up to `upto` from its front (the first is no
 * later), in order: one cut from the list onto out's end. For a run,
 * runs_low follows its new first item. */
TIMER_INLINE_ size_t timer_wheel_take_front_(struct timer_wheel *w, size_t i, int64_t upto,
                                             struct tlist *out)
{
    struct tlist *head = &w->slot[i], *first = head->next, *last = first, *next;
    size_t k = 1;
    tlist_ready_(out);
    timer_wheel_make_due_(timer_wheel_node_of_(first));
    for (; (next = last->next) != head && timer_wheel_node_of_(next)->expire <= upto; last = next) {
        timer_wheel_make_due_(timer_wheel_node_of_(next));
        k++;
    }
    head->next = next;
    next->prev = head;
    tlist_splice_range_(out, first, last);
    if (next == head)
        tbitmap_clear(w->occupied, i);
    if (i >= TIMER_WHEEL_RUNS) {
        int64_t f = next != head ? timer_wheel_node_of_(next)->expire : TIMER_NEVER;
        w->runs_low = f < w->upto ? f : w->upto;
    }
    return k;
}

/* Hand out every run item with expire <= bound, in pop order: from the
 * best run as far as upto allows, then from the next best. */
TIMER_NOINLINE_ size_t timer_wheel_take_runs_slow_(struct timer_wheel *w, int64_t bound,
                                                   struct tlist *out)
{
    size_t k = 0, i;
    while ((i = timer_wheel_best_run_(w)) < TIMER_WHEEL_NSLOTS && timer_wheel_front_(w, i) <= bound)
        k += timer_wheel_take_front_(w, i, bound < w->upto ? bound : w->upto, out);
    w->runs_low = i < TIMER_WHEEL_NSLOTS ? timer_wheel_front_(w, i) : TIMER_NEVER;
    return k;
}

/* The same, in line for the common case: the best run is known and no
 * other run's item can be due by bound, so its due items go in one cut. */
TIMER_INLINE_ size_t timer_wheel_take_runs_(struct timer_wheel *w, int64_t bound, struct tlist *out)
{
    size_t i = TIMER_WHEEL_RUNS + (size_t)w->best;
    if (w->best < 0 || bound >= w->upto || !tbitmap_test(w->occupied, i) ||
        timer_wheel_front_(w, i) > bound)
        return timer_wheel_take_runs_slow_(w, bound, out);
    return timer_wheel_take_front_(w, i, bound, out);
}

/* ---- behind the clock: the due run and the merge ---------------------------- */

#define timer_wheel_tier_(t, j) (TIMER_WHEEL_DUE + 1 + 3 * (TIMER_WHEEL_TIERS - 1 - (t)) + (j))

/* Is anything behind the clock? (The due run and the tiers: bit 20 of
 * word 21 and up.) */
TIMER_INLINE_ bool timer_wheel_behind_(const struct timer_wheel *w)
{
    return (w->occupied[TIMER_WHEEL_DUE / 64] >> (TIMER_WHEEL_DUE % 64) | w->occupied[22] |
            w->occupied[23]) != 0;
}

TIMER_NOINLINE_ void timer_wheel_carry_(struct timer_wheel *w, unsigned t, size_t from);

/* Move up to `steps` items of tier t's two runs (X, Y) onto its merged
 * front (D), the earlier front first, X's on ties (it is older); when one
 * of them is empty, D followed by the other is the tier's run, carried to
 * the next tier. */
TIMER_NOINLINE_ void timer_wheel_advance_tier_(struct timer_wheel *w, unsigned t, size_t steps)
{
    size_t d = timer_wheel_tier_(t, 0), x = d + 1, y = d + 2;
    if (tbitmap_test(w->occupied, x) && tbitmap_test(w->occupied, y)) {
        /* the merge on the bare lists: X's and Y's fronts are set once, after */
        struct tlist *hd = &w->slot[d], *hx = &w->slot[x], *hy = &w->slot[y], *a = hx->next,
                     *b = hy->next, *m;
        if (!tbitmap_test(w->occupied, d)) {
            tbitmap_set(w->occupied, d);
            tlist_init(hd);
        }
        for (; steps != 0 && a != hx && b != hy; steps--) {
            if (timer_wheel_node_of_(a)->expire <= timer_wheel_node_of_(b)->expire) {
                m = a;
                a = a->next;
            } else {
                m = b;
                b = b->next;
            }
            TIMER_WHEEL_ON_MOVE_();
            tlist_splice_range_(hd, m, m);
        }
        hx->next = a;
        a->prev = hx;
        hy->next = b;
        b->prev = hy;
        if (a != hx && b != hy)
            return;
        if (a == hx)
            tbitmap_clear(w->occupied, x);
        if (b == hy)
            tbitmap_clear(w->occupied, y);
    }
    w->merging &= ~(UINT64_C(1) << t);
    if (tbitmap_test(w->occupied, x))
        timer_wheel_move_list_(w, d, x);
    if (tbitmap_test(w->occupied, y))
        timer_wheel_move_list_(w, d, y);
    if (tbitmap_test(w->occupied, d) && t + 1 < TIMER_WHEEL_TIERS)
        timer_wheel_carry_(w, t + 1, d);
    else if (tbitmap_test(w->occupied, d))
        timer_wheel_move_list_(w, x, d);    /* the top tier keeps its run */
}

/* Put the sorted list `from` into tier t: its run X if it has none, else
 * its run Y, and the tier starts merging. A tier receives a run at most
 * once every 2^(t-1) inserts and merges it in 2^(t-2) (8 steps an insert,
 * runs of at most 2^t items), so it is never merging when a run arrives;
 * the top tier, which 2^56 inserts would reach, finishes its merge first. */
TIMER_NOINLINE_ void timer_wheel_carry_(struct timer_wheel *w, unsigned t, size_t from)
{
    size_t x = timer_wheel_tier_(t, 1);
    if ((w->merging >> t & 1) != 0)
        timer_wheel_advance_tier_(w, t, SIZE_MAX);
    timer_wheel_move_list_(w, tbitmap_test(w->occupied, x) ? x + 1 : x, from);
    if (tbitmap_test(w->occupied, x + 1))
        w->merging |= UINT64_C(1) << t;
}

/* File n (expire at or before the clock) behind it: in expiry order onto
 * the due run, else as a new run of the merge, whose merging tiers each
 * then move 8 items. The next pop at or after the clock takes the slow
 * path, which hands out everything behind it first. */
TIMER_NOINLINE_ void timer_wheel_file_behind_(struct timer_wheel *w, struct timer_wheel_node *n)
{
    uint64_t merging;
    w->wake = (uint64_t)w->now;
    if (n->expire >= w->high) {
        w->high = n->expire;
        timer_wheel_link_(w, TIMER_WHEEL_DUE, n);
        return;
    }
    if ((w->merging & 1) != 0)
        timer_wheel_advance_tier_(w, 0, SIZE_MAX);
    timer_wheel_link_(w, timer_wheel_tier_(0, 0), n);  /* a run of one, carried into tier 0 */
    timer_wheel_carry_(w, 0, timer_wheel_tier_(0, 0));
    for (merging = w->merging; merging != 0; merging &= merging - 1)
        timer_wheel_advance_tier_(w, tbitmap_lowest(merging), 8);
}

/* The list behind the clock whose first item goes out first: the least
 * first expiry, ties to the list that comes first (the lists lie in the
 * order their ties go out); NSLOTS when nothing is behind the clock. */
TIMER_INLINE_ size_t timer_wheel_behind_first_(const struct timer_wheel *w)
{
    size_t i = TIMER_WHEEL_DUE, best = TIMER_WHEEL_NSLOTS;
    for (; (i = tbitmap_find_first(w->occupied, i, TIMER_WHEEL_NSLOTS)) < TIMER_WHEEL_NSLOTS; i++)
        if (best == TIMER_WHEEL_NSLOTS || timer_wheel_front_(w, i) < timer_wheel_front_(w, best))
            best = i;
    return best;
}

/* Hand out every item behind the clock with expire <= bound, in pop order:
 * each list's due front, cut off and merged with the others stably in the
 * order of the lists (bottom-up, so an item takes part in at most
 * log2(lists) + 1 merges), then marked due onto out. */
TIMER_NOINLINE_ size_t timer_wheel_take_behind_(struct timer_wheel *w, int64_t bound,
                                                struct tlist *out)
{
    struct tlist acc[10], *head, *pos;
    unsigned rank[10], top = 0;
    size_t i = TIMER_WHEEL_DUE, k = 0;
    for (; (i = tbitmap_find_first(w->occupied, i, TIMER_WHEEL_NSLOTS)) < TIMER_WHEEL_NSLOTS; i++) {
        head = &w->slot[i];
        if (timer_wheel_front_(w, i) > bound)
            continue;
        tlist_init(&acc[top]);
        if (timer_wheel_back_(w, i) <= bound) {
            tlist_splice_back_(&acc[top], head);
            tbitmap_clear(w->occupied, i);
        } else {
            for (pos = head->next; timer_wheel_node_of_(pos)->expire <= bound; pos = pos->next)
                TIMER_WHEEL_ON_WALK_(1);
            tlist_splice_range_(&acc[top], head->next, pos->prev);
            head->next = pos;
            pos->prev = head;
        }
        for (rank[top++] = 0; top >= 2 && rank[top - 2] == rank[top - 1]; top--, rank[top - 1]++)
            timer_wheel_merge_(&acc[top - 2], &acc[top - 1]);
    }
    for (; top >= 2; top--)
        timer_wheel_merge_(&acc[top - 2], &acc[top - 1]);
    if (top != 0) {
        for (pos = acc[0].next; pos != &acc[0]; pos = pos->next, k++)
            timer_wheel_make_due_(timer_wheel_node_of_(pos));
        tlist_ready_(out);
        tlist_splice_back_(out, &acc[0]);
    }
    if (!timer_wheel_behind_(w)) {
        w->high = -1;
        w->merging = 0;
    }
    return k;
}

/* ---- insert, remove, reschedule ------------------------------------------ */

/* An item arrived in level l's pending slot: the next pop, next_expiry or
 * first prepares it (the pop takes the slow path), with 8 steps for it. */
TIMER_NOINLINE_ void timer_wheel_spend_(struct timer_wheel *w, unsigned l, unsigned m,
                                        size_t budget);

TIMER_NOINLINE_ void timer_wheel_arrive_(struct timer_wheel *w, unsigned l)
{
    unsigned m = l;
    timer_wheel_sync_(w);                   /* pending groups as of now: later arrivals tell */
    w->credit[l] += 8;
    w->owed |= 1u << l;
    w->wake = w->wake < (uint64_t)w->now ? w->wake : (uint64_t)w->now;
    /* It moves down to the first level whose pending slot does not lie in
     * l's (each level below whose clock digit is 63 has its pending slot
     * there): l - m + 1 moves. Its credit pays for 8; the insert pays for
     * the rest of a deeper chain (9 or 10 levels: the clock just before a
     * multiple of 2^48) at once. */
    while (m > 1 && timer_wheel_digit_(w, m - 1) == 63)
        m--;
    if (l - m + 1 > 8) {
        timer_wheel_spend_(w, l, m, l - m + 1 - 8);
        w->owed |= 1u << l;                 /* the next call spends the credit, or drops it */
    }
}

/* The slot of an expiry later than the clock: the highest bit in which
 * the two differ gives the level (tables, as in 2.1 and skynet), the
 * expiry's low 7 bits there the slot; *g is its group at that level, *s
 * the level's shift. */
TIMER_INLINE_ size_t timer_wheel_where_(const struct timer_wheel *w, int64_t expire, uint64_t *g,
                                        unsigned *s)
{
#define TIMER_WHEEL_L6_(x) x, x, x, x, x, x
    static const unsigned char shift[64] = {
        TIMER_WHEEL_L6_(0), TIMER_WHEEL_L6_(6), TIMER_WHEEL_L6_(12), TIMER_WHEEL_L6_(18),
        TIMER_WHEEL_L6_(24), TIMER_WHEEL_L6_(30), TIMER_WHEEL_L6_(36), TIMER_WHEEL_L6_(42),
        TIMER_WHEEL_L6_(48), TIMER_WHEEL_L6_(54), 60, 60, 60, 60};
    static const unsigned short first[64] = {
        TIMER_WHEEL_L6_(0), TIMER_WHEEL_L6_(128), TIMER_WHEEL_L6_(256), TIMER_WHEEL_L6_(384),
        TIMER_WHEEL_L6_(512), TIMER_WHEEL_L6_(640), TIMER_WHEEL_L6_(768), TIMER_WHEEL_L6_(896),
        TIMER_WHEEL_L6_(1024), TIMER_WHEEL_L6_(1152), 1280, 1280, 1280, 1280};
#undef TIMER_WHEEL_L6_
    unsigned bit = tbitmap_highest((uint64_t)expire ^ (uint64_t)w->now);
    *s = shift[bit];
    *g = (uint64_t)expire >> *s;
    return first[bit] + (size_t)(*g & 127);
}

/* Link n (its expiry set) into its slot i (group g, shift s, from
 * where_). An item in a pending slot whose window is open is an arrival to
 * prepare (once it is linked: preparing may move it); a slot that was
 * empty opens its window later: no pop may pass that time in line (wake). */
TIMER_INLINE_ void timer_wheel_put_(struct timer_wheel *w, struct timer_wheel_node *n, size_t i,
                                    uint64_t g, unsigned s)
{
    bool arrival;
    if (tbitmap_test(w->occupied, i)) {
        arrival = g == w->pending[i >> 7];
    } else {
        uint64_t opens = s != 0 ? timer_wheel_opens_(g, (unsigned)(i >> 7)) : UINT64_MAX;
        tbitmap_set(w->occupied, i);
        tlist_init(&w->slot[i]);
        arrival = opens <= (uint64_t)w->now;        /* into an empty pending slot */
        if (!arrival && opens < w->wake)
            w->wake = opens;
    }
    tlist_splice_range_(&w->slot[i], &n->link, &n->link);   /* n's links may be stale */
    if (arrival)
        timer_wheel_arrive_(w, (unsigned)(i >> 7));
}

/* File an unlinked node at `expire`: at or after limit, straight into its
 * slot (the common insert); earlier, into its slot with limit (and wake)
 * lowered to its start, or at or before the clock behind it. */
TIMER_NOINLINE_ void timer_wheel_file_early_(struct timer_wheel *w, struct timer_wheel_node *n)
{
    unsigned s;
    uint64_t g, start;
    size_t i;
    if (n->expire <= w->now) {
        timer_wheel_file_behind_(w, n);
        return;
    }
    i = timer_wheel_where_(w, n->expire, &g, &s);
    start = g << s;
    timer_wheel_put_(w, n, i, g, s);
    w->limit = start < w->limit ? start : w->limit;
    w->wake = w->limit < w->wake ? w->limit : w->wake;
}

TIMER_INLINE_ void timer_wheel_file_(struct timer_wheel *w, int64_t expire,
                                     struct timer_wheel_node *n)
{
    n->expire = expire;
    if ((uint64_t)expire >= w->limit) {
        uint64_t g;
        unsigned s;
        size_t i = timer_wheel_where_(w, expire, &g, &s);
        timer_wheel_put_(w, n, i, g, s);
    } else {
        timer_wheel_file_early_(w, n);
    }
}

TIMER_INLINE_ int timer_wheel_insert(struct timer_wheel *w, int64_t expire,
                                     struct timer_wheel_node *n)
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
TIMER_INLINE_ bool timer_wheel_holds_(const struct timer_wheel *w, const struct timer_wheel_node *n,
                                      size_t limit)
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

/* insert's check of a linked node (builds with asserts): the 8-link walk */
TIMER_INLINE_ bool timer_wheel_may_hold_(const struct timer_wheel *w,
                                         const struct timer_wheel_node *n)
{
    return timer_wheel_holds_(w, n, 7);
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
           "timer_wheel_remove/reschedule: the item is not in this wheel "
           "(another wheel holds it, or init was called while this one held it)");
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
           "timer_wheel_remove: the item is not in this wheel "
           "(another wheel holds it, or init was called while this one held it)");
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
TIMER_INLINE_ int timer_wheel_reschedule(struct timer_wheel *w, int64_t expire,
                                         struct timer_wheel_node *n)
{
    if (n == NULL || expire < 0)
        return -EINVAL;
    assert(timer_wheel_holds_(w, n, 7) &&
           "timer_wheel_reschedule: the item is not in this wheel "
           "(another wheel holds it, or init was called while this one held it)");
    if (timer_wheel_node_pending(n) && (uint64_t)expire >= w->limit) {
        uint64_t g;
        unsigned s;
        size_t i = timer_wheel_where_(w, expire, &g, &s);
        if (n->link.next == &w->slot[i]) {
            n->expire = expire;             /* last in its slot already */
            return 0;
        }
        if (!timer_wheel_cut_(w, n))
            return -EINVAL;                 /* another wheel's item: nothing changes */
        n->expire = expire;
        timer_wheel_put_(w, n, i, g, s);
        return 0;
    }
    if (!timer_wheel_remove(w, n) && n->link.next != NULL)
        return -EINVAL;                     /* another wheel's item: nothing changes */
    timer_wheel_file_(w, expire, n);
    w->count++;
    return 0;
}

/* ---- preparing the pending slots ------------------------------------------ */

/* Move pos (from a level-l list) to its slot at level l - 1. */
TIMER_INLINE_ void timer_wheel_down_(struct timer_wheel *w, unsigned l, struct tlist *pos)
{
    TIMER_WHEEL_ON_MOVE_();
    timer_wheel_link_(w, timer_wheel_index_(l - 1, timer_wheel_node_of_(pos)->expire),
                      timer_wheel_node_of_(pos));
}

/* Prepare level l's pending slot P (not empty; group g, the one after the
 * clock's), up to `budget` steps; returns the steps taken (at least one).
 * While nothing of g went down yet, a front of P in expiry order that
 * continues g's run, or starts one of 8 items or more, or is all of P, is
 * cut onto the run: walked once, never moved (a slot of one item, reached,
 * is handed out from there, as 2.1's runs did). Otherwise P's items go, front first, to their
 * slots in the second half of level l - 1, which is g's range (refining). */
TIMER_NOINLINE_ size_t timer_wheel_step_(struct timer_wheel *w, unsigned l, size_t budget)
{
    uint64_t g = ((uint64_t)w->now >> (TIMER_WHEEL_BITS * l)) + 1;
    size_t p = 128 * l + (g & 127), r = TIMER_WHEEL_RUNS + 2 * (l - 1) + (g & 1), k = 0, j = 0;
    struct tlist *ph = &w->slot[p], *pos = ph->next, *next, *end;
    if (w->refined[l] != g) {
        bool had = tbitmap_test(w->occupied, r);
        int64_t last = had ? timer_wheel_back_(w, r) : -1;
        for (; pos != ph && k < budget && timer_wheel_node_of_(pos)->expire >= last; k++) {
            last = timer_wheel_node_of_(pos)->expire;
            pos = pos->next;
        }
        TIMER_WHEEL_ON_WALK_(k);
        if (k != 0 && (had || k >= 8 || k == budget || pos == ph)) {
            if (!had) {
                tbitmap_set(w->occupied, r);
                tlist_init(&w->slot[r]);
            }
            tlist_splice_range_(&w->slot[r], ph->next, pos->prev);
            ph->next = pos;
            pos->prev = ph;
            if (pos == ph)
                tbitmap_clear(w->occupied, p);
            w->best = -1;
            last = timer_wheel_front_(w, r);
            w->runs_low = w->runs_low < last ? w->runs_low : last;
            return k;
        }
        pos = ph->next;                     /* a short sorted front: refined with the rest */
        j = k;
        budget = budget > k ? budget - k : 1;
    }
    w->refined[l] = g;
    if (l > 1 && timer_wheel_digit_(w, l - 1) == 63)
        w->owed |= 1u << (l - 1);           /* level l - 1's pending slot lies in g: it may fill */
    /* Two chains of loads: the front files, the back walks towards it
     * until they meet, so two cache misses are in flight and the front
     * finds the back half loaded (volatile: the compiler keeps loads
     * nothing reads). */
    for (end = ph->prev, k = 0; pos != end && k < budget; pos = next, k++) {
        next = pos->next;
        if (next != end)
            end = ((volatile struct tlist *)end)->prev;
        timer_wheel_down_(w, l, pos);
    }
    for (; pos != ph && k < budget; pos = next, k++) {
        next = pos->next;
        timer_wheel_down_(w, l, pos);
    }
    ph->next = pos;
    pos->prev = ph;
    if (pos == ph)
        tbitmap_clear(w->occupied, p);
    return j + k;
}

/* When does the window of the first occupied slot of level l after its
 * pending slot open? UINT64_MAX: none. The slots after the pending one lie
 * in the rest of the clock's
 * group one level up, then in the group after it. */
TIMER_INLINE_ uint64_t timer_wheel_next_pending_(const struct timer_wheel *w, unsigned l)
{
    unsigned s = TIMER_WHEEL_BITS * l;
    uint64_t from = ((uint64_t)w->now >> s) + 2, bits, g;
    size_t word = 2 * l + ((from >> 6) & 1);
    if ((from >> 6) > ((uint64_t)w->now >> s >> 6) + 1)
        return UINT64_MAX;                  /* beyond both halves */
    if ((bits = w->occupied[word] & (~UINT64_C(0) << (from & 63))) != 0)
        g = (from & ~UINT64_C(63)) + tbitmap_lowest(bits);
    else if ((from >> 6) == ((uint64_t)w->now >> s >> 6) && l + 1 < TIMER_WHEEL_LEVELS &&
             (bits = w->occupied[word ^ 1]) != 0)
        g = (from | 63) + 1 + tbitmap_lowest(bits);
    else
        return UINT64_MAX;
    return timer_wheel_opens_(g, l);
}

/* Spend up to `budget` steps on the pending slots of levels l down to m
 * (whose windows are open), coarsest first, since the finer ones' items
 * come from the coarser; then each level's bit of owed says whether it
 * has work left. */
TIMER_NOINLINE_ void timer_wheel_spend_(struct timer_wheel *w, unsigned l, unsigned m,
                                        size_t budget)
{
    for (; l >= m; l--) {
        while (budget != 0 && timer_wheel_owes_(w, l)) {
            size_t k = timer_wheel_step_(w, l, budget);
            budget -= k < budget ? k : budget;
        }
        if (timer_wheel_owes_(w, l))
            w->owed |= 1u << l;
        else
            w->owed &= ~(1u << l);
    }
}

/* The quanta of one call: Q steps on the pending slot of each level whose
 * window is open and which may owe work, coarsest first, and each level's
 * credit. Levels whose pending slots share a deadline (the clock at the
 * last group of the finer one, so that its pending slot lies in the
 * coarser one's) pool their quanta, spent coarse first, since the finer
 * one's items come from the coarser. A level whose window closed (the
 * clock entered its slot) owes nothing: what is left went with the slot.
 * Then wake, for the next pop: the clock while items are behind it or a
 * pending slot owes work (the next call spends the credit it has, or none
 * does); else the earliest of limit and the times the windows of occupied
 * slots open. */
TIMER_NOINLINE_ void timer_wheel_work_(struct timer_wheel *w)
{
    unsigned owed = w->owed, l, m, u;
    uint64_t wake = w->limit;
    while (owed != 0) {
        size_t budget = 0;
        l = m = tbitmap_highest(owed);
        owed &= ~(1u << l);
        if (!timer_wheel_ready_(w, l)) {
            w->owed &= ~(1u << l);
            continue;
        }
        /* the credit of arrivals above, whose slots lie in l's and have gone down */
        for (u = l; u + 1 < TIMER_WHEEL_LEVELS && timer_wheel_digit_(w, u) == 63 &&
                    timer_wheel_ready_(w, u + 1); u++)
            budget += w->credit[u + 1];
        for (;; m--) {
            budget += TIMER_WHEEL_QUANTUM + w->credit[m];
            if (m == 1 || timer_wheel_digit_(w, m - 1) != 63 || !timer_wheel_ready_(w, m - 1))
                break;
        }
        timer_wheel_spend_(w, l, m, budget);
        owed &= (1u << m) - 1;
    }
    for (l = 0; l < TIMER_WHEEL_LEVELS; l++)
        w->credit[l] = 0;                   /* a call's credit is its own: never a later call's */
    if (timer_wheel_behind_(w) || w->owed != 0) {
        wake = (uint64_t)w->now;
    } else {
        /* Pending slots start no earlier at coarser levels, and a window
         * still closed opens no earlier than the start of the pending slot
         * one level down (it opens 16 groups of that level before its
         * slot), nor does that of any slot after a pending one. */
        for (l = 1; l < TIMER_WHEEL_LEVELS; l++) {
            uint64_t g = ((uint64_t)w->now >> (TIMER_WHEEL_BITS * l)) + 1, t = UINT64_MAX;
            if (!timer_wheel_ready_(w, l) && tbitmap_test(w->occupied, 128 * l + (g & 127)))
                t = timer_wheel_opens_(g, l);
            wake = t < wake ? t : wake;
            if (g << (TIMER_WHEEL_BITS * l) >= wake)
                break;
            t = timer_wheel_next_pending_(w, l);
            wake = t < wake ? t : wake;
        }
    }
    w->wake = wake;
}

/* ---- finding the earliest slot --------------------------------------------- */

/* The pending slots whose range is level l's second half: level l + 1's,
 * and more levels' while the clock is in the last group at each. Their
 * items may be earlier than the second half's, and arrived earlier, so they
 * go down first: the coarsest that holds items is returned, and *pend set
 * (its start is the range's: a pop opens it only when it reaches it). One
 * item alone, earlier than the second half's first slot, is returned
 * instead (pop takes it where it is); else NSLOTS. */
TIMER_NOINLINE_ size_t timer_wheel_range_(const struct timer_wheel *w, unsigned l, bool *pend)
{
    unsigned top = l + 1, m;
    size_t p = timer_wheel_pending_(w, top), word = 2 * l + 1 - timer_wheel_digit_(w, top) % 2, q;
    while (top + 1 < TIMER_WHEEL_LEVELS && timer_wheel_digit_(w, top) == 63)
        top++;
    if (top == l + 1 && tbitmap_test(w->occupied, p) && timer_wheel_single_(w, p) &&
        timer_wheel_front_(w, p) <
            timer_wheel_slot_start_(w->now, 64 * word + tbitmap_lowest(w->occupied[word])))
        return p;
    for (m = top; m > l; m--)
        if (tbitmap_test(w->occupied, q = timer_wheel_pending_(w, m))) {
            *pend = true;
            return q;
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
TIMER_INLINE_ size_t timer_wheel_scan_(const struct timer_wheel *w, unsigned l, bool *pend)
{
    *pend = false;
    for (; l < TIMER_WHEEL_LEVELS; l++) {
        uint64_t g = (uint64_t)w->now >> (TIMER_WHEEL_BITS * l), up = g >> 6, bits;
        size_t word = 2 * l + (up & 1), i;
        if ((bits = w->occupied[word] & (~UINT64_C(1) << (g & 63))) != 0)
            return 64 * word + tbitmap_lowest(bits);
        if (l + 1 == TIMER_WHEEL_LEVELS || w->occupied[word ^ 1] == 0)
            continue;
        if ((tbitmap_test(w->occupied, 128 * (l + 1) + ((up + 1) & 127)) || (up & 63) == 63) &&
            (i = timer_wheel_range_(w, l, pend)) < TIMER_WHEEL_NSLOTS)
            return i;
        return 64 * (word ^ 1) + tbitmap_lowest(w->occupied[word ^ 1]);
    }
    return TIMER_WHEEL_NSLOTS;
}

/* Slot i's earliest expiry when it is known without refining (a level-0
 * slot is one tick; a slot of one item), else -1. */
TIMER_INLINE_ int64_t timer_wheel_exact_(const struct timer_wheel *w, size_t i)
{
    return i < 128 ? timer_wheel_slot_start_(w->now, i)
                   : timer_wheel_single_(w, i) ? timer_wheel_front_(w, i) : -1;
}

/* Slot i, which starts at `start`, is the earliest and must be opened
 * (every run item is later than its start): move the clock to just before
 * it, where it is its level's pending slot, and finish preparing it. What
 * is left of it is the one work beyond a call's quanta (see the top). */
TIMER_NOINLINE_ void timer_wheel_refine_(struct timer_wheel *w, size_t i, int64_t start)
{
    unsigned l = (unsigned)(i >> 7);
    if (i != timer_wheel_pending_(w, l))
        w->now = start - 1;                 /* the caller syncs (pending groups, owed) */
    w->limit = (uint64_t)start;
    while (tbitmap_test(w->occupied, i))
        (void)timer_wheel_step_(w, l, SIZE_MAX);        /* until P is empty */
}

/* ---- pop, next_expiry, first ------------------------------------------------ */

/* pop when the fast path does not apply. now behind the clock: only items
 * behind it can be due; with no slot or run item before the level their
 * groups part at, the clock goes back (after pop(TIMER_NEVER) to drain, or
 * a far pop, later inserts are not all behind it). Otherwise everything
 * behind the clock goes first, then slots and runs in time order, a run's
 * items first among equal expiries; a coarse slot that starts by now is
 * opened first. The clock follows each level-0 slot taken (all is handed
 * out up to it), so the next one is in the clock's own group. Afterwards
 * the clock is now, and limit the earliest slot's start (or its half's, in
 * a second half, where the pending slot one level up starts and an insert
 * may still go). */
TIMER_NOINLINE_ size_t timer_wheel_pop_slow_(struct timer_wheel *w, int64_t now, struct tlist *out)
{
    size_t k = 0, i;
    uint64_t bits;
    unsigned l;
    bool pend = false;
    if (now < w->now) {
        int64_t to = now < 0 ? 0 : now;
        size_t b;
        timer_wheel_sync_(w);
        if (timer_wheel_behind_(w))
            k = timer_wheel_take_behind_(w, now, out);
        for (b = TIMER_WHEEL_DUE; (b = tbitmap_find_first(w->occupied, b, TIMER_WHEEL_NSLOTS)) <
                                  TIMER_WHEEL_NSLOTS; b++)
            to = timer_wheel_back_(w, b) > to ? timer_wheel_back_(w, b) : to;
        l = to < w->now ? timer_wheel_level_(w->now, to) : 0;
        if (to < w->now && tbitmap_find_first(w->occupied, 0, 128 * l) == 128 * l &&
            (timer_wheel_runs_(w) & ((UINT64_C(1) << 2 * l) - 1)) == 0) {
            timer_wheel_advance_(w, to);
            w->limit = (uint64_t)to + 1;    /* every slot starts after the clock */
        }
    } else {
        if (timer_wheel_behind_(w))
            k = timer_wheel_take_behind_(w, TIMER_NEVER, out);
        for (l = 0; (i = timer_wheel_scan_(w, l, &pend)) < TIMER_WHEEL_NSLOTS;
             l = pend ? 0 : (unsigned)(i >> 7) - (i >= 128)) {
            /* a pending range not yet prepared: opened (all of it) when reached */
            int64_t x = pend ? -1 : timer_wheel_exact_(w, i);
            int64_t start = timer_wheel_slot_start_(w->now, i);
            int64_t t = x < 0 ? start : x;
            if (w->runs_low <= (t < now ? t : now))
                k += timer_wheel_take_runs_(w, t < now ? t : now, out);
            if (start > now)
                break;
            if (x < 0 || x > now) {
                timer_wheel_refine_(w, i, start);
            } else {                        /* then the rest of a level-0 word, straight */
                for (k += timer_wheel_take_front_(w, i, x, out); i < 128;
                     k += timer_wheel_take_front_(w, i, x, out)) {
                    w->now = x;
                    if ((bits = w->occupied[i >> 6] & (~UINT64_C(1) << (x & 63))) == 0 ||
                        (x = (x & ~INT64_C(63)) + (int64_t)tbitmap_lowest(bits)) > now ||
                        w->runs_low <= x)
                        break;
                    i = (i & ~(size_t)63) + (size_t)(x & 63);
                }
            }
        }
        if (i == TIMER_WHEEL_NSLOTS && w->runs_low <= now)
            k += timer_wheel_take_runs_(w, now, out);
        timer_wheel_advance_(w, now);
        if (i < TIMER_WHEEL_NSLOTS &&
            ((i >> 6) ^ ((uint64_t)now >> (TIMER_WHEEL_BITS * (i >> 7)) >> 6)) & 1)
            i &= ~(size_t)63;               /* a second half: where the pending slot above starts */
        w->limit = i < TIMER_WHEEL_NSLOTS ? (uint64_t)timer_wheel_slot_start_(now, i) : UINT64_MAX;
    }
    assert(k <= w->count && "timer_wheel_pop: more items than the count (an item was removed "
                            "through another wheel)");
    w->count -= k;
    timer_wheel_work_(w);
    return k;
}

/* The common pop, inline: at or after the clock and before wake no slot
 * starts, nothing is behind the clock and no pending slot has work, so
 * only run items can be due (none before runs_low), and every slot keeps
 * its place with the clock at now. */
TIMER_INLINE_ size_t timer_wheel_pop(struct timer_wheel *w, int64_t now, struct tlist *out)
{
    size_t k = 0;
    if ((uint64_t)now >= w->wake || now < w->now)
        return timer_wheel_pop_slow_(w, now, out);
    w->now = now;
    if (now >= w->runs_low) {
        k = timer_wheel_take_runs_(w, now, out);
        assert(k <= w->count && "timer_wheel_pop: more items than the count (an item was removed "
                                "through another wheel)");
        w->count -= k;
    }
    return k;
}

/* Does slot i hold at most FEW items? (A walk of at most FEW + 1 links.) */
TIMER_INLINE_ bool timer_wheel_few_(const struct timer_wheel *w, size_t i)
{
    const struct tlist *pos = w->slot[i].next;
    size_t k = 0;
    for (; k <= TIMER_WHEEL_FEW && pos != &w->slot[i]; k++)
        pos = pos->next;
    TIMER_WHEEL_ON_WALK_(k);
    return pos == &w->slot[i];
}

/* The first item of a far slot of at most FEW items: the least expiry,
 * the first of its ties in the slot's order. */
TIMER_INLINE_ struct timer_wheel_node *timer_wheel_search_(struct timer_wheel *w, size_t i)
{
    struct tlist *pos = w->slot[i].next, *best = pos;
    size_t k = 0;
    for (; pos != &w->slot[i]; pos = pos->next, k++)
        if (timer_wheel_node_of_(pos)->expire < timer_wheel_node_of_(best)->expire)
            best = pos;
    TIMER_WHEEL_ON_WALK_(k);
    return timer_wheel_node_of_(best);
}

/* The item pop would hand out first, with its expiry in *t; NULL (and
 * TIMER_NEVER) when empty. Items behind the clock go first (every one is
 * earlier than every slot and run item); else a run item no later than the
 * earliest slot's start or item; else the earliest slot is prepared until
 * exact, as pop would: a pending slot is finished, a far one of at most
 * FEW items searched, a bigger far one opened by moving the clock over the
 * empty gap before it (nothing observable changes). The call's quanta go
 * first, as in every pop. */
TIMER_INLINE_ struct timer_wheel_node *timer_wheel_locate_(struct timer_wheel *w, int64_t *t)
{
    timer_wheel_sync_(w);
    if (w->owed != 0 && !w->visiting)
        timer_wheel_work_(w);
    for (;;) {
        size_t i, r;
        int64_t x = TIMER_NEVER;
        struct timer_wheel_node *n = NULL;
        bool pend = false;
        if (timer_wheel_behind_(w)) {
            i = timer_wheel_behind_first_(w);
            *t = timer_wheel_front_(w, i);
            return timer_wheel_node_of_(w->slot[i].next);
        }
        if (timer_wheel_runs_(w) != 0 &&
            (uint64_t)timer_wheel_front_(w, r = timer_wheel_best_run_(w)) <= w->limit) {
            *t = timer_wheel_front_(w, r);  /* no slot item is earlier */
            return timer_wheel_node_of_(w->slot[r].next);
        }
        if ((i = timer_wheel_scan_(w, 0, &pend)) < TIMER_WHEEL_NSLOTS) {
            if (!pend && (x = timer_wheel_exact_(w, i)) >= 0)
                n = timer_wheel_node_of_(w->slot[i].next);
            else if (!pend && i != timer_wheel_pending_(w, (unsigned)(i >> 7)) &&
                     timer_wheel_few_(w, i))
                x = (n = timer_wheel_search_(w, i))->expire;
            else
                x = timer_wheel_slot_start_(w->now, i);     /* opened, unless a run goes first */
        }
        if (timer_wheel_runs_(w) != 0 && timer_wheel_front_(w, r = timer_wheel_best_run_(w)) <= x) {
            *t = timer_wheel_front_(w, r);  /* a run goes first among equal expiries */
            return timer_wheel_node_of_(w->slot[r].next);
        }
        *t = x;
        if (i == TIMER_WHEEL_NSLOTS || n != NULL)
            return n;
        timer_wheel_refine_(w, i, x);
        w->wake = (uint64_t)w->now;         /* new pending slots: the next pop sees to them */
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
    return timer_wheel_locate_((struct timer_wheel *)(uintptr_t)cw, &t);
}

/* In the order of the lists, until fn returns non-zero. The earliest item
 * is located first, as next_expiry would, so that a next_expiry or first
 * called by fn finds it in place; and while the walk is under way they
 * leave the pending slots alone: nothing moves under it. */
TIMER_INLINE_ int timer_wheel_visit(const struct timer_wheel *cw,
                                    int (*fn)(struct timer_wheel_node *, void *), void *arg)
{
    size_t i = 0;
    struct tlist *pos, *next;
    int r = 0;
    struct timer_wheel *w = (struct timer_wheel *)(uintptr_t)cw;
    (void)timer_wheel_next_expiry(cw);
    w->visiting = 1;
    for (; r == 0 && (i = tbitmap_find_first(cw->occupied, i, TIMER_WHEEL_NSLOTS)) <
                         TIMER_WHEEL_NSLOTS; i++)
        for (pos = cw->slot[i].next; pos != &cw->slot[i] && r == 0; pos = next) {
            next = pos->next;
            r = fn(timer_wheel_node_of_(pos), arg);
        }
    w->visiting = 0;
    return r;
}

/* The first item behind the clock (exact); else the best run's first item
 * when it is known to be first, or the runs' bound; then the earliest
 * slot's start (exact for a level-0 slot or a slot of one item), or the
 * start of a pending range not yet prepared. */
TIMER_INLINE_ int64_t timer_wheel_min_time(const struct timer_wheel *cw)
{
    struct timer_wheel *w = (struct timer_wheel *)(uintptr_t)cw;
    int64_t t = TIMER_NEVER, run = w->runs_low;
    uint64_t runs = timer_wheel_runs_(w);
    bool pend = false;
    size_t i = TIMER_WHEEL_RUNS + (size_t)w->best;
    if (timer_wheel_behind_(w))
        return timer_wheel_front_(w, timer_wheel_behind_first_(w));
    if (w->best >= 0 && tbitmap_test(w->occupied, i) && timer_wheel_front_(w, i) <= w->upto)
        run = timer_wheel_front_(w, i);
    else if (runs == 0 || run <= (w->now | 63))
        for (run = TIMER_NEVER; runs != 0; runs &= runs - 1)
            if ((t = timer_wheel_front_(w, TIMER_WHEEL_RUNS + tbitmap_lowest(runs))) < run)
                run = t;
    if ((uint64_t)run <= w->limit)
        return run;
    t = TIMER_NEVER;
    if ((i = timer_wheel_scan_(w, 0, &pend)) < TIMER_WHEEL_NSLOTS &&
        (pend || (t = timer_wheel_exact_(w, i)) < 0))
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

/* Where list i's items must lie: for a slot, the problem if item n is not
 * where its expiry maps (NULL if it is); for a run, in one pending or
 * current group of its level; behind the clock, at or before it. */
TIMER_INLINE_ const char *timer_wheel_misplaced_(const struct timer_wheel *w, size_t i,
                                                 const struct timer_wheel_node *n)
{
    if (i >= TIMER_WHEEL_DUE)
        return n->expire > w->now ? "an item behind the clock is later than the clock" : NULL;
    if (i >= TIMER_WHEEL_RUNS) {
        unsigned s = TIMER_WHEEL_BITS * (unsigned)((i - TIMER_WHEEL_RUNS) / 2 + 1);
        uint64_t g = (uint64_t)n->expire >> s, c = (uint64_t)w->now >> s;
        return (g & 1) != ((i - TIMER_WHEEL_RUNS) & 1) || g < c || g > c + 1 || n->expire <= w->now
                   ? "a run item is outside its level's current and pending groups" : NULL;
    } else {
        unsigned s = (unsigned)(i >> 7) * TIMER_WHEEL_BITS;
        uint64_t e = (uint64_t)n->expire >> s, c = (uint64_t)w->now >> s;
        return (e & 127) != (i & 127) || e <= c || (e >> 6) > (c >> 6) + 1
                   ? "item is not in the slot its expiry maps to" : NULL;
    }
}

/* O(n + slots). NULL when every slot item lies where its expiry maps to,
 * every run and list behind the clock is sorted and in its range, the
 * bitmap matches the lists, the count the items, and limit and wake say
 * what pop and insert rely on. */
TIMER_INLINE_ const char *timer_wheel_check(const struct timer_wheel *w)
{
    size_t i, seen = 0;
    const struct tlist *pos;
    const char *why;
    if (w->now < 0 || w->limit <= (uint64_t)w->now || w->wake > w->limit ||
        (timer_wheel_behind_(w) && w->wake > (uint64_t)w->now))
        return "clock is negative, limit is not later than the clock, or wake is past limit";
    for (i = 1; i < TIMER_WHEEL_LEVELS; i++) {
        unsigned l = (unsigned)i;
        uint64_t g = ((uint64_t)w->now >> (TIMER_WHEEL_BITS * l)) + 1;
        if (timer_wheel_ready_(w, l) ? timer_wheel_owes_(w, l) &&
                                           (w->wake > (uint64_t)w->now || !(w->owed >> l & 1))
                                     : tbitmap_test(w->occupied, timer_wheel_pending_(w, l)) &&
                                           w->wake > timer_wheel_opens_(g, l))
            return "a pending slot has work left, but the next pop may pass it by";
    }
    for (i = 0; (i = tbitmap_find_first(w->occupied, i, TIMER_WHEEL_NSLOTS)) < TIMER_WHEEL_NSLOTS;
         i++) {
        int64_t last = -1;
        if (w->slot[i].next == &w->slot[i] ||
            (i < TIMER_WHEEL_RUNS && (uint64_t)timer_wheel_slot_start_(w->now, i) < w->limit))
            return "bitmap marks an empty list, or a slot starts before limit";
        for (pos = w->slot[i].next; pos != &w->slot[i]; pos = pos->next) {
            const struct timer_wheel_node *n = timer_wheel_node_of_((struct tlist *)(uintptr_t)pos);
            if (++seen > w->count || pos->next == NULL || pos->next->prev != pos ||
                pos->prev->next != pos ||
                n->expire < 0)
                return "more items in lists than the count, a broken list, or a due item in one";
            if (i >= TIMER_WHEEL_RUNS &&
                (n->expire < last || (i < TIMER_WHEEL_DUE && n->expire < w->runs_low)))
                return "a run is not sorted, or holds an item earlier than runs_low";
            if ((why = timer_wheel_misplaced_(w, i, n)) != NULL)
                return why;
            last = n->expire;
        }
        if (i == TIMER_WHEEL_DUE && last > w->high)
            return "the due run holds an item later than its high-water mark";
    }
    return seen != w->count ? "count does not match the items in lists" : NULL;
}

#define TIMER_WHEEL_DEFINE_FUNCTIONS(name, type, member) \
    TIMER_DEFINE_WRAPPERS_(name, type, member, timer_wheel, wheel)

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
#define TIMER_WHEEL_IMPLEMENT(name, type, member) \
    TIMER_WRAPPERS_(name, type, member, timer_wheel, wheel, extern_)

TIMER_FUNCTIONS_END_

#endif /* TIMER_WHEEL_H_FUNCTIONS */
