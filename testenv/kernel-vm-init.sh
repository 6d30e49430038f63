#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0-only
# The guest's /init for testenv/kernel-vm.sh: the host's root, read-only
# over virtiofs under a tmpfs overlay; the kernel package's modules in
# place; the job run with bash; its status on the console for the host.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
job= mods= init=sh
for w in $(cat /proc/cmdline); do
	case $w in
	ps_job=*) job=${w#ps_job=} ;;
	ps_modules=*) mods=${w#ps_modules=} ;;
	ps_init=*) init=${w#ps_init=} ;;
	esac
done
fail() { echo "kernel-vm guest: $*"; echo "PS-VM-EXIT=125"; poweroff -f; }
for m in $(cat /mods/order); do
	[ ! -e "/mods/$m.ko" ] || insmod "/mods/$m.ko" || fail "cannot load $m"
done
mount -t virtiofs -o ro hostroot /lower || fail "cannot mount the host's root"
mount -t tmpfs -o size=75% tmpfs /upper
mkdir -p /upper/up /upper/work
mount -t overlay overlay -o lowerdir=/lower,upperdir=/upper/up,workdir=/upper/work /newroot ||
	fail "cannot make the overlay"
r=/newroot
mkdir -p "$r/usr/lib/modules" # (a host without modules of its own has none)
mount --bind "$r$mods" "$r/usr/lib/modules" || fail "no modules at $mods"
mount -t proc proc $r/proc
mount -t sysfs sysfs $r/sys
mount -t devtmpfs devtmpfs $r/dev
mkdir -p $r/dev/pts $r/dev/shm
mount -t devpts devpts $r/dev/pts
mount -t tmpfs tmpfs $r/dev/shm
mount -t tmpfs tmpfs $r/run
# /tmp stays the overlay's: a tree cloned there (as CI does) must be seen.
mount -t bpf bpf $r/sys/fs/bpf
mount -t cgroup2 cgroup2 $r/sys/fs/cgroup
mount -t tracefs tracefs $r/sys/kernel/tracing 2>/dev/null
mount -t debugfs debugfs $r/sys/kernel/debug 2>/dev/null
ln -sf /proc/self/fd $r/dev/fd
# The kernel and scripts load modules through busybox's modprobe, which
# reads the modules.dep that busybox depmod wrote on the host.
rm -f $r/usr/sbin/modprobe
ln -s /bin/busybox $r/usr/sbin/modprobe
echo /usr/sbin/modprobe >/proc/sys/kernel/modprobe
# ps_init=systemd: the host's systemd as init, booting to a target of
# one unit, the job's, which prints its status and powers off.
if [ "$init" = systemd ]; then
	u=$r/etc/systemd/system
	mkdir -p $u
	cat >$u/ps-vm.target <<EOF
[Unit]
Description=kernel-vm: the job
Requires=ps-vm-job.service
After=ps-vm-job.service
EOF
	cat >$u/ps-vm-job.service <<EOF
[Unit]
Description=kernel-vm: the job
Wants=systemd-journald.socket
After=systemd-journald.socket
[Service]
Type=oneshot
TimeoutStartSec=infinity
StandardOutput=tty
StandardError=tty
TTYPath=/dev/ttyS0
ExecStart=/bin/sh -c '/usr/sbin/ip link set lo up; echo PS-VM-START; /bin/bash $job/cmd </dev/null; echo "PS-VM-EXIT=\$\$?"; sync; /bin/busybox poweroff -f'
EOF
	ln -sf ps-vm.target $u/default.target
	# /tmp stays the overlay's here too: no tmpfs over it (where the host
	# enables tmp.mount), and no emptying it at boot (tmpfiles' "D /tmp").
	ln -sf /dev/null $u/tmp.mount
	ln -sf /dev/null $u/systemd-tmpfiles-setup.service
	exec switch_root $r /lib/systemd/systemd
fi
# switch_root, not chroot: the kernel runs modprobe in init's root.
exec switch_root $r /bin/busybox sh -c '
	/usr/sbin/ip link set lo up
	echo PS-VM-START
	/bin/bash "$1/cmd" </dev/null
	echo "PS-VM-EXIT=$?"
	sync
	/bin/busybox poweroff -f' sh "$job"
