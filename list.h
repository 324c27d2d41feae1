/* SPDX-License-Identifier: MIT */
/* list.h - intrusive circular doubly linked list; carries the results of a timer pop.
 *
 * A `struct tlist` is both a list head and a link embedded in an item. A link
 * that is in no list has both pointers NULL, and a head whose bytes are all
 * zero is an empty list, exactly like one after tlist_init: so neither needs
 * an init call (`struct tlist out = {0};`, static, calloc, memset). The timer
 * containers (timer_set.h, timer_heap.h, timer_wheel.h) hand out due items
 * linked into a caller's list, and an item taken off that list (by
 * tlist_pop_front or tlist_remove) is idle again.
 *
 *     struct tlist out = {0};                    // or tlist_init(&out)
 *     struct tlist *link;
 *     conn_wheel_pop(&wheel, now, &out);
 *     tlist_drain(link, &out) {                  // each link is off the list first
 *         conn *c = conn_wheel_entry(link);      // idle again: may be re-armed or freed
 *         ...
 *     }
 *
 * API (all static inline, O(1) unless said; every head may be zeroed or inited):
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
 *   tlist_entry(link, type, member)     the item that embeds `link` as `member`
 *   tlist_drain(pos, head) { ... }      take each link off the front until head is
 *                                       empty: the body may do anything (the way to
 *                                       handle due items); pos is a struct tlist *
 *   tlist_foreach(pos, head) { ... }    walk without taking links off: the body may
 *                                       unlink, remove, reschedule or free pos itself
 *                                       and remove any later link; where a body took
 *                                       out the link before pos, the walk cannot go
 *                                       on: builds with asserts abort naming
 *                                       tlist_drain, others end the walk
 *   tlist_foreach_safe(pos, tmp, head)  walk; the body may unlink pos (only)
 *
 * Pushing a link that is already in a list corrupts both lists (assert in
 * debug builds). Removing an unlinked link is a no-op.
 *
 * What every timer header shares lives here too:
 *   TIMER_NEVER                 INT64_MAX: "no expiry"; see the container headers
 *   TIMER_VERSION_MAJOR/_MINOR/_PATCH, TIMER_VERSION ("X.Y.Z"); two versions of
 *                               these headers in one translation unit stop
 *                               compiling at the second's first line, naming both
 *   TIMER_TYPES_ONLY            defined before including any timer header: only
 *                               the node types, the TIMER_*_DEFINE_TYPE macros
 *                               and struct tlist (a node's link), no function,
 *                               no core struct, no bool and no macro but the
 *                               version, the guards and DEFINE_TYPE; for a
 *                               public header, timer_KIND_types.h declares the
 *                               same for one kind and leaves TIMER_TYPES_ONLY alone
 *   TIMER_DEBUG                 defined before the first timer header of a
 *                               translation unit: every generated call
 *                               that changes a container runs its check() after,
 *                               and remove/reschedule first verify that the item
 *                               is not pending in another container; either
 *                               failure prints "timer_containers: NAME_fn: why"
 *                               to stderr and aborts (so does insert of an
 *                               item that is due or linked elsewhere, in any
 *                               build with asserts)
 *   TIMER_NODISCARD             what marks the generated calls whose result
 *                               reports an error (insert, the reschedules,
 *                               reserve, check), always in a form a (void)
 *                               cast silences: [[nodiscard]] (C23, C++17,
 *                               and gcc 11 / g++ 7 and up in any mode),
 *                               clang's warn_unused_result; none with older
 *                               gcc; defined before including, that (empty:
 *                               none)
 *   TIMER_DEFINE_WRAPPERS_      the typed wrappers (below), with the interface
 *                               each container core provides for them; and
 *                               TIMER_WRAPPERS_, TIMER_DECLARE_WRAPPERS_ for
 *                               the DECLARE/IMPLEMENT forms (extern)
 */

/* ---- one version per translation unit ---------------------------------- */
/* Every header includes this one before its own guards, so a header of
 * another version (a library's embedded copy beside the application's)
 * stops here, at its first line, with an error that names both versions.
 * The guards are keyed to the version this way: a header that gets past
 * this check is of the version whose guards are set. (2.1.0 and older used
 * other guard names: one of them after this version fails on its
 * redefinitions, never silently.) The numbers in the test are this copy's
 * version, as in the macros below: pkg/set_version.sh writes both. */
#if defined(TIMER_VERSION_MAJOR) && (TIMER_VERSION_MAJOR != 2 || TIMER_VERSION_MINOR != 4 || TIMER_VERSION_PATCH != 0)
#if defined(__GNUC__) || defined(__clang__)
/* #error cannot expand macros; this pragma, built by them, can. */
#define TIMER_CLASH_STR2_(x) #x
#define TIMER_CLASH_STR_(x) TIMER_CLASH_STR2_(x)
#define TIMER_CLASH_(a, b, c)                                                                                 \
    _Pragma(TIMER_CLASH_STR_(GCC error TIMER_CLASH_STR_(timer_containers: version 2.4.0 (this header) and a.b.c \
        (included before) in one translation unit: use one copy of the library)))
