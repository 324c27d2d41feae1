# The whole set-up on a fresh machine is two commands:
#   make test    the quick tests, in parallel (under a minute on 2 cores):
#                strict gcc/clang/C++11 builds, the suites under ASan + UBSan,
#                the README example, the examples; ends with "N passed, M failed"
#   make bench   measure every container on this machine (make bench N=... to resize)
# make bench-threads: timer_service.h from 1, 2 and 4 threads (arm+cancel
# pairs/s against one heap under one mutex, the owner's cost against the bare
# container, wake-up latency, idle wake-ups; bench/threads.c; ~1 min).
# make bench-latency: per-call p50/p99/p99.9/max of next_expiry, pop, insert,
# reschedule at 1M timers in event-loop workloads, every container side by side,
# each call the least of three identical runs (bench/latency.c; ~3 min on 2 cores).
# make bench-behind: items inserted at or behind the clock, then one pop, in
# five patterns, every container (bench/behind.c; ~2 min of CPU).
# make check runs every test (a superset of make test: eight builds of the
# suites, -m32, libFuzzer, valgrind, ..., and make test-starved once; a
# few minutes); .ci/run runs it. make test-starved [RUNS=5]: make test with
# four busy loops beside it and half its processes stopped for 1.5 s every
# 3 s (test/starved.sh): no test may fail for a busy machine.
# Both take JOBS=n (default: the number of cores), SEED, STEPS, SAN_STEPS,
# PORT_STEPS, FUZZ_TEST_SECONDS and CC; see test/Makefile.
# Optional: make peers-deps && make bench-peers && make plot (libev, libuv,
# libevent, BSD tree.h, wahern/timeout and DPDK's rte_timer side by side;
# SVG charts with gnuplot; WAHERN_DIR=... names a wahern/timeout checkout).
# make bench-instructions (needs valgrind): instructions per operation of
# every container, counted by callgrind; repeatable where make bench's times
# move 20-30% between runs (bench/instr.c; docs/benchmarks.md).
# make examples builds the programs under examples/ (make test runs their tests).
# make fuzz (FUZZ_SECONDS=60 per container) and make soak: the long checks.
# make single-header rewrites timer_containers.h, the five headers in one file
# (pkg/single_header.sh); make test fails while it is stale. make man-aliases
# rewrites man/aliases/ (pkg/man_aliases.sh: man 3 tlist_drain, ...), the same.
# Each directory owns its build; this file only dispatches, and installs:
#
#   make install [PREFIX=/usr/local] [DESTDIR=]   the headers, as
#       <timer_containers/timer_wheel.h>, into $(INCLUDEDIR)/timer_containers/;
#       timer-containers.pc into $(PKGCONFIGDIR); the CMake package files
#       (find_package(timer_containers)) into $(CMAKEDIR); the man pages
#       (man 3 timer_wheel, timer_heap, timer_set, tlist, timer_service, and
#       every other name their NAME sections list: man 3 tlist_drain) into
#       $(MANDIR)/man3.
#       Header-only, so everything goes under share/ except the headers;
#       INCLUDEDIR, DATADIR, PKGCONFIGDIR, CMAKEDIR and MANDIR may be set too. cmake --install and meson
#       install make the same files (pkg/ holds the templates all three fill).
#   make uninstall [PREFIX=...] [DESTDIR=]        removes exactly those files
#       and the timer_containers directories, if nothing else is in them.
#   make test-pkg   every packaging route of test/pkg.sh (make install,
#       pkg-config, find_package, add_subdirectory, FetchContent, meson),
#       built and run in test/build/pkg/; needs cmake, meson, ninja, pkg-config.

.PHONY: all test check test-starved bench bench-latency bench-threads bench-behind examples fuzz soak \
	bench-peers bench-instructions peers-deps plot clean install uninstall test-pkg single-header \
	man-aliases

all: test

test:
	@$(MAKE) --no-print-directory -C test test

check:
	@$(MAKE) --no-print-directory -C test check

test-starved:
	@$(MAKE) --no-print-directory -C test test-starved

bench:
	@$(MAKE) --no-print-directory -C bench

bench-latency:
	@$(MAKE) --no-print-directory -C bench latency

bench-threads:
	@$(MAKE) --no-print-directory -C bench threads

bench-behind:
	@$(MAKE) --no-print-directory -C bench behind

fuzz:
	@$(MAKE) --no-print-directory -C test fuzz

soak:
	@$(MAKE) --no-print-directory -C test soak

examples:
	@$(MAKE) --no-print-directory -C examples

bench-peers:
	@$(MAKE) --no-print-directory -C bench peers

bench-instructions:
	@$(MAKE) --no-print-directory -C bench instructions

peers-deps:
	@$(MAKE) --no-print-directory -C bench peers-deps

plot:
	@$(MAKE) --no-print-directory -C bench plot

clean:
	@$(MAKE) --no-print-directory -C test clean
	@$(MAKE) --no-print-directory -C bench clean
	@$(MAKE) --no-print-directory -C examples clean

test-pkg:
	@sh test/pkg.sh all test/build/pkg

single-header:
	sh pkg/single_header.sh timer_containers.h

man-aliases:
	sh pkg/man_aliases.sh man/aliases

