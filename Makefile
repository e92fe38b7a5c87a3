# Build, run and test the regulatory copilot backend. `make help` lists targets.
SHELL := /bin/bash
GO ?= go
PORT ?= 8080
FUNCTIONS := $(notdir $(wildcard functions/*))

.PHONY: help dev web-vendor migrate test test-unit test-go lint fmt build bench cachebench clean loadtest fuzz policyengine

help: ## list targets
	@grep -hE '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-14s %s\n", $$1, $$2}'

dev: ## run the chat API locally on http://127.0.0.1:$(PORT) with embedded defaults
	PORT=$(PORT) $(GO) run ./cmd/dev

web-vendor: ## copy the demo page's pinned browser libraries (tools/web-vendor) into shared/httpapi/web/vendor
	bash tools/web-vendor/vendor.sh

migrate: ## apply the Postgres migrations to DATABASE_URL (and the graph schema when MEMGRAPH_URI is set)
	$(GO) run ./functions/migrate

test: ## install and start the test servers, then run lint and every test
	@bash scripts/test.sh

test-unit: ## the inner loop: every package test that needs no server and builds no binary (go test -short)
	@env -u TEST_DATABASE_URL -u TEST_BOLT_URI -u TEST_SQS_ENDPOINT -u REQUIRE_TEST_SERVERS $(GO) test -short -count=1 ./...
	@$(GO) -C api/contract test -short -count=1 ./...

lint: ## gofmt, go vet and staticcheck
	@out="$$(gofmt -l $$(git ls-files '*.go' | grep -v '^infra/'))"; if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) tool staticcheck ./...
	$(GO) -C api/contract vet ./...
	$(GO) -C api/contract tool staticcheck ./...

fmt: ## format the Go code
	gofmt -w $$(git ls-files '*.go')

build: ## build every Lambda bootstrap into build/<function>/bootstrap (arm64)
	@for fn in $(FUNCTIONS); do \
	  echo "build $$fn"; \
	  mkdir -p build/$$fn; \
	  CGO_ENABLED=0 GOOS=linux GOARCH=arm64 $(GO) build -tags lambda.norpc -trimpath -buildvcs=false \
	    -ldflags="-s -w -buildid=" -o build/$$fn/bootstrap ./functions/$$fn || exit 1; \
	done

clean: ## remove build output and test state
	rm -rf build .testenv cdk.out

-include mk/*.mk

policyengine: ## compute PolicyEngine UK's side of the UK calculators' differential again and check it equals the committed grid (UPDATE=1 replaces it)
	@bash scripts/policyengine.sh

fuzz: ## the long fuzzing run: every Go fuzz target for FUZZ_TIME (default 60s); `make test` runs a fixed 2000 inputs each
	@FUZZ_TIME=$${FUZZ_TIME:-60s} bash scripts/test.d/fuzz.sh

bench: ## run the benchmarks (needs the test servers: see scripts/bench.sh)
	@bash scripts/bench.sh

cachebench: ## share of each model request cacheable by the provider, per turn, with cost (BEFORE=<commit> compares)
	@bash scripts/cachebench.sh

loadtest: ## drive the chat server (offline model, Postgres, then in-memory) with C=16 clients for DURATION=10 s; PROFILE=1 for a pprof top
	@bash scripts/loadtest.sh
