#!/bin/sh
# run.sh TIER - the test suite, in parallel. `make test` runs `run.sh test`,
# `make check` runs `run.sh check`.
#
#   test    the quick tier (under a minute on 2 cores): strict gcc and clang
#           builds of every source (nginx's clang flags too), C++11, the
#           conformance and differential (fuzz.c) suites per kind under ASan +
#           UBSan with short fuzz runs, the edges for the wheel, the C++
#           interface (the wheel's conformance through it, cxx.cpp as C++11
#           without exceptions), the wheel's adversarial suite (costs counted
#           at n and 8n, every call by its bound, the 1M-timer loops), the
#           complexity fuzzer's corpus and a short search, timer_service.h
#           from threads (its calls, the missed-tick policies, interleavings
#           explored by a scheduler, a short ledger stress, under ASan +
#           UBSan and ThreadSanitizer), the mistakes that must warn,
#           DECLARE/IMPLEMENT, make install, the README examples and the
#           examples' tests (without TSan).
#   check   everything: the test tier with full fuzz runs, plus the other
#           seven builds of the suites (-m32 among them), the bit scans,
#           libFuzzer, the seed corpus replayed, the short soak, valgrind,
#           the fuzz and edge suites through the C++ interface, cxx.cpp at
#           every standard from C++11 to 20 with both compilers,
#           timer_service.h's long stress runs (2 to 16 threads) and
#           interleavings with 2 preemptions; and last, alone, the test tier
#           on a starved machine (starved.sh).
#
# Every test is one command: a build (warnings are errors) or a run (it must
# exit 0). Tests are registered in `registry` below, one line each, with the
# tests they need (a run needs its build); up to JOBS of them run at once,
# each starting as soon as what it needs has passed. A test whose need failed
# is not run and counts as failed. Each test's output goes to
# build/log/NAME.log; this script alone prints, one line per test as each
# finishes: "PASS NAME", "FAIL NAME (log):" with the log's head and tail
# indented below it, and before the first test starts, one "SKIP GROUP (N
# tests): REASON" line per group of tests whose tool is missing (those count
# neither way; .ci/packages installs every tool). The last line is
# "N passed, M failed", and the exit status is non-zero if anything failed.
# Wall and CPU times per test, slowest first, and the CPU time of all, go
# to build/log/times.txt.
#
# Environment (test/Makefile passes make's variables; empty = the default):
#   JOBS               tests at once (default: the number of cores)
#   CC                 the compiler of the plain builds (default cc)
#   SEED               seed of every fuzz and soak run (default: each run
#                      draws a fresh one and prints it in its log)
#   STEPS              fuzz steps per kind in the -O2 builds
#   SAN_STEPS          the same under ASan + UBSan (a few times slower)
#   PORT_STEPS         the same in the portability builds (-m32, -O3
#                      -march=native, -O0, no builtins, heap arity 2)
#   FUZZ_TEST_SECONDS  how long each libFuzzer target runs (check; default 5)
#   BOUND_TEST_SECONDS how long fuzz/bound.c's seeded search runs (3 in the
#                      test tier, 60 in check)
#   BOUND_FUZZ_SECONDS how long libFuzzer runs fuzz/bound.c (check; 120)
#   STARVED            0: make check leaves out its starved run of make test
#   T_BUILD            the build directory (default build; starved.sh's runs
#                      use one of their own)
# The step counts default to 200000 in the test tier and to 4000000 (STEPS)
# and 1000000 (SAN_STEPS, PORT_STEPS) in the check tier; see the registry.
#
# Written for any POSIX sh (dash included): no arrays, no `wait -n`. Jobs
# report their end through a FIFO that this script reads, so only one
# process ever writes to the terminal and lines cannot interleave.

set -u
cd "$(dirname "$0")" || exit 1

TIER=${1:-test}
case $TIER in
test | check) ;;
*) echo "usage: $0 [test | check]" >&2; exit 2 ;;
esac

# make test: 200000 fuzz steps per kind, fuzz.c's own default: about 90
# episodes of 200 to 4200 steps, each with a fresh container, pool size (6
# sizes) and largest time scale (10 scales), so every size and scale comes up
# several times, in 1 to 3 s per kind under ASan. make check: as before.
if [ "$TIER" = test ]; then
    : "${STEPS:=200000}" "${SAN_STEPS:=200000}" "${PORT_STEPS:=200000}" "${BOUND_TEST_SECONDS:=3}"
else
    : "${STEPS:=4000000}" "${SAN_STEPS:=1000000}" "${PORT_STEPS:=1000000}" "${BOUND_TEST_SECONDS:=60}"
fi
: "${BOUND_FUZZ_SECONDS:=120}"
: "${CC:=cc}" "${SEED:=}" "${FUZZ_TEST_SECONDS:=5}" "${JOBS:=}"
[ -n "$JOBS" ] || JOBS=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)

B=${T_BUILD:-build}  # every output; each test writes only its own files (starved.sh moves it)
L=$B/log      # NAME.log per test, times.txt
R=$B/run      # NAME.status per finished test, the FIFO
ALL_KINDS="set heap wheel"
KINDS=$ALL_KINDS
C99="-std=c99 -Wall -Wextra -Wpedantic -Werror -Wshadow -I.."
CXX11="-std=c++11 -Wall -Wextra -Werror -I.."
# what strict C++ users turn on: cxx.cpp and the C++ examples build with it
CXX_STRICT="-Wall -Wextra -Wpedantic -Wconversion -Wold-style-cast -Wshadow -Wzero-as-null-pointer-constant -Werror -I.."
# nginx's clang flags (its auto/cc/clang: -O, the warnings, -Werror), and
# -Wcomma: a project that builds with them includes our headers (v2.3)
NGINX_CLANG="-O -Wall -Wextra -Wpointer-arith -Wconditional-uninitialized -Wzero-as-null-pointer-constant -Wno-unused-parameter -Wcomma -Werror -I.."
# nginx's gcc flags (its auto/cc/gcc; -Werror is its default) (v2.4)
NGINX_GCC="-pipe -O -W -Wall -Wpointer-arith -Wno-unused-parameter -Werror -g -I.."
# libevent's warnings, made errors by EVENT__ENABLE_GCC_WARNINGS (--enable-gcc-warnings):
# its CMakeLists.txt's and configure.ac's lists, split into what C and C++ take, what C
# alone takes, and what gcc alone knows (v2.4)
LIBEVENT_WARN="-O2 -Wall -W -Wextra -Wno-unused-parameter -Wstrict-aliasing -fno-strict-aliasing"
LIBEVENT_WARN="$LIBEVENT_WARN -Winit-self -Wmissing-field-initializers -Waddress -Wwrite-strings"
LIBEVENT_WARN="$LIBEVENT_WARN -Wfloat-equal -Wundef -Wpointer-arith -Wredundant-decls"
LIBEVENT_WARN="$LIBEVENT_WARN -Wchar-subscripts -Wcomment -Wformat -Wmissing-declarations"
LIBEVENT_WARN="$LIBEVENT_WARN -Wswitch-enum -Werror -I.."
LIBEVENT_C="-Wstrict-prototypes -Wmissing-prototypes -Wdeclaration-after-statement"
LIBEVENT_C="$LIBEVENT_C -Wnested-externs -Wbad-function-cast"
LIBEVENT_GCC_C="-Wnormalized=id -Woverride-init -Wlogical-op"
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all"
# abort_on_error: th_on_abort then prints the failing step after the report
ASAN_OPTIONS=abort_on_error=1
UBSAN_OPTIONS=abort_on_error=1:print_stacktrace=1
export ASAN_OPTIONS UBSAN_OPTIONS

