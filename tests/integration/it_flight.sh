#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The flight recorder (--flight): nothing written until a trigger, then one
# file with what came before it and --after after it, the trigger packet
# marked; triggers by filter, by drop reason and by SIGUSR2; a trigger
# during an incident counted; two incidents in two files and --incidents
# ending the capture; a flood that overflows --flight-size: the oldest
# given up and counted, the file whole and in time order, the memory
# bounded; bad input refused in one line, nothing attached.
source "$(dirname "$0")/lib.sh"
need_tools python3 capinfos

env_up
in_cap ip link set lo up

# udp_to PORT [N]: N datagrams (default 1) from the capture side to the
# peer, back to back.
udp_to() {
	in_cap python3 -c 'import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for _ in range(int(sys.argv[2])):
    s.sendto(b"trigger", ("192.0.2.2", int(sys.argv[1])))' "$1" "${2:-1}"
}

# wait_incident N: until the capture's stderr says incident N was written.
wait_incident() {
	for _ in $(seq $((100 * PS_TIME_SCALE))); do
		grep -q "^incident $1: " "$WORK/ps.err" && return 0
		sleep 0.1
	done
	fail "no incident $1: $(cat "$WORK/ps.err")"
}

# packets FILE: how many (0 for a file that is empty or not there).
packets() { [ -s "$1" ] && count "$1" frame || echo 0; }

ts_of() { # FILE FILTER: the matching packets' epoch times, in ns
	fields "$1" "$2" frame.time_epoch | awk '{ printf "%.0f\n", $1 * 1e9 }'
}

# --- a trigger by filter ------------------------------------------------------
inc=$WORK/inc.pcapng
start_capture -i "$CAPIF" --flight 10s --after 2s --trigger 'udp dst port 7000' -w "$inc"
# The pinger's own pid (not its wrapper's), to stop it when done.
in_cap sh -c 'echo $$ >"$1"; exec ping -q -i 0.1 -c 100000 192.0.2.2 >/dev/null' sh "$WORK/ping.pid" &
PIDS+=($!)
for _ in $(seq 50); do [ -s "$WORK/ping.pid" ] && break; sleep 0.1; done
pinger=$(cat "$WORK/ping.pid")
PIDS+=("$pinger")
sleep $(scaled 5)
assert_eq 0 "$(packets "$inc")" "nothing written before the trigger"
udp_to 7000
wait_incident 1
sleep 1
kill "$pinger" 2>/dev/null || true
stop_capture INT
assert_eq 0 "$PS_RC" "filter trigger: exits 0"
[ ! -e "$inc"1 ] || fail "one incident made a second file"
ok "one incident, one file"
marked=$(fields "$inc" 'frame.comment contains "trigger="' udp.dstport frame.comment)
assert_match '^7000\|(.* )?trigger=udp dst port 7000$' "$marked" \
	"the trigger packet is marked, once"
# (The peer's port unreachable quotes the datagram: not that one.)
trig=$(ts_of "$inc" 'udp.dstport == 7000 && !icmp')
first=$(ts_of "$inc" frame | head -1)
last=$(ts_of "$inc" frame | tail -1)
echo "# window: $(((trig - first) / 1000000)) ms before, $(((last - trig) / 1000000)) ms after"
[ $((trig - first)) -ge 3000000000 ] || fail "only $(((trig - first) / 1000000)) ms before the trigger"
ok "3 s or more before the trigger"
[ $((last - trig)) -le 2000000000 ] || fail "$(((last - trig) / 1000000)) ms after the trigger, past --after 2s"
[ "$(count "$inc" 'icmp && frame.time_epoch > '"$(awk "BEGIN { printf \"%.9f\", $trig / 1e9 }")")" -gt 0 ] ||
	fail "nothing after the trigger"
ok "pings after the trigger, none past --after"
assert_match "Strict time order: +True" "$(capinfos -o "$inc")" "the incident is in time order"
assert_match "^incident 1: [0-9]+ packets, [0-9:.]+ to [0-9:.]+, trigger=udp dst port 7000 at [0-9:.]+, written to $inc\$" \
	"$(grep '^incident' "$WORK/ps.err")" "one line for the incident: window, trigger, file"
