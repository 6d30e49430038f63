#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# pktsample's test environment: two network namespaces joined by a veth
# pair, so test traffic never touches the host's own interfaces.
#
#   NAME-cap   holds NAME0 (192.0.2.1/24, 2001:db8::1/64): capture side
#   NAME-peer  holds NAME1 (192.0.2.2/24, 2001:db8::2/64): the far end
#
# Usage:
#   testenv.sh setup [--name NAME] [--mtu N]   prints NAME (default: random)
#   testenv.sh teardown NAME
#   testenv.sh exec NAME [cap|peer] -- CMD...  run CMD in a namespace
#   testenv.sh ping NAME [-6] [COUNT]          ping the peer from cap
#   testenv.sh status [NAME]                   show environments / one env
#   testenv.sh device NAME KIND                build a device on the pair
#
# The device matrix (device): on top of the veth pair, one device of KIND
# in the capture namespace, with an address its peer reaches through it.
# Prints "DEV LOWER ADDR": the device, the device under it (or -), and the
# address at the far end, reached through DEV. Exit 3 if this kernel lacks
# KIND.
#   bridge   NAMEbr, created first and NAME0 then made anew as its port
#            (docker's order); 192.0.2.1 moves to the bridge
#   vlanbr   the same with vlan_filtering and VLAN 100 on port and bridge:
#            tagged frames reach NAMEbr with the tag held out of band
#   vlanoob  NAME0 itself; the peer's TC egress tags each IPv4 packet with
#            VLAN 100 out of band ($VLAN_PUSH_OBJ, built from
#            tests/bpf/tc_vlan_push.bpf.c), as a VLAN device with
#            tx-vlan-offload would: it reaches NAME0 out of band
#   vxlan    NAMEvx (VNI 42) over NAME0 on both sides; 198.51.100.1 -> .2
#   macvlan  NAMEmv on NAME0 (bridge mode), 192.0.2.3 (NAME0 loses its
#            address)
#   tun      NAMEtn, served by tests/integration/tun_peer.py (echo replies,
#            a fixed UDP answer to port 9); 203.0.113.1 -> .2
#   vlan     NAME0.100 / NAME1.100 (8021q); 198.51.100.1 -> .2
#   bond     NAMEbd with NAME0 as its slave; 192.0.2.1 moves to the bond
#   gre      NAMEgr over the pair; 198.51.100.1 -> .2
#   ipip     NAMEip over the pair; 198.51.100.1 -> .2
#   wireguard NAMEwg over the pair (keys made by wg); 198.51.100.1 -> .2
set -euo pipefail

die() { echo "testenv: $*" >&2; exit 2; }

ns_cap() { echo "$1-cap"; }
ns_peer() { echo "$1-peer"; }

exists() { ip netns list | awk '{print $1}' | grep -qx "$(ns_cap "$1")"; }

quiet_sysctls() {
	# No DAD, router solicitations or link-local autoconf: test captures
	# should hold the traffic the test sends, not IPv6 housekeeping.
	local ns=$1
	ip netns exec "$ns" sysctl -qw \
		net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0 \
		net.ipv6.conf.all.accept_ra=0 net.ipv6.conf.default.accept_ra=0 \
		net.ipv6.conf.all.router_solicitations=0 \
		net.ipv6.conf.default.router_solicitations=0 \
		net.ipv6.conf.default.addr_gen_mode=1 >/dev/null
}

# make_pair NAME MTU: the veth pair, up, the peer's end addressed.
make_pair() {
	local name=$1 mtu=$2 cap peer
	cap=$(ns_cap "$name")
	peer=$(ns_peer "$name")
	ip link add "${name}0" netns "$cap" mtu "$mtu" type veth \
		peer name "${name}1" netns "$peer" mtu "$mtu" &&
	ip -n "$peer" addr add 192.0.2.2/24 dev "${name}1" &&
	ip -n "$peer" addr add 2001:db8::2/64 dev "${name}1" nodad &&
	ip -n "$cap" link set "${name}0" up &&
	ip -n "$peer" link set "${name}1" up
}

