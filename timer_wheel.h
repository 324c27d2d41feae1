/* SPDX-License-Identifier: MIT */
/* timer_wheel.h - hierarchical timing wheel over int64 time: O(1) insert and
 * remove, pop that visits only occupied slots, no allocation.
 *
 *     #include "timer_wheel.h"
 *     typedef struct conn { int fd; struct timer_wheel_node tw; } conn;
 *     TIMER_WHEEL_DEFINE(conn, tw)           // conn_wheel and conn_wheel_*()
 *
 *     conn_wheel w;
 *     struct tlist due;
 *     conn *c;
 *     conn_wheel_init(&w, now);
 *     conn_wheel_insert(&w, now + 5000, &some_conn);       // 0, or -EINVAL / -EBUSY
 *     ...
 *     tlist_init(&due);
 *     conn_wheel_pop(&w, now, &due);                       // every item with expire <= now
 *     while ((c = conn_wheel_entry(tlist_pop_front(&due))) != NULL)
 *         close_conn(c);                                   // may insert/remove anything
 *
 * Generated API (NAME = TYPE_wheel, or the name given to TIMER_WHEEL_DEFINE_NAMED):
 *   void    NAME_init(NAME *c, int64_t now);     empty, clock = now (< 0 taken as 0)
 *   void    NAME_clear(NAME *c);                 pending items become idle
 *   void    NAME_destroy(NAME *c);               same as clear (the wheel owns no memory)
 *   int     NAME_insert(NAME *c, int64_t expire, TYPE *item);      idle -> pending
 *   int     NAME_reschedule(NAME *c, int64_t expire, TYPE *item);  any state -> pending
 *   bool    NAME_remove(NAME *c, TYPE *item);    pending/due -> idle; false if idle
 *   size_t  NAME_pop(NAME *c, int64_t now, struct tlist *out);  append due items to out
 *   int64_t NAME_min_time(const NAME *c);        lower bound of the earliest expiry
 *   size_t  NAME_size(const NAME *c);
 *   bool    NAME_empty(const NAME *c);
 *   bool    NAME_pending(const TYPE *item);
 *   int64_t NAME_expire(const TYPE *item);       expiry of a pending or due item
 *                                                (an idle item: its last one; NULL: TIMER_NEVER)
 *   TYPE   *NAME_entry(struct tlist *link);      item of a result-list link; NULL for NULL
 *   const char *NAME_check(const NAME *c);       O(n) invariant check: NULL, or what is wrong
 * Errors change nothing: -EINVAL (item NULL, expire < 0), -EBUSY (insert of a
 * pending or due item). Valid times are 0 .. INT64_MAX, in any unit.
 *
 * How it works. Time is split into 6-bit groups; with `clock` the wheel's
 * current time, an item lives in level L = the highest group in which its
 * expiry differs from the clock, in slot = that group of its expiry (the
 * scheme of Varghese & Lauck's hierarchical wheels, with skynet-style
 * addressing by the differing bits). 11 levels x 64 slots cover 66 bits; one
 * 704-bit occupancy bitmap says which slots hold items. Within a level every
 * occupied slot is ahead of the clock's group, and every item of level L is
 * earlier than every item of level L+1, so the first set bit is the earliest
 * slot. pop(now) takes whole slots below now's slot, and re-files only the
 * items of the one slot that now lands in; a re-filed item moves at least one
 * level down, so it moves at most 10 times in its life and never cycles.
 * Items inserted at or before the clock wait, sorted, in an overdue list that
 * every pop with now >= their expiry drains.
 *
 * Guarantees and costs:
 * - insert, remove, reschedule O(1) (an insert at or before the clock goes
 *   into the sorted overdue list: O(1) at either end, so for runs in
 *   increasing or decreasing order; O(overdue items) at worst);
 * - pop(now) appends exactly the items with expire <= now; O(1) per item
 *   plus O(11) words of bitmap; a pop with now behind the clock only looks at
 *   the overdue list, and costs O(items it pops);
 * - pop order: overdue items first, sorted by expiry; then the rest slot by
 *   slot, in increasing time ranges. Items that share a slot come in no
 *   particular order: in a level-0 slot they share one expiry, but a coarser
 *   slot that a pop takes whole spans 64^L ticks. So one pop's output is
 *   sorted only to slot granularity: use timer_set.h or timer_heap.h when it
 *   must be in exact expiry order;
 * - min_time is O(1) and never later than the earliest expiry. It is exact
 *   when the earliest item is overdue, lies in the clock's finest 64-tick
 *   window, or is alone in its slot; otherwise it is the start of the earliest
 *   occupied slot. Repeating `t = min_time(); pop(t)` pops the earliest item
 *   within 11 rounds (each round moves it at least one level down);
 * - the clock moves only forward, only by pop.
 *
 * Misuse that is not detected: an item freed while pending (remove it
 * first), and remove() or reschedule() with a container other than the one
 * holding the item (asserted in debug builds when it empties a slot).
 * A user type named `timer` would make TIMER_WHEEL_DEFINE's `timer_wheel`
 * clash with this header's own names: use TIMER_WHEEL_DEFINE_NAMED then.
 */
