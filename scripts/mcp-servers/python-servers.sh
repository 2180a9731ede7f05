#!/usr/bin/env bash
# Prepares the Python MCP SDKs from PyPI that agent/mcp's conformance tests
# run agent/mcp/testdata/pyserver.py on, one venv per protocol generation:
#
#   .cache/mcp/python/mcp-1.22   mcp 1.22.0  protocol 2025-06-18 (handshake)
#   .cache/mcp/python/mcp-1.30   mcp 1.30.0  protocol 2025-11-25 (handshake)
#   .cache/mcp/python/mcp-2.3    mcp 2.3.0   protocol 2026-07-28 (server/discover)
#                                            and the handshake up to 2025-11-25
#
# Idempotent: a venv whose mcp already has the pinned version is left alone.
# Needs network access to PyPI; the base interpreter is Debian's python3
# (3.11), which scripts/system-deps.sh installs.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
dir="$root/.cache/mcp/python"
base=${PYTHON:-/usr/bin/python3}
mkdir -p "$dir"

for pin in 1.22.0 1.30.0 2.3.0; do
	venv="$dir/mcp-${pin%.*}"
	if [[ -x "$venv/bin/python" ]] &&
		[[ "$("$venv/bin/python" -c 'from importlib.metadata import version; print(version("mcp"))' 2>/dev/null)" == "$pin" ]] &&
		"$venv/bin/python" -c 'import uvicorn' 2>/dev/null; then
		continue
	fi
	rm -rf "$venv"
	"$base" -m venv "$venv"
	"$venv/bin/python" -m pip install -q --disable-pip-version-check "mcp==$pin" uvicorn
	echo "python-servers: $venv: mcp $pin"
done
