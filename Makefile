# stalkd - make targets. `make test` is the whole suite (what CI runs).
GO        ?= go
BIN       ?= bin
FUZZTIME  ?= 10s
# Extra stalkd-bench flags for compare: make compare BENCHFLAGS=--heavy
BENCHFLAGS ?=
PKGS      := ./...

.PHONY: all build run test vet fmt-check unit fuzz bench compare compare-pinned clean

all: build

build:
	$(GO) build -o $(BIN)/stalkd ./cmd/stalkd
	$(GO) build -o $(BIN)/stalkd-bench ./benchmarks/cmd/stalkd-bench
	$(GO) build -o $(BIN)/stalkctl ./cmd/stalkctl

# Start the server with the reference's defaults (all interfaces, port 11300).
run: build
	./$(BIN)/stalkd

# The whole test suite: formatting, vet, every test with the race detector,
# then each fuzz target for a short bounded time.
test: fmt-check vet unit fuzz

fmt-check:
	@out=$$(gofmt -l . 2>/dev/null); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(PKGS)

unit:
	$(GO) test -race -count=1 -timeout 20m $(PKGS)

# Each fuzz target in turn for FUZZTIME (make fuzz FUZZTIME=5m).
fuzz:
	@for t in $$($(GO) test ./fuzz -list '^Fuzz' | grep '^Fuzz'); do \
		echo "fuzz $$t for $(FUZZTIME)"; \
		$(GO) test ./fuzz -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) || exit 1; \
	done

# Go micro-benchmarks: codec, queue, timing wheel, with allocations.
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./codec ./jobs/... ./engine ./benchmarks/...

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
