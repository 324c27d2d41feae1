/* SPDX-License-Identifier: MIT */
/* timer_containers.hpp - the three timer containers as C++ class templates over
 * a pointer to the node member: RAII, a range of due items that drains,
 * std::chrono time, callback events. C++11 and up, with or without exceptions
 * and RTTI. Thin over the C cores of timer_containers.h (included from here):
 * the same containers, calls, results and pop order, and (measured) the same
 * instruction counts, within 2%.
 *
 *     #include "timer_containers.hpp"
 *     namespace tc = timer_containers;
 *     typedef tc::wheel_kind kind;                 // heap_kind, set_kind: the one word to change
 *     struct conn { int fd; kind::node idle; };     // a value-initialised node is idle
 *
 *     kind::timers<conn, &conn::idle> timers(now); // that is tc::wheel<conn, &conn::idle>
 *     if (timers.insert(now + 10000, c) != 0) ...  // C's return codes; [[nodiscard]] in C++17
 *     for (conn &c : timers.pop(now))              // each is off the due list before the body:
 *         close_idle(c);                           // it may re-arm, remove or free any item
 *     // leaving scope clears: pending items become idle, the heap frees its array
 *
 * API. C = set<T, M>, heap<T, M> or wheel<T, M>, where M points to T's node
 * (tc::set_node, heap_node, wheel_node: the C node types; a member of another
 * type does not compile, and the error names the type expected). Each call is
 * the C call of the same name (README, "API"), with its results and errors;
 * an error changes nothing.
 *   explicit C(int64_t now = 0);        init; ~C() destroys: pending items become idle
 *   int      insert(int64_t expire, T &item);          0, -EINVAL, -EBUSY, -ENOMEM
 *   int      reschedule(int64_t expire, T &item);      0, -EINVAL, -ENOMEM
 *   int      reschedule_range(int64_t earliest, int64_t latest, T &item);
 *   int      reschedule_near(int64_t expire, int64_t slack, T &item);
 *                                       pending within slack of expire: 0, no
 *                                       change; else reschedule(expire, item)
 *   bool     remove(T &item);           pending or due -> idle; false if it was idle
 *   due_range pop(int64_t now);         the items due by now, as a range that drains
 *   int64_t  next_expiry() const;       exact; TIMER_NEVER when empty
 *   int64_t  min_time() const;          O(1) lower bound (exact for set and heap)
 *   T       *first() const;             what pop hands out first; nullptr if empty
 *   size_t   visit(F fn) const;         fn(T &) for each pending item (fn must not
 *                                       change the container); returns the count
 *   int      visit_until(F fn) const;   the same walk, stopped by the first fn(T &)
 *                                       that returns non-zero: returns that value,
 *                                       or 0 when every item was visited
 *   size_t   size() const;  bool empty() const;  int reserve(size_t n);  void clear();
 *   const char *check() const;          O(n) self-check: nullptr, or what is broken
 *   static bool pending(const T &), due(const T &);  static int64_t expire(const T &);
 *   static T *entry(struct tlist *link);   the item of a C result list's link
 * TIMER_NODISCARD ([[nodiscard]] in C++17 and up, and with g++ in C++11 and
 * 14 too; clang's warn_unused_result there: forms a (void) cast silences)
 * marks every call whose result reports an error (insert, the reschedules,
 * reserve, check, put_back) and pop.
 * Not copyable, not movable: a wheel's list heads live inside it (its items
 * link to them), and ranges, events and clocked adaptors hold a container's
 * address; all three kinds alike, so that switching kinds changes nothing
 * that compiles. Hold one in a std::unique_ptr to hand it over.
 * Switching container is one word: kind::node and kind::timers<T, M> name the
 * node and the container of set_kind, heap_kind or wheel_kind.
 *
 * Where items may be. A container links an item by its address, so a
 * pending or due item must stay where it is: not copied into a second
 * object that then goes to the container, not moved by a std::vector that
 * grows. Hooks make the mistake safe or loud: tc::set_hook, heap_hook and
 * wheel_hook (kind::hook) are the node with C++'s copy rules, as
 * Boost.Intrusive's safe-mode hooks: a new hook, a copy and a move are
 * idle, assigning to one leaves it as it was, and with asserts a hook that
 * ends while pending or due aborts naming the fix. The containers over a
 * hook member are hooked_set<T, M>, hooked_heap<T, M>, hooked_wheel<T, M>
 * (kind::hooked<T, M>), the same calls: C++ does not let one template take
 * a pointer to a member of either type (before C++17's auto).
 *
 * The due range. pop(now) makes the items due by now due (in the container's
 * due list, in pop order) and returns a range that hands them out: the loop
 * `for (T &x : c.pop(now))` takes each off the list before its body runs (x
 * is idle then), as tlist_drain does, so the body may insert, reschedule,
 * remove or free any item (a due item removed or rescheduled leaves the list
 * and is not handed out), pop again, or leave the loop. What is left when the
 * range ends (break, return, an exception) is put back: pending again at its
 * own expiry, in its order (behind items armed at the same expiry meanwhile),
 * so due at the next pop and counted by size() and next_expiry(); never lost.
 * The list is the container's, as a C caller may pass one list to every pop:
 * a pop inside the loop appends to it, and whichever loop comes first hands
 * out an item, once. A range must not outlive its container. Its calls:
 *   begin(), end()        iteration (begin() takes the first item)
 *   T *take()             the next item, taken off (idle); nullptr if none
 *   bool empty() const;  size_t size() const;    the due list (size: O(n))
 *   size_t popped() const                        how many items this pop found
 *   int put_back()        put back now: 0, or -ENOMEM when a heap cannot grow
 *                         (that item and the rest stay due); when the range
 *                         ends, such items become idle. A heap that reserve()d
 *                         room for all its items never fails.
 *   void release(struct tlist &out)   the due list onto a C result list, still due
 *
 * std::chrono: clocked<C, Clock, Tick> is C on Clock's time points, counted in
 * Tick (a duration; default Clock::duration) since Clock's epoch. An expiry
 * rounds up to a tick and `now` down, so nothing fires before its time point
 * (and at most a tick after it). Any time_point<Clock, D> with a signed
 * integer count is taken:
 *   explicit clocked(time_point now = time_point());
 *   int insert(time_point expire, T &), reschedule(...), reschedule_range(...):
 *       an expiry before the epoch is -EINVAL, one past INT64_MAX ticks -ERANGE
 *   due_range pop(time_point now);      (a `now` past the ticks saturates)
 *   size_t run_due(time_point now);     (C = events<Kind>)
 *   time_point next_expiry() const, min_time() const;  static time_point expire(const T &);
 *       (time_point::max() for TIMER_NEVER and what Clock cannot hold)
 *   remove, first, visit, visit_until, size, empty, reserve, clear, check,
 *   pending, due: C's
 *   static int expiry_ticks(time_point, int64_t &ticks);   0, -EINVAL, -ERANGE
 *   static int64_t now_ticks(time_point);  static time_point time_of(int64_t ticks);
 *
 * Callback events: event<Kind, F> holds a callable F (a lambda's or functor's
 * type, std::function<void()>, or callback: a C function and its argument)
 * and a node of Kind; events<Kind> is a container of them:
 *   events<Kind> loop(now);             or clocked<events<Kind>, Clock, Tick>
 *   int  insert(expire, ev), reschedule(expire, ev), reschedule_range(...);
 *   bool remove(ev);                    C's calls; an event armed in another
 *                                       events<Kind> is -EINVAL, false there
 *   size_t run_due(int64_t now);        each due event's callable, in pop order;
 *                                       returns how many ran
 *   pop, next_expiry, min_time, first, visit, visit_until, size, empty,
 *   reserve, clear, check, pending, due, expire: C's
 * and on an event: bool cancel() (pending or due -> idle), bool armed()
 * (pending), void run() (calls the callable), F &callable(); its destructor
 * cancels it. An event is neither copied nor moved: code that would (a
 * std::vector of events) stops on a message naming std::unique_ptr and
 * std::deque, the ways to hold many. A callable may cancel, re-arm or
 * destroy any event, its own included (having destroyed its own, it
 * touches nothing of it afterwards, its captures included, as after
 * `delete this`), and call run_due again; it must not destroy the
 * container. If one throws, the events still due are
 * put back (the range's rule). An event allocates nothing; F may
 * (std::function, for a callable larger than its small buffer):
 * docs/benchmarks.md measures the forms.
 *
 * TIMER_DEBUG and the asserts work as in C, through the C wrappers this file
 * instantiates once per kind (their messages name timers_insert, ...).
 */
