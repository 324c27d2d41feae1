/* instr_events.cpp - make bench-instructions' driver for the callback events of
 * timer_containers.hpp: what each form of callable costs per event, counted by
 * callgrind as instr.c's phases are (instructions.sh prints the table).
 *
 * The forms, each an event<wheel_kind, F> whose callable adds 1 to a counter
 * it holds a pointer to:
 *   functor     a type of its own (as a lambda's): the call is inlined
 *   callback    tc::callback, a C function and its argument
 *   function    std::function<void()> holding a 16-byte callable (its small
 *               buffer in libstdc++: no allocation)
 *   function32  std::function<void()> holding a 32-byte callable (allocated)
 * and, for scale, C: the same work with C's wheel, items that carry a
 * function pointer and an argument, popped into a list, drained and called.
 *
 * Per form, one function per phase, over n events: make (construct them,
 * allocation included), arm (insert each at its expiry), run (run_due at
 * every tick until all have run: pop and call), drop (destroy them, idle).
 * Expiries are n distinct ticks in a random order. Lines "cell events OP
 * FUNCTION COUNT" as instr.c's; "info" lines give each form's bytes per event
 * and allocations per event (operator new, counted here). The run checks
 * that every event ran once, in expiry order, and exits non-zero if not.
 *
 *   ./instr_events [--n 200000]   (instr.c's --conns and --seed are accepted, unused)
 */
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <new>

#include "timer_containers.hpp"

namespace tc = timer_containers;
typedef tc::wheel_kind kind;

#if defined(__clang__)
#define PHASE static __attribute__((noinline))
#else
#define PHASE static __attribute__((noinline, noclone, no_icf))
#endif

/* Every allocation, counted (the phases' share is what they report). */
static size_t allocations;
void *operator new(size_t n)
{
    allocations++;
    if (void *p = std::malloc(n ? n : 1))
        return p;
    std::abort();
}
void operator delete(void *p) noexcept { std::free(p); }
void operator delete(void *p, size_t) noexcept { std::free(p); }

static size_t failures;
static uint64_t ran, order_errors;
static int64_t last_tick;

/* What every callable does: count, and check it runs in expiry order. */
static void hit(int64_t tick)
{
    ran++;
    order_errors += tick < last_tick;
    last_tick = tick;
}

struct functor {
    int64_t *tick;
    void operator()() const { hit(*tick); }
};
static void hit_c(void *arg) { hit(*static_cast<int64_t *>(arg)); }
struct wide { /* 32 bytes: larger than std::function's small buffer */
    int64_t *tick;
    void *pad[3];
    void operator()() const { hit(*tick); }
};

template <class F> struct form;
template <> struct form<functor> {
    static const char *name() { return "functor"; }
    static functor make(int64_t *t) { return functor{t}; }
};
template <> struct form<tc::callback> {
    static const char *name() { return "callback"; }
    static tc::callback make(int64_t *t) { return tc::callback(&hit_c, t); }
};
template <> struct form<std::function<void()> > {
    static const char *name() { return "function"; }
    static std::function<void()> make(int64_t *t) { return functor{t}; }
};
struct function32 : std::function<void()> {
    function32() {}
    function32(const wide &w) : std::function<void()>(w) {}
};
template <> struct form<function32> {
    static const char *name() { return "function32"; }
    static function32 make(int64_t *t) { return function32(wide{t, {nullptr, nullptr, nullptr}}); }
};

typedef tc::events<kind> loop_type;

/* The phases' bodies, per form F (ev: storage for n events; when[i] event
 * i's tick), forced inline into one plain function per form and phase:
 * callgrind reports costs by function, and a plain name is one it prints
 * whole. */
#define EV_BODY_ static inline __attribute__((always_inline))

template <class F>
EV_BODY_ void make_body(tc::event<kind, F> *ev, int64_t *when, size_t n)
{
    for (size_t i = 0; i < n; i++)
        new (&ev[i]) tc::event<kind, F>(form<F>::make(&when[i]));
}

template <class F>
EV_BODY_ size_t arm_body(loop_type &loop, tc::event<kind, F> *ev, const int64_t *when, size_t n)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += loop.insert(when[i], ev[i]) != 0;
    return bad;
}

EV_BODY_ size_t run_body(loop_type &loop, int64_t ticks)
{
    size_t n = 0;
    for (int64_t t = 0; t < ticks; t++)
        n += loop.run_due(t);
    return n;
}

template <class F>
EV_BODY_ void drop_body(tc::event<kind, F> *ev, size_t n)
{
    for (size_t i = 0; i < n; i++)
        ev[i].~event();
}

