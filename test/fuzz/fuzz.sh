#!/bin/sh
# fuzz.sh - build and run the libFuzzer targets (one per container kind).
#
#   sh fuzz/fuzz.sh probe                  exit 0 if clang can build a libFuzzer target
#   sh fuzz/fuzz.sh build [KIND]           build/fuzz/libfuzz_<kind> (+ replay_<kind>), for
#                                          every kind at once, or for KIND alone, one
#                                          program after the other (run.sh's job pool
#                                          builds the kinds as separate tests)
#   sh fuzz/fuzz.sh run KIND SECONDS DIR   fuzz KIND for SECONDS with the corpus DIR
#                                          (the committed seeds are copied in first),
#                                          then print execs/s, total execs, coverage
#   sh fuzz/fuzz.sh coverage KIND DIR      line/region/branch coverage of the headers
#                                          reached by the corpus DIR (llvm-cov)
#   sh fuzz/fuzz.sh all                    what `make fuzz` runs: build, then each
#                                          kind for FUZZ_SECONDS (default 60) in
#                                          build/fuzz-corpus-<kind>, its coverage,
#                                          and a summary; non-zero on any failure
#
# Run from test/ (the Makefile and run.sh do). A failure (a model mismatch, an
# invariant broken, ASan or UBSan) is a crash: libFuzzer writes the input to
# build/fuzz/<kind>-crash-<sha1> (or -leak-, -timeout-), and this script
# prints how to replay it.

set -u
cd "$(dirname "$0")/.." || exit 1

B=build/fuzz
CLANG=${CLANG:-clang}
FLAGS="-std=c99 -Wall -Wextra -Wpedantic -Werror -Wshadow -I.. -O2 -g" # -O2: twice the execs/s of -O1
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all"
KINDS="set heap wheel"

upper() {
    echo "$1" | tr 'a-z' 'A-Z'
}

probe() {
    mkdir -p "$B" || return 1
    printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n);\nint LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' |
        "$CLANG" -fsanitize=fuzzer,address,undefined -x c -o "$B/probe" - >"$B/probe.log" 2>&1
}

