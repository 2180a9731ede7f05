# freeact desktop. The two commands a person needs:
#   make run    install what is missing, build, open the app
#   make test   install what the tests need, run every suite
# Everything is built inside this clone (bin/, build/bin/, .cache/, dist/).

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help
.DELETE_ON_ERROR:

GO        ?= go
# The release in VERSION, plus commits since it (scripts/version.sh); no tags
# needed. Computed once: the build and the package checks must name the same.
VERSION   ?= $(shell scripts/version.sh)
VERSION   := $(VERSION)
LDFLAGS   := -s -w -X main.version=$(VERSION)
XVFB      := xvfb-run -a -s "-screen 0 1280x900x24"
BIN       := build/bin/freeact
DEV_BIN   := build/bin/freeact-dev
FAKEMODEL := build/bin/fakemodel
WAILS     := bin/wails
STATICCHECK := bin/staticcheck
STATICCHECK_VERSION := v0.7.0
NPM_STAMP := frontend/node_modules/.package-lock.json
# sandbox-runtime (srt) for the sandbox tests; users install it with npm -g.
SRT_STAMP := scripts/srt/node_modules/.package-lock.json
# WebKitGTK 4.1 (Wails's webkit2_41 tag): Debian 12 and 13, Ubuntu 22.04 and
# 24.04 all ship it, so one .deb installs on each; 4.0 is gone from the newer ones.
webkit_tags := ,webkit2_41

GO_SOURCES := $(shell find . -name '*.go' -not -path './frontend/*' -not -path './.cache/*' 2>/dev/null) go.mod go.sum
FRONTEND_SOURCES := $(shell find frontend/src frontend/public -type f 2>/dev/null) \
	frontend/index.html frontend/vite.config.ts frontend/svelte.config.js frontend/tsconfig.json

.PHONY: help
help: ## list the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-z0-9-]+:.*## / {printf "  make %-14s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

# ---------------------------------------------------------------- setup

.PHONY: deps-build deps-test deps-python deps-remote
deps-build: ## system packages to build and run (apt; asks for root)
	@scripts/system-deps.sh build run
deps-test: deps-build ## system packages for the test suites
	@scripts/system-deps.sh test
deps-python: ## Python environments the kernel tests use (in .cache/)
	@scripts/setup-python.sh
deps-remote: deps-python ## Jupyter servers the remote-kernel tests run (in .cache/remote)
	@scripts/setup-remote.sh

$(NPM_STAMP): frontend/package.json frontend/package-lock.json
	cd frontend && npm install --no-save --no-audit --no-fund
	@touch $@

$(SRT_STAMP): scripts/srt/package.json scripts/srt/package-lock.json
	cd scripts/srt && npm install --no-save --no-audit --no-fund
	@touch $@

$(WAILS): scripts/wails-cli/go.mod scripts/wails-cli/go.sum
	cd scripts/wails-cli && $(GO) build -o ../../$(WAILS) github.com/wailsapp/wails/v2/cmd/wails

$(STATICCHECK):
	GOBIN=$(CURDIR)/bin $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

# ---------------------------------------------------------------- build

frontend/dist/index.html: $(NPM_STAMP) $(FRONTEND_SOURCES)
	cd frontend && npm run build

.PHONY: frontend build build-dev bindings
frontend: frontend/dist/index.html ## build the frontend into frontend/dist

build: $(BIN) ## build the desktop binary
# Rebuilt when the version changes too (a commit that touches no Go file).
VERSION_STAMP := build/bin/.version
$(VERSION_STAMP): FORCE
	@mkdir -p $(@D); [ "$$(cat $@ 2>/dev/null)" = "$(VERSION)" ] || echo "$(VERSION)" >$@
.PHONY: FORCE
FORCE:

$(BIN): frontend/dist/index.html $(GO_SOURCES) $(VERSION_STAMP)
	$(GO) build -tags desktop,production$(webkit_tags) -trimpath -ldflags '$(LDFLAGS)' -o $@ .

build-dev: $(DEV_BIN) ## build the dev binary the browser tests drive
$(DEV_BIN): frontend/dist/index.html $(GO_SOURCES)
	$(GO) build -tags dev$(webkit_tags) -ldflags '-X main.version=dev' -o $@ .

$(FAKEMODEL): $(GO_SOURCES)
	$(GO) build -o $@ ./app/internal/fakemodel

bindings: $(WAILS) ## regenerate the frontend's Go bindings (frontend/src/wailsjs)
	$(WAILS) generate module

