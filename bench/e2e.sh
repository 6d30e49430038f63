#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# End to end on a veth pair in testenv: psgen floods N frames as fast as it
# can into the capture interface while one contender watches it:
#   none           nothing attached
#   xdp-pass-drv   a bare XDP_PASS program, native mode
#   xdp-pass-skb   a bare XDP_PASS program, skb (generic) mode
#   tcpdump        tcpdump -w (AF_PACKET, TPACKET_V3), same snap length and -B
#   pktsample      pktsample -w, default configuration (tc-ingress and
#                  tc-egress: the ingress hook the default chooses on veth)
#   pktsample-drv  pktsample -w --hook xdp --xdp-mode native (the candidate
#                  that turns off the peer's TSO while attached)
#   pktsample-skb  pktsample -w --hook xdp --xdp-mode skb (generic XDP)
#   pktsample-ring pktsample -w --transport ringbuf (BPF ring buffer)
#   pktsample-perf pktsample -w --transport perf (the perf buffers named:
#                  at a small -B the default would take a shared ring)
#   pktsample-tc   pktsample -w --hook tc-ingress (the ingress hook alone)
#   pktsample-tc-ring  the same through the BPF ring buffer
#   pktsample-j2   pktsample -w -j 2: two reader threads
#   pktsample-noctx pktsample -w --context off (no owner lookup, no owner
#                  words in the file)
#   pktsample-path pktsample -w --packet-id path (each packet followed across
#                  hooks: one interface here, so what following costs)
#   pktsample-ring-noctx  --transport ringbuf --context off (the sender's
#                  lightest way to capture every packet)
#   pktsample-s100 pktsample --sample 100 -w
#   pktsample-sflow pktsample --sample 100 --sflow 127.0.0.1 (no file; a UDP
#                  sink in the namespace takes the datagrams)
#   pktsample-base pktsample -w, defaults, from another build: BASE_PKTSAMPLE
#                  names its binary (a change's before and after, one run)
#   pktsample-base-noctx  the same build with --context off (bench/floor.sh)
#   kblock         bench_kblock: the block built in the kernel, written out
#                  as the ring holds it (bench/kblock.c; tc ingress, one
#                  ring of -B KiB, 65536 unless the name ends in -BN)
# A pktsample contender may end in -BN: the same with -B N (KiB, in all), as
# tcpdump's -B 4096 here (pktsample-ring-noctx-B4096: the same memory).
# A tcpdump or pktsample contender may end in @null (it writes to /dev/null:
# everything but the file's write) or @idle (it starts and stops with no
# flood: the start-up alone); with both beside the plain one, the summary
# splits the CPU into start-up, reading per packet and the file's write
# per packet and per byte.
# Contenders are interleaved (A B C ... A B C ...) ROUNDS times per frame
# size. For each run: the sender's packets/s, frames captured and lost, the
# capture process's CPU seconds (user+sys), peak RSS and the bytes of the
# file written. Prints markdown tables (bench/e2e_summary.py) and writes
# every run to CSV.
#
# With SENDERS=K, K psgens flood at once, each pinned to a CPU of its own
# (CPU i mod the CPUs) and sending N/K frames, so that K CPUs' hooks have
# data at the same time; the sender's packets/s is all frames over the
# longest sender's time.
#
# Usage: bench/e2e.sh [BUILD_DIR]
#   env: ROUNDS=3 N=1000000 SIZES="64 1500" CONTENDERS="..." OUT=bench/out
#   SNAP=N: both tools' snap length (-s N; tcpdump's 65460 otherwise)
#        PS_ARGS="..." (more pktsample options, for every pktsample contender)
#        SENDERS=1
source "$(dirname "$0")/lib.sh"
build=${1:-$top/build}
ROUNDS=${ROUNDS:-3}
N=${N:-1000000}
SIZES=${SIZES:-64 1500}
SENDERS=${SENDERS:-1}
CONTENDERS=${CONTENDERS:-none xdp-pass-drv xdp-pass-skb tcpdump pktsample pktsample-drv pktsample-skb pktsample-ring pktsample-tc pktsample-tc-ring pktsample-s100 pktsample-sflow}
bench_csv e2e.csv

