#!/bin/sh
# set_version.sh X.Y.Z [DIR] - give the library (in DIR, default the checkout
# this script is in) the version X.Y.Z: how a release bumps it, in one command.
#
# list.h holds the version: its four TIMER_VERSION* macros, and the check
# above them that stops a header of another version in the same translation
# unit (it must compare with this copy's numbers before it defines them, so
# they are written there too, in one line, and in the check's message).
# This script rewrites those lines and meson.build's project version (which
# meson needs literally); the Makefile, CMakeLists.txt and every installed
# file read list.h. It fails, changing nothing, when any of them is not
# where it expects it. test/run.sh's version-clash test fakes another
# version with it, so a version block that drifts apart fails there.
set -u
LC_ALL=C
export LC_ALL
case ${1:-} in
[0-9]*.[0-9]*.[0-9]*) ;;
*) echo "usage: $0 X.Y.Z [DIR]" >&2; exit 2 ;;
esac
NEW=$1
DIR=${2:-$(dirname "$0")/..}
OLD=$(sed -n 's/^#define TIMER_VERSION "\([0-9.]*\)"$/\1/p' "$DIR/list.h")
[ -n "$OLD" ] || { echo "$0: $DIR/list.h has no #define TIMER_VERSION \"X.Y.Z\"" >&2; exit 1; }
o1=${OLD%%.*} o3=${OLD##*.} o2=${OLD#*.} o2=${o2%.*}
n1=${NEW%%.*} n3=${NEW##*.} n2=${NEW#*.} n2=${n2%.*}
check="TIMER_VERSION_MAJOR != $o1 || TIMER_VERSION_MINOR != $o2 || TIMER_VERSION_PATCH != $o3"
# Every line to change, once each: the check, its two messages, the macros.
for pattern in "$check" "version $OLD (this header)" "^#define TIMER_VERSION_MAJOR $o1\$" \
    "^#define TIMER_VERSION_MINOR $o2\$" "^#define TIMER_VERSION_PATCH $o3\$" "^#define TIMER_VERSION \"$OLD\"\$"; do
    n=$(grep -c -e "$pattern" "$DIR/list.h")
    want=1
    [ "$pattern" = "version $OLD (this header)" ] && want=2
    [ "$n" = "$want" ] || { echo "$0: list.h has $n lines matching '$pattern', not $want" >&2; exit 1; }
done
grep -q "^  version: '$OLD',\$" "$DIR/meson.build" || { echo "$0: meson.build does not say version: '$OLD'" >&2; exit 1; }
sed -e "s/$check/TIMER_VERSION_MAJOR != $n1 || TIMER_VERSION_MINOR != $n2 || TIMER_VERSION_PATCH != $n3/" \
    -e "s/version $OLD (this header)/version $NEW (this header)/" \
    -e "s/^#define TIMER_VERSION_MAJOR $o1\$/#define TIMER_VERSION_MAJOR $n1/" \
    -e "s/^#define TIMER_VERSION_MINOR $o2\$/#define TIMER_VERSION_MINOR $n2/" \
    -e "s/^#define TIMER_VERSION_PATCH $o3\$/#define TIMER_VERSION_PATCH $n3/" \
    -e "s/^#define TIMER_VERSION \"$OLD\"\$/#define TIMER_VERSION \"$NEW\"/" "$DIR/list.h" >"$DIR/list.h.new" &&
    sed -e "s/^  version: '$OLD',\$/  version: '$NEW',/" "$DIR/meson.build" >"$DIR/meson.build.new" &&
    mv "$DIR/list.h.new" "$DIR/list.h" && mv "$DIR/meson.build.new" "$DIR/meson.build" || exit 1
echo "version $OLD -> $NEW in $DIR/list.h and meson.build (then: make single-header, CHANGELOG.md)"
