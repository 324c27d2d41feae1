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
 * exception, a call that enters a slot no earlier call could prepare in
 * full, is allowed for by fuzz/bound.c exactly; bound_jumped() tells the
 * calls that may be such a call at all (the clock moved past the group
 * after its own at level 1, so into a group that was never pending), for
 * the tests that judge everything else.
 */
#ifndef BOUND_H
#define BOUND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BOUND_C 4096
#define BOUND_PER_ITEM 8
#define BOUND_PER_CHANGE 8

/* B of one call: a query (pop, next_expiry, first, visit) that handed out
 * `items`, `changes` calls after the previous query; or a change. */
static inline unsigned long long bound_of(bool query, size_t items, unsigned long long changes)
{
    return query ? BOUND_C + BOUND_PER_ITEM * (unsigned long long)items + BOUND_PER_CHANGE * changes
                 : BOUND_C;
}

/* Did the clock move from c0 to c1 past the level-1 group after its own?
 * Every coarser group it entered is then past the next one too. */
static inline bool bound_jumped(int64_t c0, int64_t c1)
{
    return c1 > c0 && ((uint64_t)c1 >> 6) >= ((uint64_t)c0 >> 6) + 2;
}

#endif
