#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The device matrix: on each kind of device the kernel offers (testenv.sh
# device), pktsample's default capture against tcpdump's on the same
# traffic, per interface and direction: the same frames byte for byte, the
# same link type, and with a filter in the kernel the same packets as
# tcpdump's filter. Kinds this kernel lacks are named (the VM kernels of
# testenv/kernel-vm.sh have them). KINDS="bond gre" limits the matrix and
# the tunnels; PARTS="matrix tunnels" runs only those parts (the VM smoke
# sets run the parts whose kernel side differs by version, tests/vm/smoke.sh).
source "$(dirname "$0")/lib.sh"
need_tools tcpdump capinfos python3

# part NAME: is NAME one of the parts to run (matrix lo vlan filter tunnels
# linktype, all by default)?
part() { [[ " ${PARTS:-matrix lo vlan filter tunnels linktype} " == *" $1 "* ]]; }

# The test's own traffic is IPv4 (and ARP): a new device's IPv6 and IGMP
# housekeeping may come and go at any moment, so it stays out of the
# comparison (pcapcheck same --no-ip6-igmp).

# td_start NAME IFACE DIR [FILTER...]: tcpdump -Q DIR on IFACE into
# $WORK/NAME.td.pcap, ready when this returns.
TDS=()
td_start() {
	local name=$1 ifc=$2 dir=$3; shift 3
	# Not through in_cap: $! must be tcpdump itself, for the signal.
	"$TESTENV" exec "$ENV" cap -- tcpdump -i "$ifc" -Q "$dir" --immediate-mode -B 16384 -U \
		-w "$WORK/$name.td.pcap" "$@" \
		2>"$WORK/$name.td.err" &
	TDS+=($!)
	PIDS+=($!)
	for _ in $(seq 50); do grep -q listening "$WORK/$name.td.err" && return 0; sleep 0.1; done
	fail "tcpdump on $ifc did not start: $(cat "$WORK/$name.td.err")"
}

# stop_all: pktsample and every tcpdump at once, then wait for each.
stop_all() {
	kill -INT "$PS_PID" "${TDS[@]}" 2>/dev/null || true
	wait_capture
	for p in "${TDS[@]}"; do wait "$p" || true; done
	TDS=()
}

# td_dropped: did any tcpdump of this round lose packets? (Its socket can,
# on a loaded box, even with few packets: then it is no reference.)
td_dropped() {
	grep -h "dropped by kernel" "$WORK"/*.td.err | grep -qv "^0 packets"
}

# rounds FN ARGS...: FN (start the captures, make the traffic, stop_all)
# until no tcpdump dropped a packet, three times at most.
rounds() {
	for try in 1 2 3; do
		rm -f "$WORK"/*.td.err
		"$@"
		td_dropped || return 0
		echo "# tcpdump dropped packets (try $try): again"
	done
	fail "tcpdump dropped packets three times running"
}

# same_as_tcpdump NAME FILE IFACE HOOK DESCR: the frames pktsample wrote
# for (IFACE, HOOK) are tcpdump's (NAME), byte for byte, of the same link
# type.
same_as_tcpdump() {
	local name=$1 file=$2 ifc=$3 hook=$4 what=$5 got td ps
	"$PCAPCHECK" extract "$file" "$ifc" "$hook" "$WORK/$name.ps.pcap" >/dev/null
	got=$("$PCAPCHECK" same "$WORK/$name.td.pcap" "$WORK/$name.ps.pcap" --no-ip6-igmp || true)
	[ "$got" != "0 frames identical" ] || fail "$what: tcpdump saw no test traffic"
	assert_match "^[1-9][0-9]* frames identical$" "$got" \
		"$what: the same ${got%% *} frames as tcpdump -Q, byte for byte"
	td=$(capinfos -E "$WORK/$name.td.pcap" | sed -n 's/^File encapsulation: *//p')
	ps=$(capinfos -E "$WORK/$name.ps.pcap" | sed -n 's/^File encapsulation: *//p')
	# libpcap writes some devices without a link-layer header (gre, ppp)
	# as Linux cooked captures, a header of its own making; pktsample
	# writes what the hooks see, raw IP (and pcapcheck compared the
	# packets after the cooked header).
	if [ "$td" = "Linux cooked-mode capture v1" ]; then
		assert_eq "Raw IP" "$ps" "$what: raw IP, where tcpdump makes up a cooked header"
	else
		assert_eq "$td" "$ps" "$what: the link type tcpdump writes"
	fi
}

