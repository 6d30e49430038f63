#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# In-kernel filters against tcpdump: mixed traffic in both directions
# (IPv4/IPv6, UDP/TCP, VLAN-tagged, jumbo), captured by pktsample at all
# three hooks and by tcpdump on the same interface; tcpdump then applies
# the same expression to what it captured. Each hook must select exactly the
# frames tcpdump selects in its direction, byte for byte. Bad filters fail
# cleanly before anything is attached.
#
# tcpdump filters its own capture file rather than live: on Linux a live
# tcpdump runs the expression after the kernel has stripped VLAN tags, so
# there `udp port 53` also selects tagged DNS; pktsample, like tcpdump -r
# and Wireshark, sees the frame as it was on the wire (doc/guide.md, Filters).
source "$(dirname "$0")/lib.sh"

env_up --mtu 9000

# The mixed traffic: peer -> capture interface (ingress) and back (egress).
traffic() {
	local r=(--rate 20000 -s 128)
	in_peer "$PSGEN" -i "$PEERIF" -n 40 --dst-port 53 "${r[@]}"
	in_peer "$PSGEN" -i "$PEERIF" -n 40 --tcp --dst-port 443 "${r[@]}"
	in_peer "$PSGEN" -i "$PEERIF" -n 40 --dst-port 9 "${r[@]}"
	in_peer "$PSGEN" -i "$PEERIF" -n 20 -6 --dst-port 53 "${r[@]}"
	in_peer "$PSGEN" -i "$PEERIF" -n 20 -6 --tcp --dst-port 443 "${r[@]}"
	in_peer "$PSGEN" -i "$PEERIF" -n 20 --vlan 100 --dst-port 53 "${r[@]}"
	in_peer "$PSGEN" -i "$PEERIF" -n 20 --vlan 200 --tcp --dst-port 443 "${r[@]}"
	in_peer "$PSGEN" -i "$PEERIF" -n 10 --tcp --dst-port 443 "${r[@]}" -s 9000
	in_peer "$PSGEN" -i "$PEERIF" -n 10 --src 10.0.0.1 --tcp --dst-port 443 "${r[@]}"
	in_cap "$PSGEN" -i "$CAPIF" -n 30 --dst-port 53 "${r[@]}"
	in_cap "$PSGEN" -i "$CAPIF" -n 20 --tcp --dst-port 443 "${r[@]}"
	in_cap "$PSGEN" -i "$CAPIF" -n 10 --vlan 100 --dst-port 53 "${r[@]}"
	in_cap "$PSGEN" -i "$CAPIF" -n 10 --dst 10.0.0.1 --tcp --dst-port 443 "${r[@]}"
}

# start_tcpdump DIR: tcpdump -Q DIR in the capture namespace, everything.
# libpcap hands over a TPACKET_V3 block only when it fills or its timeout
# (tcpdump's 1 s) expires, so the traffic's last frames may sit in an
# unretired block for up to a second: check_expression waits longer than
# that before interrupting. -B: room for the jumbo frames' bursts.
start_tcpdump() {
	: >"$WORK/td-$1.err"
	"$TESTENV" exec "$ENV" cap -- tcpdump -i "$CAPIF" -Q "$1" -s 0 -B 16384 -U -n \
		-w "$WORK/td-$1.pcap" 2>"$WORK/td-$1.err" &
	PIDS+=($!)
	TD_PIDS+=($!)
	for _ in $(seq 100); do
		grep -q "listening on" "$WORK/td-$1.err" && return 0
		sleep 0.1
	done
	fail "tcpdump did not start: $(cat "$WORK/td-$1.err")"
}

