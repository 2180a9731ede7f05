#!/usr/bin/env bash
# Smoke test of the production binary: it must open its window on a (virtual)
# display and draw something. Saves the screenshots under test-output/smoke/
# for a person to look at.
#
#   scripts/smoke.sh build/bin/freeact
set -euo pipefail

bin="$(realpath "${1:?usage: smoke.sh BINARY}")"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$root/test-output/smoke"
mkdir -p "$out"
rm -f "$out"/*.png

fail() {
	echo "smoke: FAIL: $*" >&2
	exit 1
}

if [[ -z "${SMOKE_INSIDE_XVFB:-}" ]]; then
# 1. Without a display, the binary explains how to run it instead of crashing.
msg="$(env -u DISPLAY -u WAYLAND_DISPLAY "$bin" 2>&1)" && fail "started without a display"
grep -q "xvfb-run" <<<"$msg" || fail "no-display message does not mention xvfb-run: $msg"
echo "smoke: ok: without a display it says: $(head -1 <<<"$msg")"

# 2. --help and version work without a display.
# Each output is read whole before grep: with pipefail, grep -q leaving
# early could fail the pipe with the writer's SIGPIPE.
help="$("$bin" --help)"
grep -q "version" <<<"$help" || fail "--help does not list the version command"
ver="$("$bin" version)"
grep -q "^freeact " <<<"$ver" || fail "version does not print the version"
echo "smoke: ok: $("$bin" version)"

# 3. The window opens under Xvfb and shows our UI.
	exec env SMOKE_INSIDE_XVFB=1 xvfb-run -a -s "-screen 0 1280x900x24" "$0" "$bin"
fi

home="$(mktemp -d)"
trap 'kill -- -"$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$home"' EXIT
# setsid: the app and whatever it starts get a process group of their own.
HOME="$home" XDG_CONFIG_HOME="$home/.config" XDG_DATA_HOME="$home/.local/share" \
	setsid "$bin" >"$out/app.log" 2>&1 &
pid=$!

wid="$(timeout 30 xdotool search --sync --onlyvisible --name '^freeact$' | head -1)" ||
	fail "no window titled 'freeact' within 30 s; app log:
$(cat "$out/app.log")"
# Give the web view time to render the first frame.
sleep 3
kill -0 "$pid" 2>/dev/null || fail "the app exited after opening its window; app log:
$(cat "$out/app.log")"

import -window root "$out/screen.png"
import -window "$wid" "$out/window.png"
geometry="$(xdotool getwindowgeometry "$wid" | awk '/Geometry/ {print $2}')"
sd="$(convert "$out/window.png" -colorspace Gray -format '%[fx:standard_deviation]' info:)"
echo "smoke: window $wid, geometry $geometry, grey standard deviation $sd"
awk -v sd="$sd" 'BEGIN { exit !(sd > 0.05) }' || fail "the window looks blank (standard deviation $sd <= 0.05): see $out/window.png"
echo "smoke: ok: the window draws our UI; screenshots in $out"
