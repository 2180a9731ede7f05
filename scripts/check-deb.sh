#!/usr/bin/env bash
# Checks a .deb built by package-deb.sh without installing it: metadata,
# contents, a valid launcher entry, and a binary that runs from the package.
#
#   scripts/check-deb.sh dist/freeact_*.deb
set -euo pipefail

deb="${1:?usage: check-deb.sh DEB}"
fail() {
	echo "check-deb: FAIL: $*" >&2
	exit 1
}

dpkg-deb --info "$deb" >/dev/null || fail "not a valid .deb: $deb"
[[ "$(dpkg-deb --field "$deb" Package)" == freeact ]] || fail "package name is not freeact"
dpkg-deb --field "$deb" Depends | grep -q libwebkit2gtk || fail "no WebKitGTK dependency"

contents="$(dpkg-deb --contents "$deb")"
for f in ./usr/bin/freeact ./usr/share/applications/freeact.desktop \
	./usr/share/icons/hicolor/512x512/apps/freeact.png ./usr/share/icons/hicolor/48x48/apps/freeact.png; do
	grep -q " $f\$" <<<"$contents" || fail "missing $f"
done
grep -q -- '-rwxr-xr-x root/root .* ./usr/bin/freeact$' <<<"$contents" || fail "/usr/bin/freeact is not an executable owned by root"

x="$(mktemp -d)"
trap 'rm -rf "$x"' EXIT
dpkg-deb --extract "$deb" "$x"
desktop-file-validate "$x/usr/share/applications/freeact.desktop" || fail "invalid .desktop file"
grep -q '^Exec=freeact$' "$x/usr/share/applications/freeact.desktop" || fail ".desktop does not start freeact"
grep -q '^Icon=freeact$' "$x/usr/share/applications/freeact.desktop" || fail ".desktop does not name the freeact icon"
"$x/usr/bin/freeact" version | grep -q '^freeact ' || fail "the packaged binary does not run"
echo "check-deb: ok: $deb ($(dpkg-deb --field "$deb" Version), $(du -h "$deb" | cut -f1))"
