#!/usr/bin/env bash
# Makes the compatibility fixtures: workspaces made by the real Python freeact
# 0.10.12 (the last release writing agent.json) and 0.11.2 (config.toml and
# permissions.toml), each with a session of two turns, into
# agent/testdata/freeact/<version>/. The Go tests open them, run a turn and
# resume their sessions. Run it again to remake them; commit the result.
#
#   scripts/compat/make-fixtures.sh [VERSION...]
#   scripts/compat/make-fixtures.sh --check [VERSION...]
#
# Each run (and --check alone) also has freeact's own session store load the
# messages this app writes into freeact's sessions
# (agent/model/pydanticai/testdata/encoded.jsonl, scripts/compat/check-encoded.py).
#
# freeact is installed from PyPI into venvs under .cache/compat (never into
# the product). It needs Python >= 3.13 (pyenv's 3.13, or set PYTHON) and
# network access to PyPI. Its dependencies are held to the releases of its
# time: freeact 0.10.12 asks for pydantic-ai>=1.99 without an upper bound,
# and pydantic-ai 2 (with mcp 2) no longer has the API it imports.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cache="$root/.cache/compat"
out="$root/agent/testdata/freeact"
is313() { "$1" -c 'import sys; sys.exit(sys.version_info < (3, 13))' 2>/dev/null; }
python=${PYTHON:-}
if [[ -z $python ]]; then
	for p in python3.14 python3.13 "$HOME"/.pyenv/versions/3.1[3-9]*/bin/python; do
		if is313 "$p"; then python=$p; break; fi
	done
fi
if [[ -z $python ]] || ! is313 "$python"; then
	echo "make-fixtures: freeact needs Python >= 3.13: install it (pyenv install 3.13) or set PYTHON" >&2
	exit 1
fi

declare -A pins=(
	[0.10.12]="freeact==0.10.12 pydantic-ai>=1.99,<2 mcp<2"
	[0.11.2]="freeact==0.11.2"
)
check_only=no
if [[ ${1:-} == --check ]]; then
	check_only=yes
	shift
fi
versions=("$@")
((${#versions[@]})) || versions=(0.10.12 0.11.2)

for v in "${versions[@]}"; do
	[[ -n ${pins[$v]:-} ]] || { echo "make-fixtures: no pins for freeact $v (known: ${!pins[*]})" >&2; exit 1; }
	venv="$cache/freeact-$v"
	if ! "$venv/bin/python" -c "from importlib.metadata import version; assert version('freeact') == '$v'; import freeact.agent" 2>/dev/null; then
		rm -rf "$venv"
		"$python" -m venv "$venv"
		# shellcheck disable=SC2086 # the pins are separate words
		"$venv/bin/python" -m pip install -q --disable-pip-version-check ${pins[$v]}
	fi
	echo -n "make-fixtures: freeact $v: "
	"$venv/bin/python" "$root/scripts/compat/check-encoded.py" "$root/agent/model/pydanticai/testdata/encoded.jsonl"
	[[ $check_only == yes ]] && continue

	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
	# The workspace's "python" (MCP servers, freeact's own tool servers) is
	# the venv's, as it is for a user who runs freeact from its venv.
	(cd "$work" && PATH="$venv/bin:$PATH" GEMINI_API_KEY=fixture-key \
		"$venv/bin/python" "$root/scripts/compat/drive.py" "$v" "$root/agent/mcp/testdata/pyserver.py")

	find "$work" \( -name __pycache__ -o -name .ipynb_checkpoints \) -prune -exec rm -rf {} +
	rm -rf "${out:?}/$v"
	mkdir -p "$out"
	cp -a "$work" "$out/$v"
	chmod 755 "$out/$v"
	rm -rf "$work"
	trap - EXIT
	echo "make-fixtures: freeact $v -> ${out#"$root"/}/$v ($(find "$out/$v" -type f | wc -l) files)"
done