# ---------------------------------------------------------------- run

.PHONY: run
run: deps-build build ## install what is missing, build and open the app
	@if [ -z "$${DISPLAY:-}$${WAYLAND_DISPLAY:-}" ]; then \
		echo "No display here, so the window cannot open. On a headless machine run:"; \
		echo "  $(XVFB) make run"; \
		echo "or, once built:  $(XVFB) ./$(BIN)"; \
		exit 1; \
	fi
	./$(BIN)

.PHONY: package
package: deps-build build ## build a .deb into dist/
	@rm -f dist/freeact_*.deb
	@scripts/package-deb.sh $(BIN) $(VERSION) dist

# ---------------------------------------------------------------- test

.PHONY: test lint check-bindings test-short test-go test-stress test-crash test-frontend test-e2e test-smoke test-package
# make test runs the suites in these steps (scripts/test-suites.sh): a
# step's suites, joined by +, run side by side, and each step waits for the
# one before. Only a suite that leaves the CPUs mostly free, or whose tests
# pass under load, goes beside another: test-frontend (its own files) beside
# the fast Go tier, and test-package (debootstrap, apt, dpkg: I/O) beside
# the journeys, niced (the first suite of a step has the CPUs first).
# test-go and the journeys have no CPU-heavy suite beside them, and
# test-e2e none at all: its responsiveness test counts the page's frames,
# which a busy machine drops (it failed beside the conformance suite on a
# machine at load 18). The
# production binary is built once ("build") before the suites that run it
# (smoke, journeys, package); smoke goes first, as the quick check that it
# opens at all. Each suite's log is in test-output/logs/, and the end
# prints each suite's wall time.
TEST_STEPS ?= lint test-short+test-frontend test-go test-acp-jupyter test-mcp-conformance test-e2e \
	build test-smoke test-journey+test-package
test: deps-test deps-python deps-remote $(NPM_STAMP) $(SRT_STAMP) ## install what the tests need and run every suite (side by side where they allow; times at the end)
	@MAKE="$(MAKE)" scripts/test-suites.sh $(TEST_STEPS)

lint: $(STATICCHECK) $(WAILS) $(NPM_STAMP) ## gofmt, go vet, staticcheck, bindings, commit subjects
	scripts/check-commits.sh
	@bad=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$bad" ]; then echo "gofmt needed:"; echo "$$bad"; exit 1; fi
	$(GO) vet ./...
	$(STATICCHECK) ./...
	$(MAKE) check-cross
	$(MAKE) check-bindings

# The core (agent, kernel, internal) builds and passes go vet, tests
# included, for Windows and macOS too: cross-compiled without cgo. app/
# and main need Wails's cgo web view for the target, so they are left out.
CROSS_PACKAGES := ./agent/... ./kernel/... ./internal/...
CROSS_TARGETS  := windows/amd64 darwin/arm64
.PHONY: check-cross
check-cross: ## go vet of the core cross-compiled for windows/amd64 and darwin/arm64
	@for t in $(CROSS_TARGETS); do \
		echo "go vet $(CROSS_PACKAGES) for $$t"; \
		CGO_ENABLED=0 GOOS=$${t%/*} GOARCH=$${t#*/} $(GO) vet $(CROSS_PACKAGES) || \
			{ echo "the core does not build for $$t: put platform code in _unix.go/_other.go files (docs/architecture.md)"; exit 1; }; \
	done

check-bindings: $(WAILS)
	@$(WAILS) generate module >/dev/null
	@git diff --exit-code --stat -- frontend/src/wailsjs || \
		{ echo "frontend/src/wailsjs is out of date: run 'make bindings' and commit it"; exit 1; }

test-short: ## the fast tier: go test -short ./..., proven to run without Python, Node or a display
	scripts/test-short.sh

# go test ends a package's binary after 10 minutes by default; the kernel
# package alone takes 5-10 of them on a loaded 2-core machine.
GO_TEST_TIMEOUT ?= 30m

test-go: ## go test -race ./... (both tiers)
	$(GO) test -race -count=1 -timeout $(GO_TEST_TIMEOUT) ./...