setup() {
	local name="" mtu=1500
	while [ $# -gt 0 ]; do
		case $1 in
		--name) name=$2; shift 2 ;;
		--mtu) mtu=$2; shift 2 ;;
		*) die "setup: unknown argument $1" ;;
		esac
	done
	[ -n "$name" ] || name="ps$(od -An -N3 -tx1 /dev/urandom | tr -d ' \n')"
	[ ${#name} -le 12 ] || die "name '$name' too long (12 characters at most)"
	exists "$name" && die "environment $name exists already"

	local cap peer
	cap=$(ns_cap "$name")
	peer=$(ns_peer "$name")
	ip netns add "$cap"
	if ! {
		ip netns add "$peer" &&
		quiet_sysctls "$cap" && quiet_sysctls "$peer" &&
		ip -n "$cap" link set lo up && ip -n "$peer" link set lo up &&
		make_pair "$name" "$mtu" &&
		ip -n "$cap" addr add 192.0.2.1/24 dev "${name}0" &&
		ip -n "$cap" addr add 2001:db8::1/64 dev "${name}0" nodad
	}; then
		teardown "$name"
		die "setup of $name failed"
	fi
	echo "$name"
}

teardown() {
	local name=${1:?teardown NAME} ns pid
	# What still runs in the namespaces (a tun's peer) would keep them and
	# their devices alive. Deleting a namespace removes its veth end, which
	# takes the pair and any XDP/TC programs attached to it along.
	for ns in "$(ns_cap "$name")" "$(ns_peer "$name")"; do
		for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null || true; done
		ip netns del "$ns" 2>/dev/null || true
	done
}

# device NAME KIND: see the usage above.
device() {
	local name=${1:?device NAME KIND} kind=${2:?device NAME KIND} cap peer
	exists "$name" || die "no environment $name"
	cap=$(ns_cap "$name")
	peer=$(ns_peer "$name")
	local c="ip -n $cap" p="ip -n $peer" if0=${name}0 if1=${name}1
	lacks() { echo "testenv: this kernel has no $kind devices" >&2; exit 3; }
	# ends CDEV PDEV: a point-to-point device pair, 198.51.100.1 -> .2, up.
	ends() {
		$c addr add 198.51.100.1/24 dev "$1"
		$p addr add 198.51.100.2/24 dev "$2"
		$c link set "$1" up
		$p link set "$2" up
	}
	case $kind in
	bridge|vlanbr)
		# The bridge first, then its port: the pair is made anew.
		$c link add "${name}br" type bridge || lacks
		if [ "$kind" = vlanbr ] &&
		   ! $c link set "${name}br" type bridge vlan_filtering 1 2>/dev/null; then
			kind="VLAN-filtering bridge"
			lacks
		fi
		$c link del "$if0"
		make_pair "$name" 1500
		$c link set "$if0" master "${name}br"
		$c addr add 192.0.2.1/24 dev "${name}br"
		$c addr add 2001:db8::1/64 dev "${name}br" nodad
		$c link set "${name}br" up
		if [ "$kind" = vlanbr ]; then
			ip netns exec "$cap" bridge vlan add dev "$if0" vid 100
			ip netns exec "$cap" bridge vlan add dev "${name}br" vid 100 self
		fi
		echo "${name}br $if0 192.0.2.2" ;;
	vlanoob)
		local obj=${VLAN_PUSH_OBJ:-$(dirname "$0")/../build/bpf/tc_vlan_push.bpf.o}
		[ -r "$obj" ] || die "device vlanoob: no $obj (build the tree, or set VLAN_PUSH_OBJ)"
		ip netns exec "$peer" tc qdisc add dev "$if1" clsact
		ip netns exec "$peer" tc filter add dev "$if1" egress bpf da obj "$obj" sec tc
		echo "$if0 - 192.0.2.2" ;;
	vxlan)
		$c link add "${name}vx" type vxlan id 42 local 192.0.2.1 remote 192.0.2.2 \
			dev "$if0" dstport 4789 || lacks
		$p link add "${name}vx" type vxlan id 42 local 192.0.2.2 remote 192.0.2.1 \
			dev "$if1" dstport 4789
		ends "${name}vx" "${name}vx"
		echo "${name}vx $if0 198.51.100.2" ;;
	macvlan)
		$c link add "${name}mv" link "$if0" type macvlan mode bridge || lacks
		$c addr flush dev "$if0"
		$c addr add 192.0.2.3/24 dev "${name}mv"
		$c addr add 2001:db8::3/64 dev "${name}mv" nodad
		$c link set "${name}mv" up
		echo "${name}mv $if0 192.0.2.2" ;;
	tun)
		# A fresh system (a kernel-vm guest) may have the module but not
		# yet its device node: loading it makes the node.
		[ -c /dev/net/tun ] || modprobe tun 2>/dev/null || true
		[ -c /dev/net/tun ] || lacks
		ip netns exec "$cap" python3 "$(dirname "$0")/../tests/integration/tun_peer.py" \
			"${name}tn" >/dev/null 2>&1 &
		for _ in $(seq 50); do $c link show "${name}tn" >/dev/null 2>&1 && break; sleep 0.1; done
		$c link show "${name}tn" >/dev/null 2>&1 || lacks
		$c addr add 203.0.113.1 peer 203.0.113.2 dev "${name}tn"
		$c link set "${name}tn" up
		echo "${name}tn - 203.0.113.2" ;;
	vlan)
		$c link add link "$if0" name "$if0.100" type vlan id 100 2>/dev/null || lacks
		$p link add link "$if1" name "$if1.100" type vlan id 100
		ends "$if0.100" "$if1.100"
		echo "$if0.100 $if0 198.51.100.2" ;;
	bond)
		$c link add "${name}bd" type bond mode active-backup miimon 100 2>/dev/null || lacks
		$c link set "$if0" down
		$c addr flush dev "$if0"
		$c link set "$if0" master "${name}bd"
		$c addr add 192.0.2.1/24 dev "${name}bd"
		$c link set "${name}bd" up
		$c link set "$if0" up
		echo "${name}bd $if0 192.0.2.2" ;;
	gre|ipip)
		local t=${name}gr
		[ "$kind" = ipip ] && t=${name}ip
		$c link add "$t" type "$kind" local 192.0.2.1 remote 192.0.2.2 2>/dev/null || lacks
		$p link add "$t" type "$kind" local 192.0.2.2 remote 192.0.2.1
		ends "$t" "$t"
		echo "$t $if0 198.51.100.2" ;;
	wireguard)
		$c link add "${name}wg" type wireguard 2>/dev/null || lacks
		command -v wg >/dev/null || die "device wireguard: needs wg (wireguard-tools)"
		$p link add "${name}wg" type wireguard
		local kc kp
		kc=$(wg genkey)
		kp=$(wg genkey)
		ip netns exec "$cap" wg set "${name}wg" listen-port 51820 private-key <(echo "$kc") \
			peer "$(echo "$kp" | wg pubkey)" endpoint 192.0.2.2:51820 allowed-ips 198.51.100.0/24
		ip netns exec "$peer" wg set "${name}wg" listen-port 51820 private-key <(echo "$kp") \
			peer "$(echo "$kc" | wg pubkey)" endpoint 192.0.2.1:51820 allowed-ips 198.51.100.0/24
		ends "${name}wg" "${name}wg"
		echo "${name}wg $if0 198.51.100.2" ;;
	*) die "device: unknown kind $kind" ;;
	esac
}

