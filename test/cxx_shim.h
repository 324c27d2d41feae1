/* cxx_shim.h - a DEFINE's C API (NAME_init, NAME_insert, ...) over a class
 * template of timer_containers.hpp, so that a program written once over the C
 * API (the harness and the suites built on it; bench/instr.c) runs through the
 * C++ interface: each call goes to the C++ member of the same name.
 *
 *   TIMER_CXX_SHIM(name, cxx, type, kind)
 *
 * `name` is storage for one `cxx` object (a set, heap or wheel over `type`,
 * of the kind `kind`: set, heap or wheel): NAME_init constructs it and
 * NAME_destroy destroys it, as those calls begin and end a C container;
 * NAME_obj(c) is the object. NAME_core_(c) and NAME_ccore_(c) return its C
 * core (struct timer_heap, ...) as a C DEFINE's do, for the tests that read
 * a core (the heap's capacity, the wheel's slots): the object begins with
 * its C container (the class is standard-layout), and the generated
 * timers_core_ of the kind's C DEFINE in the header reaches the core from
 * there. References cannot be NULL: a NULL item is answered here as the C
 * API answers it.
 */
#ifndef TIMER_CXX_SHIM_H
#define TIMER_CXX_SHIM_H

#include "timer_containers.hpp"

#include <new>
#include <type_traits>

/* Forced inline like the members they call: a call through the shim costs
 * what the member call costs (bench/instr.c counts it). The NULL tests
 * stand for C's answers to a NULL item, which C++ callers (references)
 * never make; remove's says so to gcc, which otherwise lays out the
 * driver's `bad += !remove()` loop with 4 instructions more per remove
 * than for C (the set's, 2.2's core; the member call itself costs none). */
#define TIMER_CXX_SHIM_FN_ static TIMER_CXX_INLINE_

/* (kind expanded first: it may be a macro, as TK_SUFFIX is) */
#define TIMER_CXX_SHIM(name, cxx, type, kind) TIMER_CXX_SHIM_(name, cxx, type, kind)
#define TIMER_CXX_SHIM_(name, cxx, type, kind)                                                                       \
    static_assert(std::is_standard_layout<cxx>::value, "the C container must begin the object");                   \
    typedef struct name {                                                                                          \
        alignas(cxx) unsigned char bytes[sizeof(cxx)];                                                             \
    } name;                                                                                                        \
    TIMER_CXX_SHIM_FN_ cxx &name##_obj(name *c) { return *reinterpret_cast<cxx *>(c->bytes); }                           \
    TIMER_CXX_SHIM_FN_ const cxx &name##_obj(const name *c) { return *reinterpret_cast<const cxx *>(c->bytes); }         \
    TIMER_CXX_SHIM_FN_ struct timer_##kind *name##_core_(name *c)                                                       \
    { return timer_containers::detail::kind##_c::timers_core_(                                                     \
          reinterpret_cast<timer_containers::detail::kind##_c::timers *>(c->bytes)); }                             \
    TIMER_CXX_SHIM_FN_ const struct timer_##kind *name##_ccore_(const name *c)                                          \
    { return timer_containers::detail::kind##_c::timers_ccore_(                                                    \
          reinterpret_cast<const timer_containers::detail::kind##_c::timers *>(c->bytes)); }                       \
    TIMER_CXX_SHIM_FN_ void name##_init(name *c, int64_t now) { new (c->bytes) cxx(now); }                               \
    TIMER_CXX_SHIM_FN_ void name##_destroy(name *c) { name##_obj(c).~cxx(); }                                            \
    TIMER_CXX_SHIM_FN_ void name##_clear(name *c) { name##_obj(c).clear(); }                                            \
    TIMER_CXX_SHIM_FN_ int name##_insert(name *c, int64_t t, type *x) { return x ? name##_obj(c).insert(t, *x) : -EINVAL; } \
    TIMER_CXX_SHIM_FN_ int name##_reschedule(name *c, int64_t t, type *x)                                               \
    { return x ? name##_obj(c).reschedule(t, *x) : -EINVAL; }                                                        \
    TIMER_CXX_SHIM_FN_ int name##_reschedule_range(name *c, int64_t lo, int64_t hi, type *x)                            \
    { return x ? name##_obj(c).reschedule_range(lo, hi, *x) : -EINVAL; }                                             \
    TIMER_CXX_SHIM_FN_ int name##_reschedule_near(name *c, int64_t t, int64_t slack, type *x)                          \
    { return x ? name##_obj(c).reschedule_near(t, slack, *x) : -EINVAL; }                                            \
    TIMER_CXX_SHIM_FN_ bool name##_remove(name *c, type *x)                                                           \
    { return __builtin_expect(x != nullptr, 1) ? name##_obj(c).remove(*x) : false; }                               \
    TIMER_CXX_SHIM_FN_ size_t name##_pop(name *c, int64_t now, struct tlist *out)                                       \
    {   cxx::due_range due = name##_obj(c).pop(now);                                                                \
        due.release(*out);                                                                                         \
        return due.popped(); }                                                                                     \
    TIMER_CXX_SHIM_FN_ int64_t name##_next_expiry(const name *c) { return name##_obj(c).next_expiry(); }                 \
    TIMER_CXX_SHIM_FN_ int64_t name##_min_time(const name *c) { return name##_obj(c).min_time(); }                       \
    TIMER_CXX_SHIM_FN_ type *name##_first(const name *c) { return name##_obj(c).first(); }                              \
    TIMER_CXX_SHIM_FN_ size_t name##_visit(const name *c, void (*fn)(type *, void *), void *arg)                        \
    { return fn ? name##_obj(c).visit([fn, arg](type &x) { fn(&x, arg); }) : 0; }                                  \
    TIMER_CXX_SHIM_FN_ int name##_visit_until(const name *c, int (*fn)(type *, void *), void *arg)                      \
    { return fn ? name##_obj(c).visit_until([fn, arg](type &x) { return fn(&x, arg); }) : 0; }                      \
    TIMER_CXX_SHIM_FN_ int name##_reserve(name *c, size_t n) { return name##_obj(c).reserve(n); }                        \
    TIMER_CXX_SHIM_FN_ size_t name##_size(const name *c) { return name##_obj(c).size(); }                                \
    TIMER_CXX_SHIM_FN_ bool name##_empty(const name *c) { return name##_obj(c).empty(); }                                \
    TIMER_CXX_SHIM_FN_ bool name##_pending(const type *x) { return x && cxx::pending(*x); }                            \
    TIMER_CXX_SHIM_FN_ bool name##_due(const type *x) { return x && cxx::due(*x); }                                    \
    TIMER_CXX_SHIM_FN_ int64_t name##_expire(const type *x) { return x ? cxx::expire(*x) : TIMER_NEVER; }              \
    TIMER_CXX_SHIM_FN_ type *name##_entry(struct tlist *link) { return cxx::entry(link); }                              \
    TIMER_CXX_SHIM_FN_ const char *name##_check(const name *c) { return name##_obj(c).check(); }

#endif /* TIMER_CXX_SHIM_H */