# ping_through ADDR: both directions through the device under test.
ping_through() { in_cap ping -q -c 3 -i 0.2 -W 2 "$1" >/dev/null || fail "no answer from $1"; }

# matrix_round KIND DEV ADDR IFACES...: tcpdump per (interface, direction),
# pktsample with its defaults, the traffic, and stop.
matrix_round() {
	local kind=$1 dev=$2 addr=$3 i d; shift 3
	for i in "$@"; do
		for d in in out; do td_start "$kind-$i-$d" "$i" "$d"; done
	done
	start_capture $(for i in "$@"; do printf -- '-i %s ' "$i"; done) -w "$WORK/$kind.pcapng"
	ping_through "$addr"
	[ "$kind" != tun ] || in_cap python3 -c 'import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(3): s.sendto(b"to the tun peer", ("203.0.113.2", 9))'
	sleep 0.5
	stop_all
}

# matrix KIND: build the device, capture it and its lower device with the
# defaults beside tcpdump, and compare every (interface, direction).
matrix() {
	local kind=$1 out dev lower addr ifs hook d rc=0
	env_up
	out=$("$TESTENV" device "$ENV" "$kind" 2>"$WORK/dev.err") || rc=$?
	if [ $rc -eq 3 ]; then
		echo "# not in this kernel: $kind ($(cat "$WORK/dev.err"))"
		LACKING+=("$kind")
		return 0
	fi
	[ $rc -eq 0 ] || fail "testenv device $kind: $(cat "$WORK/dev.err")"
	read -r dev lower addr <<<"$out"
	ifs=$dev
	[ "$lower" = - ] || ifs="$dev $lower"
	rounds matrix_round "$kind" "$dev" "$addr" $ifs
	assert_eq 0 "$PS_RC" "$kind: the capture exits 0"
	for i in $ifs; do
		for d in in out; do
			hook=$([ $d = in ] && echo "tc ingress" || echo "tc egress")
			same_as_tcpdump "$kind-$i-$d" "$WORK/$kind.pcapng" "$i" "$hook" "$kind, $i, $d"
		done
	done
	assert_match "capturing on $dev \(tc-ingress,tc-egress\)" "$(cat "$WORK/ps.err")" \
		"$kind: the default is TC at both ends"
}

LACKING=()
if part matrix; then
	for kind in ${KINDS:-bridge vxlan macvlan tun vlanbr vlan bond gre ipip wireguard}; do
		matrix "$kind"
	done
fi

# --- lo: tc-egress alone sees each packet once, as tcpdump -i lo does ------------
if part lo; then
	lo_round() {
		"$TESTENV" exec "$ENV" cap -- tcpdump -i lo --immediate-mode -B 16384 -U \
			-w "$WORK/lo.td.pcap" 2>"$WORK/lo.td.err" &
		TDS+=($!)
		PIDS+=($!)
		for _ in $(seq 50); do grep -q listening "$WORK/lo.td.err" && break; sleep 0.1; done
		start_capture -i lo -w "$WORK/lo.pcapng"
		in_cap ping -q -c 3 -i 0.2 127.0.0.1 >/dev/null
		sleep 0.3
		stop_all
	}
	env_up
	rounds lo_round
	same_as_tcpdump lo "$WORK/lo.pcapng" lo "tc egress" "lo"
fi