TIMER_CLASH_(TIMER_VERSION_MAJOR, TIMER_VERSION_MINOR, TIMER_VERSION_PATCH)
#undef TIMER_CLASH_STR2_
#undef TIMER_CLASH_STR_
#undef TIMER_CLASH_
#else
#error "timer_containers: version 2.4.0 (this header) and another (TIMER_VERSION, included before) in one translation unit"
#endif
#endif

/* ---- the types: also for a public header (TIMER_TYPES_ONLY, timer_*_types.h) */
/* What a public header gets: struct tlist (a node's first member) and the
 * version; no <stdbool.h> (so no bool, true or false), no function and no
 * macro without the TIMER_ or TLIST_ prefix. */
#ifndef TIMER_LIST_H_TYPES
#define TIMER_LIST_H_TYPES

#include <stddef.h>
#include <stdint.h>

/* The library's version, from every header (each includes this one). */
#define TIMER_VERSION_MAJOR 2
#define TIMER_VERSION_MINOR 4
#define TIMER_VERSION_PATCH 0
#define TIMER_VERSION "2.4.0"

struct tlist {
    struct tlist *next, *prev;
};

#endif /* TIMER_LIST_H_TYPES */

/* ---- the functions ---------------------------------------------------------- */
#if !defined(TIMER_TYPES_ONLY) && !defined(TIMER_TYPES_PASS_) && !defined(TIMER_LIST_H_FUNCTIONS)
#define TIMER_LIST_H_FUNCTIONS

/* The "no expiry" time: what min_time and next_expiry return for an empty
 * container, and also a valid expiry (an item there pops only at
 * pop(TIMER_NEVER)): test empty() to tell the two apart. */
#define TIMER_NEVER INT64_MAX

#include <assert.h>
#include <errno.h>
#include <stdbool.h>

#if defined(__GNUC__) || defined(__clang__)
#define TIMER_INLINE_ static inline __attribute__((unused))
/* A rare path kept out of its caller, so the common path stays short. */
#define TIMER_NOINLINE_ static __attribute__((unused, noinline))
#elif defined(_MSC_VER)
#define TIMER_INLINE_ static inline
#define TIMER_NOINLINE_ static __declspec(noinline)
#else
#define TIMER_INLINE_ static inline
#define TIMER_NOINLINE_ static
#endif

/* C++ with -Wold-style-cast: the casts inside the headers' own functions
 * are C (the headers are C99 first) and stay quiet between these two
 * marks, which each header puts around its functions; the macros that
 * expand in the user's code (tlist_entry, the DEFINEs) use C++ casts there
 * instead (TIMER_CAST_). */
#if defined(__cplusplus) && (defined(__GNUC__) || defined(__clang__))
#define TIMER_FUNCTIONS_BEGIN_ _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wold-style-cast\"") \
    _Pragma("GCC diagnostic ignored \"-Wzero-as-null-pointer-constant\"")
#define TIMER_FUNCTIONS_END_ _Pragma("GCC diagnostic pop")
#else
#define TIMER_FUNCTIONS_BEGIN_
#define TIMER_FUNCTIONS_END_
#endif
#if defined(__cplusplus)
#define TIMER_CAST_(type, expr) (static_cast<type>(expr))
#define tlist_entry(link, type, member) \
    (reinterpret_cast<type *>(reinterpret_cast<uintptr_t>(link) - offsetof(type, member)))
#else
#define TIMER_CAST_(type, expr) ((type)(expr))
#define tlist_entry(link, type, member) \
    ((type *)(void *)((char *)(link) - offsetof(type, member)))
#endif

TIMER_FUNCTIONS_BEGIN_

/* The first link of a list, or the head itself when the list is empty
 * (zeroed or inited). It takes a const head too, as tlist_foreach does:
 * the head is only compared with, never written through. */
TIMER_INLINE_ struct tlist *tlist_first_(const struct tlist *head)
{
    return head->next != NULL ? head->next : (struct tlist *)(uintptr_t)head;
}

/* The last link, or the head itself when the list is empty. */
TIMER_INLINE_ struct tlist *tlist_last_(struct tlist *head)
{
    return head->prev != NULL ? head->prev : head;
}

/* tlist_foreach's step. prev is the link visited before pos (or the head),
 * before the link visited before prev (or the head). A body that left pos
 * in place leaves prev->next == pos: go on from pos. One that took pos out
 * (unlinked, removed, re-armed into a container, freed) changed prev->next
 * to what now follows: go on from there, without reading pos. So both
 * follow any later item the body removed, too. What cannot be followed is
 * a body that took prev itself out (unlinked, removed, re-armed, freed):
 * then prev->next is not pos and prev->prev is no longer `before`, so the
 * walk stops without following prev->next, which may now lead into a
 * container's list or be no pointer at all (the heap stores an index
 * there): builds with asserts abort naming tlist_drain, others end the
 * walk. Only values are compared before that: nothing the body may have
 * freed is followed. */
