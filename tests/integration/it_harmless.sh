#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# An observer does not change what it observes. On each device kind, two
# other consumers of the traffic at TC ingress, a tc mirred mirror to an
# ifb (read by tcpdump) and a second BPF program (another pktsample, as a
# clsact filter), see byte-identical frames with and without a pktsample
# running, for the default and every --hook/--xdp-mode combination
# pktsample accepts on that device; and the default leaves the device's and
# its peer's features as they were, during the capture and after.
# KINDS="gre bond" limits the device kinds.
source "$(dirname "$0")/lib.sh"
need_tools tcpdump ethtool python3 editcap

COMBOS=("" "--hook xdp" "--hook xdp --xdp-mode skb" "--hook xdp --xdp-mode native"
	"--hook xdp --xdp-attach libxdp" "--hook xdp,tc-ingress,tc-egress" "--tc-mode clsact"
	"--transport ringbuf")
IFB=

# The frames the consumers must see: the test's UDP, to or from port 9.
OURS='udp.port == 9'

# observe DEV NAME: the mirror and the second program, ready; their pids
# in OBS.
observe() {
	local dev=$1 name=$2
	OBS=()
	"$TESTENV" exec "$ENV" cap -- tcpdump -i "$IFB" --immediate-mode -B 16384 -U \
		-w "$WORK/$name.ifb.pcap" 2>"$WORK/$name.td.err" &
	OBS+=($!)
	PIDS+=($!)
	"$TESTENV" exec "$ENV" cap -- "$PKTSAMPLE" -i "$dev" --hook tc-ingress --tc-mode clsact \
		-w "$WORK/$name.obs.pcapng" 2>"$WORK/$name.obs.err" &
	OBS+=($!)
	PIDS+=($!)
	for _ in $(seq 100); do
		grep -q listening "$WORK/$name.td.err" && started "$WORK/$name.obs.err" &&
			return 0
		sleep 0.1
	done
	fail "the observers did not start: $(cat "$WORK/$name.td.err" "$WORK/$name.obs.err")"
}

unobserve() {
	kill -INT "${OBS[@]}" 2>/dev/null || true
	for p in "${OBS[@]}"; do wait "$p" || true; done
}

# seen NAME: what both consumers saw of the test's frames, as two pcaps.
# (The packets of a device without a link-layer header reach the ifb
# without one, where tcpdump reads them as Ethernet: they are told apart
# by their payload. On 5.10 the mirror of a tunnel's ingress carries the
# outer headers too, which TC ingress is given there: the outer IPv4
# header's id differs from run to run, so the mirror is compared from the
# inner packet on, the raw socket's 46 bytes.)
seen() {
	local name=$1 len
	local mirrored=$OURS
	case $KIND in
	tun) mirrored=frame ;;
	gre | ipip | wireguard) mirrored='frame contains "through the tunnel"' ;; # the raw socket's
	esac
	extract "$WORK/$name.ifb.pcap" "$mirrored" "$WORK/$name.mirror.pcap"
	case $KIND in
	gre | ipip | wireguard)
		len=$(tshark_q -r "$WORK/$name.mirror.pcap" -c 1 -T fields -e frame.len)
		if [ "${len:-46}" -gt 46 ]; then
			editcap -C $((len - 46)) "$WORK/$name.mirror.pcap" "$WORK/$name.inner.pcap" &&
				mv "$WORK/$name.inner.pcap" "$WORK/$name.mirror.pcap"
		fi ;;
	esac
	"$PCAPCHECK" extract "$WORK/$name.obs.pcapng" "$DEV" "tc ingress" "$WORK/$name.obs1.pcap" >/dev/null
	extract "$WORK/$name.obs1.pcap" "$OURS" "$WORK/$name.prog.pcap"
}

# The traffic into DEV, the same bytes every time.
traffic() {
	case $KIND in
	tun) in_cap python3 -c 'import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(20): s.sendto(b"to the tun peer", ("203.0.113.2", 9))
time.sleep(0.2)' ;;
	vxlan) in_peer "$PSGEN" -i "$DEV" -n 20 --rate 1000 >/dev/null ;;
	vlan) in_peer "$PSGEN" -i "$PEERIF.100" -n 20 --rate 1000 >/dev/null ;;
	gre | ipip | wireguard)
		# Through the peer's end of the tunnel, with a fixed IP id (a raw
		# socket): the same bytes every run.
		in_peer python3 -c 'import socket, struct
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
data = b"through the tunnel"
udp = struct.pack("!HHHH", 9, 9, 8 + len(data), 0) + data
ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0x4242, 0x4000, 64, 17, 0,
                 socket.inet_aton("198.51.100.2"), socket.inet_aton("198.51.100.1"))
