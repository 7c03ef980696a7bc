#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Fetch Debian's cloud kernel of one suite (linux-image-cloud-amd64) into
# CACHE/SUITE: vmlinuz, config and the modules a guest needs. apt runs with a
# private state directory and sources list: the host's own lists, cache and
# dpkg database are not touched. Nothing is fetched when CACHE/SUITE is
# complete already.
#
# usage: fetch-kernel.sh SUITE CACHE
set -eu
suite=$1
cache=$2
dest=$cache/$suite
[ -f "$dest/.complete" ] && exit 0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/dl" "$work/etc"
# The mirror the host's own apt uses: the machine's configuration, no other.
mirror=$(sed -n 's/^URIs: *\(http[^ ]*debian\)$/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
[ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $2 ~ /debian\/?$/ { print $2; exit }' \
	/etc/apt/sources.list 2>/dev/null)
[ -n "$mirror" ] || {
	echo "fetch-kernel: no Debian mirror in this machine's apt sources" \
		"(/etc/apt/sources.list.d/debian.sources, /etc/apt/sources.list)" >&2
	exit 1
}
echo "deb $mirror $suite main" >"$work/etc/sources.list"
apt_opts="-o APT::Architecture=amd64 -o APT::Architectures::=amd64
 -o Dir::Etc::SourceList=$work/etc/sources.list -o Dir::Etc::SourceParts=/dev/null
 -o Dir::State::Lists=$work/lists -o Dir::Cache=$work/cache
 -o Dir::State::status=/dev/null -o Debug::NoLocking=1 -o APT::Sandbox::User=root"
# shellcheck disable=SC2086
apt-get $apt_opts -qq update
# shellcheck disable=SC2086
pkg=$(apt-cache $apt_opts depends linux-image-cloud-amd64 |
	awk '/Depends: linux-image-/ { print $2; exit }')
[ -n "$pkg" ] || { echo "fetch-kernel: $suite has no linux-image-cloud-amd64" >&2; exit 1; }
# shellcheck disable=SC2086
(cd "$work/dl" && apt-get $apt_opts -qq download "$pkg")
deb=$(ls "$work"/dl/*.deb)
echo "  KERNEL   $suite: $(basename "$deb")" >&2
dpkg-deb -x "$deb" "$work/root"
rm -rf "$dest"
mkdir -p "$dest"
cp "$work"/root/boot/vmlinuz-* "$dest/vmlinuz"
cp "$work"/root/boot/config-* "$dest/config"
# Under /usr/lib on a merged-/usr suite (trixie), /lib before.
mods=$(ls -d "$work"/root/usr/lib/modules/* "$work"/root/lib/modules/* 2>/dev/null | head -1)
[ -n "$mods" ] || { echo "fetch-kernel: $pkg has no modules" >&2; exit 1; }
ver=$(basename "$mods")
mkdir -p "$dest/modules"
cp -a "$mods" "$dest/modules/"
echo "$ver" >"$dest/release"
basename "$deb" >"$dest/package"
touch "$dest/.complete"