# ---------------------------------------------------------------------------
# The registry: every test, one line each.
#
#   t NAME TIER NEEDS COMMAND [ARG...]
#     NAME     unique; names the PASS/FAIL line and build/log/NAME.log
#     TIER     test: in make test and make check; check: in make check only
#     NEEDS    tests registered above that must pass first, comma-separated
#              (a run needs its build), or -
#     COMMAND  run from test/ with its output in the log; exit 0 = pass. The
#              arguments are expanded here, so "$SEED" and "$STEPS" take the
#              tier's values. A program built by a test is at $B/PATH.
#              Helpers below: build, build_run, expect_abort, vg. A command
#              may write its own verdict lines ("PASS name", "FAIL name:
#              why") to $T_VERDICTS, each counted (the examples do); $T_OUT
#              is a prefix for its scratch files.
#
#   needs GROUP REASON PROBE...
#     the tests registered after it, up to the next `needs` (`needs -` ends
#     the block), run only if the command PROBE succeeds; otherwise they are
#     one line "SKIP GROUP (N tests): REASON". PROBE runs once, and only if
#     the tier has a test in the block.
#
# Order is priority: among the tests whose needs have passed, the one
# registered first starts first. Long chains come first (a suite's edge runs
# take the longest), so that both cores stay busy to the end.
registry() {
    # Build checks: every source with gcc and clang, warnings are errors.
    # gcc's passes over the sources are the longest builds: first, in four
    # parts that run side by side. make test keeps the part that calls every
    # function of every header (lockstep.c, two_tu, types, headers.c) at -O2,
    # where gcc's flow warnings live; each kind's test programs are built
    # there by clang (-Werror, under ASan) and by gcc in make check.
    # -Wnull-dereference too (v2.2): users build with it, and gcc's flow
    # analysis once took the set's always-present sibling for a maybe-NULL.
    t c99.gcc.all-sources.common    test  -  strict_all gcc common -O2 -Wnull-dereference -c -o /dev/null
    for part in $ALL_KINDS; do
        t c99.gcc.all-sources.$part check -  strict_all gcc $part -O2 -Wnull-dereference -c -o /dev/null
    done

    # The examples' own tests, with real sockets and threads; each of them
    # counts as one test (examples/Makefile). They mostly wait on timers, so
    # they run early, beside the longer builds.
    t examples                      test  -  examples_check

    # The suites (conformance, differential fuzz, exhaustive time edges) under
    # ASan + UBSan, with both compilers. make test uses one: clang, whose
    # sanitizer builds compile in about 60% of gcc's time (gcc if clang is
    # missing), and its quick form of the suite (suite_quick: conform at -O0,
    # the edges for the wheel alone; see suite).
    if have clang; then quick_san=clang; else quick_san=gcc; fi
    for c in clang gcc; do
        if [ "$c" = "$quick_san" ]; then c_tier=test; suite_quick=1; else c_tier=check; suite_quick=; fi
        needs "asan.$c.*" "$c not installed" have "$c"
        suite "$c_tier" "asan.$c" "$c" "$SAN_STEPS" $C99 -O1 -g $SAN
    done
    suite_quick=
    needs -

    # timer_containers.hpp, the C++ interface. The suites through it (built
    # as C++ with -DTK_CXX, harness.h calls the class templates) under ASan +
    # UBSan: conformance in make test, fuzz and edge in make check. cxx.cpp,
    # what C++ adds (RAII, the due range, chrono, events): built and run as
    # C++20 under ASan + UBSan (its events destroy events) and as C++11
    # without exceptions or RTTI in make test; -fsyntax-only at the other
    # standards with both compilers, with TIMER_DEBUG and at -O2 in make
    # check (make test with the C++ part merged into 2.2 went over a minute
    # on 2 busy cores: the syntax-only builds were its slowest C++ entries
    # that other builds stand for). make test builds its C++ at -O0:
    # templates compile in half the time. A node of the wrong kind must not
    # compile.
    if have clang++; then quick_cxx=clang++; else quick_cxx=g++; fi
    # (make test: the wheel's conformance through the shim, which is one for
    # every kind; cxx.cpp runs every kind's C++ calls)
    suite_progs=conform
    KINDS=wheel
    suite test c++.asan "$quick_cxx" "$SAN_STEPS" $CXX11 -O0 -g $SAN -x c++ -DTK_CXX
    KINDS="set heap"
    suite check c++.asan "$quick_cxx" "$SAN_STEPS" $CXX11 -O0 -g $SAN -x c++ -DTK_CXX
    KINDS=$ALL_KINDS
    suite_progs="edge fuzz"
    suite check c++.asan "$quick_cxx" "$SAN_STEPS" $CXX11 -O1 -g $SAN -x c++ -DTK_CXX
    suite_progs=
    # (make test: cxx.cpp as C++11 without exceptions or RTTI, its misuse
    # cases on that build: half the compile time of C++20 under ASan, which
    # make check runs)
    t c++.api.asan                  check -  build_run c++/api_asan "$quick_cxx" -std=c++20 $CXX_STRICT -O0 -g $SAN cxx.cpp
    t c++.api.no-exceptions         test  -  build_run c++/api_noexc g++ -std=c++11 $CXX_STRICT -O0 -fno-exceptions -fno-rtti cxx.cpp
    t c++.api.misuse                test  c++.api.no-exceptions  expect_abort "timer_heap_remove: the item is not in this heap (another heap holds it" "$B/c++/api_noexc" misuse
    t c++.api.hook-misuse           test  c++.api.no-exceptions  expect_abort "a hook ended while its item was pending or due" "$B/c++/api_noexc" hook-misuse
    t c++.api.o2                    check -  build_run c++/api_o2 g++ -std=c++14 $CXX_STRICT -O2 cxx.cpp
    t c++.api.debug                 check -  build_run c++/api_debug g++ -std=c++17 $CXX_STRICT -O1 -g -DTIMER_DEBUG cxx.cpp
    t c++.self-contained            test  -  cxx_self_contained g++
    for c in g++ clang++; do
        needs "c++*.$c.*" "$c not installed" have "$c"
        for std in 11 14 17 20; do
            # the two builds above stand for their own standard and compiler
            [ "$c$std" = g++11 ] || [ "$c$std" = "${quick_cxx}20" ] && continue
            t c++$std.$c.syntax-only check -  "$c" -std=c++$std $CXX_STRICT -fsyntax-only cxx.cpp
        done
        t c++.$c.wrong-node         test  -  cxx_wrong_node "$c"
        t c++.$c.event-moves        test  -  cxx_event_moves "$c"
    done
    needs -

    # Issue 20: every input known to make a container slow, at n and 8n,
    # judged by counted steps per operation (adversarial.c, through the
    # headers' step hooks), with a randomised generator of call sequences;
    # and the event and stall loops at 1M timers, the largest single call.
    # Plain -O2 builds: the counts are the test, and the loops' millions of
    # rounds would take minutes under ASan. make test runs the wheel's
    # inputs and loops, whose bound on one call is the one in question; the
    # set's and the heap's (O(log n) a call by structure, unchanged since
    # 2.2; the set's loops take 16 s of CPU) run in make check, all loops to
    # 2^24 + 2^20.
    for k in $ALL_KINDS; do
        if [ $k = wheel ]; then adv_tier=test; else adv_tier=check; fi
        t adversarial.build.$k      $adv_tier -  build adversarial/adversarial_$k "$CC" $C99 -O2 -DTK_$(upper $k) adversarial.c -lm
        t adversarial.loop.$k       $adv_tier adversarial.build.$k  "$B/adversarial/adversarial_$k" "$SEED" loop 1000000
        t adversarial.$k            $adv_tier adversarial.build.$k  "$B/adversarial/adversarial_$k" "$SEED" inputs
    done

    # Issue 26: the complexity fuzzer (fuzz/bound.c) hunts for one call of
    # the wheel over its bound per call. make test replays its corpus (issue
    # 26's inputs that broke 2.2.0) and searches for a few seconds; make
    # check replays the corpus with the real quantum too, searches longer,
    # and runs libFuzzer with -use_value_profile=1 from the corpus.
    t bound.build                   test  -  build bound/bound "$CC" $C99 -O2 -g -DFB_STANDALONE fuzz/bound.c
    t bound.corpus                  test  bound.build  "$B/bound/bound" fuzz/bound-corpus
    t bound.search                  test  bound.build  bound_search "$BOUND_TEST_SECONDS"
    t bound.build.real              check -  build bound/bound_real "$CC" $C99 -O2 -g -DFB_STANDALONE -DFB_ALLOWANCE=0 fuzz/bound.c
    t bound.corpus.real             check bound.build.real "$B/bound/bound_real" fuzz/bound-corpus
    needs "bound.libfuzzer*" "clang cannot build a libFuzzer target (Debian: clang, libclang-rt-14-dev; see test/build/fuzz/probe.log)" libfuzzer_works
    t bound.libfuzzer.build         check -  build bound/libfuzz_bound clang $C99 -O2 -g -fsanitize=fuzzer,undefined -fno-sanitize-recover=all fuzz/bound.c
    t bound.libfuzzer               check bound.libfuzzer.build  bound_libfuzzer "$BOUND_FUZZ_SECONDS"
    needs -

    t c99.gcc.self-contained        test  -  self_contained gcc
    t c99.gcc.unused-functions      test  -  unused gcc
    t c99.gcc.wconversion           test  -  wconversion gcc
    t c99.gcc.two-tu                test  -  two_tu gcc
    t c++11.g++                     test  -  cxx g++
    needs "c99.clang.*" "clang not installed" have clang
    # clang emits these warnings from its front end (unlike gcc, whose
    # -O2 passes find more), so -fsyntax-only gives make test the same
    # diagnostics in a tenth of the time of -O2 -c.
    t c99.clang.syntax-only         test  -  strict_all clang all -fsyntax-only -Wconditional-uninitialized -Wcomma
    t c99.clang.nginx-flags         test  -  nginx_flags clang
    t c99.clang.all-sources         check -  strict_all clang all -O2 -c -o /dev/null
    t c99.clang.unused-functions    test  -  unused clang
    t c99.clang.wconversion         test  -  wconversion clang
    t c99.clang.two-tu              check -  two_tu clang
    needs c++11.clang++ "clang++ not installed" have clang++
    t c++11.clang++                 check -  cxx clang++
    needs -

    # The README's example, as pasted, with each container's -D switch, as C
    # and as C++: all six print the output shown there (contract v2: the
    # same calls give the same results whichever container).
    t readme.example                test  -  readme_example

    # The three containers driven by the same random calls must agree on every
    # call (lockstep.c): millions of calls in make check, fewer in make test.
    # (make test: clang at -O0, which compiles the three kinds in a fifth of
    # the time -O1 takes and runs the million steps in 3 s)
    if [ "$TIER" = test ]; then ls_cc="$quick_san -O0"; else ls_cc="$CC -O1"; fi
    t lockstep.build.asan           test  -  build lockstep/lockstep_asan $ls_cc $C99 -g $SAN lockstep.c
    if [ "$TIER" = test ]; then ls_san=1000000; else ls_san=5000000; fi
    t lockstep.asan                 test  lockstep.build.asan  "$B/lockstep/lockstep_asan" "$SEED" "$ls_san"
    t lockstep.build                check -  build lockstep/lockstep "$CC" $C99 -O2 -g lockstep.c
    t lockstep                      check lockstep.build       "$B/lockstep/lockstep" "$SEED" 40000000

    # Issues 27 and 31: timer_service.h, timers from any thread
    # (service_test.c): every call's results and errors; the missed-tick
    # policies on a clock that jumps an hour; deterministic interleavings
    # (the service's lock, wait, wake and atomic points are yield points of
    # a small scheduler on a virtual clock, which runs every schedule with up
    # to 1 preemption, 2 in make check), issue 31's input among them; the
    # ledger stress of 2 to 16 threads sharing timers on 1, 2 and 4 shards,
    # references counted from results and callbacks only, with every shard's
    # history replayed against a model. Under ASan + UBSan
    # and ThreadSanitizer (clang). make test builds at -O0 (a quarter of
    # -O1's build time) and runs short; make check adds -O1 and gcc -O2
    # builds and the long runs. And the header alone: strict C99 with both
    # compilers, C++11, its top example built and run.
    needs "service.*" "clang not installed (Debian: clang, libclang-rt-14-dev; in .ci/packages)" have clang
    t service.header                test  -  service_header
    t service.build.asan            test  -  build service/asan clang $C99 -O0 -g $SAN -pthread service_test.c
    t service.api.asan              test  service.build.asan  "$B/service/asan" "$SEED" api
    t service.policies.asan         test  service.build.asan  "$B/service/asan" "$SEED" policies
    t service.sched.asan            test  service.build.asan  "$B/service/asan" "$SEED" sched 1
    t service.stress.asan           test  service.build.asan  "$B/service/asan" "$SEED" stress set,heap,wheel 1,2,4 4 2000 threads
    t service.stress-loop.asan      test  service.build.asan  "$B/service/asan" "$SEED" stress set,heap,wheel 1,4 3 2000 loop
    t service.build.tsan            test  -  build service/tsan clang $C99 -O0 -g -fsanitize=thread -pthread service_test.c
    t service.stress.tsan           test  service.build.tsan  tsan_run "$B/service/tsan" "$SEED" stress set,heap,wheel 1,2,4 4 2000 threads
    t service.stress-loop.tsan      test  service.build.tsan  tsan_run "$B/service/tsan" "$SEED" stress set,heap,wheel 1,4 3 2000 loop
    # timer_service.hpp (service_cxx.cpp): RAII services and timers, callables,
    # chrono, the destructor that is shutdown_sync; C++11 with g++ and neither
    # exceptions nor RTTI in make test; C++20 under ASan + UBSan with clang++
    # (the slowest build of these: 3 s) and TSan in make check.
    t service.c++.asan              check -  build_run service/cxx_asan clang++ -std=c++20 $CXX_STRICT -O0 -g $SAN -pthread service_cxx.cpp
    t service.c++11.no-exceptions   test  -  build_run service/cxx11 g++ -std=c++11 $CXX_STRICT -O0 -fno-exceptions -fno-rtti -pthread service_cxx.cpp
    t service.c++.tsan              check -  tsan_build_run service/cxx_tsan clang++ -std=c++17 $CXX_STRICT -O1 -g -fsanitize=thread -pthread service_cxx.cpp
    t service.build.asan-o1         check -  build service/asan_o1 clang $C99 -O1 -g $SAN -pthread service_test.c
    t service.sched.check           check service.build.asan-o1  "$B/service/asan_o1" "$SEED" sched 2
    t service.stress.check.asan     check service.build.asan-o1  "$B/service/asan_o1" "$SEED" stress set,heap,wheel 1,2,4 16 100000 threads
    t service.stress-2.check.asan   check service.build.asan-o1  "$B/service/asan_o1" "$SEED" stress set,heap,wheel 1,2,4 2 100000 threads
    t service.stress-loop.check.asan check service.build.asan-o1  "$B/service/asan_o1" "$SEED" stress set,heap,wheel 1,2,4 8 100000 loop
    t service.build.tsan-o1         check -  build service/tsan_o1 clang $C99 -O1 -g -fsanitize=thread -pthread service_test.c
    t service.stress.check.tsan     check service.build.tsan-o1  tsan_run "$B/service/tsan_o1" "$SEED" stress set,heap,wheel 1,2,4 16 20000 threads
    t service.stress-loop.check.tsan check service.build.tsan-o1  tsan_run "$B/service/tsan_o1" "$SEED" stress set,heap,wheel 1,2,4 8 20000 loop
    t service.sched.tsan            check service.build.tsan-o1  tsan_run "$B/service/tsan_o1" "$SEED" sched 1
    t service.policies.tsan         check service.build.tsan-o1  tsan_run "$B/service/tsan_o1" "$SEED" policies
    needs -
    t service.build.gcc             check -  build service/gcc gcc $C99 -O2 -pthread service_test.c
    t service.api.gcc               check service.build.gcc  "$B/service/gcc" "$SEED" api
    t service.sched.gcc             check service.build.gcc  "$B/service/gcc" "$SEED" sched 2
    t service.stress.gcc            check service.build.gcc  "$B/service/gcc" "$SEED" stress set,heap,wheel 1,2,4 4 100000 threads

    # TIMER_DEBUG: misuse aborts with a message before anything changes
    # (debug.c), and correct use, the randomised test, aborts nothing. The
    # same misuse in a plain build with asserts (v2.1: a container of the
    # same kind that does not hold the item; a tlist_foreach body that takes
    # out an item already walked; v2.2: insert of a due item), and with
    # -DNDEBUG (v2.2: what an O(1) check tells is refused, nothing changes;
    # every tlist_foreach body ends or goes on, none hangs or crashes).
    for k in $ALL_KINDS; do
        t asserts.$k                test  -  build_run debug/asserts_$k "$CC" $C99 -O1 -g -DTK_$(upper $k) debug.c
        t ndebug.$k                 test  -  build_run debug/ndebug_$k "$CC" $C99 -O1 -g -DNDEBUG -DTK_$(upper $k) debug.c
        t debug.$k                  test  -  build_run debug/debug_$k "$CC" $C99 -O1 -g -DTIMER_DEBUG -DTK_$(upper $k) debug.c
        t debug.build.fuzz.$k       check -  build debug/fuzz_$k "$CC" $C99 -O1 -g -DTIMER_DEBUG -DTK_$(upper $k) fuzz.c
        t debug.fuzz.$k             check debug.build.fuzz.$k  "$B/debug/fuzz_$k" "$SEED" 200000
    done
    # v2.4: insert of an item whose links are not this container's says so,
    # in the words below, not that the item is due: one pending in another
    # container of its kind, one another list took (idle, then pushed on a
    # list of the program's), one a result list inited again left stale. A
    # due one is still named due. (One case of the asserts build each, run
    # alone: `debug_KIND CASE`.)
    ins_other="timer_containers: tc_insert: the item's links are not this container's (it is"
    ins_other="$ins_other pending in another one, or another list reused its node, or its links"
    ins_other="$ins_other are stale): insert arms nothing (-EBUSY); take it out of that list, or"
    ins_other="$ins_other zero the node if nothing links it any more"
    ins_due="timer_containers: tc_insert: the item is due (popped, still in a result list):"
    ins_due="$ins_due re-arm it with tc_reschedule, or take each item off the list first"
    ins_due="$ins_due (tlist_drain)"
    for k in $ALL_KINDS; do
        for c in insert_foreign insert_reused insert_stale insert_due; do
            if [ $c = insert_due ]; then ins_msg=$ins_due; else ins_msg=$ins_other; fi
            t asserts.$c.$k     test asserts.$k  expect_abort "$ins_msg" "$B/debug/asserts_$k" $c
        done
    done

    # v2.2: a DEFINE that cannot work stops at compile time, its first error
    # naming the fix: the node type the member must be, or the _NAMED form.
    t define-errors.gcc             test  -  define_errors gcc
    needs define-errors.clang "clang not installed" have clang
    t define-errors.clang           test  -  define_errors clang
    needs -

    # A public header with the types and no function (TIMER_TYPES_ONLY), and
    # the one file that brings the functions in, as C and as C++.
    t types-only.c                  test  -  build_run types/types_c "$CC" $C99 -O2 types_a.c types_b.c
    t types-only.c++                test  -  build_run types/types_cxx g++ $CXX11 -O2 -x c++ types_a.c types_b.c
    # v2.1: and it changes nothing for the code that includes it: no bool,
    # no macro without the library's prefixes.
    t types-only.own-bool           test  -  build_run types/types_bool "$CC" $C99 -O2 types_bool.c
    t types-only.macros             test  -  types_macros "$CC"

    # v2.3: the functions compiled once, in one file (DECLARE everywhere,
    # IMPLEMENT in one): the wrappers are the same for every kind, so make
    # test builds the wheel's, make check all three.
    for k in $ALL_KINDS; do
        if [ $k = wheel ]; then dt_tier=test; else dt_tier=check; fi
        t declare.$k                $dt_tier -  declare_test $k
    done
    # and what it saves: the text of 20 files that call insert and remove,
    # DEFINE in each against DECLARE + one IMPLEMENT (docs/big-programs.md)
    t declare.text-size             check -  env CC="$CC" sh declare/text_size.sh "$B/declare/text-size"

    # v2.3: a dropped result that reports an error warns, in C and C++;
    # v2.4: and a (void) cast is all it takes to drop one, under nginx's and
    # libevent's -Werror flags.
    t nodiscard.gcc                 test  -  nodiscard gcc
    # (make test: gcc at C11, nginx's default, and C++11, the modes where
    # gcc takes [[nodiscard]] as an extension: its builds take half a second
    # each; make check: every mode)
    t nodiscard.void-casts.gcc      test  -  void_casts gcc c11 c++11
    t nodiscard.void-casts.gcc-all  check -  void_casts gcc
    needs nodiscard.clang "clang not installed" have clang
    t nodiscard.clang               check -  nodiscard clang
    t nodiscard.void-casts.clang    test  -  void_casts clang
    needs -

    # v2.2: two versions in one translation unit stop at the second's first
    # line, naming both (a copy of the headers faked to another version by
    # pkg/set_version.sh, the way a release bumps it).
    t version-clash.gcc             test  -  version_clash gcc
    needs version-clash.clang "clang not installed" have clang
    t version-clash.clang           test  -  version_clash clang
    needs -

    # The man pages (man/*.3, v2.2): each renders without a warning, names
    # every generated function and macro of its header, and its example
    # compiles (C99, warnings are errors) and runs.
    needs man-pages "man (man-db) or groff not installed (Debian: man-db, in .ci/packages)" have man
    t man-pages                     test  -  man_pages
    needs -

    # timer_containers.h, the five headers in one file: the committed copy is
    # what make single-header makes of the headers now, and through it alone
    # every DEFINE form compiles and the types-only pair works, as C and C++.
    t single-header.fresh           test  -  single_header_fresh
    t single-header.c99             test  -  single_header c "$CC" $C99
    t single-header.c++11           test  -  single_header cxx g++ $CXX11 -x c++

    # Every way of consuming the library (test/pkg.sh): make install and
    # pkg-config, find_package after cmake --install, add_subdirectory,
    # FetchContent, a meson subproject; identical install trees; one version.
    needs "pkg.*" "cmake, meson, ninja or pkg-config missing (Debian: cmake meson ninja-build pkg-config, in .ci/packages)" pkg_tools
    # (make test: make install with its man pages and the versions; the
    # others configure a project of their own or build a second install
    # tree: make check)
    for r in make-install pkg-config find_package add_subdirectory fetchcontent meson layout version; do
        case $r in make-install | version) r_tier=test ;; *) r_tier=check ;; esac
        t pkg.$r                    $r_tier -  sh pkg.sh $r "$PWD/$B/pkg/$r"
    done
    needs -

    # make check from here on.
    # The suites in the plain builds, then for portability: 32-bit, the most
    # and the least optimised builds, the bit scans' plain C fallback, and
    # the heap's other arity (a user option; default 8).
    suite check cc "$CC" "$STEPS" $C99 -O2 -g
    suite check ndebug "$CC" "$STEPS" $C99 -O2 -DNDEBUG
    suite check o3-native "$CC" "$PORT_STEPS" $C99 -O3 -march=native
    suite check o0 "$CC" "$PORT_STEPS" $C99 -O0 -g
    suite check no-builtins "$CC" "$PORT_STEPS" $C99 -O2 -g -DTBITMAP_NO_BUILTINS
    KINDS=heap
    suite check heap-arity2 "$CC" "$PORT_STEPS" $C99 -O2 -g -DTIMER_HEAP_ARITY=2
    KINDS=$ALL_KINDS
    needs "m32.*" "gcc -m32 cannot build a trivial program here (Debian: gcc-multilib, listed in .ci/packages)" m32_works
    suite check m32 gcc "$PORT_STEPS" $C99 -O2 -g -m32
    t bitmap.m32.builtins           check -  bitmap_unit m32_builtins -m32
    t bitmap.m32.no-builtins        check -  bitmap_unit m32_no_builtins -m32 -DTBITMAP_NO_BUILTINS
    needs -
    t bitmap.builtins               check -  bitmap_unit builtins
    t bitmap.no-builtins            check -  bitmap_unit no_builtins -DTBITMAP_NO_BUILTINS

    # The fuzz target's standalone replay of the committed seed corpus (ASan +
    # UBSan; the plain build is for valgrind), then libFuzzer for a few
    # seconds per kind (make fuzz runs it for FUZZ_SECONDS).
    for k in $KINDS; do
        t fuzz-replay.build.$k      check -  build replay/replay_$k "$CC" $C99 -O1 -g $SAN -DFZ_STANDALONE -DTK_$(upper $k) fuzz/target.c
        t fuzz-replay.build.plain.$k check - build replay/replay_plain_$k "$CC" $C99 -O2 -g -DFZ_STANDALONE -DTK_$(upper $k) fuzz/target.c
        t fuzz-replay.seeds.$k      check fuzz-replay.build.$k  "$B/replay/replay_$k" fuzz/corpus/$k
    done
    needs "libfuzzer.*" "clang cannot build a libFuzzer target (Debian: clang, libclang-rt-14-dev; see test/build/fuzz/probe.log)" libfuzzer_works
    for k in $KINDS; do
        t libfuzzer.build.$k        check -  sh fuzz/fuzz.sh build $k
        t libfuzzer.$k              check libfuzzer.build.$k  libfuzzer_run $k
    done
    needs -

    # make bench-instructions' driver (bench/instr.c), run natively over a
    # few thousand timers: it checks every phase's results and exits non-zero
    # on a wrong one, so the counts it gives under callgrind are of correct
    # runs (the counts themselves need valgrind: make bench-instructions); and
    # compiled as C++, through timer_containers.hpp; and the events' driver.
    for k in floor $ALL_KINDS; do
        t bench-instr.build.$k      check -  build instr/instr_$k "$CC" $C99 -O2 -DNDEBUG -I../bench -DINSTR_$(upper $k) ../bench/instr.c -lm
        t bench-instr.$k            check bench-instr.build.$k  "$B/instr/instr_$k" --n 3000 --conns 1000
    done
    for k in $ALL_KINDS; do
        t bench-instr.build.cxx_$k  check -  build instr/instr_cxx_$k g++ $CXX11 -Wpedantic -O2 -DNDEBUG -I../bench -x c++ -DINSTR_CXX -DINSTR_$(upper $k) ../bench/instr.c -lm
        t bench-instr.cxx_$k        check bench-instr.build.cxx_$k  "$B/instr/instr_cxx_$k" --n 3000 --conns 1000
    done
    t bench-instr.build.events      check -  build instr/instr_events g++ -std=c++11 $CXX_STRICT -O2 -DNDEBUG ../bench/instr_events.cpp
    t bench-instr.events            check bench-instr.build.events  "$B/instr/instr_events" --n 3000

    # The soak, short (make soak runs 10 million timers per round), and
    # smaller still under valgrind memcheck, with the seed corpus there too.
    for k in $KINDS; do
        t soak.build.$k             check -  build soak/soak_$k "$CC" $C99 -O2 -g -DTK_$(upper $k) soak.c
        t soak.short.$k             check soak.build.$k  "$B/soak/soak_$k" "$SEED" 1000000 100000 0
    done
    needs "valgrind.*" "valgrind not installed (Debian: valgrind, listed in .ci/packages)" have valgrind
    for k in $KINDS; do
        t valgrind.soak.$k          check soak.build.$k  vg "$B/soak/soak_$k" "$SEED" 300000 30000 0
        t valgrind.fuzz-seeds.$k    check fuzz-replay.build.plain.$k  vg "$B/replay/replay_plain_$k" fuzz/corpus/$k
    done
    needs -
}

