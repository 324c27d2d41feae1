#!/bin/sh
# text_size.sh [DIR [FILES]] - what compiling the functions once saves: a
# program of FILES (20) files, each calling insert and remove, plus a main
# that inits, pops and destroys, built at -O2 for each kind twice: with the
# DEFINE in the header every file includes (every file that calls a
# function gets its own copy of what the compiler did not inline), and with
# DECLARE there and IMPLEMENT in main.c (one copy). Prints the text size
# (size(1)) of both and fails unless the second is smaller.
#   CC (default cc) and CFLAGS (default -O2) as for a release build.
set -u
dir=${1:-build/declare/text-size}
files=${2:-20}
: "${CC:=cc}" "${CFLAGS:=-O2}"
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$dir" || exit 1
status=0
for kind in set heap wheel; do
    K=$(echo "$kind" | tr 'a-z' 'A-Z')
    d=$dir/$kind
    mkdir -p "$d" || exit 1
    cat >"$d/prog.h" <<EOT
#include "timer_$kind.h"
struct conn { int fd; struct timer_${kind}_node idle; };
#ifdef USE_DECLARE
TIMER_${K}_DECLARE(conn_timers, struct conn, idle)
#ifdef PROG_IMPLEMENTATION
TIMER_${K}_IMPLEMENT(conn_timers, struct conn, idle)
#endif
#else
TIMER_${K}_DEFINE_NAMED(conn_timers, struct conn, idle)
#endif
EOT
    {
        echo '#define PROG_IMPLEMENTATION'
        echo '#include "prog.h"'
        i=1
        while [ "$i" -le "$files" ]; do
            echo "int f$i(conn_timers *c, struct conn *x);"
            i=$((i + 1))
        done
        echo 'int main(void)'
        echo '{'
        echo '    static struct conn x[64];'
        echo '    struct tlist due = { 0, 0 };'
        echo '    conn_timers c;'
        echo '    int bad = 0;'
        echo '    conn_timers_init(&c, 0);'
        i=1
        while [ "$i" -le "$files" ]; do
            echo "    bad |= f$i(&c, &x[$i]);"
            i=$((i + 1))
        done
        echo '    conn_timers_pop(&c, 100, &due);'
        echo '    conn_timers_destroy(&c);'
        echo '    return bad;'
        echo '}'
    } >"$d/main.c"
    i=1
    while [ "$i" -le "$files" ]; do
        {
            echo '#include "prog.h"'
            echo "int f$i(conn_timers *c, struct conn *x);"
            echo "int f$i(conn_timers *c, struct conn *x)"
            echo '{'
            echo "    int bad = conn_timers_insert(c, $i, x) != 0;"
            echo '    return bad | !conn_timers_remove(c, x);'
            echo '}'
        } >"$d/f$i.c"
        i=$((i + 1))
    done
    for form in define declare; do
        if [ $form = declare ]; then def=-DUSE_DECLARE; else def=; fi
        # shellcheck disable=SC2086 # CFLAGS are words
        (cd "$d" && $CC -std=c99 $CFLAGS $def -I"$here/../.." -o "prog_$form" main.c f*.c) &&
            "$d/prog_$form" || { echo "$kind: the $form program failed"; exit 1; }
        eval "text_$form=\$(size \"\$d/prog_\$form\" | awk 'NR == 2 { print \$1 }')"
    done
    # shellcheck disable=SC2154 # set by the eval above
    echo "$kind: $files files calling insert and remove, $CC $CFLAGS: text $text_define bytes with the DEFINE in" \
        "every file, $text_declare with DECLARE and one IMPLEMENT ($(awk -v a="$text_define" -v b="$text_declare" \
        'BEGIN { printf "%+.1f%%", 100 * (b - a) / a }'))"
    [ "$text_declare" -lt "$text_define" ] || status=1
done
exit $status
