#!/bin/sh
# run_test.sh [--tsan] NAME SECONDS COMMAND [ARG...]
#
# Runs one example test under a time limit, passes on its detail lines, and
# prints exactly one verdict line: "PASS NAME" or "FAIL NAME: reason". The
# test prints its own verdict; this script turns a crash, a hang, a missing
# or contradicting verdict (PASS with a non-zero exit, as ThreadSanitizer
# does when it found a race) into a FAIL line. Exits 0 on PASS, 1 on FAIL.
#
# --tsan: COMMAND is a ThreadSanitizer build. TSan needs a fixed memory
# layout; on kernels with much mmap randomisation it may die at start
# ("unexpected memory mapping"). Then the test is run again with ASLR off for
# it alone (setarch -R), and the output says so. If TSan still cannot run,
# that is a FAIL with the reason, never a silent pass.

tsan=no
if [ "$1" = --tsan ]; then
    tsan=yes
    shift
fi
if [ $# -lt 3 ]; then
    echo "usage: run_test.sh [--tsan] NAME SECONDS COMMAND [ARG...]" >&2
    exit 2
fi
name=$1
limit=$2
shift 2

out=$(mktemp "${TMPDIR:-/tmp}/example_test.XXXXXX") || exit 1
trap 'rm -f "$out"' EXIT

run() {
    # -k: a test that ignores SIGTERM is killed 5 s later. The test kills
    # its own child processes when it gets SIGTERM.
    timeout -k 5 "$limit" "$@" >"$out" 2>&1
    rc=$?
}

run "$@"
note=
if [ $tsan = yes ] && grep -q 'FATAL: ThreadSanitizer' "$out"; then
    fatal=$(grep -m 1 'FATAL: ThreadSanitizer' "$out")
    run setarch "$(uname -m)" -R "$@"
    note="  note: ThreadSanitizer could not start with ASLR on ($fatal); ran it again under setarch -R"
    if grep -q 'FATAL: ThreadSanitizer' "$out"; then
        echo "$note"
        sed 's/^/  /' "$out"
        echo "FAIL $name: ThreadSanitizer cannot run on this machine, even under setarch -R: $fatal"
        exit 1
    fi
fi

[ -n "$note" ] && echo "$note"
# Detail lines: everything but verdicts, so that the one line below is the only one.
grep -Ev '^(PASS|FAIL)' "$out"
verdicts=$(grep -cE '^(PASS|FAIL)' "$out")
verdict=$(grep -E '^(PASS|FAIL)' "$out" | tail -n 1)

if [ "$rc" -eq 0 ] && [ "$verdicts" -eq 1 ] && [ "$verdict" = "PASS $name" ]; then
    echo "PASS $name"
    exit 0
fi
if [ "$rc" -ne 0 ] && [ "$verdicts" -eq 1 ] && [ "${verdict#"FAIL $name: "}" != "$verdict" ]; then
    echo "$verdict"
    exit 1
fi

if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    reason="timed out after $limit s"
elif [ "$rc" -gt 128 ]; then
    reason="killed by signal $((rc - 128))"
else
    reason="exit status $rc"
fi
if grep -q 'WARNING: ThreadSanitizer' "$out"; then
    reason="ThreadSanitizer reported an error (see above); $reason"
fi
if [ "$verdicts" -eq 0 ]; then
    echo "FAIL $name: no verdict line; $reason"
elif [ "$verdicts" -gt 1 ]; then
    echo "FAIL $name: $verdicts verdict lines, the last \"$verdict\"; $reason"
else
    echo "FAIL $name: printed \"$verdict\" but $reason"
fi
exit 1
