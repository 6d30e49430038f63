#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# One packet followed through the host (--packet-id): a router between two
# namespaces, captured at both of its interfaces' TC hooks and at the drop
# hook. Each forwarded ping is written twice under one epb_packetid (in at
# the first interface, out at the second, the later record saying which
# hook came before and how long before); a ping to an unreachable route
# and UDP to a closed port of the router's own are written at ingress and
# at the drop hook under one id; --stats and the closing lines give the
# time between each pair of hooks; -r --path prints a line a packet;
# --top-group path has a row a step; a flood of 100,000 identical frames
# through the router has every id on exactly two records, where each
# skb's address is taken again by the next; --sample and --sample-flows
# keep a packet at both hooks or at neither; across a bridge of the two,
# each ping is in at one port and out at the other under one id;
# --packet-id cpu gives every record its own; every hook loads with the
# most it can be given.
source "$(dirname "$0")/lib.sh"
need_tools python3

# The router is the first testenv's capture namespace: its peer is A, and
# the second testenv's veth, moved into it, leads to B (its peer).
env_up
ENV_A=$ENV R_A=$CAPIF
env_up
ENV_B=$ENV R_B=${ENV}0
ip -n "$ENV_B-cap" link set "$R_B" netns "$ENV_A-cap"
ENV=$ENV_A
in_cap ip addr add 198.51.100.1/24 dev "$R_B"
in_cap ip link set "$R_B" up
in_cap ip link set lo up
in_cap sysctl -q -w net.ipv4.ip_forward=1
in_cap ip route add unreachable 203.0.113.0/24
in_a() { "$TESTENV" exec "$ENV_A" peer -- "$@"; }
in_b() { "$TESTENV" exec "$ENV_B" peer -- "$@"; }
in_b ip addr flush dev "${ENV_B}1"
in_b ip addr add 198.51.100.2/24 dev "${ENV_B}1"
in_b ip route add default via 198.51.100.1
in_a ip route add default via 192.0.2.1
# Neighbours resolved before the capture: its records are the test's alone.
in_a ping -c 1 -W 2 198.51.100.2 >/dev/null || fail "the router does not route"

F=$WORK/path.pcapng
start_capture -v --stats 200ms -i "$R_A" -i "$R_B" --hook tc-ingress,tc-egress,drop -w "$F"
assert_match "packet ids: one a packet at every hook it meets" "$(cat "$WORK/ps.err")" \
	"-v says that each packet keeps its id at every hook"
in_a ping -c 5 -i 0.2 198.51.100.2 >/dev/null || fail "pings through the router"
in_a ping -c 3 -i 0.2 -W 1 203.0.113.9 >/dev/null || true
in_a python3 -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(3):
    s.sendto(b"closed %d" % i, ("192.0.2.1", 9))'
sleep 0.5
stop_capture
assert_eq 0 "$PS_RC" "the capture exits 0"
# The time between each pair of hooks, in --stats' lines and at the end.
T='[0-9]+\.[0-9]us'
assert_match "paths .*tc-ingress@$R_A>tc-egress@$R_B [1-5] p50 $T p99 $T" \
	"$(grep '^stats:' "$WORK/ps.err" | tail -1)" "--stats gives the time from hook to hook"
between=$(grep "followed packets between hooks:" "$WORK/ps.err")
# (Drops: the test's six, and what else the peer's stack sends the router.)
for pair in "tc-ingress@$R_A>tc-egress@$R_B 5" "tc-ingress@$R_B>tc-egress@$R_A 5" \
	"tc-ingress@$R_A>drop@$R_A [6-9]"; do
	assert_match "[:,] $pair p50 $T p99 $T" "$between" "at the end, $pair packets' times"
done

# records FILTER: "interface hook-words id comment" a line, in file order.
records() {
	tshark_q -r "$F" -Y "$1" -T fields -E separator=';' -e frame.interface_name \
		-e frame.packet_id -e frame.comment
}
# check_pairs FILTER FIRST SECOND NAME: every packet FILTER matches is
# written twice, at FIRST (iface) then at SECOND (iface, or "drop"), under
# one id of its own; the second says the first came before, and when.
check_pairs() {
	local filter=$1 first=$2 second=$3 name=$4
	records "$filter" | python3 -c '
import re, sys
first, second, name = sys.argv[1:4]
recs = [l.rstrip("\n").split(";", 2) for l in sys.stdin if l.strip()]
by = {}
for iface, pid, comment in recs:
    by.setdefault(pid, []).append((iface, comment))
if not by:
    sys.exit(f"{name}: no records")
for pid, rs in by.items():
    if len(rs) != 2:
        sys.exit(f"{name}: id {pid} on {len(rs)} records: {rs}")
    (i1, c1), (i2, c2) = rs
    if i1 != first or "prev=" in c1:
        sys.exit(f"{name}: id {pid} first at {i1} ({c1!r}), not {first}")
    if second == "drop":
        ok = i2 == first and "drop=" in c2
    else:
        ok = i2 == second and "drop=" not in c2
    m = re.search(r"prev=tc-ingress@(\S+) after=([0-9]+)\.([0-9]{3})us", c2)
    if not ok or not m or m.group(1) != first:
        sys.exit(f"{name}: id {pid} second record at {i2}: {c2!r}")
    us = int(m.group(2)) + int(m.group(3)) / 1000
    if not 0 < us < 1e6:
        sys.exit(f"{name}: id {pid} took {us} us between its hooks")
print(len(by))' "$first" "$second" "$name"
}
assert_eq 5 "$(check_pairs "icmp.type == 8 && ip.dst == 198.51.100.2" "$R_A" "$R_B" \
	"forwarded requests")" "each forwarded echo request: one id, in at $R_A, out at $R_B"
