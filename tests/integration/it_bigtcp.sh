#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Whole super-packets: IPv6 BIG TCP on the veth (gso_max_size 185000) makes
# TC-egress GSO packets of up to ~184 KB, past what one perf record holds.
# At the default snap length (262144, as tcpdump's) every one is captured
# whole (frame.len == frame.cap_len), byte-identical to what tcpdump saw
# at the same time, through the perf buffers (continuations) and the BPF
# ring alike.
source "$(dirname "$0")/lib.sh"
need_tools tcpdump python3

env_up
in_cap ip link set dev "$CAPIF" gso_max_size 185000 ||
	skip "this kernel has no BIG TCP (gso_max_size > 65536)"
in_peer ip link set dev "$PEERIF" gro_max_size 185000
in_peer python3 -c '
import socket
s = socket.socket(socket.AF_INET6)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("2001:db8::2", 5001))
s.listen(4)
while True:
    c, _ = s.accept()
    while c.recv(1 << 20):
        pass
    c.close()' &
PIDS+=($!)
sleep "$(scaled 1)"

for transport in perf ringbuf; do
	: >"$WORK/td.err"
	in_cap tcpdump -i "$CAPIF" -Q out -n -B 65536 -w "$WORK/td.pcap" ip6 2>"$WORK/td.err" &
	td=$!
	PIDS+=("$td")
	for _ in $(seq 100); do grep -q "listening on" "$WORK/td.err" && break; sleep 0.1; done
	start_capture -i "$CAPIF" --hook tc-egress --transport "$transport" -B 65536 \
		-w "$WORK/ps.pcapng" ip6
	# Paced writes of 256 KiB: big enough for 184 KB super-packets, slow
	# enough that neither capture's buffer fills.
	in_cap python3 -c '
import socket, time
s = socket.create_connection(("2001:db8::2", 5001))
for i in range(30):
    s.sendall(b"z" * 262144)
    time.sleep(0.02)
s.close()'
	sleep "$(scaled 1)"
	stop_capture INT
	in_cap pkill -INT -f "tcpdump -i $CAPIF" || true
	wait "$td" || true
	assert_eq 0 "$PS_RC" "$transport: pktsample exits 0"
	assert_match "^0 packets lost in" "$(grep 'packets lost in' "$WORK/ps.err")" \
		"$transport: nothing lost"
	assert_match "^0 packets dropped by kernel" "$(grep 'dropped by kernel' "$WORK/td.err")" \
		"$transport: tcpdump lost nothing either"

	big=$(count "$WORK/ps.pcapng" "frame.len > 65460")
	[ "$big" -ge 10 ] || fail "$transport: only $big super-packets past 65,460 bytes"
	ok "$transport: $big super-packets past one perf record"
	assert_eq 0 "$(count "$WORK/ps.pcapng" "frame.cap_len != frame.len")" \
		"$transport: every packet whole (frame.cap_len == frame.len)"
	extract "$WORK/ps.pcapng" "frame.len > 65460" "$WORK/ps-big.pcap"
	extract "$WORK/td.pcap" "frame.len > 65460" "$WORK/td-big.pcap"
	assert_eq "$big frames identical" "$("$PCAPCHECK" same "$WORK/td-big.pcap" "$WORK/ps-big.pcap")" \
		"$transport: the super-packets byte for byte as tcpdump saw them"
done
assert_nothing_attached