for i in range(20): s.sendto(ip + udp, ("198.51.100.1", 0))' ;;
	*) in_peer "$PSGEN" -i "$PEERIF" -n 20 --rate 1000 >/dev/null ;;
	esac
	sleep 0.3
}

features() { in_cap ethtool -k "$1" 2>/dev/null | grep -v '^Features for'; }

# one_kind KIND: the device, the mirror, the baseline, then every combo.
one_kind() {
	local out lower addr combo name i rc before_dev before_peer
	KIND=$1
	env_up
	if [ "$KIND" = veth ]; then
		DEV=$CAPIF
	else
		out=$("$TESTENV" device "$ENV" "$KIND" 2>"$WORK/dev.err") || rc=$?
		if [ "${rc:-0}" -eq 3 ]; then
			echo "# not in this kernel: $KIND"
			return 0
		fi
		read -r DEV lower addr <<<"$out"
	fi
	IFB=${ENV}ifb
	in_cap ip link add "$IFB" type ifb
	in_cap ip link set "$IFB" up
	in_cap tc qdisc add dev "$DEV" clsact
	in_cap tc filter add dev "$DEV" ingress protocol all u32 match u32 0 0 \
		action mirred egress mirror dev "$IFB"
	before_dev=$(features "$DEV")
	before_peer=$(in_peer ethtool -k "$PEERIF" | grep -v '^Features for')

	observe "$DEV" "$KIND-base"
	traffic
	unobserve
	seen "$KIND-base"
	[ "$("$PCAPCHECK" count "$WORK/$KIND-base.mirror.pcap")" -ge 20 ] ||
		fail "$KIND: the mirror saw too little without pktsample"

	for i in "${!COMBOS[@]}"; do
		combo=${COMBOS[$i]}
		name=$KIND-$i
		observe "$DEV" "$name"
		: >"$WORK/ps.err"
		# shellcheck disable=SC2086 # the combo is words
		"$TESTENV" exec "$ENV" cap -- "$PKTSAMPLE" -i "$DEV" $combo -w "$WORK/$name.pcapng" \
			2>"$WORK/ps.err" &
		PS_PID=$!
		PIDS+=("$PS_PID")
		for _ in $(seq 100); do
			started "$WORK/ps.err" && break
			kill -0 "$PS_PID" 2>/dev/null || break
			sleep 0.1
		done
		if ! kill -0 "$PS_PID" 2>/dev/null; then
			# Not accepted on this device: one line, exit 1, nothing left.
			wait_capture
			unobserve
			assert_eq "1 1" "$PS_RC $(grep -c . "$WORK/ps.err")" \
				"$KIND [${combo:-default}]: refused in one line"
			continue
		fi
		if [ -z "$combo" ]; then
			assert_eq "$before_dev" "$(features "$DEV")" "$KIND [default]: the device's features, during"
			assert_eq "$before_peer" "$(in_peer ethtool -k "$PEERIF" | grep -v '^Features for')" \
				"$KIND [default]: the peer's features, during"
		fi
		traffic
		stop_capture INT
		unobserve
		assert_eq 0 "$PS_RC" "$KIND [${combo:-default}]: the capture exits 0"
		# After the default, as before it. (An explicit skb-mode XDP
		# turns LRO off for good, as its warning says: a bond's, on
		# Debian's 6.1, so "after" is checked here, not at the end.)
		[ -n "$combo" ] ||
			assert_eq "$before_dev" "$(features "$DEV")" "$KIND [default]: the device's features, after"
		seen "$name"
		assert_match "^[0-9]+ frames identical" \
			"$("$PCAPCHECK" same "$WORK/$KIND-base.mirror.pcap" "$WORK/$name.mirror.pcap")" \
			"$KIND [${combo:-default}]: the ifb mirror sees what it saw without pktsample"
		assert_match "^[0-9]+ frames identical" \
			"$("$PCAPCHECK" same "$WORK/$KIND-base.prog.pcap" "$WORK/$name.prog.pcap")" \
			"$KIND [${combo:-default}]: a second TC-ingress program sees what it saw without pktsample"
	done
	assert_nothing_attached "$DEV"
}

for kind in ${KINDS:-veth bridge vxlan macvlan tun vlan bond gre ipip wireguard}; do
	one_kind "$kind"
done