# suite TIER CONFIG COMPILER STEPS FLAGS...: conform, fuzz and edge (or the
# programs in $suite_progs) for each kind in $KINDS: CONFIG.build.PROG.KIND
# builds $B/CONFIG/PROG_KIND, and CONFIG.PROG.KIND runs it (fuzz with STEPS
# steps). Edge first: its runs are the longest. With suite_quick set (make
# test's ASan suite) conform builds at -O0 and edge is the wheel's alone in
# TIER, the other kinds' in make check.
suite() {
    s_tier=$1
    s_cfg=$2
    s_cc=$3
    s_steps=$4
    shift 4
    for p in ${suite_progs:-edge fuzz conform}; do
        for k in $KINDS; do
            p_tier=$s_tier
            p_opt=
            if [ -n "${suite_quick:-}" ]; then
                # conform compiles in a quarter of the time at -O0 and still
                # runs in a second; the edges are the wheel's level
                # boundaries: the set's and the heap's go to make check
                [ $p = conform ] && p_opt=-O0
                [ $p = edge ] && [ $k != wheel ] && p_tier=check
            fi
            t "$s_cfg.build.$p.$k" "$p_tier" - build "$s_cfg/${p}_$k" "$s_cc" "$@" $p_opt -DTK_$(upper $k) $p.c
            if [ $p = fuzz ]; then
                t "$s_cfg.$p.$k" "$p_tier" "$s_cfg.build.$p.$k" "$B/$s_cfg/${p}_$k" "$SEED" "$s_steps"
            elif [ $p = edge ] && [ "$TIER" = test ]; then
                t "$s_cfg.$p.$k" "$p_tier" "$s_cfg.build.$p.$k" "$B/$s_cfg/${p}_$k" quick
            else
                t "$s_cfg.$p.$k" "$p_tier" "$s_cfg.build.$p.$k" "$B/$s_cfg/${p}_$k"
            fi
        done
    done
}

