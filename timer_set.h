/* SPDX-License-Identifier: MIT */
/* timer_set.h - ordered set of timers: an intrusive red-black tree with the
 * earliest and latest items cached. O(log n) insert and remove, O(1)
 * min_time, pops in expiry order, FIFO among equal expiries, no allocation.
 *
 *     #include "timer_set.h"
 *     typedef struct job { int id; struct timer_set_node ts; } job;
 *     TIMER_SET_DEFINE(job, ts)              // job_set and job_set_*()
 *
 *     job_set s;
 *     struct tlist due = {0};                         // zeroed: an empty list
 *     struct tlist *link;
 *     job_set_init(&s, now);
 *     job_set_insert(&s, now + 250, &some_job);       // 0, or -EINVAL / -EBUSY
 *     job_set_pop(&s, now, &due);                     // expired, in order, FIFO on ties
 *     tlist_drain(link, &due)                         // each off the list first: may re-arm
 *         run(job_set_entry(link));
 *
 * Generated API (NAME = TYPE_set, or the name given to TIMER_SET_DEFINE_NAMED):
 *   void    NAME_init(NAME *c, int64_t now);     empty, clock = now (< 0 taken as 0)
 *   void    NAME_clear(NAME *c);                 pending items become idle
 *   void    NAME_destroy(NAME *c);               same as clear (the set owns no memory)
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
 *   int64_t NAME_min_time(const NAME *c);        the same (the set's min is always exact)
 *   TYPE   *NAME_first(const NAME *c);           the item pop hands out first; NULL if empty
 *   size_t  NAME_visit(const NAME *c, void (*fn)(TYPE *, void *), void *arg);
 *                                                fn(item, arg) for each pending item, in
 *                                                pop order; fn must not change c
 *                                                (it may call next_expiry, first)
 *   int     NAME_visit_until(const NAME *c, int (*fn)(TYPE *, void *), void *arg);
 *                                                the same walk until fn returns non-zero:
 *                                                that value, or 0 after every item
 *   int     NAME_reserve(NAME *c, size_t n);     0: the set never allocates
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
 * < 0), -EBUSY (insert of a pending or due item).
 * What a caller may drop with (void): reschedule, reschedule_range and
 * reschedule_near cannot fail for a valid item (idle, due, or pending in
 * this set) and times >= 0 (latest >= earliest): they return 0; reserve
 * returns 0; insert of an idle item returns 0 (docs/guarantees.md).
 *
 * Types without functions: TIMER_SET_DEFINE(_NAMED) is
 * TIMER_SET_DEFINE_TYPE(name) followed by TIMER_SET_DEFINE_FUNCTIONS(name,
 * type, member). A public header includes timer_set_types.h, which
 * declares only the node and DEFINE_TYPE (with struct tlist and the
 * version) and leaves TIMER_TYPES_ONLY alone; with TIMER_TYPES_ONLY
 * defined, this header declares the same (see list.h).
 *
 * Functions compiled once, for programs of many files: TIMER_SET_DECLARE(name,
 * type, member) (DEFINE_TYPE and the prototypes; DECLARE_FUNCTIONS: the
 * prototypes alone) in the header every file includes, and
 * TIMER_SET_IMPLEMENT(name, type, member) in one .c file after it: the same
 * functions, external (docs/big-programs.md). The results of insert, the
 * reschedules, reserve and check are TIMER_NODISCARD (list.h): a (void)
 * cast silences it.
 *
 * Order: items are kept by (expiry, arrival); an equal expiry goes after
 * those already there, so pop delivers in non-decreasing expiry order and
 * FIFO among equal expiries (a reschedule is a new arrival): the one pop
 * order of every container here.
 *
 * Costs: insert O(log n), and O(1) amortised when the expiry is at or after
 * the latest item's or before the earliest's (timers with one fixed delay
 * arrive in expiry order: they append at the right end without a search);
 * remove O(log n) (O(1) amortised rebalancing); pop O(1) amortised per item;
 * min_time, next_expiry and first O(1); visit O(n). Node: three words and
 * the expiry (32 bytes on 64-bit).
 *
 * Misuse: an item freed while pending is not detected (remove it first);
 * remove() or reschedule() with a set other than the one holding the item
 * aborts in builds with asserts (O(log n): the walk from the item to its
 * tree's root), before anything changes; TIMER_DEBUG reports it too; with
 * NDEBUG, such a call through an empty set returns false / -EINVAL and
 * changes nothing. Insert of a linked item that is not pending here
 * aborts in builds with asserts, naming what it is: due (popped, still in
 * a result list: use reschedule, or tlist_drain), or linked by something
 * other than this set (another set; a list that reused the node; a result
 * list inited again while it held the item: stale); NDEBUG: -EBUSY,
 * nothing changed. A DEFINE whose
 * member is not a struct timer_set_node, or TIMER_SET_DEFINE with
 * `struct X` or a type named `timer` (timer_set is this header's), fails
 * to compile; the first error names the fix.
 */

