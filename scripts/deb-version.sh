#!/usr/bin/env bash
# deb-version.sh VERSION: prints the Debian package version for VERSION, what
# `git describe --tags --always --dirty` says (make's VERSION).
set -euo pipefail
# A Debian version from what git describe says: v0.2.0 is 0.2.0; 57 commits
# past it, v0.2.0-57-gabc1234 is 0.2.0+git57.abc1234 (sorts after 0.2.0, and
# a hyphen would start a Debian revision); a bare commit id, even one that
# starts with a digit, is 0.0.0~git<id>, before every release.
version="${1:?usage: deb-version.sh VERSION}"
version="${version#v}"
dirty=""
if [[ "$version" == *-dirty ]]; then
	version="${version%-dirty}" dirty="+dirty"
fi
if [[ "$version" =~ ^([0-9]+\.[0-9]+\.[0-9]+)-([0-9]+)-g([0-9a-f]+)$ ]]; then
	version="${BASH_REMATCH[1]}+git${BASH_REMATCH[2]}.${BASH_REMATCH[3]}"
elif ! [[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+([~+][A-Za-z0-9.+~]*)?$ ]]; then
	version="0.0.0~git${version//[^A-Za-z0-9.+~]/.}"
fi
version+="$dirty"
echo "$version"
