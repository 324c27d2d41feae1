/* SPDX-License-Identifier: MIT */
/* list.h - intrusive circular doubly linked list; carries the results of a timer pop.
 *
 * A `struct tlist` is both a list head and a link embedded in an item. A head
 * is empty when it points at itself; a link that is in no list has both
 * pointers NULL, so a zeroed link is "unlinked" without an init call. The
 * timer containers (timer_set.h, timer_heap.h, timer_wheel.h) hand out due
 * items linked into a caller's list, and an item taken off that list (by
 * tlist_pop_front or tlist_remove) is idle again.
 *
 *     struct tlist out;
 *     struct tlist *link;
 *     tlist_init(&out);
 *     conn_wheel_pop(&wheel, now, &out);
 *     while ((link = tlist_pop_front(&out)) != NULL) {
 *         conn *c = conn_wheel_entry(link);      // idle again: may be re-inserted or freed
 *         ...
 *     }
 *
 * API (all static inline, O(1) unless said):
 *   void          tlist_init(struct tlist *head);              make head an empty list
 *   bool          tlist_empty(const struct tlist *head);
 *   size_t        tlist_size(const struct tlist *head);        O(n)
 *   bool          tlist_linked(const struct tlist *link);      link is in some list
 *   void          tlist_push_back(struct tlist *head, struct tlist *link);
 *   void          tlist_push_front(struct tlist *head, struct tlist *link);
 *   void          tlist_remove(struct tlist *link);            unlink; link becomes unlinked
 *   struct tlist *tlist_pop_front(struct tlist *head);         NULL when empty; link unlinked
 *   void          tlist_splice_back(struct tlist *dst, struct tlist *src);
 *                                                   move all of src to dst's end; src empty
 *   tlist_entry(link, type, member)           the item that embeds `link` as `member`
 *   tlist_foreach(pos, head)                  iterate; the body must not unlink pos
 *   tlist_foreach_safe(pos, tmp, head)        iterate; the body may unlink pos
 *
 * Pushing a link that is already in a list corrupts both lists (assert in
 * debug builds). Removing an unlinked link is a no-op.
 *
 * This header also holds the two names every timer header shares:
 * TIMER_NEVER (the "no expiry" time) and TIMER_INLINE_ (the linkage of all
 * generated functions: static inline, and unused-safe on gcc and clang).
 */
#ifndef TIMER_LIST_H
#define TIMER_LIST_H

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__) || defined(__clang__)
#define TIMER_INLINE_ static inline __attribute__((unused))
#else
#define TIMER_INLINE_ static inline
#endif

/* The library's version, from every header (each includes this one). */
#define TIMER_VERSION_MAJOR 2
#define TIMER_VERSION_MINOR 0
#define TIMER_VERSION_PATCH 0
#define TIMER_VERSION "2.0.0"

/* The "no expiry" time: what min_time returns for an empty container. */
#define TIMER_NEVER INT64_MAX

struct tlist {
    struct tlist *next, *prev;
};

/* The typed wrappers that TIMER_SET/HEAP/WHEEL_DEFINE_NAMED generate for a
 * container `name` of items `type` holding their node in `member`: each
 * forwards to the untyped implementation `core` (timer_set, timer_heap,
 * timer_wheel), stored in the container as `field`. Every node type starts
 * with its result-list link, so the link's item is the node's item. The
 * parameters end in _ so that they cannot capture a user's names. */
