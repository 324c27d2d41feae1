/* SPDX-License-Identifier: MIT */
/* timer_heap.h - indexed 8-ary min-heap of timers: O(log n) insert and remove
 * by handle, O(1) min_time, pops in expiry order.
 *
 *     #include "timer_heap.h"
 *     typedef struct req { int id; struct timer_heap_node th; } req;
 *     TIMER_HEAP_DEFINE(req, th)             // req_heap and req_heap_*()
 *
 *     req_heap h;
 *     struct tlist due = {0};                      // zeroed: an empty list
 *     req_heap_init(&h, now);                      // allocates nothing yet
 *     if (req_heap_reserve(&h, 10000) != 0) ...    // optional: inserts up to 10000 cannot fail
 *     if (req_heap_insert(&h, now + 30, &some_req) == -ENOMEM) ...
 *     struct tlist *link;
 *     req_heap_pop(&h, now, &due);                 // expired, in expiry order, FIFO on ties
 *     tlist_drain(link, &due)                      // each off the list first: may re-arm
 *         fail_request(req_heap_entry(link));
 *     req_heap_destroy(&h);                        // frees the array
 *
 * Generated API (NAME = TYPE_heap, or the name given to TIMER_HEAP_DEFINE_NAMED):
 *   void    NAME_init(NAME *c, int64_t now);     empty, clock = now (< 0 taken as 0)
 *   void    NAME_clear(NAME *c);                 pending items become idle; keeps the array
 *   void    NAME_destroy(NAME *c);               clear and free the array; may init again
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
 *   size_t  NAME_pop(NAME *c, int64_t now, struct tlist *out);  append due items, in order
 *   int64_t NAME_next_expiry(const NAME *c);     exact earliest expiry, TIMER_NEVER if empty
 *   int64_t NAME_min_time(const NAME *c);        the same (the heap's min is always exact)
 *   TYPE   *NAME_first(const NAME *c);           the item pop hands out first; NULL if empty
 *   size_t  NAME_visit(const NAME *c, void (*fn)(TYPE *, void *), void *arg);
 *                                                fn(item, arg) for each pending item, in
 *                                                array order; fn must not change c
 *                                                (it may call next_expiry, first)
 *   int     NAME_visit_until(const NAME *c, int (*fn)(TYPE *, void *), void *arg);
 *                                                the same walk until fn returns non-zero:
 *                                                that value, or 0 after every item
 *   int     NAME_reserve(NAME *c, size_t n);     room for n pending items: 0 or -ENOMEM
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
 * < 0), -EBUSY (insert of a pending or due item), -ENOMEM (the array could
 * not grow: insert, or reschedule of an idle or due item). Reschedule of a
 * pending item never allocates, so it never fails with -ENOMEM; after
 * reserve(n), inserts cannot fail while at most n items are pending.
 * What a caller may drop with (void): for an item pending in this heap and
 * times >= 0 (latest >= earliest), reschedule, reschedule_range and
 * reschedule_near return 0; after reserve(n) returned 0, and while at most
 * n items are pending, so do insert of an idle item and reschedule of any
 * (docs/guarantees.md).
 *
 * Types without functions: TIMER_HEAP_DEFINE(_NAMED) is
 * TIMER_HEAP_DEFINE_TYPE(name) followed by TIMER_HEAP_DEFINE_FUNCTIONS(name,
 * type, member). A public header includes timer_heap_types.h, which
 * declares only the node and DEFINE_TYPE (with struct tlist and the
 * version) and leaves TIMER_TYPES_ONLY alone; with TIMER_TYPES_ONLY
 * defined, this header declares the same (see list.h).
 *
 * Functions compiled once, for programs of many files: TIMER_HEAP_DECLARE(name,
 * type, member) (DEFINE_TYPE and the prototypes; DECLARE_FUNCTIONS: the
 * prototypes alone) in the header every file includes, and
 * TIMER_HEAP_IMPLEMENT(name, type, member) in one .c file after it: the same
 * functions, external (docs/big-programs.md). The results of insert, the
 * reschedules, reserve and check are TIMER_NODISCARD (list.h): a (void)
 * cast silences it.
 *
 * Options (define before including):
 *   TIMER_HEAP_REALLOC(ptr, bytes)   default realloc  } both or neither
 *   TIMER_HEAP_FREE(ptr)             default free     }
 *   TIMER_HEAP_ARITY                 children per node, default 8 (any >= 2)
 *
 * Layout. The array holds (expire, node) pairs, so sifting compares keys
 * without touching the nodes (libev and Go cache the key for the same
 * reason); each node stores its array position for remove by handle. Eight
 * children per node cut the depth of a binary heap to a third; their keys
 * are adjacent (128 bytes, two or three cache lines). Fewer levels matter most because every
 * level an entry moves writes its node's new position into the caller's
 * item, a likely cache miss. (Measured at 1M timers, ordered-insert protocol: remove
 * 50 ns with 8 children, 68 with 4, 108 with 2.) The array doubles when full and halves when a
 * quarter full, never below what reserve asked for (a failed shrink is
 * harmless and ignored); reserve grows it at least twofold too, so calling
 * reserve(size + 1) before every insert is as cheap as not calling it.
 *
 * Order. A heap keyed on expiry alone pops equal keys in no particular
 * order, so each node also carries an arrival number, stored over the part
 * of its link that a pending node does not use (on 64-bit targets the node
 * stays 24 bytes), and the heap is ordered by (expiry, arrival). Sifting
 * compares expiries and reads arrival numbers only where two are equal
 * (a new arrival, the latest, never needs to). So the root is always the
 * item pop hands out first, which is what first() returns, and pop appends
 * in non-decreasing expiry and FIFO among equal expiries (insert or
 * reschedule order): the one pop order of every container here.
 *
 * Guarantees: pop appends exactly the items with expire <= now, in that
 * order. insert, remove, reschedule O(log n); pop O(log n) per item;
 * min_time, next_expiry and first O(1); visit O(n).
 * Memory: 16 bytes per array entry on 64-bit targets; after a pop or remove
 * at most max(64, 4n) entries, or twice what reserve asked for (clear keeps
 * the array; destroy frees it).
 *
 * Misuse: an item freed while pending is not detected (remove it first);
 * remove() or reschedule() with a heap other than the one holding the item
 * aborts in builds with asserts (O(1): the item's stored index), before
 * anything changes; TIMER_DEBUG reports it too; with NDEBUG the same
 * check returns false / -EINVAL and changes nothing. Insert of a linked
 * item that is not pending here aborts in builds with asserts, naming what
 * it is: due (popped, still in a result list: use reschedule, or
 * tlist_drain), or linked by something other than this heap (another heap;
 * a list that reused the node; a result list inited again while it held
 * the item: stale); NDEBUG: -EBUSY, nothing changed. A DEFINE whose member
 * is not a struct timer_heap_node, or TIMER_HEAP_DEFINE with `struct X` or
 * a type named `timer` (timer_heap is this header's), fails to compile;
 * the first error names the fix.
 */

