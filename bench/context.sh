#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# What whom-a-packet-belongs-to and the transport cost the sender, in the
# hook's own time, where BPF_PROG_TEST_RUN cannot show it (its skbs carry
# no socket): FRAMES 64-byte frames from a packet socket (psgen), captured
# with -w at each hook of HOOKS (tc-egress: sent from the capture's
# namespace, the skb its sender's; tc-ingress: sent from the peer's, no
# local socket, the sender's kept across the veth), through each transport
# of TRANSPORTS, --context off and on, and beside them nothing and tcpdump
# (-Q out or in: that direction, as the hook; -B 4096), interleaved ROUNDS
# times. A line per run: the sender's rate (what a capture costs the sender
# per packet is 1/pps less nothing's), the hook program's ns per packet
# (the kernel's run_time_ns / run_cnt: kernel.bpf_stats_enabled, on for the
# run and put back after; it adds two clock reads a run to both), the
# packets captured and lost, the capture's CPU.
#   bench/context.sh [BUILD_DIR]
#   env: FRAMES=500000 ROUNDS=3 HOOKS="tc-egress tc-ingress"
#        TRANSPORTS="perf ringbuf"
source "$(dirname "$0")/lib.sh"
build=${1:-$top/build}
FRAMES=${FRAMES:-500000}
ROUNDS=${ROUNDS:-3}
HOOKS=${HOOKS:-tc-egress tc-ingress}
TRANSPORTS=${TRANSPORTS:-perf ringbuf}
bench_env stats

# run ROUND HOOK LABEL CONTEXT [CMD...]: the flood, CMD capturing it in the
# capture's namespace (none: nothing); a row.
run() {
	local r=$1 hook=$2 label=$3 ctx=$4 pid="" pps ns=- got=- lost=- stat=-
	local from=(peer -- "$build/psgen" -i "${ENV}1")
	shift 4
	# egress: the capture's namespace sends; ingress: the peer's.
	[ "$hook" = tc-egress ] && from=(cap -- "$build/psgen" -i "${ENV}0")
	if [ $# -gt 0 ]; then
		"$TESTENV" exec "$ENV" cap -- "$build/bench_runstat" "$SHM/stat" "$@" 2>"$SHM/err" &
		pid=$!
		wait_for "$SHM/err" "capturing on|listening on" "$pid"
	fi
	pps=$("$TESTENV" exec "$ENV" "${from[@]}" -n "$FRAMES" -s 64 2>&1 |
		sed -n 's/.*pps=\([0-9]*\).*/\1/p')
	if [ -n "$pid" ]; then
		sleep 1.2 # past tcpdump's block timeout
		[ "$label" = tcpdump ] || ns=$(prog_ns "pktsample_${hook/-/_}")
		pkill -INT -f -- "$(basename "$1") -i ${ENV}0 " || true
		wait "$pid" || true
		got=$(sed -n 's/^\([0-9]*\) packets\? captured$/\1/p' "$SHM/err")
		lost=$(sed -En 's/^([0-9]+) packets? (dropped by kernel|lost in .* buffer)$/\1/p' "$SHM/err")
		stat=$(cat "$SHM/stat")
	fi
	echo "| $r | $hook | $label | $ctx | $pps | $ns | $got | $lost | $stat |"
}

echo "| round | hook | capture | --context | sender pps | ns per packet in the hook | captured | lost | capture user s, sys s, peak RSS KiB |"
echo "|---|---|---|---|---|---|---|---|---|"
for r in $(seq "$ROUNDS"); do
	for hook in $HOOKS; do
		run "$r" "$hook" nothing -
		run "$r" "$hook" tcpdump - tcpdump -i "${ENV}0" -n -s 65460 -B 4096 \
			-Q "$([ "$hook" = tc-egress ] && echo out || echo in)" -w "$SHM/t.pcap"
		for tr in $TRANSPORTS; do
			for ctx in off on; do
				run "$r" "$hook" "$tr" "$ctx" "$build/pktsample" -i "${ENV}0" --hook "$hook" \
					--transport "$tr" --context "$ctx" -w "$SHM/c.pcapng"
			done
		done
	done
done
