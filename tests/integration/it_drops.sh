#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The drop hook: packets the kernel drops, each for a known reason, sent
# through testenv: UDP and TCP to ports nothing listens on, an nftables
# DROP rule at input, a bad IP checksum, a TTL of 1 when forwarding, a TC
# program of the test that drops at egress, and an nftables DROP at
# postrouting (before the packet has a MAC header: drop-ip, raw IP). For
# each, exactly the packets sent appear, with the reason, the interface and
# (where it has one) the sending process, byte-identical to what was sent.
# Then the live view and -r, a filter, --sample within 5 sigma, sFlow's
# discarded-packet events, a drop storm under --max-rate, SIGKILL, and a
# kernel without BTF.
source "$(dirname "$0")/lib.sh"
need_tools nft bpftool python3 editcap
: "${DROP_PORT_OBJ:=$top/build/bpf/tc_drop_port.bpf.o}"
[ -r "$DROP_PORT_OBJ" ] || skip "needs the test programs (build first)"

env_up
MAC=$(in_cap cat /sys/class/net/"$CAPIF"/address)
in_cap ip link set lo up
in_cap sysctl -q -w net.ipv4.ip_forward=1
in_cap ip route add 198.51.100.0/24 via 192.0.2.2 dev "$CAPIF"
in_cap nft -f - <<'EOF'
table inet pstest {
	chain in { type filter hook input priority 0; udp dport 7777 drop; }
	chain post { type filter hook postrouting priority 0; udp dport 7778 drop; }
}
EOF
# A TC program of the test's own drops UDP to port 4242 at egress
# (it_position's foreign program).
in_cap tc qdisc add dev "$CAPIF" clsact
in_cap tc filter add dev "$CAPIF" egress bpf da obj "$DROP_PORT_OBJ" sec tc

# The reasons this kernel has (its BTF): older kernels name fewer.
bpftool btf dump file /sys/kernel/btf/vmlinux >"$WORK/btf.txt"
reason_or() { # REASON FALLBACK: REASON if this kernel names it
	if grep -q "'SKB_DROP_REASON_$1'" "$WORK/btf.txt"; then echo "$1"; else echo "$2"; fi
}
TC_REASON=$(reason_or TC_EGRESS NOT_SPECIFIED)
# Before 5.17 kfree_skb has no reason at all: every drop is NOT_SPECIFIED,
# and -D says so.
NO_SOCKET=$(reason_or NO_SOCKET NOT_SPECIFIED)
if [ "$NO_SOCKET" = NOT_SPECIFIED ]; then
	assert_match "kernel: kfree_skb has no drop reason \(Linux 5\.17 has it\)" \
		"$(in_cap "$PKTSAMPLE" -D)" "-D: this kernel's drops have no reason"
fi

gen() { in_peer "$PSGEN" -i "$PEERIF" --src 192.0.2.2 --dst 192.0.2.1 --dst-mac "$MAC" "$@"; }
# raw_frames OUT.pcap DST TTL BADSUM N: IPv4/UDP frames to port 9, sent as
# they are (an AF_PACKET socket) and written to a pcap.
raw_frames() {
	in_peer python3 - "$PEERIF" "$MAC" "$@" <<'EOF'
import socket, struct, sys
dev, mac, out, dst, ttl, bad, n = sys.argv[1:8]
mac = bytes.fromhex(mac.replace(":", ""))
src = bytes.fromhex(open(f"/sys/class/net/{dev}/address").read().strip().replace(":", ""))
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((dev, 0))
def csum(b):
    t = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    t = (t & 0xffff) + (t >> 16)
    return ~((t & 0xffff) + (t >> 16)) & 0xffff
with open(out, "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    for i in range(int(n)):
        udp = struct.pack("!HHHH", 5555, 9, 8 + 20, 0) + bytes([i]) * 20
        h = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), i, 0, int(ttl), 17, 0,
                        socket.inet_aton("192.0.2.2"), socket.inet_aton(dst))
        c = csum(h) ^ (0x1234 if bad == "1" else 0)
        frame = mac + src + b"\x08\x00" + h[:10] + struct.pack("!H", c) + h[12:] + udp
        s.send(frame)
        f.write(struct.pack("<IIII", 0, 0, len(frame), len(frame)) + frame)
EOF
}
# cap_udp PORT N SIZE: UDP from the capture side to the peer, which the
# kernel may refuse (EPERM from a DROP rule): that is the point.
cap_udp() {
	in_cap python3 -c '
import socket, sys
port, n, size = map(int, sys.argv[1:4])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(n):
    try:
        s.sendto(bytes([i]) * size, ("192.0.2.2", port))
    except OSError:
        pass
' "$@"
}

