#!/usr/bin/env bash
# Which WebKitGTK the desktop build uses. Debian 12 ships webkit2gtk-4.0,
# Ubuntu 24.04 only 4.1, which Wails selects with the webkit2_41 build tag.
#
#   scripts/webkit.sh package   the -dev package to install
#   scripts/webkit.sh tags      extra Go build tags ("" or ",webkit2_41")
set -euo pipefail

use41() {
	# Prefer what is installed; otherwise what apt can install.
	if pkg-config --exists webkit2gtk-4.0 2>/dev/null; then
		return 1
	fi
	if pkg-config --exists webkit2gtk-4.1 2>/dev/null; then
		return 0
	fi
	! apt-cache show libwebkit2gtk-4.0-dev >/dev/null 2>&1
}

case "${1:-}" in
package) if use41; then echo libwebkit2gtk-4.1-dev; else echo libwebkit2gtk-4.0-dev; fi ;;
tags) if use41; then echo ",webkit2_41"; else echo ""; fi ;;
*)
	echo "usage: $0 package|tags" >&2
	exit 2
	;;
esac