# The Go suite on a loaded machine: stress-ng keeps busy as many CPUs as
# STRESS says, started and stopped here by its PID (also when the tests
# fail; --timeout ends it should make itself be killed).
STRESS ?= --cpu 2
test-stress: deps-test deps-python deps-remote $(SRT_STAMP) ## go test -race ./... while stress-ng loads the CPUs (STRESS="--cpu 2")
	@stress-ng $(STRESS) --timeout 3h --quiet & pid=$$!; \
	trap 'kill $$pid 2>/dev/null; wait $$pid 2>/dev/null || true' EXIT; \
	echo "test-stress: stress-ng $(STRESS) is running (pid $$pid)"; \
	start=$$(date +%s); \
	$(GO) test -race -count=1 -timeout $(GO_TEST_TIMEOUT) ./...; \
	echo "test-stress: the Go suite passed under stress-ng $(STRESS) in $$(( $$(date +%s) - start )) s"

# The crash harness (app/crash_test.go): the real binary, built with
# -tags crashtest, killed at CRASH_POINTS kill points of each operation
# (besides those reached once or twice), then started again and checked.
CRASH_POINTS ?= 6
test-crash: deps-test deps-python ## kill -9 freeact at kill points of actions, reverts, compaction, session writes, exports
	FREEACT_CRASH_POINTS=$(CRASH_POINTS) $(GO) test -count=1 -timeout 3h -v -run 'TestCrash|TestTwoProcesses' ./app/

test-frontend: $(NPM_STAMP) ## type check and unit tests of the frontend
	cd frontend && npm run check && npm test

test-e2e: $(DEV_BIN) $(FAKEMODEL) ## browser end-to-end suite (dev build + chromium, under Xvfb)
	cd frontend && FREEACT_DEV_BIN=$(CURDIR)/$(DEV_BIN) FREEACT_FAKEMODEL_BIN=$(CURDIR)/$(FAKEMODEL) $(XVFB) npm run e2e

# The journeys need a session bus for the accessibility tree they read
# (dbus-run-session) and a display (xvfb-run). The accessibility bus puts
# its socket in $XDG_RUNTIME_DIR, else in ~/.cache/at-spi, where a second
# run at the same time would take it over: each run gets its own folder.
JOURNEY_TEST = rt=$$(mktemp -d); trap 'rm -rf "$$rt"' EXIT; \
	XDG_RUNTIME_DIR=$$rt dbus-run-session -- $(XVFB) $(GO) test -tags journey

test-journey: $(BIN) $(FAKEMODEL) ## the production app driven by xdotool under Xvfb (journey/)
	$(XVFB) $(GO) test -race -count=1 -tags desktop$(webkit_tags) ./app/internal/webview/...
	$(JOURNEY_TEST) -count=1 -timeout 30m ./journey/

test-smoke: $(BIN) ## open the production binary under Xvfb and screenshot it
	scripts/smoke.sh $(BIN)

# The clean Debian 12 root and the .debs it installs are kept in DEB_ROOT.
DEB_ROOT ?= .cache/debian12
test-package: package ## build the .deb, check it, install and run it in a clean Debian 12 root
	scripts/check-deb.sh dist/freeact_*.deb $(VERSION)
	scripts/deb-chroot.sh dist/freeact_*.deb $(VERSION) $(DEB_ROOT)

# Not part of make test: a second root costs a debootstrap and a download.
.PHONY: test-package-debian13
test-package-debian13: package ## the same .deb installed and run in a clean Debian 13 (trixie) root
	DEBIAN_SUITE=trixie scripts/deb-chroot.sh dist/freeact_*.deb $(VERSION) .cache/debian13

.PHONY: test-local-model
test-local-model: deps-python ## a real llama.cpp server (built once into .cache/llama) and SmolLM2-135M, end to end; RECORD=1 rewrites its wire fixtures
	scripts/local-model/test.sh

.PHONY: bench-memory
bench-memory: $(BIN) ## the desktop app's idle memory beside a blank WebKitGTK window
	$(JOURNEY_TEST) -run '^$$' -bench DesktopIdleMemory -benchtime 1x -v ./journey/

.PHONY: bench-compare
bench-compare: ## this app against freeact 0.11.2/ipybox and a bare ipykernel (the floor) side by side (installs the reference in .cache/bench; ROUNDS=5)
	@scripts/bench/compare.sh

.PHONY: clean
clean: ## remove build outputs (keeps downloaded dependencies)
	rm -rf build/bin dist test-output frontend/dist/assets frontend/dist/index.html

include scripts/mcp-servers/mcp.mk
include scripts/acp-clients/acp.mk
include scripts/mcp-conformance/conformance.mk
include scripts/hook-scripts/hook-scripts.mk