# --- VLAN tags out of band before XDP (the peer's tc pushes them) ----------------
# At tc-ingress (the default) they are in every frame, as tcpdump shows
# them; generic XDP cannot see them, and says so when it attaches.
# peer_round NAME "PSGEN ARGS" ARGS...: tcpdump -Q in (NAME-in), pktsample
# with ARGS into $WORK/NAME.pcapng, 20 frames from the peer, stop.
if part vlan; then
	peer_round() {
		local name=$1 gen=$2; shift 2
		td_start "$name-in" "$CAPIF" in
		start_capture -i "$CAPIF" -w "$WORK/$name.pcapng" "$@"
		# shellcheck disable=SC2086 # gen is words
		in_peer "$PSGEN" -i "$PEERIF" -n 20 --rate 1000 $gen >/dev/null
		sleep 0.3
		stop_all
	}
	env_up
	"$TESTENV" device "$ENV" vlanoob >/dev/null
	rounds peer_round oob "" --hook xdp,tc-ingress --xdp-mode skb
	same_as_tcpdump oob-in "$WORK/oob.pcapng" "$CAPIF" "tc ingress" "VLAN out of band, tc-ingress"
	assert_eq 20 "$(count "$WORK/oob.pcapng" 'frame.interface_description == "tc ingress" && vlan.id == 100 && udp')" \
		"VLAN out of band: tc-ingress frames carry the tag"
	assert_eq "20 0" "$(count "$WORK/oob.pcapng" 'frame.interface_description == "xdp ingress" && udp') $(count "$WORK/oob.pcapng" 'frame.interface_description == "xdp ingress" && vlan')" \
		"VLAN out of band: generic XDP sees the frames, untagged"
	assert_match "xdp: skb mode on $CAPIF .*misses VLAN tags held out of band" "$(cat "$WORK/ps.err")" \
		"VLAN out of band: the skb-mode warning says XDP misses them"

	# Native XDP where the driver hands over the tag it holds (veth since 6.8,
	# through the program bound to the device): in the record, as at TC, and
	# the filter sees it; on an older kernel the warning says XDP misses it.
	env_up
	"$TESTENV" device "$ENV" vlanoob >/dev/null
	rounds peer_round native "" --hook xdp --xdp-mode native -v vlan 100 and udp
	if bpftool btf dump file /sys/kernel/btf/vmlinux 2>/dev/null | grep -c "'bpf_xdp_metadata_rx_vlan_tag'" >/dev/null; then
		assert_match "xdp: attached to $CAPIF \(native mode, BPF link, VLAN tags from the driver\)" \
			"$(cat "$WORK/ps.err")" "native XDP on veth: the program bound to it, with the driver's tags"
		same_as_tcpdump native-in "$WORK/native.pcapng" "$CAPIF" "xdp ingress" \
			"VLAN out of band, native XDP with the driver's tag"
		assert_eq 20 "$(count "$WORK/native.pcapng" 'vlan.id == 100 && udp')" \
			"native XDP: the filter 'vlan 100 and udp' sees the driver's tag"
	else
		assert_match "xdp: native mode on $CAPIF .*misses VLAN tags held out of band" "$(cat "$WORK/ps.err")" \
			"native XDP on veth without the driver's tags (before 6.8): the warning says so"
	fi

	# In band on the wire: at XDP in the frame, at TC out of band; both as tcpdump.
	env_up
	rounds peer_round inband "--vlan 100" --hook xdp,tc-ingress
	for h in "xdp ingress" "tc ingress"; do
		assert_eq 20 "$(count "$WORK/inband.pcapng" "frame.interface_description == \"$h\" && vlan.id == 100 && udp")" \
			"VLAN in band: $h frames carry the tag"
	done
	same_as_tcpdump inband-in "$WORK/inband.pcapng" "$CAPIF" "tc ingress" "VLAN in band, tc-ingress"
fi

# --- the filter in the kernel, compiled for each device's link type ---------------
# tun (raw IP) and the veth (Ethernet) in one capture: 'icmp' and a VLAN
# filter select what tcpdump's do on each.
if part filter; then
	filter_round() {
		td_start f-tun-in "$tun" in icmp
		td_start f-tun-out "$tun" out icmp
		start_capture -i "$tun" -i "$CAPIF" -w "$WORK/f.pcapng" icmp
		ping_through 203.0.113.2
		ping_through 192.0.2.2
		in_cap python3 -c 'import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"x", ("203.0.113.2", 9))'
		sleep 0.3
		stop_all
	}
	env_up
	tun=$("$TESTENV" device "$ENV" tun | cut -d' ' -f1)
	rounds filter_round
	same_as_tcpdump f-tun-in "$WORK/f.pcapng" "$tun" "tc ingress" "filter icmp on tun, in"
	same_as_tcpdump f-tun-out "$WORK/f.pcapng" "$tun" "tc egress" "filter icmp on tun, out"
	assert_eq 6 "$(count "$WORK/f.pcapng" "frame.interface_name == \"$CAPIF\" && icmp")" \
		"filter icmp on the veth beside it: its pings"
	assert_eq 0 "$(count "$WORK/f.pcapng" '!icmp')" "filter icmp: nothing else"
	assert_eq "Ethernet|Raw IP" \
		"$(capinfos "$WORK/f.pcapng" | sed -n 's/^ *Encapsulation = \(.*\) ([0-9]* - .*/\1/p' | sort -u | paste -sd'|')" \
		"one file: the tun's interfaces raw IP, the veth's Ethernet"