#include "list.h"   /* first: it stops a header of another version */

/* ---- the types: also for a public header (TIMER_TYPES_ONLY, timer_set_types.h) */
#ifndef TIMER_SET_H_TYPES
#define TIMER_SET_H_TYPES

/* The states (compare timer_heap.h and timer_wheel.h):
 *   idle     parent == 0 and link.next == NULL: a zeroed node
 *   pending  in the tree: `parent` holds the parent's address with the
 *            colour in bit 0 and TIMER_SET_IN_TREE_ in bit 1, so it is never 0
 *   due      parent == 0, the link (overlaying the child pointers) in a
 *            result list, and expire holding ~expiry (< 0): the mark that
 *            tells a popped node from one another list linked (v2.4) */
struct timer_set_node {
    union {
        struct timer_set_node *child[2];    /* [0] earlier, [1] later */
        struct tlist link;
    } u;
    uintptr_t parent;
    int64_t expire;
};

/* The container type alone: typedef struct name name, holding the layout
 * of struct timer_set (below, with the functions) without its name. */
#define TIMER_SET_DEFINE_TYPE(name) \
    typedef struct name { struct { struct timer_set_node *root, *first, *last; size_t count; int64_t now; } set; } name;

#endif /* TIMER_SET_H_TYPES */

/* ---- the functions ---------------------------------------------------------- */
#if !defined(TIMER_TYPES_ONLY) && !defined(TIMER_TYPES_PASS_) && !defined(TIMER_SET_H_FUNCTIONS)
#define TIMER_SET_H_FUNCTIONS

#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdbool.h>

struct TIMER_MAY_ALIAS_ timer_set {
    struct timer_set_node *root;
    struct timer_set_node *first, *last;    /* earliest and latest, NULL when empty */
    size_t count;
    int64_t now;
};
TIMER_SET_DEFINE_TYPE(timer_set_layout_)
TIMER_STATIC_CHECK_(timer_set_layout_check_, sizeof(timer_set_layout_) == sizeof(struct timer_set) &&
                    offsetof(timer_set_layout_, set.count) == offsetof(struct timer_set, count) &&
                    offsetof(timer_set_layout_, set.now) == offsetof(struct timer_set, now))

TIMER_FUNCTIONS_BEGIN_

#define TIMER_SET_BLACK_ ((uintptr_t)1)
#define TIMER_SET_IN_TREE_ ((uintptr_t)2)
#define TIMER_SET_FLAGS_ ((uintptr_t)3)

/* Test instrumentation, default nothing: ON_STEP_ runs once for every step
 * whose number can grow with n (a level descended in insert or in erase's
 * search for the successor, an iteration of either fix-up, a rotation), so
 * the tests can count that insert and remove stay O(log n) and pop O(1)
 * amortised per item (test/adversarial.c). Not counted: visit and clear
 * (O(n) by contract, O(1) per item) and the walk to the root with which
 * builds with asserts check that an item is this set's. */
