# The MCP servers that the agent/mcp tests run against: the reference servers
# from npm, and the Python MCP SDKs from PyPI (one venv per protocol
# generation, in .cache/mcp/python). Included by the Makefile; it adds them
# to what the test targets need.
MCP_SERVERS_STAMP := scripts/mcp-servers/node_modules/.package-lock.json
PY_MCP_STAMP := .cache/mcp/python/.complete

$(MCP_SERVERS_STAMP): scripts/mcp-servers/package.json scripts/mcp-servers/package-lock.json
	cd scripts/mcp-servers && npm install --no-save --no-audit --no-fund
	@touch $@

$(PY_MCP_STAMP): scripts/mcp-servers/python-servers.sh
	scripts/mcp-servers/python-servers.sh
	@touch $@

test test-go test-stress: $(MCP_SERVERS_STAMP) $(PY_MCP_STAMP)

.PHONY: test-mcp-load
test-mcp-load: $(MCP_SERVERS_STAMP) $(PY_MCP_STAMP) ## 20 MCP connects a server with CPU hogs beside them (slow)
	FREEACT_MCP_LOAD=1 $(GO) test -count=1 -timeout 60m -run TestConformanceUnderLoad -v ./agent/mcp
