#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The live view and -r, against tcpdump on the same traffic: mixed traffic
# (ARP, ICMP, ICMPv6 with neighbour discovery, a TCP connection both ways,
# UDP) printed live while also written (--print -w); every line, minus our
# interface/hook/direction prefix, must be what `tcpdump -n -r` prints for
# the written file. Then printing alone, -c, -v, a reader that leaves
# (| head), and -r on our file and on tcpdump's, with a filter and -w.
source "$(dirname "$0")/lib.sh"

env_up

# One round of mixed traffic from the capture side to the peer.
traffic() {
	in_cap ip neigh flush dev "$CAPIF"
	in_cap ping -q -c 2 -i 0.2 192.0.2.2 >/dev/null
	in_cap ping -q -6 -c 2 -i 0.2 2001:db8::2 >/dev/null
	in_peer python3 -c '
import socket
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("192.0.2.2", 7777)); s.listen(1); s.settimeout(5)
c, _ = s.accept(); c.recv(100); c.sendall(b"y" * 50); c.close()' &
	local srv=$!
	# Connect only once it listens: a fixed pause lost the race on a
	# loaded machine (connection refused).
	for _ in $(seq 200); do
		in_peer ss -Hltn 'sport = :7777' | grep -q . && break
		sleep 0.05
	done
	in_cap python3 -c '
import socket, time
c = socket.create_connection(("192.0.2.2", 7777)); c.sendall(b"x" * 100)
c.recv(50); time.sleep(0.1); c.close()
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.sendto(b"z" * 20, ("192.0.2.2", 9999))
u6 = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM); u6.sendto(b"z" * 30, ("2001:db8::2", 9998))'
	wait "$srv"
	sleep 0.3
}

# Our line without the prefix tcpdump cannot know: interface, hook, direction.
strip_prefix() { sed -E "s/^([^ ]+) $CAPIF (xdp In|tc-ingress In|tc-egress Out) /\1 /"; }

# --- the live view beside a file: line for line what tcpdump prints --------
start_capture -i "$CAPIF" --print -w "$WORK/live.pcapng" >"$WORK/live.txt"
traffic
stop_capture INT
assert_eq 0 "$PS_RC" "--print -w: exit 0"
tcpdump -n -r "$WORK/live.pcapng" >"$WORK/tcpdump.txt" 2>/dev/null
lines=$(grep -c . "$WORK/live.txt")
assert_eq "$(grep -c . "$WORK/tcpdump.txt")" "$lines" "one line per packet written"
[ "$lines" -ge 20 ] || fail "only $lines packets of mixed traffic"
bad=$(grep -vcE "^[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6} $CAPIF (tc-ingress In|tc-egress Out) " \
	"$WORK/live.txt" || true)
assert_eq 0 "$bad" "every line: time, interface, hook, direction"
if ! diff <(strip_prefix <"$WORK/live.txt") "$WORK/tcpdump.txt" >"$WORK/diff"; then
	fail "live view differs from tcpdump -n -r: $(head -20 "$WORK/diff")"
fi
ok "live view: every line as tcpdump -n -r prints it"
for what in "ARP, Request who-has 192.0.2.2 tell 192.0.2.1" "ARP, Reply 192.0.2.2 is-at" \
	"ICMP echo request" "ICMP echo reply" "ICMP6, echo request" "ICMP6, neighbor" \
	"Flags \[S\], seq" "Flags \[S\.\], seq" "Flags \[P\.\], seq 1:101, ack 1" \
	"Flags \[F\.\]" "UDP, length 20" "IP6 2001:db8::1\.[0-9]+ > 2001:db8::2\.9998: UDP, length 30"; do
	grep -qE "$what" "$WORK/live.txt" || fail "no line with /$what/"
done
ok "ARP, ICMP, ICMPv6, TCP (relative seq/ack), UDP over both IPs are printed"

# --- -r on our own file: the same lines as the live view --------------------
"$PKTSAMPLE" -r "$WORK/live.pcapng" >"$WORK/r.txt" 2>"$WORK/r.err"
assert_eq "" "$(cat "$WORK/r.err")" "-r: nothing on stderr"
if ! diff "$WORK/live.txt" "$WORK/r.txt" >"$WORK/diff"; then
	fail "-r of our file differs from the live view: $(head -10 "$WORK/diff")"
fi
ok "-r of our file prints what the live view printed (interfaces and hooks from the IDBs)"

