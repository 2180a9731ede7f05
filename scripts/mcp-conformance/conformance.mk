# The official MCP conformance suite, client mode, run twice: every client
# scenario against build/bin/mcp-conformance-client (agent/mcp/internal/
# conformance: the agent's own MCP code through its Manager), and again
# through `freeact run --json` as users run it (app/internal/conformance:
# a fake model calls the scenario's tools and a script answers the
# questions on stdin; the kernel runs in the test Python). The suite needs
# Node >= 22; npm's `node` package brings one into .cache/mcp-conformance,
# pinned with the suite by the lockfile here. Included by the Makefile.
CONFORMANCE_DIR   := .cache/mcp-conformance
CONFORMANCE_STAMP := $(CONFORMANCE_DIR)/node_modules/.package-lock.json
CONFORMANCE_CLIENT := build/bin/mcp-conformance-client
CONFORMANCE_RUN    := build/bin/mcp-conformance-run
CONFORMANCE_FREEACT := build/bin/freeact-terminal
CONFORMANCE_PYTHON ?= $(or $(FREEACT_TEST_PYTHON),$(CURDIR)/.cache/python/venv/bin/python)

$(CONFORMANCE_STAMP): scripts/mcp-conformance/package.json scripts/mcp-conformance/package-lock.json
	mkdir -p $(CONFORMANCE_DIR)
	cp scripts/mcp-conformance/package.json scripts/mcp-conformance/package-lock.json $(CONFORMANCE_DIR)/
	cd $(CONFORMANCE_DIR) && npm ci --no-audit --no-fund
	@touch $@

$(CONFORMANCE_CLIENT): $(GO_SOURCES)
	$(GO) build -o $@ ./agent/mcp/internal/conformance

$(CONFORMANCE_RUN): $(GO_SOURCES)
	$(GO) build -o $@ ./app/internal/conformance

# The terminal mode needs no frontend: a plain build of the binary.
$(CONFORMANCE_FREEACT): $(GO_SOURCES)
	$(GO) build -o $@ .

.PHONY: test-mcp-conformance
test-mcp-conformance: $(CONFORMANCE_STAMP) $(CONFORMANCE_CLIENT) $(CONFORMANCE_RUN) $(CONFORMANCE_FREEACT) deps-python ## the official MCP conformance suite's client scenarios, through the Manager and through freeact run --json
	rm -rf test-output/mcp-conformance && mkdir -p test-output/mcp-conformance
	@echo "Through the agent's MCP Manager:"
	scripts/mcp-conformance/run.sh "$$PWD/$(CONFORMANCE_CLIENT)" "$$PWD/$(CONFORMANCE_DIR)/node_modules/.bin" test-output/mcp-conformance/manager
	@echo "Through freeact run --json:"
	scripts/mcp-conformance/run.sh "$$PWD/$(CONFORMANCE_RUN) -freeact $$PWD/$(CONFORMANCE_FREEACT) -python $(CONFORMANCE_PYTHON)" "$$PWD/$(CONFORMANCE_DIR)/node_modules/.bin" test-output/mcp-conformance/freeact-run