#if !defined(__cplusplus)
#error "timer_containers.hpp is C++: C code includes timer_containers.h"
#endif
#if defined(_MSVC_LANG)
#define TIMER_CXX_STD_ _MSVC_LANG
#else
#define TIMER_CXX_STD_ __cplusplus
#endif
#if TIMER_CXX_STD_ < 201103L
#error "timer_containers.hpp needs C++11 or later"
#endif
#if defined(TIMER_TYPES_ONLY)
#error "timer_containers.hpp needs the functions: include it where TIMER_TYPES_ONLY is not defined"
#endif

/* The C headers, as one file: what a project that copies files copies
 * beside this one (every install route installs both). Before this file's
 * guard, as each C header includes list.h before its own: a copy of this
 * file of another version stops there, at list.h's version check, with an
 * error that names both versions. */
#include "timer_containers.h"

#ifndef TIMER_CONTAINERS_HPP
#define TIMER_CONTAINERS_HPP

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <ratio>
#include <type_traits>
#include <utility>

/* [[nodiscard]] in C++17 (and with g++ before it), clang's
 * warn_unused_result in C++11 and 14, where a dropped result (an insert that
 * failed, a pop whose range no loop takes) is otherwise silent;
 * TIMER_NODISCARD (list.h) decides, and defined empty before including
 * turns both off. */