check_expression() { # EXPR [EXTRA PKTSAMPLE ARGS...]
	local expr=$1 cap=$WORK/ps.pcapng total=0
	shift
	TD_PIDS=()
	start_tcpdump in
	start_tcpdump out
	start_capture -i "$CAPIF" --hook xdp,tc-ingress,tc-egress -w "$cap" "$@" "$expr"
	traffic >/dev/null
	sleep 1.5 # > tcpdump's block timeout, see start_tcpdump
	stop_capture INT
	kill -INT "${TD_PIDS[@]}"
	wait "${TD_PIDS[@]}" || true
	assert_eq 0 "$PS_RC" "'$expr': pktsample exits 0"

	for d in "xdp ingress:in" "tc ingress:in" "tc egress:out"; do
		local desc=${d%%:*} dir=${d##*:} want got
		extract "$cap" "frame.interface_description == \"$desc\"" "$WORK/hook.pcap"
		tcpdump -r "$WORK/td-$dir.pcap" -w "$WORK/sel.pcap" "$expr" 2>/dev/null
		want=$("$PCAPCHECK" count "$WORK/sel.pcap")
		got=$("$PCAPCHECK" same "$WORK/sel.pcap" "$WORK/hook.pcap" || true)
		assert_eq "$want frames identical" "$got" \
			"'$expr' $* at $desc: the frames tcpdump -Q $dir selects, no more, no less"
		total=$((total + want))
	done
	[ "$total" -gt 0 ] || fail "'$expr' selected nothing: the test proves nothing"
	assert_match "packets matched the filter" "$(cat "$WORK/ps.err")" \
		"'$expr': the summary reports the matches"
	assert_eq 3 "$(capinfos -M "$cap" 2>/dev/null | grep -cF "Filter string = $expr")" \
		"'$expr': every IDB carries the expression in if_filter"
	# isb_filteraccept = matched; ifrecv = seen; usrdeliv = written
	"$PCAPCHECK" isb "$cap" >"$WORK/isb.txt"
	assert_eq 3 "$(grep -c filteraccept "$WORK/isb.txt")" "'$expr': each ISB has isb_filteraccept"
}

check_expression 'udp port 53 or (tcp and dst port 443)'
check_expression 'vlan 100 and udp'
check_expression 'ip6 and udp'
check_expression 'tcp port 443 and host 10.0.0.1'
check_expression 'greater 5000'
# The ring buffer transport (records in size classes, bytes copied with
# bpf_{xdp,skb}_load_bytes) carries the same frames, tags and jumbos too.
check_expression 'udp or tcp' --transport ringbuf
assert_match "0 packets lost in ring buffer" "$(cat "$WORK/ps.err")" "ringbuf: the summary names the ring"
assert_nothing_attached

# ---- -F: the expression from a file, comments dropped ----
printf '# DNS only\nudp dst port 53   # v4 and v6\n' >"$WORK/expr.txt"
start_capture -i "$CAPIF" --hook xdp -w "$WORK/f.pcapng" -F "$WORK/expr.txt"
in_peer "$PSGEN" -i "$PEERIF" -n 25 --dst-port 53 --rate 20000 >/dev/null
in_peer "$PSGEN" -i "$PEERIF" -n 25 --dst-port 9 --rate 20000 >/dev/null
sleep 0.3
stop_capture INT
got="$(count "$WORK/f.pcapng" "udp.dstport == 53") $(count "$WORK/f.pcapng" "udp.dstport == 9")"
assert_eq "25 0" "$got" "-F file: DNS frames kept, port 9 frames never left the kernel"
assert_match "Filter string = udp dst port 53" "$(capinfos -M "$WORK/f.pcapng" 2>/dev/null)" \
	"-F file: if_filter holds the expression without comments"

# ---- -d: no root, no interface needed ----
rc=0
out=$(setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all \
	"$PKTSAMPLE" -d 'vlan 100 and udp' 2>"$WORK/d.err") || rc=$?
assert_eq "0 " "$rc $(cat "$WORK/d.err")" "-d runs unprivileged, silently"
assert_match "\(000\) ldh +\[12\]" "$out" "-d prints libpcap's cBPF as tcpdump -d does"
assert_match "call bpf_xdp_load_bytes#189" "$out" "-d prints the XDP eBPF"
assert_match "call bpf_skb_load_bytes#26" "$out" "-d prints the TC eBPF"

# ---- bad filters: one line, exit status, nothing attached, no file ----
bad_filter() { # WANT_RC REGEX DESCRIPTION ARGS...
	local want=$1 re=$2 what=$3 rc=0
	shift 3
	rm -f "$WORK/bad.pcapng"
	in_cap "$PKTSAMPLE" -i "$CAPIF" -w "$WORK/bad.pcapng" "$@" >/dev/null 2>"$WORK/bad.err" || rc=$?
	assert_eq "$want" "$rc" "$what: exit status"
	assert_eq 1 "$(wc -l <"$WORK/bad.err")" "$what: one line of error"
	assert_match "$re" "$(cat "$WORK/bad.err")" "$what: says why"
	[ ! -e "$WORK/bad.pcapng" ] || fail "$what: left an output file"
	assert_nothing_attached
}
bad_filter 2 "syntax error" "syntax error" 'tcp port'
bad_filter 2 "rejects all packets|rejects every packet" "expression that rejects everything" 'tcp and udp'
bad_filter 2 "backwards.*protochain" "protochain (backward jumps)" 'protochain 6'
bad_filter 2 "-Q in or -Q out" "inbound (no direction at a hook: -Q)" 'inbound'
bad_filter 2 "cannot read filter file" "missing -F file" -F "$WORK/nope.txt"
# Over the limits: an expression libpcap's optimizer would take minutes on
# (refused before it runs), libpcap's output past the kernel's cBPF limit
# of 4096, and an eBPF translation past the reach of 16-bit jumps.
huge=$(python3 -c "print(' or '.join('ether[%d] = %d' % (i, i % 250) for i in range(1, 1800)))")
bad_filter 2 "too large: [0-9]+ instructions before libpcap's optimizer, at most 16384" \
	"a filter too large to optimize" "$huge"
big=$(python3 -c "print(' or '.join('ether[%d] > %d' % (i, i % 250 + 1) for i in range(1, 1450)))")
bad_filter 2 "4096" "a filter over the cBPF instruction limit" "$big"
big=$(python3 -c "print(' or '.join('ether[%d] = %d' % (i, i % 250) for i in range(1, 1300)))")
bad_filter 2 "too large" "a filter over the eBPF jump reach" "$big"
