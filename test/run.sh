#!/bin/sh
# run.sh - build and run the whole test suite; `make -C test` calls it.
#
# Every test is one command: a build (warnings are errors) or a run (it must
# exit 0). Its output goes to build/log/NAME.log and is printed when it fails.
# The last line is "N passed, M failed", and the exit status is non-zero if
# anything failed. Tests that need clang are skipped (a SKIP line, counted
# neither way) only when clang is not installed (libFuzzer: or cannot link a
# fuzz target), the -m32 ones only when gcc -m32 cannot build a trivial
# program, the valgrind ones only when valgrind is missing; .ci/packages
# installs all three. Each test's wall time goes to build/log/times.txt.
#
# Environment (the Makefile sets it): CC; SEED (empty: each fuzz or soak run
# draws a fresh seed and prints it); STEPS, the fuzz steps per kind in plain
# builds; SAN_STEPS, the same under the sanitizers (a few times slower);
# PORT_STEPS, the same in the portability builds (-m32, -O3 -march=native,
# -O0, no builtins); FUZZ_TEST_SECONDS, how long each libFuzzer target runs.

set -u
cd "$(dirname "$0")" || exit 1
: "${CC:=cc}" "${SEED:=}" "${STEPS:=4000000}" "${SAN_STEPS:=1000000}" "${PORT_STEPS:=1000000}"
: "${FUZZ_TEST_SECONDS:=5}"

B=build
L=$B/log
KINDS="set heap wheel"
C99="-std=c99 -Wall -Wextra -Wpedantic -Werror -Wshadow -I.."
CXX11="-std=c++11 -Wall -Wextra -Werror -I.."
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all"

rm -rf "$L"
mkdir -p "$L" || exit 1
passed=0
failed=0

# t NAME COMMAND...: run one test and count it.
t() {
    t_name=$1
    shift
    t_start=$(date +%s.%N)
    "$@" >"$L/$t_name.log" 2>&1
    t_status=$?
    echo "$(date +%s.%N) $t_start $t_name" | awk '{ printf "%7.2f s  %s\n", $1 - $2, $3 }' >>"$L/times.txt"
    if [ "$t_status" -eq 0 ]; then
        passed=$((passed + 1))
        echo "PASS $t_name"
    else
        failed=$((failed + 1))
        echo "FAIL $t_name ($L/$t_name.log):"
        # the head holds a fuzz run's seed, the tail the failure
        if [ $(($(wc -l <"$L/$t_name.log"))) -gt 30 ]; then
            head -n 2 "$L/$t_name.log" | sed 's/^/    /'
            echo "    ..."
        fi
        tail -n 25 "$L/$t_name.log" | sed 's/^/    /'
    fi
}

skip() {
    echo "SKIP $1: $2"
}

have() {
    command -v "$1" >/dev/null 2>&1
}

upper() {
    echo "$1" | tr 'a-z' 'A-Z'
}

# Each header compiles alone: it includes what it uses.
self_contained() {
    for h in list bitmap timer_set timer_heap timer_wheel; do
        echo "#include \"$h.h\"" | $1 $C99 -x c -c -o /dev/null - || return 1
    done
}

# bg COMMAND...: start a build in the background (the machine has 2 cores
# or more); bg_wait: wait for all of them, non-zero if any failed.
bg_pids=
bg() {
    "$@" &
    bg_pids="$bg_pids $!"
}
bg_wait() {
    bg_status=0
    for bg_pid in $bg_pids; do
        wait "$bg_pid" || bg_status=1
    done
    bg_pids=
    return "$bg_status"
}

# Every C source of the suite, with one compiler (objects are thrown away).
strict_all() {
    for f in headers.c two_tu_a.c two_tu_b.c bitmap_test.c; do
        bg $1 $C99 -O2 -c -o /dev/null $f
    done
    for k in $KINDS; do
        for p in conform fuzz edge soak; do
            bg $1 $C99 -O2 -DTK_$(upper $k) -c -o /dev/null $p.c
        done
        bg $1 $C99 -O2 -DTK_$(upper $k) -DFZ_STANDALONE -c -o /dev/null fuzz/target.c
    done
    bg_wait
}

# headers.c instantiates every DEFINE form and calls nothing.
unused() {
    $1 $C99 -Wunused-function -c -o /dev/null headers.c
}

wconversion() {
    $1 $C99 -Wconversion -Wsign-conversion -c -o /dev/null headers.c
}

# Two translation units expand the same DEFINEs and link into one program.
two_tu() {
    $1 $C99 -O2 -o "$B/two_tu_$1" two_tu_a.c two_tu_b.c && "$B/two_tu_$1"
}

