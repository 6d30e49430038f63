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
		ip link add "${name}0" netns "$cap" mtu "$mtu" type veth \
			peer name "${name}1" netns "$peer" mtu "$mtu" &&
		ip -n "$cap" addr add 192.0.2.1/24 dev "${name}0" &&
		ip -n "$cap" addr add 2001:db8::1/64 dev "${name}0" nodad &&
		ip -n "$peer" addr add 192.0.2.2/24 dev "${name}1" &&
		ip -n "$peer" addr add 2001:db8::2/64 dev "${name}1" nodad &&
		ip -n "$cap" link set lo up && ip -n "$peer" link set lo up &&
		ip -n "$cap" link set "${name}0" up &&
		ip -n "$peer" link set "${name}1" up
	}; then
		teardown "$name"
		die "setup of $name failed"
	fi
	echo "$name"
}

teardown() {
	local name=${1:?teardown NAME}
	# Deleting a namespace removes its veth end, which takes the pair and
	# any XDP/TC programs attached to it along.
	ip netns del "$(ns_cap "$name")" 2>/dev/null || true
	ip netns del "$(ns_peer "$name")" 2>/dev/null || true
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
*) sed -n '4,17p' "$0" | sed 's/^# \{0,1\}//'; [ -z "$cmd" ] || exit 2 ;;
esac
