#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# In-kernel sampling end to end: floods of generated traffic through testenv
# with --sample (random and count), --sample-flows, --max-rate and
# --sample-interval; the samples written, their annotations, and the ISB
# counters that let a reader scale back (read with libpcap-free pcapcheck
# and tshark).
source "$(dirname "$0")/lib.sh"

env_up

# isb_sums FILE: check, for every ISB, that the stages add up:
# seen = filtered-out + sampled-out + rate-limited + emitted, and
# emitted = written + lost; prints "matched emitted written" summed.
isb_sums() {
	"$PCAPCHECK" isb "$1" | python3 -c '
import re, sys
tot = [0, 0, 0]
for line in sys.stdin:
    f = dict(re.findall(r"([a-z-]+)=(\d+)", line.split("|")[1]))
    f = {k: int(v) for k, v in f.items()}
    assert f["seen"] == f["filtered-out"] + f["sampled-out"] + f["rate-limited"] + f["emitted"], line
    assert f["emitted"] == f["written"] + f["lost"], line
    head = dict(re.findall(r"([a-z]+)=(\d+)", line.split("|")[0]))
    assert int(head["ifrecv"]) == f["seen"] and int(head["usrdeliv"]) == f["written"], line
    assert int(head["filteraccept"]) == f["seen"] - f["filtered-out"], line
    tot[0] += f["seen"] - f["filtered-out"]; tot[1] += f["emitted"]; tot[2] += f["written"]
print(*tot)'
}

# flood N ARGS...: N generated frames from the peer, pinned to CPU 0.
flood() {
	local n=$1; shift
	in_peer taskset -c 0 "$PSGEN" -i "$PEERIF" -n "$n" "$@" >/dev/null
}

# The generator's frames only: ARP and ICMP replies come and go meanwhile.
GENF='udp dst port 9'

# ---- --sample 100: random, 1 in 100 of 100,000 -----------------------------
start_capture -i "$CAPIF" --hook xdp -w "$WORK/r.pcapng" --sample 100 --stats 500ms "$GENF"
flood 100000 --rate 100000
sleep 0.6
stop_capture INT
assert_eq 0 "$PS_RC" "--sample 100 exits 0"
read -r matched emitted written < <(isb_sums "$WORK/r.pcapng") || fail "ISB sums do not add up"
ok "random: ISB counters add up (matched $matched, emitted $emitted, written $written)"
assert_eq 100000 "$matched" "random: the hook saw every generated frame"
# 1000 expected, sigma 31.5: 5 sigma
[ "$written" -ge 843 ] && [ "$written" -le 1157 ] ||
	fail "random: $written written, outside 1000 +- 5 sigma"
ok "random: $written of 100000 written, within 5 sigma of 1000"
assert_eq "$written" "$(count "$WORK/r.pcapng" "frame.comment contains \"sample=1/100 mode=random\"")" \
	"random: every packet says how it was chosen"
assert_match "sampling 1 in 100 matching packets at random" \
	"$(capinfos -M "$WORK/r.pcapng" 2>/dev/null | grep 'Comment = pktsample xdp')" \
	"random: the IDB comment states the sampling"
assert_match "stats: seen [0-9]+ matched [0-9]+ sampled [0-9]+ written [0-9]+ lost 0 rate [0-9]+/s" \
	"$(grep '^stats:' "$WORK/ps.err" | tail -1)" "--stats prints periodic counter lines"
assert_match "packets sampled out" "$(cat "$WORK/ps.err")" "the summary counts what was sampled out"
assert_match "~[0-9]+ matching packets estimated from the samples \(x100\)" "$(cat "$WORK/ps.err")" \
	"the summary estimates the total from the samples"

# ---- --sample 100 --sample-mode count: exactly every 100th per CPU -----------
start_capture -i "$CAPIF" --hook xdp -w "$WORK/c.pcapng" --sample 100 --sample-mode count "$GENF"
flood 50050 --rate 100000
sleep 0.4
stop_capture INT
read -r matched emitted written < <(isb_sums "$WORK/c.pcapng") || fail "ISB sums do not add up"
assert_eq "50050 500 500" "$matched $emitted $written" "count: exactly every 100th of 50050 frames on one CPU"

# ---- filter first, then sample among matches --------------------------------
start_capture -i "$CAPIF" --hook xdp -w "$WORK/fs.pcapng" --sample 10 --sample-mode count 'udp dst port 53'
in_peer taskset -c 0 "$PSGEN" -i "$PEERIF" -n 2000 --dst-port 9 --rate 100000 >/dev/null
in_peer taskset -c 0 "$PSGEN" -i "$PEERIF" -n 1000 --dst-port 53 --rate 100000 >/dev/null
sleep 0.4
stop_capture INT
"$PCAPCHECK" isb "$WORK/fs.pcapng" >"$WORK/isb.txt"
assert_match "filteraccept=1000 .*seen=3000 filtered-out=2000 sampled-out=900 .*emitted=100 written=100" \
	"$(cat "$WORK/isb.txt")" "filter then sample: 1000 of 3000 match, every 10th of those kept"
