#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# pktsample's kernel matrix: run a command under one of Debian's own
# kernels, booted under qemu, with this machine's root file system shared
# read-only (virtiofs: Debian's 6.1 cloud kernel has no 9p) under a tmpfs
# overlay, so the guest sees the same tree, binaries and tools, and may
# write anywhere without touching the host.
#
# Usage:
#   kernel-vm.sh fetch KERNEL          download (apt-get download) and unpack;
#                                      prints the kernel's release
#   kernel-vm.sh run KERNEL -- CMD...  boot KERNEL, run CMD (in this
#                                      directory, as root), print its output,
#                                      exit with its status
#   kernel-vm.sh list                  the kernels in the cache
#
# KERNEL: 6.1 (the newest linux-image-6.1.0-*-cloud-amd64-unsigned, Debian
# 12's own), 6.12 (the newest 6.12 cloud image the sources have, from
# bookworm-backports or bookworm), 5.10 (Debian 11's cloud image from its
# last point release, bullseye main, through a private apt configuration
# under the cache: the host's sources and lists stay as they are), or a
# package name. Packages come from
# Debian's registry only, and are kept in $PS_KERNEL_CACHE (default
# /var/cache/pktsample-kernels). The guest runs under TCG (-cpu max),
# 10-30x slower than natively; PS_VM_ACCEL=kvm uses KVM where it works.
# Env: PS_VM_MEM (MiB, default 4096), PS_VM_CPUS (default 2),
# PS_VM_TIMEOUT (seconds, default 3600), PS_VM_KEEP=1 keeps the job's
# directory (the console) under the cache, PS_TIME_SCALE (default 20 under
# TCG, 2 with KVM) is what the tests' "promptly" limits are multiplied by
# inside the guest. PS_VM_INIT=systemd boots the host's systemd as the
# guest's init, the command then run by a unit of its own (its output on
# the console), so that it can start, reload and stop services.
set -euo pipefail

die() { echo "kernel-vm: $*" >&2; exit 2; }

cache=${PS_KERNEL_CACHE:-/var/cache/pktsample-kernels}
here=$(cd "$(dirname "$0")" && pwd)

# apt_bullseye apt-get|apt-cache ARGS: for Debian 11 (bullseye), its
# sources, lists and downloads under $cache/apt-bullseye; the host's apt
# configuration is not touched (its keyring trusts bullseye's keys).
apt_bullseye() {
	local tool=$1
	local d=$cache/apt-bullseye
	mkdir -p "$d/lists/partial" "$d/cache/archives/partial"
	echo "deb http://deb.debian.org/debian bullseye main" >"$d/sources.list"
	shift
	"$tool" -o Dir::Etc::sourcelist="$d/sources.list" -o Dir::Etc::sourceparts=/nonexistent \
		-o Dir::State::Lists="$d/lists" -o Dir::Cache="$d/cache" "$@"
}

# The package for KERNEL, from what apt knows.
package_of() {
	case $1 in
	5.10) { [ -e "$cache/apt-bullseye/lists/lock" ] || apt_bullseye apt-get -qq update; } &&
		apt_bullseye apt-cache search --names-only '^linux-image-5\.10\.0-[0-9]+-cloud-amd64-unsigned$' |
		awk '{print $1}' | sort -V | tail -1 ;;
	6.1) apt-cache search --names-only '^linux-image-6\.1\.0-[0-9]+-cloud-amd64-unsigned$' |
		awk '{print $1}' | sort -V | tail -1 ;;
	6.12) apt-cache search --names-only '^linux-image-6\.12\.[0-9.]+\+deb12-cloud-amd64-unsigned$' |
		awk '{print $1}' | sort -V | tail -1 ;;
	linux-image-*) echo "$1" ;;
	*) die "unknown kernel '$1': use 5.10, 6.1, 6.12 or a linux-image package name" ;;
	esac
}

# lock_cache, unlock_cache: what follows, one at a time. Guests start
# together (tests/vm/smoke.sh), and apt-cache rebuilds its binary cache
# once dpkg's status or the lists have changed: one that reads while
# another writes finds no package (3 at once: 1 in 5 here). The
# initramfs is written in place too.
lock_cache() {
	mkdir -p "$cache"
	exec {cache_lock}>"$cache/.fetch.lock"
	flock "$cache_lock"
}
unlock_cache() {
	exec {cache_lock}>&-
}

