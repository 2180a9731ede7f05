# The real ACP clients the freeact acp tests drive (app/acp): acpx from npm,
# pinned by the lock file. Included by the Makefile; it adds them to what
# the test targets need.
ACP_CLIENTS_STAMP := scripts/acp-clients/node_modules/.package-lock.json

$(ACP_CLIENTS_STAMP): scripts/acp-clients/package.json scripts/acp-clients/package-lock.json
	cd scripts/acp-clients && npm install --no-save --no-audit --no-fund
	@touch $@

test test-go test-stress: $(ACP_CLIENTS_STAMP)

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
