# The real ACP clients the freeact acp tests drive (app/acp): acpx and the
# protocol's SDK from npm, pinned by the lock file; Toad from PyPI.
# Included by the Makefile; it adds them to what the test targets need.
ACP_CLIENTS_STAMP := scripts/acp-clients/node_modules/.package-lock.json

$(ACP_CLIENTS_STAMP): scripts/acp-clients/package.json scripts/acp-clients/package-lock.json
	cd scripts/acp-clients && npm install --no-save --no-audit --no-fund
	@touch $@

# Jupyter AI 3 in a real JupyterLab, driven by headless Chromium (Debian's
# chromium, from deps-test), with freeact as a persona: its own target, as
# the issue allows, and a step of make test. The venv is made anew when the
# pinned requirements change.
JUPYTER_VENV  := .cache/acp-clients/jupyter-venv
JUPYTER_STAMP := $(JUPYTER_VENV)/.installed

$(JUPYTER_STAMP): scripts/acp-clients/jupyter/requirements.txt
	rm -rf $(JUPYTER_VENV)
	/usr/bin/python3 -m venv $(JUPYTER_VENV)
	$(JUPYTER_VENV)/bin/pip install -q --disable-pip-version-check -r $<
	@touch $@

.PHONY: deps-jupyter-ai test-acp-jupyter
deps-jupyter-ai: deps-python $(JUPYTER_STAMP) ## JupyterLab and Jupyter AI 3 for test-acp-jupyter (in .cache/acp-clients)

test-acp-jupyter: deps-test deps-jupyter-ai ## freeact as a Jupyter AI persona in JupyterLab under headless Chromium (screenshots and transcript in .cache/acp-clients/jupyter-out)
	$(GO) test -tags acpjupyter -count=1 -run 'TestJupyterAI' -v ./app/acp/

# Toad (PyPI batrachian-toad, pinned with what it needs in
# toad-requirements.txt) on a private Python 3.14 from Debian sid's .debs
# (pinned with their SHA256 in python314-debs.txt), unpacked into
# .cache/acp-clients/python3.14 and run by sid's own loader; nothing is
# installed into the system (see python314.sh). Made anew when a pin changes.
TOAD_PREFIX := .cache/acp-clients/python3.14

$(TOAD_PREFIX)/.installed: scripts/acp-clients/python314.sh scripts/acp-clients/python314-debs.txt scripts/acp-clients/toad-requirements.txt
	rm -f $@
	scripts/acp-clients/python314.sh install $(TOAD_PREFIX) scripts/acp-clients/toad-requirements.txt
	@touch $@

.PHONY: deps-toad test-acp-toad
deps-toad: $(TOAD_PREFIX)/.installed ## Toad on a private Python 3.14 from Debian sid (in .cache/acp-clients/python3.14)

# Toad under tmux drives freeact acp: a prompt, an approval answered by
# keys, the cell's output on screen. The screens it waited for are kept in
# TOAD_TRANSCRIPT (by make test-acp-toad, .cache/acp-clients/toad-out).
test-acp-toad: deps-toad ## Toad under tmux hosting freeact acp (make test runs it too; screens in .cache/acp-clients/toad-out)
	@mkdir -p .cache/acp-clients/toad-out
	TOAD_TRANSCRIPT=$(CURDIR)/.cache/acp-clients/toad-out/screens.txt $(GO) test -count=1 -run 'TestToadUnderTmux' -v ./app/acp/

# make test runs them all (Toad takes a few seconds).
test test-go test-stress: $(ACP_CLIENTS_STAMP) $(TOAD_PREFIX)/.installed

# The release archive build/acp/agent.json names (the ACP Registry's
# binary distribution), built and checked against the manifest.
.PHONY: package-acp
package-acp: ## the ACP Registry's archive of freeact (headless, static) into dist/, checked against build/acp/agent.json
	@scripts/package-acp.sh $(VERSION) dist