# ---------------------------------------------------------------------------
# The commands that tests run (beyond plain programs) and the probes.

have() {
    command -v "$1" >/dev/null 2>&1
}

upper() {
    echo "$1" | tr 'a-z' 'A-Z'
}

# build OUT COMPILER ARGS...: compile into $B/OUT.
build() {
    b_out=$B/$1
    b_cc=$2
    shift 2
    mkdir -p "${b_out%/*}" && "$b_cc" "$@" -o "$b_out"
}

# build_run OUT COMPILER ARGS...: compile into $B/OUT, then run it.
build_run() {
    build "$@" && "$B/$1"
}

# strict_all COMPILER PART FLAGS...: the C sources of the suite with one
# compiler and FLAGS (objects thrown away), one after the other (the job pool
# runs other tests beside it). PART: all, common (what every kind shares), or
# one kind (its programs).
strict_all() {
    sa_cc=$1
    sa_part=$2
    shift 2
    if [ "$sa_part" = all ] || [ "$sa_part" = common ]; then
        for f in headers.c two_tu_a.c two_tu_b.c bitmap_test.c lockstep.c types_a.c types_b.c types_bool.c; do
            echo "$sa_cc $f" && $sa_cc $C99 "$@" $f || return 1
        done
    fi
    for k in $ALL_KINDS; do
        [ "$sa_part" = all ] || [ "$sa_part" = "$k" ] || continue
        for p in conform fuzz edge soak adversarial; do
            echo "$sa_cc $p.c ($k)" && $sa_cc $C99 "$@" -DTK_$(upper $k) $p.c || return 1
        done
        echo "$sa_cc debug.c ($k)" && $sa_cc $C99 "$@" -DTIMER_DEBUG -DTK_$(upper $k) debug.c || return 1
        echo "$sa_cc debug.c, asserts ($k)" && $sa_cc $C99 "$@" -DTK_$(upper $k) debug.c || return 1
        echo "$sa_cc fuzz/target.c ($k)" && $sa_cc $C99 "$@" -DTK_$(upper $k) -DFZ_STANDALONE fuzz/target.c || return 1
    done
}

# Each header compiles alone: it includes what it uses. timer_containers.h
# stands for all five, so it reads no other header of ours (-MM lists the
# headers read, less the system's).
self_contained() {
    for h in list bitmap timer_set timer_heap timer_wheel timer_set_types timer_heap_types timer_wheel_types \
        timer_containers; do
        echo "#include \"$h.h\"" | $1 $C99 -x c -c -o /dev/null - || return 1
    done
    sc_read=$(echo '#include "timer_containers.h"' | $1 $C99 -x c -MM - | tr ' \\' '\n\n' | grep '\.h$')
    [ "$sc_read" = ../timer_containers.h ] || { echo "timer_containers.h reads other headers:" $sc_read; return 1; }
}

# The committed timer_containers.h is what make single-header makes of the
# headers as they are.
single_header_fresh() {
    mkdir -p "$B/single-header" &&
        sh ../pkg/single_header.sh "$B/single-header/timer_containers.h" || return 1
    cmp "$B/single-header/timer_containers.h" ../timer_containers.h ||
        { echo "timer_containers.h is stale: run make single-header"; return 1; }
}

# single_header NAME COMPILER FLAGS...: headers.c (every DEFINE form) through
# timer_containers.h alone, and the types-only pair through it, built and run.
single_header() {
    sh_name=$1
    sh_cc=$2
    shift 2
    $sh_cc "$@" -DUSE_SINGLE_HEADER -O2 -c -o /dev/null headers.c &&
        build_run "single-header/types_$sh_name" "$sh_cc" "$@" -DUSE_SINGLE_HEADER -O2 types_a.c types_b.c
}

# define_errors COMPILER: each DEFINE mistake, in C99 and C11, must fail to
# compile, and its first error must name the fix (the expected node type, or
# the _NAMED form); a correct DEFINE of every kind compiles. The mistakes: a
# member of another container's node type, `struct X` as the short form's
# type, a type named timer.
define_errors() {
    de_dir=$B/define-errors/$1
    mkdir -p "$de_dir" || return 1
    de_pre='#include "timer_containers.h"
typedef struct conn { int fd; struct timer_set_node ts; struct timer_heap_node th; struct timer_wheel_node tw; } conn;
typedef struct timer { struct timer_set_node ts; struct timer_heap_node th; struct timer_wheel_node tw; } timer;'
    for de_std in c99 c11; do
        for de_case in "TIMER_SET_DEFINE(conn, tw)|struct timer_set_node|timer_set_node" \
            "TIMER_HEAP_DEFINE_NAMED(h, conn, ts)|struct timer_heap_node|timer_heap_node" \
            "TIMER_WHEEL_DEFINE(conn, th)|struct timer_wheel_node|timer_wheel_node" \
            "TIMER_SET_DEFINE(struct conn, ts)|_DEFINE_NAMED|_DEFINE_NAMED" \
            "TIMER_HEAP_DEFINE(struct conn, th)|_DEFINE_NAMED|_DEFINE_NAMED" \
            "TIMER_WHEEL_DEFINE(timer, tw)|TIMER_WHEEL_DEFINE_NAMED|TIMER_WHEEL_DEFINE_NAMED" \
            "TIMER_SET_DEFINE(timer, ts)|TIMER_SET_DEFINE_NAMED|TIMER_SET_DEFINE_NAMED"; do
            de_define=${de_case%%|*}
            de_want=${de_case#*|}
            de_want99=${de_want#*|}
            de_want=${de_want%|*}
            [ "$de_std" = c99 ] && de_want=$de_want99
            printf '%s\n%s\n' "$de_pre" "$de_define" >"$de_dir/case.c"
            if $1 -std=$de_std -Wall -Wextra -Wpedantic -Werror -I.. -fsyntax-only "$de_dir/case.c" \
                >"$de_dir/out.txt" 2>&1; then
                echo "$1 -std=$de_std: $de_define compiled"
                return 1
            fi
            de_first=$(grep -m1 'error:' "$de_dir/out.txt")
            echo "$de_std $de_define: $de_first"
            case $de_first in
            *"$de_want"*) ;;
            *) echo "  the first error does not name $de_want"; return 1 ;;
            esac
        done
        printf '%s\nTIMER_SET_DEFINE(conn, ts)\nTIMER_HEAP_DEFINE(conn, th)\nTIMER_WHEEL_DEFINE(conn, tw)\nTIMER_WHEEL_DEFINE_NAMED(tw, timer, tw)\n' \
            "$de_pre" >"$de_dir/good.c"
        $1 -std=$de_std -Wall -Wextra -Wpedantic -Werror -I.. -fsyntax-only "$de_dir/good.c" || return 1
    done
}

