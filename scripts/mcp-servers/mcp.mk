# The MCP reference servers (npm) that the agent/mcp tests run against.
# Included by the Makefile; it adds them to what the test targets need.
MCP_SERVERS_STAMP := scripts/mcp-servers/node_modules/.package-lock.json

$(MCP_SERVERS_STAMP): scripts/mcp-servers/package.json scripts/mcp-servers/package-lock.json
	cd scripts/mcp-servers && npm install --no-save --no-audit --no-fund
	@touch $@

test test-go test-stress: $(MCP_SERVERS_STAMP)