#ifndef TIMER_SET_ON_STEP_
#define TIMER_SET_ON_STEP_() ((void)0)
#endif
TIMER_INLINE_ struct timer_set_node *timer_set_parent_(const struct timer_set_node *n)
{
    return (struct timer_set_node *)(n->parent & ~TIMER_SET_FLAGS_);
}

TIMER_INLINE_ void timer_set_set_parent_(struct timer_set_node *n, struct timer_set_node *p)
{
    n->parent = (uintptr_t)p | (n->parent & TIMER_SET_FLAGS_);
}

TIMER_INLINE_ bool timer_set_is_red_(const struct timer_set_node *n)
{
    return n != NULL && !(n->parent & TIMER_SET_BLACK_);
}

TIMER_INLINE_ void timer_set_paint_(struct timer_set_node *n, uintptr_t black)
{
    n->parent = (n->parent & ~TIMER_SET_BLACK_) | black;
}

TIMER_INLINE_ bool timer_set_node_pending(const struct timer_set_node *n)
{
    return n != NULL && n->parent != 0;
}

TIMER_INLINE_ bool timer_set_node_due(const struct timer_set_node *n)
{
    return n != NULL && n->parent == 0 && n->u.link.next != NULL && n->expire < 0;
}

TIMER_INLINE_ int64_t timer_set_node_expire(const struct timer_set_node *n)
{
    if (n == NULL)
        return TIMER_NEVER;
    return n->expire < 0 ? ~n->expire : n->expire;
}

/* The two state changes, each in one place (the node is out of the tree). */
TIMER_INLINE_ void timer_set_make_idle_(struct timer_set_node *n)
{
    n->parent = 0;
    n->u.link.next = NULL;
    n->u.link.prev = NULL;
}

/* out is inited (tlist_ready_) */
TIMER_INLINE_ void timer_set_make_due_(struct timer_set_node *n, struct tlist *out)
{
    n->parent = 0;
    n->expire = ~n->expire;
    n->u.link.next = NULL;
    tlist_push_back_(out, &n->u.link);
}

TIMER_INLINE_ void timer_set_init(struct timer_set *s, int64_t now)
{
    s->root = NULL;
    s->first = NULL;
    s->last = NULL;
    s->count = 0;
    s->now = now < 0 ? 0 : now;
}

/* In p's parent (or the root), make `to` the child that `from` was. */
TIMER_INLINE_ void timer_set_replace_child_(struct timer_set *s, struct timer_set_node *p,
                                            struct timer_set_node *from, struct timer_set_node *to)
{
    if (p == NULL)
        s->root = to;
    else
        p->u.child[p->u.child[1] == from] = to;
}

/* Rotate x down towards side d; its child on the other side takes its place. */
TIMER_INLINE_ void timer_set_rotate_(struct timer_set *s, struct timer_set_node *x, int d)
{
    struct timer_set_node *y = x->u.child[!d], *p = timer_set_parent_(x);
    TIMER_SET_ON_STEP_();
    x->u.child[!d] = y->u.child[d];
    if (y->u.child[d])
        timer_set_set_parent_(y->u.child[d], x);
    y->u.child[d] = x;
    timer_set_set_parent_(x, y);
    timer_set_set_parent_(y, p);
    timer_set_replace_child_(s, p, x, y);
}

