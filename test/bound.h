/* bound.h - the wheel's bound per call (contract v2.3, docs/guarantees.md),
 * written once for the tests that check it (adversarial.c, fuzz/bound.c).
 *
 * steps (items moved between the wheel's lists, and links walked, as the
 * wheel's test hooks count them) of one call at most
 *     insert, reschedule, reschedule_range, remove:  C
 *     pop, next_expiry, first:  C + 8 x (items handed out)
 *                                 + 8 x (inserts, reschedules and removes
 *                                        since the previous pop,
 *                                        next_expiry or first)
 * with C = 4096; visit counts as a next_expiry (it calls one). The one
 * exception, a call that enters a slot that the calls in its window could
 * not prepare in full, is allowed for by fuzz/bound.c exactly;
 * bound_jumped() tells the calls that jumped over a whole window (so that
 * no call was made in it), for the tests that judge everything else and
 * make enough calls in every window.
 */
#ifndef BOUND_H
#define BOUND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BOUND_C 4096
#define BOUND_PER_ITEM 8
#define BOUND_PER_CHANGE 8
#ifndef TIMER_WHEEL_WINDOW
#define TIMER_WHEEL_WINDOW 48    /* timer_wheel.h's, when it is not included first */
#endif

/* B of one call: a query (pop, next_expiry, first, visit) that handed out
 * `items`, `changes` calls after the previous query; or a change. */
static inline unsigned long long bound_of(bool query, size_t items, unsigned long long changes)
{
    return query ? BOUND_C + BOUND_PER_ITEM * (unsigned long long)items + BOUND_PER_CHANGE * changes
                 : BOUND_C;
}

/* Did a call that started with the wheel's clock at c0 and reached t1 (a
 * pop's time, the expiry a query answered) jump over a slot's whole
 * window (timer_wheel.h, TIMER_WHEEL_WINDOW)? At level 1 the window is the
 * group before the slot: t1 is past the level-1 group after c0's. At a
 * level l >= 2 it is that group's last quarter (level l - 1's digit 48 and
 * up): t1 is in a later level-l group, and c0 was before the quarter. */
static inline bool bound_jumped(int64_t c0, int64_t t1)
{
    unsigned l;
    if (t1 <= c0)
        return false;
    if (((uint64_t)t1 >> 6) >= ((uint64_t)c0 >> 6) + 2)
        return true;
    for (l = 2; l < 11; l++)
        if (((uint64_t)t1 >> (6 * l)) > ((uint64_t)c0 >> (6 * l)) &&
            (((uint64_t)c0 >> (6 * l - 6)) & 63) < TIMER_WHEEL_WINDOW)
            return true;
    return false;
}

/* A call that jumped into a window rather than over it: at levels 2 and
 * up, a call that started before the first level-(l - 1) group of the
 * window of the pending group it ended in, after that window opened (the
 * stall of a loop that wakes late), leaves that window fewer calls than
 * its start would have. bound_note_jumps() records the group (by level,
 * after every query: clock c0 before, c1 after); bound_window_jumped()
 * tells a later call that enters it from clock c0, reaching t1: the one
 * exception may be that call's. */
static inline void bound_note_jumps(uint64_t jumped[11], int64_t c0, int64_t c1)
{
    unsigned l;
    for (l = 2; l < 11; l++) {
        uint64_t g = ((uint64_t)c1 >> (6 * l)) + 1;
        uint64_t opens = (((g - 1) << 6) + TIMER_WHEEL_WINDOW) << (6 * l - 6);
        if ((uint64_t)c1 >= opens && (uint64_t)c0 + (UINT64_C(1) << (6 * l - 6)) < opens)
            jumped[l] = g;
    }
}

static inline bool bound_window_jumped(const uint64_t jumped[11], int64_t c0, int64_t t1)
{
    unsigned l;
    for (l = 2; l < 11; l++)
        if (((uint64_t)t1 >> (6 * l)) > ((uint64_t)c0 >> (6 * l)) &&
            jumped[l] == ((uint64_t)c0 >> (6 * l)) + 1)
            return true;
    return false;
}

#endif
