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
    # f1.c .. fN.c, each calling insert and remove; main.c calls them all
    protos=
    calls=
    i=1
    while [ "$i" -le "$files" ]; do
        proto="int f$i(conn_timers *c, struct conn *x)"
        printf '#include "prog.h"\n%s;\n%s\n{\n    int bad = conn_timers_insert(c, %d, x) != 0;\n%s\n}\n' \
            "$proto" "$proto" "$i" '    return bad | !conn_timers_remove(c, x);' >"$d/f$i.c"
        protos="$protos$proto;
"
        calls="$calls    bad |= f$i(&c, &x[$i]);
"
        i=$((i + 1))
    done
    printf '#define PROG_IMPLEMENTATION\n#include "prog.h"\n%sint main(void)\n{\n%s%s%s%s%s}\n' "$protos" \
        '    static struct conn x[64];
    struct tlist due = { 0, 0 };
    conn_timers c;
    int bad = 0;
    conn_timers_init(&c, 0);
' "$calls" '    conn_timers_pop(&c, 100, &due);
' '    conn_timers_destroy(&c);
' '    return bad;
' >"$d/main.c"
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
