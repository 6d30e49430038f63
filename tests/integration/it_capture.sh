#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# End to end through a veth pair: ping and generator traffic captured at all
# three hooks; every generator frame exactly once per hook, byte-identical,
# with the right annotations, timestamps and closing statistics; the same
# through one BPF ring that every CPU shares (-B 4096), and with two CPUs
# sending at once.
source "$(dirname "$0")/lib.sh"

env_up
start_capture -i "$CAPIF" --hook xdp,tc-ingress,tc-egress --epb-verdict -w "$WORK/cap.pcapng"

in_cap ping -q -c 3 -i 0.2 192.0.2.2 >/dev/null
gen4=$(in_peer "$PSGEN" -i "$PEERIF" -n 2000 -s 64 --flows 16 --rate 100000 -w "$WORK/sent4.pcap")
gen6=$(in_peer "$PSGEN" -i "$PEERIF" -n 500 -s 200 -6 --tcp --rate 100000 -w "$WORK/sent6.pcap")
sleep 0.3
stop_capture INT
assert_eq 0 "$PS_RC" "pktsample exits 0 on SIGINT"
assert_nothing_attached

cap=$WORK/cap.pcapng
mergecap -F pcap -w "$WORK/sent.pcap" "$WORK/sent4.pcap" "$WORK/sent6.pcap"

# Every generator frame, once per ingress hook, byte for byte.
for d in "xdp ingress" "tc ingress"; do
	extract "$cap" "frame.interface_description == \"$d\" && $GEN" "$WORK/hook.pcap"
	assert_eq "2500 frames identical" "$("$PCAPCHECK" same "$WORK/sent.pcap" "$WORK/hook.pcap")" \
		"$d: every generator frame exactly once, byte-identical"
done
assert_eq 0 "$(count "$cap" "frame.interface_description == \"tc egress\" && $GEN")" \
	"tc egress saw no generator frame (they come in)"

# Ping: requests leave through tc egress, replies arrive at xdp and tc ingress.
assert_eq 3 "$(count "$cap" 'frame.interface_description == "tc egress" && icmp.type == 8')" \
	"tc egress: 3 echo requests"
assert_eq 3 "$(count "$cap" 'frame.interface_description == "xdp ingress" && icmp.type == 0')" \
	"xdp ingress: 3 echo replies"
assert_eq 3 "$(count "$cap" 'frame.interface_description == "tc ingress" && icmp.type == 0')" \
	"tc ingress: 3 echo replies"

# Annotations, per hook.
for spec in "xdp ingress|0x00000001|2|" "tc ingress|0x00000001||-1" "tc egress|0x00000002||-1"; do
	IFS='|' read -r d dir vx vt <<<"$spec"
	got=$(fields "$cap" "frame.interface_description == \"$d\"" frame.interface_name \
		frame.packet_flags_direction frame.interface_queue frame.verdict.ebpf_xdp \
		frame.verdict.ebpf_tc | sort -u)
	assert_eq "$CAPIF|$dir|0|$vx|$vt" "$got" "$d: interface, direction, queue, verdict"
	# The interface says the hook, epb_queue the queue, the packet id
	# the CPU: the comment the owner, where it is known.
	bad=$(fields "$cap" "frame.interface_description == \"$d\"" frame.comment |
		grep -cvE "$BLOCK_WORDS" || true)
	assert_eq 0 "$bad" "$d: a comment says the owner, or there is none"
done