#define TIMER_DEFINE_WRAPPERS_(name, type, member, core, field)                                                       \
    TIMER_INLINE_ void name##_init(name *timer_c_, int64_t timer_now_) { core##_init(&timer_c_->field, timer_now_); } \
    TIMER_INLINE_ void name##_clear(name *timer_c_) { core##_clear(&timer_c_->field); }                               \
    TIMER_INLINE_ void name##_destroy(name *timer_c_) { core##_destroy(&timer_c_->field); }                           \
    TIMER_INLINE_ int name##_insert(name *timer_c_, int64_t timer_expire_, type *timer_item_)                         \
    { return core##_insert(&timer_c_->field, timer_expire_, timer_item_ ? &timer_item_->member : NULL); }             \
    TIMER_INLINE_ int name##_reschedule(name *timer_c_, int64_t timer_expire_, type *timer_item_)                     \
    { return core##_reschedule(&timer_c_->field, timer_expire_, timer_item_ ? &timer_item_->member : NULL); }         \
    TIMER_INLINE_ bool name##_remove(name *timer_c_, type *timer_item_)                                               \
    { return core##_remove(&timer_c_->field, timer_item_ ? &timer_item_->member : NULL); }                            \
    TIMER_INLINE_ size_t name##_pop(name *timer_c_, int64_t timer_now_, struct tlist *timer_out_)                     \
    { return core##_pop(&timer_c_->field, timer_now_, timer_out_); }                                                  \
    TIMER_INLINE_ int64_t name##_min_time(const name *timer_c_) { return core##_min_time(&timer_c_->field); }         \
    TIMER_INLINE_ size_t name##_size(const name *timer_c_) { return timer_c_->field.count; }                          \
    TIMER_INLINE_ bool name##_empty(const name *timer_c_) { return timer_c_->field.count == 0; }                      \
    TIMER_INLINE_ bool name##_pending(const type *timer_item_)                                                        \
    { return core##_node_pending(timer_item_ ? &timer_item_->member : NULL); }                                        \
    TIMER_INLINE_ int64_t name##_expire(const type *timer_item_)                                                      \
    { return core##_node_expire(timer_item_ ? &timer_item_->member : NULL); }                                         \
    TIMER_INLINE_ type *name##_entry(struct tlist *timer_link_)                                                       \
    { return timer_link_ ? tlist_entry(timer_link_, type, member) : NULL; }                                           \
    TIMER_INLINE_ const char *name##_check(const name *timer_c_) { return core##_check(&timer_c_->field); }

#define tlist_entry(link, type, member) \
    ((type *)(void *)((char *)(link) - offsetof(type, member)))

#define tlist_foreach(pos, head) \
    for ((pos) = (head)->next; (pos) != (head); (pos) = (pos)->next)

#define tlist_foreach_safe(pos, tmp, head) \
    for ((pos) = (head)->next, (tmp) = (pos)->next; (pos) != (head); \
         (pos) = (tmp), (tmp) = (pos)->next)

TIMER_INLINE_ void tlist_init(struct tlist *head)
{
    head->next = head;
    head->prev = head;
}

TIMER_INLINE_ bool tlist_empty(const struct tlist *head)
{
    return head->next == head;
}

TIMER_INLINE_ bool tlist_linked(const struct tlist *link)
{
    return link->next != NULL;
}

TIMER_INLINE_ size_t tlist_size(const struct tlist *head)
{
    size_t n = 0;
    const struct tlist *pos;
    for (pos = head->next; pos != head; pos = pos->next)
        n++;
    return n;
}

TIMER_INLINE_ void tlist_push_back(struct tlist *head, struct tlist *link)
{
    struct tlist *last = head->prev;
    assert(link->next == NULL && "tlist_push_back: link is already in a list");
    link->next = head;
    link->prev = last;
    last->next = link;
    head->prev = link;
}

TIMER_INLINE_ void tlist_push_front(struct tlist *head, struct tlist *link)
{
    struct tlist *first = head->next;
    assert(link->next == NULL && "tlist_push_front: link is already in a list");
    link->next = first;
    link->prev = head;
    first->prev = link;
    head->next = link;
}

TIMER_INLINE_ void tlist_remove(struct tlist *link)
{
    if (link->next == NULL)
        return;
    link->next->prev = link->prev;
    link->prev->next = link->next;
    link->next = NULL;
    link->prev = NULL;
}

TIMER_INLINE_ struct tlist *tlist_pop_front(struct tlist *head)
{
    struct tlist *link = head->next;
    if (link == head)
        return NULL;
    head->next = link->next;
    link->next->prev = head;
    link->next = NULL;
    link->prev = NULL;
    return link;
}

TIMER_INLINE_ void tlist_splice_back(struct tlist *dst, struct tlist *src)
{
    struct tlist *first = src->next, *last = src->prev;
    if (first == src)
        return;
    first->prev = dst->prev;
    dst->prev->next = first;
    last->next = dst;
    dst->prev = last;
    tlist_init(src);
}

#endif /* TIMER_LIST_H */
