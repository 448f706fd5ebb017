# stalkd - make targets. `make test` is the whole suite (what CI runs).
GO        ?= go
BIN       ?= bin
FUZZTIME  ?= 10s
# How long the fuzzer may spend shrinking each new interesting input (Go's
# default, 60s, would eat a short FUZZTIME whole).
FUZZMINTIME ?= 2s
# Extra stalkd-bench flags for compare: make compare BENCHFLAGS=--heavy
BENCHFLAGS ?=
PKGS      := ./...

.PHONY: all build run install install-systemd test vet fmt-check unit norace fuzz bench compare compare-pinned clean

all: build

build:
	$(GO) build -o $(BIN)/stalkd ./cmd/stalkd
	$(GO) build -o $(BIN)/stalkd-bench ./benchmarks/cmd/stalkd-bench
	$(GO) build -o $(BIN)/stalkctl ./cmd/stalkctl

# Start the server with the reference's defaults: port 11300 on EVERY
# interface, IPv4 and IPv6 (other hosts can reach it; the start-up log lists
# the addresses and warns). RUNFLAGS='-l 127.0.0.1' keeps it local.
RUNFLAGS ?=
run: build
	./$(BIN)/stalkd $(RUNFLAGS)

# Install the server and the operators' command line as
# $(DESTDIR)$(PREFIX)/bin/stalkd and .../bin/stalkctl.
PREFIX  ?= /usr/local
UNITDIR ?= /etc/systemd/system
install: build
	install -D -m 0755 $(BIN)/stalkd $(DESTDIR)$(PREFIX)/bin/stalkd
	install -D -m 0755 $(BIN)/stalkctl $(DESTDIR)$(PREFIX)/bin/stalkctl

# Install the systemd units (then: systemctl daemon-reload; systemctl
# enable --now stalkd, or stalkd.socket for socket activation).
install-systemd:
	sed 's|/usr/local/bin/stalkd|$(PREFIX)/bin/stalkd|g' cmd/stalkd/stalkd.service > stalkd.service.tmp
	install -D -m 0644 stalkd.service.tmp $(DESTDIR)$(UNITDIR)/stalkd.service
	rm -f stalkd.service.tmp
	install -D -m 0644 cmd/stalkd/stalkd.socket $(DESTDIR)$(UNITDIR)/stalkd.socket

# The whole test suite: formatting, vet, every test with the race detector,
# the tests the race detector skips or shrinks run again without it, then
# each fuzz target for a short bounded time.
test: fmt-check vet unit norace fuzz

fmt-check:
	@out=$$(gofmt -l . 2>/dev/null); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(PKGS)

unit:
	$(GO) test -race -count=1 -timeout 20m $(PKGS)

# Every test that skips or shrinks under -race (it checks allocations or
# memory, which the race detector changes, or runs a long model): cmd/stalkd's
# TestNoRacePassCoversRaceSkippedTests keeps these two lines complete.
NORACE_PKGS  := ./jobs ./engine ./engine/embed ./wal
NORACE_TESTS := ^(TestSteadyStateAllocations|TestSteadyStateAllocationsWithPolicy|TestFlushAllocatesNothing|TestSessionSize|TestServeAllocatesNothingPerCommand|TestOpenConnAllocations|TestEmbedSteadyStateAllocations|TestMemoryGoesBackAfterDrain|TestModel)$$
norace:
	$(GO) test -count=1 -timeout 5m -run '$(NORACE_TESTS)' $(NORACE_PKGS)

# Each fuzz target in turn for FUZZTIME (make fuzz FUZZTIME=5m); fuzz/run.sh
# runs a target again (up to three runs) after Go 1.26's bare fuzztime-deadline failure.
fuzz:
	@GO=$(GO) bash fuzz/run.sh $(FUZZTIME) $(FUZZMINTIME)

# Go micro-benchmarks: codec, queue, timing wheel, with allocations.
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./codec ./jobs/... ./engine/... ./benchmarks/...

# The load generator, ours against the reference beanstalkd, side by side.
compare: build
	./$(BIN)/stalkd-bench compare-all --server-a './$(BIN)/stalkd -l 127.0.0.1 -p {port}' \
		--server-b 'beanstalkd -l 127.0.0.1 -p {port}' $(BENCHFLAGS)

# The same with the generator on core 0 and each server on core 1.
compare-pinned: build
	taskset -c 0 ./$(BIN)/stalkd-bench compare-all \
		--server-a 'taskset -c 1 ./$(BIN)/stalkd -l 127.0.0.1 -p {port}' \
		--server-b 'taskset -c 1 beanstalkd -l 127.0.0.1 -p {port}' $(BENCHFLAGS)

clean:
	rm -rf $(BIN)