#include "list.h"   /* first: it stops a header of another version */

/* ---- the types: also for a public header (TIMER_TYPES_ONLY, timer_heap_types.h) */
#ifndef TIMER_HEAP_H_TYPES
#define TIMER_HEAP_H_TYPES

/* The states (compare timer_set.h and timer_wheel.h):
 *   idle     link.next == NULL (a zeroed node; what tlist_pop_front leaves)
 *   pending  u.heap overlays the link: pos = array index + 1 (never 0) where
 *            link.next was, seq = arrival number after it (where link.prev
 *            was on 64-bit targets); expire >= 0
 *   due      link in a caller's result list; expire holds ~expiry (< 0)
 * (The state test reads the overlaid pointer: union type punning, defined
 * in C and by gcc and clang in C++ too, with size_t and pointers of one
 * size and NULL all zero bits, as on every target the tests run on.) */
struct timer_heap_node {
    union {
        struct tlist link;
        struct {
            size_t pos;
            uint64_t seq;
        } heap;
    } u;
    int64_t expire;
};

/* The container type alone: typedef struct name name, holding the layout
 * of struct timer_heap (below, with the functions) without its name (the
 * array pointer as a node pointer: every struct pointer has one
 * representation). */
#define TIMER_HEAP_DEFINE_TYPE(name) \
    typedef struct name { struct { struct timer_heap_node *a; size_t count, cap, reserved; uint64_t seq; int64_t now; } heap; } name;

#endif /* TIMER_HEAP_H_TYPES */

/* ---- the functions ---------------------------------------------------------- */
#if !defined(TIMER_TYPES_ONLY) && !defined(TIMER_TYPES_PASS_) && !defined(TIMER_HEAP_H_FUNCTIONS)
#define TIMER_HEAP_H_FUNCTIONS