assert_eq 100 "$(count "$WORK/fs.pcapng" "udp.dstport == 53")" "filter then sample: only matches written"

# ---- --sample-flows 8: whole flows, about 1 in 8 ----------------------------
start_capture -i "$CAPIF" --hook xdp -w "$WORK/f.pcapng" --sample-flows 8
flood 12800 --flows 128 --rate 100000
sleep 0.4
stop_capture INT
per_flow=$(fields "$WORK/f.pcapng" "udp" udp.srcport | sort | uniq -c | awk '{print $1}' | sort -u)
assert_eq 100 "$per_flow" "flows: every chosen flow is captured whole (100 of 100 packets each)"
nflows=$(fields "$WORK/f.pcapng" "udp" udp.srcport | sort -u | grep -c . || true)
# 16 expected of 128, sigma 3.7: 5 sigma
[ "$nflows" -ge 1 ] && [ "$nflows" -le 34 ] || fail "flows: $nflows of 128 flows chosen"
ok "flows: $nflows of 128 flows chosen (16 expected)"
isb_sums "$WORK/f.pcapng" >/dev/null || fail "flows: ISB sums do not add up"
ok "flows: ISB counters add up"

# ---- --max-rate 2000: never more than the bucket allows ---------------------
start_capture -i "$CAPIF" --hook xdp -w "$WORK/m.pcapng" --max-rate 2000 "$GENF"
t0=$(date +%s%N)
flood 100000 --rate 50000
t1=$(date +%s%N)
sleep 0.3
stop_capture INT
read -r matched emitted written < <(isb_sums "$WORK/m.pcapng") || fail "ISB sums do not add up"
# 2000/s over the flood (the frames all arrive between t0 and t1) plus the
# 20-packet bucket, which is full when the flood starts
limit=$(( (t1 - t0) * 2000 / 1000000000 + 1 + 20 ))
[ "$written" -le "$limit" ] && [ "$written" -ge 2000 ] ||
	fail "max-rate: $written written, limit $limit"
ok "max-rate: $written written over a $(( (t1 - t0) / 1000000 )) ms flood (at most $limit)"
assert_match "rate-limited=[1-9][0-9]*" "$("$PCAPCHECK" isb "$WORK/m.pcapng")" "max-rate: the rest is counted as rate-limited"

# ---- --sample-interval 10ms: a sample per CPU-clock tick of a busy CPU ------
# A loaded host's CPU clock ticks late (CI measured 72 ticks a second of
# wall time, none past the fallback's 15 ms): so the samples are checked
# against the ticks and fallbacks the capture counted, and the wall rate
# against what the fallback guarantees, a sample at most 15 ms after the
# last while packets flow (67/s), with a margin.
for cpu in 0 1; do
	start_capture -v -i "$CAPIF" --hook xdp -w "$WORK/k.pcapng" --sample-interval 10ms
	in_peer taskset -c $cpu "$PSGEN" -i "$PEERIF" -n 300000 --rate 100000 >/dev/null
	stop_capture INT
	# The CPU: the packet id's top 16 bits.
	read -r n rate < <(fields "$WORK/k.pcapng" \
		"frame.packet_id >= $((cpu << 48)) && frame.packet_id < $(((cpu + 1) << 48))" frame.time_epoch |
		python3 -c '
import sys
t = sorted(float(x) for x in sys.stdin.read().split())
print(len(t), int(round((len(t) - 1) / (t[-1] - t[0]))) if len(t) > 2 else 0)')
	read -r ticks fallbacks < <(sed -n "s/.*clock sampling: CPU $cpu: \([0-9]*\) ticks, running 100.0% of enabled, \([0-9]*\) fallback.*/\1 \2/p" "$WORK/ps.err")
	[ -n "$ticks" ] || fail "clock: CPU $cpu's ticks and running time are not reported: $(cat "$WORK/ps.err")"
	ok "clock: CPU $cpu's ticks ($ticks) and running time are reported"
	# At most one sample a tick or fallback; the flood fills most of the
	# capture's time, so most ticks have a packet after them.
	[ "$n" -le $((ticks + fallbacks)) ] && [ $((n * 2)) -ge "$ticks" ] ||
		fail "clock: $n samples on CPU $cpu for $ticks ticks and $fallbacks fallbacks"
	# And a CPU's clock never runs faster than the wall's.
	[ "$rate" -ge 50 ] && [ "$rate" -le 120 ] ||
		fail "clock: $rate samples/s on CPU $cpu, not 50 to 120"
	ok "clock: flood on CPU $cpu: $n samples for $ticks ticks and $fallbacks fallbacks, $rate/s"
done
assert_nothing_attached
