#!/usr/bin/env bash
# Builds a .deb of the desktop app from an already built binary:
#
#   scripts/package-deb.sh BINARY VERSION OUTDIR
#
# It installs /usr/bin/freeact, the launcher entry
# /usr/share/applications/freeact.desktop and the icon in the hicolor theme,
# so the app appears in the desktop's launcher, and the machine-readable
# copyright file (build/linux/copyright) in /usr/share/doc/freeact. dpkg-deb is part of dpkg and
# present on every Debian and Ubuntu system, so nothing else is needed.
set -euo pipefail

bin="${1:?usage: package-deb.sh BINARY VERSION OUTDIR}"
version="${2:?usage: package-deb.sh BINARY VERSION OUTDIR}"
outdir="${3:?usage: package-deb.sh BINARY VERSION OUTDIR}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# scripts/version.sh's versions are Debian versions already.
dpkg --validate-version "$version" || {
	echo "package-deb: '$version' is not a Debian version (make passes scripts/version.sh)" >&2
	exit 1
}
arch="$(dpkg --print-architecture)"

stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
pkg="$stage/freeact"
install -Dm755 "$bin" "$pkg/usr/bin/freeact"
install -Dm644 "$root/build/linux/freeact.desktop" "$pkg/usr/share/applications/freeact.desktop"
install -Dm644 "$root/build/linux/copyright" "$pkg/usr/share/doc/freeact/copyright"
for size in 512 256 128 64 48; do
	mkdir -p "$pkg/usr/share/icons/hicolor/${size}x${size}/apps"
	convert "$root/build/appicon.png" -resize "${size}x${size}" "$pkg/usr/share/icons/hicolor/${size}x${size}/apps/freeact.png"
done

# Runtime libraries: what the binary links against, as package names.
# WebKitGTK 4.1 is in Debian 12 and 13 and Ubuntu 22.04 and 24.04; 4.0 left
# the newer ones, so a binary linked to it would install nowhere current.
# (ldd's output is read whole first: with pipefail, grep -q leaving at the
# first match could fail the pipe with ldd's SIGPIPE.)
libs="$(ldd "$bin")"
if ! grep -q 'libwebkit2gtk-4\.1\.so' <<<"$libs"; then
	echo "package-deb: $bin does not link WebKitGTK 4.1; build it with the webkit2_41 tag (make build)" >&2
	exit 1
fi
depends="libgtk-3-0, libwebkit2gtk-4.1-0, python3 (>= 3.10), python3-venv"
installed_kb="$(du -sk "$pkg/usr" | cut -f1)"

mkdir -p "$pkg/DEBIAN"
cat >"$pkg/DEBIAN/control" <<CONTROL
Package: freeact
Version: $version
Architecture: $arch
Maintainer: freeact desktop developers <freeact@localhost>
Installed-Size: $installed_kb
Depends: $depends
Section: devel
Priority: optional
Homepage: https://github.com/freeact/desktop
Description: code-action agent that runs Python on your machine
 freeact answers requests by writing Python that runs in a local, stateful
 IPython kernel. Every code action, shell command, tool call and file
 change is shown for approval before it runs. MCP servers plug in as JSON
 tools or as generated Python modules.
CONTROL
# Refresh the launcher's and the icon theme's caches where the tools exist.
cat >"$pkg/DEBIAN/postinst" <<'POSTINST'
#!/bin/sh
set -e
if [ "$1" = configure ]; then
	command -v update-desktop-database >/dev/null && update-desktop-database -q /usr/share/applications || true
	command -v gtk-update-icon-cache >/dev/null && gtk-update-icon-cache -q -t /usr/share/icons/hicolor || true
fi
POSTINST
cp "$pkg/DEBIAN/postinst" "$pkg/DEBIAN/postrm"
sed -i 's/= configure/= remove/' "$pkg/DEBIAN/postrm"
chmod 755 "$pkg/DEBIAN/postinst" "$pkg/DEBIAN/postrm"

mkdir -p "$outdir"
deb="$outdir/freeact_${version}_${arch}.deb"
dpkg-deb --root-owner-group --build "$pkg" "$deb" >/dev/null
echo "$deb"