/* Restore the red-black rules after linking the red leaf n. */
TIMER_INLINE_ void timer_set_insert_fixup_(struct timer_set *s, struct timer_set_node *n)
{
    struct timer_set_node *p, *g, *u;
    while ((p = timer_set_parent_(n)) != NULL && timer_set_is_red_(p)) {
        int d;
        TIMER_SET_ON_STEP_();
        g = timer_set_parent_(p);           /* exists: a red node is never the root */
        d = g->u.child[1] == p;
        u = g->u.child[!d];
        if (timer_set_is_red_(u)) {         /* red uncle: recolour, retry two levels up */
            timer_set_paint_(p, TIMER_SET_BLACK_);
            timer_set_paint_(u, TIMER_SET_BLACK_);
            timer_set_paint_(g, 0);
            n = g;
            continue;
        }
        if (p->u.child[!d] == n) {          /* inner grandchild: make it outer */
            timer_set_rotate_(s, p, d);
            p = n;
        }
        timer_set_rotate_(s, g, !d);
        timer_set_paint_(p, TIMER_SET_BLACK_);
        timer_set_paint_(g, 0);
        break;
    }
    timer_set_paint_(s->root, TIMER_SET_BLACK_);
}

/* Link an unlinked node by (expire, arrival). */
TIMER_INLINE_ void timer_set_add_(struct timer_set *s, int64_t expire, struct timer_set_node *n)
{
    struct timer_set_node *p;
    int d;
    n->expire = expire;
    n->u.child[0] = NULL;
    n->u.child[1] = NULL;
    if (s->root == NULL) {
        n->parent = TIMER_SET_IN_TREE_ | TIMER_SET_BLACK_;
        s->root = s->first = s->last = n;
        s->count++;
        return;
    }
    if (expire >= s->last->expire) {        /* append: the latest has no later child */
        p = s->last;
        d = 1;
        s->last = n;
    } else if (expire < s->first->expire) { /* prepend: the earliest has no earlier child */
        p = s->first;
        d = 0;
        s->first = n;
    } else {
        struct timer_set_node *cur = s->root;
        do {
            TIMER_SET_ON_STEP_();
            p = cur;
            d = expire >= cur->expire;      /* equal goes later: FIFO */
            cur = cur->u.child[d];
        } while (cur != NULL);
    }
    p->u.child[d] = n;
    n->parent = (uintptr_t)p | TIMER_SET_IN_TREE_;    /* red */
    s->count++;
    timer_set_insert_fixup_(s, n);
}

/* Restore the black heights after a black node left the place of x (maybe
 * NULL) under parent p. */
TIMER_INLINE_ void timer_set_erase_fixup_(struct timer_set *s, struct timer_set_node *x,
                                          struct timer_set_node *p)
{
    while (x != s->root && !timer_set_is_red_(x)) {
        int d = p->u.child[1] == x;         /* x's side; the sibling exists */
        struct timer_set_node *w = p->u.child[!d];
        TIMER_SET_ON_STEP_();
        if (!(w->parent & TIMER_SET_BLACK_)) {  /* red sibling (never NULL: is_red_ would tell
                                                   gcc's -Wnull-dereference it might be) */
            timer_set_paint_(w, TIMER_SET_BLACK_);
            timer_set_paint_(p, 0);
            timer_set_rotate_(s, p, d);
            w = p->u.child[!d];
        }
        if (!timer_set_is_red_(w->u.child[0]) && !timer_set_is_red_(w->u.child[1])) {
            timer_set_paint_(w, 0);         /* push the deficit up */
            x = p;
            p = timer_set_parent_(x);
            continue;
        }
        if (!timer_set_is_red_(w->u.child[!d])) {   /* near nephew red: make it far */
            timer_set_paint_(w->u.child[d], TIMER_SET_BLACK_);
            timer_set_paint_(w, 0);
            timer_set_rotate_(s, w, !d);
            w = p->u.child[!d];
        }
        timer_set_paint_(w, p->parent & TIMER_SET_BLACK_);
        timer_set_paint_(p, TIMER_SET_BLACK_);
        timer_set_paint_(w->u.child[!d], TIMER_SET_BLACK_);
        timer_set_rotate_(s, p, d);
        x = s->root;
        break;
    }
    if (x)
        timer_set_paint_(x, TIMER_SET_BLACK_);
}

/* Unlink the earliest node, the one pop and in-order removal take. It has
 * no earlier child; a later child is a red leaf under a black z. So its
 * successor is that child or else its parent, with no search. */