run_in() {
	local name=${1:?exec NAME [cap|peer] -- CMD}; shift
	local side=cap
	case ${1:-} in cap|peer) side=$1; shift ;; esac
	[ "${1:-}" = "--" ] && shift
	[ $# -gt 0 ] || die "exec: no command"
	exists "$name" || die "no environment $name"
	if [ "$side" = cap ]; then
		exec ip netns exec "$(ns_cap "$name")" "$@"
	else
		exec ip netns exec "$(ns_peer "$name")" "$@"
	fi
}

do_ping() {
	local name=${1:?ping NAME}; shift
	local dst=192.0.2.2 count=3
	if [ "${1:-}" = "-6" ]; then dst=2001:db8::2; shift; fi
	[ -n "${1:-}" ] && count=$1
	exists "$name" || die "no environment $name"
	ip netns exec "$(ns_cap "$name")" ping -q -c "$count" -i 0.2 -W 2 "$dst"
}

status() {
	if [ -n "${1:-}" ]; then
		exists "$1" || die "no environment $1"
		ip -n "$(ns_cap "$1")" -br addr show dev "${1}0"
		ip -n "$(ns_peer "$1")" -br addr show dev "${1}1"
		ip -n "$(ns_cap "$1")" link show dev "${1}0" | grep -o 'prog/xdp.*' || true
		ip netns exec "$(ns_cap "$1")" bpftool net show dev "${1}0" 2>/dev/null || true
	else
		ip netns list | awk '{print $1}' | sed -n 's/-cap$//p'
	fi
}

cmd=${1:-}; [ $# -gt 0 ] && shift
case $cmd in
setup) setup "$@" ;;
teardown) teardown "$@" ;;
exec) run_in "$@" ;;
ping) do_ping "$@" ;;
status) status "$@" ;;
device) device "$@" ;;
*) sed -n '4,34p' "$0" | sed 's/^# \{0,1\}//'; [ -z "$cmd" ] || exit 2 ;;
esac