#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdbool.h>

struct timer_heap_entry {
    int64_t expire;
    struct timer_heap_node *node;
};

struct TIMER_MAY_ALIAS_ timer_heap {
    struct timer_heap_entry *a;
    size_t count, cap;
    size_t reserved;        /* reserve()'s floor for the capacity */
    uint64_t seq;           /* arrivals so far: the next one gets seq + 1 */
    int64_t now;
};
TIMER_HEAP_DEFINE_TYPE(timer_heap_layout_)
TIMER_STATIC_CHECK_(timer_heap_layout_check_, sizeof(timer_heap_layout_) == sizeof(struct timer_heap) &&
                    offsetof(timer_heap_layout_, heap.reserved) == offsetof(struct timer_heap, reserved) &&
                    offsetof(timer_heap_layout_, heap.now) == offsetof(struct timer_heap, now))

TIMER_FUNCTIONS_BEGIN_

#if defined(TIMER_HEAP_REALLOC) != defined(TIMER_HEAP_FREE)
#error "timer_heap.h: define both TIMER_HEAP_REALLOC and TIMER_HEAP_FREE, or neither"
#endif
#ifndef TIMER_HEAP_REALLOC
#include <stdlib.h>
#define TIMER_HEAP_REALLOC(ptr, bytes) realloc(ptr, bytes)
#define TIMER_HEAP_FREE(ptr) free(ptr)
#endif

/* Children per node; may be defined (2 or more) before including. */
#ifndef TIMER_HEAP_ARITY
#define TIMER_HEAP_ARITY 8
#endif
#if TIMER_HEAP_ARITY < 2
#error "timer_heap.h: TIMER_HEAP_ARITY must be at least 2"
#endif
#define TIMER_HEAP_MIN_CAP 64
/* The block's loop has a constant trip count: unrolled, it loses its loop
 * control (gcc and clang both read this pragma). */
#if defined(__GNUC__) || defined(__clang__)
#define TIMER_HEAP_UNROLL_ _Pragma("GCC unroll 16")
#else
#define TIMER_HEAP_UNROLL_
#endif

#define timer_heap_node_of_(l) tlist_entry(l, struct timer_heap_node, u.link)

/* Test instrumentation, default nothing: ON_STEP_ runs once for every level
 * of every sift, up or down (each compares a constant number of entries),
 * so the tests can count that insert, remove and pop per item stay
 * O(log n) (test/adversarial.c). Not counted: visit and clear (O(n) by
 * contract, O(1) per item) and the array's reallocations (amortised O(1)). */
#ifndef TIMER_HEAP_ON_STEP_
#define TIMER_HEAP_ON_STEP_() ((void)0)
#endif

TIMER_INLINE_ bool timer_heap_node_pending(const struct timer_heap_node *n)
{
    return n != NULL && n->u.link.next != NULL && n->expire >= 0;
}

TIMER_INLINE_ bool timer_heap_node_due(const struct timer_heap_node *n)
{
    return n != NULL && n->u.link.next != NULL && n->expire < 0;
}

TIMER_INLINE_ int64_t timer_heap_node_expire(const struct timer_heap_node *n)
{
    if (n == NULL)
        return TIMER_NEVER;
    return n->expire < 0 ? ~n->expire : n->expire;
}

/* The two state changes, each in one place (the node is out of the array). */
TIMER_INLINE_ void timer_heap_make_idle_(struct timer_heap_node *n)
{
    n->u.link.next = NULL;
    n->u.link.prev = NULL;
}

/* out is inited (tlist_ready_) */
TIMER_INLINE_ void timer_heap_make_due_(struct timer_heap_node *n, struct tlist *out)
{
    n->expire = ~n->expire;
    n->u.link.next = NULL;
    tlist_push_back_(out, &n->u.link);
}

TIMER_INLINE_ void timer_heap_init(struct timer_heap *h, int64_t now)
{
    h->a = NULL;
    h->count = 0;
    h->cap = 0;
    h->reserved = 0;
    h->seq = 0;
    h->now = now < 0 ? 0 : now;
}

/* Put entry e at index i of the array a and tell its node. (The sifts take
 * the array and the count as arguments, not through h: stores through a
 * node pointer could alias h, and would make the compiler reload both at
 * every level.) */