assert_eq 5 "$(check_pairs "icmp.type == 0 && ip.dst == 192.0.2.2" "$R_B" "$R_A" \
	"forwarded replies")" "each forwarded echo reply: one id, in at $R_B, out at $R_A"
# (The router's ICMP errors quote the packets: not those.)
assert_eq 3 "$(check_pairs "icmp.type == 8 && ip.dst == 203.0.113.9 && !(icmp.type == 3)" "$R_A" drop \
	"unreachable")" "each echo request to an unreachable route: its drop has its ingress id"
assert_eq 3 "$(check_pairs "udp.dstport == 9 && !icmp" "$R_A" drop "closed port")" \
	"each datagram to a closed port: its drop has its ingress id"
# -r --path: a line per packet, its places in order, a drop's reason.
"$PKTSAMPLE" -r "$F" --path >"$WORK/paths" || fail "-r --path"
U='\+[0-9]+\.[0-9]{3}us'
assert_eq 5 "$(grep -cE "^[0-9:.]+ tc-ingress@$R_A $U tc-egress@$R_B IP 192\.0\.2\.2 > 198\.51\.100\.2: ICMP echo request" "$WORK/paths")" \
	"-r --path: each forwarded request a line, in at $R_A, out at $R_B"
assert_eq 3 "$(grep -cE "^[0-9:.]+ tc-ingress@$R_A $U drop@$R_A [A-Z_]+ IP 192\.0\.2\.2 > 203\.0\.113\.9: ICMP echo request" "$WORK/paths")" \
	"-r --path: each request to the unreachable route a line, ending in its drop's reason"
seps=$(grep -oE " $U " "$WORK/paths" | grep -c .)
assert_eq "$(($(count "$F" frame) - seps))" "$(grep -c . "$WORK/paths")" \
	"-r --path: a line per packet, every record in one"
assert_eq 2 "$("$PKTSAMPLE" -r "$F" --path -c 2 | grep -c .)" "-r --path -c 2: two packets"

# The records of different packets never share an id.
assert_eq "" "$(tshark_q -r "$F" -T fields -e frame.packet_id -e ip.id -e icmp.seq |
	sort -u | awk '{n[$1]++} END {for (i in n) if (n[i] > 1) print i}')" \
	"no id on two different packets"

# --top --top-group path: a row for each step, the packets that went from
# one hook to the next.
: >"$WORK/ps.err"
"$TESTENV" exec "$ENV" cap -- "$PKTSAMPLE" -i "$R_A" -i "$R_B" --top --batch --top-group path \
	icmp >"$WORK/top.txt" 2>"$WORK/ps.err" &
PS_PID=$!
PIDS+=("$PS_PID")
wait_started "$PS_PID"
in_a ping -c 10 -i 0.2 198.51.100.2 >/dev/null || fail "pings through the router"
sleep 1.5
stop_capture
assert_eq 0 "$PS_RC" "--top-group path: exit 0"
assert_match "by path" "$(head -1 "$WORK/top.txt")" "--top-group path: the table says its grouping"
for row in "tc-ingress@$R_A > tc-egress@$R_B" "tc-ingress@$R_B > tc-egress@$R_A" "tc-ingress@$R_A"; do
	assert_match "[0-9] +$row"$'\n' "$(cat "$WORK/top.txt")"$'\n' "--top-group path: a row $row"
done

# A flood of identical frames: the kernel hands each skb's address to the
# next, and a packet must not take the id of the one before.
MAC=$(in_cap cat /sys/class/net/"$R_A"/address)
start_capture -i "$R_A" -i "$R_B" --hook tc-ingress,tc-egress -w "$F" udp
in_a "$PSGEN" -i "${ENV_A}1" -n 100000 -s 64 --rate 50000 --src 192.0.2.2 \
	--dst 198.51.100.2 --dst-mac "$MAC" >/dev/null