# fetch KERNEL: the unpacked package in $cache/PKG, modules decompressed
# and indexed for busybox's modprobe; prints the release.
fetch() {
	local pkg dir rel deb
	pkg=$(package_of "$1")
	[ -n "$pkg" ] || die "apt knows no package for kernel $1 (apt-get update first?)"
	dir=$cache/$pkg
	if [ ! -e "$dir/.ready" ]; then
		command -v busybox >/dev/null || die "needs busybox (busybox-static)"
		mkdir -p "$dir"
		case $pkg in
		linux-image-5.10.*) (cd "$cache" && apt_bullseye apt-get download "$pkg" >/dev/null 2>&1) ;;
		*) (cd "$cache" && apt-get download "$pkg" >/dev/null 2>&1) ;;
		esac || die "apt-get download $pkg failed"
		deb=$(ls "$cache/${pkg}"_*.deb | tail -1)
		rm -rf "$dir/root"
		dpkg-deb -x "$deb" "$dir/root"
		rm -f "$deb"
		find "$dir/root/lib/modules" -name '*.ko.xz' -exec xz -d {} + 2>/dev/null || true
		rel=$(ls "$dir/root/lib/modules")
		busybox depmod -b "$dir/root" "$rel"
		echo "$rel" >"$dir/release"
		touch "$dir/.ready"
	fi
	cat "$dir/release"
}

# initramfs DIR REL: busybox, the modules that reach the shared root, init.
make_initramfs() {
	local dir=$1 rel=$2 tmp m ko
	tmp=$(mktemp -d)
	mkdir -p "$tmp/bin" "$tmp/mods" "$tmp/proc" "$tmp/sys" "$tmp/dev" "$tmp/lower" \
		"$tmp/upper" "$tmp/newroot"
	cp "$(command -v busybox)" "$tmp/bin/busybox"
	for m in virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci \
		 fuse virtiofs overlay; do
		ko=$(find "$dir/root/lib/modules/$rel" -name "$m.ko" | head -1)
		[ -z "$ko" ] || cp "$ko" "$tmp/mods/$m.ko" # built in otherwise
		echo "$m" >>"$tmp/mods/order"
	done
	cp "$here/kernel-vm-init.sh" "$tmp/init"
	chmod +x "$tmp/init"
	(cd "$tmp" && find . | cpio -o -H newc --quiet | gzip -1) >"$dir/initramfs.gz.new" ||
		{ rm -rf "$tmp"; die "cannot make the initramfs"; }
	mv "$dir/initramfs.gz.new" "$dir/initramfs.gz"
	rm -rf "$tmp"
}