TIMER_INLINE_ void timer_set_erase_first_(struct timer_set *s, struct timer_set_node *z)
{
    struct timer_set_node *x = z->u.child[1], *p = timer_set_parent_(z);
    s->first = x ? x : p;
    if (z == s->last)                       /* z was the only node */
        s->last = p;
    if (p)
        p->u.child[0] = x;
    else
        s->root = x;
    s->count--;
    if (x) {
        timer_set_set_parent_(x, p);
        timer_set_paint_(x, TIMER_SET_BLACK_);
    } else if (!timer_set_is_red_(z)) {
        timer_set_erase_fixup_(s, NULL, p);
    }
}

/* Unlink a pending node from the tree; its own fields are the caller's. */
TIMER_INLINE_ void timer_set_erase_(struct timer_set *s, struct timer_set_node *z)
{
    struct timer_set_node *x, *p;
    bool black;
    if (z == s->first) {
        timer_set_erase_first_(s, z);
        return;
    }
    if (z == s->last) {
        /* The mirror image of the earliest: no later child, and an earlier
         * one is a red leaf; so its predecessor is that leaf or its parent. */
        s->last = z->u.child[0] ? z->u.child[0] : timer_set_parent_(z);
    }
    if (z->u.child[0] && z->u.child[1]) {
        /* Two children: the successor y (no earlier child) takes z's place
         * and colour; the fix-up starts where y was. */
        struct timer_set_node *y = z->u.child[1];
        while (y->u.child[0]) {
            TIMER_SET_ON_STEP_();
            y = y->u.child[0];
        }
        x = y->u.child[1];
        black = !timer_set_is_red_(y);
        if (timer_set_parent_(y) == z) {
            p = y;
        } else {
            p = timer_set_parent_(y);
            p->u.child[0] = x;
            if (x)
                timer_set_set_parent_(x, p);
            y->u.child[1] = z->u.child[1];
            timer_set_set_parent_(y->u.child[1], y);
        }
        y->u.child[0] = z->u.child[0];
        timer_set_set_parent_(y->u.child[0], y);
        timer_set_replace_child_(s, timer_set_parent_(z), z, y);
        y->parent = z->parent;
    } else {
        x = z->u.child[0] ? z->u.child[0] : z->u.child[1];
        p = timer_set_parent_(z);
        black = !timer_set_is_red_(z);
        timer_set_replace_child_(s, p, z, x);
        if (x)
            timer_set_set_parent_(x, p);
    }
    s->count--;
    if (black)
        timer_set_erase_fixup_(s, x, p);
}

TIMER_INLINE_ int timer_set_insert(struct timer_set *s, int64_t expire, struct timer_set_node *n)
{
    if (n == NULL || expire < 0)
        return -EINVAL;
    if (n->parent != 0 || n->u.link.next != NULL)
        return -EBUSY;
    timer_set_add_(s, expire, n);
    return 0;
}

/* False only when n is pending in another tree: its root is not s's, or
 * no root is reached within 128 levels (no red-black tree is that tall:
 * its height is at most 2 log2(n + 1), and fewer than 2^64 nodes fit), so
 * parent links that lead nowhere end the walk too. O(log n): remove and
 * reschedule assert it, insert checks a linked node with it (builds with
 * asserts), TIMER_DEBUG checks it first. */
TIMER_INLINE_ bool timer_set_owns_(const struct timer_set *s, const struct timer_set_node *n)
{
    int up = 128;
    if (!timer_set_node_pending(n))
        return true;
    while (timer_set_parent_(n) != NULL && up-- > 0)
        n = timer_set_parent_(n);
    return n == s->root;
}

TIMER_INLINE_ bool timer_set_may_hold_(const struct timer_set *s, const struct timer_set_node *n)
{
    return timer_set_owns_(s, n);
}

/* Make a pending or due node idle; false if it already was, or if it is
 * pending and s is empty (another set's item: the O(1) check of every
 * build, so that no count wraps round; owns_ is the full one). */
