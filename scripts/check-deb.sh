#!/usr/bin/env bash
# Checks a .deb built by package-deb.sh without installing it: metadata,
# contents, a valid launcher entry, a binary that runs from the package, and
# a copyright file that covers what the binary contains.
#
#   scripts/check-deb.sh dist/freeact_*.deb
set -euo pipefail

deb="${1:?usage: check-deb.sh DEB}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
fail() {
	echo "check-deb: FAIL: $*" >&2
	exit 1
}

# The package version of each kind of make VERSION (git describe): a valid
# Debian version that sorts where the commit stands.
while read -r given want; do
	got="$("$root/scripts/deb-version.sh" "$given")"
	[[ "$got" == "$want" ]] || fail "deb-version.sh $given gives $got, want $want"
	dpkg --validate-version "$got" || fail "deb-version.sh $given gives $got, not a Debian version"
done <<'VERSIONS'
v0.2.0 0.2.0
v0.2.0-57-g1017b3b 0.2.0+git57.1017b3b
v0.2.0-dirty 0.2.0+dirty
1017b3b 0.0.0~git1017b3b
abcdef0-dirty 0.0.0~gitabcdef0+dirty
dev 0.0.0~gitdev
VERSIONS
dpkg --compare-versions 0.2.0+git57.1017b3b gt 0.2.0 && dpkg --compare-versions 0.0.0~git1017b3b lt 0.1.0 ||
	fail "development versions do not sort between releases"

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
dpkg-deb --field "$deb" Depends | grep -q libwebkit2gtk || fail "no WebKitGTK dependency"

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
"$x/usr/bin/freeact" version | grep -q '^freeact ' || fail "the packaged binary does not run"
check_copyright "$x/usr/share/doc/freeact/copyright" "$x/usr/bin/freeact"
echo "check-deb: ok: $deb ($(dpkg-deb --field "$deb" Version), $(du -h "$deb" | cut -f1))"
