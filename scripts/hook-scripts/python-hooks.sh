#!/usr/bin/env bash
# Installs the public Claude Code hook scripts from PyPI pinned in
# requirements.txt beside this file into .cache/hook-scripts/venv, for
# agent's TestPublicHookScriptsRunUnchanged. Idempotent: a venv that holds
# exactly these pins is left alone. Needs network access to PyPI; the base
# interpreter is Debian's python3, which scripts/system-deps.sh installs.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="$root/.cache/hook-scripts/venv"
base=${PYTHON:-/usr/bin/python3}
stamp="$venv/.requirements"

if [[ -x "$venv/bin/python" ]] && cmp -s "$here/requirements.txt" "$stamp"; then
	exit 0
fi
rm -rf "$venv"
mkdir -p "$(dirname "$venv")"
"$base" -m venv "$venv"
"$venv/bin/python" -m pip install -q --disable-pip-version-check --no-deps -r "$here/requirements.txt"
cp "$here/requirements.txt" "$stamp"
echo "python-hooks: $venv: $(grep -v '^#' "$here/requirements.txt" | tr '\n' ' ')"