TIMER_INLINE_ void timer_heap_place_(struct timer_heap_entry *a, size_t i, struct timer_heap_entry e)
{
    a[i] = e;
    e.node->u.heap.pos = i + 1;
}

/* The heap's order: expiry, then arrival. The arrival number lives in the
 * node and is read only when two expiries are equal. With arrival in the
 * order, the root is always the item pop hands out first (first() is the
 * root), and pop just takes roots: equal expiries come out in arrival
 * order with no sorting. */
TIMER_INLINE_ bool timer_heap_before_(struct timer_heap_entry x, struct timer_heap_entry y)
{
    return x.expire < y.expire || (x.expire == y.expire && x.node->u.heap.seq < y.node->u.heap.seq);
}

/* Move the hole at i up until e fits, then place e there. A new arrival
 * (insert, reschedule) is later than every entry of its expiry, so it
 * stops at an equal one without reading arrival numbers; an entry moved to
 * fill a hole compares them. */
TIMER_INLINE_ void timer_heap_sift_up_(struct timer_heap_entry *a, size_t i, struct timer_heap_entry e, bool arrival)
{
    while (i > 0) {
        size_t parent = (i - 1) / TIMER_HEAP_ARITY;
        TIMER_HEAP_ON_STEP_();
        if (arrival ? a[parent].expire <= e.expire : !timer_heap_before_(e, a[parent]))
            break;
        timer_heap_place_(a, i, a[parent]);
        i = parent;
    }
    timer_heap_place_(a, i, e);
}

/* The index of the first entry in heap order among first .. end-1 (first < end). */
TIMER_INLINE_ size_t timer_heap_min_child_(const struct timer_heap_entry *a, size_t first, size_t end)
{
    size_t c, best = first;
    for (c = first + 1; c < end; c++)
        if (timer_heap_before_(a[c], a[best]))
            best = c;
    return best;
}

/* The same over a full block of TIMER_HEAP_ARITY children, the common
 * case: two running minima (even and odd children) halve the chain of
 * dependent compares, and selects replace branches, which keys in no
 * particular order mispredict about twice a level. Expiries only: if the
 * least expiry is shared, some child equals its lane's running minimum
 * when it is compared, or the two lanes end equal, and the block is
 * searched again with arrivals (the tie branch is almost never taken
 * where expiries differ). Each lane keeps a pointer to its best child, not
 * an index: with indices, gcc 12 turned one select of the unrolled loop
 * into a branch, which random keys mispredict (make bench: random pops
 * 1.15x slower). */
TIMER_INLINE_ size_t timer_heap_min_of_block_(const struct timer_heap_entry *a, size_t first)
{
    const struct timer_heap_entry *c = a + first, *p0 = c, *p1 = c + 1;
    int64_t k0 = c[0].expire, k1 = c[1].expire;
    size_t j;
    TIMER_HEAP_UNROLL_
    for (j = 2; j + 1 < TIMER_HEAP_ARITY; j += 2) {
        int64_t e0 = c[j].expire, e1 = c[j + 1].expire;
        if (e0 == k0 || e1 == k1)
            return timer_heap_min_child_(a, first, first + TIMER_HEAP_ARITY);
        p0 = e0 < k0 ? c + j : p0;
        k0 = e0 < k0 ? e0 : k0;
        p1 = e1 < k1 ? c + j + 1 : p1;
        k1 = e1 < k1 ? e1 : k1;
    }
    if (TIMER_HEAP_ARITY % 2 != 0) {        /* the odd child out */
        if (c[j].expire == k0)
            return timer_heap_min_child_(a, first, first + TIMER_HEAP_ARITY);
        p0 = c[j].expire < k0 ? c + j : p0;
        k0 = c[j].expire < k0 ? c[j].expire : k0;
    }
    if (k0 == k1)
        return timer_heap_min_child_(a, first, first + TIMER_HEAP_ARITY);
    return (size_t)((k1 < k0 ? p1 : p0) - a);
}

/* The index of the smallest child in the block that starts at first (the
 * parent has at least one child). */
TIMER_INLINE_ size_t timer_heap_best_child_(const struct timer_heap_entry *a, size_t count, size_t first)
{
    return first + TIMER_HEAP_ARITY <= count ? timer_heap_min_of_block_(a, first) : timer_heap_min_child_(a, first, count);
}