TIMER_INLINE_ bool timer_set_unlink_(struct timer_set *s, struct timer_set_node *n)
{
    if (n->parent != 0) {
        if (s->count == 0)
            return false;
        timer_set_erase_(s, n);
        timer_set_make_idle_(n);
        return true;
    }
    if (n->u.link.next != NULL) {
        tlist_remove(&n->u.link);           /* due: leave the result list */
        return true;
    }
    return false;
}

TIMER_INLINE_ bool timer_set_remove(struct timer_set *s, struct timer_set_node *n)
{
    assert(timer_set_owns_(s, n) &&
           "timer_set_remove: the item is not in this set (another set holds it, or init was called while this one held it)");
    return n != NULL && timer_set_unlink_(s, n);
}

TIMER_INLINE_ int timer_set_reschedule(struct timer_set *s, int64_t expire, struct timer_set_node *n)
{
    if (n == NULL || expire < 0)
        return -EINVAL;
    assert(timer_set_owns_(s, n) &&
           "timer_set_reschedule: the item is not in this set (another set holds it, or init was called while this one held it)");
    if (n->parent != 0 && s->count == 0)
        return -EINVAL;                     /* another set's item */
    timer_set_unlink_(s, n);
    timer_set_add_(s, expire, n);
    return 0;
}

TIMER_INLINE_ size_t timer_set_pop(struct timer_set *s, int64_t now, struct tlist *out)
{
    size_t k = 0;
    struct timer_set_node *n;
    if (now > s->now)
        s->now = now;
    if ((n = s->first) == NULL || n->expire > now)
        return 0;                           /* nothing due: out untouched */
    tlist_ready_(out);
    while ((n = s->first) != NULL && n->expire <= now) {
        timer_set_erase_(s, n);
        timer_set_make_due_(n, out);
        k++;
    }
    return k;
}

TIMER_INLINE_ int64_t timer_set_min_time(const struct timer_set *s)
{
    return s->first ? s->first->expire : TIMER_NEVER;
}

TIMER_INLINE_ int64_t timer_set_next_expiry(const struct timer_set *s)
{
    return timer_set_min_time(s);
}

TIMER_INLINE_ struct timer_set_node *timer_set_first(const struct timer_set *s)
{
    return s->first;
}

/* In pop order: from the earliest, each node's successor (the leftmost of
 * its later subtree, or the first ancestor it is earlier than), taken
 * before fn runs, until fn returns non-zero; O(n) in all, no stack. */
TIMER_INLINE_ int timer_set_visit(const struct timer_set *s, int (*fn)(struct timer_set_node *, void *), void *arg)
{
    struct timer_set_node *n = s->first, *next, *p;
    int r;
    while (n != NULL) {
        if ((next = n->u.child[1]) != NULL) {
            while (next->u.child[0] != NULL)
                next = next->u.child[0];
        } else {
            for (next = n; (p = timer_set_parent_(next)) != NULL && p->u.child[1] == next; next = p)
                ;
            next = p;
        }
        if ((r = fn(n, arg)) != 0)
            return r;
        n = next;
    }
    return 0;
}

/* The set never allocates: room for any number of items is always there. */
TIMER_INLINE_ int timer_set_reserve(struct timer_set *s, size_t n)
{
    (void)s;
    (void)n;
    return 0;
}

TIMER_INLINE_ void timer_set_clear(struct timer_set *s)
{
    /* Walk down to a leaf, idle it, climb to its parent: no stack, O(n). */
    struct timer_set_node *n = s->root;
    while (n != NULL) {
        struct timer_set_node *p;
        if (n->u.child[0]) {
            n = n->u.child[0];
            continue;
        }
        if (n->u.child[1]) {
            n = n->u.child[1];
            continue;
        }
        p = timer_set_parent_(n);
        if (p)
            p->u.child[p->u.child[1] == n] = NULL;
        timer_set_make_idle_(n);
        n = p;
    }
    timer_set_init(s, s->now);
}

