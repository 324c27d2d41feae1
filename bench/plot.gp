# plot.gp - SVG charts from the benchmark CSVs (make plot runs it headless).
#   gnuplot -e "peers='peers.csv'; bench='results.csv'; out='charts'" plot.gp
# peers: CSV of timer_peers (our containers and the peers, one run): a log-log
#        chart of ns/op against N per op of the ordered-insert protocol (insert
#        N timers at base + i*97, remove the first half, pop the rest), and a
#        bar chart per workload. bench: CSV of timer_bench (ours only, up to
#        10M), optional (bench='' to skip). A CSV's first line of PATH.info,
#        when present, names the machine in the charts' titles.
# Rows are picked and pivoted with awk; nothing else is needed besides gnuplot.

if (!exists("peers")) peers = "peers.csv"
if (!exists("bench")) bench = ""
if (!exists("out")) out = "charts"

kinds  = "set heap wheel bsd-tree wahern libev libuv libevent libevent-ct dpdk"
colors = "#9ecae1 #4292c6 #08306b #737373 #756bb1 #e6550d #31a354 #d62728 #ff9896 #8c6d31"
# ours: solid lines, filled circles; peers: dashed lines, open marks
dashes = "1 1 1 2 2 2 2 2 2 2"
points = "7 7 7 6 14 4 8 12 10 2"
color(k) = word(colors, k)
padded = " " . kinds . " "
idx(k) = words(padded[1:strstrt(padded, " " . k . " ")]) + 1     # position of a kind in `kinds`
# the kinds, in that order, that report workload w in a CSV
present(csv, w) = system(sprintf("awk -F, -v w='%s' -v kinds='%s' 'BEGIN { nk = split(kinds, K, \" \") } \
    NR > 1 && $1 == w { has[$2] = 1 } END { for (j = 1; j <= nk; j++) if (K[j] in has) printf \"%%s \", K[j] }' '%s'", \
    w, kinds, csv))

machine(csv) = system(sprintf("head -n 1 '%s.info' 2>/dev/null", csv))

set terminal svg size 720,450 dynamic enhanced font "Helvetica,12" background rgb "white"
set datafile separator whitespace
set datafile missing "NaN"
set grid ytics mytics lc rgb "#dddddd" lw 1
set key outside right top vertical Left reverse noenhanced
set border 3
set tics nomirror

# ---- lines: ns/op against N, ordered-insert protocol, one line per kind ----

# rows of one kind and op from the ordered-insert protocol: "n median_ns"
# (column 13, below_noise: a median this run could not resolve is left out)
orderedrows(csv, k, op) = sprintf("< awk -F, -v k='%s' -v o='%s' '$1==\"ordered\" && $2==k && $4==o && $5>0 && $13!=1 {print $3, $5}' '%s'", k, op, csv)

set logscale xy
set format x "10^{%L}"
set xlabel "N (timers in the container)"
set ylabel "ns per operation (median)"
info = machine(peers)
# the machine, small, at the bottom left (plain text: no enhanced markup)
set label 1 info at screen 0.01, screen 0.025 font ",9" noenhanced tc rgb "#555555"
set bmargin 5

orderedkinds = present(peers, "ordered")
do for [op in "insert remove pop"] {
    set output sprintf("%s/ordered_%s.svg", out, op)
    set title sprintf("Ordered-insert protocol: %s N timers (expiries base + i*97), ns per %s against N", \
                      op eq "pop" ? "fire half of" : op eq "remove" ? "cancel half of" : "arm", op)
    plot for [k in orderedkinds] orderedrows(peers, k, op) using 1:2 \
         with linespoints lc rgb color(idx(k)) dt int(word(dashes, idx(k))) pt int(word(points, idx(k))) \
         ps 0.9 lw 2 title k
}

if (strlen(bench) > 0) {
    set output sprintf("%s/bench_ordered.svg", out)
    set terminal svg size 1080,400 dynamic enhanced font "Helvetica,12" background rgb "white"
    binfo = machine(bench)
    set label 1 strlen(binfo) > 0 ? binfo : sprintf("%s of make bench (the machine is named in the header make bench printed)", bench) noenhanced
    set key at screen 0.5, screen 0.09 center center horizontal   # same place in every panel: one key
    set bmargin 7
    set multiplot layout 1,3 title "make bench, ordered-insert protocol: our containers, ns/op against N (log-log)"
    do for [op in "insert remove pop"] {
        set title op
        plot for [i=1:3] orderedrows(bench, word(kinds, i), op) using 1:2 with linespoints \
             pt 7 ps 0.9 lw 2 lc rgb color(i) title word(kinds, i)
    }
    unset multiplot
    set terminal svg size 720,450 dynamic enhanced font "Helvetica,12" background rgb "white"
    set key outside right top vertical Left reverse
    set bmargin 5
    set label 1 info
}

# ---- bars: one chart per workload, clusters = ops, bars = kinds ------------

# "op v_set v_heap ..." for each op of the workload, in the order recorded;
# NaN where a kind does not report that op or its median is below the noise;
# total (ns per timer, ours only) sums a workload's ops, not a figure the
# peers have
pivot(csv, w) = sprintf("< awk -F, -v w='%s' -v kinds='%s' 'BEGIN { nk = split(kinds, K, \" \") } \
    NR > 1 && $1 == w && $4 != \"min_time\" && $4 != \"total\" { if (!($4 in seen)) { seen[$4] = 1; ops[++no] = $4 } \
    if ($13 != 1) v[$4, $2] = $5 } \
    END { for (i = 1; i <= no; i++) { line = ops[i]; for (j = 1; j <= nk; j++) \
          line = line \" \" (((ops[i], K[j]) in v) && v[ops[i], K[j]] > 0 ? v[ops[i], K[j]] : \"NaN\"); print line } }' '%s'", \
    w, kinds, csv)

unset logscale x
set logscale y
set format x "%g"
set format y "10^{%L}"
set xlabel "operation"
set ylabel "ns per operation (median, log scale)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.9 border rgb "#333333"
set boxwidth 0.9
set xtics nomirror
set yrange [0.3:*]

describe(w) = w eq "random" ? "1M expiries (ticks) uniform over 0 .. 2^{24}, all armed, then expired" : \
              w eq "idle" ? "100k connections; each message restarts its timer (now + 10 s)" : \
              w eq "request" ? "1M requests, 100 per ms, each armed for 1 s, 95% cancelled" : \
              "1M log-uniform delays (ticks) over 1 .. 2^{40}, a random half cancelled"

set xtics noenhanced
do for [w in "random idle request mixed"] {
    wk = present(peers, w)
    set output sprintf("%s/workload_%s.svg", out, w)
    if (w eq "idle" || w eq "request") {
        set title sprintf("Workload %s: %s\n{/*0.8 pop: ours, bsd-tree and wahern = all per-tick pop calls / items popped; loops and dpdk = the firing alone}", w, describe(w))
    } else {
        set title sprintf("Workload %s: %s", w, describe(w))
    }
    plot for [k in wk] pivot(peers, w) using (column(idx(k) + 1)):xtic(1) lc rgb color(idx(k)) title k
}