TIMER_INLINE_ struct tlist *tlist_foreach_next_(const struct tlist **prev, const struct tlist **before,
                                                const struct tlist *pos, const struct tlist *head)
{
    const struct tlist *p = *prev;
    if (p->next == pos) {                   /* pos is in place: step over it */
        *before = p;
        *prev = pos;
        return pos->next;
    }
    if (p == head || p->prev == *before)    /* prev is in place: pos was taken out */
        return p->next;
    assert(0 && "tlist_foreach: the body took an item already visited out of the list; "
            "walk a due list with tlist_drain instead");
    return (struct tlist *)(uintptr_t)head;
}

/* The walk's own variables, one pair per source line, so that nested walks
 * (on different lines) do not shadow each other. */
#define TLIST_CAT2_(a, b) a##b
#define TLIST_CAT_(a, b) TLIST_CAT2_(a, b)
#define TLIST_PREV_ TLIST_CAT_(tlist_prev_, __LINE__)
#define TLIST_BEFORE_ TLIST_CAT_(tlist_before_, __LINE__)

#define tlist_foreach(pos, head)                                                                \
    for (const struct tlist *TLIST_PREV_ = ((pos) = tlist_first_(head), (head)), *TLIST_BEFORE_ = (head); \
         (pos) != (head); (pos) = tlist_foreach_next_(&TLIST_PREV_, &TLIST_BEFORE_, (pos), (head)))

#define tlist_drain(pos, head) for (; ((pos) = tlist_pop_front(head)) != NULL;)

#define tlist_foreach_safe(pos, tmp, head) \
    for ((pos) = tlist_first_(head), (tmp) = (pos)->next; (pos) != (head); \
         (pos) = (tmp), (tmp) = (pos)->next)

TIMER_INLINE_ void tlist_init(struct tlist *head)
{
    head->next = head;
    head->prev = head;
}

TIMER_INLINE_ bool tlist_empty(const struct tlist *head)
{
    return head->next == head || head->next == NULL;
}

TIMER_INLINE_ bool tlist_linked(const struct tlist *link)
{
    return link->next != NULL;
}

TIMER_INLINE_ size_t tlist_size(const struct tlist *head)
{
    size_t n = 0;
    const struct tlist *pos;
    if (head->next == NULL)
        return 0;
    for (pos = head->next; pos != head; pos = pos->next)
        n++;
    return n;
}

/* The unchecked forms the containers use on heads they know are inited
 * (slot heads, and a result list after tlist_ready_), as the kernel's
 * __list_add sits under list_add: no zeroed-head test per item. */
TIMER_INLINE_ void tlist_push_back_(struct tlist *head, struct tlist *link)
{
    struct tlist *last = head->prev;
    assert(link->next == NULL && "tlist_push_back: link is already in a list");
    link->next = head;
    link->prev = last;
    last->next = link;
    head->prev = link;
}

/* A zeroed head becomes an inited one (both are empty lists): once per pop. */
TIMER_INLINE_ void tlist_ready_(struct tlist *head)
{
    if (head->next == NULL)
        tlist_init(head);
}

TIMER_INLINE_ void tlist_push_back(struct tlist *head, struct tlist *link)
{
    tlist_ready_(head);
    tlist_push_back_(head, link);
}

TIMER_INLINE_ void tlist_push_front(struct tlist *head, struct tlist *link)
{
    struct tlist *first = tlist_first_(head);
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
    if (link == head || link == NULL)
        return NULL;
    head->next = link->next;
    link->next->prev = head;
    link->next = NULL;
    link->prev = NULL;
    return link;
}

/* Unchecked: append the chain first .. last, already out of its list, to
 * the end of dst (inited). */
TIMER_INLINE_ void tlist_splice_range_(struct tlist *dst, struct tlist *first, struct tlist *last)
{
    struct tlist *tail = dst->prev;
    first->prev = tail;
    tail->next = first;
    last->next = dst;
    dst->prev = last;
}

/* Unchecked: dst inited, src inited and not empty; src is left as it was. */
TIMER_INLINE_ void tlist_splice_back_(struct tlist *dst, struct tlist *src)
{
    tlist_splice_range_(dst, src->next, src->prev);
}

TIMER_INLINE_ void tlist_splice_back(struct tlist *dst, struct tlist *src)
{
    if (src->next == src || src->next == NULL)
        return;
    tlist_ready_(dst);
    tlist_splice_back_(dst, src);
    tlist_init(src);
}

/* ---- misuse that stops with a message: builds with asserts, and TIMER_DEBUG */
#if !defined(NDEBUG) || defined(TIMER_DEBUG)
#include <stdio.h>
#include <stdlib.h>

/* "timer_containers: FN: WHY" on stderr, then abort (out of line: the
 * callers' common path stays short). */
TIMER_NOINLINE_ void timer_fail_(const char *fn, const char *why)
{
    fprintf(stderr, "timer_containers: %s: %s\n", fn, why);
    fflush(stderr);
    abort();
}

/* Does a linked node's own list hold it: do its neighbours point back at
 * it? A result list does; links left over from a list that was re-inited
 * or freed, or written over, no longer do. */
