# The official MCP conformance suite, client mode: every client scenario run
# against build/bin/mcp-conformance-client (agent/mcp/internal/conformance,
# the agent's own MCP code). The suite needs Node >= 22; npm's `node` package
# brings one into .cache/mcp-conformance, pinned with the suite by the
# lockfile here. Included by the Makefile.
CONFORMANCE_DIR   := .cache/mcp-conformance
CONFORMANCE_STAMP := $(CONFORMANCE_DIR)/node_modules/.package-lock.json
CONFORMANCE_CLIENT := build/bin/mcp-conformance-client

$(CONFORMANCE_STAMP): scripts/mcp-conformance/package.json scripts/mcp-conformance/package-lock.json
	mkdir -p $(CONFORMANCE_DIR)
	cp scripts/mcp-conformance/package.json scripts/mcp-conformance/package-lock.json $(CONFORMANCE_DIR)/
	cd $(CONFORMANCE_DIR) && npm ci --no-audit --no-fund
	@touch $@

$(CONFORMANCE_CLIENT): $(GO_SOURCES)
	$(GO) build -o $@ ./agent/mcp/internal/conformance

.PHONY: test-mcp-conformance
test-mcp-conformance: $(CONFORMANCE_STAMP) $(CONFORMANCE_CLIENT) ## the official MCP conformance suite's client scenarios
	rm -rf test-output/mcp-conformance && mkdir -p test-output/mcp-conformance
	scripts/mcp-conformance/run.sh "$$PWD/$(CONFORMANCE_CLIENT)" "$$PWD/$(CONFORMANCE_DIR)/node_modules/.bin" test-output/mcp-conformance