# nodiscard COMPILER: a dropped result that reports an error warns (v2.3,
# TIMER_NODISCARD): nodiscard/mistakes.c as C99 (warn_unused_result) and
# C2x ([[nodiscard]]), nodiscard/mistakes.cpp as C++11 (the attribute; 14
# takes the same path) and 17 ([[nodiscard]]), each with -Werror: every
# line marked MISTAKE, and no other, has an error for its unused result.
# With TIMER_NODISCARD defined empty, both compile clean (C99, C++11).
nodiscard() {
    nd_cxx=${1%cc}++
    for nd_case in "$1 -std=c99 -x c" "$1 -std=c2x -x c" "$nd_cxx -std=c++11 -x c++" "$nd_cxx -std=c++17 -x c++"; do
        case $nd_case in *c++) nd_src=nodiscard/mistakes.cpp ;; *) nd_src=nodiscard/mistakes.c ;; esac
        # shellcheck disable=SC2086 # the words are the compiler and its flags
        # gcc leaves the warning to its code generation (unless the result is a class); clang warns in its front end
        case $nd_case in gcc* | g++*) nd_only="-c -o /dev/null" ;; *) nd_only=-fsyntax-only ;; esac
        # shellcheck disable=SC2086
        $nd_case -Wall -Wextra -Werror -I.. $nd_only "$nd_src" >"$T_OUT.out" 2>&1 &&
            { echo "$nd_case: $nd_src compiled"; return 1; }
        nd_got=$(unused_results "$nd_src" "$T_OUT.out")
        nd_want=$(marked_lines "$nd_src" MISTAKE)
        echo "$nd_case: unused-result errors at lines $nd_got"
        [ "$nd_got" = "$nd_want" ] || { cat "$T_OUT.out"; echo "  want lines $nd_want"; return 1; }
        case $nd_case in *c99* | *c++11*)
            # shellcheck disable=SC2086
            $nd_case -Wall -Wextra -Werror -DTIMER_NODISCARD= -I.. $nd_only "$nd_src" ||
                { echo "  with TIMER_NODISCARD empty it does not compile"; return 1; } ;;
        esac
    done
}

# unused_results SRC LOG: the lines of SRC that LOG (a compiler's output)
# has an unused-result error at, in order, one each, space-separated.
unused_results() {
    sed -n "s|^$1:\([0-9]*\):[0-9]*: error: .*unused.result.*|\1|p" "$2" | sort -un | tr '\n' ' '
}

# marked_lines SRC MARK: the lines of SRC with the comment MARK on them.
marked_lines() {
    grep -nE "(/[*]|//) $2" "$1" | cut -d: -f1 | tr '\n' ' '
}

# void_casts COMPILER [STD...] (v2.4): nodiscard/void_casts.c, the (void)
# casts of an nginx or libevent port before insert, the reschedules and
# reserve of every kind, compiles clean with nginx's flags (NGINX_GCC or
# NGINX_CLANG) and libevent's (LIBEVENT_*), as each STD (default: C99, C11,
# C2x, C++11 and C++17; C++ with the flags it takes). Without the casts
# (-DVC_CAST=) every line marked DROPPED, and no other, is an unused-result
# error under nginx's flags: the mark is there, and (void) silences it.
void_casts() {
    vc_c=$1
    shift
    vc_src=nodiscard/void_casts.c
    # gcc warns of an unused result as it generates code, clang in its front end
    case $vc_c in
    gcc) vc_nginx=$NGINX_GCC vc_only="-c -o /dev/null" ;;
    *) vc_nginx=$NGINX_CLANG vc_only=-fsyntax-only ;;
    esac
    vc_want=$(marked_lines $vc_src DROPPED)
    for vc_std in ${*:-c99 c11 c2x c++11 c++17}; do
        case $vc_c.$vc_std in
        *.c++*) vc_cc="${vc_c%cc}++ -x c++" vc_libevent=$LIBEVENT_WARN ;;
        gcc.*) vc_cc="gcc -x c" vc_libevent="$LIBEVENT_WARN $LIBEVENT_C $LIBEVENT_GCC_C" ;;
        *) vc_cc="$vc_c -x c" vc_libevent="$LIBEVENT_WARN $LIBEVENT_C" ;;
        esac
        for vc_flags in "$vc_nginx" "$vc_libevent"; do
            echo "$vc_cc -std=$vc_std $vc_flags: clean"
            # shellcheck disable=SC2086 # the words are the compiler and its flags
            $vc_cc -std=$vc_std $vc_flags $vc_only $vc_src || return 1
        done
        # shellcheck disable=SC2086
        $vc_cc -std=$vc_std $vc_nginx -DVC_CAST= $vc_only $vc_src >"$T_OUT.out" 2>&1 &&
            { echo "$vc_cc -std=$vc_std: without the casts it compiled"; return 1; }
        vc_got=$(unused_results $vc_src "$T_OUT.out")
        echo "$vc_cc -std=$vc_std, without the casts: unused-result errors at lines $vc_got"
        [ "$vc_got" = "$vc_want" ] || { cat "$T_OUT.out"; echo "  want lines $vc_want"; return 1; }
    done
}

# declare_test KIND: the DECLARE/IMPLEMENT forms (v2.3) as a big program
# uses them (declare/): declare_a.c holds the definitions, declare_b.c the
# prototypes alone; built with -Wmissing-prototypes and -Wredundant-decls,
# they link and run; nm finds insert and remove defined in declare_a.o and
# only called from declare_b.o, which defines no function of the container;
# and declare_b.c built as C++ links with the C declare_a.o and runs.
declare_test() {
    dt_d=$B/declare/$1
    dt_flags="$C99 -Wmissing-prototypes -Wredundant-decls -DTK_$(upper "$1") -O2"
    mkdir -p "$dt_d" &&
        "$CC" $dt_flags -c -o "$dt_d/a.o" declare/declare_a.c &&
        "$CC" $dt_flags -c -o "$dt_d/b.o" declare/declare_b.c &&
        "$CC" -o "$dt_d/ab" "$dt_d/a.o" "$dt_d/b.o" && "$dt_d/ab" || return 1
    for dt_fn in dc_insert dc_remove; do
        nm "$dt_d/a.o" | grep -q " T $dt_fn\$" || { echo "declare_a.o does not define $dt_fn"; return 1; }
        nm "$dt_d/b.o" | grep -q " U $dt_fn\$" || { echo "declare_b.o does not call $dt_fn"; return 1; }
    done
    dt_own=$(nm "$dt_d/b.o" | grep -E ' [TtWw] (dc_|timer_)')
    [ -z "$dt_own" ] || { echo "declare_b.o has copies of its own:"; echo "$dt_own"; return 1; }
    echo "nm: dc_insert and dc_remove are defined in declare_a.o alone; declare_b.o defines none"
    g++ $CXX11 -Wredundant-decls -DTK_$(upper "$1") -O2 -x c++ -c -o "$dt_d/b_cxx.o" declare/declare_b.c &&
        g++ -o "$dt_d/ab_cxx" "$dt_d/a.o" "$dt_d/b_cxx.o" && "$dt_d/ab_cxx"
}

# version_clash COMPILER: a copy of the headers (and its single file) set
# to another version by pkg/set_version.sh, included before or after ours,
# in the split form, the single file or the .hpp (as C++, with COMPILER's
# C++ compiler): compiling stops, and the first error is at the second
# copy's list.h (or single file) and names both versions. The same version
# twice (another copy, unchanged) compiles.
version_clash() {
    vc_dir=$B/version-clash/$1
    rm -rf "$vc_dir" && mkdir -p "$vc_dir/other" "$vc_dir/same" || return 1
    vc_ours=$(sed -n 's/^#define TIMER_VERSION "\(.*\)"$/\1/p' ../list.h)
    vc_other=9.8.7
    mkdir -p "$vc_dir/other/pkg" && cp ../pkg/single_header.sh "$vc_dir/other/pkg/" &&
        cp ../*.h ../*.hpp ../meson.build "$vc_dir/other/" && cp ../*.h ../*.hpp "$vc_dir/same/" &&
        sh ../pkg/set_version.sh "$vc_other" "$vc_dir/other" &&
        sh "$vc_dir/other/pkg/single_header.sh" "$vc_dir/other/timer_containers.h" || return 1
    for vc_case in "other/timer_wheel.h|$PWD/../timer_heap.h|$vc_ours (this header) and $vc_other" \
        "$PWD/../timer_set.h|other/timer_wheel_types.h|$vc_other (this header) and $vc_ours" \
        "other/timer_containers.h|$PWD/../timer_containers.h|$vc_ours (this header) and $vc_other" \
        "$PWD/../timer_containers.h|other/list.h|$vc_other (this header) and $vc_ours" \
        "other/timer_containers.hpp|$PWD/../timer_containers.hpp|$vc_ours (this header) and $vc_other"; do
        vc_first=${vc_case%%|*}
        vc_rest=${vc_case#*|}
        vc_second=${vc_rest%%|*}
        vc_want=${vc_rest#*|}
        # the .hpp as C++ (g++ for gcc, clang++ for clang)
        case $vc_first in *.hpp) vc_cc="${1%cc}++ -std=c++11 -x c++" ;; *) vc_cc="$1 -std=c99" ;; esac
        printf '#include "%s"\n#include "%s"\nint main(void) { return 0; }\n' "$vc_first" "$vc_second" >"$vc_dir/case.c"
        if $vc_cc -Wall -Wextra -Wpedantic -I"$vc_dir" -fsyntax-only "$vc_dir/case.c" >"$vc_dir/out.txt" 2>&1; then
            echo "$vc_first then $vc_second compiled"
            return 1
        fi
        vc_error=$(grep -m1 'error:' "$vc_dir/out.txt")
        echo "$vc_first then $vc_second: $vc_error"
        case $vc_error in
        *"version $vc_want (included before) in one translation unit"*) ;;
        *) echo "  the first error does not name both versions ($vc_want)"; return 1 ;;
        esac
        case $vc_error in
        */list.h:* | */timer_containers.h:*) ;;
        *) echo "  the first error is not in the second copy's first header"; return 1 ;;
        esac
    done
    printf '#include "same/timer_wheel.h"\n#include "%s/../timer_containers.h"\n#include "same/timer_set_types.h"\nint main(void) { return 0; }\n' \
        "$PWD" >"$vc_dir/same.c"
    $1 -std=c99 -Wall -Wextra -Wpedantic -Werror -I"$vc_dir" -fsyntax-only "$vc_dir/same.c" &&
        printf '#include "same/timer_containers.hpp"\n#include "%s/../timer_containers.hpp"\nint main() { return 0; }\n' \
            "$PWD" >"$vc_dir/same.cpp" &&
        "${1%cc}++" -std=c++11 -Wall -Wextra -Wpedantic -Werror -I"$vc_dir" -fsyntax-only "$vc_dir/same.cpp"
}

