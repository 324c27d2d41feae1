#!/usr/bin/env python3
"""seeds.py - write the seed corpus of the fuzz targets (test/fuzz/corpus/<kind>/).

    python3 test/fuzz/seeds.py        (rewrites the committed seed files)

The seeds are small programs in target.c's input encoding, one per theme, so
that libFuzzer starts from inputs that already reach every operation and
every kind of time; this file is also the encoding's worked example. Every
kind gets the same seeds (the encoding is the same for all three).
"""
import os
import struct

# Opcodes (target.c, fz_step); +16 selects the variant of FAIL_INS / FAIL_ALL.
INSERT, RESCHEDULE, REMOVE, POP, DRAIN, CB_DRAIN, ROUNDS, CLEAR, REINIT, FREE, NULL, \
    FAIL_INS, FAIL_ALL, BURST, NEAR, POP_AT = range(16)
FAIL_RESCHEDULE, FAIL_REMOVE = FAIL_INS + 16, FAIL_ALL + 16
# v2: next_expiry (alone, and an event loop's round: t = next_expiry(); pop(t));
# reserve(n byte), and reserve then every allocation fails
NEXT, NEXT_ROUND = ROUNDS + 16, ROUNDS + 32
RESERVE, RESERVE_FAIL_ALL = NULL + 16, NULL + 48

# v2.1: first; reschedule_range around an item's expiry (NEAR + 16: item,
# how far below, how far above); a pop whose due list is walked with
# tlist_foreach (CB_DRAIN + 16), each visited item's body one of WALK_*
FIRST = ROUNDS + 64
RANGE = NEAR + 16
WALK = CB_DRAIN + 16
WALK_REARM, WALK_REMOVE, WALK_FREE, WALK_LATER, WALK_RANGE, WALK_NOTHING = range(6)

# Callback actions (target.c, fz_callback).
CB_REARM_SELF, CB_INSERT, CB_RESCHEDULE, CB_REMOVE, CB_FREE, CB_FREE_SELF = range(6)


def s8(d):
    return d & 0xFF


# Time operands (target.c, fz_time): a selector byte and its operands.
def small(v): return [0, v]
def after(d): return [1, d]
def before(d): return [2, d]
def scale(k, d=0): return [3, k, s8(d)]       # clock + 64^k + d
def back(k, d=0): return [4, k, s8(d)]        # clock - 64^k + d
def pow2(k, d=0): return [5, k, s8(d)]        # 2^k + d
def end(d=0): return [6, d]                   # INT64_MAX - d
def raw(v): return [7] + list(struct.pack('<q', v))
def valid(v): return [8] + list(struct.pack('<Q', v << 1))
def dup(j, d=0): return [9, j, s8(d)]         # item j's expiry + d
def mintime(): return [10, 0]
def clock(): return [11]
def neg(d=0): return [12, d]                  # -1 - d
def boundary(k, d=0): return [13, k - 1, s8(d)]  # next level-k boundary + d
def after16(v): return [14] + list(struct.pack('<H', v))
def after32(v): return [15] + list(struct.pack('<I', v))


