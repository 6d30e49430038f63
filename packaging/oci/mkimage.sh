#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# mkimage.sh BUILD_DIR [TAG]: pktsample's OCI image from a build of the
# tree, with podman (no registry needed: FROM scratch): the installed
# binary, the shared libraries it and libmicrohttpd (--metrics, loaded
# when asked for) need, as this host has them, and a /tmp. TAG defaults
# to localhost/pktsample:VERSION.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: mkimage.sh BUILD_DIR [TAG]}
# awk reads to the end: one that exits first gives its writer a SIGPIPE,
# which pipefail makes this script's (silent) end.
version=$("$build/pktsample" --version 2>/dev/null | awk 'NR == 1 {print $2}')
tag=${2:-localhost/pktsample:${version:-dev}}
ctx=$(mktemp -d)
trap 'rm -rf "$ctx"' EXIT
root=$ctx/rootfs

mkdir -p "$root/tmp" "$root/usr/sbin"
chmod 1777 "$root/tmp"
install -m 0755 "$build/pktsample" "$root/usr/sbin/pktsample"
# Each shared object ldd names (and the dynamic loader), at its path.
mhd=$(ldconfig -p | awk '/libmicrohttpd\.so\.12 .*x86-64/ && !found {print $NF; found = 1}')
for obj in "$root/usr/sbin/pktsample" ${mhd:+"$mhd"}; do
	[ "$obj" = "$root/usr/sbin/pktsample" ] || { mkdir -p "$root$(dirname "$obj")"; cp -L "$obj" "$root$obj"; }
	ldd "$obj" | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}' |
		while read -r lib; do
			mkdir -p "$root$(dirname "$lib")"
			cp -L "$lib" "$root$lib"
		done
done
podman build -q -t "$tag" -f "$here/Containerfile" "$ctx" >/dev/null
echo "$tag"
