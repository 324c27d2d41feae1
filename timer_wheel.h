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
 * (Varghese & Lauck's hierarchical wheel, addressed by the differing bits
 * as skynet's is), and a bitmap says which lists hold items, so the
 * earliest is found without ticking. Each level has two groups' worth of
 * slots: the rest of the clock's group one level up, and the group after
 * it. The clock is the latest `now` given to pop: next_expiry and first
 * never move it, and a pop whose now is behind it hands out what is due
 * and leaves it (contract v2.4), so an insert after the latest pop's time
 * is never behind the clock and costs the same whatever queries came
 * before. Each mechanism, the invariant it keeps, and the measured row
 * (make bench-instructions, make bench-latency, test/adversarial.c) it is
 * kept for:
 *
 * - Pending slots. The slot the clock enters next at level l (the group
 *   after the clock's) is refined, its items moved one level down, during
 *   its window: the last quarter of the group before it (level 1: all of
 *   it), not before, because items are filed long before they expire and
 *   an idle connection's timeout is pushed back many times (the idle row).
 *   Invariant: a pending slot that holds items while its window is open is
 *   owed (a bit in owed), and while anything is owed wake is the clock, so
 *   the next pop cannot skip it (check() asserts both).
 * - Paced by need. Each slot counts the items that arrived in it (arrived).
 *   At the end of a pop that moved the clock by d ticks, each owed pending
 *   slot, coarsest first (a finer one may lie in it and receive its items),
 *   does the share of what it has left that d is of the ticks from the old
 *   clock to the slot's start, so that it is done when the clock gets
 *   there, never past PACE = 16 + 8 per item handed out + 8 per change
 *   since the previous query while what is left could be done at 16 steps
 *   a tick, else past C = 4,088 + the same 8s; then the pop goes on to 16
 *   in all, so that a window is done early, nothing is owed, and pop's fast
 *   path is back (the pop(ord) and min_time+pop rows: 198 and 233
 *   instructions with the shares alone, 167 and 202 so; at PACE = 48, 132
 *   and 167, but then make bench-latency's loop has a pop p99 of 7.6 us,
 *   against 2.6 us). next_expiry and first, which never move the clock, do
 *   only the work their 8s paid for. Invariant: a pop that stopped short of
 *   its limit did every slot's share, and one that stopped short of PACE
 *   left nothing owed (the bound fuzzer models the shares and fails a call
 *   that did less). A step goes at most FEW over, so a pop whose windows
 *   keep pace stays within 24 + 8 per item + 8 per change, inside the
 *   event loops' C = 64 (make bench-latency's loops; test/adversarial.c's
 *   count it: in one run the largest pop took 40 steps handing out 3, the
 *   largest next_expiry 40; in its tick loop, 1M timers at delays up to
 *   4,096, whose windows cannot keep pace, 6,171 handing out 704).
 * - One item. A pending slot of one item goes down at once when its window
 *   opens, and an insert into an empty pending slot with its window open
 *   goes straight down, so that insert's fast path, which appends to any
 *   slot that holds items, needs no test (the insert and random-insert
 *   rows: 40 and 42 instructions).
 * - Runs. A pending slot's front in expiry order of FEW items or more, or
 *   continuing its level's run, is cut onto that run: walked once, never
 *   moved (fixed-delay timeouts; the pop(ord) row and the fixed-delay loop).
 *   A query that must read a slot of more than FEW items whose window has
 *   not opened puts it in order into its level's run: a radix sort, one pass
 *   per 6-bit digit in which its items differ, and a stable merge (the
 *   next_expiry+pop row: the clock stays). Invariant: each run is sorted,
 *   and pop's fast path hands out from the best run up to upto in one cut.
 * - Behind the clock. Items inserted at or before the clock go out before
 *   every slot and run item: in expiry order onto the due run, O(1); else
 *   into a log-structured merge of sorted runs (tier t: two runs of at most
 *   2^t items and the front merged so far), each such insert moving 8 items
 *   of every merging tier, O(log k) and never a merge at once (the stall
 *   loop's catch-up; adversarial inputs b to j). Invariant: every list
 *   behind the clock is sorted and at or before it, and wake is the clock.
 * - TIMER_NEVER's window. After a drain there (pop(TIMER_NEVER)), a pop
 *   back at a real time that empties the wheel takes the clock back to it;
 *   items in TIMER_NEVER's 64 ticks wait in 64 window slots meanwhile, so
 *   that min_time stays exact for them (adversarial input e).
 *
 * Among equal expiries an item that arrived earlier is always in the due
 * run (rather than the merge), in an older tier, in a run rather than a
 * slot, in a coarser run, or in a finer slot (refining takes from the front
 * and appends, and a group that has begun to be refined makes no run), so
 * the order is (expiry, arrival), as in timer_set.h and timer_heap.h.
 *
 * Guarantees and costs, for every sequence of calls (steps: items moved
 * between the wheel's lists and links walked; docs/guarantees.md):
 * - insert, reschedule, reschedule_range and remove: O(1), at most C =
 *   4,096 steps; an insert at or before the clock O(1) in expiry order,
 *   else O(log k) (k: items behind the clock), at most 8 per merging tier;
 * - pop, next_expiry and first: at most B = 4,096 + 8 x (items handed out)
 *   + 8 x (inserts, reschedules and removes since the previous pop,
 *   next_expiry or first) steps, with one exception: a call may go beyond B
 *   only by the work, 2 steps an item, that pacing left in the pending
 *   slots it reaches: the items that arrived while their window was open,
 *   less each earlier pop's share (above), or none after a query that
 *   stopped short of what its 8s paid for. A window with no call in it
 *   (the call jumps over it) is the plain case, and so is a far slot (its
 *   window not open) that a query must read: it may spend l + 2 steps on
 *   each item of that level-l slot, putting it in order, since no call
 *   could prepare it. With a pop every tick nothing is left unless a pop
 *   stopped at its limit; otherwise the exception is a pop that jumps, by
 *   the share of the ticks it jumped.
 *   pop hands out exactly the items with expire <= now, in (expiry,
 *   arrival) order, O(1) amortised per item (+ O(log k) behind the clock);
 * - next_expiry and first are amortised O(1); min_time is O(1), const, and
 *   never later than the earliest expiry: exact when that lies in the
 *   clock's finest 64-tick window or behind the clock, or is a run's first
 *   with no slot before it; otherwise a slot's start. Repeating `t =
 *   min_time(); pop(t)` pops the earliest item within 11 rounds. Use
 *   next_expiry to sleep exactly.
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
            struct tlist slot[1536]; uint64_t occupied[24];                            \
            int64_t now; uint64_t wake, first; int64_t runs_low, upto, high;           \
            uint64_t merging; size_t count, spent, changes, base;                      \
            uint64_t refined[11], arrived[1536]; unsigned best, owed, state;           \
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
/* A pop's limit on the work owed when its windows cannot keep pace: C + 8
 * per item it hands out + 8 per change since the previous query, in steps
 * (see the top); a step goes at most FEW over, so that every call stays
 * within the bound's C = 4,096.
 * Tests define it lower (test/fuzz/bound.c), so that what would cost O(n)
 * in one call shows with a few hundred items; a program that defines it
 * moves the bound's C with it. */
#ifndef TIMER_WHEEL_C
#define TIMER_WHEEL_C 4088                  /* 4,096 less FEW */
#endif
/* Level l's pending slot owes its items from when its window opens: the
 * clock in the last quarter of the group before it (level l - 1's digit 48
 * and up; level 1: the whole group). Items are filed long before they
 * expire, and an idle connection's timeout is pushed back many times: work
 * done earlier would move items that leave again. */
#define TIMER_WHEEL_WINDOW_FROM 48
/* A pop's limit on the work owed while what is left could be done at PACE
 * steps a tick, and the steps in all to which it goes on once every share
 * is done (see the top): with the overshoot of a step (FEW) such a pop
 * stays within 24 + 8 per item + 8 per change, inside the event loops'
 * C = 64. Tests define it lower too. */
#ifndef TIMER_WHEEL_PACE
#define TIMER_WHEEL_PACE 16
#endif
/* A slot of at most FEW items that a query must read exactly is searched
 * (FEW + 1 links); a bigger one is put in order into its level's run. */
#define TIMER_WHEEL_FEW 8
/* TIMER_NEVER's 64-tick window: after a pop there (a drain), the clock may
 * go back, and items in it wait in the window slots. */
#define TIMER_WHEEL_TOP (INT64_MAX - 63)
/* List heads: level L's 128 slots at 128 * L (level 10 uses its first 8:
 * no time has a group above it; its second half holds the window slots,
 * at WINDOW, while the clock is back from TIMER_NEVER's window); then the
 * run of each level 1 .. 10 at RUNS + L (bits 0 to 9 of bitmap word 22);
 * then, behind the clock, the due run and the TIERS tiers of the merge,
 * three lists each (see "behind the clock"). */
#define TIMER_WHEEL_WINDOW (128 * (TIMER_WHEEL_LEVELS - 1) + 64)
#define TIMER_WHEEL_RUNS (128 * TIMER_WHEEL_LEVELS - 1)
#define TIMER_WHEEL_DUE (TIMER_WHEEL_RUNS + TIMER_WHEEL_LEVELS)
#define TIMER_WHEEL_TIERS 39
#define TIMER_WHEEL_NSLOTS (TIMER_WHEEL_DUE + 1 + 3 * TIMER_WHEEL_TIERS)
/* state bits */
#define TIMER_WHEEL_BACK_ 2u        /* the clock went back from TIMER_NEVER's window */
#define TIMER_WHEEL_VISITING_ 4u    /* a visit walks the lists: queries move nothing */

struct TIMER_MAY_ALIAS_ timer_wheel {
    /* First, so that a slot's address is the wheel's plus 16 times its
     * index (one add less in every insert and remove). */
    struct tlist slot[TIMER_WHEEL_NSLOTS];
    /* Bit i set <=> slot[i] is not empty. A head is initialised when its
     * bit is set, so init only has to clear 24 words. */
    uint64_t occupied[TIMER_WHEEL_NSLOTS / 64];
    int64_t now;            /* the clock: the latest pop's time (see BACK_) */
    /* A pop before it, and not behind the clock, finds no slot to take or
     * open and no work owed: only run items can be due (pop's fast path). */
    uint64_t wake;
    uint64_t first;         /* a lower bound of every slot's start after the clock */
    int64_t runs_low;       /* a lower bound of every run item (TIMER_NEVER: none) */
    int64_t upto;           /* the best run may hand out up to upto before another */
    int64_t high;           /* the due run's last expiry (-1: nothing behind the clock) */
    uint64_t merging;       /* bit t: tier t merges its two runs */
    size_t count;           /* pending items */
    size_t spent;           /* steps (moves, links walked) of the current query */
    /* The changes since the previous query are changes - count - base: an
     * insert adds 2 to changes (and 1 to count), any other change 1, and a
     * remove takes 1 from count, so that remove, the cheapest call, writes
     * one counter. A query sets base. */
    size_t changes, base;
    /* By level: the group of which an item went down last (a group that has
     * begun to be refined makes no run: its items there would go first). */
    uint64_t refined[TIMER_WHEEL_LEVELS];
    /* By slot: the items linked into it since it was last empty, less those
     * that went down from it: at least the items it holds (a remove does not
     * know its slot). The work a pending slot owes is paced by it. */
    uint64_t arrived[TIMER_WHEEL_NSLOTS];
    unsigned best;          /* the run pop hands out from first (its list); NSLOTS: not known */
    unsigned owed;          /* bit l: level l's pending slot holds items, its window open */
    unsigned state;         /* TIMER_WHEEL_BACK_, _VISITING_ */
};
TIMER_WHEEL_DEFINE_TYPE(timer_wheel_layout_)
TIMER_STATIC_CHECK_(timer_wheel_layout_check_,
                    sizeof(timer_wheel_layout_) == sizeof(struct timer_wheel) &&
                        offsetof(timer_wheel_layout_, wheel.state) ==
                            offsetof(struct timer_wheel, state))

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
/* Every step is counted in spent too: a query's allowance is in steps. */
#define timer_wheel_moved_(w) (TIMER_WHEEL_ON_MOVE_(), (void)(w)->spent++)
#define timer_wheel_walked_(w, k) (TIMER_WHEEL_ON_WALK_(k), (void)((w)->spent += (k)))

#define timer_wheel_node_of_(l) tlist_entry(l, struct timer_wheel_node, link)
#define timer_wheel_front_(w, i) (timer_wheel_node_of_((w)->slot[i].next)->expire)
#define timer_wheel_back_(w, i) (timer_wheel_node_of_((w)->slot[i].prev)->expire)
#define timer_wheel_single_(w, i) ((w)->slot[i].next == (w)->slot[i].prev)
/* The runs of levels 1 to 10: bits 0 to 9 of bitmap word 22 (level l: bit l - 1). */
#define timer_wheel_runs_(w) ((w)->occupied[22] & 0x3ff)
/* The clock's 6-bit digit at level l, and its group there. */
#define timer_wheel_digit_(w, l) (((uint64_t)(w)->now >> (TIMER_WHEEL_BITS * (l))) & 63)
#define timer_wheel_group_(w, l) ((uint64_t)(w)->now >> (TIMER_WHEEL_BITS * (l)))

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

/* The slot of an expiry: the highest bit in which it differs from the
 * clock gives the level (as in skynet: its sixth), its group there the
 * slot, in the half of its group one level up (the clock's, for this
 * slot); *g is the group, *s the level's shift. An expiry at or behind
 * the clock maps to a slot of the clock's half at or below its digit, which
 * the clock has passed and which stays empty: insert's test of the slot
 * sends such an item to file_slow_, which files it behind the clock. */
TIMER_INLINE_ size_t timer_wheel_where_(int64_t clock, int64_t expire, uint64_t *g, unsigned *s)
{
    unsigned l = tbitmap_highest(((uint64_t)expire ^ (uint64_t)clock) | 1) / TIMER_WHEEL_BITS;
    *s = TIMER_WHEEL_BITS * l;
    *g = (uint64_t)expire >> *s;
    return 128 * l + (size_t)(*g & 127);
}

/* The first tick of slot i: its level's group is the clock's one level up,
 * or the next one for the other half, then the slot's 6 bits. */
TIMER_INLINE_ int64_t timer_wheel_slot_start_(int64_t clock, size_t i)
{
    unsigned s = (unsigned)(i >> 7) * TIMER_WHEEL_BITS;
    uint64_t up = ((uint64_t)clock >> s) >> TIMER_WHEEL_BITS;
    if (i >= TIMER_WHEEL_WINDOW)
        return TIMER_WHEEL_TOP + (int64_t)(i & 63);
    up += ((i >> 6) ^ up) & 1;
    return (int64_t)(((up << TIMER_WHEEL_BITS) | (i & 63)) << s);
}

/* Level l's pending slot: the group after the clock's. */
TIMER_INLINE_ size_t timer_wheel_pending_(const struct timer_wheel *w, unsigned l)
{
    return 128 * l + ((timer_wheel_group_(w, l) + 1) & 127);
}

/* Does anything wait behind the clock (the due run, the tiers)? */
TIMER_INLINE_ bool timer_wheel_behind_(const struct timer_wheel *w)
{
    return (w->occupied[TIMER_WHEEL_DUE / 64] >> (TIMER_WHEEL_DUE % 64) | w->occupied[23]) != 0;
}

/* The changes since the previous query (see base). */
TIMER_INLINE_ size_t timer_wheel_changes_(const struct timer_wheel *w)
{
    return w->changes - w->count - w->base;
}

TIMER_INLINE_ void timer_wheel_init(struct timer_wheel *w, int64_t now)
{
    size_t l;
    w->now = now < 0 ? 0 : now;
    w->wake = w->first = UINT64_MAX;
    w->runs_low = w->upto = TIMER_NEVER;
    w->high = -1;
    w->merging = 0;
    w->count = w->changes = w->base = w->spent = 0;
    w->best = TIMER_WHEEL_NSLOTS;
    w->owed = w->state = 0;
    for (l = 0; l < TIMER_WHEEL_LEVELS; l++)
        w->refined[l] = UINT64_MAX;
    tbitmap_zero(w->occupied, TIMER_WHEEL_NSLOTS);
}

/* ---- lists ------------------------------------------------------------------- */

/* List i's head, made an empty list first when its bit is clear (a head is
 * initialised only then). */
TIMER_INLINE_ struct tlist *timer_wheel_head_(struct timer_wheel *w, size_t i)
{
    if (!tbitmap_test(w->occupied, i)) {
        tbitmap_set(w->occupied, i);
        tlist_init(&w->slot[i]);
        w->arrived[i] = 0;
    }
    return &w->slot[i];
}

/* Append a node that is in no list of the wheel's (its links may be stale:
 * they are overwritten) to list i. Appending is what keeps each list in
 * arrival order. */
TIMER_INLINE_ void timer_wheel_link_(struct timer_wheel *w, size_t i, struct timer_wheel_node *n)
{
    tlist_splice_range_(timer_wheel_head_(w, i), &n->link, &n->link);
    w->arrived[i]++;
}

/* List i's front up to pos (k items) has left it: pos is its first now. */
TIMER_INLINE_ void timer_wheel_cut_to_(struct timer_wheel *w, size_t i, struct tlist *pos, size_t k)
{
    w->slot[i].next = pos;
    pos->prev = &w->slot[i];
    if (pos == &w->slot[i])
        tbitmap_clear(w->occupied, i);
    w->arrived[i] -= k < w->arrived[i] ? k : w->arrived[i];
}

/* Append list `from` (not empty) to list `to`; `from` is empty then. */
TIMER_INLINE_ void timer_wheel_move_list_(struct timer_wheel *w, size_t to, size_t from)
{
    tlist_splice_back_(timer_wheel_head_(w, to), &w->slot[from]);
    tbitmap_clear(w->occupied, from);
}

/* Put list h (not empty) in expiry order, stably: least-significant-digit
 * radix sort, one pass over 64 buckets for each 6-bit digit in which its
 * items differ, so an item moves at most 11 times and ties keep their
 * order. */
TIMER_NOINLINE_ void timer_wheel_sort_(struct timer_wheel *w, struct tlist *h)
{
    struct tlist b[TIMER_WHEEL_SLOTS], *pos, *next;
    uint64_t diff = 0, first = (uint64_t)timer_wheel_node_of_(h->next)->expire, used;
    unsigned d, top;
    size_t k = 0;
    for (pos = h->next; pos != h; pos = pos->next, k++)
        diff |= (uint64_t)timer_wheel_node_of_(pos)->expire ^ first;
    timer_wheel_walked_(w, k);
    if (diff == 0)
        return;
    top = tbitmap_highest(diff) / TIMER_WHEEL_BITS;
    for (d = tbitmap_lowest(diff) / TIMER_WHEEL_BITS; d <= top; d++) {
        for (used = 0, pos = h->next; pos != h; pos = next) {
            unsigned j = (unsigned)((uint64_t)timer_wheel_node_of_(pos)->expire >>
                                    (TIMER_WHEEL_BITS * d)) & 63;
            next = pos->next;
            if ((used >> j & 1) == 0)
                tlist_init(&b[j]);
            used |= UINT64_C(1) << j;
            tlist_splice_range_(&b[j], pos, pos);
            timer_wheel_moved_(w);
        }
        for (tlist_init(h); used != 0; used &= used - 1)
            tlist_splice_back_(h, &b[tbitmap_lowest(used)]);
    }
}

/* Merge the sorted list b into the sorted list a, stably (a's items first
 * among equal expiries): O(length of b + a's items up to b's last). */
TIMER_NOINLINE_ void timer_wheel_merge_(struct timer_wheel *w, struct tlist *a, struct tlist *b)
{
    struct tlist *pos = a->next, *x;
    while ((x = b->next) != b) {
        int64_t e = timer_wheel_node_of_(x)->expire;
        for (; pos != a && timer_wheel_node_of_(pos)->expire <= e; pos = pos->next)
            timer_wheel_walked_(w, 1);
        if (pos == a) {                     /* the rest of b is later than all of a */
            tlist_splice_back_(a, b);
            break;
        }
        timer_wheel_moved_(w);
        tlist_remove(x);
        tlist_splice_range_(pos, x, x);     /* i.e. link x just before pos */
    }
    tlist_init(b);
}

/* ---- the runs ------------------------------------------------------------------ */

/* Choose the run pop hands out from first: the earliest first item, ties
 * to the coarser level (its items arrived first). upto: how far it may go
 * before another run's item must go first. runs_low becomes exact. */
TIMER_NOINLINE_ void timer_wheel_pick_(struct timer_wheel *w)
{
    uint64_t runs = timer_wheel_runs_(w);
    int64_t t = TIMER_NEVER, upto = TIMER_NEVER;
    for (w->best = TIMER_WHEEL_NSLOTS; runs != 0; runs &= ~(UINT64_C(1) << tbitmap_highest(runs))) {
        unsigned r = TIMER_WHEEL_RUNS + 1 + tbitmap_highest(runs);     /* coarsest first */
        int64_t f = timer_wheel_front_(w, r);
        if (w->best == TIMER_WHEEL_NSLOTS || f < t) {   /* a finer run that goes first: to t - 1 */
            upto = w->best == TIMER_WHEEL_NSLOTS ? upto : t - 1 < upto ? t - 1 : upto;
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
    size_t i = w->best;
    if (i == TIMER_WHEEL_NSLOTS || !tbitmap_test(w->occupied, i) ||
        timer_wheel_front_(w, i) > w->upto)
        timer_wheel_pick_(w);
    return w->best;
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
    tlist_splice_range_(out, first, last);
    timer_wheel_cut_to_(w, i, next, k);
    if (i > TIMER_WHEEL_RUNS) {
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
    size_t i = w->best;
    if (i == TIMER_WHEEL_NSLOTS || bound >= w->upto || !tbitmap_test(w->occupied, i) ||
        timer_wheel_front_(w, i) > bound)
        return timer_wheel_take_runs_slow_(w, bound, out);
    return timer_wheel_take_front_(w, i, bound, out);
}

/* Items joined run r: pop picks its best run anew, and runs_low may be
 * lower now. */
TIMER_INLINE_ void timer_wheel_joined_(struct timer_wheel *w, size_t r)
{
    int64_t f = timer_wheel_front_(w, r);
    w->best = TIMER_WHEEL_NSLOTS;
    w->runs_low = w->runs_low < f ? w->runs_low : f;
}

/* Put slot i (of level l >= 1, not empty) in order into level l's run:
 * sorted, then merged in (the run's items arrived first: ahead among
 * ties). A query does this to a slot it must read exactly whose window
 * has not opened (see the top). */
TIMER_NOINLINE_ void timer_wheel_to_run_(struct timer_wheel *w, size_t i)
{
    size_t r = TIMER_WHEEL_RUNS + (i >> 7);
    timer_wheel_sort_(w, &w->slot[i]);
    timer_wheel_merge_(w, timer_wheel_head_(w, r), &w->slot[i]);
    tbitmap_clear(w->occupied, i);
    timer_wheel_joined_(w, r);
}

/* ---- behind the clock: the due run and the merge ---------------------------------- */

/* Tier t's lists: D (j = 0), the front it has merged; X (1), its older
 * run; Y (2), its newer run. Higher tiers come first, so that the lists
 * behind the clock lie in the order their ties go out, the due run first. */
#define timer_wheel_tier_(t, j) (TIMER_WHEEL_DUE + 1 + 3 * (TIMER_WHEEL_TIERS - 1 - (t)) + (j))

TIMER_NOINLINE_ void timer_wheel_carry_(struct timer_wheel *w, unsigned t, size_t from);

/* Move up to `steps` items from the fronts of tier t's runs onto D, the
 * earlier first (X's on ties: it is older). Once either run is empty, D
 * and then what is left is the tier's merged run, carried to tier t + 1
 * (the top tier keeps it, as X). */
TIMER_NOINLINE_ void timer_wheel_advance_tier_(struct timer_wheel *w, unsigned t, size_t steps)
{
    size_t d = timer_wheel_tier_(t, 0), x = d + 1, y = d + 2, from;
    struct tlist *m;
    for (; steps != 0 && tbitmap_test(w->occupied, x) && tbitmap_test(w->occupied, y); steps--) {
        from = timer_wheel_front_(w, x) <= timer_wheel_front_(w, y) ? x : y;
        m = w->slot[from].next;
        timer_wheel_cut_to_(w, from, m->next, 1);
        timer_wheel_link_(w, d, timer_wheel_node_of_(m));
        timer_wheel_moved_(w);
    }
    if (tbitmap_test(w->occupied, x) && tbitmap_test(w->occupied, y))
        return;
    w->merging &= ~(UINT64_C(1) << t);
    if (tbitmap_test(w->occupied, x))
        timer_wheel_move_list_(w, d, x);
    if (tbitmap_test(w->occupied, y))
        timer_wheel_move_list_(w, d, y);
    if (tbitmap_test(w->occupied, d))
        t + 1 < TIMER_WHEEL_TIERS ? timer_wheel_carry_(w, t + 1, d)
                                  : timer_wheel_move_list_(w, x, d);
}

/* Put the sorted list `from` into tier t: as X if the tier has no run,
 * else as Y, and the tier starts merging. A tier receives a run at most
 * once every 2^(t-1) inserts and merges it in 2^(t-2) (8 moves an insert,
 * runs of at most 2^t items), so it has finished when the next one comes;
 * the top tier, which 2^38 inserts would reach, finishes its merge first. */
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
 * the due run, else as a run of one into the merge, each of whose merging
 * tiers then moves 8 items. The next pop takes the slow path (wake), which
 * hands out everything behind the clock first. */
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
    timer_wheel_link_(w, timer_wheel_tier_(0, 0), n);
    timer_wheel_carry_(w, 0, timer_wheel_tier_(0, 0));
    for (merging = w->merging; merging != 0; merging &= merging - 1)
        timer_wheel_advance_tier_(w, tbitmap_lowest(merging), 8);
}

/* The list behind the clock whose first item goes out first: the least
 * first expiry, ties to the list that comes first; NSLOTS when none. */
TIMER_INLINE_ size_t timer_wheel_behind_first_(const struct timer_wheel *w)
{
    size_t i = TIMER_WHEEL_DUE, best = TIMER_WHEEL_NSLOTS;
    for (; (i = tbitmap_find_first(w->occupied, i, TIMER_WHEEL_NSLOTS)) < TIMER_WHEEL_NSLOTS; i++)
        if (best == TIMER_WHEEL_NSLOTS || timer_wheel_front_(w, i) < timer_wheel_front_(w, best))
            best = i;
    return best;
}

/* Hand out every item behind the clock with expire <= bound, in pop order:
 * each list's due front is cut off and merged with the others stably, in
 * list order, pairwise as a binary counter counts (an item takes part in
 * at most 8 merges: there are 118 lists). */
TIMER_NOINLINE_ size_t timer_wheel_take_behind_(struct timer_wheel *w, int64_t bound,
                                                struct tlist *out)
{
    struct tlist acc[8], *head, *pos;
    unsigned rank[8], top = 0;
    size_t i = TIMER_WHEEL_DUE, k = 0;
    for (; (i = tbitmap_find_first(w->occupied, i, TIMER_WHEEL_NSLOTS)) < TIMER_WHEEL_NSLOTS; i++) {
        head = &w->slot[i];
        for (pos = head->next; pos != head && timer_wheel_node_of_(pos)->expire <= bound; k++)
            pos = pos->next;
        if (pos == head->next)
            continue;
        tlist_init(&acc[top]);
        tlist_splice_range_(&acc[top], head->next, pos->prev);
        timer_wheel_cut_to_(w, i, pos, 0);  /* behind the clock: nothing is paced */
        for (rank[top++] = 0; top >= 2 && rank[top - 2] == rank[top - 1]; top--, rank[top - 1]++)
            timer_wheel_merge_(w, &acc[top - 2], &acc[top - 1]);
    }
    for (; top >= 2; top--)
        timer_wheel_merge_(w, &acc[top - 2], &acc[top - 1]);
    timer_wheel_walked_(w, k);
    if (top != 0) {
        for (pos = acc[0].next; pos != &acc[0]; pos = pos->next)
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

/* When the window of slot i, which starts at `start`, opens (see
 * WINDOW_FROM); a level-0 slot's is its start. */
TIMER_INLINE_ uint64_t timer_wheel_opens_(size_t i, int64_t start)
{
    unsigned l = (unsigned)(i >> 7);
    if (l < 2)                              /* level 1: the whole group before */
        return (uint64_t)start - (l == 0 ? 0 : TIMER_WHEEL_SLOTS);
    return (uint64_t)start - ((uint64_t)(TIMER_WHEEL_SLOTS - TIMER_WHEEL_WINDOW_FROM)
                              << (TIMER_WHEEL_BITS * (l - 1)));
}

/* Is level l's window open (see WINDOW_FROM)? */
#define timer_wheel_open_(w, l) \
    ((l) == 1 || timer_wheel_digit_(w, (l) - 1) >= TIMER_WHEEL_WINDOW_FROM)

/* File an unlinked node (its expiry set) where insert's fast path does not:
 * in an empty slot, behind the clock (file_behind_), or in TIMER_NEVER's
 * window while the clock is back from it. One for an empty
 * pending slot whose window is open goes straight one level down, into the
 * half that slot is refined into (nothing of its group is left above: no
 * order among ties is broken), as often as that is such a slot too. The
 * first item of any other slot brings first to its start, and wake to the
 * time its window opens (at level 0: its start). */
TIMER_NOINLINE_ void timer_wheel_file_slow_(struct timer_wheel *w, struct timer_wheel_node *n)
{
    int64_t e = n->expire, start;
    uint64_t g, opens;
    unsigned s, l;
    size_t i = timer_wheel_where_(w->now, e, &g, &s);
    if (e <= w->now) {
        timer_wheel_file_behind_(w, n);
        return;
    } else if (e >= TIMER_WHEEL_TOP && (w->state & TIMER_WHEEL_BACK_) != 0) {
        i = TIMER_WHEEL_WINDOW + (size_t)(e & 63);
    } else if (!tbitmap_test(w->occupied, i)) {
        while ((l = s / TIMER_WHEEL_BITS) != 0 && g == ((uint64_t)w->now >> s) + 1 &&
               timer_wheel_open_(w, l) && !tbitmap_test(w->occupied, i)) {
            w->refined[l] = g;
            s -= TIMER_WHEEL_BITS;
            g = (uint64_t)e >> s;
            i = 128 * (l - 1) + (size_t)(g & 127);
        }
        if (!tbitmap_test(w->occupied, i)) {
            start = timer_wheel_slot_start_(w->now, i);
            opens = timer_wheel_opens_(i, start);
            w->first = (uint64_t)start < w->first ? (uint64_t)start : w->first;
            w->wake = opens < w->wake ? opens : w->wake;
        }
    }
    timer_wheel_link_(w, i, n);
}

/* File an unlinked node at `expire`: into its slot when that holds items
 * (nothing else changes: its window is known, or it is owed), else
 * file_slow_. */
TIMER_INLINE_ void timer_wheel_file_(struct timer_wheel *w, int64_t expire,
                                     struct timer_wheel_node *n)
{
    uint64_t g;
    unsigned s;
    size_t i;
    n->expire = expire;
    if (expire < TIMER_WHEEL_TOP &&
        tbitmap_test(w->occupied, i = timer_wheel_where_(w->now, expire, &g, &s))) {
        tlist_splice_range_(&w->slot[i], &n->link, &n->link);   /* n's links may be stale */
        w->arrived[i]++;
    } else {
        timer_wheel_file_slow_(w, n);
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
    w->changes += 2;
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
 * whose head is not w's (it reads only what unlinking reads anyway); its
 * callers, remove and reschedule, assert the wider check (holds_). */
TIMER_INLINE_ bool timer_wheel_cut_(struct timer_wheel *w, struct timer_wheel_node *n)
{
    struct tlist *prev = n->link.prev, *next = n->link.next;
    bool ours = w->count != 0 && (prev != next || timer_wheel_is_head_(w, prev));
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
    if (n->expire < 0) {
        tlist_remove(&n->link);             /* due: leave the result list */
        w->changes++;
    } else if (timer_wheel_cut_(w, n)) {
        w->count--;
    } else {
        return false;                       /* another wheel's item: nothing changes */
    }
    timer_wheel_make_idle_(n);
    return true;
}

/* reschedule of an idle or due item (out of line: the pending one is the
 * common case, and its path stays short enough to be inlined) */
TIMER_NOINLINE_ int timer_wheel_rearm_(struct timer_wheel *w, int64_t expire,
                                       struct timer_wheel_node *n)
{
    if (n->link.next != NULL)
        tlist_remove(&n->link);             /* due: leave the result list */
    timer_wheel_file_(w, expire, n);
    w->count++;
    w->changes += 2;
    return 0;
}

/* A pending item is unlinked from wherever it is and filed as an insert
 * would (a reschedule is a new arrival: a connection timeout pushed back
 * goes to the end of its slot); one that is last in its slot already only
 * changes its expiry. */
TIMER_INLINE_ int timer_wheel_reschedule(struct timer_wheel *w, int64_t expire,
                                         struct timer_wheel_node *n)
{
    uint64_t g;
    unsigned s;
    size_t i;
    if (n == NULL || expire < 0)
        return -EINVAL;
    assert(timer_wheel_holds_(w, n, 7) &&
           "timer_wheel_reschedule: the item is not in this wheel "
           "(another wheel holds it, or init was called while this one held it)");
    if (!timer_wheel_node_pending(n))
        return timer_wheel_rearm_(w, expire, n);
    if (expire < TIMER_WHEEL_TOP &&
        tbitmap_test(w->occupied, i = timer_wheel_where_(w->now, expire, &g, &s))) {
        if (n->link.next != &w->slot[i]) {  /* else it is last in that slot already */
            if (!timer_wheel_cut_(w, n))
                return -EINVAL;             /* another wheel's item: nothing changes */
            tlist_splice_range_(&w->slot[i], &n->link, &n->link);
            w->arrived[i]++;
        }
    } else if (timer_wheel_cut_(w, n)) {
        n->expire = expire;
        timer_wheel_file_slow_(w, n);
    } else {
        return -EINVAL;
    }
    n->expire = expire;
    w->changes++;
    return 0;
}

/* ---- preparing the pending slots ------------------------------------------ */

/* Move pos (from a level-l list) to its slot at level l - 1. */
TIMER_INLINE_ void timer_wheel_down_(struct timer_wheel *w, unsigned l, struct tlist *pos)
{
    uint64_t g = (uint64_t)timer_wheel_node_of_(pos)->expire >> (TIMER_WHEEL_BITS * (l - 1));
    TIMER_WHEEL_ON_MOVE_();
    timer_wheel_link_(w, 128 * (l - 1) + (size_t)(g & 127), timer_wheel_node_of_(pos));
}

/* Prepare level l's pending slot P (group g, the one after the clock's) for
 * up to `budget` steps. While nothing of g went down yet, a front of P in
 * expiry order of FEW items or more, or that continues level l's run, is
 * cut onto the run: walked once, never moved (fixed-delay timeouts are
 * inserted in order; 2.1's runs). Otherwise P's items go, front first, to
 * their slots in the second half of level l - 1, which is g's range
 * (refining); one that lands in level l - 1's pending slot (g's first group,
 * when the clock's digit there is 63) is work for that level in turn. */
TIMER_NOINLINE_ void timer_wheel_step_(struct timer_wheel *w, unsigned l, size_t budget)
{
    uint64_t g = timer_wheel_group_(w, l) + 1;
    size_t p = 128 * l + (g & 127), r = TIMER_WHEEL_RUNS + l, k = 0;
    struct tlist *ph = &w->slot[p], *pos = ph->next, *next;
    if (w->refined[l] != g) {
        bool had = tbitmap_test(w->occupied, r);
        int64_t last = had ? timer_wheel_back_(w, r) : -1;
        size_t most = budget > TIMER_WHEEL_FEW ? budget : TIMER_WHEEL_FEW;
        for (; pos != ph && k < most && timer_wheel_node_of_(pos)->expire >= last; k++) {
            last = timer_wheel_node_of_(pos)->expire;
            pos = pos->next;
        }
        timer_wheel_walked_(w, k);
        if (k >= TIMER_WHEEL_FEW || (had && k != 0)) {
            tlist_splice_range_(timer_wheel_head_(w, r), ph->next, pos->prev);
            timer_wheel_cut_to_(w, p, pos, k);
            timer_wheel_joined_(w, r);
            return;
        }
        pos = ph->next;                     /* a short sorted front: refined with the rest */
        budget = budget > k ? budget - k : 1;
    }
    w->refined[l] = g;
    if (l > 1 && timer_wheel_digit_(w, l - 1) == 63)
        w->owed |= 1u << (l - 1);           /* level l - 1's pending slot lies in g */
    for (k = 0; pos != ph && k < budget; pos = next, k++) {
        next = pos->next;
        timer_wheel_down_(w, l, pos);
    }
    timer_wheel_cut_to_(w, p, pos, k);
    w->spent += k;
}

/* Has level l's pending slot items left? */
TIMER_INLINE_ bool timer_wheel_owes_(const struct timer_wheel *w, unsigned l)
{
    return tbitmap_test(w->occupied, timer_wheel_pending_(w, l));
}

/* Level l's pending slot, until w->spent reaches `end` or nothing is owed
 * there; owed keeps the level while something is. */
TIMER_INLINE_ void timer_wheel_do_(struct timer_wheel *w, unsigned l, size_t end)
{
    bool owes;
    while ((owes = timer_wheel_open_(w, l) && timer_wheel_owes_(w, l)) && w->spent < end)
        timer_wheel_step_(w, l, end - w->spent);
    if (!owes)
        w->owed &= ~(1u << l);
}

/* The work owed, paced by need, at the end of a query that spent w->spent
 * steps of its own and was paid `paid` (8 per item handed out + 8 per
 * change since the previous query). First each pending slot with items
 * and its window open does the share of what it has left (its arrived
 * count) that the `passed` ticks the clock just moved are of the ticks
 * from where it was to the slot's start, so that it is done when the clock
 * gets there if the calls keep coming, coarsest first, since a finer
 * pending slot may lie in a coarser one (the clock's digit is 63) and
 * receive its items; never past paid + PACE while what is left could be
 * done at PACE steps a tick, else paid + C. Then the call goes on to PACE
 * steps in all (a window done early leaves nothing owed, and pop takes its
 * fast path again). A query that did not move the clock (passed 0) does
 * the work it was paid for. True when anything moved. */
TIMER_NOINLINE_ bool timer_wheel_work_(struct timer_wheel *w, size_t paid, uint64_t passed)
{
    unsigned l;
    size_t start = w->spent, end;
    uint64_t owed, ticks, left;
    for (owed = w->owed; owed != 0; owed &= ~(1u << l)) {
        l = tbitmap_highest(owed);
        ticks = ((timer_wheel_group_(w, l) + 1) << (TIMER_WHEEL_BITS * l)) - (uint64_t)w->now;
        left = w->arrived[timer_wheel_pending_(w, l)];
        end = paid;                         /* where the call stops */
        if (passed != 0) {
            end += left / TIMER_WHEEL_PACE < ticks ? TIMER_WHEEL_PACE : TIMER_WHEEL_C;
            left = (left + ticks / passed) / (ticks / passed + 1);     /* the share */
        }
        timer_wheel_do_(w, l, w->spent + left < end ? w->spent + left : end);
    }
    for (owed = passed != 0 ? w->owed : 0; owed != 0; owed &= owed - 1)
        timer_wheel_do_(w, tbitmap_lowest(owed), TIMER_WHEEL_PACE);
    return w->spent != start;
}

/* After the clock moved from c0 (in a pop): every level whose window may
 * have opened (its group, or the digit one level down, changed) owes its
 * pending slot's items if it holds any; one item alone goes down at once
 * (coarsest first: it may land in the pending slot below), so that a
 * pending slot that holds items while its window is open is always owed,
 * and insert's fast path, which appends to any slot that holds items,
 * needs no test for it. */
TIMER_INLINE_ void timer_wheel_sync_(struct timer_wheel *w, int64_t c0)
{
    uint64_t moved = (uint64_t)c0 ^ (uint64_t)w->now;
    unsigned l = moved == 0 ? 0 : tbitmap_highest(moved) / TIMER_WHEEL_BITS + 1;
    for (l = l < TIMER_WHEEL_LEVELS ? l : TIMER_WHEEL_LEVELS - 1; l != 0; l--) {
        size_t p = timer_wheel_pending_(w, l);
        if (!timer_wheel_open_(w, l) || !tbitmap_test(w->occupied, p))
            continue;
        if (timer_wheel_single_(w, p))
            timer_wheel_step_(w, l, 1);
        else
            w->owed |= 1u << l;
    }
}

/* ---- finding the earliest slot --------------------------------------------- */

/* The pending slots whose range is level l's second half: level l + 1's,
 * and more levels' while the clock is in the last group at each. Their
 * items may be earlier than the second half's, and arrived earlier, so they
 * go down first: the coarsest that holds items, or NSLOTS. */
TIMER_INLINE_ size_t timer_wheel_range_(const struct timer_wheel *w, unsigned l)
{
    unsigned top = l + 1, m;
    size_t q;
    while (top + 1 < TIMER_WHEEL_LEVELS && timer_wheel_digit_(w, top) == 63)
        top++;
    for (m = top; m > l; m--)
        if (tbitmap_test(w->occupied, q = timer_wheel_pending_(w, m)))
            return q;
    return TIMER_WHEEL_NSLOTS;
}

/* The earliest occupied slot after the clock, or NSLOTS; *pend: it is a
 * pending slot that its range's second half waits for (it must be
 * finished first). Level by level: the rest of the clock's group first
 * (earlier than anything coarser), then the next group's range when the
 * other half holds items (else the pending slots above are found as slots
 * of their own level). */
TIMER_INLINE_ size_t timer_wheel_scan_(const struct timer_wheel *w, bool *pend)
{
    unsigned l;
    *pend = false;
    for (l = 0; l < TIMER_WHEEL_LEVELS; l++) {
        uint64_t g = timer_wheel_group_(w, l), up = g >> 6, bits;
        size_t word = 2 * l + (up & 1), i;
        if ((bits = w->occupied[word] & (~UINT64_C(1) << (g & 63))) != 0)
            return 64 * word + tbitmap_lowest(bits);
        if (l + 1 == TIMER_WHEEL_LEVELS || w->occupied[word ^ 1] == 0)
            continue;                       /* the pending slots above are found there */
        if ((i = timer_wheel_range_(w, l)) < TIMER_WHEEL_NSLOTS) {
            *pend = true;
            return i;
        }
        return 64 * (word ^ 1) + tbitmap_lowest(w->occupied[word ^ 1]);
    }
    return TIMER_WHEEL_NSLOTS;
}

/* Slot i's earliest expiry when it is known without reading its items all
 * (a level-0 slot is one tick; a slot of one item), else -1. */
TIMER_INLINE_ int64_t timer_wheel_exact_(const struct timer_wheel *w, size_t i)
{
    return i < 128 || i >= TIMER_WHEEL_WINDOW ? timer_wheel_slot_start_(w->now, i)
           : timer_wheel_single_(w, i)        ? timer_wheel_front_(w, i)
                                              : -1;
}

/* The first item of slot i when it holds at most FEW (the least expiry,
 * the first of its ties), else NULL: a walk of at most FEW + 1 links. */
TIMER_INLINE_ struct timer_wheel_node *timer_wheel_search_(struct timer_wheel *w, size_t i)
{
    struct tlist *pos = w->slot[i].next, *best = pos;
    size_t k = 0;
    for (; pos != &w->slot[i] && k <= TIMER_WHEEL_FEW; pos = pos->next, k++)
        if (timer_wheel_node_of_(pos)->expire < timer_wheel_node_of_(best)->expire)
            best = pos;
    timer_wheel_walked_(w, k);
    return pos == &w->slot[i] ? timer_wheel_node_of_(best) : NULL;
}

/* Finish level l's pending slot (all of it, now). */
TIMER_INLINE_ void timer_wheel_finish_(struct timer_wheel *w, unsigned l)
{
    while (timer_wheel_owes_(w, l))
        timer_wheel_step_(w, l, SIZE_MAX);
}

/* ---- pop ----------------------------------------------------------------------- */

/* Slot i, which starts at `start`, is the earliest and must be opened: it
 * becomes its level's pending slot (the clock moves to just before it, over
 * nothing, unless it is pending already) and is finished there and then.
 * What was left of it is the one work beyond a call's allowance (see the
 * top). */
TIMER_INLINE_ void timer_wheel_enter_(struct timer_wheel *w, size_t i, int64_t start)
{
    unsigned l = (unsigned)(i >> 7);
    if (i != timer_wheel_pending_(w, l))
        w->now = start - 1;
    timer_wheel_finish_(w, l);
}

/* pop's walk from the clock to upto (not behind it): slots and runs in time
 * order, a run's items first among equal expiries; a coarse slot that
 * starts by upto is opened. The clock follows each slot taken whole (all
 * is handed out up to it), then moves to upto; each level whose group
 * changed has a new pending slot, owed if it holds items. */
TIMER_NOINLINE_ size_t timer_wheel_walk_(struct timer_wheel *w, int64_t upto, struct tlist *out)
{
    size_t k = 0, i;
    int64_t c0 = w->now;
    bool pend;
    while ((i = timer_wheel_scan_(w, &pend)) < TIMER_WHEEL_NSLOTS) {
        int64_t x = pend ? -1 : timer_wheel_exact_(w, i), start;
        if (x >= 0 && x <= upto) {          /* one tick, or one item: taken where it is */
            for (;;) {
                uint64_t bits;
                if (w->runs_low <= x)
                    k += timer_wheel_take_runs_(w, x, out);
                k += timer_wheel_take_front_(w, i, x, out);
                w->now = x;
                /* Then the rest of the slot's word straight, as long as
                 * nothing finer can come first: at level 0 nothing is finer;
                 * above, the slots of the clock's group one level down are
                 * empty (slot i was that group, and is), and so must be the
                 * half one level down that the next slot is refined into. */
                if (i >= 128 && w->occupied[2 * (i >> 7) - 2 +
                                            ((timer_wheel_group_(w, i >> 7) + 1) & 1)] != 0)
                    break;
                if ((bits = w->occupied[i >> 6] & (~UINT64_C(1) << (i & 63))) == 0)
                    break;
                i = (i & ~(size_t)63) + tbitmap_lowest(bits);
                if ((x = timer_wheel_exact_(w, i)) < 0 || x > upto)
                    break;
            }
            continue;
        }
        start = timer_wheel_slot_start_(w->now, i);
        if (w->runs_low <= (start < upto ? start : upto))
            k += timer_wheel_take_runs_(w, start < upto ? start : upto, out);
        if (start > upto)
            break;
        timer_wheel_enter_(w, i, start);
    }
    if (w->runs_low <= upto)
        k += timer_wheel_take_runs_(w, upto, out);
    w->now = upto;
    timer_wheel_sync_(w, c0);
    return k;
}

/* When does the window of the first occupied slot of level l open, from
 * its pending slot on (after it, once its own window is open: it is owed
 * then)? UINT64_MAX: none. Those slots lie in the rest of the clock's group
 * one level up, then in the group after it. */
TIMER_INLINE_ uint64_t timer_wheel_next_window_(const struct timer_wheel *w, unsigned l)
{
    uint64_t from = timer_wheel_group_(w, l) + 1 + timer_wheel_open_(w, l), bits, g;
    size_t word = 2 * l + ((from >> 6) & 1);
    if ((from >> 6) > (timer_wheel_group_(w, l) >> 6) + 1)
        return UINT64_MAX;                  /* beyond both halves */
    if ((bits = w->occupied[word] & (~UINT64_C(0) << (from & 63))) != 0)
        g = (from & ~UINT64_C(63)) + tbitmap_lowest(bits);
    else if ((from >> 6) == (timer_wheel_group_(w, l) >> 6) && l + 1 < TIMER_WHEEL_LEVELS &&
             (bits = w->occupied[word ^ 1]) != 0)
        g = (from | 63) + 1 + tbitmap_lowest(bits);
    else
        return UINT64_MAX;
    return timer_wheel_opens_(128 * l, (int64_t)(g << (TIMER_WHEEL_BITS * l)));
}

/* wake and first, after a slow call: wake is the clock while work is owed
 * or items wait at or behind it; else the earliest of the first slot's
 * start (TOP while the clock is back from TIMER_NEVER's window) and the
 * times the windows of occupied slots open. Level l's windows open no
 * earlier than its pending slot's, which is no earlier than level l - 1's:
 * the search stops there. */
TIMER_NOINLINE_ void timer_wheel_wake_(struct timer_wheel *w)
{
    uint64_t wake = UINT64_MAX, t;
    unsigned l;
    bool pend;
    size_t i = timer_wheel_scan_(w, &pend);
    w->first = i < TIMER_WHEEL_NSLOTS ? (uint64_t)timer_wheel_slot_start_(w->now, i) : UINT64_MAX;
    if (w->owed != 0 || timer_wheel_behind_(w)) {
        w->wake = (uint64_t)w->now;
        return;
    }
    wake = w->first;
    if ((w->state & TIMER_WHEEL_BACK_) != 0)
        wake = wake < TIMER_WHEEL_TOP ? wake : TIMER_WHEEL_TOP;
    for (l = 1; l < TIMER_WHEEL_LEVELS; l++) {
        if (timer_wheel_opens_(128 * l, (int64_t)((timer_wheel_group_(w, l) + 1)
                                                  << (TIMER_WHEEL_BITS * l))) >= wake)
            break;
        t = timer_wheel_next_window_(w, l);
        wake = t < wake ? t : wake;
    }
    w->wake = wake;
}

/* The end of every slow query: the work owed, paced by the `passed`
 * ticks the clock moved (work_); wake and first anew when anything moved;
 * and the changes count anew. */
TIMER_INLINE_ void timer_wheel_done_(struct timer_wheel *w, size_t items, size_t changes,
                                     bool moved, uint64_t passed)
{
    if (w->owed != 0 && (w->state & TIMER_WHEEL_VISITING_) == 0)
        moved |= timer_wheel_work_(w, 8 * items + 8 * changes, passed);
    if (moved)
        timer_wheel_wake_(w);
    w->base = w->changes - w->count;
}

/* Back from TIMER_NEVER's window: the items waiting in its window slots go
 * to the level-0 slots of their group, which is pending at the clock TOP - 1. */
TIMER_INLINE_ void timer_wheel_forward_(struct timer_wheel *w)
{
    uint64_t bits = w->occupied[TIMER_WHEEL_WINDOW / 64];
    size_t d, to = 64 * (((uint64_t)TIMER_WHEEL_TOP >> TIMER_WHEEL_BITS) & 1);
    for (; bits != 0; bits &= bits - 1) {
        d = tbitmap_lowest(bits);
        timer_wheel_move_list_(w, to + d, TIMER_WHEEL_WINDOW + d);
    }
    w->state &= ~TIMER_WHEEL_BACK_;
}

/* pop's check that it hands out no more items than the wheel holds */
#define TIMER_WHEEL_COUNTED_(w, k)                                                         \
    assert((k) <= (w)->count &&                                                             \
           "timer_wheel_pop: more items than the count (an item was removed through another " \
           "wheel)")

/* pop when the fast path does not apply. now behind the clock: only items
 * at or behind it can be due; after a drain at TIMER_NEVER's window, an
 * empty wheel's clock goes back to now (later inserts are not all behind
 * it; the clock of min_time's promise stays there: BACK_). Otherwise
 * everything behind the clock goes first, then the walk. */
TIMER_NOINLINE_ size_t timer_wheel_pop_slow_(struct timer_wheel *w, int64_t now, struct tlist *out)
{
    size_t k = 0, changes = timer_wheel_changes_(w);
    int64_t c0 = w->now;
    w->spent = 0;
    if (now < w->now) {
        k = timer_wheel_behind_(w) ? timer_wheel_take_behind_(w, now, out) : 0;
        if (k == w->count && w->now >= TIMER_WHEEL_TOP && now < TIMER_WHEEL_TOP) {
            w->now = now < 0 ? 0 : now;
            w->state |= TIMER_WHEEL_BACK_;
            w->owed = 0;
        }
    } else {
        if (timer_wheel_behind_(w))
            k = timer_wheel_take_behind_(w, w->now, out);
        if ((w->state & TIMER_WHEEL_BACK_) != 0 && now >= TIMER_WHEEL_TOP) {
            k += timer_wheel_walk_(w, TIMER_WHEEL_TOP - 1, out);
            timer_wheel_forward_(w);
        }
        k += timer_wheel_walk_(w, now, out);
    }
    TIMER_WHEEL_COUNTED_(w, k);
    w->count -= k;
    timer_wheel_done_(w, k, changes, true, (uint64_t)w->now - (uint64_t)c0);
    return k;
}

/* The common pop, inline: at or after the clock and before wake no slot
 * starts, no window opens, nothing waits behind the clock and no work is
 * owed, so only run items can be due (none before runs_low), and every
 * slot keeps its place with the clock at now. */
TIMER_INLINE_ size_t timer_wheel_pop(struct timer_wheel *w, int64_t now, struct tlist *out)
{
    size_t k = 0;
    if ((uint64_t)now >= w->wake || now < w->now)
        return timer_wheel_pop_slow_(w, now, out);
    w->now = now;
    if (now >= w->runs_low) {
        k = timer_wheel_take_runs_(w, now, out);
        TIMER_WHEEL_COUNTED_(w, k);
        w->count -= k;
    }
    w->base = w->changes - w->count;
    return k;
}

/* ---- next_expiry, first -------------------------------------------------------- */

/* The item pop would hand out first, with its expiry in *t; NULL (and
 * TIMER_NEVER) when empty. The first item behind the clock, else the
 * earliest slot after it, read exactly: a level-0 slot is one tick, a slot of one item
 * its item; a pending slot is finished first; a slot of at most FEW items
 * searched; a bigger one put in order into its level's run. A run item
 * goes first when no later (it arrived first). The clock never moves: an
 * insert after a query costs what it would have without it. */
TIMER_NOINLINE_ struct timer_wheel_node *timer_wheel_locate_(struct timer_wheel *w, int64_t *t)
{
    size_t changes = timer_wheel_changes_(w), i, r;
    struct timer_wheel_node *n;
    int64_t x;
    bool moved = false;
    w->spent = 0;
    for (;;) {
        bool pend = false;
        x = TIMER_NEVER;
        n = NULL;
        if (timer_wheel_behind_(w)) {
            n = timer_wheel_node_of_(w->slot[timer_wheel_behind_first_(w)].next);
            x = n->expire;
            break;
        }
        r = timer_wheel_runs_(w) != 0 ? timer_wheel_best_run_(w) : TIMER_WHEEL_NSLOTS;
        if (r < TIMER_WHEEL_NSLOTS && (uint64_t)timer_wheel_front_(w, r) <= w->first)
            i = TIMER_WHEEL_NSLOTS;         /* no slot item is earlier: no need to look */
        else
            i = timer_wheel_scan_(w, &pend);
        if (i < TIMER_WHEEL_NSLOTS && r < TIMER_WHEEL_NSLOTS &&
            timer_wheel_front_(w, r) <= timer_wheel_slot_start_(w->now, i))
            i = TIMER_WHEEL_NSLOTS;         /* a run item goes first */
        if (i < TIMER_WHEEL_NSLOTS) {
            if ((x = pend ? -1 : timer_wheel_exact_(w, i)) >= 0) {
                n = timer_wheel_node_of_(w->slot[i].next);
            } else if (pend || (i >= 128 && i == timer_wheel_pending_(w, (unsigned)(i >> 7)))) {
                timer_wheel_finish_(w, (unsigned)(i >> 7));
                moved = true;
                continue;
            } else if ((n = timer_wheel_search_(w, i)) != NULL) {
                x = n->expire;
            } else {
                timer_wheel_to_run_(w, i);
                moved = true;
                continue;
            }
        }
        if (r < TIMER_WHEEL_NSLOTS && timer_wheel_front_(w, r) <= x) {
            x = timer_wheel_front_(w, r);
            n = timer_wheel_node_of_(w->slot[r].next);
        }
        break;
    }
    if (n == NULL && w->occupied[TIMER_WHEEL_WINDOW / 64] != 0) {
        i = TIMER_WHEEL_WINDOW + tbitmap_lowest(w->occupied[TIMER_WHEEL_WINDOW / 64]);
        n = timer_wheel_node_of_(w->slot[i].next);
        x = n->expire;
    }
    *t = x;
    timer_wheel_done_(w, 0, changes, moved, 0);
    return n;
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
 * called by fn finds it in place and does no work: nothing moves under the
 * walk. */
TIMER_INLINE_ int timer_wheel_visit(const struct timer_wheel *cw,
                                    int (*fn)(struct timer_wheel_node *, void *), void *arg)
{
    size_t i = 0;
    struct tlist *pos, *next;
    int r = 0;
    struct timer_wheel *w = (struct timer_wheel *)(uintptr_t)cw;
    (void)timer_wheel_next_expiry(cw);
    w->state |= TIMER_WHEEL_VISITING_;
    for (; r == 0 && (i = tbitmap_find_first(cw->occupied, i, TIMER_WHEEL_NSLOTS)) <
                         TIMER_WHEEL_NSLOTS; i++)
        for (pos = cw->slot[i].next; pos != &cw->slot[i] && r == 0; pos = next) {
            next = pos->next;
            r = fn(timer_wheel_node_of_(pos), arg);
        }
    w->state &= ~TIMER_WHEEL_VISITING_;
    return r;
}

/* A lower bound of the earliest expiry, O(1): the first item behind the
 * clock, or in a run when it is known exactly, else the earliest slot's
 * start (exact for a level-0 slot or a slot of one item); inside the clock's
 * finest 64-tick window it is exact. Back from TIMER_NEVER's window, its
 * window slots hold the latest items: exact too. */
TIMER_INLINE_ int64_t timer_wheel_min_time(const struct timer_wheel *w)
{
    int64_t t = TIMER_NEVER, run = TIMER_NEVER;
    uint64_t runs = timer_wheel_runs_(w);
    bool pend = false;
    size_t i;
    if (timer_wheel_behind_(w))
        return timer_wheel_front_(w, timer_wheel_behind_first_(w));
    for (; runs != 0; runs &= runs - 1)
        if ((t = timer_wheel_front_(w, TIMER_WHEEL_RUNS + 1 + tbitmap_lowest(runs))) < run)
            run = t;
    if (run != TIMER_NEVER && (uint64_t)run <= w->first)
        return run;                         /* no slot item is earlier */
    i = timer_wheel_scan_(w, &pend);
    t = TIMER_NEVER;
    if (i < TIMER_WHEEL_NSLOTS && (pend || (t = timer_wheel_exact_(w, i)) < 0))
        t = timer_wheel_slot_start_(w->now, i);
    t = run < t ? run : t;
    if (t == TIMER_NEVER && w->occupied[TIMER_WHEEL_WINDOW / 64] != 0)
        t = TIMER_WHEEL_TOP + (int64_t)tbitmap_lowest(w->occupied[TIMER_WHEEL_WINDOW / 64]);
    return t;
}

/* ---- the rest ---------------------------------------------------------------- */

/* The wheel never allocates: room for any number of items is always there. */
TIMER_INLINE_ int timer_wheel_reserve(struct timer_wheel *w, size_t n)
{
    return ((void)w, (void)n, 0);
}

/* Every item idle, the lists empty; the clock, and where min_time's promise
 * holds (BACK_), stay. */
TIMER_INLINE_ void timer_wheel_clear(struct timer_wheel *w)
{
    size_t i = 0;
    unsigned back = w->state & TIMER_WHEEL_BACK_;
    struct tlist *pos, *next;
    for (; (i = tbitmap_find_first(w->occupied, i, TIMER_WHEEL_NSLOTS)) < TIMER_WHEEL_NSLOTS; i++)
        for (pos = w->slot[i].next; pos != &w->slot[i]; pos = next) {
            next = pos->next;
            timer_wheel_make_idle_(timer_wheel_node_of_(pos));
        }
    timer_wheel_init(w, w->now);
    w->state = back;
    if (back != 0)
        w->wake = TIMER_WHEEL_TOP;          /* the window slots wait there */
}

/* The wheel owns no memory: destroy is clear. */
TIMER_INLINE_ void timer_wheel_destroy(struct timer_wheel *w)
{
    timer_wheel_clear(w);
}

/* What is wrong with n, the item after one of expiry `last` in list i
 * (NULL: nothing). Behind the clock, each list is in order, at or before the
 * clock (the due run: up to high); a run, in order from runs_low on; a slot
 * item, after the clock where insert files it, or, in the other half of a
 * level, refined from the pending slot one level up, in the group after
 * the clock's one level up; in TIMER_NEVER's window slots only while
 * BACK_, each in its tick. */
TIMER_INLINE_ const char *timer_wheel_misplaced_(const struct timer_wheel *w, size_t i,
                                                 const struct timer_wheel_node *n, int64_t last)
{
    unsigned l = (unsigned)(i >> 7), s;
    uint64_t e = (uint64_t)n->expire, g;
    if (i > TIMER_WHEEL_RUNS && n->expire < last)
        return "a run, or a list behind the clock, is out of order";
    if (i >= TIMER_WHEEL_DUE)
        return n->expire > w->now || (i == TIMER_WHEEL_DUE && n->expire > w->high)
                   ? "an item behind the clock is after it (the due run: after high)" : NULL;
    if (n->expire <= w->now || (i > TIMER_WHEEL_RUNS && n->expire < w->runs_low))
        return "an item at or before the clock (or runs_low) is in a slot (a run)";
    if (i >= TIMER_WHEEL_WINDOW && i <= TIMER_WHEEL_RUNS)
        return (w->state & TIMER_WHEEL_BACK_) == 0 || (e & 63) != (i & 63) ||
                       n->expire < TIMER_WHEEL_TOP
                   ? "an item in TIMER_NEVER's window slots is outside that window" : NULL;
    if (i > TIMER_WHEEL_RUNS || timer_wheel_where_(w->now, n->expire, &g, &s) == i ||
        (l + 1 < TIMER_WHEEL_LEVELS && (e >> (TIMER_WHEEL_BITS * l) & 127) == (i & 127) &&
         e >> (TIMER_WHEEL_BITS * (l + 1)) == timer_wheel_group_(w, l + 1) + 1))
        return NULL;
    return "an item is not in the slot its expiry maps to";
}

/* The latest wake that list i allows: behind the clock, the clock; a slot,
 * its start (level 0), else the time its window opens (not before the
 * clock); a run, any. */
TIMER_INLINE_ uint64_t timer_wheel_due_by_(const struct timer_wheel *w, size_t i)
{
    uint64_t opens;
    if (i > TIMER_WHEEL_RUNS)           /* a run, or behind the clock */
        return i >= TIMER_WHEEL_DUE ? (uint64_t)w->now : UINT64_MAX;
    if (i >= TIMER_WHEEL_WINDOW)
        return TIMER_WHEEL_TOP;
    opens = timer_wheel_opens_(i, timer_wheel_slot_start_(w->now, i));
    return opens > (uint64_t)w->now ? opens : (uint64_t)w->now;
}

/* O(n + lists). NULL when every item lies where it must (misplaced_), the
 * bitmap matches the lists, the count the items, every pending slot that
 * holds items while its window is open is owed, and wake and first are no
 * later than what the next pop must see; else what is wrong. */
TIMER_INLINE_ const char *timer_wheel_check(const struct timer_wheel *w)
{
    size_t i, seen = 0;
    unsigned l;
    const struct tlist *pos;
    const char *why;
    for (l = 1; l < TIMER_WHEEL_LEVELS; l++)
        if ((timer_wheel_open_(w, l) && timer_wheel_owes_(w, l) && !(w->owed >> l & 1)) ||
            (w->owed != 0 && w->wake > (uint64_t)w->now))
            return "work owed is not marked, or the next pop may take the fast path";
    for (i = 0; (i = tbitmap_find_first(w->occupied, i, TIMER_WHEEL_NSLOTS)) < TIMER_WHEEL_NSLOTS;
         i++) {
        int64_t last = -1;
        if (w->slot[i].next == &w->slot[i])
            return "the bitmap marks an empty list";
        if (w->wake > timer_wheel_due_by_(w, i) ||
            (i < TIMER_WHEEL_WINDOW && w->first > (uint64_t)timer_wheel_slot_start_(w->now, i)))
            return "wake or first is later than what the next pop must see";
        for (pos = w->slot[i].next; pos != &w->slot[i]; pos = pos->next) {
            const struct timer_wheel_node *n = timer_wheel_node_of_((struct tlist *)(uintptr_t)pos);
            if (++seen > w->count || pos->next == NULL || pos->next->prev != pos ||
                pos->prev->next != pos || n->expire < 0)
                return "a broken list, a due item in one, or more items than the count";
            if ((why = timer_wheel_misplaced_(w, i, n, last)) != NULL)
                return why;
            last = n->expire;
        }
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
