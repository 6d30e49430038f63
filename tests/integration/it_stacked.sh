#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Devices stacked on devices: -i any on a namespace holding a bridge with a
# port, a vxlan over a veth and a macvlan on it, created in two orders,
# starts, captures on all of them and exits cleanly, with the default hooks
# and with --hook xdp (the kernel takes no XDP below a device that has it:
# pktsample attaches lower devices first). A foreign XDP program, on the
# interface or on its upper device, is named in the one line of refusal.
source "$(dirname "$0")/lib.sh"
need_tools capinfos
: "${BARE_XDP_OBJ:=$top/build/bpf/bare_xdp.bpf.o}"
[ -r "$BARE_XDP_OBJ" ] || skip "no $BARE_XDP_OBJ (build the tree)"

env_up
c() { in_cap ip "$@"; }

# Order A: the bridge before its port (docker's order), vxlan, macvlan.
build_a() {
	c link add "${ENV}br" type bridge
	c link add "${ENV}pa" type veth peer name "${ENV}pb"
	c link set "${ENV}pa" master "${ENV}br"
	c link add "${ENV}vx" type vxlan id 7 remote 192.0.2.2 dev "$CAPIF" dstport 4789
	c link add "${ENV}mv" link "$CAPIF" type macvlan mode bridge
	for d in br pa pb vx mv; do c link set "${ENV}$d" up; done
}
# Order B: macvlan, vxlan, then a port older than its bridge.
build_b() {
	for d in br pa vx mv; do c link del "${ENV}$d" 2>/dev/null || true; done
	c link add "${ENV}mv" link "$CAPIF" type macvlan mode bridge
	c link add "${ENV}vx" type vxlan id 7 remote 192.0.2.2 dev "$CAPIF" dstport 4789
	c link add "${ENV}pa" type veth peer name "${ENV}pb"
	c link add "${ENV}br" type bridge
	c link set "${ENV}pa" master "${ENV}br"
	for d in br pa pb vx mv; do c link set "${ENV}$d" up; done
}

# settle: until the new devices are up (a bridge forwards, and a macvlan
# receives, once its carrier is, which the kernel's link watch says within
# a second or so).
settle() {
	local d up
	for _ in $(seq 50); do
		up=0
		for d in br pa mv; do
			in_cap ip -br link show "${ENV}$d" | grep -q ' UP ' && up=$((up + 1))
		done
		[ $up -lt 3 ] || return 0
		sleep 0.1
	done
	fail "the bridge, its port and the macvlan did not come up: $(in_cap ip -br link)"
}

# any_capture ORDER [ARGS...]: -i any with ARGS, traffic on each device.
any_capture() {
	local order=$1 f d; shift
	f=$WORK/any-$order${1:+-xdp}.pcapng
	start_capture -i any "$@" -w "$f"
	in_peer "$PSGEN" -i "$PEERIF" -n 10 --rate 1000 >/dev/null  # NAME0, and mv (broadcast)
	in_cap "$PSGEN" -i "${ENV}pb" -n 10 --rate 1000 >/dev/null  # pa, and the bridge
	in_cap ping -q -c 2 -i 0.2 192.0.2.2 >/dev/null
	sleep 0.5 # a macvlan takes broadcasts through a work queue
	stop_capture INT
	assert_eq 0 "$PS_RC" "-i any $* (order $order): starts and exits 0"
	assert_eq 0 "$(grep -c 'cannot' "$WORK/ps.err" || true)" "-i any $* (order $order): no refusal"
	for d in "$CAPIF" "${ENV}mv" "${ENV}pa" "${ENV}br"; do
		[ "$(count "$f" "frame.interface_name == \"$d\" && udp.dstport == 9")" -ge 10 ] ||
			fail "-i any $* (order $order): too few packets on $d"
	done
	ok "-i any $* (order $order): the test's packets on the veth, the macvlan, the port and the bridge"
	assert_match "${ENV}vx" "$(capinfos -I "$f" 2>/dev/null || capinfos "$f")" \
		"-i any $* (order $order): the vxlan has its interface blocks too"
	for d in "$CAPIF" "${ENV}br" "${ENV}pa" "${ENV}mv" "${ENV}vx"; do
		assert_nothing_attached "$d"
	done
}