sleep 0.5
stop_capture
assert_match "^0 packets lost" "$(grep "packets lost" "$WORK/ps.err")" "the flood: nothing lost"
# whole_paths: "N ids, each in at A then out at B" where every id in $F is
# on two records, in at $R_A and out at $R_B, else the first few that are not.
whole_paths() {
	tshark_q -r "$F" -T fields -e frame.packet_id -e frame.interface_name >"$WORK/ids"
	python3 -c '
import sys
a, b = sys.argv[2:4]
seen = {}
for line in open(sys.argv[1]):
    pid, iface = line.split()
    seen.setdefault(pid, []).append(iface)
bad = [(p, v) for p, v in seen.items() if v != [a, b]]
print(f"{len(bad)} ids otherwise: {bad[:3]}" if bad else f"{len(seen)} ids, each in at {a} then out at {b}")
' "$WORK/ids" "$R_A" "$R_B"
}
assert_eq "100000 ids, each in at $R_A then out at $R_B" "$(whole_paths)" \
	"the flood: no id on two packets, no packet under two ids"

# Sampling decides once a packet, at its first hook: each kept packet is
# written at both, none at one alone.
for sampling in "--sample 10" "--sample-flows 4"; do
	start_capture -i "$R_A" -i "$R_B" --hook tc-ingress,tc-egress $sampling -w "$F" udp
	in_a "$PSGEN" -i "${ENV_A}1" -n 20000 -s 64 --rate 50000 --flows 64 --src 192.0.2.2 \
		--dst 198.51.100.2 --dst-mac "$MAC" >/dev/null
	sleep 0.5
	stop_capture
	assert_match "^0 packets lost" "$(grep "packets lost" "$WORK/ps.err")" "$sampling: nothing lost"
	kept=$(whole_paths)
	assert_match "^[0-9]+ ids, each in at $R_A then out at $R_B" "$kept" \
		"$sampling: each kept packet in at $R_A and out at $R_B under one id"
	kept=${kept%% *}
	[ "$kept" -gt 0 ] && [ "$kept" -lt 14000 ] ||
		fail "$sampling kept $kept of 20,000 packets"
	ok "$sampling: kept some of the packets, not all"
done

# A bridge with the two as its ports: each ping in at one port and out at
# the other under one id.
in_cap ip addr flush dev "$R_A"
in_cap ip addr flush dev "$R_B"
in_cap ip link add "${ENV_A}br" type bridge
in_cap ip link set "$R_A" master "${ENV_A}br"
in_cap ip link set "$R_B" master "${ENV_A}br"
in_cap ip link set "${ENV_A}br" up
in_a ip addr add 192.0.2.3/24 dev "${ENV_A}1"
in_b ip addr add 192.0.2.4/24 dev "${ENV_B}1"
in_a ping -c 1 -W 2 192.0.2.4 >/dev/null || fail "the bridge does not forward"
start_capture -i "$R_A" -i "$R_B" --hook tc-ingress,tc-egress -w "$F" icmp
in_a ping -c 4 -i 0.2 192.0.2.4 >/dev/null || fail "pings across the bridge"
stop_capture
assert_eq 4 "$(check_pairs "icmp.type == 8" "$R_A" "$R_B" "bridged requests")" \
	"each bridged echo request: one id, in at one port, out at the other"
assert_eq 4 "$(check_pairs "icmp.type == 0" "$R_B" "$R_A" "bridged replies")" \
	"each bridged echo reply: one id, in at one port, out at the other"

# --packet-id cpu: each record its own id, as before.
start_capture -v -i "$R_A" -i "$R_B" --packet-id cpu -w "$F" icmp
assert_match "packet ids: each record's CPU and sequence" "$(cat "$WORK/ps.err")" \
	"-v says that --packet-id cpu numbers records"
in_a ping -c 3 -i 0.2 192.0.2.4 >/dev/null || fail "pings across the bridge"
stop_capture
tshark_q -r "$F" -T fields -e frame.packet_id >"$WORK/ids"
assert_eq "12 12" "$(grep -c . "$WORK/ids") $(sort -u "$WORK/ids" | grep -c .)" \
	"--packet-id cpu: 12 records, 12 ids"
assert_eq 0 "$(count "$F" 'frame.comment contains "prev="')" "--packet-id cpu: no prev words"

# Each hook's program loads with the most it can be given at once: packets
# followed, flows sampled, a filter (the verifier's 512 bytes of stack for
# a program and what it calls, as 5.10 and 6.1 count them).
for hooks in tc-ingress,tc-egress,drop xdp; do
	in_cap "$PKTSAMPLE" -i "$R_A" --hook "$hooks" --packet-id path --sample-flows 4 \
		--duration 200ms -w /dev/null 'udp or icmp' 2>"$WORK/load.err" ||
		fail "--hook $hooks, followed, flows sampled, filtered: $(cat "$WORK/load.err")"
done
ok "every hook loads with packets followed, flows sampled and a filter"
