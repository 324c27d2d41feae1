#!/bin/sh
# test.sh PROGRAM EXPECTED - the cooldowns example's test: the fight must
# end with status 0 and print exactly EXPECTED (its frames are simulated, so
# every run prints the same log). One verdict line, "PASS cooldowns" or
# "FAIL cooldowns: why", after the differences if any.
out=$("$1")
status=$?
if [ "$status" -ne 0 ]; then
    echo "$out" | tail -n 5 | sed 's/^/  /'
    echo "FAIL cooldowns: exit status $status"
    exit 1
fi
if [ "$out" != "$(cat "$2")" ]; then
    echo "$out" | diff -u "$2" - | sed 's/^/  /'
    echo "FAIL cooldowns: the log differs from $2 (above)"
    exit 1
fi
echo "PASS cooldowns"
