#!/usr/bin/env bash
# Installs a .deb into a clean Debian root and runs `freeact version`
# there, so the package's Depends line is proven to resolve to libraries the
# binary loads on a system that has nothing else installed:
#
#   scripts/deb-chroot.sh DEB WANT-VERSION [CACHE]   run by make test-package
#
# DEBIAN_SUITE picks the release: bookworm (Debian 12, the default, which
# make test-package uses) or trixie (Debian 13, make test-package-debian13).
# CACHE (default .cache/debian12, or .cache/debian13) keeps a minimal root made once with
# debootstrap and the .debs apt fetched, so a rerun copies the root and
# installs from the cache instead of the network. Every run starts from the
# pristine root: what one run installed never leaks into the next. The
# mirror is the one apt on this machine uses (/etc/apt/sources.list*), or
# DEBIAN_MIRROR. Needs root (or passwordless sudo) for debootstrap and chroot.
set -euo pipefail

deb="${1:?usage: deb-chroot.sh DEB WANT-VERSION [CACHE]}"
want="${2:?usage: deb-chroot.sh DEB WANT-VERSION [CACHE]}"
suite="${DEBIAN_SUITE:-bookworm}"
case "$suite" in
bookworm) release="Debian 12" ;;
trixie) release="Debian 13" ;;
*) echo "deb-chroot: FAIL: DEBIAN_SUITE=$suite: use bookworm (Debian 12) or trixie (Debian 13)" >&2 && exit 1 ;;
esac
cache="${3:-.cache/debian${release#Debian }}"
fail() {
	echo "deb-chroot: FAIL: $*" >&2
	exit 1
}

if [[ $(id -u) -ne 0 ]]; then
	if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
		exec sudo -n "$0" "$@"
	fi
	fail "installing into a clean root needs root (debootstrap, chroot): run as root or with passwordless sudo"
fi
for tool in debootstrap chroot; do
	command -v "$tool" >/dev/null || PATH="$PATH:/usr/sbin:/sbin"
	command -v "$tool" >/dev/null || fail "$tool is missing: apt-get install debootstrap (make deps-test installs it)"
done

# The mirror apt uses here: the first Debian archive (not the security one)
# in either sources format.
mirror() {
	if [[ -n "${DEBIAN_MIRROR:-}" ]]; then
		echo "$DEBIAN_MIRROR"
		return
	fi
	cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null |
		awk '/^deb / { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; break } }
			/^URIs:/ { print $2 }' |
		grep -v -- '-security' | head -n1 || true
}
url="$(mirror)"
[[ -n "$url" ]] || url=http://deb.debian.org/debian

mkdir -p "$cache"
cache="$(cd "$cache" && pwd)"
base="$cache/root"
archives="$cache/archives"
mkdir -p "$archives/partial"

if [[ ! -f "$base/.complete" ]]; then
	echo "deb-chroot: making a minimal $release root from $url into $base (once; later runs reuse it)"
	rm -rf "$base"
	start=$(date +%s)
	debootstrap --variant=minbase --cache-dir="$archives" "$suite" "$base" "$url" >"$cache/debootstrap.log" 2>&1 ||
		fail "debootstrap failed (log: $cache/debootstrap.log)"
	printf 'deb %s %s main\ndeb %s %s-updates main\n' "$url" "$suite" "$url" "$suite" >"$base/etc/apt/sources.list"
	touch "$base/.complete"
	echo "deb-chroot: debootstrap took $(($(date +%s) - start)) s"
fi

work="$(mktemp -d "$cache/run.XXXXXX")"
mounted=()
cleanup() {
	local m
	for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
		m="${mounted[i]}"
		umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
	done
	rm -rf --one-file-system "$work"
}
trap cleanup EXIT
start=$(date +%s)
cp -a "$base/." "$work/"
for fs in proc dev; do
	mount --bind "/$fs" "$work/$fs"
	mounted+=("$work/$fs")
done
mount --bind "$archives" "$work/var/cache/apt/archives"
mounted+=("$work/var/cache/apt/archives")
cp "$deb" "$work/tmp/freeact.deb"
# A throwaway root: dpkg need not fsync each file, nor unpack manuals and
# documentation (the copyright files stay, ours is checked above).
cat >"$work/etc/dpkg/dpkg.cfg.d/freeact-test" <<'DPKG'
force-unsafe-io
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
DPKG
cp /etc/resolv.conf "$work/etc/resolv.conf" 2>/dev/null || true

in_root() { chroot "$work" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"; }
in_root apt-get update -qq >"$cache/apt.log" 2>&1 || fail "apt-get update in the root failed (log: $cache/apt.log)"
in_root apt-get install -y -qq --no-install-recommends /tmp/freeact.deb >>"$cache/apt.log" 2>&1 ||
	fail "the .deb does not install on a clean $release (log: $cache/apt.log)"
got="$(in_root freeact version)" || fail "freeact version fails in the clean root: $got"
[[ "$got" == "freeact $want "* ]] || fail "freeact version in the clean root says '$got', want 'freeact $want ...'"
echo "deb-chroot: ok: installed on a clean $release and ran: $got ($(($(date +%s) - start)) s)"
