#!/usr/bin/env python3
"""bound_seeds.py - write the corpus of the complexity fuzzer (test/fuzz/bound-corpus/).

    python3 test/fuzz/bound_seeds.py      (rewrites the committed files)

Each file is a program in bound.c's input encoding: one of the inputs that
made one call of 2.2.0's wheel do O(n) work (issue 26's table), at the
fuzzer's scale (4,096 items; the fuzzer builds the wheel with Q = 4, so the
bound's constant is a few hundred steps). bound.c replays them in make test
and starts libFuzzer from them in make check. This file is also the
encoding's worked example.

Files named found-* in the corpus are inputs the search found over the
bound, kept as found (this script leaves them alone):
  found-1-arrivals-in-a-deep-chain  the clock at 7 x 2^60 - 1 (every digit
      63, so every level's pending slot lies in level 10's), then 1,635
      inserts just after it: each must move down 10 levels, and its credit
      paid for 8 (2026-11-28; the insert now pays for the rest).
  found-2-credit-of-a-slot-gone-down  the same chain from level 9, with
      the arrivals' slot emptied down the chain by their inserts: their
      credit stayed with level 9, which owed nothing, and the slots below
      that did were left to the pop (2026-11-28; a pool now takes the
      credit of the levels above whose slots lie in its own, and a call's
      credit never outlives it).
"""
import os
import struct

INSERT, RESCHEDULE, RANGE, REMOVE, POP, NEXT, FIRST, VISIT, FILL, STORM, FIXED, TICKS, \
    LOOP, DRAIN, FAR, BEHIND = range(16)


def dist(d):
    """A distance operand (bound.c, fb_distance): 64^k exactly, else raw."""
    for k in range(11):
        if d == 64 ** k:
            return [k << 2]
    assert 1 <= d <= 1 << 32
    return [3] + list(struct.pack('<I', d - 1))


def after(d):
    return [0] + dist(d)        # fb_time case 0: the clock + d


def before(d):
    return [2] + dist(d)        # case 2: the clock - d


def count16(k):
    """Items for FILL (1 + 16 b) and STORM (16 b + 16)."""
    return [min(255, max(0, (k - 1) // 16))]


def prog(*ops, pool=6, clock=0):
    """pool: 64 << pool items (6: 4,096); clock: the first clock, in 2^18 ticks."""
    out = [pool, clock]
    for op in ops:
        out += op
    return bytes(out)


def fill(k, start, spread):
    return [FILL] + count16(k) + start + dist(spread)


def loop(rounds, delay):
    out = []
    while rounds > 0:
        out += [LOOP, min(rounds, 256) - 1] + dist(delay)
        rounds -= 256
    return out


def ticks(k, step):
    out = []
    while k > 0:
        out += [TICKS, min(k, 256) - 1, step % 64]
        k -= 256
    return out


def storm(k, timeout, jitter):
    return [STORM, max(0, (k - 16) // 16)] + dist(timeout) + dist(jitter)


SEEDS = {
    # 1: a window filled at random, then an event loop: next_expiry, pop at
    # it, each due timer re-armed at a random delay up to 2^23 (clock 2^24 - 2^18)
    '1-fill-then-loop': prog(fill(4000, after(1), 1 << 23), loop(2000, 1 << 23), clock=63),
    # 2: idle connections pushed back to now + T - jitter, pops along, then
    # the pushing stops and the pops reach the deadlines
    '2-idle-pushbacks': prog(fill(4000, after(1 << 16), 1 << 10),
                             *([storm(4000, 1 << 16, 1 << 10) + ticks(256, 32) for _ in range(4)] +
                               [ticks(900, 63), ticks(4096, 1)])),
    # 3: the same after next_expiry went to one of two far timers
    '3-pushbacks-after-next-expiry': prog([INSERT, 0, 0] + after(1 << 30), [INSERT, 1, 0] + after(1 << 31),
                                          [NEXT], fill(4000, after(1 << 16), 1 << 10),
                                          *([storm(4000, 1 << 16, 1 << 10) + [NEXT] + ticks(256, 32)
                                             for _ in range(4)] + [ticks(1024, 63)])),
    # 4: request timeouts of 3 fixed delays, interleaved, after next_expiry
    # went to a far timer
    '4-fixed-delays-after-next-expiry': prog([INSERT, 0, 0] + after(1 << 30), [NEXT],
                                             *[[FIXED, 60] + dist(1000) + dist(5000) + dist(30000) +
                                               [NEXT] + ticks(64, 7) for _ in range(8)]),
    # 5: a pop far ahead (a clock glitch) with a later timer pending, then
    # an ordinary loop at the real time (behind the clock)
    '5-clock-glitch-then-loop': prog([INSERT, 0, 0] + after(64 ** 7), [FAR, 1],
                                     fill(3000, before(64 ** 6), 1 << 20), loop(1000, 1 << 20)),
    # 6: many runs behind the clock under a fixed-delay loop
    '6-runs-under-fixed-delays': prog(*[[BEHIND, 8] + dist(1 << 20) + [FIXED, 40] + dist(30000) + dist(30000) +
                                        dist(30000) + [NEXT] + ticks(32, 60) for _ in range(16)]),
    # 7: random inserts behind the clock, then next_expiry and pops
    '7-random-behind-the-clock': prog([POP, 200] + dist(1 << 20), [BEHIND, 255] + dist(1 << 20),
                                      [NEXT], [FIRST], ticks(256, 1), [BEHIND, 255] + dist(1 << 12), [NEXT],
                                      [POP, 5]),
}


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = os.path.join(here, 'bound-corpus')
    os.makedirs(out, exist_ok=True)
    for name, data in SEEDS.items():
        with open(os.path.join(out, name), 'wb') as f:
            f.write(data)
    print('wrote %d inputs to %s' % (len(SEEDS), out))


if __name__ == '__main__':
    main()
