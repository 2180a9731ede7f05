#!/usr/bin/env bash
# make bench-compare: this app against the Python freeact 0.11.2 (its ipybox
# 0.9.2) and the floor (a bare ipykernel driven by jupyter_client,
# scripts/bench/floor.py), interleaved round by round on the same
# interpreter and the same stdio MCP server (scripts/bench/echo_server.py);
# prints each figure of issue 15's table, the ratios ours/theirs and
# ours/floor and the load average beside it.
#
#   scripts/bench/compare.sh [ROUNDS]        (default 5; or ROUNDS=n)
#   scripts/bench/compare.sh --binary        where this checkout builds its binary
#
# The reference is installed from PyPI into a venv under .cache/bench (never
# into the product), with Python 3.13 from pyenv (or PYTHON). Both systems'
# kernels run on that venv's interpreter: it has ipykernel and jupyter_server,
# which is all this app's kernels need. CI does not run this: it needs PyPI
# once and takes minutes.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# ours_binary ROOT: where the checkout at ROOT builds its side of the
# comparison: under its .cache, named after the checkout's path.
ours_binary() {
	mkdir -p "$1/.cache"
	echo "$(cd "$1/.cache" && pwd -P)/bench/ours-$(printf '%s' "$1" | sha256sum | cut -c1-12)"
}
if [[ "${1:-}" == --binary ]]; then # where this checkout's binary goes (the test asks)
	ours_binary "$root"
	exit 0
fi
# The real path: .cache of a worktree is a link to the main checkout's, and
# the venv's scripts name the path it was made at.
mkdir -p "$root/.cache"
venv="$(cd "$root/.cache" && pwd -P)/bench/freeact-0.11.2"
pins="freeact==0.11.2 ipybox==0.9.2"
is313() { "$1" -c 'import sys; sys.exit(sys.version_info < (3, 13))' 2>/dev/null; }

# ipybox starts the venv's jupyter script: a venv made through a worktree
# that is gone (its #! names a python that is no more) is made again.
if ! "$venv/bin/python" -c "from importlib.metadata import version as v; assert v('freeact') == '0.11.2' and v('ipybox') == '0.9.2'" 2>/dev/null ||
	! "$venv/bin/jupyter" --version >/dev/null 2>&1; then
	python=${PYTHON:-}
	if [[ -z $python ]]; then
		for p in "$HOME"/.pyenv/versions/3.13*/bin/python python3.13; do
			if is313 "$p"; then python=$p; break; fi
		done
	fi
	if [[ -z $python ]] || ! is313 "$python"; then
		echo "bench-compare: the reference needs Python >= 3.13: install it (pyenv install 3.13) or set PYTHON" >&2
		exit 1
	fi
	echo "bench-compare: installing $pins into $venv" >&2
	rm -rf "$venv"
	"$python" -m venv "$venv"
	# shellcheck disable=SC2086 # the pins are separate words
	"$venv/bin/python" -m pip install -q --disable-pip-version-check $pins
fi

# This checkout's own binary: .cache may be a link shared with other
# checkouts (a worktree's is the main checkout's), so the name carries this
# checkout's path, and it is built beside and renamed into place, so two
# checkouts never run each other's build, nor a half-written one.
ours="$(ours_binary "$root")"
mkdir -p "$(dirname "$ours")"
(cd "$root" && go build -o "$ours.tmp.$$" ./scripts/bench/ours && mv -f "$ours.tmp.$$" "$ours")
exec "$venv/bin/python" "$root/scripts/bench/compare.py" --rounds "${1:-${ROUNDS:-5}}" \
	--ours "$ours" --python "$venv/bin/python" --echo-server "$root/scripts/bench/echo_server.py"
