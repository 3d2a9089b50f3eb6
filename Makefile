# writeamp — see README.md. `make test` is what CI runs (.ci/run).
SHELL := /bin/bash
GO ?= $(shell command -v go 2>/dev/null || echo /usr/local/go/bin/go)
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.Version=$(VERSION) -X main.Commit=$(shell git rev-parse HEAD 2>/dev/null)
BIN := bin/writeamp

.PHONY: build demo test test-unit fuzz bench lint fmt clean pg-versions dist docs

build:
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/writeamp

# The Keycloak refresh-token experiment on a throwaway PostgreSQL. Installs
# PostgreSQL's server package (apt-get, as root) when initdb and postgres are
# missing, nothing else; apt's output is shown only if it fails.
demo: build
	INSTALL_ONLY=1 scripts/services.sh postgres
	$(BIN) run

# Everything, against real PostgreSQL and MariaDB: installs and starts them
# when missing, waits until they accept connections. Under CI=true an
# unreachable database fails the run instead of skipping.
test: lint
	scripts/test.sh

# Release archives (linux/darwin/windows x amd64/arm64, static, with man pages
# and completions) and SHA256SUMS in dist/.
dist:
	VERSION=$(VERSION) GO=$(GO) scripts/dist.sh

# Server binaries of PostgreSQL 13-18 for the live version matrix and for
# `writeamp run --pg-bin` (cached outside the repository; make test fetches them).
pg-versions:
	scripts/pg-versions.sh

# Unit tests only, with the race detector, under a minute and a half once
# the build cache is warm (-p 4: a test process waits on its links, so two
# cores serve four): no database needed (integration tests skip, and -short
# skips the tests that start servers of their own or build writeamp; make
# test runs them all). CI is unset too: under CI=true an integration test
# without its database fails rather than skips, which is right for make test
# and would make this target fail in any CI job.
# pgquery_cgo: the race detector needs cgo anyway, and through cgo
# libpg_query is C; the WebAssembly build the binary ships is compiled by
# wazero in every test process, about ten CPU seconds each once the race
# detector instruments the compiler. make test runs the shipped build.
UNIT_TAGS := pgquery_cgo
test-unit:
	env -u CI -u WRITEAMP_TEST_PG_DSN -u WRITEAMP_TEST_MYSQL_DSN -u WRITEAMP_TEST_PG_BINS $(GO) test -race -short -tags $(UNIT_TAGS) -p 4 -count=1 ./...

# Longer fuzzing of every parser of user input (budgets, rates, DSNs, SQL
# splitting, result and snapshot files).
fuzz:
	FUZZTIME=2000000x scripts/fuzz.sh

# Benchmarks print ratios against a peer measured in the same run.
bench: build
	@eval "$$(scripts/services.sh postgres)" && scripts/bench.sh

# The command reference in docs/cli, one page per command, from the
# commands' own help (a test fails when it is stale). Old pages go first so
# a removed command's page goes with it.
docs:
	rm -f docs/cli/*.md
	$(GO) run ./cmd/writeamp gen --markdown docs/cli

# golangci-lint, pinned, built from the Go module proxy into bin/ the
# first time (about a minute); .golangci.yml says which linters.
GOLANGCI_VERSION := v2.15.0
GOLANGCI := bin/golangci-lint-$(GOLANGCI_VERSION)

$(GOLANGCI):
	@mkdir -p bin
	GOBIN=$(CURDIR)/bin/.golangci $(GO) install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_VERSION)
	mv bin/.golangci/golangci-lint $@ && rm -rf bin/.golangci

lint: $(GOLANGCI)
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GOLANGCI) run ./...

fmt: $(GOLANGCI)
	$(GOLANGCI) fmt ./...

clean:
	rm -rf bin dist