start_capture -i "$CAPIF" --hook drop -w "$WORK/cap.pcapng"
gen -n 50 -w "$WORK/udp.pcap" >/dev/null
gen -n 20 --tcp -s 80 --dst-port 4444 -w "$WORK/tcp.pcap" >/dev/null
gen -n 20 --dst-port 7777 -w "$WORK/nft.pcap" >/dev/null
raw_frames "$WORK/csum.pcap" 192.0.2.1 64 1 20
raw_frames "$WORK/ttl.pcap" 198.51.100.7 1 0 20
cap_udp 4242 20 100
cap_udp 7778 20 50
sleep 0.5
stop_capture INT
assert_eq 0 "$PS_RC" "--hook drop: exit 0 on SIGINT"
in_cap tc qdisc del dev "$CAPIF" clsact # the test's own program
assert_nothing_attached
cap=$WORK/cap.pcapng
[ -z "${DEBUG_DROPS:-}" ] || tshark -r "$cap" -T fields -e frame.comment -e _ws.col.Info >&2

# extract_eth FILTER OUT: the matching frames (all Ethernet) as a pcap. The
# file has raw IP (drop-ip) too, which a pcap cannot hold beside Ethernet:
# tshark keeps pcapng, editcap then says what the frames are.
extract_eth() {
	tshark_q -r "$cap" -Y "$1" -w "$WORK/sel.pcapng" >/dev/null
	editcap -F pcap -T ether "$WORK/sel.pcapng" "$2"
}

# check NAME FILTER REASON SENT.pcap: exactly the frames sent, with the
# reason, on the captured interface, byte for byte.
check() {
	local name=$1 filter=$2 reason=$3 sent=$4 n
	extract_eth "$filter" "$WORK/got.pcap"
	n=$("$PCAPCHECK" count "$sent")
	assert_eq "$n frames identical" "$("$PCAPCHECK" same "$sent" "$WORK/got.pcap")" \
		"$name: exactly the frames sent, byte-identical"
	assert_eq "$CAPIF|drop|drop=$reason" \
		"$(fields "$cap" "$filter" frame.interface_name frame.interface_description frame.comment |
			sed -E 's/ at=[^ ]+.*//' | sort -u)" \
		"$name: on $CAPIF, reason $reason"
}
check "UDP to a closed port" "ip.dst == 192.0.2.1 && udp.dstport == 9 && udp.srcport != 5555" \
	"$NO_SOCKET" "$WORK/udp.pcap"
check "TCP to a port nothing listens on" "tcp.dstport == 4444" "$NO_SOCKET" "$WORK/tcp.pcap"
check "an nftables DROP rule" "udp.dstport == 7777" "$(reason_or NETFILTER_DROP NOT_SPECIFIED)" \
	"$WORK/nft.pcap"
check "a bad IP checksum" "ip.dst == 192.0.2.1 && udp.srcport == 5555" \
	"$(reason_or IP_CSUM NOT_SPECIFIED)" "$WORK/csum.pcap"
check "TTL 1 when forwarding" "ip.dst == 198.51.100.7" "$(reason_or IP_INHDR NOT_SPECIFIED)" \
	"$WORK/ttl.pcap"

got=$(fields "$cap" "udp.dstport == 4242" frame.interface_description frame.len frame.comment | sort | uniq -c |
	sed -E 's/ at=[^ ]+//; s/pid=[0-9]+/pid=N/; s/ netns=.*//; s/^ +//')
assert_eq "20 drop|142|drop=$TC_REASON pid=N comm=python3" "$got" \
	"a TC program's drops at egress: all 20, with the sending process"
got=$(fields "$cap" "udp.dstport == 7778" frame.interface_description frame.len frame.comment |
	sort | uniq -c | sed -E 's/ at=[^ ]+//; s/ pid=.*//; s/^ +//')
assert_eq "20 drop ip|78|drop=$(reason_or NETFILTER_DROP NOT_SPECIFIED)" "$got" \
	"dropped at postrouting before a MAC header: drop-ip, from the IP header"
assert_eq "20" "$(count "$cap" 'frame.interface_description == "drop ip" && ip.version == 4')" \
	"drop-ip is raw IP that tshark decodes"
# Beside the peer's own IPv6 noise (its MLD reports, which nothing here
# listens to), nothing else.
assert_eq "$(count "$cap" "ip")" "$((50 + 20 + 20 + 20 + 20 + 20 + 20))" \
	"no other IPv4 packet was dropped on $CAPIF"
if [ "$NO_SOCKET" = NOT_SPECIFIED ]; then
	assert_match "kernel drops by reason: NOT_SPECIFIED [0-9]+$" "$(cat "$WORK/ps.err")" \
		"the summary counts the drops, all of one reason"