build() {
    mkdir -p "$B" || return 1
    if [ $# -gt 0 ]; then
        build_kind "$1"
        return
    fi
    b_pids=
    for k in $KINDS; do
        build_kind "$k" &
        b_pids="$b_pids $!"
    done
    b_status=0
    for b_pid in $b_pids; do
        wait "$b_pid" || b_status=1
    done
    return "$b_status"
}

build_kind() {
    # the fuzz target: libFuzzer + ASan + UBSan; the first failure aborts
    "$CLANG" $FLAGS -fsanitize=fuzzer $SAN -DTH_ABORT_ON_FAIL -DTK_$(upper $1) \
        -o "$B/libfuzz_$1" fuzz/target.c &&
        # the same code with a plain main(): replays a crash file or a corpus
        "$CLANG" $FLAGS $SAN -DFZ_STANDALONE -DTK_$(upper $1) -o "$B/replay_$1" fuzz/target.c
}

# run KIND SECONDS DIR [libFuzzer options...]
run() {
    r_kind=$1
    r_secs=$2
    r_dir=$3
    shift 3
    r_log=$B/libfuzz_$r_kind.log
    mkdir -p "$r_dir" || return 1
    cp fuzz/corpus/$r_kind/* "$r_dir"/ || return 1
    echo "fuzz $r_kind: ${r_secs} s, corpus $r_dir (seeds from fuzz/corpus/$r_kind)"
    # -timeout: one input runs a few ms; -max_len: ~500 operations at most
    ASAN_OPTIONS=abort_on_error=1:detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
        "$B/libfuzz_$r_kind" -max_total_time="$r_secs" -print_final_stats=1 -max_len=4096 \
        -timeout=10 -rss_limit_mb=4096 -artifact_prefix="$B/$r_kind-" "$@" "$r_dir" >"$r_log" 2>&1
    r_status=$?
    r_execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$r_log")
    r_rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$r_log")
    r_added=$(sed -n 's/^stat::new_units_added: *//p' "$r_log")
    r_last=$(grep -E '^#[0-9]+.*cov: ' "$r_log" | tail -n 1)
    r_cov=$(echo "$r_last" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
    r_ft=$(echo "$r_last" | sed -n 's/.*ft: \([0-9]*\).*/\1/p')
    r_corp=$(echo "$r_last" | sed -n 's/.*corp: \([0-9]*\).*/\1/p')
    echo "fuzz $r_kind: ${r_execs:-?} execs in ${r_secs} s (${r_rate:-?} execs/s); coverage cov: ${r_cov:-?} edges, ft: ${r_ft:-?} features; corpus ${r_corp:-?} inputs (${r_added:-?} new)" |
        tee "$B/libfuzz_$r_kind.summary"
    if [ "$r_status" -ne 0 ]; then
        echo "fuzz $r_kind: FAILED (exit $r_status); the end of $r_log:"
        grep -E '^FAIL|ERROR|SUMMARY|runtime error|Test unit written' "$r_log" | head -n 20 | sed 's/^/    /'
        for f in "$B/$r_kind"-crash-* "$B/$r_kind"-leak-* "$B/$r_kind"-timeout-* "$B/$r_kind"-oom-*; do
            [ -f "$f" ] && echo "    replay: FZ_TRACE=1 test/$B/replay_$r_kind test/$f"
        done
        return 1
    fi
    echo "fuzz $r_kind: ok (no failure)"
}

# coverage KIND DIR: how much of the headers the corpus reaches.
coverage() {
    c_kind=$1
    c_dir=$2
    c_prof=$B/cov_$c_kind
    if ! command -v llvm-profdata >/dev/null 2>&1 || ! command -v llvm-cov >/dev/null 2>&1; then
        echo "coverage $c_kind: SKIP (llvm-profdata / llvm-cov not installed)"
        return 0
    fi
    "$CLANG" $FLAGS -fprofile-instr-generate -fcoverage-mapping -DFZ_STANDALONE -DTK_$(upper $c_kind) \
        -o "$c_prof" fuzz/target.c || return 1
    rm -f "$c_prof".profraw
    LLVM_PROFILE_FILE="$c_prof.profraw" "$c_prof" "$c_dir" >/dev/null || return 1
    llvm-profdata merge -o "$c_prof.profdata" "$c_prof.profraw" || return 1
    # one line per header: regions, functions, lines, branches covered (%)
    llvm-cov report "$c_prof" -instr-profile="$c_prof.profdata" ../list.h ../bitmap.h ../timer_$c_kind.h |
        awk -v k="$c_kind" 'NR > 2 && NF >= 13 {
            n = split($1, p, "/");
            if (p[n] ~ /^(list|bitmap|timer_(set|heap|wheel))\.h$/)
                printf "coverage %s: %-13s regions %s, functions %s, lines %s, branches %s\n", k, p[n], $4, $7, $10, $13 }'
}

all() {
    a_secs=${FUZZ_SECONDS:-60}
    a_status=0
    if ! probe; then
        echo "make fuzz: clang cannot build a libFuzzer target (Debian: clang and libclang-rt-14-dev," \
            "both in .ci/packages); see test/$B/probe.log" >&2
        return 1
    fi
    echo "make fuzz: building the targets (clang, libFuzzer + ASan + UBSan)"
    build || return 1
    for k in $KINDS; do
        run "$k" "$a_secs" "build/fuzz-corpus-$k" || a_status=1
        coverage "$k" "build/fuzz-corpus-$k"
    done
    echo "make fuzz: summary (${a_secs} s per kind)"
    for k in $KINDS; do
        grep -h '^fuzz .*execs' "$B/libfuzz_$k.summary" 2>/dev/null | sed 's/^/    /'
    done
    [ "$a_status" -eq 0 ] && echo "make fuzz: ok, no failure found" || echo "make fuzz: FAILED"
    return "$a_status"
}

case "${1:-}" in
probe) probe ;;
build) shift; build "$@" ;;
run) shift; run "$@" ;;
coverage) shift; coverage "$@" ;;
all) all ;;
*) echo "usage: $0 probe | build [KIND] | run KIND SECONDS DIR [opts] | coverage KIND DIR | all" >&2; exit 2 ;;
esac
