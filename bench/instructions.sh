#!/bin/sh
# instructions.sh DIR CSV [DRIVER-OPTION...] - make bench-instructions: the
# instructions per operation of every kind, counted by valgrind's callgrind.
#
# Runs DIR/instr_KIND (instr.c, built by bench/Makefile) under callgrind for
# every kind at once, and the random phases of the containers a second time
# with its cache simulation; reads each phase function's inclusive cost from
# the callgrind files, divides it by the operations the driver says that
# phase ran (its "cell" lines), prints the tables and writes CSV. The
# options after CSV go to every driver (--n, --conns, --seed). Last, the
# same driver compiled as C++ (DIR/instr_cxx_KIND: every call through
# timer_containers.hpp) against the C rows: its counts, and how much they
# differ from C's, cell by cell; and the callback events, per form of
# callable (DIR/instr_events, instr_events.cpp).
#
# It measures and reports, and fails only when a run does: a driver that
# finds a wrong result exits non-zero, and so does this script, without a
# table. Instruction counts do not depend on the machine's load: the same
# binary gives the same counts on every run (unlike make bench's times).
set -u

dir=$1
csv=$2
shift 2

KINDS="floor set heap wheel"
CACHE_KINDS="set heap wheel"
CXX_KINDS="cxx_set cxx_heap cxx_wheel"
EVENTS=events
# The cache model: a 32 KB 8-way L1 (an EPYC's L1d) and, as the last level,
# a 1 MB 8-way cache: the L2 of this machine's cores. With its 32 MB L3 as
# the last level every row's data (under 12 MB) would fit, and LL misses
# would all be 0; modelled as 1 MB, they count the lines that leave L2.
CACHE_MODEL="--I1=32768,8,64 --D1=32768,8,64 --LL=1048576,8,64"

# Every run at once: under callgrind each is one process; on 2 cores the
# whole takes under a minute.
for k in $KINDS $CXX_KINDS $EVENTS; do
    valgrind --tool=callgrind --dump-instr=no --log-file="$dir/$k.valgrind.log" \
        --callgrind-out-file="$dir/$k.cg" "$dir/instr_$k" "$@" \
        >"$dir/$k.cells" 2>"$dir/$k.err" &
    eval "pid_$k=\$!"
done
for k in $CACHE_KINDS; do
    # shellcheck disable=SC2086
    valgrind --tool=callgrind --dump-instr=no --cache-sim=yes $CACHE_MODEL \
        --log-file="$dir/$k.cache.valgrind.log" --callgrind-out-file="$dir/$k.cache.cg" \
        "$dir/instr_$k" "$@" --only random >"$dir/$k.cache.cells" 2>"$dir/$k.cache.err" &
    eval "cpid_$k=\$!"
done

failed=0
for k in $KINDS $CXX_KINDS $EVENTS; do
    eval "wait \$pid_$k" || {
        echo "bench-instructions: instr_$k failed under callgrind (exit $?):"
        sed 's/^/  /' "$dir/$k.err" | tail -n 20
        echo "  (valgrind's log: $dir/$k.valgrind.log)"
        failed=1
    }
done
for k in $CACHE_KINDS; do
    eval "wait \$cpid_$k" || {
        echo "bench-instructions: instr_$k --only random failed under callgrind with --cache-sim=yes (exit $?):"
        sed 's/^/  /' "$dir/$k.cache.err" | tail -n 20
        echo "  (valgrind's log: $dir/$k.cache.valgrind.log)"
        failed=1
    }
done
[ "$failed" = 0 ] || exit 1

files=
for k in $KINDS $CXX_KINDS $EVENTS; do
    files="$files $dir/$k.cg $dir/$k.cells"
done
for k in $CACHE_KINDS; do
    files="$files $dir/$k.cache.cg $dir/$k.cache.cells"
done

# shellcheck disable=SC2086
awk -v csv="$csv" -v kinds="$KINDS" -v cache_kinds="$CACHE_KINDS" -v cxx_kinds="$CXX_KINDS" \
    -v cache_model="$CACHE_MODEL" '