# A filter, -c, and -w: the selection copied with its blocks and options.
"$PKTSAMPLE" -r "$WORK/live.pcapng" icmp or icmp6 | strip_prefix >"$WORK/r-icmp.txt"
tcpdump -n -r "$WORK/live.pcapng" icmp or icmp6 2>/dev/null >"$WORK/t-icmp.txt"
assert_eq "$(md5sum <"$WORK/t-icmp.txt")" "$(md5sum <"$WORK/r-icmp.txt")" "-r with a filter selects what tcpdump selects"
assert_eq 3 "$("$PKTSAMPLE" -r "$WORK/live.pcapng" -c 3 | grep -c .)" "-r -c 3: three lines"
"$PKTSAMPLE" -r "$WORK/live.pcapng" -w "$WORK/sel.pcapng" tcp 2>"$WORK/r.err"
assert_eq "" "$(cat "$WORK/r.err")" "-r -w: nothing on stderr"
assert_eq "$(tcpdump -n -r "$WORK/live.pcapng" tcp 2>/dev/null | grep -c .)" \
	"$(count "$WORK/sel.pcapng" tcp)" "-r -w: the TCP packets, read back by tshark"
assert_eq 0 "$(count "$WORK/sel.pcapng" '!tcp')" "-r -w: nothing else"
[ "$(count "$WORK/live.pcapng" 'tcp && frame.comment contains "pid="')" -gt 0 ] ||
	fail "no TCP packet names its owner"
assert_eq "$(fields "$WORK/live.pcapng" tcp frame.comment)" \
	"$(fields "$WORK/sel.pcapng" tcp frame.comment)" "-r -w: packet comments kept"
assert_eq "tc egress|tc ingress" \
	"$(fields "$WORK/sel.pcapng" tcp frame.interface_description | sort -u | paste -sd'|')" \
	"-r -w: interfaces and hooks kept"

# -r on tcpdump's own pcap: exactly tcpdump's text (no names to prefix).
tcpdump -r "$WORK/live.pcapng" -w "$WORK/td.pcap" 2>/dev/null
assert_eq "$(tcpdump -n -r "$WORK/td.pcap" 2>/dev/null | md5sum)" \
	"$("$PKTSAMPLE" -r "$WORK/td.pcap" | md5sum)" "-r of a tcpdump pcap: tcpdump's text"
rc=0
"$PKTSAMPLE" -r "$WORK/td.pcap" 'tcp port' 2>"$WORK/r.err" >/dev/null || rc=$?
assert_eq "2 1" "$rc $(grep -c . "$WORK/r.err")" "-r with a bad filter: exit 2, one line"

# --- printing alone, with -e, -v and -c ------------------------------------
start_capture -i "$CAPIF" -e -v -c 4 -l >"$WORK/ev.txt"
in_cap ping -q -c 4 -i 0.2 192.0.2.2 >/dev/null
wait_capture
assert_eq 0 "$PS_RC" "printing: -c 4 ends the capture, exit 0"
assert_eq 4 "$(grep -c . "$WORK/ev.txt")" "-c counts printed packets"
assert_match "^[0-9:.]+ $CAPIF (tc-ingress In|tc-egress Out) \[hook=(tc-ingress|tc-egress) cpu=[0-9]+ queue=[0-9]+ $OWNER_WORDS id=[0-9]+ drops=0\] [0-9a-f:]{17} > [0-9a-f:]{17}, ethertype IPv4 \(0x0800\), length 98: 192\.0\.2\.[12] > 192\.0\.2\.[12]: ICMP echo (request|reply)" \
	"$(head -1 "$WORK/ev.txt")" "-e -v: link header and our annotations"
assert_match "4 packets captured" "$(cat "$WORK/ps.err")" "the summary goes to stderr"

# A reader that leaves (| head -n 2) ends the capture quietly, nothing left.
in_peer ping -q -c 30 -i 0.05 192.0.2.1 >/dev/null &
rc=0
"$TESTENV" exec "$ENV" cap -- bash -c '"$0" -i "$1" | head -n 2 >/dev/null; exit ${PIPESTATUS[0]}' \
	"$PKTSAMPLE" "$CAPIF" 2>"$WORK/head.err" || rc=$?
wait
assert_eq 0 "$rc" "| head: exit 0 when the reader leaves"
assert_no_match "cannot|error" "$(cat "$WORK/head.err")" "| head: no error line"
assert_nothing_attached