#define TIMER_CXX_NODISCARD_ TIMER_NODISCARD
/* The calls that only forward to the C wrappers are forced inline: left to
 * the inliner, the extra layer changes its choices (gcc then leaves the
 * wheel's reschedule, which C inlines, a call: 30% more instructions). */
#if defined(__GNUC__) || defined(__clang__)
#define TIMER_CXX_INLINE_ __attribute__((always_inline)) inline
#define TIMER_CXX_COLD_ __attribute__((noinline, cold))
#elif defined(_MSC_VER)
#define TIMER_CXX_INLINE_ __forceinline
#define TIMER_CXX_COLD_ __declspec(noinline)
#else
#define TIMER_CXX_INLINE_ inline
#define TIMER_CXX_COLD_
#endif

namespace timer_containers {

typedef struct timer_set_node set_node;
typedef struct timer_heap_node heap_node;
typedef struct timer_wheel_node wheel_node;

namespace detail {
template <class Node> class hook_base;
template <class F> struct always_false : std::false_type {};
} // namespace detail

/* The hooks: a node with C++'s copy rules (see "Where items may be" above). */
typedef detail::hook_base<set_node> set_hook;
typedef detail::hook_base<heap_node> heap_hook;
typedef detail::hook_base<wheel_node> wheel_hook;

template <class T, set_node T::*M> class set;
template <class T, heap_node T::*M> class heap;
template <class T, wheel_node T::*M> class wheel;
template <class T, set_hook T::*M> class hooked_set;
template <class T, heap_hook T::*M> class hooked_heap;
template <class T, wheel_hook T::*M> class hooked_wheel;

/* The kinds: a program that names its container through one of these
 * switches container by changing that one word. */
struct set_kind {
    typedef set_node node;
    typedef set_hook hook;
    template <class T, node T::*M> using timers = set<T, M>;
    template <class T, hook T::*M> using hooked = hooked_set<T, M>;
};
struct heap_kind {
    typedef heap_node node;
    typedef heap_hook hook;
    template <class T, node T::*M> using timers = heap<T, M>;
    template <class T, hook T::*M> using hooked = hooked_heap<T, M>;
};
struct wheel_kind {
    typedef wheel_node node;
    typedef wheel_hook hook;
    template <class T, node T::*M> using timers = wheel<T, M>;
    template <class T, hook T::*M> using hooked = hooked_wheel<T, M>;
};

namespace detail {

/* The C typed wrappers (list.h, TIMER_DEFINE_WRAPPERS_) once per kind, over
 * an item that is its node alone; the class templates convert T <-> node and
 * call these, so reschedule_range, the NULL rules and TIMER_DEBUG's checks
 * live in one place for C and C++. They are the C DEFINE's static inline
 * functions, each kind's in a namespace of its own, where the templates
 * find them by argument-dependent lookup (timers_insert(&c_, ...) picks the
 * kind of c_). Static as in C, so the optimiser makes the same choices as
 * for a C program: each core function is called from one wrapper. */
namespace set_c {
struct item {
    set_node n;
};
TIMER_SET_DEFINE_NAMED(timers, struct item, n)
} // namespace set_c
namespace heap_c {
struct item {
    heap_node n;
};
TIMER_HEAP_DEFINE_NAMED(timers, struct item, n)
} // namespace heap_c
namespace wheel_c {
struct item {
    wheel_node n;
};
TIMER_WHEEL_DEFINE_NAMED(timers, struct item, n)
} // namespace wheel_c

/* What basic needs of a kind: its node, and the C container and item whose
 * namespace holds the wrappers. */
template <class Node, class Timers, class Item>
struct core {
    typedef Node node;
    typedef Timers timers;
    typedef Item item;
};
typedef core<set_node, set_c::timers, set_c::item> set_core;
typedef core<heap_node, heap_c::timers, heap_c::item> heap_core;
typedef core<wheel_node, wheel_c::timers, wheel_c::item> wheel_core;
/* The same cores over a hook member: the hook is its node (a base class at
 * offset 0, nothing added), so everything else is the node's. */
typedef core<set_hook, set_c::timers, set_c::item> set_hook_core;
typedef core<heap_hook, heap_c::timers, heap_c::item> heap_hook_core;
typedef core<wheel_hook, wheel_c::timers, wheel_c::item> wheel_hook_core;

/* A node's state, by its C type. */
TIMER_CXX_INLINE_ bool armed(const set_node &n) { return timer_set_node_pending(&n) || timer_set_node_due(&n); }
TIMER_CXX_INLINE_ bool armed(const heap_node &n) { return timer_heap_node_pending(&n) || timer_heap_node_due(&n); }
TIMER_CXX_INLINE_ bool armed(const wheel_node &n)
{
    return timer_wheel_node_pending(&n) || timer_wheel_node_due(&n);
}

/* The hooks (Boost.Intrusive's rule for its safe-mode hooks): a new hook,
 * and every copy or move of one, is idle, since a container links a node
 * by its address and a copy lives at another; assigning to a hook leaves
 * it as it was (an item assigned to stays where it is, armed or not); and
 * with asserts on, a hook that ends while pending or due aborts, naming the
 * fix, where it would leave the container a dangling link. */
template <class Node>
class hook_base : public Node {
public:
    TIMER_CXX_INLINE_ hook_base() noexcept : Node() {}
    TIMER_CXX_INLINE_ hook_base(const hook_base &) noexcept : Node() {}
    TIMER_CXX_INLINE_ hook_base &operator=(const hook_base &) noexcept { return *this; }
    TIMER_CXX_INLINE_ ~hook_base()
    {
        assert(!armed(*this) &&
               "timer_containers: a hook ended while its item was pending or due (moved by a growing std::vector, or gone before its container): remove the item first, declare items before their container, keep armed items where they do not move (std::unique_ptr, std::deque, std::list)");
    }
};
static_assert(sizeof(set_hook) == sizeof(set_node) && sizeof(heap_hook) == sizeof(heap_node) &&
                  sizeof(wheel_hook) == sizeof(wheel_node),
              "timer_containers: a hook is its node");

/* T <-> its node M. The way back subtracts M's offset, read from the pointer
 * to member itself: the Itanium C++ ABI (gcc, clang) and MSVC's represent a
 * pointer to data member as that offset (an int in MSVC's, for classes
 * without virtual bases), the reading Boost.Intrusive's parent_from_member
 * relies on. M is a template argument, so the offset is a constant. */
template <class T, class N, N T::*M>
struct hook {
    typedef typename std::conditional<sizeof(N T::*) == sizeof(std::ptrdiff_t), std::ptrdiff_t, int>::type repr;
    static_assert(sizeof(N T::*) == sizeof(repr),
                  "timer_containers: a pointer to this member is not a plain offset (T has virtual bases?)");

