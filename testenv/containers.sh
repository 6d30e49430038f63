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

# wire_container NETNS N PID: a veth from NETNS (a testenv pair's
# ENV-cap; its end ENVcN, 198.18.N.1/24) to the network namespace of
# process PID (ENVxN, 198.18.N.2/24), both up, IPv4 alone (no IPv6
# housekeeping: router solicitations, MLD).
wire_container() {
	local ns=$1 n=$2 pid=$3 ifc=${1%-cap}c$2 ifx=${1%-cap}x$2
	ip link add "$ifc" type veth peer name "$ifx"
	ip link set "$ifc" netns "$ns"
	ip link set "$ifx" netns "$pid"
	ip -n "$ns" addr add "198.18.$n.1/24" dev "$ifc"
	ip -n "$ns" link set "$ifc" up
	ip netns exec "$ns" sysctl -qw "net.ipv6.conf.$ifc.disable_ipv6=1"
	nsenter -t "$pid" -n sysctl -qw "net.ipv6.conf.$ifx.disable_ipv6=1"
	nsenter -t "$pid" -n ip addr add "198.18.$n.2/24" dev "$ifx"
	nsenter -t "$pid" -n ip link set "$ifx" up
}

# k8s_annotations NAMESPACE POD CONTAINER: the annotations CRI-O writes for
# a Kubernetes container (podman keeps them in the same OCI config), as
# podman run's arguments, in the array K8S.
k8s_annotations() {
	K8S=(--annotation io.kubernetes.pod.namespace="$1" --annotation io.kubernetes.pod.name="$2"
		--annotation io.kubernetes.container.name="$3")
}
