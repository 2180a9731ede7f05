#!/usr/bin/env bash
# Checks a .deb built by package-deb.sh without installing it: metadata,
# contents, a valid launcher entry, a binary that runs from the package, and
# a copyright file that covers what the binary contains.
#
#   scripts/check-deb.sh dist/freeact_*.deb VERSION
set -euo pipefail

deb="${1:?usage: check-deb.sh DEB VERSION}"
want="${2:?usage: check-deb.sh DEB VERSION}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
fail() {
	echo "check-deb: FAIL: $*" >&2
	exit 1
}

# The version: what the package says, what its binary prints and what a
# clone of this commit without tags computes (scripts/version.sh) are the
# one make passed.
check_version() {
	local deb_version="$1" printed="$2" tagless clone
	[[ "$deb_version" == "$want" ]] || fail "the package's version is $deb_version, want $want"
	[[ "$printed" == "freeact $want "* ]] || fail "the packaged binary says '$printed', want 'freeact $want ...'"
	clone="$x/.tagless-clone" # removed with $x
	git init -q "$clone"
	git -C "$clone" fetch -q --no-tags "$root" HEAD
	git -C "$clone" checkout -q FETCH_HEAD
	[[ -z "$(git -C "$clone" tag)" ]] || fail "the clone for the version check has tags"
	tagless="$("$clone/scripts/version.sh")"
	local clean="${want%.dirty}"
	clean="${clean%+dirty}"
	[[ "$tagless" == "$clean" ]] || fail "a clone of HEAD without tags says $tagless, the package $want"
	dpkg --compare-versions "$want" gt "$(tr -d '\n' <"$root/VERSION")~" || fail "$want sorts before the release in VERSION"
}

# check_copyright FILE BINARY checks the machine-readable copyright file
# (format 1.0): its header, that every Files paragraph has Copyright and
# License, that every licence named has its text in a License paragraph,
# and that it names exactly the Go modules linked into BINARY, plus the npm
# packages the window's code bundles.
check_copyright() {
	local file="$1" bin="$2"
	head -n1 "$file" | grep -qx 'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/' ||
		fail "copyright: the first line is not the format 1.0 header"
	local problems
	problems="$(awk '
		function flush() {
			if (files != "" && (copyright == "" || license == "")) print "paragraph \"Files: " files "\" lacks Copyright or License"
			if (files != "") { n = split(license, names, / (and|or) /); for (i = 1; i <= n; i++) used[names[i]] = 1 }
			if (files == "" && license != "" && text) defined[license] = 1
			files = copyright = license = ""; text = 0
		}
		/^$/ { flush(); next }
		/^Files: / { files = substr($0, 8) }
		/^Copyright: / { copyright = substr($0, 12) }
		/^License: / { license = substr($0, 10); field = "License"; next }
		/^[A-Za-z-]+:/ { field = "" }
		/^ / && field == "License" { text = 1 }
		END { flush(); for (l in used) if (!(l in defined)) print "licence \"" l "\" has no License paragraph with its text" }
	' "$file")"
	[[ -z "$problems" ]] || fail "copyright: $problems"
	local go_want go_have npm_want npm_have missing
	go_want="$(go version -m "$bin" | awk '$1 == "dep" { print "vendor/" $2 "/*" }' | sort)"
	go_have="$(sed -n 's|^Files: \(vendor/.*\)$|\1|p' "$file" | sort)"
	npm_want="$(node -p 'Object.keys(require(process.argv[1]).dependencies).concat("svelte").join("\n")' "$root/frontend/package.json" |
		sed 's|^\(.*\)$|frontend/node_modules/\1/*|' | sort)"
	npm_have="$(sed -n 's|^Files: \(frontend/node_modules/.*\)$|\1|p' "$file" | sort)"
	missing="$(comm -23 <(echo "$go_want") <(echo "$go_have"); comm -23 <(echo "$npm_want") <(echo "$npm_have"))"
	[[ -z "$missing" ]] || fail "copyright: build/linux/copyright does not name what the binary contains:"$'\n'"$missing"
	missing="$(comm -13 <(echo "$go_want") <(echo "$go_have"))"
	[[ -z "$missing" ]] || fail "copyright: build/linux/copyright names Go modules the binary does not contain:"$'\n'"$missing"
}

dpkg-deb --info "$deb" >/dev/null || fail "not a valid .deb: $deb"
[[ "$(dpkg-deb --field "$deb" Package)" == freeact ]] || fail "package name is not freeact"
# One package for Debian 12 and 13 and Ubuntu 22.04 and 24.04: each has
# these, and none of the newer ones has WebKitGTK 4.0.
depends="$(dpkg-deb --field "$deb" Depends)"
[[ "$depends" == "libgtk-3-0, libwebkit2gtk-4.1-0, python3 (>= 3.10), python3-venv" ]] ||
	fail "Depends is '$depends', want 'libgtk-3-0, libwebkit2gtk-4.1-0, python3 (>= 3.10), python3-venv'"

contents="$(dpkg-deb --contents "$deb")"
for f in ./usr/bin/freeact ./usr/share/applications/freeact.desktop ./usr/share/doc/freeact/copyright \
	./usr/share/icons/hicolor/512x512/apps/freeact.png ./usr/share/icons/hicolor/48x48/apps/freeact.png; do
	grep -q " $f\$" <<<"$contents" || fail "missing $f"
done
grep -q -- '-rwxr-xr-x root/root .* ./usr/bin/freeact$' <<<"$contents" || fail "/usr/bin/freeact is not an executable owned by root"
grep -q -- '-rw-r--r-- root/root .* ./usr/share/doc/freeact/copyright$' <<<"$contents" || fail "the copyright file is not a readable file owned by root"

x="$(mktemp -d)"
trap 'rm -rf "$x"' EXIT
dpkg-deb --extract "$deb" "$x"
desktop-file-validate "$x/usr/share/applications/freeact.desktop" || fail "invalid .desktop file"
grep -q '^Exec=freeact$' "$x/usr/share/applications/freeact.desktop" || fail ".desktop does not start freeact"
grep -q '^Icon=freeact$' "$x/usr/share/applications/freeact.desktop" || fail ".desktop does not name the freeact icon"
printed="$("$x/usr/bin/freeact" version)" || fail "the packaged binary does not run"
check_version "$(dpkg-deb --field "$deb" Version)" "$printed"
check_copyright "$x/usr/share/doc/freeact/copyright" "$x/usr/bin/freeact"
echo "check-deb: ok: $deb ($(dpkg-deb --field "$deb" Version), $(du -h "$deb" | cut -f1))"