build_a
settle
any_capture a
any_capture a --hook xdp -v
assert_match "xdp: attached to ${ENV}pa .*xdp: attached to ${ENV}br " \
	"$(tr '\n' ' ' <"$WORK/ps.err")" "--hook xdp: the port before its bridge"
build_b
settle
any_capture b
any_capture b --hook xdp

# refused_xdp IFACE WHY REGEX: with a foreign XDP program in the way (put there by the caller),
# --hook xdp on IFACE exits 1 with one line matching REGEX, and leaves no file.
# (--duration: a capture that is not refused ends, and says so, rather than
# running on.)
refused_xdp() {
	local rc=0
	in_cap "$PKTSAMPLE" -i "$1" --hook xdp --duration "$(scaled 5)" -w "$WORK/never.pcapng" \
		2>"$WORK/x.err" || rc=$?
	[ "$rc $(grep -c . "$WORK/x.err")" = "1 1" ] ||
		fail "$2: exit $rc, not 1 with one line: $(cat "$WORK/x.err")"
	ok "$2: exit 1, one line"
	assert_match "$3" "$(cat "$WORK/x.err")" "$2: the line names the program and the way out"
	[ ! -e "$WORK/never.pcapng" ] || fail "$2: the refused start left its file"
}

# A foreign XDP program on the interface: named, with what to use instead;
# the default capture (TC) runs beside it.
in_cap ip link set dev "$CAPIF" xdpgeneric obj "$BARE_XDP_OBJ" sec xdp
refused_xdp "$CAPIF" "a foreign XDP program" \
	"cannot attach XDP to $CAPIF: XDP program [0-9]+ \(bare_xdp_pass\) is attached there; capture with --hook (tc-ingress|xdp-entry,xdp-exit \\(around it\\)) instead"
start_capture -i "$CAPIF" -w "$WORK/beside.pcapng"
in_cap ping -q -c 2 -i 0.2 192.0.2.2 >/dev/null
stop_capture INT
# Where the kernel lets fentry trace it (6.1, not this CI's kernel), the
# default records around it: each reply at its entry and at its exit.
hooks=$(sed -n 's/.*capturing on [^ ]* (\(.*\)), snaplen.*/\1/p' "$WORK/ps.err")
case $hooks in
*xdp-entry*) want=6 ;;
*) want=4 ;;
esac
assert_eq "0 $want" "$PS_RC $(count "$WORK/beside.pcapng" icmp)" \
	"the default capture runs beside it ($hooks)"
in_cap ip link set dev "$CAPIF" xdpgeneric off

# On the upper device: the bridge's program keeps XDP off its port. 5.10
# takes XDP below it (the kernel's refusal came later): there the capture
# runs on the port, and leaves nothing behind.
in_cap ip link set dev "${ENV}br" xdpgeneric obj "$BARE_XDP_OBJ" sec xdp
if [[ $(uname -r) == 5.10.* ]]; then
	rc=0
	in_cap "$PKTSAMPLE" -i "${ENV}pa" --hook xdp --duration "$(scaled 3)" -w "$WORK/below.pcapng" \
		2>"$WORK/x.err" || rc=$?
	assert_match "^0 .*capturing on ${ENV}pa \(xdp\)" "$rc $(cat "$WORK/x.err")" \
		"XDP below an upper device that has it: 5.10 takes it, and the capture runs"
else
	refused_xdp "${ENV}pa" "XDP on the upper device" \
		"cannot attach XDP to ${ENV}pa: its upper device ${ENV}br has XDP program [0-9]+ \(bare_xdp_pass\), and the kernel takes no XDP below it; capture ${ENV}pa with --hook tc-ingress instead"
fi
in_cap ip link set dev "${ENV}br" xdpgeneric off
assert_nothing_attached "${ENV}pa"
