#!/usr/bin/env bash
# Installs the Jupyter servers the remote-kernel tests run against, each in
# a venv of its own under .cache/remote (from PyPI). Idempotent: run it again
# and it only fills in what is missing.
#
#   .cache/remote/kernel-gateway      jupyter_kernel_gateway + ipykernel
#   .cache/remote/enterprise-gateway  jupyter_enterprise_gateway + ipykernel<7
#                                     (it pins jupyter_client<7, jupyter_server<2)
#   .cache/remote/jupyter-server      jupyter_server + ipykernel
#   .cache/remote/jupyterhub          jupyterhub (pinned) + jupyter_server + ipykernel;
#   .cache/remote/configurable-http-proxy  the Hub's proxy (npm), pinned by
#                                     scripts/hub/package-lock.json
#
# The tests start each server as another user in a mount namespace of its
# own (kernel/remote_test.go), so the venvs must be readable by everyone:
# they are created with umask 022.
#
# Needs network access to PyPI; python3-venv from apt (scripts/setup-python.sh
# installs it).
set -euo pipefail
umask 022

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache="$root/.cache/remote"
mkdir -p "$cache"
base=/usr/bin/python3

# venv NAME IMPORTS PACKAGE...
venv() {
	local name=$1 imports=$2
	shift 2
	local dir="$cache/$name"
	if [[ ! -x "$dir/bin/python" ]]; then
		"$base" -m venv "$dir"
	fi
	if ! "$dir/bin/python" -c "import $imports" 2>/dev/null; then
		"$dir/bin/python" -m pip install -q --upgrade pip
		"$dir/bin/python" -m pip install -q --upgrade "$@"
	fi
	"$dir/bin/python" -c "import importlib.metadata as m; import re; print('setup-remote: $name', ', '.join(p + ' ' + m.version(p) for p in (re.split(r'[<>=]', a)[0] for a in '$*'.split())))"
}

venv kernel-gateway "kernel_gateway, ipykernel" jupyter_kernel_gateway ipykernel
# Without a floor pip settles on 2.5 (the resolver backtracks over
# jupyter_client); 3.x is the maintained line.
venv enterprise-gateway "enterprise_gateway, ipykernel" "jupyter_enterprise_gateway>=3.3" "ipykernel<7"
venv jupyter-server "jupyter_server, ipykernel" jupyter_server ipykernel
# The Hub: pinned, so a new release does not change what the Hub tests see.
venv jupyterhub "jupyterhub, jupyter_server, ipykernel" "jupyterhub==5.5.4" jupyter_server ipykernel
# configurable-http-proxy, from scripts/hub's lock file, in the cache.
chp="$cache/configurable-http-proxy"
mkdir -p "$chp"
if ! cmp -s "$root/scripts/hub/package-lock.json" "$chp/package-lock.json" || [[ ! -e "$chp/node_modules/.bin/configurable-http-proxy" ]]; then
	cp "$root/scripts/hub/package.json" "$root/scripts/hub/package-lock.json" "$chp/"
	(cd "$chp" && npm ci --no-audit --no-fund -q)
fi
echo "setup-remote: configurable-http-proxy $(node -p "require('$chp/node_modules/configurable-http-proxy/package.json').version")"
