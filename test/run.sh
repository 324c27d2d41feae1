#!/bin/sh
# run.sh - build and run the whole test suite; `make -C test` calls it.
#
# Every test is one command: a build (warnings are errors) or a run (it must
# exit 0). Its output goes to build/log/NAME.log and is printed when it fails.
# The last line is "N passed, M failed", and the exit status is non-zero if
# anything failed. Tests that need clang are skipped (a SKIP line, counted
# neither way) only when clang is not installed.
#
# Environment (the Makefile sets it): CC; SEED (empty: each fuzz run draws a
# fresh seed and prints it); STEPS, the fuzz steps per kind in plain builds;
# SAN_STEPS, the same under the sanitizers (a few times slower).

set -u
cd "$(dirname "$0")" || exit 1
: "${CC:=cc}" "${SEED:=}" "${STEPS:=4000000}" "${SAN_STEPS:=1000000}"

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
    if "$@" >"$L/$t_name.log" 2>&1; then
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

# Every C source of the suite, with one compiler (objects are thrown away).
strict_all() {
    for f in headers.c two_tu_a.c two_tu_b.c; do
        $1 $C99 -O2 -c -o /dev/null $f || return 1
    done
    for k in $KINDS; do
        for p in conform fuzz; do
            $1 $C99 -O2 -DTK_$(upper $k) -c -o /dev/null $p.c || return 1
        done
    done
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

# build_suite CONFIG COMPILER FLAGS...: conform and fuzz for every kind.
build_suite() {
    b_dir=$B/$1
    b_cc=$2
    shift 2
    mkdir -p "$b_dir" || return 1
    for k in $KINDS; do
        for p in conform fuzz; do
            $b_cc "$@" -DTK_$(upper $k) -o "$b_dir/${p}_$k" $p.c || return 1
        done
    done
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
    done
}

echo "test: CC=$CC; fuzz seed ${SEED:-fresh per run (printed in each log)}; $STEPS steps, $SAN_STEPS under sanitizers"

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