total=$(count "$cap" frame)
ids=$(fields "$cap" frame frame.packet_id)
assert_eq "$total" "$(sort -u <<<"$ids" | grep -c .)" "packet ids are unique ($total packets)"
# Per CPU, ids count up without gaps (nothing was lost).
gaps=$(python3 -c '
import sys, collections
seen = collections.defaultdict(list)
for line in sys.stdin:
    i = int(line); seen[i >> 48].append(i & 0xffffffffffff)
print(sum(1 for v in seen.values() for a, b in zip(sorted(v), sorted(v)[1:]) if b != a + 1))' <<<"$ids")
assert_eq 0 "$gaps" "packet ids are consecutive per CPU"
assert_eq "" "$(fields "$cap" frame.drop_count frame.drop_count)" "no drop counts: nothing lost"

# Timestamps: the generator frames' wall-clock times fall in the send window.
extract "$cap" "frame.interface_description == \"xdp ingress\" && $GEN && ip" "$WORK/xdp4.pcap"
read -r first last < <("$PCAPCHECK" times "$WORK/xdp4.pcap" | sed 's/.*first_ns=\([0-9]*\) last_ns=\([0-9]*\)/\1 \2/')
start=$(sed 's/.*start_ns=\([0-9]*\).*/\1/' <<<"$gen4")
end=$(sed 's/.*end_ns=\([0-9]*\).*/\1/' <<<"$gen4")
echo "# send window [$start, $end], captured [$first, $last]: offsets $(( (first - start) / 1000 )) us, $(( (last - end) / 1000 )) us"
# No frame is seen before it is sent: 1 ms is the clock calibration's
# margin. A frame may be seen after the sender's last call returned: veth
# hands it to NAPI, which a loaded machine (or TCG) runs later in ksoftirqd.
late=$(scaled 1)
[ "$first" -ge $((start - 1000000)) ] && [ "$last" -le $((end + late * 1000000)) ] ||
	fail "timestamps [$first, $last] outside the send window [$start - 1 ms, $end + $late ms]"
ok "timestamps within the send window (1 ms before, $late ms after)"

# Readers agree; closing statistics add up.
assert_eq "$total" "$("$PCAPCHECK" count "$cap")" "libpcap reads as many packets as tshark"
isb=$("$PCAPCHECK" isb "$cap")
assert_eq 3 "$(grep -c . <<<"$isb")" "one ISB per interface"
for id in 0 1 2; do
	n=$(count "$cap" "frame.interface_id == $id")
	assert_match "^if=$id ifrecv=$n ifdrop=0 usrdeliv=$n \| .*" "$(grep "^if=$id " <<<"$isb")" \
		"ISB $id: seen = written = $n, none dropped"
done
assert_match "^$total packets captured$" "$(grep 'packets captured' "$WORK/ps.err")" "summary: captured"
assert_match "^0 packets lost in perf buffer$" "$(grep 'lost in perf' "$WORK/ps.err")" "summary: lost"
assert_eq 0 "$(grep -cE '^(libbpf|libxdp):' "$WORK/ps.err" || true)" "no library noise without -v"
assert_eq 0 "$(grep -c 'XDP attached as a single program' "$WORK/ps.err" || true)" \
	"XDP through a BPF link (the default): no libxdp fallback note"

# assert_whole_in_order FILE SENT N BUFFER LABEL: the generator frames of
# SENT*.pcap (N of them) in FILE once per ingress hook, byte for byte, in
# time order, none lost in the BUFFER (perf or ring).
assert_whole_in_order() {
	local file=$1 sent=$2 n=$3 buffer=$4 label=$5 d
	mergecap -F pcap -w "$sent-all.pcap" "$sent"[0-9]*.pcap
	for d in "xdp ingress" "tc ingress"; do
		extract "$file" "frame.interface_description == \"$d\" && $GEN" "$WORK/hook.pcap"
		assert_eq "$n frames identical" "$("$PCAPCHECK" same "$sent-all.pcap" "$WORK/hook.pcap")" \
			"$label, $d: every generator frame exactly once"
	done
	assert_eq 0 "$("$PCAPCHECK" order "$file")" "$label: in time order"
	assert_match "^0 packets lost in $buffer buffer$" "$(grep "lost in $buffer" "$WORK/ps.err")" \
		"$label: nothing lost"
}

# The packets the merge handed on unheld, from -v's summary.
unheld() {
	sed -n 's/.*merge: [0-9]* rounds, \([0-9]*\) packets handed on unheld.*/\1/p' "$WORK/ps.err"
}

# At tcpdump's -B 4096, no --transport: too little for a buffer per CPU,
# so the capture takes the BPF rings and one ring serves every CPU
# (user/ingest/bufplan.h). A sender on each CPU in turn: every generator
# frame once per ingress hook, byte for byte, in time order, and nothing
# left attached.
group=1
while [ "$group" -lt "$(nproc)" ]; do group=$((group * 2)); done
start_capture -i "$CAPIF" --hook xdp,tc-ingress -B 4096 -v -w "$WORK/ring.pcapng"
for c in $(seq 0 $(($(nproc) - 1))); do
	in_peer taskset -c "$c" "$PSGEN" -i "$PEERIF" -n 500 -s 64 --flows 8 --rate 100000 \
		--src "192.0.2.$((10 + c))" -w "$WORK/ring-sent$c.pcap" >/dev/null
done
sleep 0.3
stop_capture INT
assert_eq 0 "$PS_RC" "rings at -B 4096: exits 0"
assert_nothing_attached
assert_match "transport: ringbuf, as -B 4096 leaves a CPU [0-9]+ KiB, under 4096" \
	"$(cat "$WORK/ps.err")" "-B 4096 without --transport: the rings"
assert_match "ring buffers: 1 of 4096 KiB, one per $group CPUs" "$(cat "$WORK/ps.err")" \
	"rings at -B 4096: one ring for every CPU"
n=$(($(nproc) * 500))
assert_whole_in_order "$WORK/ring.pcapng" "$WORK/ring-sent" "$n" ring "rings at -B 4096"
# One CPU sends at a time: the others' records are not in the shared ring,
# so they are settled before it is read and the sender's packets go
# straight through the merge, as with a ring each (user/ingest/reader.c,
# settle_idle). Were the idle CPUs settled only once the ring was read to
# its end, none would.
unheld=$(unheld)
echo "# $unheld of $n packets handed on unheld"
[ "${unheld:-0}" -gt 0 ] || fail "rings at -B 4096: no packet passed the merge unheld"
ok "rings at -B 4096: the idle CPUs settled before the shared ring was read"

# A transport named is kept: the perf buffers at the same -B, each CPU its
# share.
start_capture -i "$CAPIF" --hook tc-ingress --transport perf -B 4096 -v -w "$WORK/perf4096.pcapng"
stop_capture INT
assert_eq 0 "$PS_RC" "--transport perf -B 4096: exits 0"
assert_match "perf buffer: [0-9]+ KiB per CPU on $(nproc) CPUs" "$(cat "$WORK/ps.err")" \
	"--transport perf -B 4096: the perf buffers"
assert_eq 0 "$(grep -c 'transport: ringbuf' "$WORK/ps.err" || true)" \
	"--transport perf -B 4096: no ring chosen"
assert_nothing_attached

# Two CPUs sending at once, through the perf buffers (the default): one
# reader reads both buffers together, the earliest record first, and
# settles the other CPU at its next record's time (user/ingest/reader.c,
# consume_together), so packets pass the merge unheld. Read one buffer
# after the other, none did (0 of 8,000 here): every packet of the first
# waited for the round's end. Every frame still once per hook, in order.
if [ "$(nproc)" -ge 2 ]; then
	start_capture -i "$CAPIF" --hook xdp,tc-ingress -v -w "$WORK/two.pcapng"
	pids=()
	for c in 0 1; do
		in_peer taskset -c "$c" "$PSGEN" -i "$PEERIF" -n 2000 -s 64 --flows 8 --rate 100000 \
			--src "192.0.2.$((20 + c))" -w "$WORK/two-sent$c.pcap" >/dev/null &
		pids+=($!)
	done
	wait "${pids[@]}"
	sleep 0.3
	stop_capture INT
	assert_eq 0 "$PS_RC" "two CPUs sending: exits 0"
	assert_nothing_attached
	assert_whole_in_order "$WORK/two.pcapng" "$WORK/two-sent" 4000 perf "two CPUs sending"
	total=$(sed -n 's/^\([0-9]*\) packets captured$/\1/p' "$WORK/ps.err")
	unheld=$(unheld)
	echo "# two CPUs sending: $unheld of $total packets handed on unheld"
	[ "${unheld:-0}" -ge $((total / 2)) ] ||
		fail "two CPUs sending: $unheld of $total packets passed the merge unheld, not half"
	ok "two CPUs sending: the buffers read together, packets pass the merge unheld"
else
	echo "# one CPU: two CPUs sending at once not checked"
fi