# man_pages: every page under ../man renders with man -l and no warning
# (groff -ww); timer_KIND.3 names every function TIMER_DEFINE_WRAPPERS_
# generates (NAME_fn, its internal ones ending in _ aside) and the kind's
# four DEFINE and three DECLARE/IMPLEMENT macros; tlist.3 every tlist_
# function and macro of list.h; each page's EXAMPLES section is a program
# that builds and runs; and man/aliases is fresh.
man_pages() {
    mp_dir=$B/man
    rm -rf "$mp_dir" && mkdir -p "$mp_dir/inc" || return 1
    ln -s "$PWD/.." "$mp_dir/inc/timer_containers" || return 1
    mp_fns=$(sed -n '/^#define TIMER_DEFINE_WRAPPERS_/,/^$/p' ../list.h | grep -o 'name##_[a-z_]*(' |
        sed -e 's/^name##//' -e 's/($//' | grep -v '_$' | sort -u)
    mp_tlist=$(grep -o -e '^TIMER_INLINE_ [a-z_ ]*\*\{0,1\}tlist_[a-z_]*(' -e '^#define tlist_[a-z_]*(' ../list.h |
        grep -o 'tlist_[a-z_]*' | grep -v '_$' | sort -u)
    mp_service=$(sed -n '/^#define TIMER_SERVICE_DEFINE(/,/^$/p' ../timer_service.h | grep -o 'name##_[a-z_]*(' |
        sed -e 's/^name##/NAME/' -e 's/($//' | sort -u)
    [ -n "$mp_fns" ] && [ -n "$mp_tlist" ] || { echo "found no functions in list.h"; return 1; }
    [ -n "$mp_service" ] || { echo "found no functions in timer_service.h's DEFINE"; return 1; }
    for mp_page in ../man/*.3; do
        mp_name=$(basename "$mp_page" .3)
        LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$mp_page" >"$mp_dir/$mp_name.txt" 2>"$mp_dir/$mp_name.err" ||
            { cat "$mp_dir/$mp_name.err"; return 1; }
        [ ! -s "$mp_dir/$mp_name.err" ] || { echo "$mp_page: warnings:"; cat "$mp_dir/$mp_name.err"; return 1; }
        case $mp_name in
        tlist) mp_want=$mp_tlist ;;
        timer_service)
            mp_want="$mp_service TIMER_SERVICE_DEFINE timer_service_timer_init timer_service_pending"
            mp_want="$mp_want timer_service_now timer_service_result"
            ;;
        timer_*)
            mp_K=$(upper "${mp_name#timer_}")
            mp_want="$(printf 'NAME%s\n' $mp_fns) TIMER_${mp_K}_DEFINE TIMER_${mp_K}_DEFINE_NAMED"
            mp_want="$mp_want TIMER_${mp_K}_DEFINE_TYPE TIMER_${mp_K}_DEFINE_FUNCTIONS TIMER_${mp_K}_DECLARE"
            mp_want="$mp_want TIMER_${mp_K}_DECLARE_FUNCTIONS TIMER_${mp_K}_IMPLEMENT"
            ;;
        *) echo "$mp_page: a page of no header"; return 1 ;;
        esac
        for mp_w in $mp_want; do
            grep -qw -- "$mp_w" "$mp_dir/$mp_name.txt" || { echo "$mp_page does not name $mp_w"; return 1; }
        done
        awk '/^\.EX$/ { e = 1; next } /^\.EE$/ { e = 0 } e' "$mp_page" | sed -e 's/\\e/\\/g' -e 's/\\-/-/g' \
            >"$mp_dir/$mp_name.c"
        [ -s "$mp_dir/$mp_name.c" ] || { echo "$mp_page has no example"; return 1; }
        build "man/$mp_name" "$CC" $C99 -I"$mp_dir/inc" -pthread "$mp_dir/$mp_name.c" && "$B/man/$mp_name" ||
            return 1
        echo "$mp_page: renders, names all $(echo $mp_want | wc -w) functions and macros, its example runs"
    done
    # v2.3: man/aliases holds exactly what pkg/man_aliases.sh makes of the
    # NAME sections (a .so page per other name: man 3 tlist_drain)
    sh ../pkg/man_aliases.sh "$PWD/$mp_dir/aliases" && diff -r ../man/aliases "$mp_dir/aliases" ||
        { echo "man/aliases is stale: run make man-aliases"; return 1; }
    echo "man/aliases: $(ls "$mp_dir/aliases" | wc -l) alias pages, as the NAME sections list"
}

# nginx_flags COMPILER: every header, the single file and the C++ one
# under nginx's clang flags (NGINX_CLANG): headers.c (every DEFINE form)
# through the split headers and the single file, lockstep.c (every call of
# every kind), the DECLARE/IMPLEMENT pair, as C99 and C11 (make test: C11);
# cxx.cpp as C++. clang's flow warnings (-Wconditional-uninitialized) come
# from its front end: -fsyntax-only finds them.
nginx_flags() {
    for nf_std in c99 c11; do
        [ "$TIER" = test ] && [ $nf_std = c99 ] && continue  # make test: C11, as nginx's default gnu11
        for nf_src in headers.c "-DUSE_SINGLE_HEADER headers.c" lockstep.c "-DTK_HEAP declare/declare_a.c"; do
            echo "$1 -std=$nf_std $nf_src" &&
                # shellcheck disable=SC2086 # the flags are words
                $1 -std=$nf_std -Wpedantic $NGINX_CLANG -fsyntax-only $nf_src || return 1
        done
    done
    echo "${1%cc}++ headers.c, cxx.cpp" &&
        "${1%cc}++" -std=c++11 $NGINX_CLANG -x c++ -fsyntax-only headers.c &&
        "${1%cc}++" -std=c++17 $NGINX_CLANG -fsyntax-only cxx.cpp
}

# tsan_run COMMAND...: a ThreadSanitizer build. Its fixed memory layout
# cannot start on kernels with much mmap randomisation ("FATAL:
# ThreadSanitizer: unexpected memory mapping"): then it runs again with ASLR
# off for it alone (setarch -R), as examples/run_test.sh does, and says so.
tsan_run() {
    "$@" >"$T_OUT.tsan" 2>&1
    tr_status=$?
    if grep -q 'FATAL: ThreadSanitizer' "$T_OUT.tsan"; then
        echo "ThreadSanitizer could not start with ASLR on; again under setarch -R:"
        setarch "$(uname -m)" -R "$@" >"$T_OUT.tsan" 2>&1
        tr_status=$?
    fi
    cat "$T_OUT.tsan"
    return "$tr_status"
}

# tsan_build_run OUT COMPILER ARGS...: build_run, the run through tsan_run.
tsan_build_run() {
    build "$@" && tsan_run "$B/$1"
}

# timer_service.h alone: strict C99 with gcc and clang (with the warnings
# strict users turn on, and clang's -Wunused-function: a program may use
# part of the API), C++11 with g++; its top example, built and run.
service_header() {
    mkdir -p "$B/service" || return 1
    printf '#define _POSIX_C_SOURCE 200809L\n#include "timer_service.h"\nTIMER_SERVICE_DEFINE(svc, %s)\n' \
        wheel >"$B/service/alone.c" || return 1
    for sh_cc in gcc clang; do
        have $sh_cc || continue
        echo "$sh_cc: timer_service.h alone, strict C99"
        $sh_cc $C99 -Wconversion -Wsign-conversion -Wcast-qual -Wunused-function -c -o /dev/null \
            "$B/service/alone.c" || return 1
    done
    echo "g++: timer_service.h as C++11"
    g++ -std=c++11 $CXX_STRICT -x c++ -c -o /dev/null "$B/service/alone.c" || return 1
    awk '/^ \* +#define _POSIX_C_SOURCE/ { e = 1 } e && /^ \* Generated API/ { exit } e' ../timer_service.h |
        sed -e 's/^ \*     //' -e 's/^ \*$//' >"$B/service/top_example.c" &&
        grep -q 'int main' "$B/service/top_example.c" || { echo "no example at the top of timer_service.h"; return 1; }
    echo "timer_service.h's top example, built and run:"
    build service/top_example "$CC" $C99 -pthread "$B/service/top_example.c" && "$B/service/top_example"
}

# headers.c instantiates every DEFINE form and calls nothing.
unused() {
    $1 $C99 -Wunused-function -c -o /dev/null headers.c
}

# What stricter users turn on: conversions, and casts that drop const.
wconversion() {
    $1 $C99 -Wconversion -Wsign-conversion -Wcast-qual -c -o /dev/null headers.c
}

# Two translation units expand the same DEFINEs and link into one program.
two_tu() {
    build_run "two-tu/$1" "$1" $C99 -O2 two_tu_a.c two_tu_b.c
}

# The headers as C++11: every DEFINE form (with -Wold-style-cast, which
# strict C++ users turn on: v2.1), and the two-TU program run.
cxx() {
    $1 $CXX11 -Wold-style-cast -x c++ -c -o /dev/null headers.c &&
        build_run "c++11/$1" "$1" $CXX11 -O2 -x c++ two_tu_a.c two_tu_b.c
}

# timer_containers.hpp compiles alone, and of ours reads only itself and
# timer_containers.h (the two files a project that copies files copies).
cxx_self_contained() {
    echo '#include "timer_containers.hpp"' | $1 -std=c++11 $CXX_STRICT -x c++ -c -o /dev/null - || return 1
    cs_read=$(echo '#include "timer_containers.hpp"' | $1 -std=c++11 -I.. -x c++ -MM - | tr ' \\' '\n\n' |
        grep -E '\.hp?p?$' | sort | tr '\n' ' ')
    [ "$cs_read" = "../timer_containers.h ../timer_containers.hpp " ] ||
        { echo "timer_containers.hpp reads: $cs_read"; return 1; }
}

# cxx_wrong_node COMPILER: a container over a member of another kind's node
# type must not compile, and each error must name the node type expected
# (one file, one error per kind).
cxx_wrong_node() {
    printf '#include "timer_containers.hpp"\n%s\n%s\n%s\n%s\n' \
        'struct conn { int fd; timer_containers::set_node s; timer_containers::heap_node h; timer_containers::wheel_node w; };' \
        'timer_containers::set<conn, &conn::w> a;' \
        'timer_containers::heap<conn, &conn::s> b;' \
        'timer_containers::wheel<conn, &conn::h> c;' >"$T_OUT.cpp"
    if $1 -std=c++11 -I.. -fsyntax-only "$T_OUT.cpp" >"$T_OUT.log" 2>&1; then
        echo "containers over members of other node types compiled"
        return 1
    fi
    cat "$T_OUT.log"
    for wn_kind in set heap wheel; do
        grep -qE "to [^:]*(timer_containers::|timer_)${wn_kind}_node conn::\*" "$T_OUT.log" ||
            { echo "no error names ${wn_kind}_node"; return 1; }
    done
}

# cxx_event_moves COMPILER: events in a std::vector (which moves them as it
# grows) must not compile, and the first error must name the way out:
# std::unique_ptr and std::deque (v2.3; 2.2 gave a deleted constructor of
# event_base from deep in the standard library).
cxx_event_moves() {
    printf '#include "timer_containers.hpp"\n#include <vector>\n%s\n%s\n' \
        'typedef timer_containers::event<timer_containers::heap_kind, timer_containers::callback> ev;' \
        'int main() { std::vector<ev> v; v.emplace_back(); v.emplace_back(); return 0; }' >"$T_OUT.cpp"
    if $1 -std=c++11 -I.. -fsyntax-only "$T_OUT.cpp" >"$T_OUT.log" 2>&1; then
        echo "a std::vector of events compiled"
        return 1
    fi
    ev_first=$(grep -m1 'error:' "$T_OUT.log")
    echo "$ev_first"
    case $ev_first in
    *std::unique_ptr*std::deque*) ;;
    *) echo "the first error does not name std::unique_ptr and std::deque"; return 1 ;;
    esac
}

# bitmap_unit NAME FLAGS...: the bit scans against naive loops, built with FLAGS.
bitmap_unit() {
    bu_name=$1
    shift
    build_run "bitmap/$bu_name" "$CC" $C99 -O2 "$@" bitmap_test.c
}

# libfuzzer_run KIND: FUZZ_TEST_SECONDS of libFuzzer from the seed corpus.
libfuzzer_run() {
    rm -rf "$B/fuzz-test-corpus-$1" &&
        sh fuzz/fuzz.sh run "$1" "$FUZZ_TEST_SECONDS" "$B/fuzz-test-corpus-$1"
}

# bound_search SECONDS: fuzz/bound.c's seeded random search (the seed is
# $SEED, or fresh and printed); an input that breaks the bound is left in
# $T_OUT.bound-input and its replay printed.
bound_search() {
    bs_seed=${SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
    (cd "$B/bound" && ./bound search "$1" "$bs_seed") || {
        cp "$B/bound/bound-last-input" "$T_OUT.bound-input" 2>/dev/null
        echo "replay: FB_TRACE=1 test/$B/bound/bound test/$T_OUT.bound-input"
        return 1
    }
}

# bound_libfuzzer SECONDS: libFuzzer on fuzz/bound.c from the committed
# corpus, steered to large calls by the value profile of the comparison of
# each call's steps with its bound; a crash is a call over it.
bound_libfuzzer() {
    bl_dir=$B/bound/corpus
    rm -rf "$bl_dir" && mkdir -p "$bl_dir" && cp fuzz/bound-corpus/* "$bl_dir"/ || return 1
    "$B/bound/libfuzz_bound" -use_value_profile=1 -max_total_time="$1" -max_len=4096 -print_final_stats=1 \
        -timeout=60 -rss_limit_mb=2048 -artifact_prefix="$B/bound/" "$bl_dir" 2>&1 |
        grep -E '^(FAIL|stat::number_of_executed|stat::average_exec|stat::new_units)|ERROR|Test unit written'
    bl_status=$?
    ls "$B"/bound/crash-* "$B"/bound/timeout-* "$B"/bound/oom-* >/dev/null 2>&1 && return 1
    [ "$bl_status" -le 1 ]
}

# valgrind memcheck: any error or leak fails the test.
vg() {
    valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=all --show-leak-kinds=all "$@"
}

# expect_abort MESSAGE COMMAND...: COMMAND must die by SIGABRT (a failed
# assertion, abort()) and print MESSAGE (a fixed string) on the way.
expect_abort() {
    ea_msg=$1
    shift
    "$@" >"$T_OUT.abort" 2>&1
    ea_status=$?
    cat "$T_OUT.abort"
    if [ "$ea_status" -ne 134 ]; then
        echo "expect_abort: exit status $ea_status, not 134 (SIGABRT)"
        return 1
    fi
    grep -qF -- "$ea_msg" "$T_OUT.abort" || { echo "expect_abort: no \"$ea_msg\" in the output"; return 1; }
}

# The types for a public header define no macro but these (v2.1: none
# without the library's prefixes; v2.2: none a public header does not use):
# the version, the include guards of the types, and DEFINE_TYPE of each
# kind included. timer_KIND_types.h defines exactly its kind's; the
# TIMER_TYPES_ONLY pass of the headers, and of the single file, no other.
types_macros() {
    mkdir -p "$B/types" &&
        printf '#include <stddef.h>\n#include <stdint.h>\n' | $1 -std=c99 -dM -E -x c - | sort >"$B/types/base.txt" ||
        return 1
    tm_common="TIMER_VERSION TIMER_VERSION_MAJOR TIMER_VERSION_MINOR TIMER_VERSION_PATCH TIMER_LIST_H_TYPES"
    for tm_case in 'set|#include "timer_set_types.h"' 'heap|#include "timer_heap_types.h"' \
        'wheel|#include "timer_wheel_types.h"' \
        'set heap wheel|#define TIMER_TYPES_ONLY\n#include "list.h"\n#include "timer_set.h"\n#include "timer_heap.h"\n#include "timer_wheel.h"' \
        'set heap wheel|#define TIMER_TYPES_ONLY\n#include "timer_containers.h"'; do
        tm_kinds=${tm_case%%|*}
        tm_inc=${tm_case#*|}
        tm_want=$tm_common
        case $tm_inc in *TIMER_TYPES_ONLY*) tm_want="$tm_want TIMER_TYPES_ONLY" ;; esac
        for tm_k in $tm_kinds; do
            tm_K=$(upper "$tm_k")
            tm_want="$tm_want TIMER_${tm_K}_H_TYPES TIMER_${tm_K}_DEFINE_TYPE"
        done
        printf "$tm_inc\\n" | $1 -std=c99 -I.. -dM -E -x c - | sort >"$B/types/types.txt" || return 1
        tm_got=$(comm -13 "$B/types/base.txt" "$B/types/types.txt" | awk '{ sub(/\(.*/, "", $2); print $2 }' | sort)
        tm_want=$(printf '%s\n' $tm_want | sort)
        printf '== %s: the macros it adds\n%s\n' "$tm_inc" "$tm_got"
        [ "$tm_got" = "$tm_want" ] || { echo "want exactly:" $tm_want; return 1; }
    done
}