/* The set owns no memory: destroy is clear. */
TIMER_INLINE_ void timer_set_destroy(struct timer_set *s)
{
    timer_set_clear(s);
}

/* Black height of the subtree at n, or -1 with *why set when a rule breaks. */
TIMER_INLINE_ long timer_set_check_node_(const struct timer_set *s, const struct timer_set_node *n,
                                         const struct timer_set_node *parent, size_t *seen,
                                         const struct timer_set_node **prev, const char **why)
{
    long hl, hr;
    if (n == NULL)
        return 0;
    if (++*seen > s->count) {
        *why = "more nodes in the tree than the count";
        return -1;
    }
    if (!(n->parent & TIMER_SET_IN_TREE_) || timer_set_parent_(n) != parent) {
        *why = "node's parent link or in-tree flag is wrong";
        return -1;
    }
    if (timer_set_is_red_(n) && (timer_set_is_red_(n->u.child[0]) || timer_set_is_red_(n->u.child[1]))) {
        *why = "red node with a red child";
        return -1;
    }
    if (n->expire < 0) {
        *why = "negative expiry in the tree";
        return -1;
    }
    hl = timer_set_check_node_(s, n->u.child[0], n, seen, prev, why);
    if (hl < 0)
        return -1;
    if (*prev && (*prev)->expire > n->expire) {
        *why = "in-order walk is not sorted";
        return -1;
    }
    if (*prev == NULL && n != s->first) {
        *why = "cached first is not the leftmost node";
        return -1;
    }
    *prev = n;
    hr = timer_set_check_node_(s, n->u.child[1], n, seen, prev, why);
    if (hr < 0)
        return -1;
    if (hl != hr) {
        *why = "black heights differ";
        return -1;
    }
    return hl + !timer_set_is_red_(n);
}

/* O(n). NULL when the red-black rules hold, the in-order walk is sorted,
 * first/last are the ends and the count matches. (FIFO among equal keys is
 * an ordering of arrival the tree does not record; the tests check it.) */
TIMER_INLINE_ const char *timer_set_check(const struct timer_set *s)
{
    size_t seen = 0;
    const struct timer_set_node *prev = NULL;
    const char *why = NULL;
    if (s->root && timer_set_is_red_(s->root))
        return "red root";
    if (timer_set_check_node_(s, s->root, NULL, &seen, &prev, &why) < 0)
        return why;
    if (seen != s->count)
        return "count does not match the nodes in the tree";
    if (prev != s->last)
        return "cached last is not the rightmost node";
    if ((s->root == NULL) != (s->first == NULL))
        return "cached first disagrees with the root";
    if (s->now < 0)
        return "clock is negative";
    return NULL;
}

#define TIMER_SET_DEFINE_FUNCTIONS(name, type, member) TIMER_DEFINE_WRAPPERS_(name, type, member, timer_set, set)

#define TIMER_SET_DEFINE_NAMED(name, type, member) \
    TIMER_SET_DEFINE_TYPE(name)                    \
    TIMER_SET_DEFINE_FUNCTIONS(name, type, member)

#define TIMER_SET_DEFINE(type, member) TIMER_SHORT_DEFINE_(SET, set, type, member)

/* The functions compiled once (docs/big-programs.md): DECLARE in the header
 * every file includes (the container type and prototypes), IMPLEMENT in one
 * .c file after it (the definitions, external). */
#define TIMER_SET_DECLARE_FUNCTIONS(name, type, member) TIMER_DECLARE_WRAPPERS_(name, type)
#define TIMER_SET_DECLARE(name, type, member) \
    TIMER_SET_DEFINE_TYPE(name)                \
    TIMER_SET_DECLARE_FUNCTIONS(name, type, member)
#define TIMER_SET_IMPLEMENT(name, type, member) TIMER_WRAPPERS_(name, type, member, timer_set, set, extern_)

TIMER_FUNCTIONS_END_

#endif /* TIMER_SET_H_FUNCTIONS */