/* Move the hole at i down until e, a new arrival, fits, then place e
 * there. For a reschedule: the rescheduled entry (a timeout pushed back a
 * little) usually belongs at or near where it was. As the latest arrival
 * it goes after every entry of its expiry. */
TIMER_INLINE_ void timer_heap_sift_down_(struct timer_heap_entry *a, size_t count, size_t i, struct timer_heap_entry e)
{
    size_t first;
    while ((first = i * TIMER_HEAP_ARITY + 1) < count) {
        size_t best = timer_heap_best_child_(a, count, first);
        TIMER_HEAP_ON_STEP_();
        if (e.expire < a[best].expire)
            break;
        timer_heap_place_(a, i, a[best]);
        i = best;
    }
    timer_heap_place_(a, i, e);
}

/* Fill the hole at i with e, the array's last entry, when e belongs at or
 * below i: Wegener's bottom-up sift. The last entry is usually late and
 * would sink to a leaf anyway: walk the hole down the path of smaller
 * children to a leaf without comparing e on the way, then sift e up from
 * there, which stops at once in the common case. One comparison a level
 * less than the top-down sift; the sift up cannot pass i, whose parent is
 * no later than e (the caller's condition). */
TIMER_INLINE_ void timer_heap_fill_hole_(struct timer_heap_entry *a, size_t count, size_t i, struct timer_heap_entry e)
{
    size_t first;
    while ((first = i * TIMER_HEAP_ARITY + 1) < count) {
        size_t best = timer_heap_best_child_(a, count, first);
        TIMER_HEAP_ON_STEP_();
        timer_heap_place_(a, i, a[best]);
        i = best;
    }
    timer_heap_sift_up_(a, i, e, false);
}

/* Resize the array to cap entries; false (and nothing changed) on failure. */
TIMER_INLINE_ bool timer_heap_resize_(struct timer_heap *h, size_t cap)
{
    void *p;
    if (cap > SIZE_MAX / sizeof(struct timer_heap_entry))
        return false;
    p = TIMER_HEAP_REALLOC(h->a, cap * sizeof(struct timer_heap_entry));
    if (p == NULL)
        return false;
    h->a = (struct timer_heap_entry *)p;
    h->cap = cap;
    return true;
}

/* Room for one more entry. */
TIMER_INLINE_ int timer_heap_reserve_(struct timer_heap *h)
{
    if (h->count < h->cap)
        return 0;
    return timer_heap_resize_(h, h->cap ? h->cap * 2 : TIMER_HEAP_MIN_CAP) ? 0 : -ENOMEM;
}

/* Give memory back after a large burst has drained: halve the capacity
 * until the array is more than a quarter full, in one realloc, so that one
 * pop that empties a big heap gives its memory back at once; never below what
 * reserve asked for. */
TIMER_INLINE_ void timer_heap_shrink_(struct timer_heap *h)
{
    size_t cap = h->cap;
    if (h->count >= cap / 4)                /* the common case, one compare */
        return;
    while (cap > TIMER_HEAP_MIN_CAP && h->count < cap / 4 && cap / 2 >= h->reserved)
        cap /= 2;
    if (cap != h->cap)
        (void)timer_heap_resize_(h, cap);
}

/* Take the entry at i out of the array; the node's own state is the caller's. */
TIMER_INLINE_ void timer_heap_delete_(struct timer_heap *h, size_t i)
{
    struct timer_heap_entry last = h->a[--h->count];
    if (i == h->count)
        return;
    if (i > 0 && timer_heap_before_(last, h->a[(i - 1) / TIMER_HEAP_ARITY]))
        timer_heap_sift_up_(h->a, i, last, false);
    else
        timer_heap_fill_hole_(h->a, h->count, i, last);
}

/* Add an unlinked node, a new arrival; room has been reserved. */
TIMER_INLINE_ void timer_heap_add_(struct timer_heap *h, int64_t expire, struct timer_heap_node *n)
{
    struct timer_heap_entry e;
    e.expire = expire;
    e.node = n;
    n->expire = expire;
    n->u.heap.seq = ++h->seq;
    timer_heap_sift_up_(h->a, h->count++, e, true);
}

/* Does h hold the pending node n? Its stored position names an entry of
 * h's that is n exactly when it does. O(1), in every build: remove and
 * reschedule of another heap's item change nothing. */