# The callgrind file (format: valgrind manual, "Callgrind Format
# Specification"): "fn=(id) name" and "cfn=(id) name" name a function the
# first time its id appears, "(id)" alone later. After "calls=COUNT TARGET"
# the next line is "POSITION COSTS...": the inclusive cost of those calls.
# A phase function is not recursive, so its inclusive cost is the sum of the
# costs of every call to it.
function base(path) { sub(/.*\//, "", path); return path }
FNR == 1 {
    f = base(FILENAME)
    kind = f; sub(/\..*/, "", kind)
    cache = f ~ /\.cache\./
    cells = f ~ /\.cells$/
    pending = 0
}
!cells && /^events:/ {
    for (i = 2; i <= NF; i++)
        ev[cache, i - 1] = $i
    nev[cache] = NF - 1
    next
}
!cells && /^c?fn=\(/ {
    s = $0
    callee = substr(s, 1, 1) == "c"
    sub(/^c?fn=\(/, "", s)
    id = s
    sub(/\).*/, "", id)
    sub(/^[0-9]+\) ?/, "", s)
    # C++: "ph_pop(ic*, item*, unsigned long)" is ph_pop; a clone keeps its
    # " [clone .cold]", so that it stays another function
    if (i = index(s, "(")) {
        clone = match(s, / \[clone [^]]*\]$/) ? substr(s, RSTART) : ""
        s = substr(s, 1, i - 1) clone
    }
    if (s != "")
        name[kind, cache, id] = s
    if (callee)
        cid = id
    next
}
!cells && /^calls=/ { pending = 1; next }
!cells && pending && /^[-+*0-9]/ {
    for (i = 2; i <= NF; i++)
        cost[kind, cache, cid, ev[cache, i - 1]] += $i
    pending = 0
    next
}
cells && $1 == "info" {
    v = $3
    for (i = 4; i <= NF; i++)
        v = v " " $i
    info[kind, $2] = v
    next
}
cells && $1 == "cell" {
    # cell SECTION OP FUNCTION COUNT
    key = kind SUBSEP cache SUBSEP $2 SUBSEP $3
    fn[key] = $4
    ops[key] = $5
    ncells++
    cellkey[ncells] = key
    next
}
# the inclusive cost of function f in the profile of (k, c), by event
function incl(k, c, f, e,    id, j, n, p) {
    n = 0
    for (j in name) {
        split(j, p, SUBSEP)
        if (p[1] == k && p[2] == c && name[j] == f) {
            id = p[3]
            n++
        }
    }
    if (n != 1) {
        printf "bench-instructions: %s is %s in the callgrind profile of instr_%s\n", \
            f, n ? "named more than once" : "missing", k > "/dev/stderr"
        bad = 1
        return 0
    }
    return cost[k, c, id, e] + 0
}
function per_op(k, c, section, op, e,    key) {
    key = k SUBSEP c SUBSEP section SUBSEP op
    if (!(key in fn) || ops[key] == 0)
        return ""
    return incl(k, c, fn[key], e) / ops[key]
}
function fmt(v, w) { return sprintf("%" w "s", v == "" ? "-" : sprintf("%.1f", v)) }
END {
    nk = split(kinds, K, " ")
    nck = split(cache_kinds, CK, " ")
    # every cell in the CSV, long form: one row per figure and event
    print "section,kind,op,function,ops,event,count,per_op,n,conns,item_bytes,compiler" > csv
    for (i = 1; i <= ncells; i++) {
        split(cellkey[i], part, SUBSEP)
        k = part[1]; c = part[2]
        if (c) {
            nevents = 2; E[1] = "D1miss"; E[2] = "LLmiss"
        } else {
            nevents = 1; E[1] = "Ir"
        }
        for (j = 1; j <= nevents; j++) {
            if (E[j] == "D1miss")
                total = incl(k, 1, fn[cellkey[i]], "D1mr") + incl(k, 1, fn[cellkey[i]], "D1mw")
            else if (E[j] == "LLmiss")
                total = incl(k, 1, fn[cellkey[i]], "DLmr") + incl(k, 1, fn[cellkey[i]], "DLmw")
            else
                total = incl(k, 0, fn[cellkey[i]], "Ir")
            printf "%s,%s,%s,%s,%d,%s,%.0f,%.2f,%s,%s,%s,%s\n", part[3], k, part[4], fn[cellkey[i]], \
                ops[cellkey[i]], E[j], total, total / ops[cellkey[i]], info[k, "n"], info[k, "conns"], \
                info[k, "item_bytes"], info[k, "compiler"] > csv
        }
    }
    close(csv)
    if (bad)
        exit 1

    items = ""
    for (i = 1; i <= nk; i++)
        items = items (i > 1 ? ", " : "") K[i] " " info[K[i], "item_bytes"] " B"
    printf "Instructions per operation, counted by valgrind'\''s callgrind: the same binary gives the same counts\n"
    printf "(what each column runs: docs/benchmarks.md, \"Instruction counts\").\n"
    printf "N = %s items (idle: %s connections); items (node + int64): %s\n", \
        info["wheel", "n"], info["wheel", "conns"], items
    printf "compiler: %s\n\n", info["wheel", "compiler"]

    nops = split("insert remove pop min_time+pop pop-none reschedule-near reschedule-far random-insert random-pop next_expiry+pop", O, " ")
    split("insert remove pop(ord,+drain) min_time+pop pop(nothing~due) reschedule(+15) reschedule(+1e5) random-insert random-pop next_expiry+pop", H, " ")
    printf "%-6s", ""
    for (j = 1; j <= nops; j++) {
        gsub(/~/, " ", H[j])
        W[j] = length(H[j]) + 1
        printf "%" W[j] "s", H[j]
    }
    printf "\n"
    for (i = 1; i <= nk; i++) {
        printf "%-6s", K[i]
        for (j = 1; j <= nops; j++)
            printf "%s", fmt(per_op(K[i], 0, "ops", O[j], "Ir"), W[j])
        printf "\n"
    }

    printf "\nmake bench'\''s workloads, the data of make bench WN=%s CONNS=%s SEED=%s;\n", \
        info["wheel", "n"], info["wheel", "conns"], info["wheel", "seed"]
    printf "total = the operations make bench times for its total, per timer\n"
    printf "%-8s %-6s %12s %8s %8s %11s %9s %9s\n", "workload", "kind", "total/timer", "insert", "remove", \
        "reschedule", "pop/item", "pop/call"
    nw = split("random idle request mixed", WL, " ")
    split("total insert remove reschedule pop pop-call", WO, " ")
    split("12 8 8 11 9 9", WW, " ")
    for (w = 1; w <= nw; w++)
        for (i = 1; i <= nk; i++) {
            if (K[i] == "floor")
                continue
            printf "%-8s %-6s", WL[w], K[i]
            for (j = 1; j <= 6; j++)
                printf " %s", fmt(per_op(K[i], 0, WL[w], WO[j], "Ir"), WW[j])
            printf "\n"
        }

    printf "\nData cache misses per operation (callgrind --cache-sim=yes %s):\n", cache_model
    printf "%-6s %21s %21s %21s\n", "", "random-insert", "random-pop", "random workload/timer"
    printf "%-6s", ""
    for (j = 1; j <= 3; j++)
        printf " %10s %10s", "D1", "LL"
    printf "\n"
    split("ops random-insert ops random-pop random total", CC, " ")
    for (i = 1; i <= nck; i++) {
        printf "%-6s", CK[i]
        for (j = 1; j <= 5; j += 2) {
            d1 = per_op(CK[i], 1, CC[j], CC[j + 1], "D1mr") + per_op(CK[i], 1, CC[j], CC[j + 1], "D1mw")
            ll = per_op(CK[i], 1, CC[j], CC[j + 1], "DLmr") + per_op(CK[i], 1, CC[j], CC[j + 1], "DLmw")
            printf " %s %s", fmt(d1, 10), fmt(ll, 10)
        }
        printf "\n"
    }
    # Through the C++ interface: the same cells, and their difference from C.
    nx = split(cxx_kinds, X, " ")
    printf "\nThrough the C++ interface (instr.c compiled as C++, every call through timer_containers.hpp;\n"
    printf "compiler: %s): instructions per operation, and the difference from C below each row\n", \
        info[X[1], "compiler"]
    printf "%-10s", ""
    for (j = 1; j <= nops; j++)
        printf "%" W[j] "s", H[j]
    printf "\n"
    worst = ""
    for (i = 1; i <= nx; i++) {
        c = X[i]; sub(/^cxx_/, "", c)
        printf "%-10s", c " C++"
        for (j = 1; j <= nops; j++)
            printf "%s", fmt(per_op(X[i], 0, "ops", O[j], "Ir"), W[j])
        printf "\n%-10s", "  vs C"
        for (j = 1; j <= nops; j++)
            printf "%" W[j] "s", vs(per_op(X[i], 0, "ops", O[j], "Ir"), per_op(c, 0, "ops", O[j], "Ir"), c " " O[j])
        printf "\n"
    }
    printf "\n%-8s %-6s %12s %8s %8s %11s %9s %9s\n", "workload", "C++", "total/timer", "insert", "remove", \
        "reschedule", "pop/item", "pop/call"
    for (w = 1; w <= nw; w++)
        for (i = 1; i <= nx; i++) {
            c = X[i]; sub(/^cxx_/, "", c)
            printf "%-8s %-6s", WL[w], c
            for (j = 1; j <= 6; j++)
                printf " %s", fmt(per_op(X[i], 0, WL[w], WO[j], "Ir"), WW[j])
            printf "\n%-15s", "  vs C"
            for (j = 1; j <= 6; j++)
                printf " %" WW[j] "s", vs(per_op(X[i], 0, WL[w], WO[j], "Ir"), per_op(c, 0, WL[w], WO[j], "Ir"), \
                    c " " WL[w] " " WO[j])
            printf "\n"
        }
    if (worst != "")
        printf "\nC++ against C: the largest difference is %+.1f%% (%s); the smallest %+.1f%% (%s)\n", \
            worst_d, worst, best_d, best

    # The callback events, per form of callable.
    printf "\nCallback events (timer_containers.hpp, a wheel; %s events at as many ticks, one run_due a tick):\n", \
        info["events", "n"]
    printf "instructions per event; the bytes of an event and its heap allocations\n"
    printf "%-34s %5s %6s %7s %7s %8s %7s\n", "form", "bytes", "allocs", "make", "arm", "run_due", "drop"
    nf = split("c functor callback function function32", F, " ")
    split("C: an item with a function pointer|functor (a lambda'\''s own type)|tc::callback (function + argument)|std::function, 16-byte callable|std::function, 32-byte callable", FN, "|")
    for (i = 1; i <= nf; i++) {
        printf "%-34s %5s %6s", FN[i], info["events", "ev_bytes_" F[i]], info["events", "ev_allocs_" F[i]]
        split("make arm run drop", EO, " ")
        split("7 7 8 7", EW, " ")
        for (j = 1; j <= 4; j++)
            printf " %s", fmt(per_op("events", 0, "events", F[i] "-" EO[j], "Ir"), EW[j])
        printf "\n"
    }
    printf "\nCSV: %s\n", csv
    exit bad
}
# "+1.2%": how much x exceeds the C figure y; remembers the extremes
function vs(x, y, what,    d) {
    if (x == "" || y == "" || y == 0)
        return "-"
    d = (x - y) * 100 / y
    if (d > -0.05 && d < 0.05)
        d = 0
    if (worst == "" || d > worst_d) { worst_d = d; worst = what }
    if (best == "" || d < best_d) { best_d = d; best = what }
    return sprintf("%+.1f%%", d)
}' $files