else
	assert_match "kernel drops by reason: NO_SOCKET 70(, [A-Z_]+ [0-9]+)+" \
		"$(cat "$WORK/ps.err")" "the summary counts drops by reason"
fi
at=$(fields "$cap" "udp.dstport == 9 && udp.srcport == 10000" frame.comment | sed -E 's/.* at=([^ +]+).*/\1/' | sort -u)
assert_match "^(__udp4_lib_rcv|udp_rcv|udp_v4_[a-z_]+)$" "$at" "the place is a kernel symbol ($at)"

# -r: the reason where the direction goes, as the live view prints it.
"$PKTSAMPLE" -r "$cap" 'tcp port 4444' >"$WORK/read.txt"
tcpdump -n -r "$WORK/tcp.pcap" 2>/dev/null | cut -d' ' -f2- >"$WORK/tcpdump.txt"
assert_eq "$(cat "$WORK/tcpdump.txt")" \
	"$(sed -E "s/^[0-9:.]+ $CAPIF drop $NO_SOCKET //" "$WORK/read.txt")" \
	"-r: '$CAPIF drop $NO_SOCKET', then tcpdump's line"

# The live view with a filter: only the UDP, as tcpdump -n prints them.
: >"$WORK/ps.err"
"$TESTENV" exec "$ENV" cap -- "$PKTSAMPLE" -i "$CAPIF" --hook drop -c 10 'udp port 9' \
	>"$WORK/live.txt" 2>"$WORK/ps.err" &
PS_PID=$!
PIDS+=("$PS_PID")
wait_started "$PS_PID"
gen -n 5 --tcp -s 80 --dst-port 4444 >/dev/null
gen -n 10 -w "$WORK/live.pcap" >/dev/null
wait_capture
assert_eq 0 "$PS_RC" "the live view: -c 10 ends it"
tcpdump -n -r "$WORK/live.pcap" 2>/dev/null | cut -d' ' -f2- >"$WORK/tcpdump.txt"
assert_eq "$(cat "$WORK/tcpdump.txt")" \
	"$(sed -E "s/^[0-9:.]+ $CAPIF drop $NO_SOCKET //" "$WORK/live.txt")" \
	"the live view: the filter kept the UDP alone, printed as tcpdump -n does"

# --sample 10 over 2,000 drops: 200 expected, within 5 sigma.
start_capture -i "$CAPIF" --hook drop --sample 10 --stats 1 -w "$WORK/sample.pcapng" 'udp port 9'
gen -n 2000 --rate 50000 >/dev/null
sleep 1.3
stop_capture INT
assert_match "stats: seen [0-9]+ .* drops $NO_SOCKET 2000" "$(cat "$WORK/ps.err")" \
	"--stats: the drops by reason"
n=$(count "$WORK/sample.pcapng" frame)
python3 -c 'import sys, math
n = int(sys.argv[1]); mu = 200; sd = math.sqrt(2000 * 0.1 * 0.9)
sys.exit(0 if abs(n - mu) <= 5 * sd else 1)' "$n" || fail "--sample 10: $n of 2000 kept"
ok "--sample 10: $n of 2,000 drops kept (200 expected, within 5 sigma)"
assert_match "2000 packets matched the filter" "$(cat "$WORK/ps.err")" \
	"--sample 10: every drop the filter matched counted"

# sFlow: discarded-packet events to a listener in the capture namespace.
start_sflow_tcpdump --immediate-mode
in_cap python3 -c 'import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 6343)); time.sleep(60)' &
PIDS+=($!)
wait_listening udp 6343 || fail "the sFlow listener is not up"
start_capture -i "$CAPIF" --hook drop --sflow 127.0.0.1 --sflow-counters 60 'udp port 9'
gen -n 30 >/dev/null
sleep 0.5
stop_capture INT
sleep 0.5
stop_sflow_tcpdump
assert_match "30 sFlow samples in [0-9]+ datagrams: [0-9]+ sent, 0 failed" "$(cat "$WORK/ps.err")" \
	"sFlow: 30 discarded-packet events sent"
assert_eq 0 "$(count "$WORK/sflow.pcap" '_ws.malformed || _ws.expert.severity >= "error"')" \
	"sFlow: tshark finds nothing malformed"
