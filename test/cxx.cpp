/* cxx.cpp - what timer_containers.hpp adds to the C containers, case by case,
 * for all three kinds: RAII, the due range (drain, early exits, nested pops,
 * put back), std::chrono rounding at tick boundaries and its bad inputs, and
 * the callback events (callables that cancel, re-arm and destroy events, their
 * own included). Each case is written once, as a template over the kind, and
 * checks exact results; the C calls' own behaviour through the C++ interface
 * is conform.c, fuzz.c and edge.c built with -DTK_CXX (harness.h).
 *
 *   cxx            every case; "cxx: N of M cases failed", exit 1 if N > 0
 *   cxx misuse     remove through the wrong heap: must abort with the C
 *                  header's assert (test/run.sh expects it)
 *   cxx hook-misuse  a pending hooked item moved by a growing std::vector:
 *                  must abort naming the fix (with asserts)
 *
 * Builds as C++11 to C++20, warnings as errors, with or without exceptions
 * and RTTI (the exception cases are left out without exceptions).
 */
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <vector>

/* The heap's allocator, counted, and made to fail on demand. */
static long cx_live, cx_calls;
static bool cx_fail;
static void *cx_realloc(void *p, size_t n)
{
    void *q;
    cx_calls++;
    if (cx_fail)
        return nullptr;
    q = std::realloc(p, n);
    if (q != nullptr && p == nullptr)
        cx_live++;
    return q;
}
static void cx_free(void *p)
{
    if (p != nullptr)
        cx_live--;
    std::free(p);
}
#define TIMER_HEAP_REALLOC(p, n) cx_realloc((p), (n))
#define TIMER_HEAP_FREE(p) cx_free(p)
#include "timer_containers.hpp"

#include <type_traits>

namespace tc = timer_containers;

#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
#define CX_EXCEPTIONS 1
#else
#define CX_EXCEPTIONS 0
#endif

/* ---- reporting ---------------------------------------------------------- */

static const char *cx_case;
static int cx_failures_in_case;

#define CHECK(cond)                                                                        \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            std::printf("FAIL %s line %d: %s\n", cx_case, __LINE__, #cond);                \
            cx_failures_in_case++;                                                         \
        }                                                                                  \
    } while (0)
