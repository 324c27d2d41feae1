/* tk.h - the container kind under test, chosen when compiling.
 *
 * Every test program is written once over the shared API and compiled once per
 * kind with exactly one of -DTK_SET, -DTK_HEAP or -DTK_WHEEL. This header maps
 * the kind to its header, node type and DEFINE macros, and names the only two
 * things the contract lets the kinds do differently: the order within one pop
 * and how exact min_time is.
 *
 * For the heap it also routes TIMER_HEAP_REALLOC / TIMER_HEAP_FREE through a
 * test allocator that fails on demand and counts live blocks, so the tests can
 * check that -ENOMEM changes nothing and that destroy frees everything.
 *
 * And it counts each kind's work through the headers' test hooks (each
 * ((void)0) in a normal build): tk_steps() is every step whose number can
 * grow with n (the set's levels, fix-up iterations and rotations; the heap's
 * sift levels; the wheel's items moved and links walked), tk_moves() the
 * wheel's moves alone. test/adversarial.c judges the costs by these counts.
 */
#ifndef TK_H
#define TK_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

#if defined(TK_SET) + defined(TK_HEAP) + defined(TK_WHEEL) != 1
#error "compile with exactly one of -DTK_SET, -DTK_HEAP, -DTK_WHEEL"
#endif

#if defined(TK_HEAP)
/* The test allocator: tk_alloc.fail_in = k makes the k-th allocation from now
 * fail; fail_all makes every one fail (the heap must then still shrink safely). */
static struct {
    long fail_in;
    bool fail_all;
    long calls, failed, live;
} tk_alloc;

static void *tk_realloc(void *ptr, size_t bytes)
{
    void *p;
    tk_alloc.calls++;
    if (tk_alloc.fail_all || (tk_alloc.fail_in > 0 && --tk_alloc.fail_in == 0)) {
        tk_alloc.failed++;
        return NULL;
    }
    p = realloc(ptr, bytes);
    if (p != NULL && ptr == NULL)
        tk_alloc.live++;
    return p;
}

static void tk_free(void *ptr)
{
    if (ptr != NULL)
        tk_alloc.live--;
    free(ptr);
}

#define TIMER_HEAP_REALLOC(ptr, bytes) tk_realloc((ptr), (bytes))
#define TIMER_HEAP_FREE(ptr) tk_free(ptr)
#endif

/* The step counter of the kind under test (tk_steps), and for the wheel its
 * moves apart (tk_moves). */
static unsigned long long tk_step_count;

#if defined(TK_SET)
#define TIMER_SET_ON_STEP_() ((void)tk_step_count++)
#include "timer_set.h"
#define TK_KIND "set"
#define TK_SUFFIX set
#define TK_NODE struct timer_set_node
#define TK_DEFINE TIMER_SET_DEFINE
#define TK_DEFINE_NAMED TIMER_SET_DEFINE_NAMED
#define TK_MIN_EXACT 1
#elif defined(TK_HEAP)
#define TIMER_HEAP_ON_STEP_() ((void)tk_step_count++)
#include "timer_heap.h"
#define TK_KIND "heap"
#define TK_SUFFIX heap
#define TK_NODE struct timer_heap_node
#define TK_DEFINE TIMER_HEAP_DEFINE
#define TK_DEFINE_NAMED TIMER_HEAP_DEFINE_NAMED
#define TK_MIN_EXACT 1
#else
/* Count the items the wheel moves between its lists (refinement, merges of
 * runs) and the links it walks without moving (sortedness walks, merge
 * walks): next_expiry must stay amortised O(1) (conform.c,
 * next_expiry_amortised), and no input may make it grow (adversarial.c). */
static unsigned long long tk_wheel_moves;
#define TIMER_WHEEL_ON_MOVE_() ((void)tk_wheel_moves++)
/* ON_WALK_(k): k links walked; ON_WALK_() (the wheel's first form of the
 * hook, one call per link): one. */
#define TIMER_WHEEL_ON_WALK_(k) ((void)(tk_step_count += sizeof #k == 1 ? 1u : 0u + k + 0u))
#include "timer_wheel.h"
#define TK_KIND "wheel"
#define TK_SUFFIX wheel
#define TK_NODE struct timer_wheel_node
#define TK_DEFINE TIMER_WHEEL_DEFINE
#define TK_DEFINE_NAMED TIMER_WHEEL_DEFINE_NAMED
#define TK_MIN_EXACT 0 /* a lower bound; see th_check_min_time */
#endif

/* Allocation failure injection, as no-ops for the kinds that never allocate. */
static inline void tk_fail_next(void)
{
#if defined(TK_HEAP)
    tk_alloc.fail_in = 1;
#endif
}

static inline void tk_fail_all(bool on)
{
#if defined(TK_HEAP)
    tk_alloc.fail_all = on;
#else
    (void)on;
#endif
}

static inline void tk_fail_none(void)
{
#if defined(TK_HEAP)
    tk_alloc.fail_in = 0;
    tk_alloc.fail_all = false;
#endif
}

static inline bool tk_fail_armed(void)
{
#if defined(TK_HEAP)
    return tk_alloc.fail_in > 0 || tk_alloc.fail_all;
#else
    return false;
#endif
}

static inline long tk_failed_allocs(void)
{
#if defined(TK_HEAP)
    return tk_alloc.failed;
#else
    return 0;
#endif
}

/* Moves made by the wheel's refinement so far (0 for the other kinds). */
static inline unsigned long long tk_moves(void)
{
#if defined(TK_WHEEL)
    return tk_wheel_moves;
#else
    return 0;
#endif
}

/* Steps so far: the set's and the heap's ON_STEP_, the wheel's moves and
 * walks together. */
static inline unsigned long long tk_steps(void)
{
    return tk_step_count + tk_moves();
}

static inline long tk_live_blocks(void)
{
#if defined(TK_HEAP)
    return tk_alloc.live;
#else
    return 0;
#endif
}

#endif /* TK_H */