    TIMER_CXX_INLINE_ static std::ptrdiff_t offset()
    {
        N T::*m = M;
        repr r;
        std::memcpy(&r, &m, sizeof r);
        return r;
    }
    TIMER_CXX_INLINE_ static N *node(T &x) { return &(x.*M); }
    TIMER_CXX_INLINE_ static const N *node(const T &x) { return &(x.*M); }
    TIMER_CXX_INLINE_ static T *item(N *n) { return reinterpret_cast<T *>(reinterpret_cast<char *>(n) - offset()); }
};

/* tlist_pop_front for a list that is always inited, never zeroed (the
 * containers' due lists): one compare where the front is the head. */
TIMER_CXX_INLINE_ struct tlist *pop_front(struct tlist *head)
{
    struct tlist *link = head->next;
    if (link == head)
        return nullptr;
    head->next = link->next;
    link->next->prev = head;
    link->next = nullptr;
    link->prev = nullptr;
    return link;
}

/* Everything the three class templates share, over Core (set_core, ...). */
template <class Core, class T, typename Core::node T::*M>
class basic {
    typedef typename Core::item core_item;
    typedef hook<T, typename Core::node, M> hook_type;

public:
    typedef T value_type;
    typedef typename Core::node node_type;
    class due_range;

    TIMER_CXX_INLINE_ explicit basic(int64_t now = 0)
    {
        timers_init(&c_, now);
        tlist_init(&due_);
    }
    TIMER_CXX_INLINE_ ~basic() { timers_destroy(&c_); }
    basic(const basic &) = delete;
    basic &operator=(const basic &) = delete;
    basic(basic &&) = delete;
    basic &operator=(basic &&) = delete;