# The headers as C++11: every DEFINE form, and the two-TU program run.
cxx() {
    $1 $CXX11 -x c++ -c -o /dev/null headers.c &&
        $1 $CXX11 -O2 -x c++ -o "$B/two_tu_$1" two_tu_a.c two_tu_b.c && "$B/two_tu_$1"
}

# build_suite CONFIG COMPILER FLAGS...: conform, fuzz and edge for every kind.
build_suite() {
    b_dir=$B/$1
    b_cc=$2
    shift 2
    mkdir -p "$b_dir" || return 1
    for k in $KINDS; do
        for p in conform fuzz edge; do
            bg $b_cc "$@" -DTK_$(upper $k) -o "$b_dir/${p}_$k" $p.c
        done
    done
    bg_wait
}

# suite CONFIG COMPILER STEPS FLAGS...: build it, then run every program.
suite() {
    s_cfg=$1
    s_cc=$2
    s_steps=$3
    shift 3
    t "$s_cfg.build" build_suite "$s_cfg" "$s_cc" "$@"
    for k in $KINDS; do
        t "$s_cfg.conform.$k" "$B/$s_cfg/conform_$k"
        t "$s_cfg.fuzz.$k" "$B/$s_cfg/fuzz_$k" "$SEED" "$s_steps"
        t "$s_cfg.edge.$k" "$B/$s_cfg/edge_$k"
    done
}

# A trivial program built and run with -m32: can this machine do 32-bit?
m32_works() {
    mkdir -p "$B" &&
        printf 'int main(void) { return sizeof(void *) != 4; }\n' | gcc -m32 -x c -o "$B/m32_probe" - >/dev/null 2>&1 &&
        "$B/m32_probe"
}

# bitmap NAME FLAGS...: the bit scans against naive loops, built with FLAGS.
bitmap_unit() {
    bu_name=$1
    shift
    $CC $C99 -O2 "$@" -o "$B/bitmap_$bu_name" bitmap_test.c && "$B/bitmap_$bu_name"
}

# The fuzz target's standalone replay (any compiler) over the seed corpus.
build_replay() {
    mkdir -p "$B/replay" || return 1
    for k in $KINDS; do
        bg $CC $C99 -O1 -g $SAN -DFZ_STANDALONE -DTK_$(upper $k) -o "$B/replay/replay_$k" fuzz/target.c
        bg $CC $C99 -O2 -g -DFZ_STANDALONE -DTK_$(upper $k) -o "$B/replay/replay_plain_$k" fuzz/target.c
    done
    bg_wait
}

build_soak() {
    mkdir -p "$B/soak" || return 1
    for k in $KINDS; do
        bg $CC $C99 -O2 -g -DTK_$(upper $k) -o "$B/soak/soak_$k" soak.c
    done
    bg_wait
}

# valgrind memcheck: any error or leak fails the test.
vg() {
    valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=all --show-leak-kinds=all "$@"
}

echo "test: CC=$CC; fuzz seed ${SEED:-fresh per run (printed in each log)}; $STEPS steps, $SAN_STEPS under sanitizers, $PORT_STEPS in portability builds; libFuzzer ${FUZZ_TEST_SECONDS} s per kind"

# Build checks.
t c99.gcc.self-contained self_contained gcc
t c99.gcc.all-sources strict_all gcc
t c99.gcc.unused-functions unused gcc
t c99.gcc.wconversion wconversion gcc
t c99.gcc.two-tu two_tu gcc
t c++11.g++ cxx g++
if have clang; then
    t c99.clang.all-sources strict_all clang
    t c99.clang.unused-functions unused clang
    t c99.clang.wconversion wconversion clang
    t c99.clang.two-tu two_tu clang
else
    skip "c99.clang.*" "clang not installed"
fi
if have clang++; then
    t c++11.clang++ cxx clang++
else
    skip c++11.clang++ "clang++ not installed"
fi

# The suite: conformance and fuzz, per kind, in several builds.
suite cc "$CC" "$STEPS" $C99 -O2 -g
suite ndebug "$CC" "$STEPS" $C99 -O2 -DNDEBUG
# abort_on_error: th_on_abort then prints the failing step after the report
ASAN_OPTIONS=abort_on_error=1
UBSAN_OPTIONS=abort_on_error=1:print_stacktrace=1
export ASAN_OPTIONS UBSAN_OPTIONS
suite asan.gcc gcc "$SAN_STEPS" $C99 -O1 -g $SAN
if have clang; then
    suite asan.clang clang "$SAN_STEPS" $C99 -O1 -g $SAN
else
    skip "asan.clang.*" "clang not installed"
fi