assert_match "1 incident written, 0 triggers ignored" "$(cat "$WORK/ps.err")" "the summary counts it"
assert_nothing_attached

# --- a trigger by drop reason ----------------------------------------------------
# UDP to a port nothing listens on: NO_SOCKET, where the kernel names
# reasons (5.17); before, a reason is refused in one line.
inc=$WORK/drop.pcapng
bpftool btf dump file /sys/kernel/btf/vmlinux >"$WORK/btf.txt"
if grep -q "'SKB_DROP_REASON_NO_SOCKET'" "$WORK/btf.txt"; then
	start_capture -i "$CAPIF" --hook tc-ingress,tc-egress,drop --flight 5s --after 1s \
		--trigger drop:NO_SOCKET -w "$inc"
	in_cap ping -q -c 10 -i 0.1 192.0.2.2 >/dev/null
	in_peer python3 -c 'import socket
socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"nobody", ("192.0.2.1", 9))'
	wait_incident 1
	stop_capture INT
	assert_eq 0 "$PS_RC" "drop trigger: exits 0"
	assert_match 'drop=NO_SOCKET .*trigger=drop:NO_SOCKET$' \
		"$(fields "$inc" 'frame.comment contains "trigger="' frame.comment)" \
		"the dropped datagram is the trigger, its reason said"
	[ "$(count "$inc" 'icmp.type == 8')" -ge 5 ] || fail "the pings before the drop are not there"
	ok "the pings before it are in the incident"
else
	rc=0
	in_cap "$PKTSAMPLE" -i "$CAPIF" --hook tc-ingress,drop --flight 5s --trigger drop:NO_SOCKET \
		-w "$inc" 2>"$WORK/x.err" || rc=$?
	assert_eq "1 1" "$rc $(grep -c . "$WORK/x.err")" "drop:REASON without reasons: exit 1, one line"
	assert_match "no reasons \(Linux 5\.17 has them\)" "$(cat "$WORK/x.err")" "the line says why"
fi
assert_nothing_attached

# --- by hand: SIGUSR2 ---------------------------------------------------------------
inc=$WORK/hand.pcapng
start_capture -i "$CAPIF" --flight 5s --after 1s -w "$inc"
in_cap ping -q -c 10 -i 0.1 192.0.2.2 >/dev/null
kill -USR2 "$(capture_pid "$inc")"
wait_incident 1
stop_capture INT
assert_eq 0 "$PS_RC" "SIGUSR2: exits 0"
assert_eq 20 "$(count "$inc" 'icmp.type == 8 || icmp.type == 0')" "SIGUSR2: the pings before it"
assert_eq 0 "$(count "$inc" 'frame.comment contains "trigger="')" "no packet is the trigger"
assert_match "trigger=SIGUSR2" "$(grep '^incident 1' "$WORK/ps.err")" "the line says SIGUSR2"

# --- two incidents, one trigger during the first, --incidents 2 ------------------
inc=$WORK/two.pcapng
start_capture -i "$CAPIF" --flight 3s --after 1s --trigger 'udp dst port 7000' --incidents 2 -w "$inc"
in_cap ping -q -c 5 -i 0.1 192.0.2.2 >/dev/null
udp_to 7000 2 # the second during the first's incident: counted, nothing more
wait_incident 1
in_cap ping -q -c 5 -i 0.1 192.0.2.2 >/dev/null
udp_to 7000
wait_capture # --incidents 2: it ends by itself
assert_eq 0 "$PS_RC" "--incidents 2: exits 0 after the second"
for f in "$inc" "$inc"1; do
	assert_eq 1 "$(count "$f" 'frame.comment contains "trigger="')" "$(basename "$f"): one trigger"
done
[ ! -e "$inc"2 ] || fail "a third file"
assert_match "2 incidents written, 1 trigger ignored" "$(cat "$WORK/ps.err")" \
	"the summary: two incidents, the trigger during the first ignored"