#ifndef TIMER_WHEEL_H
#define TIMER_WHEEL_H

#include <assert.h>
#include <errno.h>
#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include "list.h"
#include "bitmap.h"

#define TIMER_WHEEL_BITS 6
#define TIMER_WHEEL_SLOTS 64
#define TIMER_WHEEL_LEVELS 11
/* Slot index of the overdue list, after the 704 wheel slots. */
#define TIMER_WHEEL_OVERDUE (TIMER_WHEEL_LEVELS * TIMER_WHEEL_SLOTS)
#define TIMER_WHEEL_NSLOTS (TIMER_WHEEL_OVERDUE + 1)

/* A pending node stores its expiry; a due node stores ~expiry (negative), so
 * the sign tells the two states apart without a flag field. Idle: link.next
 * is NULL, which is also what tlist_pop_front leaves behind. */
struct timer_wheel_node {
    struct tlist link;      /* in a slot list (pending) or a result list (due) */
    int64_t expire;
};

struct timer_wheel {
    int64_t now;            /* the clock */
    size_t count;           /* pending items */
    /* Bit i set <=> slot[i] is non-empty. A slot's head is initialised when
     * its bit is set, so init only has to clear 12 words. */
    uint64_t occupied[TBITMAP_WORDS(TIMER_WHEEL_NSLOTS)];
    struct tlist slot[TIMER_WHEEL_NSLOTS];
};

#define timer_wheel_node_of_(l) tlist_entry(l, struct timer_wheel_node, link)

TIMER_INLINE_ bool timer_wheel_node_pending(const struct timer_wheel_node *n)
{
    return n != NULL && n->link.next != NULL && n->expire >= 0;
}

TIMER_INLINE_ int64_t timer_wheel_node_expire(const struct timer_wheel_node *n)
{
    if (n == NULL)
        return TIMER_NEVER;
    return n->expire < 0 ? ~n->expire : n->expire;
}

TIMER_INLINE_ void timer_wheel_init(struct timer_wheel *w, int64_t now)
{
    w->now = now < 0 ? 0 : now;
    w->count = 0;
    tbitmap_zero(w->occupied, TIMER_WHEEL_NSLOTS);
}

/* The slot of an expiry that is later than the clock. */
TIMER_INLINE_ size_t timer_wheel_slot_(int64_t clock, int64_t expire)
{
    unsigned level = tbitmap_highest((uint64_t)expire ^ (uint64_t)clock) / TIMER_WHEEL_BITS;
    return level * TIMER_WHEEL_SLOTS +
           (size_t)(((uint64_t)expire >> (level * TIMER_WHEEL_BITS)) & (TIMER_WHEEL_SLOTS - 1));
}

/* Append an unlinked node to slot i, initialising the head if i was empty.
 * (Written so that the tail load does not wait for the bitmap test: a
 * variant that chose the tail from the test ran twice as slow on random
 * inserts.) */
TIMER_INLINE_ void timer_wheel_link_(struct timer_wheel *w, size_t i, struct timer_wheel_node *n)
{
    struct tlist *head = &w->slot[i];
    if (!tbitmap_test(w->occupied, i)) {
        tbitmap_set(w->occupied, i);
        tlist_init(head);
    }
    tlist_push_back(head, &n->link);
}

/* Overdue items are kept sorted (FIFO among equal expiries). Inserts at
 * either end are O(1), so runs in increasing or decreasing order are cheap;
 * others search from the end. */
TIMER_INLINE_ void timer_wheel_link_overdue_(struct timer_wheel *w, struct timer_wheel_node *n)
{
    struct tlist *head = &w->slot[TIMER_WHEEL_OVERDUE], *pos;
    if (!tbitmap_test(w->occupied, TIMER_WHEEL_OVERDUE)) {
        tbitmap_set(w->occupied, TIMER_WHEEL_OVERDUE);
        tlist_init(head);
    }
    if (head->next != head && n->expire < timer_wheel_node_of_(head->next)->expire) {
        tlist_push_front(head, &n->link);
        return;
    }
    for (pos = head->prev; pos != head; pos = pos->prev)
        if (timer_wheel_node_of_(pos)->expire <= n->expire)
            break;
    tlist_push_back(pos->next, &n->link);   /* i.e. link n just after pos */
}

