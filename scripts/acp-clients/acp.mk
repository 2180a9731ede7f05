# The real ACP clients the freeact acp tests drive (app/acp): acpx from npm,
# pinned by the lock file. Included by the Makefile; it adds them to what
# the test targets need.
ACP_CLIENTS_STAMP := scripts/acp-clients/node_modules/.package-lock.json

$(ACP_CLIENTS_STAMP): scripts/acp-clients/package.json scripts/acp-clients/package-lock.json
	cd scripts/acp-clients && npm install --no-save --no-audit --no-fund
	@touch $@

test test-go test-stress: $(ACP_CLIENTS_STAMP)
