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
# toad-requirements.txt) in a venv of its own, for the tmux test
# (make test-acp-toad). Toad asks for Python 3.14; where there is only
# 3.13, it is installed anyway and run through toad313.py, which compiles
# Toad's modules with lazy annotations (see there).
TOAD_VENV := .cache/acp-clients/toad-venv
TOAD_PYTHON ?= $(firstword $(foreach p,python3.14 python3.13 $(wildcard $(HOME)/.pyenv/versions/3.14*/bin/python3) $(wildcard $(HOME)/.pyenv/versions/3.13*/bin/python3),\
	$(shell $(p) -c 'import sys; print(sys.executable)' 2>/dev/null)))

$(TOAD_VENV)/.installed: scripts/acp-clients/toad-requirements.txt
	@test -n "$(TOAD_PYTHON)" || { echo "Toad needs python3.14 (or python3.13) on the PATH" >&2; exit 1; }
	rm -rf $(TOAD_VENV)
	$(TOAD_PYTHON) -m venv $(TOAD_VENV)
	$(TOAD_VENV)/bin/pip install --quiet --disable-pip-version-check --ignore-requires-python -r scripts/acp-clients/toad-requirements.txt
	@touch $@

.PHONY: deps-toad test-acp-toad
deps-toad: $(TOAD_VENV)/.installed

# Toad under tmux drives freeact acp: a prompt, an approval answered by
# keys, the cell's output on screen. TOAD_TRANSCRIPT=FILE keeps the screens.
test-acp-toad: deps-toad ## Toad under tmux hosting freeact acp (make test runs it too)
	go test -count=1 -run 'TestToadUnderTmux' ./app/acp/

# make test runs them all (Toad takes about half a minute).
test test-go test-stress: $(ACP_CLIENTS_STAMP) $(TOAD_VENV)/.installed

# The release archive build/acp/agent.json names (the ACP Registry's
# binary distribution), built and checked against the manifest.
.PHONY: package-acp
package-acp: ## the ACP Registry's archive of freeact (headless, static) into dist/, checked against build/acp/agent.json
	@scripts/package-acp.sh $(VERSION) dist
