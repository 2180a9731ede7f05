#!/usr/bin/env bash
# Installs the system packages freeact needs, by purpose:
#
#   scripts/system-deps.sh build [run] [test]
#
#   build  compile the desktop binary (GTK 3, WebKitGTK 4.1, a C toolchain)
#   run    open the window on a headless machine (Xvfb)
#   test   everything the test suites use (debootstrap for the .deb's clean
#          install, chromium, ImageMagick, xdotool and
#          xprop, the sandbox's bubblewrap, socat and ripgrep, a D-Bus session
#          with GNOME Keyring for the keyring tests, stress-ng for make
#          test-stress, and for the journey suite the accessibility bus,
#          PyGObject with GTK and AT-SPI, dbus-run-session)
#
# Debian 12 and 13, Ubuntu 22.04 and 24.04. As root (or with passwordless sudo) it runs apt;
# otherwise it prints the exact apt line and stops. It also checks the Go and
# Node.js versions, which it does not install.
set -euo pipefail

want=()
for group in "$@"; do
	case "$group" in
	build) want+=(build-essential pkg-config libgtk-3-dev libwebkit2gtk-4.1-dev) ;;
	run) want+=(xvfb xauth) ;;
	test) want+=(debootstrap xvfb xauth imagemagick xdotool x11-utils chromium desktop-file-utils bubblewrap socat ripgrep stress-ng
		python3-gi gir1.2-gtk-3.0 gir1.2-atspi-2.0 at-spi2-core dbus-bin dbus-daemon gnome-keyring libsecret-tools tmux) ;;
	*)
		echo "system-deps: unknown group '$group' (use build, run or test)" >&2
		exit 2
		;;
	esac
done

missing=()
for p in "${want[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Drop duplicates while keeping the order.
mapfile -t missing < <(printf '%s\n' "${missing[@]}" | awk 'NF && !seen[$0]++')

if ((${#missing[@]})); then
	line="apt-get install -y ${missing[*]}"
	if [[ $(id -u) -eq 0 ]]; then
		sudo=()
	elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
		sudo=(sudo)
	else
		echo "freeact needs these system packages: ${missing[*]}" >&2
		echo "Install them, then run make again:" >&2
		echo "  sudo apt-get update && sudo $line" >&2
		exit 1
	fi
	echo "system-deps: installing ${missing[*]}"
	# Another apt may hold the lock for a while (unattended upgrades): wait.
	for attempt in 1 2 3 4 5 6; do
		if "${sudo[@]}" apt-get update -qq &&
			DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; then
			break
		fi
		if ((attempt == 6)); then
			echo "system-deps: apt failed; try by hand: sudo apt-get update && sudo $line" >&2
			exit 1
		fi
		echo "system-deps: apt failed (attempt $attempt), retrying in 10 s" >&2
		sleep 10
	done
fi

# Toolchains are not apt's business here: Debian's are too old.
need_go="1.21" # newer toolchains (go.mod asks for 1.26) are fetched by Go itself
need_node="20.19"
version_ge() { [[ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -1)" == "$2" ]]; }
if ! command -v go >/dev/null; then
	echo "freeact needs Go >= $need_go on PATH (https://go.dev/doc/install); Go then fetches the 1.26 toolchain go.mod asks for." >&2
	exit 1
fi
gov="$(go env GOVERSION)"
gov="${gov#go}"
if ! version_ge "$gov" "$need_go"; then
	echo "freeact needs Go >= $need_go, found $gov: install a newer Go (https://go.dev/doc/install)." >&2
	exit 1
fi
if ! command -v node >/dev/null || ! version_ge "$(node -p process.versions.node)" "$need_node"; then
	echo "freeact needs Node.js >= $need_node with npm to build the frontend (found: $(node --version 2>/dev/null || echo none))." >&2
	echo "Install it from your distribution's backports or https://nodejs.org, then run make again." >&2
	exit 1
fi