# Portability: a 32-bit build, the most and the least optimised builds, and
# the bit scans' plain C fallback, each running the whole suite.
if m32_works; then
    suite m32 gcc "$PORT_STEPS" $C99 -O2 -g -m32
    t bitmap.m32.builtins bitmap_unit m32_builtins -m32
    t bitmap.m32.no-builtins bitmap_unit m32_no_builtins -m32 -DTBITMAP_NO_BUILTINS
else
    skip "m32.*" "gcc -m32 cannot build a trivial program here (Debian: gcc-multilib, listed in .ci/packages)"
fi
suite o3-native "$CC" "$PORT_STEPS" $C99 -O3 -march=native
suite o0 "$CC" "$PORT_STEPS" $C99 -O0 -g
suite no-builtins "$CC" "$PORT_STEPS" $C99 -O2 -g -DTBITMAP_NO_BUILTINS
# The heap's arity is a user option (default 8): the binary heap too.
KINDS=heap
suite heap-arity2 "$CC" "$PORT_STEPS" $C99 -O2 -g -DTIMER_HEAP_ARITY=2
KINDS="set heap wheel"
t bitmap.builtins bitmap_unit builtins
t bitmap.no-builtins bitmap_unit no_builtins -DTBITMAP_NO_BUILTINS

# The fuzz targets: the committed seed corpus replayed by the standalone
# build (ASan + UBSan, and under valgrind), then libFuzzer for a few seconds
# per kind (make fuzz runs it for FUZZ_SECONDS).
t fuzz-replay.build build_replay
for k in $KINDS; do
    t fuzz-replay.seeds.$k "$B/replay/replay_$k" fuzz/corpus/$k
done
if have clang && sh fuzz/fuzz.sh probe; then
    t libfuzzer.build sh fuzz/fuzz.sh build
    for k in $KINDS; do
        rm -rf "$B/fuzz-test-corpus-$k"
        t libfuzzer.$k sh fuzz/fuzz.sh run $k "$FUZZ_TEST_SECONDS" "$B/fuzz-test-corpus-$k"
        grep '^fuzz .*execs' "$L/libfuzzer.$k.log" | sed 's/^/    /'
    done
else
    skip "libfuzzer.*" "clang cannot build a libFuzzer target (Debian: clang, libclang-rt-14-dev; see build/fuzz/probe.log)"
fi

# The soak, short (make soak runs 10 million timers per round), and smaller
# still under valgrind memcheck, with the seed corpus replayed there too.
t soak.build build_soak
for k in $KINDS; do
    t soak.short.$k "$B/soak/soak_$k" "$SEED" 1000000 100000 0
done
if have valgrind; then
    for k in $KINDS; do
        t valgrind.soak.$k vg "$B/soak/soak_$k" "$SEED" 300000 30000 0
        t valgrind.fuzz-seeds.$k vg "$B/replay/replay_plain_$k" fuzz/corpus/$k
    done
else
    skip "valgrind.*" "valgrind not installed (Debian: valgrind, listed in .ci/packages)"
fi

# The README's example compiles as pasted and prints the output shown there.
readme_example() {
    awk '/^## Example/ { s = 1 } s && /^```c$/ { c = 1; next } c && /^```$/ { exit } c' \
        ../README.md >"$B/readme_example.c"
    awk '/^## Example/ { s = 1 } s && /^Output:/ { o = 1 } o && /^```$/ { n++; next } o && n == 1' \
        ../README.md >"$B/readme_expected.txt"
    [ -s "$B/readme_example.c" ] && [ -s "$B/readme_expected.txt" ] &&
        $CC $C99 -o "$B/readme_example" "$B/readme_example.c" &&
        "$B/readme_example" >"$B/readme_output.txt" &&
        diff -u "$B/readme_expected.txt" "$B/readme_output.txt"
}
t readme.example readme_example

# The examples' own tests, with real sockets and threads (examples/Makefile):
# every PASS or FAIL line that `make -C ../examples check` prints counts.
examples_check() {
    e_log=$L/examples.log
    ${MAKE:-make} --no-print-directory -C ../examples check >"$e_log" 2>&1
    e_status=$?
    e_pass=$(grep -c '^PASS ' "$e_log")
    e_fail=$(grep -c '^FAIL ' "$e_log")
    grep -E '^(PASS|FAIL) ' "$e_log" | sed 's/^\(PASS\|FAIL\) /\1 examples./'
    if [ "$e_status" -ne 0 ] && [ "$e_fail" -eq 0 ]; then
        e_fail=1
        echo "FAIL examples: make -C examples check exited $e_status"
    fi
    if [ "$e_fail" -ne 0 ]; then
        echo "    ($e_log)"
        tail -n 25 "$e_log" | sed 's/^/    /'
    fi
    passed=$((passed + e_pass))
    failed=$((failed + e_fail))
}
examples_check

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