# Installation. The version comes from list.h, its one source of truth.
PREFIX ?= /usr/local
INCLUDEDIR ?= $(PREFIX)/include
DATADIR ?= $(PREFIX)/share
PKGCONFIGDIR ?= $(DATADIR)/pkgconfig
CMAKEDIR ?= $(DATADIR)/cmake/timer_containers
MANDIR ?= $(DATADIR)/man
INSTALL ?= install

# timer_containers.h: the other five in one file (make single-header);
# timer_containers.hpp: the C++ interface, over timer_containers.h;
# timer_service.h (POSIX threads) and its C++ interface timer_service.hpp
HEADERS = list.h bitmap.h timer_set.h timer_heap.h timer_wheel.h timer_set_types.h timer_heap_types.h \
	timer_wheel_types.h timer_containers.h timer_containers.hpp timer_service.h timer_service.hpp
MANPAGES = man/timer_set.3 man/timer_heap.3 man/timer_wheel.3 man/tlist.3 man/timer_service.3
# one `.so` page per other name a page's NAME lists (man 3 tlist_drain):
# pkg/man_aliases.sh writes them (make man-aliases)
MANALIASES = $(sort $(wildcard man/aliases/*.3))
VERSION := $(shell sed -n 's/^.define TIMER_VERSION "\([0-9.]*\)".*/\1/p' list.h)

# The template variables, as CMakeLists.txt and meson.build compute them. A
# directory inside PREFIX is written relative to it (tc_rel), so that the
# CMake files find the prefix from where they lie (relocatable); the .pc file
# names the prefix and refers to it.
tc_empty :=
tc_space := $(tc_empty) $(tc_empty)
tc_rel = $(patsubst $(PREFIX)/%,%,$(1))
tc_up = $(subst $(tc_space),/,$(patsubst %,..,$(subst /, ,$(1))))
TC_INCLUDEDIR_REL = $(call tc_rel,$(INCLUDEDIR))
TC_CMAKEDIR_REL = $(call tc_rel,$(CMAKEDIR))
TC_SUBST = sed -e 's|@VERSION@|$(VERSION)|g' \
	-e 's|@PREFIX@|$(PREFIX)|g' \
	-e 's|@PC_INCLUDEDIR@|$(if $(filter /%,$(TC_INCLUDEDIR_REL)),$(INCLUDEDIR),$${prefix}/$(TC_INCLUDEDIR_REL))|g' \
	-e 's|@INCLUDEDIR_REL@|$(TC_INCLUDEDIR_REL)|g' \
	-e 's|@CMAKEDIR_TO_PREFIX@|$(if $(filter /%,$(TC_CMAKEDIR_REL)),$(PREFIX),$(call tc_up,$(TC_CMAKEDIR_REL)))|g'

# The generated files are written straight into place (no build output in
# the checkout, which may belong to another user than `sudo make install`).
install:
	@test -n '$(VERSION)' || { echo 'make install: list.h has no #define TIMER_VERSION "X.Y.Z"' >&2; exit 1; }
	$(INSTALL) -d '$(DESTDIR)$(INCLUDEDIR)/timer_containers' '$(DESTDIR)$(PKGCONFIGDIR)' '$(DESTDIR)$(CMAKEDIR)' \
		'$(DESTDIR)$(MANDIR)/man3'
	$(INSTALL) -m 644 $(HEADERS) '$(DESTDIR)$(INCLUDEDIR)/timer_containers'
	$(INSTALL) -m 644 $(MANPAGES) $(MANALIASES) '$(DESTDIR)$(MANDIR)/man3'
	$(TC_SUBST) pkg/timer-containers.pc.in >'$(DESTDIR)$(PKGCONFIGDIR)/timer-containers.pc'
	$(TC_SUBST) pkg/timer_containersConfig.cmake.in >'$(DESTDIR)$(CMAKEDIR)/timer_containersConfig.cmake'
	$(TC_SUBST) pkg/timer_containersConfigVersion.cmake.in >'$(DESTDIR)$(CMAKEDIR)/timer_containersConfigVersion.cmake'
	chmod 644 '$(DESTDIR)$(PKGCONFIGDIR)/timer-containers.pc' \
		'$(DESTDIR)$(CMAKEDIR)/timer_containersConfig.cmake' \
		'$(DESTDIR)$(CMAKEDIR)/timer_containersConfigVersion.cmake'

uninstall:
	for h in $(HEADERS); do rm -f "$(DESTDIR)$(INCLUDEDIR)/timer_containers/$$h"; done
	for m in $(MANPAGES) $(MANALIASES); do rm -f "$(DESTDIR)$(MANDIR)/man3/$${m##*/}"; done
	rm -f '$(DESTDIR)$(PKGCONFIGDIR)/timer-containers.pc' \
		'$(DESTDIR)$(CMAKEDIR)/timer_containersConfig.cmake' \
		'$(DESTDIR)$(CMAKEDIR)/timer_containersConfigVersion.cmake'
	for d in '$(DESTDIR)$(INCLUDEDIR)/timer_containers' '$(DESTDIR)$(CMAKEDIR)'; do \
		if [ -d "$$d" ]; then rmdir "$$d" 2>/dev/null || echo "kept $$d: it holds other files"; fi; \
	done