bench_pair psb
SHM=$(mktemp -d /dev/shm/pktsample-bench.XXXXXX)
cleanup() {
	pkill -f "pktsample-bench-sink-$$" 2>/dev/null || true
	"$TESTENV" exec "$ENV" cap -- ip link set dev "$CAPIF" xdpdrv off 2>/dev/null || true
	"$TESTENV" exec "$ENV" cap -- ip link set dev "$CAPIF" xdpgeneric off 2>/dev/null || true
	"$TESTENV" teardown "$ENV"
	rm -rf "$SHM"
}
trap cleanup EXIT

# pktsample-sflow's collector: a UDP sink on the namespace's loopback.
in_cap ip link set lo up
in_cap python3 -c "# pktsample-bench-sink-$$
"'
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 6343))
while True:
    s.recv(65536)' &


# flood SIZE: N frames from SENDERS psgens at once; prints packets/s.
flood() {
	local size=$1 i pids=() ncpu
	if [ "$SENDERS" -le 1 ]; then
		"$TESTENV" exec "$ENV" peer -- "$build/psgen" -i "$PEERIF" -n "$N" -s "$size" |
			sed -n 's/.*pps=\([0-9]*\).*/\1/p'
		return
	fi
	ncpu=$(nproc)
	for i in $(seq 0 $((SENDERS - 1))); do
		"$TESTENV" exec "$ENV" peer -- taskset -c $((i % ncpu)) \
			"$build/psgen" -i "$PEERIF" -n $((N / SENDERS)) -s "$size" >"$SHM/flood.$i" &
		pids+=($!)
	done
	wait "${pids[@]}"
	cat "$SHM"/flood.* | python3 -c '
import re, sys
runs = [re.search(r"sent=(\d+) seconds=([0-9.]+)", l) for l in sys.stdin]
runs = [(int(m[1]), float(m[2])) for m in runs if m]
print(int(sum(n for n, _ in runs) / max(t for _, t in runs)))'
	rm -f "$SHM"/flood.*
}