def prog(pool, init, *ops):
    # pools of 1..48 items, or 64 + 8 * j for j < 32 (target.c)
    out = [pool - 1 if pool <= 48 else 0xE0 + (pool - 64) // 8] + init
    for op in ops:
        out += op
    return bytes(out)


SEEDS = {
    # insert, pop at, before and after expiries, drain
    'basic': prog(8, small(0),
                  [INSERT, 0] + small(10), [INSERT, 1] + small(20), [INSERT, 2] + small(20),
                  [INSERT, 3] + after(200), [POP] + small(9), [POP] + small(10),
                  [DRAIN, 7], [POP_AT, 1, 1], [REMOVE, 3], [REMOVE, 3],
                  [RESCHEDULE, 0] + after(5), [POP] + after(5), [DRAIN, 7]),
    # items at every wheel level and its edges, pops that cross each boundary
    'levels': prog(24, small(7),
                   *[[INSERT, k] + scale(k, -1) for k in range(11)],
                   *[[INSERT, 11 + k] + scale(k, 1) for k in range(11)],
                   [ROUNDS], [POP] + boundary(1), [POP] + boundary(2, 1),
                   [ROUNDS], [POP] + scale(5), [ROUNDS], [POP] + boundary(10),
                   [POP] + mintime(), [ROUNDS], [DRAIN, 7]),
    # a drain loop whose callbacks touch other items, due ones included
    'callbacks': prog(12, small(100),
                      *[[INSERT, i] + after(3) for i in range(8)],
                      [INSERT, 8] + after(90),
                      # per delivered item: how many callbacks, then each one's action, item, time
                      [CB_DRAIN] + after(3)
                      + [3, CB_REMOVE, 5, CB_RESCHEDULE, 6] + after(1) + [CB_FREE, 7]
                      + [2, CB_REARM_SELF, 0] + after(4) + [CB_INSERT, 9] + before(50)
                      + [1, CB_FREE_SELF, 0]
                      + [1, CB_REMOVE, 8]
                      + [0, 0, 0],
                      [POP] + after(10),
                      [CB_DRAIN] + after(1) + [1, CB_INSERT, 10] + clock() + [0, 0]),
    # time going backwards by small and huge amounts, overdue inserts
    'backwards': prog(10, pow2(40),
                      [INSERT, 0] + before(3), [INSERT, 1] + back(3), [INSERT, 2] + clock(),
                      [INSERT, 3] + after(1), [INSERT, 4] + small(0),
                      [POP] + small(0), [POP] + back(4), [POP] + back(3, 1), [POP] + before(3),
                      [POP] + raw(-5), [POP] + clock(), [DRAIN, 7],
                      [INSERT, 5] + back(6), [POP] + back(7), [POP] + after(2), [DRAIN, 7]),
    # the edges of int64 time and the invalid values
    'extremes': prog(8, end(200),
                     [INSERT, 0] + end(0), [INSERT, 1] + end(1), [INSERT, 2] + small(0),
                     [INSERT, 3] + neg(0), [INSERT, 3] + raw(-(1 << 63)),
                     [RESCHEDULE, 0] + neg(5), [NULL], [INSERT, 0] + small(1),
                     [POP] + end(1), [POP] + raw(-1), [POP] + end(0), [DRAIN, 7],
                     [REINIT] + small(0), [INSERT, 4] + pow2(62, 1), [INSERT, 5] + pow2(62, -1),
                     [INSERT, 6] + valid(1 << 61), [ROUNDS], [ROUNDS], [POP] + end(0)),
    # allocation failures (the heap) and bursts that grow and shrink it
    'nomem': prog(48, small(0),
                  [BURST] + after(10) + [15] + [i for i in range(16) for _ in (0, 1)],
                  [BURST] + after32(1 << 20) + [15] + [16 + i for i in range(16) for _ in (0, 1)],
                  [FAIL_INS, 40] + after(1), [FAIL_RESCHEDULE, 0] + after(2),
                  [FAIL_ALL] + after(20), [FAIL_REMOVE, 20], [FAIL_ALL] + end(0), [DRAIN, 7]),
    # 200 items: the heap's array grows to 256 entries, then shrinks as they go
    'grow': prog(200, small(0),
                 *[[BURST] + after32(j << 12) + [15] + [16 * j + i for i in range(16) for _ in (0, 1)]
                   for j in range(12)],
                 [POP] + after32(3 << 12), [DRAIN, 7], [POP] + after32(9 << 12), [CB_DRAIN] + after32(1 << 16),
                 [REMOVE, 190], [CLEAR]),
    # clear, destroy+init, free, reschedules that stay in their slot
    'lifecycle': prog(6, after16(5000),
                      [INSERT, 0] + scale(2), [INSERT, 1] + dup(0), [NEAR, 0, 1], [NEAR, 1, s8(-1)],
                      [POP] + scale(2, 1), [CLEAR], [INSERT, 2] + after(1), [FREE, 0], [FREE, 2],
                      [INSERT, 3] + after(70), [REINIT] + after(100), [INSERT, 3] + scale(1),
                      [NEAR, 3, 5], [ROUNDS], [POP] + mintime(), [DRAIN, 7]),
    # v2: equal expiries (one pop order for every kind), next_expiry after
    # cancels of the earliest, event-loop rounds, reserve then failing allocations
    'order': prog(40, small(0),
                  [BURST] + after(50) + [15] + [i for i in range(16) for _ in (0, 0)],
                  [RESCHEDULE, 3] + dup(0), [NEAR, 5, 0],
                  [INSERT, 20] + scale(3), [INSERT, 21] + dup(20), [INSERT, 22] + scale(3, 1),
                  [NEXT], [REMOVE, 0], [NEXT], [REMOVE, 1], [NEXT], [NEXT_ROUND], [NEXT_ROUND],
                  [RESERVE, 30], [RESERVE_FAIL_ALL, 38],
                  *[[INSERT, 23 + i] + scale(2, i) for i in range(8)],
                  [POP] + scale(3, 2), [DRAIN, 7], [NEXT_ROUND], [CB_DRAIN] + end(0), [NEXT]),
    # v2.1: periodic timers re-armed while walking the due list with
    # tlist_foreach, a handler cancelling a later due item, removes and
    # frees of the current one; first() over ties; reschedule_range inside
    # its window (nothing changes) and outside it
    'v21': prog(16, small(0),
                *[[INSERT, i] + after(10) for i in range(8)],
                [FIRST], [REMOVE, 0], [FIRST], [RANGE, 1, 5, 5], [FIRST], [RANGE, 2, 0, 0], [FIRST],
                # due 1..7: 1 re-armed, 2 cancels 3 (WALK_LATER + 6: the 8 bit
                # selects remove), 4 removed, 5 freed, 6 ranged, 7 left due
                [WALK] + after(10)
                + [WALK_REARM] + after(20) + [WALK_LATER + 6, 0]
                + [WALK_REMOVE] + [WALK_FREE] + [WALK_RANGE] + after(15) + after(25)
                + [WALK_NOTHING],
                [DRAIN, 7], [NEXT], [FIRST], [POP] + after(40), [DRAIN, 7], [FIRST]),
}


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    for kind in ('set', 'heap', 'wheel'):
        d = os.path.join(here, 'corpus', kind)
        os.makedirs(d, exist_ok=True)
        for name, data in SEEDS.items():
            with open(os.path.join(d, name), 'wb') as f:
                f.write(data)


if __name__ == '__main__':
    main()