TIMER_INLINE_ bool timer_heap_holds_(const struct timer_heap *h, const struct timer_heap_node *n)
{
    return n->u.heap.pos - 1 < h->count && h->a[n->u.heap.pos - 1].node == n;
}

/* False only when n is pending in another heap (TIMER_DEBUG checks it
 * first; insert checks a linked node with it, in builds with asserts). */
TIMER_INLINE_ bool timer_heap_owns_(const struct timer_heap *h, const struct timer_heap_node *n)
{
    return !timer_heap_node_pending(n) || timer_heap_holds_(h, n);
}

TIMER_INLINE_ bool timer_heap_may_hold_(const struct timer_heap *h, const struct timer_heap_node *n)
{
    return timer_heap_owns_(h, n);
}

TIMER_INLINE_ int timer_heap_insert(struct timer_heap *h, int64_t expire, struct timer_heap_node *n)
{
    if (n == NULL || expire < 0)
        return -EINVAL;
    if (n->u.link.next != NULL)
        return -EBUSY;
    if (timer_heap_reserve_(h) != 0)
        return -ENOMEM;
    timer_heap_add_(h, expire, n);
    return 0;
}

TIMER_INLINE_ bool timer_heap_remove(struct timer_heap *h, struct timer_heap_node *n)
{
    if (n == NULL || n->u.link.next == NULL)
        return false;
    if (n->expire < 0) {
        tlist_remove(&n->u.link);          /* due: leave the result list */
        return true;
    }
    if (!timer_heap_holds_(h, n)) {
        assert(0 &&
               "timer_heap_remove: the item is not in this heap (another heap holds it, or init was called while this one held it)");
        return false;
    }
    timer_heap_delete_(h, n->u.heap.pos - 1);
    timer_heap_make_idle_(n);
    timer_heap_shrink_(h);
    return true;
}

TIMER_INLINE_ int timer_heap_reschedule(struct timer_heap *h, int64_t expire, struct timer_heap_node *n)
{
    size_t i, count;
    struct timer_heap_entry e, *a;
    if (n == NULL || expire < 0)
        return -EINVAL;
    if (!timer_heap_node_pending(n)) {
        if (timer_heap_reserve_(h) != 0)
            return -ENOMEM;
        tlist_remove(&n->u.link);          /* a due item leaves its result list */
        timer_heap_add_(h, expire, n);
        return 0;
    }
    /* Pending: change the key in place and sift whichever way it moved;
     * no allocation. A reschedule is a new arrival. The array and the count
     * are read once, for holds_'s test too, before the node's stores (which
     * could alias them: the core struct is may_alias). */
    a = h->a;
    count = h->count;
    i = n->u.heap.pos - 1;
    if (i >= count || a[i].node != n) {     /* timer_heap_holds_ */
        assert(0 &&
               "timer_heap_reschedule: the item is not in this heap (another heap holds it, or init was called while this one held it)");
        return -EINVAL;
    }
    e.expire = expire;
    e.node = n;
    n->expire = expire;
    n->u.heap.seq = ++h->seq;
    if (i > 0 && expire < a[(i - 1) / TIMER_HEAP_ARITY].expire)
        timer_heap_sift_up_(a, i, e, true);
    else
        timer_heap_sift_down_(a, count, i, e);
    return 0;
}

/* pop's loop, out of line: the root is the first item in pop order (heap
 * order is expiry, then arrival), so take roots while they are due. */
TIMER_NOINLINE_ size_t timer_heap_pop_due_(struct timer_heap *h, int64_t now, struct tlist *out)
{
    size_t k = 0;
    tlist_ready_(out);
    do {
        struct timer_heap_node *n = h->a[0].node;
        timer_heap_delete_(h, 0);
        timer_heap_make_due_(n, out);
        k++;
    } while (h->count > 0 && h->a[0].expire <= now);
    timer_heap_shrink_(h);
    return k;
}

/* Inline, so that an event loop's pop with nothing due is two compares. */
TIMER_INLINE_ size_t timer_heap_pop(struct timer_heap *h, int64_t now, struct tlist *out)
{
    if (now > h->now)
        h->now = now;
    if (h->count == 0 || h->a[0].expire > now)
        return 0;                           /* nothing due: out untouched */
    return timer_heap_pop_due_(h, now, out);
}

TIMER_INLINE_ int64_t timer_heap_min_time(const struct timer_heap *h)
{
    return h->count ? h->a[0].expire : TIMER_NEVER;
}