# run_one CONTENDER SIZE ROUND: one flood; appends a CSV row.
run_one() {
	local c=${1%@*} size=$2 round=$3 pid="" err=$SHM/err time=$SHM/time
	local mode="" captured="" lost="" cpu="" rss="" pps="" bytes=""
	[ "$c" = "$1" ] || mode=${1#*@}
	local pcap=$SHM/t.pcap pcapng=$SHM/p.pcapng
	[ "$mode" = null ] && pcap=/dev/null pcapng=/dev/null
	: >"$err"
	rm -f "$time"
	case $c in
	none) ;;
	xdp-pass-drv | xdp-pass-skb)
		in_cap ip link set dev "$CAPIF" "$([ "$c" = xdp-pass-drv ] && echo xdpdrv || echo xdpgeneric)" \
			obj "$build/bpf/bare_xdp.bpf.o" sec xdp ;;
	tcpdump)
		in_cap "$build/bench_runstat" "$time" \
			tcpdump -i "$CAPIF" -n -s "${SNAP:-65460}" -B 4096 -w "$pcap" 2>"$err" &
		pid=$!
		wait_for "$err" "listening on" "$pid" ;;
	kblock*)
		local kib=65536
		[[ $c =~ -B([0-9]+)$ ]] && kib=${BASH_REMATCH[1]}
		in_cap "$build/bench_runstat" "$time" \
			"$build/bench_kblock" -i "$CAPIF" -s "${SNAP:-256}" -B "$kib" -w "$pcapng" 2>"$err" &
		pid=$!
		wait_for "$err" "capturing on" "$pid" ;;
	pktsample*)
		local extra=(-w "$pcapng") bin=$build/pktsample kind=$c
		if [[ $c =~ ^(pktsample.*)-B([0-9]+)$ ]]; then
			kind=${BASH_REMATCH[1]}
			extra+=(-B "${BASH_REMATCH[2]}")
		fi
		case $kind in
		pktsample-base) bin=${BASE_PKTSAMPLE:?pktsample-base needs BASE_PKTSAMPLE=/path/to/pktsample} ;;
		pktsample-base-noctx)
			bin=${BASE_PKTSAMPLE:?pktsample-base-noctx needs BASE_PKTSAMPLE=/path/to/pktsample}
			extra+=(--context off) ;;
		pktsample-s100) extra+=(--sample 100) ;;
		pktsample-sflow) extra=(--sample 100 --sflow 127.0.0.1) ;;
		pktsample-drv) extra+=(--hook xdp --xdp-mode native) ;;
		pktsample-skb) extra+=(--hook xdp --xdp-mode skb) ;;
		pktsample-ring) extra+=(--transport ringbuf) ;;
		pktsample-perf) extra+=(--transport perf) ;;
		pktsample-tc) extra+=(--hook tc-ingress) ;;
		pktsample-tc-ring) extra+=(--hook tc-ingress --transport ringbuf) ;;
		pktsample-j2) extra+=(-j 2) ;;
		pktsample-noctx) extra+=(--context off) ;;
		pktsample-path) extra+=(--packet-id path) ;;
		pktsample-ring-noctx) extra+=(--transport ringbuf --context off) ;;
		pktsample) ;;
		*) echo "bench: no contender $c" >&2; exit 2 ;;
		esac
		# shellcheck disable=SC2206 # words, as on a command line
		[ -n "${PS_ARGS:-}" ] && extra+=($PS_ARGS)
		[ -n "${SNAP:-}" ] && extra+=(-s "$SNAP")
		in_cap "$build/bench_runstat" "$time" \
			"$bin" -i "$CAPIF" "${extra[@]}" 2>"$err" &
		pid=$!
		wait_for "$err" "capturing on" "$pid" ;;
	esac
	[ "$mode" = idle ] || pps=$(flood "$size")
	# Past tcpdump's 1 s block timeout, so it has its last frames too.
	sleep 1.2
	case $c in
	xdp-pass-drv) in_cap ip link set dev "$CAPIF" xdpdrv off ;;
	xdp-pass-skb) in_cap ip link set dev "$CAPIF" xdpgeneric off ;;
	tcpdump | pktsample* | kblock*)
		# By its program's name: a base build may be named otherwise.
		local name
		case $c in
		tcpdump) name="tcpdump -i $CAPIF" ;;
		kblock*) name="bench_kblock -i $CAPIF" ;;
		*) name="$(basename "$bin") -i $CAPIF" ;;
		esac
		in_cap pkill -INT -f "$name" || true
		wait "$pid" || true
		read -r usr sys rss <"$time"
		cpu=$(python3 -c "print(round($usr + $sys, 4))")
		if [ "$c" = tcpdump ]; then
			captured=$(sed -n 's/^\([0-9]*\) packets captured/\1/p' "$err")
			lost=$(sed -n 's/^\([0-9]*\) packets dropped by kernel/\1/p' "$err")
		else
			captured=$(sed -n 's/^\([0-9]*\) packets captured/\1/p' "$err")
			lost=$(sed -n 's/^\([0-9]*\) packets lost in .* buffer/\1/p' "$err")
		fi ;;
	esac
	for f in "$SHM/t.pcap" "$SHM/p.pcapng"; do
		[ -e "$f" ] && bytes=$(stat -c %s "$f")
	done
	[ "$mode" = null ] && bytes=0
	rm -f "$SHM/t.pcap" "$SHM/p.pcapng"
	echo "$size,$round,$1,$pps,$captured,$lost,$cpu,$rss,$bytes" >>"$csv"
	printf '  %-22s %5s B round %s: %8s pps  captured %-8s lost %-6s cpu %-5s s  rss %s KiB\n' \
		"$1" "$size" "$round" "${pps:--}" "${captured:--}" "${lost:--}" "${cpu:--}" "${rss:--}" >&2
}

echo "size,round,contender,sender_pps,captured,lost,cpu_s,peak_rss_kib,file_bytes" >"$csv"
for size in $SIZES; do
	for round in $(seq "$ROUNDS"); do
		for c in $CONTENDERS; do
			run_one "$c" "$size" "$round"
		done
	done
done

"$top/bench/e2e_summary.py" "$csv"