    TIMER_CXX_NODISCARD_ TIMER_CXX_INLINE_ int insert(int64_t when, T &item)
    {
        assert(hook_type::item(hook_type::node(item)) == &item && "timer_containers: the member's offset is wrong");
        return timers_insert(&c_, when, in(item));
    }
    TIMER_CXX_NODISCARD_ TIMER_CXX_INLINE_ int reschedule(int64_t when, T &item)
    {
        return timers_reschedule(&c_, when, in(item));
    }
    TIMER_CXX_NODISCARD_ TIMER_CXX_INLINE_ int reschedule_range(int64_t earliest, int64_t latest, T &item)
    {
        return timers_reschedule_range(&c_, earliest, latest, in(item));
    }
    TIMER_CXX_NODISCARD_ TIMER_CXX_INLINE_ int reschedule_near(int64_t when, int64_t slack, T &item)
    {
        return timers_reschedule_near(&c_, when, slack, in(item));
    }
    TIMER_CXX_INLINE_ bool remove(T &item) { return timers_remove(&c_, in(item)); }
    TIMER_CXX_NODISCARD_ TIMER_CXX_INLINE_ due_range pop(int64_t now)
    {
        return due_range(*this, timers_pop(&c_, now, &due_));
    }
    TIMER_CXX_INLINE_ int64_t next_expiry() const { return timers_next_expiry(&c_); }
    TIMER_CXX_INLINE_ int64_t min_time() const { return timers_min_time(&c_); }
    TIMER_CXX_INLINE_ T *first() const { return out(timers_first(&c_)); }
    template <class F> std::size_t visit(F fn) const { return timers_visit(&c_, &visit_one<F>, &fn); }
    template <class F> int visit_until(F fn) const { return timers_visit_until(&c_, &visit_until_one<F>, &fn); }
    TIMER_CXX_INLINE_ std::size_t size() const { return timers_size(&c_); }
    TIMER_CXX_INLINE_ bool empty() const { return timers_empty(&c_); }
    TIMER_CXX_NODISCARD_ TIMER_CXX_INLINE_ int reserve(std::size_t n) { return timers_reserve(&c_, n); }
    TIMER_CXX_INLINE_ void clear() { timers_clear(&c_); }
    TIMER_CXX_NODISCARD_ TIMER_CXX_INLINE_ const char *check() const { return timers_check(&c_); }
    TIMER_CXX_INLINE_ static bool pending(const T &item) { return timers_pending(in(item)); }
    TIMER_CXX_INLINE_ static bool due(const T &item) { return timers_due(in(item)); }
    TIMER_CXX_INLINE_ static int64_t expire(const T &item) { return timers_expire(in(item)); }
    /* Every node begins with its result-list link (list.h): the link is the item. */
    TIMER_CXX_INLINE_ static T *entry(struct tlist *link) { return out(reinterpret_cast<core_item *>(link)); }

private:
    typename Core::timers c_;
    struct tlist due_; /* the due items, while a range hands them out (inited, not
                          zeroed: an empty list is then one compare) */

    /* The core's item is the node itself (its only member). */
    TIMER_CXX_INLINE_ static core_item *in(T &x) { return reinterpret_cast<core_item *>(hook_type::node(x)); }
    TIMER_CXX_INLINE_ static const core_item *in(const T &x)
    {
        return reinterpret_cast<const core_item *>(hook_type::node(x));
    }
    TIMER_CXX_INLINE_ static T *out(core_item *p)
    {
        return p != nullptr ? hook_type::item(reinterpret_cast<node_type *>(p)) : nullptr;
    }
    /* The C wrappers' callbacks: fn(T &) behind their void * argument. */
    template <class F> static void visit_one(core_item *p, void *fn) { (*static_cast<F *>(fn))(*out(p)); }
    template <class F> static int visit_until_one(core_item *p, void *fn) { return (*static_cast<F *>(fn))(*out(p)); }

public:
    class due_range {
    public:
        /* An input iterator: ++ takes the next item off the due list. */
        class iterator {
        public:
            typedef std::input_iterator_tag iterator_category;
            typedef T value_type;
            typedef std::ptrdiff_t difference_type;
            typedef T *pointer;
            typedef T &reference;

            TIMER_CXX_INLINE_ T &operator*() const { return *entry(link_); }
            TIMER_CXX_INLINE_ T *operator->() const { return entry(link_); }
            TIMER_CXX_INLINE_ iterator &operator++()
            {
                link_ = pop_front(head_);
                return *this;
            }
            TIMER_CXX_INLINE_ iterator operator++(int)
            {
                iterator was = *this;
                ++*this;
                return was;
            }
            TIMER_CXX_INLINE_ bool operator==(const iterator &o) const { return link_ == o.link_; }
            TIMER_CXX_INLINE_ bool operator!=(const iterator &o) const { return link_ != o.link_; }

        private:
            friend class due_range;
            TIMER_CXX_INLINE_ iterator(struct tlist *head, struct tlist *link) : head_(head), link_(link) {}
            struct tlist *head_, *link_;
        };

        /* A pop that found nothing due hands out nothing (the due list may
         * hold the items of an enclosing loop's pop: that loop hands them
         * out). The count, known where pop returns, spares that common case
         * the look at the list. */
        TIMER_CXX_INLINE_ iterator begin()
        {
            return iterator(&c_->due_, popped_ != 0 ? pop_front(&c_->due_) : nullptr);
        }
        TIMER_CXX_INLINE_ iterator end() { return iterator(&c_->due_, nullptr); }
        TIMER_CXX_INLINE_ T *take() { return entry(pop_front(&c_->due_)); }
        TIMER_CXX_INLINE_ bool empty() const { return c_->due_.next == &c_->due_; }
        std::size_t size() const { return tlist_size(&c_->due_); }
        TIMER_CXX_INLINE_ std::size_t popped() const { return popped_; }
        TIMER_CXX_INLINE_ void release(struct tlist &out_list) { tlist_splice_back(&out_list, &c_->due_); }

