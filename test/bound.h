/* bound.h - the wheel's bound per call (contract v2.3 and v2.4,
 * docs/guarantees.md), written once for the tests that check it
 * (adversarial.c, fuzz/bound.c).
 *
 * steps (items moved between the wheel's lists, and links walked, as the
 * wheel's test hooks count them) of one call at most
 *     insert, reschedule, reschedule_range, remove:  C
 *     pop, next_expiry, first:  B = C + 8 x (items handed out)
 *                                     + 8 x (inserts, reschedules and removes
 *                                            since the previous pop,
 *                                            next_expiry or first)
 * with C = 4096, the contract's (BOUND_C); in the event loops of make
 * bench-latency every call after the first query that follows the fill
 * stays within C = 64 (BOUND_C_LOOP, adversarial.c's loops). visit counts
 * as a next_expiry (it calls one).
 *
 * The one exception (contract v2.4; timer_wheel.h's words, which pace the
 * work by need): a call may go beyond B only by the work, 2 steps an item,
 * that pacing left in the pending slots it reaches: the items that arrived
 * while their window was open, less the share each earlier pop did (the
 * share of the ticks it moved the clock), or nothing after a query that
 * stopped short of its 8s; a window that no call was made in (the call
 * jumps over it) is the plain case. fuzz/bound.c computes that work from
 * its own model of the items and of the shares, level by level;
 * bound_jumped() tells the calls that jumped over a whole window (or into
 * one that opened while no call was made), for the tests that judge every
 * other call by B alone and make a pop in every tick of each window.
 */
#ifndef BOUND_H
#define BOUND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BOUND_C 4096
#define BOUND_C_LOOP 64
#define BOUND_PER_ITEM 8
#define BOUND_PER_CHANGE 8
/* Level l's window (l >= 2): the clock's digit at level l - 1 is this or
 * more (timer_wheel.h's TIMER_WHEEL_WINDOW_FROM; level 1: always open). */
#define BOUND_WINDOW_FROM 48

/* B of one call with constant c: a query (pop, next_expiry, first, visit)
 * that handed out `items`, `changes` calls after the previous query; or a
 * change. */
static inline unsigned long long bound_of_c(unsigned long long c, bool query, size_t items,
                                            unsigned long long changes)
{
    return query ? c + BOUND_PER_ITEM * (unsigned long long)items + BOUND_PER_CHANGE * changes : c;
}

static inline unsigned long long bound_of(bool query, size_t items, unsigned long long changes)
{
    return bound_of_c(BOUND_C, query, items, changes);
}

/* Did a call that started with the wheel's clock at c0 and reached t1 (a
 * pop's time, the expiry a query answered) jump over a slot's whole
 * window? At level 1 the window is the group before the slot: t1 is past
 * the level-1 group after c0's. At a level l >= 2 it is that group's last
 * quarter (level l - 1's digit 48 and up): t1 is in a later level-l group,
 * and c0 was before the quarter. */
static inline bool bound_jumped(int64_t c0, int64_t t1)
{
    unsigned l;
    if (t1 <= c0)
        return false;
    if (((uint64_t)t1 >> 6) >= ((uint64_t)c0 >> 6) + 2)
        return true;
    for (l = 2; l < 11; l++)
        if (((uint64_t)t1 >> (6 * l)) > ((uint64_t)c0 >> (6 * l)) &&
            (((uint64_t)c0 >> (6 * l - 6)) & 63) < BOUND_WINDOW_FROM)
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
        uint64_t opens = (((g - 1) << 6) + BOUND_WINDOW_FROM) << (6 * l - 6);
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
