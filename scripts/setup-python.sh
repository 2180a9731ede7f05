#!/usr/bin/env bash
# Prepares the Python environments the kernel package's tests use. Idempotent:
# run it again and it only fills in what is missing.
#
#   .cache/python/venv      newest ipykernel, jupyter_server, matplotlib, numpy,
#                           pandas, pydantic from PyPI (FREEACT_TEST_PYTHON),
#                           and nbformat and nbconvert, which check exported
#                           notebooks
#   /usr/bin/python3        Debian 12's python3-ipykernel 6.17 and
#                           python3-jupyter-server 1.23 (FREEACT_TEST_OLD_PYTHON)
#   .cache/python/wheels    wheels for an offline provisioning test
#                           (FREEACT_TEST_WHEELS)
#   .cache/python/bare      a venv without ipykernel (FREEACT_TEST_BARE_PYTHON)
#   .cache/python/matplotlib  a warm matplotlib font cache (MPLCONFIGDIR of
#                           the browser tests)
#
# Needs root (apt) on Debian 12 and network access to PyPI and Debian apt.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache="$root/.cache/python"
mkdir -p "$cache"

packages=(ipykernel jupyter_server matplotlib numpy pandas pydantic)
# Only the tests need these (not the provisioning wheels below).
test_packages=(nbformat nbconvert)

apt_need=()
for p in python3 python3-venv python3-ipykernel python3-jupyter-server; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || apt_need+=("$p")
done
if ((${#apt_need[@]})); then
	if [[ $(id -u) -ne 0 ]]; then
		echo "setup-python: need apt packages ${apt_need[*]}; run as root or install them" >&2
		exit 1
	fi
	installed=no
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		if apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${apt_need[@]}"; then
			installed=yes
			break
		fi
		echo "setup-python: apt failed (busy?), retrying in 10s" >&2
		sleep 10
	done
	if [[ $installed != yes ]]; then
		echo "setup-python: could not install ${apt_need[*]} with apt-get" >&2
		exit 1
	fi
fi

# The base interpreter for the venvs: Debian's own, so the script behaves the
# same with or without pyenv on PATH.
base=/usr/bin/python3

if [[ ! -x "$cache/venv/bin/python" ]]; then
	"$base" -m venv "$cache/venv"
fi
if ! "$cache/venv/bin/python" -c 'import ipykernel, jupyter_server, matplotlib, numpy, pandas, pydantic, nbformat, nbconvert' 2>/dev/null; then
	"$cache/venv/bin/python" -m pip install -q --upgrade pip
	"$cache/venv/bin/python" -m pip install -q --upgrade "${packages[@]}" "${test_packages[@]}"
fi

# matplotlib builds a font cache on first use, which takes seconds on a
# loaded machine: pay it here, once, rather than in the first test that
# plots. Tests with the user's HOME use the default cache folder; the
# browser tests, which give the app a fresh HOME, point MPLCONFIGDIR at
# $cache/matplotlib.
warm='import matplotlib; matplotlib.use("Agg"); import matplotlib.pyplot as plt; plt.plot([1, 2]); plt.gcf().canvas.draw()'
"$cache/venv/bin/python" -c "$warm"
MPLCONFIGDIR="$cache/matplotlib" "$cache/venv/bin/python" -c "$warm"

if [[ ! -x "$cache/bare/bin/python" ]]; then
	"$base" -m venv --without-pip "$cache/bare"
fi

# Wheels for provisioning without the network at test time. The marker file,
# holding the package list, is written last, so an interrupted download or a
# changed list is done again.
if [[ "$(cat "$cache/wheels/.complete" 2>/dev/null)" != "${packages[*]}" ]]; then
	mkdir -p "$cache/wheels"
	"$cache/venv/bin/python" -m pip download -q -d "$cache/wheels" pip "${packages[@]}"
	echo "${packages[*]}" >"$cache/wheels/.complete"
fi

"$cache/venv/bin/python" -c 'import ipykernel, jupyter_server; print("setup-python: venv ipykernel", ipykernel.__version__, "jupyter_server", jupyter_server.__version__)'
"$base" -c 'import ipykernel, jupyter_server; print("setup-python: debian ipykernel", ipykernel.__version__, "jupyter_server", jupyter_server.__version__)'