# The README's example with no -D (the wheel), -DUSE_HEAP and -DUSE_SET,
# each as C99 and as C++11 (g++, with -Wold-style-cast: the example is what
# strict C++ users copy), and its example in C++ (section "C++", through
# timer_containers.hpp) as C++11 with g++ and as C++17 (where [[nodiscard]]
# applies) with clang++, strict: every program must print exactly the output
# the README shows for the C one. make test builds the C++ one for the
# wheel alone, make check for every kind.
readme_example() {
    mkdir -p "$B/readme" &&
        awk '/^## Example/ { s = 1 } s && /^```c$/ { c = 1; next } c && /^```$/ { exit } c' \
            ../README.md >"$B/readme/example.c" &&
        awk '/^## C\+\+$/ { s = 1 } s && /^```cpp$/ { c = 1; next } c && /^```$/ { exit } c' \
            ../README.md >"$B/readme/example.cpp" &&
        awk '/^## Example/ { s = 1 } s && /^Output:/ { o = 1 } o && /^```$/ { n++; next } o && n == 1' \
            ../README.md >"$B/readme/expected.txt" &&
        [ -s "$B/readme/example.c" ] && [ -s "$B/readme/example.cpp" ] && [ -s "$B/readme/expected.txt" ] ||
        return 1
    if have clang++; then re_cxx17=clang++; else re_cxx17=g++; fi
    for re_kind in wheel heap set; do
        case $re_kind in wheel) re_d= ;; heap) re_d=-DUSE_HEAP ;; set) re_d=-DUSE_SET ;; esac
        echo "README example, $re_kind: C99 and C++11; the C++ one as C++11 and C++17:"
        for re_prog in "c $CC $C99" "cxx g++ $CXX11 -Wold-style-cast -x c++" "hpp11 g++ -std=c++11 $CXX_STRICT" \
            "hpp17 $re_cxx17 -std=c++17 $CXX_STRICT"; do
            # shellcheck disable=SC2086 # the words are the program's name, compiler and flags
            set -- $re_prog
            re_name=$1
            shift
            case $re_name in hpp*) re_src=$B/readme/example.cpp ;; *) re_src=$B/readme/example.c ;; esac
            # make test: the C++ one (one class template over any kind) for the wheel
            case $TIER.$re_kind.$re_name in test.heap.hpp* | test.set.hpp*) continue ;; esac
            build "readme/example_${re_name}_$re_kind" "$@" $re_d "$re_src" &&
                "$B/readme/example_${re_name}_$re_kind" >"$B/readme/output_${re_name}_$re_kind.txt" &&
                diff -u "$B/readme/expected.txt" "$B/readme/output_${re_name}_$re_kind.txt" || return 1
        done
    done
}

# The packaging routes need all four tools; test/pkg.sh names what is missing.
pkg_tools() {
    have cmake && have meson && have ninja && have pkg-config
}

# `make -C ../examples check`, one make job (this pool runs others beside
# it): each of its PASS and FAIL lines is a verdict of its own. make test
# leaves out the timer thread's ThreadSanitizer run (its build is the
# longest of the examples'; the -O2 one stands for it), make check runs it.
examples_check() {
    if [ "$TIER" = test ]; then ec_tsan=no; else ec_tsan=yes; fi
    ${MAKE:-make} --no-print-directory -j1 -C ../examples CC="$CC" TSAN=$ec_tsan check >"$T_OUT.examples" 2>&1
    e_status=$?
    cat "$T_OUT.examples"
    sed -n -e 's/^PASS /PASS examples./p' -e 's/^FAIL /FAIL examples./p' "$T_OUT.examples" >"$T_VERDICTS"
    return "$e_status"
}

# A trivial program built and run with -m32: can this machine do 32-bit?
m32_works() {
    mkdir -p "$B" &&
        printf 'int main(void) { return sizeof(void *) != 4; }\n' | gcc -m32 -x c -o "$B/m32_probe" - &&
        "$B/m32_probe"
}

libfuzzer_works() {
    have clang && sh fuzz/fuzz.sh probe
}

