#!/usr/bin/env bash
# Prints this checkout's version, from the tracked VERSION file, so a clone
# without tags (how every build here gets the code) names its release:
#
#   X.Y.Z                on the commit that last changed VERSION (a release)
#   X.Y.Z+gitN.HASH      N commits after it (sorts after X.Y.Z, before the next)
#   X.Y.Z+git.HASH       in a shallow clone that lacks that commit (N unknown)
#   X.Y.Z+dirty, X.Y.Z+gitN.HASH.dirty   with uncommitted changes to tracked files
#   X.Y.Z                outside git (a source tarball)
#
# The result is both a semantic version and a Debian version (dpkg sorts
# "+" after the release), so `freeact version` and the .deb print the same.
#
#   scripts/version.sh [DIR]      make's VERSION; DIR defaults to the repository
set -euo pipefail

dir="${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
cd "$dir"
release="$(tr -d ' \t\r\n' <VERSION)"
if ! [[ "$release" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
	echo "version: VERSION holds '$release', want a release like 0.3.0" >&2
	exit 1
fi
if ! git rev-parse -q --verify HEAD >/dev/null 2>&1; then
	echo "$release"
	exit 0
fi

base="$(git log -1 --format=%H -- VERSION)"
head="$(git rev-parse --short=7 HEAD)"
version="$release"
# In a shallow clone the oldest commit present seems to add every file; if
# that is where VERSION "changed", the real change is out of reach.
shallow="$(git rev-parse --git-path shallow)"
if [[ -z "$base" ]] || { [[ -f "$shallow" ]] && grep -qx "$base" "$shallow"; }; then
	version+="+git.$head"
else
	n="$(git rev-list --count "$base..HEAD")"
	((n == 0)) || version+="+git$n.$head"
fi
if ! git diff --quiet HEAD -- 2>/dev/null; then
	[[ "$version" == *+* ]] && version+=".dirty" || version+="+dirty"
fi
echo "$version"
