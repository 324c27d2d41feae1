# The whole set-up on a fresh machine is two commands:
#   make test    build and run every test; ends with "N passed, M failed"
#   make bench   measure every container on this machine (make bench N=... to resize)
# Optional: make peers-deps && make bench-peers && make plot (libev, libuv,
# libevent, BSD tree.h side by side; SVG charts with gnuplot).
# make examples builds the programs under examples/ (make test runs their tests).
# make fuzz (FUZZ_SECONDS=60 per container) and make soak: the long checks.
# Each directory owns its build; this file only dispatches.

.PHONY: all test bench examples fuzz soak bench-peers peers-deps plot clean

all: test

test:
	@$(MAKE) --no-print-directory -C test

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
