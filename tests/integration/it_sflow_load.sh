#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# sFlow a collector can keep up with: a flood sampled 1 in 10 into sfacctd
# with Debian's default socket buffer while both CPUs are kept busy. The
# datagrams leave paced (--sflow-burst: at most that many back to back,
# a burst a millisecond), so the collector's count, renormalised, is within
# 5 sigma of the frames sent, and no datagram is lost on the way. The
# datagrams on loopback never come closer together than the budget allows.
source "$(dirname "$0")/lib.sh"
need_tools sfacctd

env_up
FRAMES=${FRAMES:-200000}
RATE=10
BURST=8
in_cap ip link set lo up
[ "$(sysctl -n net.core.rmem_default)" = 212992 ] ||
	skip "net.core.rmem_default is $(sysctl -n net.core.rmem_default), not Debian's 212992"

start_sfacctd_csv
# The receive queue's drops, before and after (UdpRcvbufErrors, this namespace).
rcvbuf_errors() { in_cap nstat -az UdpRcvbufErrors | awk '/UdpRcvbufErrors/ { print $2 }'; }
before=$(rcvbuf_errors)

# What leaves for the collector, with the kernel's timestamps.
start_sflow_tcpdump --immediate-mode -B 16384

# Both CPUs busy for the whole flood, at the collector's priority (the
# loops are what $! names, so the cleanup ends them).
for _ in 1 2; do
	sh -c 'while :; do :; done' &
	PIDS+=($!)
done
start_capture -i "$CAPIF" --sample "$RATE" --sflow 127.0.0.1 --sflow-burst "$BURST" \
	--sflow-counters 60
in_peer "$PSGEN" -i "$PEERIF" -n "$FRAMES" >/dev/null
sleep 1
stop_capture INT
assert_eq 0 "$PS_RC" "exit 0"
grep -Eq "sFlow samples in [0-9]+ datagrams: [0-9]+ sent, 0 failed$" "$WORK/ps.err" ||
	fail "not every datagram was sent: $(grep 'sFlow samples' "$WORK/ps.err")"
ok "every datagram sent: $(sed -n 's/.* datagrams: \([0-9]*\) sent.*/\1/p' "$WORK/ps.err")"
sleep 2.5 # sfacctd writes its CSV every second
lost=$(($(rcvbuf_errors) - before))
assert_eq 0 "$lost" "the collector's socket (Debian's default buffer) dropped no datagram"

stop_sflow_tcpdump
# Bursts start a millisecond apart at least and take microseconds: any
# half millisecond holds one burst's datagrams at most.
most=$(python3 - "$WORK/sflow.pcap" <<'EOF'
import struct, sys
data = open(sys.argv[1], "rb").read()
magic = struct.unpack_from("<I", data)[0]
scale = 1e-9 if magic == 0xa1b23c4d else 1e-6
off, ts = 24, []
while off + 16 <= len(data):
    sec, frac, caplen = struct.unpack_from("<III", data, off)
    ts.append(sec + frac * scale)
    off += 16 + caplen
most, j = 0, 0
for i, t in enumerate(ts):
    while ts[j] < t - 0.0005:
        j += 1
    most = max(most, i - j + 1)
print(most, len(ts))
EOF
)
[ "${most%% *}" -le "$BURST" ] || fail "$most: more than $BURST datagrams within half a millisecond"
ok "never more than $BURST datagrams back to back (most in 0.5 ms: ${most%% *}, of ${most#* })"

assert_sfacctd_udp "$FRAMES" "$RATE" "under load, sfacctd's renormalised count is within 5 sigma of the frames sent"
assert_nothing_attached
