#!/bin/sh
# soak.sh - what `make soak` runs (from test/).
#
# For each kind: rounds of SOAK_TIMERS timers (default 10 million) through
# random operations on a pool of SOAK_POOL items (default 1 million) for
# SOAK_SECONDS (default 20, so about a minute for the three kinds), checking
# every pop, the totals and the memory (see soak.c); then a smaller soak
# (2 x 2 million timers, pool 200,000) under valgrind memcheck, which fails
# on any error or leak. SEED replays a run (empty: a fresh seed, printed).

set -u
cd "$(dirname "$0")" || exit 1
: "${CC:=cc}" "${SEED:=}" "${SOAK_SECONDS:=20}" "${SOAK_TIMERS:=10000000}" "${SOAK_POOL:=1000000}"

B=build/soak
KINDS="set heap wheel"
status=0
mkdir -p "$B" || exit 1
for k in $KINDS; do
    K=$(echo "$k" | tr 'a-z' 'A-Z')
    $CC -std=c99 -Wall -Wextra -Wpedantic -Werror -Wshadow -I.. -O2 -g -DTK_$K -o "$B/soak_$k" soak.c || exit 1
done
for k in $KINDS; do
    "$B/soak_$k" "$SEED" "$SOAK_TIMERS" "$SOAK_POOL" "$SOAK_SECONDS" || status=1
done
if command -v valgrind >/dev/null 2>&1; then
    for k in $KINDS; do
        echo "soak $k under valgrind memcheck:"
        valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=all --show-leak-kinds=all \
            "$B/soak_$k" "$SEED" 2000000 200000 0 || status=1
    done
else
    echo "soak: FAIL valgrind is not installed (Debian: valgrind, listed in .ci/packages)"
    status=1
fi
[ "$status" -eq 0 ] && echo "soak: ok" || echo "soak: FAILED"
exit "$status"
