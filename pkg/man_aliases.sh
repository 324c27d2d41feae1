#!/bin/sh
# man_aliases.sh [DIR] - one page per name that a man page's NAME section
# lists besides its own (tlist_drain, TIMER_WHEEL_DEFINE, ...), each a
# single `.so man3/PAGE.3` line, so that `man 3 tlist_drain` shows tlist(3).
# Writes them into DIR (default man/aliases, where every install route
# installs them from) and removes the stale ones there; make test fails
# while the committed ones differ from what this writes.
set -u
cd "$(dirname "$0")/.." || exit 1
dir=${1:-man/aliases}
mkdir -p "$dir" || exit 1
rm -f "$dir"/*.3
for page in man/*.3; do
    name=$(basename "$page" .3)
    # the NAME section up to its "\-": the names, comma-separated
    names=$(sed -n '/^\.SH NAME/,/^\.SH/p' "$page" | sed -e '1d' -e '/^\.SH/d' -e '/^\./d' | tr '\n' ' ' |
        sed 's/ \\-.*//' | tr ',' ' ')
    [ -n "$names" ] || { echo "man_aliases.sh: $page has no NAME section" >&2; exit 1; }
    for alias in $names; do
        [ "$alias" = "$name" ] && continue
        printf '.so man3/%s.3\n' "$name" >"$dir/$alias.3"
    done
done
