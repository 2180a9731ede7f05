#!/usr/bin/env bash
# The fast test tier: go test -short ./..., which must need nothing but Go
# (no Python, Jupyter, Node, npm, srt or display). This script proves it:
# those programs are replaced on PATH by stubs that record every call and
# fail, FREEACT_TEST_PYTHON points at a stub, DISPLAY is unset and CI=true
# (so a test that looked for a missing program would fail, not skip). The
# run fails when the tests fail or when any stub was called.
#
# Speed (the tier must stay well under a minute on 2 loaded cores): most of
# its time is linking some 30 test binaries, so they are linked without
# symbol tables and DWARF (-s -w; panics still show file:line), and -p 4
# lets packages that wait (on timeouts, servers) overlap the links instead
# of holding one of two slots.
#
#   scripts/test-short.sh [go test flags...]     e.g. -race, -run X
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
stubs="$(mktemp -d)"
# The tests' temporary folders go to memory when the machine has a tmpfs:
# they sync every file they write (sessions, checkpoints, settings), and on
# a disk that other jobs keep busy each sync can take tens of milliseconds.
# (Tests run programs they write there, so a noexec tmpfs is not used.)
tmp=""
if [[ -d /dev/shm && -w /dev/shm ]] && tmp="$(mktemp -d -p /dev/shm freeact-test-short.XXXXXX)"; then
	printf '#!/bin/sh\n' >"$tmp/exec-check" && chmod +x "$tmp/exec-check"
	if ! "$tmp/exec-check" 2>/dev/null; then
		rm -rf "$tmp"
		tmp=""
	fi
fi
trap 'rm -rf "$stubs" ${tmp:+"$tmp"}' EXIT

programs=(python python3 pip pip3 ipython jupyter jupyter-server jupyter-kernel
	node npm npx srt xvfb-run Xvfb xdotool chromium chromium-browser google-chrome)
for v in 8 9 10 11 12 13 14; do programs+=("python3.$v"); done
for p in "${programs[@]}"; do
	cat >"$stubs/$p" <<STUB
#!/bin/sh
echo "$p \$*" >>"$stubs/calls"
echo "test-short: $p must not be needed by the fast tier" >&2
exit 127
STUB
	chmod +x "$stubs/$p"
done

cd "$root"
start=$(date +%s%N)
status=0
env -u DISPLAY -u WAYLAND_DISPLAY ${tmp:+TMPDIR="$tmp" GOTMPDIR="$tmp"} PATH="$stubs:$PATH" FREEACT_TEST_PYTHON="$stubs/python3" CI=true \
	go test -short -count=1 -p 4 -ldflags='-s -w' "$@" ./... || status=$?
ms=$((($(date +%s%N) - start) / 1000000))
printf 'test-short: go test -short took %d.%d s\n' $((ms / 1000)) $((ms % 1000 / 100))
if [[ -s "$stubs/calls" ]]; then
	echo "test-short: FAIL: the fast tier ran programs it must not need:" >&2
	sort "$stubs/calls" | uniq -c >&2
	exit 1
fi
exit "$status"