run() {
	local kernel=$1 rel dir pkg sock job rc=0 accel cpu out
	shift
	[ "${1:-}" = "--" ] && shift
	[ $# -gt 0 ] || die "run: no command"
	command -v qemu-system-x86_64 >/dev/null || die "needs qemu-system-x86_64 (qemu-system-x86)"
	command -v cpio >/dev/null || die "needs cpio"
	# The guest sees the root file system alone (a bind of /, not of what
	# is mounted below it).
	local d
	mkdir -p "$cache" # a fresh machine has none yet
	for d in "$PWD" "$cache"; do
		[ "$(stat -c %d "$d")" = "$(stat -c %d /)" ] ||
			die "$d is not on the root file system, which is all the guest sees"
	done
	[ -x /usr/lib/qemu/virtiofsd ] || die "needs /usr/lib/qemu/virtiofsd (qemu-system-x86)"
	lock_cache
	rel=$(fetch "$kernel")
	pkg=$(package_of "$kernel")
	dir=$cache/$pkg
	[ -e "$dir/initramfs.gz" ] && [ "$dir/initramfs.gz" -nt "$here/kernel-vm-init.sh" ] ||
		make_initramfs "$dir" "$rel"
	unlock_cache

	# Under TCG everything runs 10-30x slower (measured; kernel-vm.md).
	local scale=20
	[ "${PS_VM_ACCEL:-tcg}" != kvm ] || scale=2
	mkdir -p "$cache/jobs"
	job=$(mktemp -d "$cache/jobs/vm.XXXXXX") # on the shared root file system
	sock=$job/fs.sock
	# The job for the guest: where to go, what to run, the modules' place.
	{
		printf 'cd %q\n' "$PWD"
		# The system's directories first: a version manager's shim
		# (pyenv's python3 runs some 40 processes per call) costs 20 s a
		# call under TCG, where Debian's own python3 starts in one.
		printf 'export PATH=%q CI=%q\n' \
			"/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:$PATH" "${CI:-}"
		# How much slower than natively: the tests' time limits scale.
		printf 'export PS_TIME_SCALE=%q\n' "${PS_TIME_SCALE:-$scale}"
		printf '%q ' "$@"
		echo
	} >"$job/cmd"
	# virtiofsd serves a read-only bind of / made in a mount namespace of
	# its own: the host's mount table is left as it is. cache=always: the
	# guest keeps what it looked up, as nothing on the host changes under
	# it while it runs (the job is written before it boots); cache=auto
	# asked the host again at every exec, 150 ms a fork and exec under TCG
	# against 37 ms (measured: kernel-vm.md).
	unshare -m --propagation private sh -c '
		mkdir -p "$1/ro" && mount --bind / "$1/ro" && mount -o remount,bind,ro "$1/ro" &&
		exec /usr/lib/qemu/virtiofsd --socket-path="$2" -o source="$1/ro" \
			-o sandbox=namespace -o cache=always' sh "$job" "$sock" \
		>"$job/virtiofsd.log" 2>&1 &
	local vfs=$!
	for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.05; done
	[ -S "$sock" ] || { cat "$job/virtiofsd.log" >&2; die "virtiofsd did not start"; }

	# KVM only when asked: a /dev/kvm can exist and hang its first vCPU
	# (nested, as on this project's CI machine), which no quick probe
	# without a vCPU shows.
	accel="-accel tcg -cpu max"
	[ "${PS_VM_ACCEL:-tcg}" != kvm ] || accel="-accel kvm -cpu host"
	# Debian's 6.12 double-faults early on TCG's cx16 (notes: kernel-vm.md).
	case $rel in 6.12.*) [ "${accel#-accel tcg}" = "$accel" ] || accel="$accel,-cx16" ;; esac
	local mem=${PS_VM_MEM:-4096}
	out=$job/console
	# shellcheck disable=SC2086 # accel is words
	timeout "${PS_VM_TIMEOUT:-3600}" qemu-system-x86_64 $accel -m "$mem" -smp "${PS_VM_CPUS:-2}" \
		-nographic -no-reboot -nodefaults -serial stdio \
		-object memory-backend-memfd,id=mem,size="${mem}M",share=on -numa node,memdev=mem \
		-chardev socket,id=c0,path="$sock" -device vhost-user-fs-pci,chardev=c0,tag=hostroot \
		-kernel "$dir/root/boot/vmlinuz-$rel" -initrd "$dir/initramfs.gz" \
		-append "console=ttyS0 panic=-1 quiet ps_job=$job ps_modules=$dir/root/lib/modules ps_init=${PS_VM_INIT:-sh}" \
		</dev/null | tee "$out" | sed -u -n 's/\r$//; /PS-VM-START/,/PS-VM-EXIT=/{/PS-VM-/!p}' || true
	kill "$vfs" 2>/dev/null || true
	wait "$vfs" 2>/dev/null || true
	rc=$(sed -n 's/^PS-VM-EXIT=\([0-9]*\).*/\1/p' "$out" | tail -1)
	[ -n "${PS_VM_KEEP:-}" ] || rm -rf "$job"
	[ -n "$rc" ] || { echo "kernel-vm: the guest ended without the command's status" >&2; exit 125; }
	exit "$rc"
}

cmd=${1:-}; [ $# -gt 0 ] && shift
case $cmd in
fetch) [ $# -eq 1 ] || die "usage: fetch KERNEL"; lock_cache; fetch "$1" ;;
run) [ $# -ge 1 ] || die "usage: run KERNEL -- CMD..."; run "$@" ;;
list) ls "$cache" 2>/dev/null || true ;;
*) sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; [ -z "$cmd" ] || exit 2 ;;
esac