TIMER_INLINE_ bool tlist_points_back_(const struct tlist *link)
{
    return link->next->prev == link && link->prev->next == link;
}

/* Insert of a linked node returns -EBUSY and arms nothing. Silently when the
 * node is pending in this container ("arm unless armed"); otherwise it is
 * one of two mistakes, told apart from the node alone and O(1) checks
 * (core_may_hold_: O(1), or a bounded walk):
 * - due: the node carries its kind's due mark and its neighbours point back
 *   at it, as in a result list: almost always a tlist_foreach body re-arming
 *   with insert, or a node sharing a union that was not zeroed;
 * - links that are not this container's: pending in another container,
 *   linked with neither mark (another list reused the node), or due-marked
 *   with neighbours that no longer point back (stale).
 * The first word of every node is its struct tlist (the set's pending node
 * may have NULL there: its pending mark is elsewhere). */
#define TIMER_LINKED_WELL_(core, c, n, name)                                                   \
    do {                                                                                       \
        const struct tlist *timer_l_ =                                                         \
            TIMER_CAST_(const struct tlist *, TIMER_CAST_(const void *, n));                   \
        if ((n) == NULL || (timer_l_->next == NULL && !core##_node_pending(n)))                \
            break;                                                                             \
        if (core##_node_due(n) && tlist_points_back_(timer_l_))                                \
            timer_fail_(#name "_insert", "the item is due (popped, still in a result list): "  \
                        "re-arm it with " #name "_reschedule, or take each item off the list " \
                        "first (tlist_drain)");                                                \
        if (!core##_node_pending(n) || !core##_may_hold_(c, n))                                \
            timer_fail_(#name "_insert", "the item's links are not this container's (it is "   \
                        "pending in another one, or another list reused its node, or its "     \
                        "links are stale): insert arms nothing (-EBUSY); take it out of "      \
                        "that list, or zero the node if nothing links it any more");           \
    } while (0)
#else
#define TIMER_LINKED_WELL_(core, c, n, name) ((void)0)
#endif

/* ---- TIMER_DEBUG: checks around every generated call that changes a container */
#if defined(TIMER_DEBUG)
/* After a call: the container's own O(n) check must pass. */
#define TIMER_AFTER_(core, c, fn)                          \
    do {                                                   \
        const char *timer_why_ = core##_check(c);          \
        if (timer_why_ != NULL)                            \
            timer_fail_(fn, timer_why_);                   \
    } while (0)
/* Before remove/reschedule: a pending item must be pending in this container. */
#define TIMER_OWNS_(core, c, n, fn)                                                                     \
    do {                                                                                                \
        if (!core##_owns_(c, n))                                                                        \
            timer_fail_(fn, "misuse: the item is not in this container (another holds it, or init "    \
                        "was called while this one held it)");                                         \
    } while (0)
#else
#define TIMER_AFTER_(core, c, fn) ((void)0)
#define TIMER_OWNS_(core, c, n, fn) ((void)0)
#endif

/* A DEFINE whose member is not the container's node type (another
 * container's node, say) stops here, naming the type it must be, instead
 * of warning about pointer types and writing past the node. gcc and clang
 * check in any C mode, other C11 compilers with _Generic; C++ needs no
 * check (the member's address does not convert: that error names the node
 * type); elsewhere the wrappers' pointer warnings remain. */
#if defined(__cplusplus)
#define TIMER_NODE_CHECK_(name, type, member, node)
#elif (defined(__GNUC__) || defined(__clang__)) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define TIMER_NODE_CHECK_(name, type, member, node)                                               \
    _Static_assert(__builtin_types_compatible_p(__typeof__(((type *)0)->member), struct node),  \
                   "" #name ": the member " #member " must be a struct " #node);
#elif defined(__GNUC__) || defined(__clang__)  /* C99: the array's name is the message */
#define TIMER_NODE_CHECK_(name, type, member, node) \
    typedef char name##_member_must_be_a_struct_##node \
        [__builtin_types_compatible_p(__typeof__(((type *)0)->member), struct node) ? 1 : -1];
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define TIMER_NODE_CHECK_(name, type, member, node) \
    _Static_assert(_Generic(((type *)0)->member, struct node: 1, default: 0), #name ": the member " #member " must be a struct " #node);
#else
#define TIMER_NODE_CHECK_(name, type, member, node)
#endif

/* The short DEFINE, TIMER_KIND_DEFINE(type, member), names its container
 * type##_kind: that needs a typedef name for type, and not `timer`
 * (timer_kind is the library's own). For `struct X`, `union X` or `timer`
 * the typedef it starts with pastes into a negative array whose name, the
 * first error, names the _NAMED form. */
#define TIMER_SHORT_DEFINE_(KIND, kind, type, member) \
    typedef int TIMER_SHORT_##type##_##kind;          \
    TIMER_##KIND##_DEFINE_NAMED(type##_##kind, type, member)
#define TIMER_SHORT_struct TIMER_KIND_DEFINE_needs_a_typedef_name_not_struct_X_use_TIMER_KIND_DEFINE_NAMED[-1]; typedef int
#define TIMER_SHORT_union TIMER_KIND_DEFINE_needs_a_typedef_name_not_union_X_use_TIMER_KIND_DEFINE_NAMED[-1]; typedef int
#define TIMER_SHORT_timer_set TIMER_SET_DEFINE_of_type_timer_makes_timer_set_use_TIMER_SET_DEFINE_NAMED[-1]
#define TIMER_SHORT_timer_heap TIMER_HEAP_DEFINE_of_type_timer_makes_timer_heap_use_TIMER_HEAP_DEFINE_NAMED[-1]
#define TIMER_SHORT_timer_wheel TIMER_WHEEL_DEFINE_of_type_timer_makes_timer_wheel_use_TIMER_WHEEL_DEFINE_NAMED[-1]

/* The core inside a container NAME: TIMER_*_DEFINE_TYPE declares NAME with
 * a member of the core's layout but no name of the core's (so that a public
 * header that holds a container declares no struct timer_heap, say), and
 * the functions' part of each header checks that the layouts agree. */
#define TIMER_CORE_(core, c, field) TIMER_CAST_(struct core *, TIMER_CAST_(void *, &(c)->field))
#define TIMER_CCORE_(core, c, field) TIMER_CAST_(const struct core *, TIMER_CAST_(const void *, &(c)->field))
/* On each core struct: a container holds the core's layout, not the core
 * (TIMER_*_DEFINE_TYPE), and is read and written only through a pointer to
 * the core; this makes those accesses valid for any declared type, as for
 * char, so that type-based alias analysis (gcc and clang -O2) cannot move
 * them past one another. */
#if defined(__GNUC__) || defined(__clang__)
#define TIMER_MAY_ALIAS_ __attribute__((__may_alias__))
#else
#define TIMER_MAY_ALIAS_
#endif
/* A check at compile time, in C99: a negative array size when cond fails. */
#define TIMER_STATIC_CHECK_(name, cond) typedef char name[(cond) ? 1 : -1];

/* The node inside an item (NULL for NULL). */
#define TIMER_NODE_(item, member) ((item) != NULL ? &(item)->member : NULL)

/* ---- the results a caller must look at ------------------------------------ */
/* TIMER_NODISCARD marks the generated calls whose result reports an error or
 * a refusal: insert, reschedule, reschedule_range, reschedule_near, reserve
 * and check. Ignoring one is how a timer is lost without a word (an insert
 * of a due or pending item returns -EBUSY and arms nothing). A result that
 * is safe to drop (docs/guarantees.md lists them: reschedule on the set and
 * the wheel cannot fail for a valid item) never needs more than a (void)
 * cast, nginx's and libevent's idiom for "on purpose", so only forms that
 * (void) silences are used: [[nodiscard]] in C23 and C++17; the same as an
 * extension where gcc (11 and up; g++ 7 and up) accepts it in earlier
 * modes (__extension__ keeps -Wpedantic quiet); clang's warn_unused_result
 * before C23 and C++17 (clang lets (void) silence it). gcc's
 * warn_unused_result, which no cast silences, is never used: an older gcc
 * gets no mark (define TIMER_NODISCARD as that attribute to have it
 * anyway). Defined before including, TIMER_NODISCARD is what marks them
 * (empty: nothing). remove and pop are not marked: remove's false says
 * only that the item was idle already, which "cancel if armed" code
 * rightly ignores; pop's count repeats what it appended to the list. */
#ifndef TIMER_NODISCARD
#if defined(__cplusplus)
#if __cplusplus >= 201703L || (defined(_MSVC_LANG) && _MSVC_LANG >= 201703L)
#define TIMER_NODISCARD [[nodiscard]]
#elif defined(__GNUC__) && !defined(__clang__) && defined(__has_cpp_attribute)
#if __has_cpp_attribute(nodiscard)      /* g++ takes it before C++17 without a word */
#define TIMER_NODISCARD [[nodiscard]]
#endif
#endif
#elif defined(__has_c_attribute) && (defined(__STDC_VERSION__) && __STDC_VERSION__ > 201710L)
#if __has_c_attribute(nodiscard)
#define TIMER_NODISCARD [[nodiscard]]
#endif
#elif defined(__has_c_attribute) && defined(__GNUC__) && !defined(__clang__)
#if __has_c_attribute(nodiscard)        /* gcc 11 and up, before C23 */
#define TIMER_NODISCARD __extension__ [[nodiscard]]
#endif
#endif
#if !defined(TIMER_NODISCARD) && defined(__clang__)
#define TIMER_NODISCARD __attribute__((warn_unused_result))
#elif !defined(TIMER_NODISCARD)
#define TIMER_NODISCARD
#endif
#endif

/* The linkage of the generated calls: TIMER_LK_inline_ (static inline, the
 * DEFINEs) or TIMER_LK_extern_ (one external definition, the IMPLEMENTs;
 * C linkage from C++ too, so that C and C++ files share it); the _ND_ forms
 * add TIMER_NODISCARD where each linkage lets an attribute stand. */
#if defined(__cplusplus)
#define TIMER_LK_extern_ extern "C"
#else
#define TIMER_LK_extern_
#endif
#define TIMER_LK_inline_ TIMER_INLINE_
#define TIMER_LK_ND_inline_ TIMER_NODISCARD TIMER_INLINE_
#define TIMER_LK_ND_extern_ TIMER_LK_extern_ TIMER_NODISCARD

/* The typed wrappers that TIMER_SET/HEAP/WHEEL_DEFINE_FUNCTIONS generate for
 * a container `name` of items `type` holding their node in `member`: each
 * forwards to the untyped core `core` (timer_set, timer_heap, timer_wheel),
 * whose layout the container holds as `field` (TIMER_CORE_). The
 * parameters end in _ so that they cannot capture a user's names.
 *
 * The interface every core provides (as in timer_set.h, timer_heap.h,
 * timer_wheel.h; `C` is struct core, `N` struct core_node):
 *   void    core_init(C *, int64_t now);          void core_clear(C *);
 *   void    core_destroy(C *);
 *   int     core_insert(C *, int64_t expire, N *);  (N may be NULL: -EINVAL)
 *   int     core_reschedule(C *, int64_t expire, N *);
 *   bool    core_remove(C *, N *);                  (N may be NULL: false)
 *   size_t  core_pop(C *, int64_t now, struct tlist *out);
 *   int64_t core_min_time(const C *);             int64_t core_next_expiry(const C *);
 *   N      *core_first(const C *);                (the wheel may reorganise itself
 *                                                 inside both: logically const)
 *   int     core_visit(const C *, int (*fn)(N *, void *), void *arg);
 *                                                 fn for each pending item, in the
 *                                                 core's order, until fn returns
 *                                                 non-zero: returns that value, or 0
 *                                                 when every item was visited
 *   int     core_reserve(C *, size_t n);
 *   const char *core_check(const C *);            O(n): NULL, or what is broken
 *   bool    core_owns_(const C *, const N *);     false only if N is pending in
 *                                                 another container (TIMER_DEBUG)
 *   bool    core_may_hold_(const C *, const N *); false only if N is marked pending
 *                                                 and C does not hold it, as O(1)
 *                                                 checks or a bounded walk tell
 *                                                 (insert's check, builds with asserts)
 *   bool    core_node_pending(const N *), core_node_due(const N *);
 *   int64_t core_node_expire(const N *);          (all three accept NULL)
 *   size_t  C.count                               the pending items
 * and every N begins with the struct tlist that links it into a result list
 * while due, so a result list's link is also its item's node.
 * reschedule_range, reschedule_near, visit and visit_until are written once,
 * here, over that interface.
 *
 * TIMER_WRAPPERS_ takes the linkage too (lk: inline or extern, see
 * TIMER_LK_inline_); TIMER_DECLARE_WRAPPERS_ declares what it defines with
 * extern linkage, for the DECLARE/IMPLEMENT forms: the prototypes in every
 * file, the definitions in one. */
#define TIMER_DEFINE_WRAPPERS_(name, type, member, core, field) TIMER_WRAPPERS_(name, type, member, core, field, inline_)
#define TIMER_WRAPPERS_(name, type, member, core, field, lk)                                                          \
    TIMER_NODE_CHECK_(name, type, member, core##_node)                                                                \
    TIMER_INLINE_ struct core *name##_core_(name *timer_c_) { return TIMER_CORE_(core, timer_c_, field); }           \
    TIMER_INLINE_ const struct core *name##_ccore_(const name *timer_c_) { return TIMER_CCORE_(core, timer_c_, field); } \
    TIMER_LK_##lk void name##_init(name *timer_c_, int64_t timer_now_)                                                \
    { core##_init(name##_core_(timer_c_), timer_now_); TIMER_AFTER_(core, name##_core_(timer_c_), #name "_init"); }   \
    TIMER_LK_##lk void name##_clear(name *timer_c_)                                                                   \
    { core##_clear(name##_core_(timer_c_)); TIMER_AFTER_(core, name##_core_(timer_c_), #name "_clear"); }             \
    TIMER_LK_##lk void name##_destroy(name *timer_c_)                                                                 \
    { core##_destroy(name##_core_(timer_c_)); TIMER_AFTER_(core, name##_core_(timer_c_), #name "_destroy"); }         \
    TIMER_LK_ND_##lk int name##_insert(name *timer_c_, int64_t timer_expire_, type *timer_item_)                      \
    {   int timer_r_;                                                                                                 \
        TIMER_LINKED_WELL_(core, name##_core_(timer_c_), TIMER_NODE_(timer_item_, member), name);                     \
        timer_r_ = core##_insert(name##_core_(timer_c_), timer_expire_, TIMER_NODE_(timer_item_, member));            \
        TIMER_AFTER_(core, name##_core_(timer_c_), #name "_insert"); return timer_r_; }                               \
    TIMER_LK_ND_##lk int name##_reschedule(name *timer_c_, int64_t timer_expire_, type *timer_item_)                  \
    {   int timer_r_;                                                                                                 \
        TIMER_OWNS_(core, name##_core_(timer_c_), TIMER_NODE_(timer_item_, member), #name "_reschedule");             \
        timer_r_ = core##_reschedule(name##_core_(timer_c_), timer_expire_, TIMER_NODE_(timer_item_, member));        \
        TIMER_AFTER_(core, name##_core_(timer_c_), #name "_reschedule"); return timer_r_; }                           \
    /* reschedule_range and reschedule_near: a pending item in [lo, hi] stays, else reschedule(to) */                \
    TIMER_INLINE_ int name##_keep_(name *timer_c_, int64_t timer_lo_, int64_t timer_hi_, int64_t timer_to_,           \
                                   type *timer_item_, const char *timer_fn_)                                          \
    {   (void)timer_fn_;                                                                                              \
        TIMER_OWNS_(core, name##_core_(timer_c_), &timer_item_->member, timer_fn_);                                   \
        if (core##_node_pending(&timer_item_->member) && core##_node_expire(&timer_item_->member) >= timer_lo_ &&      \
            core##_node_expire(&timer_item_->member) <= timer_hi_) return 0;                                          \
        return name##_reschedule(timer_c_, timer_to_, timer_item_); }                                                 \
    TIMER_LK_ND_##lk int name##_reschedule_range(name *timer_c_, int64_t timer_lo_, int64_t timer_hi_,                \
                                                 type *timer_item_)                                                   \
    {   if (timer_item_ == NULL || timer_lo_ < 0 || timer_hi_ < timer_lo_) return -EINVAL;                            \
        return name##_keep_(timer_c_, timer_lo_, timer_hi_, timer_hi_, timer_item_, #name "_reschedule_range"); }     \
    TIMER_LK_ND_##lk int name##_reschedule_near(name *timer_c_, int64_t timer_expire_, int64_t timer_slack_,          \
                                                type *timer_item_)                                                    \
    {   if (timer_item_ == NULL || timer_expire_ < 0 || timer_slack_ < 0) return -EINVAL;                             \
        return name##_keep_(timer_c_, timer_expire_ > timer_slack_ ? timer_expire_ - timer_slack_ : 0,                \
                            timer_expire_ > INT64_MAX - timer_slack_ ? INT64_MAX : timer_expire_ + timer_slack_,      \
                            timer_expire_, timer_item_, #name "_reschedule_near"); }                                  \
    TIMER_LK_##lk bool name##_remove(name *timer_c_, type *timer_item_)                                               \
    {   bool timer_r_;                                                                                                \
        TIMER_OWNS_(core, name##_core_(timer_c_), TIMER_NODE_(timer_item_, member), #name "_remove");                 \
        timer_r_ = core##_remove(name##_core_(timer_c_), TIMER_NODE_(timer_item_, member));                           \
        TIMER_AFTER_(core, name##_core_(timer_c_), #name "_remove"); return timer_r_; }                               \
    TIMER_LK_##lk size_t name##_pop(name *timer_c_, int64_t timer_now_, struct tlist *timer_out_)                     \
    {   size_t timer_r_ = core##_pop(name##_core_(timer_c_), timer_now_, timer_out_);                                 \
        TIMER_AFTER_(core, name##_core_(timer_c_), #name "_pop"); return timer_r_; }                                  \
    TIMER_LK_##lk int64_t name##_next_expiry(const name *timer_c_)                                                    \
    {   int64_t timer_r_ = core##_next_expiry(name##_ccore_(timer_c_));                                               \
        TIMER_AFTER_(core, name##_ccore_(timer_c_), #name "_next_expiry"); return timer_r_; }                         \
    TIMER_LK_##lk type *name##_first(const name *timer_c_)                                                            \
    {   struct core##_node *timer_n_ = core##_first(name##_ccore_(timer_c_));                                         \
        TIMER_AFTER_(core, name##_ccore_(timer_c_), #name "_first");                                                  \
        return timer_n_ ? tlist_entry(timer_n_, type, member) : NULL; }                                               \
    struct name##_visitor_ { void (*fn)(type *, void *); int (*until)(type *, void *); void *arg; };                   \
    TIMER_INLINE_ int name##_visit_one_(struct core##_node *timer_n_, void *timer_v_)                                 \
    {   const struct name##_visitor_ *timer_f_ = TIMER_CAST_(const struct name##_visitor_ *, timer_v_);               \
        if (timer_f_->until != NULL) return timer_f_->until(tlist_entry(timer_n_, type, member), timer_f_->arg);      \
        timer_f_->fn(tlist_entry(timer_n_, type, member), timer_f_->arg); return 0; }                                 \
    TIMER_LK_##lk size_t name##_visit(const name *timer_c_, void (*timer_fn_)(type *, void *), void *timer_arg_)      \
    {   struct name##_visitor_ timer_f_;                                                                              \
        assert(timer_fn_ != NULL && #name "_visit: fn is NULL");                                                      \
        if (timer_fn_ == NULL) return 0;                                                                              \
        timer_f_.fn = timer_fn_; timer_f_.until = NULL; timer_f_.arg = timer_arg_;                                    \
        (void)core##_visit(name##_ccore_(timer_c_), name##_visit_one_, &timer_f_);                                    \
        return name##_ccore_(timer_c_)->count; }                                                                      \
    TIMER_LK_##lk int name##_visit_until(const name *timer_c_, int (*timer_fn_)(type *, void *), void *timer_arg_)    \
    {   struct name##_visitor_ timer_f_;                                                                              \
        assert(timer_fn_ != NULL && #name "_visit_until: fn is NULL");                                                \
        if (timer_fn_ == NULL) return 0;                                                                              \
        timer_f_.fn = NULL; timer_f_.until = timer_fn_; timer_f_.arg = timer_arg_;                                    \
        return core##_visit(name##_ccore_(timer_c_), name##_visit_one_, &timer_f_); }                                 \
    TIMER_LK_ND_##lk int name##_reserve(name *timer_c_, size_t timer_n_)                                              \
    {   int timer_r_ = core##_reserve(name##_core_(timer_c_), timer_n_);                                              \
        TIMER_AFTER_(core, name##_core_(timer_c_), #name "_reserve"); return timer_r_; }                              \
    TIMER_LK_##lk int64_t name##_min_time(const name *timer_c_) { return core##_min_time(name##_ccore_(timer_c_)); }   \
    TIMER_LK_##lk size_t name##_size(const name *timer_c_) { return name##_ccore_(timer_c_)->count; }                 \
    TIMER_LK_##lk bool name##_empty(const name *timer_c_) { return name##_ccore_(timer_c_)->count == 0; }             \
    TIMER_LK_##lk bool name##_pending(const type *timer_item_)                                                        \
    { return core##_node_pending(TIMER_NODE_(timer_item_, member)); }                                                 \
    TIMER_LK_##lk bool name##_due(const type *timer_item_) { return core##_node_due(TIMER_NODE_(timer_item_, member)); } \
    TIMER_LK_##lk int64_t name##_expire(const type *timer_item_)                                                      \
    { return core##_node_expire(TIMER_NODE_(timer_item_, member)); }                                                  \
    TIMER_LK_##lk type *name##_entry(struct tlist *timer_link_)                                                       \
    { return timer_link_ ? tlist_entry(timer_link_, type, member) : NULL; }                                           \
    TIMER_LK_ND_##lk const char *name##_check(const name *timer_c_) { return core##_check(name##_ccore_(timer_c_)); }

/* The prototypes of what TIMER_WRAPPERS_(..., extern_) defines: the
 * DECLARE forms, for every file but the one with the IMPLEMENT. */
#define TIMER_DECLARE_WRAPPERS_(name, type)                                                                           \
    TIMER_LK_extern_ void name##_init(name *c, int64_t now);                                                          \
    TIMER_LK_extern_ void name##_clear(name *c);                                                                      \
    TIMER_LK_extern_ void name##_destroy(name *c);                                                                    \
    TIMER_LK_ND_extern_ int name##_insert(name *c, int64_t expire, type *item);                                       \
    TIMER_LK_ND_extern_ int name##_reschedule(name *c, int64_t expire, type *item);                                   \
    TIMER_LK_ND_extern_ int name##_reschedule_range(name *c, int64_t earliest, int64_t latest, type *item);           \
    TIMER_LK_ND_extern_ int name##_reschedule_near(name *c, int64_t expire, int64_t slack, type *item);               \
    TIMER_LK_extern_ bool name##_remove(name *c, type *item);                                                         \
    TIMER_LK_extern_ size_t name##_pop(name *c, int64_t now, struct tlist *out);                                      \
    TIMER_LK_extern_ int64_t name##_next_expiry(const name *c);                                                       \
    TIMER_LK_extern_ type *name##_first(const name *c);                                                               \
    TIMER_LK_extern_ size_t name##_visit(const name *c, void (*fn)(type *, void *), void *arg);                       \
    TIMER_LK_extern_ int name##_visit_until(const name *c, int (*fn)(type *, void *), void *arg);                     \
    TIMER_LK_ND_extern_ int name##_reserve(name *c, size_t n);                                                        \
    TIMER_LK_extern_ int64_t name##_min_time(const name *c);                                                          \
    TIMER_LK_extern_ size_t name##_size(const name *c);                                                               \
    TIMER_LK_extern_ bool name##_empty(const name *c);                                                                \
    TIMER_LK_extern_ bool name##_pending(const type *item);                                                           \
    TIMER_LK_extern_ bool name##_due(const type *item);                                                               \
    TIMER_LK_extern_ int64_t name##_expire(const type *item);                                                         \
    TIMER_LK_extern_ type *name##_entry(struct tlist *link);                                                          \
    TIMER_LK_ND_extern_ const char *name##_check(const name *c);

TIMER_FUNCTIONS_END_

#endif /* TIMER_LIST_H_FUNCTIONS */
