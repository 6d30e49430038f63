# SPDX-License-Identifier: GPL-2.0-only
# What the tests and benches that run real containers share (sourced):
# podman's configuration for this machine, and an image's busybox tree.

# podman_conf FILE: podman as it runs here, written to FILE and exported as
# CONTAINERS_CONF: runc (crun refuses the hybrid cgroup layout), cgroupfs
# (PID 1 is no systemd), ulimits within the host's hard limits.
podman_conf() {
	cat >"$1" <<'CONF'
[containers]
default_ulimits = ["nofile=1024:1024", "nproc=1024:1024"]
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
CONF
	export CONTAINERS_CONF=$1
}

# busybox_tree DIR: a root of busybox-static and the applets run in it.
busybox_tree() {
	mkdir -p "$1/bin"
	cp "$(command -v busybox)" "$1/bin/busybox"
	for a in sh sleep ping nc; do ln -s busybox "$1/bin/$a"; done
}