python3 - "$WORK/sflow.pcap" "$NO_SOCKET" <<'EOF' || fail "sFlow: the events are not as sent"
import struct, sys
data = open(sys.argv[1], "rb").read()
off, events, reasons = 24, 0, set()
while off + 16 <= len(data):
    caplen = struct.unpack_from("<I", data, off + 8)[0]
    pkt = data[off + 16: off + 16 + caplen]
    off += 16 + caplen
    d = pkt[14 + 20 + 8:]  # Ethernet (lo), IPv4, UDP
    (ver, atype) = struct.unpack_from("!II", d, 0)
    p = 8 + (4 if atype == 1 else 16) + 12
    n = struct.unpack_from("!I", d, p)[0]; p += 4
    for _ in range(n):
        tag, length = struct.unpack_from("!II", d, p)
        if tag == 5:
            seq, cls, idx, drops, inp, outp, reason, nrec = struct.unpack_from("!8I", d, p + 8)
            q, recs = p + 8 + 32, {}
            for _ in range(nrec):
                rt, rl = struct.unpack_from("!II", d, q)
                recs[rt] = d[q + 8:q + 8 + rl]
                q += 8 + rl
            # port_unreachable; unknown where the kernel gave no reason
            assert reason == (3 if sys.argv[2] == "NO_SOCKET" else 256), "reason %d" % reason
            why = recs[1042][4:4 + struct.unpack_from("!I", recs[1042])[0]]
            assert why == sys.argv[2].encode(), why
            assert b"udp" in recs[1038], recs[1038]
            events += 1
        p += 8 + length
assert events == 30, "%d events" % events
EOF
ok "sFlow: 30 events, reason port_unreachable (or unknown), the kernel's reason and function"

# A drop storm: capped at --max-rate, counted, the capture stays
# responsive and the peer still gets answers.
# (400,000 frames natively; under emulation as many as its time allows.)
STORM=$((400000 / PS_TIME_SCALE))
start_capture -i "$CAPIF" --hook drop --max-rate 1000 -w "$WORK/storm.pcapng"
in_peer "$PSGEN" -i "$PEERIF" --src 192.0.2.2 --dst 192.0.2.1 --dst-mac "$MAC" -n "$STORM" \
	>"$WORK/storm.gen" &
GEN=$!
PIDS+=("$GEN")
sleep 0.2
in_peer ping -c 3 -i 0.2 -W 2 192.0.2.1 >"$WORK/ping.txt" || fail "ping during the storm: $(cat "$WORK/ping.txt")"
ok "the box answers pings during the storm"
wait "$GEN"
t0=$(now_ns)
stop_capture INT
stopped=$(ms_since "$t0")
[ "$stopped" -lt "$(scaled 2000)" ] || fail "the capture took ${stopped} ms to stop after the storm"
ok "the capture stops in ${stopped} ms after the storm"
limited=$(sed -nE 's/^([0-9]+) packets? over --max-rate$/\1/p' "$WORK/ps.err")
written=$(count "$WORK/storm.pcapng" frame)
[ "${limited:-0}" -gt $((STORM * 3 / 4)) ] || fail "the storm's drops over --max-rate: '${limited:-}' ($(cat "$WORK/ps.err"))"
ok "the storm: $limited drops over --max-rate, counted"
secs=$(python3 -c 'import sys; print(int(float(sys.argv[1]) + 2))' \
	"$(sed -nE 's/.*seconds=([0-9.]+).*/\1/p' "$WORK/storm.gen")")
[ "$written" -le $((1000 * secs + 1000)) ] || fail "the storm: $written written in ${secs}s"
ok "the storm: $written written, within the cap"

# SIGKILL: the raw tracepoint goes with the process.
start_capture -i "$CAPIF" --hook drop -w "$WORK/kill.pcapng"
pid=$(capture_pid "--hook drop -w $WORK/kill.pcapng")
kill -KILL "$pid"
wait_capture
for _ in $(seq 50); do
	bpftool prog show name pktsample_drop >/dev/null 2>&1 || break
	sleep 0.1
done
assert_eq "" "$(bpftool prog show name pktsample_drop 2>/dev/null)" \
	"SIGKILL leaves no drop program loaded"

# A kernel without BTF (hidden by a bind mount in a private mount
# namespace): one line, exit 1, nothing loaded.
rc=0
"$TESTENV" exec "$ENV" cap -- unshare -m sh -c \
	"mount --bind /dev/null /sys/kernel/btf/vmlinux && exec $PKTSAMPLE -i $CAPIF --hook drop -c 1" \
	>/dev/null 2>"$WORK/nobtf.err" || rc=$?
assert_eq 1 "$rc" "--hook drop without BTF: exit 1"
assert_eq 1 "$(grep -c . "$WORK/nobtf.err")" "--hook drop without BTF: one line"
assert_match "cannot capture drops: the kernel has no BTF" "$(cat "$WORK/nobtf.err")" \
	"--hook drop without BTF: says what the kernel lacks"
assert_eq "" "$(bpftool prog show name pktsample_drop 2>/dev/null)" \
	"--hook drop without BTF: nothing loaded"