        /* Each item left, in order, pending again at its expiry. An insert,
         * not a reschedule: a call site of the core's reschedule here would
         * change gcc's choice to inline it into the caller's own (30% more
         * instructions per reschedule for the wheel). Insert fails only for
         * a heap out of memory, and then changes nothing: the node keeps
         * its due expiry, so linked back it is due again (timer_heap.h, the
         * states). */
        TIMER_CXX_NODISCARD_ int put_back()
        {
            T *x;
            while ((x = take()) != nullptr) {
                int r = c_->insert(expire(*x), *x);
                if (r != 0) {
                    tlist_push_front(&c_->due_, reinterpret_cast<struct tlist *>(hook_type::node(*x)));
                    return r;
                }
            }
            return 0;
        }

        TIMER_CXX_INLINE_ ~due_range()
        {
            if (popped_ != 0 && c_->due_.next != &c_->due_)
                end_early();
        }
        /* Returned by value (C++11 and 14 need the move, even where elided);
         * the moved-from range ends with nothing to put back. */
        TIMER_CXX_INLINE_ due_range(due_range &&o) : c_(o.c_), popped_(o.popped_) { o.popped_ = 0; }
        due_range(const due_range &) = delete;
        due_range &operator=(const due_range &) = delete;
        due_range &operator=(due_range &&) = delete;

    private:
        friend class basic;
        TIMER_CXX_INLINE_ due_range(basic &c, std::size_t popped) : c_(&c), popped_(popped) {}
        TIMER_CXX_COLD_ void end_early()
        {
            if (put_back() != 0)
                while (take() != nullptr) {
                }
        }

        basic *c_;
        std::size_t popped_;
    };
};

/* Time points <-> ticks: a count times the ratio R, in int64_t. */
template <class R>
struct scale {
    static_assert(R::num > 0 && R::den > 0, "timer_containers: a negative clock period");

    /* floor(a * R), saturating at the int64_t range */
    static int64_t down(int64_t a)
    {
        const int64_t num = R::num, den = R::den, top = std::numeric_limits<int64_t>::max();
        if (num != 1 && (a > top / num || a < -top / num))
            return a > 0 ? top : -top - 1;
        int64_t x = a * num, q = x / den;
        return x % den != 0 && x < 0 ? q - 1 : q;
    }
    /* ceil(a * R) for a >= 0; false when it exceeds INT64_MAX */
    static bool up(int64_t a, int64_t &out)
    {
        const int64_t num = R::num, den = R::den;
        if (num != 1 && a > std::numeric_limits<int64_t>::max() / num)
            return false;
        int64_t x = a * num;
        out = x / den + (x % den != 0 ? 1 : 0);
        return true;
    }
};

template <class D>
int64_t count_of(D d)
{
    typedef typename D::rep rep;
    static_assert(std::is_integral<rep>::value && std::is_signed<rep>::value && sizeof(rep) <= sizeof(int64_t),
                  "timer_containers: time points must count in a signed integer type of at most 64 bits");
    return d.count();
}

} // namespace detail

template <class T, set_node T::*M>
class set : public detail::basic<detail::set_core, T, M> {
public:
    explicit set(int64_t now = 0) : detail::basic<detail::set_core, T, M>(now) {}
};

template <class T, heap_node T::*M>
class heap : public detail::basic<detail::heap_core, T, M> {
public:
    explicit heap(int64_t now = 0) : detail::basic<detail::heap_core, T, M>(now) {}
};

template <class T, wheel_node T::*M>
class wheel : public detail::basic<detail::wheel_core, T, M> {
public:
    explicit wheel(int64_t now = 0) : detail::basic<detail::wheel_core, T, M>(now) {}
};

/* The same containers over a hook member (C++ cannot take a member of
 * either type in one template before C++17's auto: a pointer to member
 * does not convert to one of its base class). */
template <class T, set_hook T::*M>
class hooked_set : public detail::basic<detail::set_hook_core, T, M> {
public:
    explicit hooked_set(int64_t now = 0) : detail::basic<detail::set_hook_core, T, M>(now) {}
};

template <class T, heap_hook T::*M>
class hooked_heap : public detail::basic<detail::heap_hook_core, T, M> {
public:
    explicit hooked_heap(int64_t now = 0) : detail::basic<detail::heap_hook_core, T, M>(now) {}
};

template <class T, wheel_hook T::*M>
class hooked_wheel : public detail::basic<detail::wheel_hook_core, T, M> {
public:
    explicit hooked_wheel(int64_t now = 0) : detail::basic<detail::wheel_hook_core, T, M>(now) {}
};

/* ---- std::chrono ----------------------------------------------------------- */

template <class Timers, class Clock, class Tick = typename Clock::duration>
class clocked : private Timers {
public:
    typedef Clock clock;
    typedef Tick tick;
    typedef typename Clock::time_point time_point;
    typedef typename Timers::value_type value_type;
    typedef typename Timers::due_range due_range;