# --incidents 1: exit 0 at the first.
inc=$WORK/one.pcapng
start_capture -i "$CAPIF" --flight 3s --after 0 --trigger 'udp dst port 7000' --incidents 1 -w "$inc"
udp_to 7000
wait_capture
assert_eq "0 1" "$PS_RC $(count "$inc" 'udp.dstport == 7000 && !icmp')" "--incidents 1: exits 0, the trigger written"

# --- a flood over --flight-size -------------------------------------------------
# The capture's own memory first, then the same flood into 8 MiB of flight.
hwm() { awk '/^VmHWM/ { print $2 }' /proc/"$1"/status; }
flood() { in_peer "$PSGEN" -i "$PEERIF" -n 200000 -s 64 --flows 64 --rate 50000 >/dev/null; }
start_capture -i "$CAPIF" -B 2048 -w "$WORK/plain.pcapng"
pid=$(capture_pid plain.pcapng)
flood
base=$(hwm "$pid")
stop_capture INT
inc=$WORK/flood.pcapng
start_capture -i "$CAPIF" -B 2048 --flight 10m --flight-size 8m --after 0 -w "$inc"
pid=$(capture_pid flood.pcapng)
flood
sleep 0.5
held=$(hwm "$pid")
kill -USR2 "$pid"
wait_incident 1
stop_capture INT
assert_eq 0 "$PS_RC" "flood: exits 0"
echo "# VmHWM: $base KiB capturing to a file, $held KiB with 8 MiB of flight"
[ "$held" -le $((base + 8192 + 4096)) ] || fail "VmHWM $held KiB: more than $base + 8 MiB + 4 MiB"
ok "memory bounded by --flight-size (and the capture's own)"
evicted=$(sed -n 's/.*; \([0-9]*\) packets given up for room.*/\1/p' "$WORK/ps.err")
[ "${evicted:-0}" -gt 100000 ] || fail "the flood gave up only '${evicted}' packets: $(cat "$WORK/ps.err")"
ok "the oldest given up and counted ($evicted)"
n=$(capinfos -c -M "$inc" | awk '/Number of packets/ { print $NF }')
echo "# $n packets in the incident"
[ "$n" -gt 20000 ] && [ "$n" -lt 40000 ] || fail "$n packets in 8 MiB of 64-byte frames"
ok "the incident holds what 8 MiB holds"
assert_match "Strict time order: +True" "$(capinfos -o "$inc")" "the flood's incident in time order"
# The newest were kept: per CPU the ids run on without a gap, but for
# what the kernel's buffer lost, which the next packet's drop count says.
gaps=$(fields "$inc" frame frame.packet_id frame.drop_count | python3 -c '
import sys, collections
seen = collections.defaultdict(list)
for line in sys.stdin:
    pid, drops = (line.strip().split("|") + [""])[:2]
    i = int(pid); seen[i >> 48].append((i & 0xffffffffffff, int(drops or 0)))
print(sum(1 for v in seen.values() for (a, _), (b, lost) in zip(v, v[1:]) if b != a + 1 + lost))')
assert_eq 0 "$gaps" "per CPU, the packets kept follow each other (or the gap is counted lost)"

# --- bad input --------------------------------------------------------------------
refused() { # DESCRIPTION ARGS...: exit 2, one line, no file, nothing attached
	local what=$1 rc=0; shift
	in_cap "$PKTSAMPLE" -i "$CAPIF" "$@" 2>"$WORK/x.err" || rc=$?
	assert_eq "2 1" "$rc $(grep -c . "$WORK/x.err")" "$what: exit 2, one line"
	[ ! -e "$WORK/never.pcapng" ] || fail "$what: left a file"
}
refused "--trigger without --flight" --trigger icmp -w "$WORK/never.pcapng"
refused "a bad expression" --flight 10s --trigger 'udp dst port' -w "$WORK/never.pcapng"
refused "a size of 0" --flight 10s --flight-size 0 -w "$WORK/never.pcapng"
refused "--flight without -w" --flight 10s
refused "a drop trigger without the drop hook" --flight 10s --trigger drop -w "$WORK/never.pcapng"
assert_nothing_attached

echo "$PASSED passed"