#define CHECK_EQ(got, want)                                                                \
    do {                                                                                   \
        long long cx_g_ = static_cast<long long>(got), cx_w_ = static_cast<long long>(want); \
        if (cx_g_ != cx_w_) {                                                              \
            std::printf("FAIL %s line %d: %s = %lld, want %lld\n", cx_case, __LINE__, #got, cx_g_, cx_w_); \
            cx_failures_in_case++;                                                         \
        }                                                                                  \
    } while (0)

/* ---- the item, once per kind ---------------------------------------------- */

template <class Kind>
struct item {
    int id;
    typename Kind::node node;
};

template <class Kind>
using timers_of = typename Kind::template timers<item<Kind>, &item<Kind>::node>;

/* Ids in the order the loop saw them. */
typedef std::vector<int> ids;

static ids make_ids(std::initializer_list<int> l) { return ids(l); }

static std::string show(const ids &v)
{
    std::string s;
    for (size_t i = 0; i < v.size(); i++)
        s += (i ? " " : "") + std::to_string(v[i]);
    return s;
}

#define CHECK_IDS(got, ...)                                                                \
    do {                                                                                   \
        ids cx_want_ = make_ids({__VA_ARGS__});                                            \
        if ((got) != cx_want_) {                                                           \
            std::printf("FAIL %s line %d: %s = [%s], want [%s]\n", cx_case, __LINE__, #got, \
                        show(got).c_str(), show(cx_want_).c_str());                        \
            cx_failures_in_case++;                                                         \
        }                                                                                  \
    } while (0)

template <class Kind>
static const char *kind_name();
template <>
const char *kind_name<tc::set_kind>() { return "set"; }
template <>
const char *kind_name<tc::heap_kind>() { return "heap"; }
template <>
const char *kind_name<tc::wheel_kind>() { return "wheel"; }

/* ---- what the type says ------------------------------------------------- */

template <class Kind>
static void types()
{
    typedef timers_of<Kind> C;
    typedef tc::events<Kind> E;
    typedef tc::clocked<C, std::chrono::steady_clock, std::chrono::milliseconds> K;
    static_assert(!std::is_copy_constructible<C>::value && !std::is_copy_assignable<C>::value, "copyable");
    static_assert(!std::is_move_constructible<C>::value && !std::is_move_assignable<C>::value, "movable");
    static_assert(!std::is_copy_constructible<E>::value && !std::is_move_constructible<E>::value, "events move");
    static_assert(!std::is_copy_constructible<K>::value && !std::is_move_constructible<K>::value, "clocked move");
    /* an event's copy and move are declared, so that using them fails on a
     * message of the library's (run.sh, cxx_event_moves), not a deleted one */
    static_assert(!std::is_copy_constructible<tc::event_base<Kind> >::value, "event_base copies");
    static_assert(std::is_same<typename C::value_type, item<Kind> >::value, "value_type");
    static_assert(std::is_same<typename C::node_type, typename Kind::node>::value, "node_type");
    /* the range moves (C++11 and 14 return it by value) but is not copied */
    static_assert(std::is_move_constructible<typename C::due_range>::value, "range moves");
    static_assert(!std::is_copy_constructible<typename C::due_range>::value, "range copies");
    CHECK(sizeof(typename Kind::node) <= 32);
}

/* ---- RAII ----------------------------------------------------------------- */

template <class Kind>
static void destructor_clears()
{
    item<Kind> a = {}, b = {}, c = {};
    long live = cx_live;
    {
        timers_of<Kind> t(5);
        CHECK_EQ(t.insert(10, a), 0);
        CHECK_EQ(t.insert(20, b), 0);
        CHECK_EQ(t.insert(TIMER_NEVER, c), 0);
        CHECK(t.pending(a) && t.pending(b) && t.pending(c));
        CHECK_EQ(t.size(), 3);
    }
    CHECK(!timers_of<Kind>::pending(a) && !timers_of<Kind>::pending(b) && !timers_of<Kind>::pending(c));
    CHECK_EQ(cx_live, live); /* the heap freed its array */
    /* the idle items go into another container as any idle item does */
    timers_of<Kind> t2;
    CHECK_EQ(t2.insert(1, a), 0);
    CHECK_EQ(t2.next_expiry(), 1);
}

/* The C calls through the class, with their errors. */
template <class Kind>
static void calls()
{
    item<Kind> it[4] = {}; /* before the container: it clears them when it ends */
    timers_of<Kind> t(100);
    for (int i = 0; i < 4; i++)
        it[i].id = i;
    CHECK(t.empty());
    CHECK_EQ(t.next_expiry(), TIMER_NEVER);
    CHECK_EQ(t.min_time(), TIMER_NEVER);
    CHECK(t.first() == nullptr);
    CHECK_EQ(t.insert(-1, it[0]), -EINVAL);
    CHECK_EQ(t.insert(150, it[0]), 0);
    CHECK_EQ(t.insert(150, it[0]), -EBUSY);
    CHECK_EQ(t.insert(120, it[1]), 0);
    CHECK_EQ(t.insert(120, it[2]), 0);
    CHECK_EQ(t.reschedule(-5, it[2]), -EINVAL);
    CHECK_EQ(t.reschedule_range(130, 100, it[2]), -EINVAL);
    CHECK_EQ(t.reschedule_range(110, 125, it[2]), 0); /* within: unchanged, still behind 1 */
    CHECK_EQ(t.expire(it[2]), 120);
    CHECK_EQ(t.reschedule_range(200, 300, it[3]), 0); /* idle: reschedule(300) */
    CHECK_EQ(t.expire(it[3]), 300);
    CHECK_EQ(t.reschedule_near(100, 20, it[2]), 0);   /* 120 within 100 +- 20: unchanged */
    CHECK_EQ(t.expire(it[2]), 120);
    CHECK_EQ(t.reschedule_near(100, -1, it[2]), -EINVAL);
    CHECK_EQ(t.reschedule_near(99, 20, it[3]), 0);    /* 300 is not: moved, exactly to 99 */
    CHECK_EQ(t.expire(it[3]), 99);
    CHECK_EQ(t.reschedule_near(300, 0, it[3]), 0);
    CHECK_EQ(t.expire(it[3]), 300);
    CHECK_EQ(t.size(), 4);
    CHECK_EQ(t.reserve(100), 0);
    CHECK(t.check() == nullptr);
    CHECK(t.first() == &it[1]);
    CHECK_EQ(t.next_expiry(), 120);
    CHECK(t.min_time() <= 120);
    size_t seen = 0;
    int sum = 0;
    CHECK_EQ(t.visit([&](item<Kind> &x) {
        seen++;
        sum += x.id;
        CHECK(t.pending(x));
    }), 4);
    CHECK_EQ(seen, 4);
    CHECK_EQ(sum, 0 + 1 + 2 + 3);
    /* visit_until: the first non-zero ends the walk and is returned; 0 after all */
    seen = 0;
    CHECK_EQ(t.visit_until([&](item<Kind> &) { return ++seen == 2 ? 7 : 0; }), 7);
    CHECK_EQ(seen, 2);
    seen = 0;
    CHECK_EQ(t.visit_until([&](item<Kind> &) { return ++seen == 0; }), 0); /* bool works too */
    CHECK_EQ(seen, 4);
    CHECK(t.remove(it[0]));
    CHECK(!t.remove(it[0]));
    CHECK(!t.pending(it[0]) && !t.due(it[0]));
    ids got;
    for (item<Kind> &x : t.pop(1000))
        got.push_back(x.id);
    CHECK_IDS(got, 1, 2, 3);
    CHECK(t.empty());
    t.clear();
    CHECK(t.empty());
}

/* ---- the due range ---------------------------------------------------------- */

/* t holds items 0..n-1 at expiries `at`; pop(now) must hand them out in
 * order, each idle when the body sees it. */
template <class Kind>
static void range_drains()
{
    item<Kind> it[6] = {};
    timers_of<Kind> t;
    static const int64_t at[6] = {5, 3, 5, 9, 3, 50};
    for (int i = 0; i < 6; i++) {
        it[i].id = i;
        CHECK_EQ(t.insert(at[i], it[i]), 0);
    }
    ids got;
    typename timers_of<Kind>::due_range due = t.pop(9);
    CHECK_EQ(due.popped(), 5);
    CHECK_EQ(due.size(), 5);
    CHECK(!due.empty());
    CHECK(t.due(it[0]) && !t.pending(it[0]));
    for (item<Kind> &x : due) {
        CHECK(!t.due(x) && !t.pending(x)); /* off the list before the body */
        got.push_back(x.id);
    }
    CHECK_IDS(got, 1, 4, 0, 2, 3); /* expiry order, arrival order on ties */
    CHECK(due.empty());
    CHECK_EQ(t.size(), 1);
}

/* The body removes, reschedules and frees other due items, re-arms itself. */
template <class Kind>
static void range_body_changes_others()
{
    std::vector<std::unique_ptr<item<Kind> > > owned;
    timers_of<Kind> t;
    for (int i = 0; i < 6; i++) {
        owned.emplace_back(new item<Kind>());
        owned[static_cast<size_t>(i)]->id = i;
        CHECK_EQ(t.insert(10 + i, *owned[static_cast<size_t>(i)]), 0);
    }
    ids got;
    for (item<Kind> &x : t.pop(100)) {
        got.push_back(x.id);
        if (x.id == 0) {
            CHECK(t.remove(*owned[1]));              /* cancelled: not handed out */
            CHECK_EQ(t.reschedule(200, *owned[2]), 0); /* pending again, later */
            CHECK(t.remove(*owned[3]));              /* ... and freed */
            owned[3].reset();
            CHECK_EQ(t.reschedule(150, x), 0);       /* itself, re-armed */
        } else if (x.id == 4) {
            owned[4].reset();                        /* itself, freed (idle now) */
        }
    }
    CHECK_IDS(got, 0, 4, 5);
    CHECK_EQ(t.size(), 2);
    got.clear();
    for (item<Kind> &x : t.pop(1000))
        got.push_back(x.id);
    CHECK_IDS(got, 0, 2);
}

/* Leaving the loop early puts the rest back, pending at their expiries, in
 * their order, behind what was armed at the same expiry meanwhile. */
template <class Kind>
static void range_break_puts_back()
{
    item<Kind> it[6] = {};
    timers_of<Kind> t;
    for (int i = 0; i < 6; i++) {
        it[i].id = i;
        CHECK_EQ(t.insert(i < 3 ? 7 : 8, it[i]), 0); /* 0 1 2 at 7, 3 4 5 at 8 */
    }
    ids got;
    for (item<Kind> &x : t.pop(8)) {
        got.push_back(x.id);
        if (x.id == 0)
            CHECK_EQ(t.reschedule(7, x), 0); /* the same expiry as 1 and 2 */
        if (x.id == 1)
            break;
    }
    CHECK_IDS(got, 0, 1);
    CHECK_EQ(t.size(), 5); /* 0 again, and 2 3 4 5 put back */
    CHECK(t.pending(it[2]) && t.pending(it[5]) && !t.pending(it[1]));
    CHECK_EQ(t.next_expiry(), 7);
    CHECK(t.first() == &it[0]);
    got.clear();
    for (item<Kind> &x : t.pop(8))
        got.push_back(x.id);
    CHECK_IDS(got, 0, 2, 3, 4, 5);

    /* a return from inside the loop, from a function */
    for (int i = 0; i < 3; i++)
        CHECK_EQ(t.insert(20 + i, it[i]), 0);
    struct first_of {
        static int id(timers_of<Kind> &c)
        {
            for (item<Kind> &x : c.pop(100))
                return x.id;
            return -1;
        }
    };
    CHECK_EQ(first_of::id(t), 0);
    CHECK_EQ(t.size(), 2);
    CHECK_EQ(t.next_expiry(), 21);
}

#if CX_EXCEPTIONS
template <class Kind>
static void range_exception_puts_back()
{
    item<Kind> it[3] = {};
    timers_of<Kind> t;
    for (int i = 0; i < 3; i++) {
        it[i].id = i;
        CHECK_EQ(t.insert(1, it[i]), 0);
    }
    bool caught = false;
    try {
        for (item<Kind> &x : t.pop(1))
            if (x.id == 0)
                throw x.id;
    } catch (int) {
        caught = true;
    }
    CHECK(caught);
    CHECK_EQ(t.size(), 2);
    CHECK(t.pending(it[1]) && t.pending(it[2]) && !t.pending(it[0]));
}
#endif

/* A pop inside the loop appends to the same due list: every item is handed
 * out once, by the loop that comes to it first. */
template <class Kind>
static void range_nested_pop()
{
    item<Kind> it[5] = {};
    timers_of<Kind> t;
    for (int i = 0; i < 5; i++) {
        it[i].id = i;
        CHECK_EQ(t.insert(i < 3 ? 1 : 2, it[i]), 0);
    }
    ids outer, inner;
    for (item<Kind> &x : t.pop(1)) {
        outer.push_back(x.id);
        if (x.id == 0) {
            for (item<Kind> &y : t.pop(1)) /* nothing new due at 1: hands out nothing */
                inner.push_back(100 + y.id);
            for (item<Kind> &y : t.pop(2)) /* 3 4 due: after 1 2, which it takes too */
                inner.push_back(y.id);
        }
    }
    CHECK_IDS(outer, 0);
    CHECK_IDS(inner, 1, 2, 3, 4);
    CHECK(t.empty());

    /* the inner loop leaves early: the rest, the outer loop's included, go back */
    for (int i = 0; i < 5; i++)
        CHECK_EQ(t.insert(i < 3 ? 1 : 2, it[i]), 0);
    outer.clear();
    inner.clear();
    for (item<Kind> &x : t.pop(1)) {
        outer.push_back(x.id);
        for (item<Kind> &y : t.pop(2)) {
            inner.push_back(y.id);
            break;
        }
    }
    CHECK_IDS(outer, 0);
    CHECK_IDS(inner, 1);
    CHECK_EQ(t.size(), 3);
    ids rest;
    for (item<Kind> &x : t.pop(2))
        rest.push_back(x.id);
    CHECK_IDS(rest, 2, 3, 4);
}

/* A named range: take(), popped(), release() to a C list, a moved range. */
template <class Kind>
static void range_calls()
{
    typedef timers_of<Kind> C;
    item<Kind> it[4] = {};
    C t;
    for (int i = 0; i < 4; i++) {
        it[i].id = i;
        CHECK_EQ(t.insert(i, it[i]), 0);
    }
    {
        typename C::due_range due = t.pop(1);
        CHECK_EQ(due.popped(), 2);
        item<Kind> *x = due.take();
        CHECK(x == &it[0] && !t.due(it[0]) && t.due(it[1]));
        typename C::due_range moved(std::move(due)); /* the list stays the container's */
        CHECK_EQ(moved.popped(), 2);
        CHECK_EQ(due.popped(), 0);
        CHECK_EQ(moved.size(), 1);
    } /* `moved` ends: item 1 back; `due`, moved from, changes nothing */
    CHECK(t.pending(it[1]));
    CHECK_EQ(t.size(), 3);
    {
        struct tlist out = {nullptr, nullptr};
        typename C::due_range due = t.pop(2);
        CHECK_EQ(due.popped(), 2);
        due.release(out); /* still due, now in a C list */
        CHECK(due.empty());
        CHECK(t.due(it[1]) && t.due(it[2]));
        CHECK(C::entry(tlist_pop_front(&out)) == &it[1]);
        CHECK(C::entry(tlist_pop_front(&out)) == &it[2]);
        CHECK(C::entry(tlist_pop_front(&out)) == nullptr);
    }
    CHECK_EQ(t.size(), 1);
    CHECK(t.pop(2).empty()); /* nothing due: an empty range */
    CHECK_EQ(t.pop(0).popped(), 0);
}

/* put_back with a heap that cannot grow: -ENOMEM, and the items stay due;
 * a range that ends so makes them idle (only the heap can fail). The array
 * holds 128 after 128 inserts, and keeps its size while half full. */
static void range_put_back_nomem()
{
    typedef item<tc::heap_kind> I;
    typedef timers_of<tc::heap_kind> C;
    std::vector<I> a(128), b(64), c(128);
    C t;
    for (size_t i = 0; i < a.size(); i++) {
        a[i] = I();
        a[i].id = static_cast<int>(i);
        CHECK_EQ(t.insert(i < 64 ? 1 : 2, a[i]), 0);
    }
    {
        C::due_range due = t.pop(1); /* a[0..63] due; 64 pending in room for 128 */
        CHECK_EQ(due.popped(), 64);
        cx_fail = true;
        for (size_t i = 0; i < b.size(); i++) { /* the array full again, without growing */
            b[i] = I();
            CHECK_EQ(t.insert(50, b[i]), 0);
        }
        CHECK_EQ(due.put_back(), -ENOMEM);
        CHECK_EQ(due.size(), 64);
        CHECK(t.due(a[0]) && t.due(a[63]) && !t.pending(a[0]));
        CHECK_EQ(t.size(), 128);
        cx_fail = false;
        CHECK_EQ(due.put_back(), 0);
        CHECK(due.empty());
        CHECK(t.pending(a[0]) && t.pending(a[63]));
        CHECK_EQ(t.size(), 192);
        CHECK(t.first() == &a[0]);
    }
    {
        C::due_range due = t.pop(1); /* a[0..63] again; 128 pending in room for 256 */
        CHECK_EQ(due.popped(), 64);
        cx_fail = true;
        for (size_t i = 0; i < c.size(); i++) {
            c[i] = I();
            CHECK_EQ(t.insert(60, c[i]), 0);
        }
    } /* the range ends and cannot put them back: they are idle */
    cx_fail = false;
    CHECK(!t.pending(a[0]) && !t.due(a[0]) && !t.pending(a[63]) && !t.due(a[63]));
    CHECK_EQ(t.size(), 256);
    CHECK(t.check() == nullptr);
}

/* The same script gives the same results through every kind: the pop order
 * of a tie-heavy script with reschedules, removals and early exits. */
template <class Kind>
static std::string script()
{
    std::vector<item<Kind> > it(64);
    timers_of<Kind> t(3);
    std::string log;
    uint64_t r = 12345;
    for (size_t i = 0; i < it.size(); i++) {
        it[i] = item<Kind>();
        it[i].id = static_cast<int>(i);
    }
    for (int64_t now = 0; now < 4000; now += 37) {
        for (int k = 0; k < 3; k++) {
            r = r * 6364136223846793005ULL + 1442695040888963407ULL;
            item<Kind> &x = it[(r >> 33) % it.size()];
            int64_t when = now + static_cast<int64_t>((r >> 20) % 300) / 50 * 50;
            switch ((r >> 12) % 4) {
            case 0: log += t.insert(when, x) == 0 ? "i" : "-"; break;
            case 1: log += t.reschedule(when, x) == 0 ? "r" : "-"; break;
            case 2: log += t.remove(x) ? "x" : "-"; break;
            default: log += t.reschedule_range(when, when + 100, x) == 0 ? "g" : "-"; break;
            }
        }
        int n = 0;
        for (item<Kind> &x : t.pop(now)) {
            log += " " + std::to_string(x.id);
            if (++n == 5)
                break; /* at most 5 a round: the rest come next round */
        }
        log += "|" + std::to_string(t.next_expiry()) + "\n";
    }
    return log;
}

static void same_script_every_kind()
{
    std::string s = script<tc::set_kind>(), h = script<tc::heap_kind>(), w = script<tc::wheel_kind>();
    CHECK(s.size() > 1000);
    CHECK(s == h);
    CHECK(s == w);
}

/* ---- std::chrono -------------------------------------------------------------- */

using std::chrono::nanoseconds;
using std::chrono::milliseconds;
using std::chrono::seconds;

/* Clocks whose time points the test chooses: one of nanoseconds, and one of
 * seconds, for ticks finer than the clock. */
template <class D>
struct fixed_clock {
    typedef D duration;
    typedef typename D::rep rep;
    typedef typename D::period period;
    typedef std::chrono::time_point<fixed_clock> time_point;
    static const bool is_steady = true;
    static time_point now() { return time_point(); }
};
typedef fixed_clock<nanoseconds> test_clock;
typedef fixed_clock<seconds> coarse_clock;

static test_clock::time_point at_ns(int64_t ns) { return test_clock::time_point(nanoseconds(ns)); }

/* Pops at now and takes every item off: how many. (A range that ends with
 * items left puts them back: `c.pop(now).popped()` alone would pop nothing.) */
template <class C, class Now>
static size_t drain(C &c, Now now)
{
    size_t n = 0;
    for (typename C::value_type &x : c.pop(now)) {
        (void)x;
        n++;
    }
    return n;
}

template <class Kind>
static void chrono_tick_boundaries()
{
    typedef tc::clocked<timers_of<Kind>, test_clock, milliseconds> C;
    const int64_t ms = 1000000;
    item<Kind> a = {}, b = {}, c = {};
    C t(at_ns(0));
    CHECK_EQ(t.insert(at_ns(5 * ms + 1), a), 0); /* rounds up: tick 6 */
    CHECK_EQ(t.insert(at_ns(5 * ms), b), 0);     /* exact: tick 5 */
    CHECK_EQ(t.insert(at_ns(5 * ms - 1), c), 0); /* rounds up: tick 5 */
    CHECK(t.next_expiry() == at_ns(5 * ms));
    CHECK(C::expire(a) == at_ns(6 * ms));
    ids got;
    for (item<Kind> &x : t.pop(at_ns(5 * ms - 1))) /* tick 4: nothing */
        got.push_back(x.id);
    CHECK(got.empty());
    b.id = 1;
    c.id = 2;
    for (item<Kind> &x : t.pop(at_ns(6 * ms - 1))) /* tick 5: b, c; not a */
        got.push_back(x.id);
    CHECK_IDS(got, 1, 2);
    CHECK(t.next_expiry() == at_ns(6 * ms));
    CHECK(t.pop(at_ns(6 * ms - 1)).empty());
    CHECK_EQ(drain(t, at_ns(6 * ms)), 1);
    CHECK(t.next_expiry() == test_clock::time_point::max());

    /* bad input: an error, and nothing changed */
    int64_t ticks = 42;
    CHECK_EQ(t.insert(at_ns(-1), a), -EINVAL);
    CHECK_EQ(t.reschedule(at_ns(-5 * ms), a), -EINVAL);
    CHECK_EQ(t.reschedule_range(at_ns(-1), at_ns(3 * ms), a), -EINVAL);
    CHECK_EQ(C::expiry_ticks(at_ns(-1), ticks), -EINVAL);
    CHECK_EQ(ticks, 42);
    CHECK(!t.pending(a) && t.empty());
    /* reschedule_range in time points */
    CHECK_EQ(t.reschedule_range(at_ns(7 * ms), at_ns(9 * ms + 5), a), 0);
    CHECK(C::expire(a) == at_ns(10 * ms));
    CHECK_EQ(t.reschedule_range(at_ns(8 * ms), at_ns(12 * ms), a), 0); /* within: unchanged */
    CHECK(C::expire(a) == at_ns(10 * ms));
    /* reschedule_near: the expiry rounds up, the slack down (2.9 ms: 2 ticks) */
    CHECK_EQ(t.reschedule_near(at_ns(8 * ms), nanoseconds(2 * ms + 900000), a), 0); /* 10 within 8 +- 2 */
    CHECK(C::expire(a) == at_ns(10 * ms));
    CHECK_EQ(t.reschedule_near(at_ns(7 * ms + 1), std::chrono::microseconds(1999), a), 0); /* 10 not within 8 +- 1 */
    CHECK(C::expire(a) == at_ns(8 * ms));
    CHECK_EQ(t.reschedule_near(at_ns(8 * ms), nanoseconds(-1), a), -EINVAL);
    CHECK_EQ(t.reschedule_near(at_ns(-1), milliseconds(5), a), -EINVAL);
    CHECK(C::expire(a) == at_ns(8 * ms));
    CHECK_EQ(t.reschedule_range(at_ns(10 * ms), at_ns(10 * ms), a), 0);
    /* a `now` before the epoch pops nothing */
    CHECK(t.pop(at_ns(-3 * ms)).empty());
    /* the last time point: its tick (rounded up) is one past the last `now`'s
     * (rounded down), and its time point is more than the clock can hold */
    CHECK_EQ(t.insert(test_clock::time_point::max(), b), 0);
    CHECK(C::expire(b) == test_clock::time_point::max());
    CHECK_EQ(drain(t, test_clock::time_point::max()), 1);
    CHECK(t.pending(b) && t.next_expiry() == test_clock::time_point::max());
    CHECK(t.remove(b));
    CHECK_EQ(C::now_ticks(at_ns(-1)), -1);
    CHECK_EQ(C::now_ticks(at_ns(-ms)), -1);
    CHECK_EQ(C::now_ticks(at_ns(-ms - 1)), -2);
    CHECK_EQ(C::now_ticks(at_ns(ms - 1)), 0);

    /* ticks finer than the clock: seconds counted in nanoseconds overflow */
    typedef tc::clocked<timers_of<Kind>, coarse_clock, nanoseconds> F;
    F f;
    coarse_clock::time_point far(seconds(10000000000LL)); /* 1e19 ns > INT64_MAX */
    CHECK_EQ(f.insert(far, a), -ERANGE);
    CHECK_EQ(F::expiry_ticks(far, ticks), -ERANGE);
    CHECK_EQ(ticks, 42);
    CHECK(f.empty() && !f.pending(a));
    CHECK_EQ(F::now_ticks(far), INT64_MAX);             /* saturates */
    CHECK_EQ(F::now_ticks(coarse_clock::time_point(seconds(-10000000000LL))), INT64_MIN);
    CHECK_EQ(f.insert(coarse_clock::time_point(seconds(2)), a), 0);
    CHECK(f.next_expiry() == coarse_clock::time_point(seconds(2)));
    CHECK_EQ(drain(f, far), 1);
    /* a tick count the clock's type cannot hold: time_point::max() */
    CHECK(F::time_of(INT64_MAX - 1) == coarse_clock::time_point(seconds(9223372037LL)));
    CHECK(C::time_of(INT64_MAX / 1000) == test_clock::time_point::max());
    /* a time point of another duration: milliseconds, converted exactly */
    std::chrono::time_point<test_clock, milliseconds> in_ms(milliseconds(3));
    CHECK_EQ(t.insert(in_ms, c), 0);
    CHECK_EQ(C::expire(c).time_since_epoch().count(), 3 * ms);
}

/* Random expiries and pops in nanoseconds against the exact model: an item
 * fires at the first pop whose `now` has reached the tick its expiry rounds
 * up to: never before its time point, never a tick after that pop's. */
template <class Kind>
static void chrono_random()
{
    typedef tc::clocked<timers_of<Kind>, test_clock, std::chrono::microseconds> C;
    const int64_t us = 1000;
    std::vector<item<Kind> > it(300);
    C t(at_ns(0));
    std::vector<int64_t> when(it.size());
    uint64_t r = 99;
    size_t fired = 0;
    int64_t now = 0;
    for (size_t i = 0; i < it.size(); i++) {
        it[i] = item<Kind>();
        it[i].id = static_cast<int>(i);
        r = r * 6364136223846793005ULL + 1442695040888963407ULL;
        when[i] = static_cast<int64_t>((r >> 20) % (50 * us));
        if ((r >> 8) % 5 == 0)
            when[i] = when[i] / us * us; /* on a tick boundary */
        CHECK_EQ(t.insert(at_ns(when[i]), it[i]), 0);
    }
    while (fired < it.size() && now < 100 * us) {
        r = r * 6364136223846793005ULL + 1442695040888963407ULL;
        now += static_cast<int64_t>((r >> 30) % (3 * us));
        for (item<Kind> &x : t.pop(at_ns(now))) {
            int64_t e = when[static_cast<size_t>(x.id)];
            CHECK(e <= now);                                    /* never early */
            CHECK((e + us - 1) / us <= now / us);              /* its tick reached */
            fired++;
        }
        size_t late = 0;                                       /* none left behind */
        for (size_t i = 0; i < it.size(); i++)
            late += t.pending(it[i]) && (when[i] + us - 1) / us <= now / us;
        CHECK_EQ(late, 0);
    }
    CHECK_EQ(fired, it.size());
}

/* ---- hooks ------------------------------------------------------------------------ */

/* An item with a hook: copies and moves of it are idle items. */
template <class Kind>
struct hitem {
    int id;
    typename Kind::hook hook;
};

template <class Kind>
using hooked_of = typename Kind::template hooked<hitem<Kind>, &hitem<Kind>::hook>;

/* A copy or a move of a pending item is idle and unknown to the container
 * (with a plain node it was a second item sharing the first's links: a
 * remove through it corrupted every kind); assigning to an item keeps its
 * own state; the container works as over nodes. */
template <class Kind>
static void hooks()
{
    typedef hooked_of<Kind> C;
    static_assert(sizeof(typename Kind::hook) == sizeof(typename Kind::node), "a hook is its node");
    static_assert(std::is_same<typename C::node_type, typename Kind::hook>::value, "node_type");
    hitem<Kind> a = {}, b = {};
    a.id = 1;
    b.id = 2;
    std::vector<hitem<Kind> > idle(3); /* idle items may live anywhere, and move */
    C t(10);
    CHECK_EQ(t.insert(20, a), 0);
    CHECK_EQ(t.insert(15, b), 0);
    hitem<Kind> copy = a;
    CHECK(!C::pending(copy) && !C::due(copy) && copy.id == 1);
    CHECK(!t.remove(copy));
    CHECK_EQ(t.insert(30, copy), 0); /* a third item, of its own */
    hitem<Kind> moved(std::move(copy));
    CHECK(!C::pending(moved) && C::pending(copy));
    CHECK(t.remove(copy));
    moved = b; /* assigned to: stays idle; b stays pending */
    CHECK(!C::pending(moved) && C::pending(b) && moved.id == 2);
    b = moved; /* b keeps its place */
    CHECK(C::pending(b) && C::expire(b) == 15);
    CHECK_EQ(t.size(), 2);
    CHECK(t.check() == nullptr);
    for (int i = 0; i < 100; i++) /* the idle ones move as the vector grows */
        idle.push_back(moved);
    CHECK_EQ(t.insert(12, idle[50]), 0);
    ids got;
    for (hitem<Kind> &x : t.pop(100))
        got.push_back(x.id);
    CHECK_IDS(got, 2, 2, 1);
    CHECK(t.empty());
}

/* ---- callback events ------------------------------------------------------------ */

/* The events' log: which ran, in order. */
static ids ev_log;

template <class Kind>
static void events_run()
{
    tc::events<Kind> loop(0);
    int counter = 0;
    auto bump = [&counter] { counter++; ev_log.push_back(1); };
    tc::event<Kind, decltype(bump)> e1(bump);                            /* a lambda's type */
    tc::event<Kind, std::function<void()> > e2([] { ev_log.push_back(2); }); /* std::function */
    struct ctx {
        static void fn(void *arg) { ev_log.push_back(*static_cast<int *>(arg)); }
    };
    int three = 3;
    tc::event<Kind, tc::callback> e3(tc::callback(&ctx::fn, &three));    /* C function + argument */
    ev_log.clear();
    CHECK_EQ(loop.insert(20, e2), 0);
    CHECK_EQ(loop.insert(10, e1), 0);
    CHECK_EQ(loop.insert(20, e3), 0);
    CHECK_EQ(loop.insert(5, e1), -EBUSY);
    CHECK(e1.armed() && e2.armed());
    CHECK_EQ(loop.size(), 3);
    CHECK_EQ(loop.next_expiry(), 10);
    CHECK(loop.first() == &e1);
    CHECK_EQ(loop.run_due(15), 1);
    CHECK_EQ(loop.run_due(25), 2);
    CHECK_IDS(ev_log, 1, 2, 3);
    CHECK_EQ(counter, 1);
    CHECK(!e1.armed() && loop.empty());
    e3.run(); /* by hand: runs, changes nothing */
    CHECK_IDS(ev_log, 1, 2, 3, 3);
    CHECK(!e3.armed());
    /* cancel, and the RAII cancel */
    CHECK_EQ(loop.reschedule(30, e1), 0);
    CHECK(e1.cancel());
    CHECK(!e1.cancel());
    {
        tc::event<Kind, tc::callback> scoped(tc::callback(&ctx::fn, &three));
        CHECK_EQ(loop.insert(40, scoped), 0);
        CHECK_EQ(loop.size(), 1);
    }
    CHECK(loop.empty());
    CHECK_EQ(loop.run_due(1000), 0);
}

/* Events that cancel, re-arm and destroy events, their own included. */
template <class Kind>
struct game {
    typedef tc::event<Kind, std::function<void()> > ev;
    tc::events<Kind> loop;
    std::unique_ptr<ev> e[6];
};

template <class Kind>
static void events_change_each_other()
{
    game<Kind> g;
    int ticks = 0;
    ev_log.clear();
    /* 0: periodic, every 10, three times, then destroys itself */
    g.e[0].reset(new typename game<Kind>::ev([&] {
        ev_log.push_back(0);
        if (++ticks < 3)
            CHECK_EQ(g.loop.reschedule(g.loop.expire(*g.e[0]) + 10, *g.e[0]), 0);
        else
            g.e[0].reset(); /* its own event: nothing of it is touched after this */
    }));
    /* 1: cancels 2 (due in the same run) and destroys 3 (due too) */
    g.e[1].reset(new typename game<Kind>::ev([&] {
        ev_log.push_back(1);
        CHECK(g.e[2]->cancel());
        g.e[3].reset();
    }));
    g.e[2].reset(new typename game<Kind>::ev([&] { ev_log.push_back(2); }));
    g.e[3].reset(new typename game<Kind>::ev([&] { ev_log.push_back(3); }));
    /* 4: runs the loop again from inside (its own due events come out there) */
    g.e[4].reset(new typename game<Kind>::ev([&] {
        ev_log.push_back(4);
        CHECK_EQ(g.loop.insert(10, *g.e[2]), 0); /* re-armed, due now */
        g.loop.run_due(10);
    }));
    CHECK_EQ(g.loop.insert(10, *g.e[0]), 0);
    CHECK_EQ(g.loop.insert(10, *g.e[1]), 0);
    CHECK_EQ(g.loop.insert(10, *g.e[2]), 0);
    CHECK_EQ(g.loop.insert(10, *g.e[3]), 0);
    CHECK_EQ(g.loop.insert(10, *g.e[4]), 0);
    CHECK_EQ(g.loop.run_due(10), 3); /* 0, 1, 4 here; 4's run_due ran 2 */
    CHECK_IDS(ev_log, 0, 1, 4, 2);
    CHECK(!g.e[3]);
    CHECK_EQ(g.loop.size(), 1); /* 0 at 20 */
    CHECK_EQ(g.loop.run_due(20), 1);
    CHECK_EQ(g.loop.run_due(30), 1);
    CHECK(!g.e[0]);
    CHECK(g.loop.empty());
    CHECK_IDS(ev_log, 0, 1, 4, 2, 0, 0);
}

/* Two event containers: each refuses the other's events; containers that
 * end before their events leave them idle. */
template <class Kind>
static void events_two_loops()
{
    typedef tc::event<Kind, tc::callback> ev;
    ev a, b;
    {
        tc::events<Kind> one, two;
        CHECK_EQ(one.insert(5, a), 0);
        CHECK_EQ(two.insert(5, a), -EBUSY);
        CHECK_EQ(two.reschedule(7, a), -EINVAL);
        CHECK_EQ(two.reschedule_range(1, 9, a), -EINVAL);
        CHECK_EQ(two.reschedule_near(5, 9, a), -EINVAL);
        CHECK_EQ(one.reschedule_near(7, 2, a), 0); /* within: stays at 5 */
        CHECK(!two.remove(a));
        CHECK_EQ(one.expire(a), 5);
        CHECK(one.check() == nullptr && two.check() == nullptr);
        CHECK_EQ(two.insert(6, b), 0);
        CHECK(a.cancel());
        CHECK_EQ(two.reschedule(7, a), 0); /* idle again: any container takes it */
    }
    CHECK(!a.armed() && !b.armed()); /* both containers gone first: idle, no dangling */
    CHECK(!a.cancel());
}

#if CX_EXCEPTIONS
template <class Kind>
static void events_throw()
{
    tc::events<Kind> loop;
    typedef tc::event<Kind, std::function<void()> > ev;
    ev e0([] { throw 7; }), e1([] { ev_log.push_back(11); });
    CHECK_EQ(loop.insert(1, e0), 0);
    CHECK_EQ(loop.insert(1, e1), 0);
    ev_log.clear();
    bool caught = false;
    try {
        loop.run_due(1);
    } catch (int) {
        caught = true;
    }
    CHECK(caught);
    CHECK(!e0.armed() && e1.armed()); /* put back */
    CHECK_EQ(loop.run_due(1), 1);
    CHECK_IDS(ev_log, 11);
}
#endif

template <class Kind>
static void events_chrono()
{
    typedef tc::clocked<tc::events<Kind>, test_clock, milliseconds> L;
    const int64_t ms = 1000000;
    L loop(at_ns(0));
    ev_log.clear();
    tc::event<Kind, std::function<void()> > e([] { ev_log.push_back(9); });
    CHECK_EQ(loop.insert(at_ns(2 * ms + 1), e), 0);
    CHECK(loop.next_expiry() == at_ns(3 * ms));
    CHECK_EQ(loop.run_due(at_ns(3 * ms - 1)), 0);
    CHECK_EQ(loop.run_due(at_ns(3 * ms)), 1);
    CHECK_IDS(ev_log, 9);
    CHECK_EQ(loop.insert(at_ns(-1), e), -EINVAL);
    CHECK(loop.empty());
}

/* ---- the run ----------------------------------------------------------------- */

static int cx_cases, cx_failed;

static void run_case(const char *name, const char *kind, void (*fn)())
{
    char label[96];
    std::snprintf(label, sizeof label, "%s%s%s", name, kind[0] ? " " : "", kind);
    cx_case = label;
    cx_failures_in_case = 0;
    fn();
    cx_cases++;
    cx_failed += cx_failures_in_case != 0;
    std::printf("%s %s\n", cx_failures_in_case ? "fail" : "pass", label);
}

template <class Kind>
static void run_kind()
{
    const char *k = kind_name<Kind>();
    run_case("types", k, &types<Kind>);
    run_case("destructor_clears", k, &destructor_clears<Kind>);
    run_case("calls", k, &calls<Kind>);
    run_case("range_drains", k, &range_drains<Kind>);
    run_case("range_body_changes_others", k, &range_body_changes_others<Kind>);
    run_case("range_break_puts_back", k, &range_break_puts_back<Kind>);
#if CX_EXCEPTIONS
    run_case("range_exception_puts_back", k, &range_exception_puts_back<Kind>);
#endif
    run_case("range_nested_pop", k, &range_nested_pop<Kind>);
    run_case("range_calls", k, &range_calls<Kind>);
    run_case("chrono_tick_boundaries", k, &chrono_tick_boundaries<Kind>);
    run_case("chrono_random", k, &chrono_random<Kind>);
    run_case("hooks", k, &hooks<Kind>);
    run_case("events_run", k, &events_run<Kind>);
    run_case("events_change_each_other", k, &events_change_each_other<Kind>);
    run_case("events_two_loops", k, &events_two_loops<Kind>);
#if CX_EXCEPTIONS
    run_case("events_throw", k, &events_throw<Kind>);
#endif
    run_case("events_chrono", k, &events_chrono<Kind>);
}

/* remove through a heap that does not hold the item: the C header's assert */
static void misuse()
{
    timers_of<tc::heap_kind> a, b;
    item<tc::heap_kind> x = {}, y = {};
    CHECK_EQ(a.insert(1, x), 0);
    CHECK_EQ(b.insert(1, y), 0);
    b.remove(x);
}

/* a pending item in a std::vector that grows: its hook ends where the
 * container still links it, and says so (test/run.sh expects the message) */
static void hook_misuse()
{
    std::vector<hitem<tc::wheel_kind> > v(1);
    hooked_of<tc::wheel_kind> t;
    CHECK_EQ(t.insert(5, v[0]), 0);
    v.resize(v.capacity() + 1);
}

int main(int argc, char **argv)
{
    if (argc > 1 && std::strcmp(argv[1], "misuse") == 0) {
        misuse();
        std::printf("misuse: not caught\n");
        return 1;
    }
    if (argc > 1 && std::strcmp(argv[1], "hook-misuse") == 0) {
        hook_misuse();
        std::printf("hook-misuse: not caught\n");
        return 1;
    }
    run_kind<tc::set_kind>();
    run_kind<tc::heap_kind>();
    run_kind<tc::wheel_kind>();
    run_case("range_put_back_nomem", "heap", &range_put_back_nomem);
    run_case("same_script_every_kind", "", &same_script_every_kind);
    std::printf("cxx (C++%ld%s): %d of %d cases failed\n", static_cast<long>(TIMER_CXX_STD_ / 100 % 100),
                CX_EXCEPTIONS ? "" : ", no exceptions", cx_failed, cx_cases);
    return cx_failed != 0;
}
