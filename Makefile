# The whole set-up on a fresh machine is two commands:
#   make test    the quick tests, in parallel (under a minute on 2 cores):
#                strict gcc/clang/C++11 builds, the suites under ASan + UBSan,
#                the README example, the examples; ends with "N passed, M failed"
#   make bench   measure every container on this machine (make bench N=... to resize)
# make check runs every test (a superset of make test: eight builds of the
# suites, -m32, libFuzzer, valgrind, ...; a few minutes); .ci/run runs it.
# Both take JOBS=n (default: the number of cores), SEED, STEPS, SAN_STEPS,
# PORT_STEPS, FUZZ_TEST_SECONDS and CC; see test/Makefile.
# Optional: make peers-deps && make bench-peers && make plot (libev, libuv,
# libevent, BSD tree.h side by side; SVG charts with gnuplot).
# make examples builds the programs under examples/ (make test runs their tests).
# make fuzz (FUZZ_SECONDS=60 per container) and make soak: the long checks.
# Each directory owns its build; this file only dispatches.

.PHONY: all test check bench examples fuzz soak bench-peers peers-deps plot clean

all: test

test:
	@$(MAKE) --no-print-directory -C test test

check:
	@$(MAKE) --no-print-directory -C test check

bench:
	@$(MAKE) --no-print-directory -C bench

fuzz:
	@$(MAKE) --no-print-directory -C test fuzz

soak:
	@$(MAKE) --no-print-directory -C test soak

examples:
	@$(MAKE) --no-print-directory -C examples

bench-peers:
	@$(MAKE) --no-print-directory -C bench peers

peers-deps:
	@$(MAKE) --no-print-directory -C bench peers-deps

plot:
	@$(MAKE) --no-print-directory -C bench plot

clean:
	@$(MAKE) --no-print-directory -C test clean
	@$(MAKE) --no-print-directory -C bench clean
	@$(MAKE) --no-print-directory -C examples clean
