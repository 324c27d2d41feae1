# The whole set-up on a fresh machine is two commands:
#   make test    build and run every test; ends with "N passed, M failed"
#   make bench   measure every container on this machine (make bench N=... to resize)
# Each directory owns its build; this file only dispatches.

.PHONY: all test bench clean

all: test

test:
	@$(MAKE) --no-print-directory -C test

bench:
	@$(MAKE) --no-print-directory -C bench

clean:
	@$(MAKE) --no-print-directory -C test clean
	@$(MAKE) --no-print-directory -C bench clean