/* File an unlinked node at `expire` relative to the current clock. */
TIMER_INLINE_ void timer_wheel_file_(struct timer_wheel *w, int64_t expire, struct timer_wheel_node *n)
{
    n->expire = expire;
    if (expire > w->now)
        timer_wheel_link_(w, timer_wheel_slot_(w->now, expire), n);
    else
        timer_wheel_link_overdue_(w, n);
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

TIMER_INLINE_ bool timer_wheel_remove(struct timer_wheel *w, struct timer_wheel_node *n)
{
    struct tlist *prev, *next;
    if (n == NULL || n->link.next == NULL)
        return false;
    prev = n->link.prev;
    next = n->link.next;
    prev->next = next;
    next->prev = prev;
    n->link.next = NULL;
    n->link.prev = NULL;
    if (n->expire >= 0) {
        w->count--;
        /* After the unlink, prev == next only when the head is the one
         * node left: the slot is empty. */
        if (prev == next) {
            assert((uintptr_t)prev - (uintptr_t)w->slot < sizeof w->slot &&
                   "timer_wheel_remove: item belongs to another wheel");
            tbitmap_clear(w->occupied, (size_t)(prev - w->slot));
        }
    }
    return true;
}

TIMER_INLINE_ int timer_wheel_reschedule(struct timer_wheel *w, int64_t expire, struct timer_wheel_node *n)
{
    if (n == NULL || expire < 0)
        return -EINVAL;
    /* A pending item that stays in its slot only needs its new expiry: the
     * common case of a connection timeout pushed back by a few ticks. */
    if (timer_wheel_node_pending(n) && n->expire > w->now && expire > w->now &&
        timer_wheel_slot_(w->now, n->expire) == timer_wheel_slot_(w->now, expire)) {
        n->expire = expire;
        return 0;
    }
    timer_wheel_remove(w, n);
    timer_wheel_file_(w, expire, n);
    w->count++;
    return 0;
}

/* Hand the whole of slot i to out as due items. The walk that marks them
 * runs from both ends at once: two independent chains of loads, so two
 * cache misses are in flight when the items are cold. */
TIMER_INLINE_ size_t timer_wheel_take_slot_(struct timer_wheel *w, size_t i, struct tlist *out)
{
    struct tlist *head = &w->slot[i], *a = head->next, *b = head->prev;
    size_t k = 0;
    for (;;) {
        timer_wheel_node_of_(a)->expire = ~timer_wheel_node_of_(a)->expire;
        k++;
        if (a == b)
            break;
        timer_wheel_node_of_(b)->expire = ~timer_wheel_node_of_(b)->expire;
        k++;
        a = a->next;
        if (a == b)
            break;
        b = b->prev;
    }
    tlist_splice_back(out, head);
    tbitmap_clear(w->occupied, i);
    return k;
}

/* now is behind the clock: pop the due prefix of the sorted overdue list. */
TIMER_INLINE_ size_t timer_wheel_pop_overdue_(struct timer_wheel *w, int64_t now, struct tlist *out)
{
    struct tlist *head = &w->slot[TIMER_WHEEL_OVERDUE], *pos;
    size_t k = 0;
    while ((pos = head->next) != head && timer_wheel_node_of_(pos)->expire <= now) {
        struct timer_wheel_node *n = timer_wheel_node_of_(pos);
        tlist_remove(pos);
        n->expire = ~n->expire;
        tlist_push_back(out, pos);
        k++;
    }
    if (tlist_empty(head))
        tbitmap_clear(w->occupied, TIMER_WHEEL_OVERDUE);
    return k;
}

/* Move one item of a slot being re-filed: out if due, else one level finer. */
TIMER_INLINE_ size_t timer_wheel_refile_one_(struct timer_wheel *w, struct tlist *pos, int64_t now,
                                             struct tlist *out)
{
    struct timer_wheel_node *n = timer_wheel_node_of_(pos);
    int64_t expire = n->expire;
    pos->next = NULL;                       /* detached from the old slot */
    if (expire <= now) {
        n->expire = ~expire;
        tlist_push_back(out, pos);
        return 1;
    }
    timer_wheel_link_(w, timer_wheel_slot_(now, expire), n);
    return 0;
}

/* The clock has just moved to now, into slot i: its items are due or move
 * to a finer level (they share every group from i's level up with now).
 * The slots they move to are all empty, below i's level, so the order in
 * which they are visited is free: the walk runs from both ends at once, to
 * keep two cache misses in flight. */
TIMER_INLINE_ size_t timer_wheel_refile_(struct timer_wheel *w, size_t i, struct tlist *out)
{
    struct tlist *head = &w->slot[i], *a = head->next, *b = head->prev, *na, *pb;
    int64_t now = w->now;
    size_t k = 0;
    tbitmap_clear(w->occupied, i);
    for (;;) {
        if (a == b) {
            k += timer_wheel_refile_one_(w, a, now, out);
            break;
        }
        na = a->next;
        pb = b->prev;
        k += timer_wheel_refile_one_(w, a, now, out);
        k += timer_wheel_refile_one_(w, b, now, out);
        if (na == b)
            break;
        a = na;
        b = pb;
    }
    return k;
}

TIMER_INLINE_ size_t timer_wheel_pop(struct timer_wheel *w, int64_t now, struct tlist *out)
{
    size_t k = 0, i, end;
    if (tbitmap_test(w->occupied, TIMER_WHEEL_OVERDUE)) {
        if (now >= w->now)
            k += timer_wheel_take_slot_(w, TIMER_WHEEL_OVERDUE, out);
        else
            k += timer_wheel_pop_overdue_(w, now, out);
    }
    if (now > w->now) {
        /* now's own slot, at the highest level where now and the clock
         * differ: everything below it is due, and it gets re-filed. */
        end = timer_wheel_slot_(w->now, now);
        i = 0;
        while ((i = tbitmap_find_first(w->occupied, i, end)) < end)
            k += timer_wheel_take_slot_(w, i, out);
        w->now = now;
        if (tbitmap_test(w->occupied, end))
            k += timer_wheel_refile_(w, end, out);
    }
    w->count -= k;
    return k;
}

TIMER_INLINE_ int64_t timer_wheel_min_time(const struct timer_wheel *w)
{
    size_t i;
    unsigned shift;
    const struct tlist *head;
    uint64_t high;
    if (tbitmap_test(w->occupied, TIMER_WHEEL_OVERDUE))
        return timer_wheel_node_of_(w->slot[TIMER_WHEEL_OVERDUE].next)->expire;
    i = tbitmap_find_first(w->occupied, 0, TIMER_WHEEL_OVERDUE);
    if (i == TIMER_WHEEL_OVERDUE)
        return TIMER_NEVER;
    head = &w->slot[i];
    if (head->next == head->prev)           /* alone in its slot: exact */
        return timer_wheel_node_of_(head->next)->expire;
    /* The start of slot i: the clock's groups above its level, the slot's
     * group, zeros below. Exact at level 0, where a slot is one tick. */
    shift = (unsigned)(i / TIMER_WHEEL_SLOTS) * TIMER_WHEEL_BITS;
    high = shift + TIMER_WHEEL_BITS < 64 ? (uint64_t)w->now >> (shift + TIMER_WHEEL_BITS)
                                                 << (shift + TIMER_WHEEL_BITS)
                                          : 0;
    return (int64_t)(high | ((uint64_t)(i % TIMER_WHEEL_SLOTS) << shift));
}

TIMER_INLINE_ void timer_wheel_clear(struct timer_wheel *w)
{
    size_t i = 0;
    struct tlist *pos, *next;
    while ((i = tbitmap_find_first(w->occupied, i, TIMER_WHEEL_NSLOTS)) < TIMER_WHEEL_NSLOTS) {
        struct tlist *head = &w->slot[i];
        for (pos = head->next; pos != head; pos = next) {
            next = pos->next;
            pos->next = NULL;
            pos->prev = NULL;
        }
        tbitmap_clear(w->occupied, i);
    }
    w->count = 0;
}

/* The wheel owns no memory: destroy is clear. */
TIMER_INLINE_ void timer_wheel_destroy(struct timer_wheel *w)
{
    timer_wheel_clear(w);
}

/* O(n + slots). NULL when every item sits in the slot its expiry maps to,
 * the bitmap matches the slots and the count matches the items. */
TIMER_INLINE_ const char *timer_wheel_check(const struct timer_wheel *w)
{
    size_t i, seen = 0;
    const struct tlist *pos;
    if (w->now < 0)
        return "clock is negative";
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
            } else if (n->expire <= w->now || timer_wheel_slot_(w->now, n->expire) != i) {
                return "item is not in the slot its expiry maps to";
            }
        }
    }
    if (seen != w->count)
        return "count does not match the items in slots";
    return NULL;
}

#define TIMER_WHEEL_DEFINE(type, member) TIMER_WHEEL_DEFINE_NAMED(type##_wheel, type, member)

#define TIMER_WHEEL_DEFINE_NAMED(name, type, member)      \
    typedef struct name { struct timer_wheel wheel; } name; \
    TIMER_DEFINE_WRAPPERS_(name, type, member, timer_wheel, wheel)

#endif /* TIMER_WHEEL_H */