fi

# IP tunnels: the filter is matched against the inner packet at both ends,
# as tcpdump's is. (5.10's gre and ipip give tc-ingress the outer headers
# in front of it; the programs start the packet at its IP header there.)
if part tunnels; then
	tunnel_filter_round() {
		td_start "f-$1-in" "$2" in icmp
		td_start "f-$1-out" "$2" out icmp
		start_capture -i "$2" -w "$WORK/f-$1.pcapng" icmp
		ping_through "$3"
		sleep 0.3
		stop_all
	}
	for kind in ${KINDS:-gre ipip}; do
		[ "$kind" = gre ] || [ "$kind" = ipip ] || continue
		env_up
		rc=0
		out=$("$TESTENV" device "$ENV" "$kind" 2>"$WORK/dev.err") || rc=$?
		[ $rc -ne 3 ] || continue # not in this kernel: the matrix said so
		[ $rc -eq 0 ] || fail "testenv device $kind: $(cat "$WORK/dev.err")"
		read -r dev _ addr <<<"$out"
		rounds tunnel_filter_round "$kind" "$dev" "$addr"
		same_as_tcpdump "f-$kind-in" "$WORK/f-$kind.pcapng" "$dev" "tc ingress" "filter icmp on $kind, in"
		same_as_tcpdump "f-$kind-out" "$WORK/f-$kind.pcapng" "$dev" "tc egress" "filter icmp on $kind, out"
		assert_eq 6 "$(count "$WORK/f-$kind.pcapng" 'icmp')" "filter icmp on $kind: 3 pings, 3 answers"
	done
fi

if part filter; then
	vlan_filter_round() {
		td_start f-vlan-in "$CAPIF" in vlan 100 and udp
		start_capture -i "$CAPIF" -w "$WORK/fv.pcapng" vlan 100 and udp
		in_peer "$PSGEN" -i "$PEERIF" -n 10 --rate 1000 >/dev/null
		in_peer ping -q -c 2 -i 0.2 -W 1 192.0.2.1 >/dev/null || true
		sleep 0.3
		stop_all
	}
	env_up
	"$TESTENV" device "$ENV" vlanoob >/dev/null
	rounds vlan_filter_round
	same_as_tcpdump f-vlan-in "$WORK/fv.pcapng" "$CAPIF" "tc ingress" "filter 'vlan 100 and udp', tag out of band"
fi

# --- a device pktsample cannot write: one line, exit 1, nothing attached -----------
if part linktype; then
	env_up
	"$TESTENV" exec "$ENV" cap -- python3 "$here/tun_peer.py" "${ENV}mon" --type 803 >/dev/null 2>&1 &
	PIDS+=($!)
	for _ in $(seq 50); do in_cap ip link show "${ENV}mon" >/dev/null 2>&1 && break; sleep 0.1; done
	in_cap ip link set "${ENV}mon" up
	rc=0
	in_cap "$PKTSAMPLE" -i "$CAPIF" -i "${ENV}mon" -w "$WORK/never.pcapng" 2>"$WORK/lt.err" || rc=$?
	assert_eq "1 1" "$rc $(grep -c . "$WORK/lt.err")" "a link type pktsample cannot write: exit 1, one line"
	assert_match "cannot capture on ${ENV}mon: its link type \(ARPHRD 803\) is not one pktsample can write" \
		"$(cat "$WORK/lt.err")" "and it names the interface and its type"
	[ ! -e "$WORK/never.pcapng" ] || fail "the refused start left its file behind"
	assert_nothing_attached
	assert_match "${ENV}mon .* link ARPHRD 803 \(pktsample cannot write it\)" "$(in_cap "$PKTSAMPLE" -D)" \
		"-D says so too"
fi

! part matrix || echo "# device kinds this kernel lacks: ${LACKING[*]:-none}"