TIMER_INLINE_ int64_t timer_heap_next_expiry(const struct timer_heap *h)
{
    return timer_heap_min_time(h);
}

TIMER_INLINE_ struct timer_heap_node *timer_heap_first(const struct timer_heap *h)
{
    return h->count ? h->a[0].node : NULL;
}

/* In array order, until fn returns non-zero. */
TIMER_INLINE_ int timer_heap_visit(const struct timer_heap *h, int (*fn)(struct timer_heap_node *, void *), void *arg)
{
    size_t i;
    int r;
    for (i = 0; i < h->count; i++)
        if ((r = fn(h->a[i].node, arg)) != 0)
            return r;
    return 0;
}

/* Room for n pending items, kept until destroy (or a smaller reserve):
 * inserts cannot fail while at most n are pending. The array at least
 * doubles when it grows, so that "reserve one more, then insert" (an event
 * loop's habit) costs O(1) amortised reallocations, not one per insert;
 * when doubling fails, exactly n is tried. */
TIMER_INLINE_ int timer_heap_reserve(struct timer_heap *h, size_t n)
{
    if (n > h->cap && !(2 * h->cap > n && timer_heap_resize_(h, 2 * h->cap)) && !timer_heap_resize_(h, n))
        return -ENOMEM;
    h->reserved = n;
    return 0;
}

TIMER_INLINE_ void timer_heap_clear(struct timer_heap *h)
{
    size_t i;
    for (i = 0; i < h->count; i++)
        timer_heap_make_idle_(h->a[i].node);
    h->count = 0;
}

TIMER_INLINE_ void timer_heap_destroy(struct timer_heap *h)
{
    timer_heap_clear(h);
    if (h->a)
        TIMER_HEAP_FREE(h->a);
    h->a = NULL;
    h->cap = 0;
    h->reserved = 0;
}

/* O(n). NULL when every entry is no earlier than its parent, each node
 * knows its index and holds the entry's expiry. */
TIMER_INLINE_ const char *timer_heap_check(const struct timer_heap *h)
{
    size_t i;
    if (h->count > h->cap)
        return "count exceeds capacity";
    if (h->cap && h->a == NULL)
        return "capacity without an array";
    if (h->cap < h->reserved)
        return "capacity below what reserve asked for";
    if (h->now < 0)
        return "clock is negative";
    for (i = 0; i < h->count; i++) {
        const struct timer_heap_entry *e = &h->a[i];
        if (e->node == NULL)
            return "entry without a node";
        if (e->node->u.heap.pos != i + 1)
            return "node's stored index is wrong";
        if (e->node->u.heap.seq == 0 || e->node->u.heap.seq > h->seq)
            return "node's arrival number was never handed out";
        if (e->expire < 0 || e->node->expire != e->expire)
            return "node's expiry differs from its entry";
        if (i > 0 && timer_heap_before_(*e, h->a[(i - 1) / TIMER_HEAP_ARITY]))
            return "entry goes before its parent (expiry, then arrival)";
    }
    return NULL;
}

#define TIMER_HEAP_DEFINE_FUNCTIONS(name, type, member) TIMER_DEFINE_WRAPPERS_(name, type, member, timer_heap, heap)

#define TIMER_HEAP_DEFINE_NAMED(name, type, member) \
    TIMER_HEAP_DEFINE_TYPE(name)                    \
    TIMER_HEAP_DEFINE_FUNCTIONS(name, type, member)

#define TIMER_HEAP_DEFINE(type, member) TIMER_SHORT_DEFINE_(HEAP, heap, type, member)

/* The functions compiled once (docs/big-programs.md): DECLARE in the header
 * every file includes (the container type and prototypes), IMPLEMENT in one
 * .c file after it (the definitions, external). */
#define TIMER_HEAP_DECLARE_FUNCTIONS(name, type, member) TIMER_DECLARE_WRAPPERS_(name, type)
#define TIMER_HEAP_DECLARE(name, type, member) \
    TIMER_HEAP_DEFINE_TYPE(name)                \
    TIMER_HEAP_DECLARE_FUNCTIONS(name, type, member)
#define TIMER_HEAP_IMPLEMENT(name, type, member) TIMER_WRAPPERS_(name, type, member, timer_heap, heap, extern_)

TIMER_FUNCTIONS_END_

#endif /* TIMER_HEAP_H_FUNCTIONS */