# ---------------------------------------------------------------------------
# The engine: registration, then a pool of JOBS jobs.
#
# Test i (1..n) is held in variables: T_name_i, T_deps_i (indices),
# T_cmd_i (the command, quoted for eval), T_tier_i, T_st_i (its state:
# out = not in this tier, skip, wait, run, pass, fail), T_pid_i.

n=0
T_index=' '  # " NAME=i NAME=i ... ": a name's index, by pattern matching
queue=       # the indices not yet started, in order
passed=0
failed=0
notes=       # SKIP lines and registry errors, printed before the first test
nd_group=    # the open `needs` block, if any

# quote ARG...: q_out = the arguments, each in single quotes, for eval.
quote() {
    q_out=
    for q_arg; do
        q_esc=
        while :; do
            case $q_arg in
            *\'*)
                q_esc="$q_esc${q_arg%%\'*}'\\''"
                q_arg=${q_arg#*\'}
                ;;
            *)
                q_esc="$q_esc$q_arg"
                break
                ;;
            esac
        done
        q_out="$q_out '$q_esc'"
    done
}

# A mistake in the registry is a failed test, reported before the others.
reg_error() {
    failed=$((failed + 1))
    notes="${notes}FAIL $1: registry: $2
"
}

needs() {
    if [ -n "$nd_group" ] && [ "$nd_count" -gt 0 ]; then
        if [ "$nd_count" -eq 1 ]; then nd_w=test; else nd_w=tests; fi
        notes="${notes}SKIP $nd_group ($nd_count $nd_w): $nd_reason
"
    fi
    nd_group=
    [ "$1" = - ] && return 0
    nd_group=$1
    nd_reason=$2
    shift 2
    quote "$@"
    nd_probe=$q_out
    nd_met=unknown
    nd_count=0
}

# needs_met: 0 if the open block (if any) may run; else count a skip.
needs_met() {
    [ -z "$nd_group" ] && return 0
    if [ "$nd_met" = unknown ]; then
        if eval "$nd_probe" >/dev/null 2>&1; then nd_met=yes; else nd_met=no; fi
    fi
    [ "$nd_met" = yes ] && return 0
    nd_count=$((nd_count + 1))
    return 1
}

t() {
    if [ $# -lt 4 ]; then
        reg_error "${1:-?}" "t needs NAME TIER NEEDS COMMAND"
        return
    fi
    t_name=$1
    t_tier=$2
    t_needs=$3
    shift 3
    case $t_tier in
    test | check) ;;
    *) reg_error "$t_name" "the tier is test or check, not $t_tier"; return ;;
    esac
    case $T_index in
    *" $t_name="*) reg_error "$t_name" "registered twice"; return ;;
    esac
    n=$((n + 1))
    T_index="$T_index$t_name=$n "
    eval "T_name_$n=\$t_name T_tier_$n=\$t_tier T_st_$n=out"
    [ "$TIER" = check ] || [ "$t_tier" = test ] || return 0
    needs_met || { eval "T_st_$n=skip"; return 0; }

    # NEEDS: names of tests above, in this tier, and not skipped
    t_deps=
    t_rest=$t_needs,
    [ "$t_needs" = - ] && t_rest=
    while [ -n "$t_rest" ]; do
        t_dep=${t_rest%%,*}
        t_rest=${t_rest#*,}
        case $T_index in
        *" $t_dep="*) ;;
        *) reg_error "$t_name" "it needs $t_dep, not registered above"; eval "T_st_$n=fail"; return ;;
        esac
        t_di=${T_index#*" $t_dep="}
        t_di=${t_di%% *}
        eval "t_dtier=\$T_tier_$t_di t_dst=\$T_st_$t_di"
        if [ "$t_tier" = test ] && [ "$t_dtier" = check ]; then
            reg_error "$t_name" "it is in make test but needs $t_dep, which is in make check only"
            eval "T_st_$n=fail"
            return
        fi
        if [ "$t_dst" = skip ]; then
            reg_error "$t_name" "it needs $t_dep, which is skipped; register it in the same needs block"
            eval "T_st_$n=fail"
            return
        fi
        t_deps="$t_deps $t_di"
    done
    quote "$@"
    eval "T_deps_$n=\$t_deps T_cmd_$n=\$q_out T_st_$n=wait"
    queue="$queue $n"
}

# deps_state I: ds = ready (all needs passed), wait, or failed (ds_name
# names the need that failed).
deps_state() {
    ds=ready
    eval "ds_deps=\$T_deps_$1"
    for ds_i in $ds_deps; do
        eval "ds_st=\$T_st_$ds_i"
        case $ds_st in
        pass) ;;
        fail) ds=failed; eval "ds_name=\$T_name_$ds_i"; return ;;
        *) ds=wait ;;
        esac
    done
}

# start I: run test I in the background. Its command runs in a subshell of
# its own (a `cd` or `exit` there stays there), with stdin from /dev/null,
# stdout and stderr into its log, and without fd 3 (the FIFO); then the job
# writes its exit status and times, and its index to the FIFO.
start() {
    eval "s_name=\$T_name_$1 s_cmd=\$T_cmd_$1 T_st_$1=run"
    (
        T_OUT=$R/$s_name           # prefix for a command's scratch files
        T_VERDICTS=$R/$s_name.verdicts
        export T_OUT T_VERDICTS
        s_t0=$(date +%s.%N)
        (eval "$s_cmd") </dev/null >"$L/$s_name.log" 2>&1 3>&-
        s_status=$?
        times >"$R/$s_name.cpu"    # its second line: the CPU time of this job's children, the test
        echo "$s_status $s_t0 $(date +%s.%N)" >"$R/$s_name.status"
        echo "$1" >&3
    ) &
    eval "T_pid_$1=\$!"
}

# show_log NAME: the head (a fuzz run's seed) and tail (the failure).
show_log() {
    sl_log=$L/$1.log
    if [ "$(wc -l <"$sl_log")" -gt 30 ]; then
        head -n 2 "$sl_log" | sed 's/^/    /'
        echo "    ..."
    fi
    tail -n 25 "$sl_log" | sed 's/^/    /'
}

# finish I: test I has ended; print its verdict and count it. A test that
# wrote verdict lines to $T_VERDICTS (the examples) counts each of them, and
# fails once more if it exited non-zero without a FAIL line.
finish() {
    eval "f_name=\$T_name_$1 f_pid=\$T_pid_$1"
    wait "$f_pid"
    read -r f_status f_t0 f_t1 <"$R/$f_name.status"
    f_cpu=$(awk 'NR == 2 { n = split($1 " " $2, t, /[ms ]+/); print 60 * t[1] + t[2] + 60 * t[3] + t[4] }' "$R/$f_name.cpu")
    echo "$f_t0 $f_t1 $f_name ${f_cpu:-0}" >>"$R/times"
    f_failed=0
    if [ -s "$R/$f_name.verdicts" ]; then
        while read -r f_verdict f_rest; do
            case $f_verdict in
            PASS) passed=$((passed + 1)) ;;
            *) failed=$((failed + 1)); f_failed=1 ;;
            esac
            echo "$f_verdict $f_rest"
        done <"$R/$f_name.verdicts"
        if [ "$f_status" -ne 0 ] && [ "$f_failed" -eq 0 ]; then
            failed=$((failed + 1))
            f_failed=1
            echo "FAIL $f_name: exit status $f_status"
        fi
        [ "$f_failed" -eq 0 ] || { echo "    ($L/$f_name.log)"; show_log "$f_name"; }
    elif [ "$f_status" -eq 0 ]; then
        passed=$((passed + 1))
        echo "PASS $f_name"
    else
        failed=$((failed + 1))
        f_failed=1
        echo "FAIL $f_name ($L/$f_name.log):"
        show_log "$f_name"
    fi
    if [ "$f_failed" -eq 0 ]; then eval "T_st_$1=pass"; else eval "T_st_$1=fail"; fi
}

# The pool. Each round starts, in registry order, every test whose needs
# have passed while fewer than JOBS run (and fails those whose need failed),
# then waits for one job to end. Needs are registered before the tests
# needing them, so when nothing runs the queue's first test is ready:
# nothing runs only when the queue is empty.
run_pool() {
    mkfifo "$R/fifo" || exit 1
    exec 3<>"$R/fifo"
    running=0
    while :; do
        rp_left=
        for i in $queue; do
            if [ "$running" -ge "$JOBS" ]; then
                rp_left="$rp_left $i"
                continue
            fi
            deps_state "$i"
            case $ds in
            ready) start "$i"; running=$((running + 1)) ;;
            wait) rp_left="$rp_left $i" ;;
            failed)
                eval "T_st_$i=fail rp_name=\$T_name_$i"
                failed=$((failed + 1))
                echo "FAIL $rp_name: not run, $ds_name failed"
                ;;
            esac
        done
        queue=$rp_left
        [ "$running" -gt 0 ] || break
        read -r i <&3
        finish "$i"
        running=$((running - 1))
    done
    exec 3>&-
}

# Interrupted: stop the jobs (the terminal's ^C reaches their children).
on_signal() {
    os_i=1
    while [ "$os_i" -le "$n" ]; do
        eval "os_st=\$T_st_$os_i"
        [ "$os_st" = run ] && eval "kill \$T_pid_$os_i" 2>/dev/null
        os_i=$((os_i + 1))
    done
    exit 130
}

# ---------------------------------------------------------------------------

rm -rf "$L" "$R"
mkdir -p "$L" "$R" || exit 1
trap on_signal INT TERM

if [ "$TIER" = test ]; then
    echo "make test: $JOBS at once; CC=$CC; fuzz seed ${SEED:-fresh per run (printed in each log)}; $SAN_STEPS fuzz steps per kind under ASan"
else
    echo "make check: $JOBS at once; CC=$CC; fuzz seed ${SEED:-fresh per run (printed in each log)}; $STEPS fuzz steps per kind, $SAN_STEPS under ASan, $PORT_STEPS in portability builds; libFuzzer $FUZZ_TEST_SECONDS s per kind"
fi
registry
needs -
printf '%s' "$notes"
run_pool
# make check ends with make test on a starved machine (starved.sh: busy
# loops, and half its processes stopped for 1.5 s every 3 s), alone, as one
# more test: its loops and stops would starve the pool's own tests too.
# STARVED=0 leaves it out.
if [ "$TIER" = check ] && [ "${STARVED:-1}" != 0 ]; then
    st_t0=$(date +%s.%N)
    if sh ./starved.sh 1 >"$L/test-starved.log" 2>&1; then
        passed=$((passed + 1))
        echo "PASS test-starved"
    else
        failed=$((failed + 1))
        echo "FAIL test-starved ($L/test-starved.log):"
        show_log test-starved
    fi
    echo "$st_t0 $(date +%s.%N) test-starved" >>"$R/times"
fi
awk '{ printf "%7.2f s  %7.2f s CPU  %s\n", $2 - $1, $4, $3; cpu += $4 }
    END { printf "%7.2f s CPU in all\n", cpu }' "$R/times" 2>/dev/null | sort -rn >"$L/times.txt"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
