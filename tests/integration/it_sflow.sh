#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# sFlow export against a real collector: pmacct's sfacctd on 127.0.0.1 in
# the capture namespace, renormalising by the sampling rate; a known number
# of frames through testenv with --sample 10 --sflow; the collector's count
# within 5 sigma of what was sent. tshark decodes every datagram (no
# malformed one), the rate and input ifIndex are right, the counter
# samples carry the interface's numbers, and each sampler's sample_pool
# never decreases and ends at least at the frames sent.
source "$(dirname "$0")/lib.sh"
need_tools sfacctd

env_up
FRAMES=20000
RATE=10
IFINDEX=$(in_cap cat /sys/class/net/"$CAPIF"/ifindex)
in_cap ip link set lo up

start_sfacctd_csv
start_sflow_tcpdump

# Without -w nothing is printed per packet; the capture only exports.
start_capture -i "$CAPIF" --sample "$RATE" --sflow 127.0.0.1 --sflow-counters 1 >"$WORK/ps.out"
in_peer "$PSGEN" -i "$PEERIF" -n "$FRAMES" --rate 20000 >/dev/null
sleep 1.5
stop_capture INT
assert_eq 0 "$PS_RC" "--sflow: exit 0"
assert_eq "" "$(cat "$WORK/ps.out")" "--sflow without -w prints nothing per packet"
assert_match "[0-9]+ sFlow samples in [0-9]+ datagrams: [0-9]+ sent, 0 failed" \
	"$(cat "$WORK/ps.err")" "the summary counts the datagrams, none failed"
sleep 2.5 # sfacctd writes its CSV every second
stop_sflow_tcpdump

assert_sfacctd_udp "$FRAMES" "$RATE" "sfacctd's renormalised count is within 5 sigma of the frames sent"

# Every datagram decodes.
n=$(count "$WORK/sflow.pcap" sflow)
[ "$n" -ge 2 ] || fail "only $n sFlow datagrams captured"
assert_eq 0 "$(count "$WORK/sflow.pcap" '_ws.malformed || _ws.expert.severity >= "warning"')" \
	"tshark: $n datagrams, none malformed"
assert_eq "$RATE" "$(fields "$WORK/sflow.pcap" sflow sflow.flow_sample.sampling_rate |
	tr ',' '\n' | grep . | sort -u | paste -sd' ')" "every flow sample says 1 in $RATE"
assert_eq "$IFINDEX" "$(fields "$WORK/sflow.pcap" 'sflow_245.sub_agent_id == 1' \
	sflow.flow_sample.input_interface | tr ',' '\n' | grep . | sort -u | paste -sd' ')" \
	"ingress (tc-ingress) samples: input is the capture interface"
assert_eq 0 "$(fields "$WORK/sflow.pcap" 'sflow_245.sub_agent_id == 1' \
	sflow.flow_sample.output_interface_value | tr ',' '\n' | grep . | sort -u | paste -sd' ')" \
	"ingress (tc-ingress) samples: output unknown (0)"

# sample_pool per sampler (sub-agent = hook, source = ifIndex): never
# decreasing, and at the ingress hook (tc-ingress, sub-agent 1) at least
# the frames sent.
fields "$WORK/sflow.pcap" 'sflow.flow_sample.sample_pool' sflow_245.sub_agent_id \
	sflow.flow_sample.index sflow.flow_sample.sample_pool >"$WORK/pools"
python3 - "$WORK/pools" "$FRAMES" <<'EOF' || fail "sample_pool went backwards or ended short"
import sys
last = {}
for line in open(sys.argv[1]):
    sub, srcs, pools = line.strip().split("|")
    srcs, pools = srcs.split(","), pools.split(",")
    assert len(srcs) == len(pools), line
    for src, pool in zip(srcs, pools):
        k = (sub, src)
        assert int(pool) >= last.get(k, 0), "pool of %s went from %d to %s" % (k, last[k], pool)
        last[k] = int(pool)
ingress = [p for (sub, _), p in last.items() if sub == "1"]
assert ingress and max(ingress) >= int(sys.argv[2]), "tc-ingress pool ends at %s" % ingress
EOF
ok "sample_pool never decreases and ends at least at the frames sent"

# Counter samples: the capture interface's, every second and at the end.
assert_eq "$IFINDEX" "$(fields "$WORK/sflow.pcap" sflow_245.ifindex sflow_245.ifindex |
	tr ',' '\n' | sort -u | grep -x "$IFINDEX")" "counter samples for the capture interface"
last=$(fields "$WORK/sflow.pcap" "sflow_245.ifindex == $IFINDEX" sflow_245.ifinpkt | tail -1 |
	tr ',' '\n' | tail -1)
[ "$last" -ge "$FRAMES" ] || fail "the last counter sample says $last packets in"
ok "the last counter sample has the $FRAMES frames in ifInUcastPkts ($last)"
assert_eq "1" "$(fields "$WORK/sflow.pcap" "sflow_245.ifindex == $IFINDEX" \
	sflow_245.ifoper_status | tr ',' '\n' | sort -u | paste -sd' ')" "counter samples: oper up"
assert_nothing_attached

# A rate that is not 1 in N is refused, in one line.
rc=0
in_cap "$PKTSAMPLE" -i "$CAPIF" --sample-flows 4 --sflow 127.0.0.1 2>"$WORK/err" || rc=$?
assert_eq "2 1" "$rc $(grep -c . "$WORK/err")" "--sflow with --sample-flows: exit 2, one line"
assert_match "needs a 1-in-N rate" "$(cat "$WORK/err")" "--sflow with --sample-flows: says why"

# A collector that is not listening: each port unreachable is reported on
# the connected socket's next send, which did not go; it is counted as
# refused and sent again, so every datagram leaves, and the capture goes on.
start_capture -i "$CAPIF" --sample 2 --sflow 127.0.0.1:9 --sflow-counters 1
in_peer "$PSGEN" -i "$PEERIF" -n 2000 --rate 5000 >/dev/null
sleep 1.2
stop_capture INT
assert_eq 0 "$PS_RC" "a refusing collector: the capture still exits 0"
assert_match "sent, 0 failed, [1-9][0-9]* refused by the collector's host" \
	"$(cat "$WORK/ps.err")" "a refusing collector: refusals counted, none failed"
line=$(grep -E "sFlow samples in" "$WORK/ps.err")
made=$(sed -E 's/.* in ([0-9]+) datagrams.*/\1/' <<<"$line")
sent=$(sed -E 's/.*datagrams: ([0-9]+) sent.*/\1/' <<<"$line")
assert_eq "$made" "$sent" "a refusing collector: every datagram made was sent"
assert_nothing_attached
