# rocjitsu — see README.md. 'make demo' runs the main job, 'make test' runs
# every test (installing the oracles first).

GO ?= go
BIN := bin
RACE_PKGS := $(shell sed -e 's/\#.*//' scripts/race-packages.txt | tr -s ' \n' ' ')
FUZZTIME ?= 10s
FUZZMINIMIZETIME ?= 100x
FUZZ_ONLY ?=
BENCHTIME ?= 1s

.PHONY: all deps build test vet demo bench fuzz corpus corpus-status clean generate

all: build

deps:
	@bash scripts/deps.sh

build:
	@mkdir -p $(BIN)
	$(GO) build -o $(BIN)/rocjitsu ./cmd/rocjitsu
	@if [ -d shim ]; then \
		echo "$(GO) build -buildmode=c-shared -o $(BIN)/librocjitsu.so ./shim"; \
		$(GO) build -buildmode=c-shared -o $(BIN)/librocjitsu.so ./shim; \
	fi

vet:
	$(GO) vet ./...
	@fmt=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$fmt" ]; then echo "gofmt needed:"; echo "$$fmt"; exit 1; fi

test: deps vet
	$(GO) test -count=1 ./...
	@if [ -n "$(strip $(RACE_PKGS))" ]; then \
		echo "$(GO) test -race -count=1 $(RACE_PKGS)"; \
		$(GO) test -race -count=1 $(RACE_PKGS); \
	fi

generate:
	$(GO) generate ./...

demo: deps build
	@bash scripts/demo.sh

bench: deps
	$(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) ./...

fuzz:
	FUZZTIME=$(FUZZTIME) FUZZMINIMIZETIME=$(FUZZMINIMIZETIME) FUZZ_ONLY='$(FUZZ_ONLY)' bash scripts/fuzz.sh

corpus: deps
	@if [ -x testdata/kernels/build.sh ]; then bash testdata/kernels/build.sh; else echo "corpus: testdata/kernels/build.sh not present yet"; fi

corpus-status:
	$(GO) run ./cmd/rocjitsu corpus status

clean:
	rm -rf $(BIN)
