# Public Claude Code hook scripts that agent's TestPublicHookScriptsRunUnchanged
# runs unchanged: cc-safety-net from npm (package.json, package-lock.json),
# agent-pd, edit-guard and agentbelay from PyPI (requirements.txt, into
# .cache/hook-scripts/venv). Included by the Makefile; it adds them to what
# the test targets need.
HOOK_SCRIPTS_STAMP := scripts/hook-scripts/node_modules/.package-lock.json
PY_HOOKS_STAMP := .cache/hook-scripts/venv/.requirements

$(HOOK_SCRIPTS_STAMP): scripts/hook-scripts/package.json scripts/hook-scripts/package-lock.json
	cd scripts/hook-scripts && npm install --no-save --no-audit --no-fund
	@touch $@

$(PY_HOOKS_STAMP): scripts/hook-scripts/requirements.txt scripts/hook-scripts/python-hooks.sh
	scripts/hook-scripts/python-hooks.sh
	@touch $@

test test-go test-stress: $(HOOK_SCRIPTS_STAMP) $(PY_HOOKS_STAMP)