#define EV_PHASES(F, name)                                                                          \
    PHASE void ev_make_##name(tc::event<kind, F> *ev, int64_t *when, size_t n) { make_body<F>(ev, when, n); } \
    PHASE size_t ev_arm_##name(loop_type &loop, tc::event<kind, F> *ev, const int64_t *when, size_t n) \
    { return arm_body<F>(loop, ev, when, n); }                                                      \
    PHASE size_t ev_run_##name(loop_type &loop, int64_t ticks) { return run_body(loop, ticks); }    \
    PHASE void ev_drop_##name(tc::event<kind, F> *ev, size_t n) { drop_body<F>(ev, n); }            \
    static void run_##name(int64_t *when, size_t n)                                                  \
    {                                                                                               \
        typedef tc::event<kind, F> ev_type;                                                         \
        ev_type *ev = static_cast<ev_type *>(std::malloc(n * sizeof(ev_type)));                     \
        loop_type loop(0);                                                                          \
        size_t before = allocations;                                                                \
        if (ev == nullptr)                                                                          \
            std::abort();                                                                           \
        start();                                                                                    \
        ev_make_##name(ev, when, n);                                                                \
        std::printf("info ev_allocs_" #name " %.2f\ninfo ev_bytes_" #name " %zu\n",                 \
                    static_cast<double>(allocations - before) / static_cast<double>(n), sizeof(ev_type)); \
        failures += ev_arm_##name(loop, ev, when, n);                                               \
        size_t popped = ev_run_##name(loop, static_cast<int64_t>(n));                              \
        finish(popped, n, loop.empty(), #name);                                                     \
        ev_drop_##name(ev, n);                                                                      \
        std::free(ev);                                                                              \
        cells(#name, n);                                                                            \
    }

static void start()
{
    ran = order_errors = 0;
    last_tick = -1;
}

static void finish(size_t popped, size_t n, bool empty, const char *name)
{
    if (popped != n || ran != n || order_errors != 0 || !empty) {
        std::fprintf(stderr, "instr_events %s: %zu run of %zu, %" PRIu64 " out of order\n", name, popped, n,
                     order_errors);
        failures++;
    }
}

static void cells(const char *name, size_t n)
{
    static const char *const ops[] = {"make", "arm", "run", "drop"};
    for (const char *op : ops)
        std::printf("cell events %s-%s ev_%s_%s %zu\n", name, op, op, name, n);
}

EV_PHASES(functor, functor)
EV_PHASES(tc::callback, callback)
EV_PHASES(std::function<void()>, function)
EV_PHASES(function32, function32)

/* C, for scale: items with a function and its argument, in a C wheel. */
struct citem {
    struct timer_wheel_node node;
    void (*fn)(void *);
    void *arg;
};
TIMER_WHEEL_DEFINE_NAMED(cwheel, struct citem, node)

PHASE void ev_make_c(citem *it, int64_t *when, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        std::memset(&it[i].node, 0, sizeof it[i].node);
        it[i].fn = &hit_c;
        it[i].arg = &when[i];
    }
}

PHASE size_t ev_arm_c(cwheel *w, citem *it, const int64_t *when, size_t n)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += cwheel_insert(w, when[i], &it[i]) != 0;
    return bad;
}

PHASE size_t ev_run_c(cwheel *w, int64_t ticks)
{
    struct tlist due = {nullptr, nullptr}, *link;
    size_t n = 0;
    for (int64_t t = 0; t < ticks; t++) {
        cwheel_pop(w, t, &due);
        tlist_drain(link, &due) {
            citem *x = cwheel_entry(link);
            x->fn(x->arg);
            n++;
        }
    }
    return n;
}

PHASE void ev_drop_c(cwheel *w, citem *it, size_t n)
{
    for (size_t i = 0; i < n; i++)
        cwheel_remove(w, &it[i]);
}

static void run_c(int64_t *when, size_t n)
{
    citem *it = static_cast<citem *>(std::malloc(n * sizeof(citem)));
    cwheel w;
    if (it == nullptr)
        std::abort();
    cwheel_init(&w, 0);
    start();
    ev_make_c(it, when, n);
    std::printf("info ev_allocs_c 0.00\ninfo ev_bytes_c %zu\n", sizeof(citem));
    failures += ev_arm_c(&w, it, when, n);
    size_t popped = ev_run_c(&w, static_cast<int64_t>(n));
    finish(popped, n, cwheel_empty(&w), "c");
    ev_drop_c(&w, it, n);
    cwheel_destroy(&w);
    std::free(it);
    cells("c", n);
}

int main(int argc, char **argv)
{
    size_t n = 200000;
    for (int i = 1; i < argc; i += 2) { /* instr.c's options; --conns and --seed mean nothing here */
        if (i + 1 >= argc || (std::strcmp(argv[i], "--n") && std::strcmp(argv[i], "--conns") &&
                              std::strcmp(argv[i], "--seed"))) {
            std::fprintf(stderr, "usage: instr_events [--n 200000]\n");
            return 2;
        }
        if (!std::strcmp(argv[i], "--n"))
            n = std::strtoul(argv[i + 1], nullptr, 0);
    }
    /* n distinct ticks in a random order (Fisher-Yates, a fixed seed) */
    int64_t *when = static_cast<int64_t *>(std::malloc(n * sizeof(int64_t)));
    uint64_t r = 1;
    if (when == nullptr || n == 0)
        return 2;
    for (size_t i = 0; i < n; i++)
        when[i] = static_cast<int64_t>(i);
    for (size_t i = n; i > 1; i--) {
        r = r * 6364136223846793005ULL + 1442695040888963407ULL;
        size_t j = static_cast<size_t>((r >> 33) % i);
        int64_t t = when[i - 1];
        when[i - 1] = when[j];
        when[j] = t;
    }
    std::printf("info kind events\ninfo n %zu\n", n);
    run_c(when, n);
    run_functor(when, n);
    run_callback(when, n);
    run_function(when, n);
    run_function32(when, n);
    std::free(when);
    if (failures != 0) {
        std::fprintf(stderr, "instr_events: FAILED\n");
        return 1;
    }
    return 0;
}
