#!/usr/bin/env bash
# A private Python 3.14 from Debian sid, for Toad (which asks for 3.14),
# without touching this machine's system: sid's .debs (pinned with their
# SHA256 from sid's Packages index in python314-debs.txt) are fetched by
# URL, checked, and unpacked into PREFIX with dpkg-deb -x. The interpreter
# runs through sid's own loader and libraries (PREFIX/bin/python3.14, a
# wrapper), so what it starts (freeact acp, its kernel) runs with the
# host's loader and libraries, untouched: no LD_LIBRARY_PATH, no PYTHONPATH.
#
#   scripts/acp-clients/python314.sh install PREFIX [REQUIREMENTS]
#       the interpreter in PREFIX; with REQUIREMENTS (pinned, as pip
#       freeze writes them), pip installs them into its own dist-packages
#       and PREFIX/bin/toad starts Toad (make deps-toad runs it so)
#   scripts/acp-clients/python314.sh pin
#       rewrites the pins from sid's index today
#
# DEBIAN_MIRROR (default http://deb.debian.org/debian) is where the .debs
# come from. Sid drops old versions: when a pinned one is gone (404), run
# `pin`, check the diff, and commit it.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
pins="$here/python314-debs.txt"
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
fail() {
	echo "python314: FAIL: $*" >&2
	exit 1
}

# The packages the interpreter, its standard library's extension modules
# and sid's libc need (the closure of their Depends, less data-only
# packages: tzdata, media-types, netbase, readline-common, gcc-16-base,
# the legacy OpenSSL provider), and Debian's pip wheel to install with.
packages=(python3.14 python3.14-minimal libpython3.14-minimal libpython3.14-stdlib
	libc6 libgcc-s1 libexpat1 zlib1g libssl3t64 libbz2-1.0 libdb5.3t64 libffi8
	liblzma5 libncursesw6 libreadline8t64 libsqlite3-0 libtinfo6 libuuid1 libzstd1
	libstdc++6 python3-pip-whl)

pin() {
	local idx
	idx="$(mktemp)"
	trap 'rm -f "$idx"' RETURN
	curl -fsSL "$mirror/dists/sid/main/binary-amd64/Packages.xz" | xz -d >"$idx"
	{
		echo "# Debian sid's .debs for the private Python 3.14 (python314.sh),"
		echo "# from $mirror/dists/sid/main/binary-amd64/Packages.xz on $(date -u +%F)."
		echo "# package version sha256 path-in-the-archive"
		for p in "${packages[@]}"; do
			awk -v want="$p" '
				/^Package: / { pkg = $2 } /^Version: / { ver = $2 } /^Filename: / { file = $2 } /^SHA256: / { sum = $2 }
				/^$/ { if (pkg == want) { print pkg, ver, sum, file; found = 1; exit } pkg = "" }
				END { if (!found) exit 1 }' "$idx" || fail "$p is not in sid's index"
		done
	} >"$pins.new"
	mv "$pins.new" "$pins"
	echo "python314: pinned $(grep -vc '^#' "$pins") packages in $pins"
}

install() {
	local prefix="$1" debs
	mkdir -p "$prefix"
	prefix="$(cd "$prefix" && pwd -P)"
	debs="$prefix.debs"
	mkdir -p "$debs"
	rm -rf "$prefix/root" "$prefix/bin"
	mkdir -p "$prefix/root" "$prefix/bin"
	local pkg ver sum file deb
	while read -r pkg ver sum file; do
		[[ -z "$pkg" || "$pkg" == \#* ]] && continue
		deb="$debs/$(basename "$file")"
		if [[ ! -f "$deb" ]] || ! echo "$sum  $deb" | sha256sum -c --quiet - >/dev/null 2>&1; then
			curl -fsSL -o "$deb.part" "$mirror/$file" ||
				fail "fetching $pkg $ver ($mirror/$file): sid may have dropped it; run '$0 pin' to pin today's versions"
			echo "$sum  $deb.part" | sha256sum -c --quiet - ||
				fail "$pkg $ver: the .deb's SHA256 is not the one pinned in $pins"
			mv "$deb.part" "$deb"
		fi
		dpkg-deb -x "$deb" "$prefix/root"
	done <"$pins"
	local lib="$prefix/root/usr/lib/x86_64-linux-gnu"
	[[ -x "$lib/ld-linux-x86-64.so.2" ]] || fail "no loader in $lib after unpacking libc6"
	# The wrapper: sid's loader, sid's libraries first. argv[0] stays the
	# interpreter's own path, so sys.prefix is PREFIX/root/usr.
	cat >"$prefix/bin/python3.14" <<WRAP
#!/bin/sh
# Python 3.14 from Debian sid, run by sid's loader with sid's libraries
# (made by scripts/acp-clients/python314.sh).
exec "$lib/ld-linux-x86-64.so.2" --library-path "$lib:$prefix/root/lib/x86_64-linux-gnu" --argv0 "$prefix/root/usr/bin/python3.14" "$prefix/root/usr/bin/python3.14" "\$@"
WRAP
	chmod +x "$prefix/bin/python3.14"
	"$prefix/bin/python3.14" -c 'import sys, ssl, sqlite3, ctypes, decimal, lzma, bz2, zlib, readline, curses; assert sys.version_info >= (3, 14), sys.version; print("python314: Python", sys.version.split()[0], "in", sys.prefix)'
	[[ -n "${2:-}" ]] || return 0
	# What the requirements pin, into the interpreter's own dist-packages
	# (this interpreter is Toad's alone), with pip run from Debian's
	# wheel; Requires-Python is honoured.
	local pip site
	pip="$(echo "$prefix"/root/usr/share/python-wheels/pip-*.whl)"
	[[ -f "$pip" ]] || fail "no pip wheel in $prefix/root/usr/share/python-wheels"
	site="$prefix/root/usr/local/lib/python3.14/dist-packages"
	"$prefix/bin/python3.14" "$pip/pip" install --quiet --disable-pip-version-check --no-cache-dir --root-user-action=ignore \
		--only-binary=:all: --target "$site" -r "$2"
	cat >"$prefix/bin/toad" <<WRAP
#!/bin/sh
# Toad on the private Python 3.14 (made by scripts/acp-clients/python314.sh).
exec "$prefix/bin/python3.14" -c 'import sys; from toad.cli import main; sys.argv[0] = "toad"; sys.exit(main())' "\$@"
WRAP
	chmod +x "$prefix/bin/toad"
	"$prefix/bin/toad" --version
}

for tool in curl xz sha256sum dpkg-deb; do
	command -v "$tool" >/dev/null || fail "$tool is missing (apt-get install curl xz-utils coreutils dpkg)"
done
case "${1:-}" in
pin) pin ;;
install) install "${2:?usage: python314.sh install PREFIX [REQUIREMENTS]}" "${3:-}" ;;
*) fail "usage: python314.sh install PREFIX [REQUIREMENTS] | pin" ;;
esac