    explicit clocked(time_point now = time_point()) : Timers(now_ticks(now)) {}

    template <class D>
    TIMER_CXX_NODISCARD_ int insert(std::chrono::time_point<Clock, D> when, value_type &item)
    {
        int64_t t;
        int r = expiry_ticks(when, t);
        return r != 0 ? r : Timers::insert(t, item);
    }
    template <class D>
    TIMER_CXX_NODISCARD_ int reschedule(std::chrono::time_point<Clock, D> when, value_type &item)
    {
        int64_t t;
        int r = expiry_ticks(when, t);
        return r != 0 ? r : Timers::reschedule(t, item);
    }
    template <class D1, class D2>
    TIMER_CXX_NODISCARD_ int reschedule_range(std::chrono::time_point<Clock, D1> earliest,
                                              std::chrono::time_point<Clock, D2> latest, value_type &item)
    {
        int64_t lo, hi = 0; /* = 0: clang's -Wconditional-uninitialized cannot see r != 0 guard it */
        int r = expiry_ticks(earliest, lo);
        if (r == 0)
            r = expiry_ticks(latest, hi);
        return r != 0 ? r : Timers::reschedule_range(lo, hi, item);
    }
    /* The slack in ticks rounds down (what is kept is never further from
     * the expiry than asked); a negative one is -EINVAL. */
    template <class D, class R, class P>
    TIMER_CXX_NODISCARD_ int reschedule_near(std::chrono::time_point<Clock, D> when, std::chrono::duration<R, P> slack,
                                             value_type &item)
    {
        int64_t t = 0, s = detail::count_of(slack); /* = 0: as hi in reschedule_range */
        int r = s < 0 ? -EINVAL : expiry_ticks(when, t);
        s = detail::scale<std::ratio_divide<P, typename Tick::period> >::down(s);
        return r != 0 ? r : Timers::reschedule_near(t, s, item);
    }
    template <class D>
    TIMER_CXX_NODISCARD_ due_range pop(std::chrono::time_point<Clock, D> now)
    {
        return Timers::pop(now_ticks(now));
    }
    template <class D> std::size_t run_due(std::chrono::time_point<Clock, D> now)
    {
        return Timers::run_due(now_ticks(now));
    }
    time_point next_expiry() const { return time_of(Timers::next_expiry()); }
    time_point min_time() const { return time_of(Timers::min_time()); }
    static time_point expire(const value_type &item) { return time_of(Timers::expire(item)); }

    using Timers::remove;
    using Timers::first;
    using Timers::visit;
    using Timers::visit_until;
    using Timers::size;
    using Timers::empty;
    using Timers::reserve;
    using Timers::clear;
    using Timers::check;
    using Timers::pending;
    using Timers::due;

    /* An expiry in ticks, rounded up: 0, -EINVAL before the epoch, -ERANGE
     * beyond INT64_MAX ticks (ticks unchanged then). */
    template <class D> static int expiry_ticks(std::chrono::time_point<Clock, D> t, int64_t &ticks)
    {
        int64_t c = detail::count_of(t.time_since_epoch());
        if (c < 0)
            return -EINVAL;
        return detail::scale<std::ratio_divide<typename D::period, typename Tick::period> >::up(c, ticks) ? 0 : -ERANGE;
    }
    /* A `now` in ticks, rounded down, saturating at the int64_t range. */
    template <class D> static int64_t now_ticks(std::chrono::time_point<Clock, D> t)
    {
        return detail::scale<std::ratio_divide<typename D::period, typename Tick::period> >::down(
            detail::count_of(t.time_since_epoch()));
    }
    /* The time point of a tick count (>= 0), rounded up to Clock's
     * resolution: time_point::max() for TIMER_NEVER and what Clock cannot
     * hold. */
    static time_point time_of(int64_t ticks)
    {
        typedef typename Clock::duration duration;
        typedef typename duration::rep rep;
        int64_t c;
        if (ticks == TIMER_NEVER ||
            !detail::scale<std::ratio_divide<typename Tick::period, typename duration::period> >::up(
                ticks < 0 ? 0 : ticks, c) ||
            !fits<rep>(c))
            return (time_point::max)();
        return time_point(duration(static_cast<rep>(c)));
    }

private:
    template <class Rep> static bool fits(int64_t c)
    {
        return sizeof(Rep) >= sizeof(int64_t) || c <= static_cast<int64_t>((std::numeric_limits<Rep>::max)());
    }
};

/* ---- callback events -------------------------------------------------------- */

template <class Kind> class events;

/* What events<Kind> holds: the node, the container it is armed in, and how
 * to call the callable of the event<Kind, F> it is part of. */
template <class Kind>
class event_base {
public:
    void run() { run_(*this); }
    bool armed() const { return events<Kind>::pending(*this); }
    bool cancel();

    event_base(const event_base &) = delete;
    event_base &operator=(const event_base &) = delete;

protected:
    typedef void (*runner)(event_base &);
    explicit event_base(runner r) : node_(), owner_(nullptr), run_(r) {}
    ~event_base() { cancel(); }

private:
    friend class events<Kind>;
    typename Kind::node node_;
    events<Kind> *owner_; /* meaningful while pending or due */
    runner run_;
};

template <class Kind, class F>
class event : public event_base<Kind> {
public:
    explicit event(F fn = F()) : event_base<Kind>(&call), fn_(std::move(fn)) {}
    F &callable() { return fn_; }

    /* Declared so that code which copies or moves an event (a growing
     * std::vector of them, say) fails on this message, not on a deleted
     * constructor of event_base deep in the standard library; never
     * defined for real. */
    event(event &&o) noexcept : event_base<Kind>(&call), fn_(std::move(o.fn_))
    {
        static_assert(detail::always_false<F>::value,
                      "timer_containers::event cannot be copied or moved: its container links it by its address. "
                      "Keep each event where it was made: hold it by std::unique_ptr (a std::vector of "
                      "std::unique_ptr may grow), or make it in place in a std::deque (emplace_back never moves "
                      "the others)");
    }
    event(const event &o) : event(std::move(const_cast<event &>(o))) {}
    event &operator=(event &&o) noexcept { return *this = static_cast<const event &>(o); }
    event &operator=(const event &o)
    {
        event moved(std::move(const_cast<event &>(o)));
        return *this;
    }

private:
    static void call(event_base<Kind> &e) { static_cast<event &>(e).fn_(); }
    F fn_;
};

/* The non-allocating callable of C: a function and its argument. */
struct callback {
    void (*fn)(void *);
    void *arg;
    callback() : fn(nullptr), arg(nullptr) {}
    callback(void (*f)(void *), void *a) : fn(f), arg(a) {}
    void operator()() const { fn(arg); }
};

template <class Kind>
class events : private Kind::template timers<event_base<Kind>, &event_base<Kind>::node_> {
    typedef typename Kind::template timers<event_base<Kind>, &event_base<Kind>::node_> base;

public:
    typedef event_base<Kind> value_type;
    typedef typename base::due_range due_range;

    explicit events(int64_t now = 0) : base(now) {}

    TIMER_CXX_NODISCARD_ int insert(int64_t when, value_type &ev)
    {
        /* armed by another container: refused, as C's insert would (which also aborts) */
        return elsewhere(ev) ? -EBUSY : own(ev, base::insert(when, ev));
    }
    TIMER_CXX_NODISCARD_ int reschedule(int64_t when, value_type &ev)
    {
        return elsewhere(ev) ? -EINVAL : own(ev, base::reschedule(when, ev));
    }
    TIMER_CXX_NODISCARD_ int reschedule_range(int64_t earliest, int64_t latest, value_type &ev)
    {
        return elsewhere(ev) ? -EINVAL : own(ev, base::reschedule_range(earliest, latest, ev));
    }
    TIMER_CXX_NODISCARD_ int reschedule_near(int64_t when, int64_t slack, value_type &ev)
    {
        return elsewhere(ev) ? -EINVAL : own(ev, base::reschedule_near(when, slack, ev));
    }
    bool remove(value_type &ev) { return !elsewhere(ev) && base::remove(ev); }

    /* Each due event's callable, in pop order; the range hands out each
     * event idle, before its call, and is not touched by anything after it:
     * the callable may destroy its own event. */
    TIMER_CXX_INLINE_ std::size_t run_due(int64_t now)
    {
        std::size_t n = 0;
        for (value_type &ev : base::pop(now)) {
            n++;
            ev.run();
        }
        return n;
    }

    using base::pop;
    using base::next_expiry;
    using base::min_time;
    using base::first;
    using base::visit;
    using base::visit_until;
    using base::size;
    using base::empty;
    using base::reserve;
    using base::clear;
    using base::check;
    using base::pending;
    using base::due;
    using base::expire;

private:
    /* Armed (pending or due) in another container: this one must not touch it. */
    bool elsewhere(const value_type &ev) const { return (base::pending(ev) || base::due(ev)) && ev.owner_ != this; }
    int own(value_type &ev, int r)
    {
        if (r == 0)
            ev.owner_ = this;
        return r;
    }
};

template <class Kind>
bool event_base<Kind>::cancel()
{
    /* An idle event's owner may be gone: look at the node first. */
    if (!events<Kind>::pending(*this) && !events<Kind>::due(*this))
        return false;
    return owner_->remove(*this);
}

} // namespace timer_containers

#endif /* TIMER_CONTAINERS_HPP */
