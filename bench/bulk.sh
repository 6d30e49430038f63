#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Bulk TCP at byte rates, on a veth pair in testenv: the capture side sends
# WRITES writes of 64 KiB over one TCP connection to a sink in the peer
# namespace (GSO super-packets at the capture interface's egress, up to
# 64 KiB each), while one contender captures the interface:
#   tcpdump            tcpdump -w, its default buffer (2 MiB)
#   tcpdump-BN         tcpdump -w -B N (KiB)
#   pktsample          pktsample -w, the defaults
#   pktsample-BN       pktsample -w -B N (KiB, the total, as tcpdump; where
#                      that leaves a CPU under 4 MiB, through a shared ring)
#   pktsample-ring     pktsample -w --transport ringbuf
#   pktsample-ring-BN  the same with -B N
#   pktsample-perf[-BN] pktsample -w --transport perf [-B N]
#   pktsample-jN       pktsample -w -j N (reader threads)
# Each contender uses the snap length 262144, as tcpdump's default. A run
# reports the packets the tool saw, captured and counted lost, its CPU
# seconds (user+sys), peak RSS and the transfer's rate. Contenders are
# interleaved ROUNDS times; prints a markdown table of medians.
#
# WARM=1: a first transfer, the same, in the same capture before the one
# timed (its packets counted with it): the rate once the capture's
# buffers have been written through.
#
# RATE=MB/s paces the sender (0: as fast as it goes). SEARCH="R1 R2 ..."
# (ascending MB/s) runs every contender ROUNDS times at each of those rates
# instead and tabulates, per rate, the runs without loss and the median
# lost, and for each contender the highest rate lossless in every run (and
# every rate below): give the contenders the same memory (tcpdump-B4096
# pktsample-B4096 ...).
#
# Usage: bench/bulk.sh [BUILD_DIR]
#   env: ROUNDS=3 WRITES=300 RATE=0 SEARCH= WARM= CONTENDERS="..." OUT=bench/out
#        PS_ARGS="..." (more pktsample options, for every pktsample contender)
source "$(dirname "$0")/lib.sh"
build=${1:-$top/build}
ROUNDS=${ROUNDS:-3}
WRITES=${WRITES:-300}
RATE=${RATE:-0}
CONTENDERS=${CONTENDERS:-tcpdump tcpdump-B16384 pktsample pktsample-B16384 pktsample-ring}
bench_csv bulk.csv

bench_pair psk
SHM=$(mktemp -d /dev/shm/pktsample-bulk.XXXXXX)
cleanup() {
	pkill -f "pktsample-bulk-sink-$$" 2>/dev/null || true
	"$TESTENV" teardown "$ENV"
	rm -rf "$SHM"
}
trap cleanup EXIT

# The sink: accepts connections and reads them to the end.
"$TESTENV" exec "$ENV" peer -- python3 -c "# pktsample-bulk-sink-$$
"'
import socket, threading
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("192.0.2.2", 5001))
s.listen(8)
def drain(c):
    while c.recv(1 << 20):
        pass
    c.close()
while True:
    c, _ = s.accept()
    threading.Thread(target=drain, args=(c,), daemon=True).start()' &
sleep 0.5

# send: WRITES x 64 KiB, paced to RATE MB/s if set; prints MB/s.
send() {
	in_cap python3 -c '
import socket, sys, time
writes, rate = int(sys.argv[1]), float(sys.argv[2])
buf = b"x" * 65536
s = socket.create_connection(("192.0.2.2", 5001))
t0 = time.monotonic()
for i in range(writes):
    s.sendall(buf)
    if rate > 0:
        ahead = t0 + (i + 1) * 65536 / (rate * 1e6) - time.monotonic()
        if ahead > 0:
            time.sleep(ahead)
s.shutdown(socket.SHUT_WR)
s.recv(1)
dt = time.monotonic() - t0
print(round(writes * 65536 / dt / 1e6, 1))' "$WRITES" "$RATE"
}


# run_one CONTENDER ROUND: one transfer; appends a CSV row.
run_one() {
	local c=$1 round=$2 pid err=$SHM/err time=$SHM/time
	local seen captured lost cpu rss mbps args=()
	: >"$err"
	rm -f "$time"
	case $c in
	tcpdump*)
		[[ $c == tcpdump-B* ]] && args=(-B "${c#tcpdump-B}")
		in_cap "$build/bench_runstat" "$time" \
			tcpdump -i "$CAPIF" -n -s 262144 "${args[@]}" -w "$SHM/t.pcap" 2>"$err" &
		pid=$!
		wait_for "$err" "listening on" "$pid" ;;
	pktsample*)
		args=(-s "${PS_SNAP:-262144}")
		# shellcheck disable=SC2206 # words, as on a command line
		[ -n "${PS_ARGS:-}" ] && args+=($PS_ARGS)
		case $c in
		pktsample-ring*) args+=(--transport ringbuf) ;;
		pktsample-perf*) args+=(--transport perf) ;;
		esac
		[[ $c == *-B* ]] && args+=(-B "${c##*-B}")
		[[ $c == *-j* ]] && args+=(-j "${c##*-j}")
		in_cap "$build/bench_runstat" "$time" \
			"$build/pktsample" -i "$CAPIF" "${args[@]}" -w "$SHM/p.pcapng" 2>"$err" &
		pid=$!
		wait_for "$err" "capturing on" "$pid" ;;
	esac
	[ -z "${WARM:-}" ] || send >/dev/null
	mbps=$(send)
	sleep 1.2 # past tcpdump's 1 s block timeout
	if [[ $c == tcpdump* ]]; then
		in_cap pkill -INT -f "tcpdump -i $CAPIF" || true
	else
		in_cap pkill -INT -f "pktsample -i $CAPIF" || true
	fi
	wait "$pid" || true
	read -r usr sys rss <"$time"
	cpu=$(python3 -c "print(round($usr + $sys, 4))")
	captured=$(sed -n 's/^\([0-9]*\) packets captured/\1/p' "$err")
	if [[ $c == tcpdump* ]]; then
		lost=$(sed -n 's/^\([0-9]*\) packets dropped by kernel/\1/p' "$err")
		seen=$(sed -n 's/^\([0-9]*\) packets received by filter/\1/p' "$err")
	else
		lost=$(sed -n 's/^\([0-9]*\) packets lost in .* buffer.*/\1/p' "$err")
		lost=${lost:-0}
		seen=$((captured + lost))
	fi
	bytes=$(stat -c %s "$SHM"/[tp].pcap* 2>/dev/null | head -1)
	rm -f "$SHM/t.pcap" "$SHM/p.pcapng"
	echo "$round,$c,$RATE,$mbps,$seen,$captured,$lost,$cpu,$rss,$bytes" >>"$csv"
	printf '  %-20s round %s: %7s MB/s  seen %-6s captured %-6s lost %-6s cpu %-6s s  rss %s KiB\n' \
		"$c" "$round" "$mbps" "$seen" "$captured" "$lost" "$cpu" "$rss" >&2
}

[ -n "${APPEND:-}" ] || echo "round,contender,rate,mbps,seen,captured,lost,cpu_s,peak_rss_kib,file_bytes" >"$csv"
if [ -n "${SEARCH:-}" ]; then
	# Rate by rate, every contender in every round, interleaved so that
	# the machine's drift falls on all alike; the search ends after a
	# rate at which every run lost.
	for RATE in $SEARCH; do
		clean=0
		for round in $(seq "$ROUNDS"); do
			for c in $CONTENDERS; do
				run_one "$c" "$round"
				[ "$(tail -1 "$csv" | cut -d, -f7)" != 0 ] || clean=1
			done
		done
		[ "$clean" = 1 ] || break
	done
	python3 - "$csv" <<'EOF'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
cs = list(dict.fromkeys(r["contender"] for r in rows))
rates = list(dict.fromkeys(r["rate"] for r in rows))
print("| rate cap (MB/s) | " + " | ".join(cs) + " |")
print("|---" * (len(cs) + 1) + "|")
for x in rates:
    cells = []
    for c in cs:
        lost = [int(r["lost"] or 0) for r in rows if r["contender"] == c and r["rate"] == x]
        cells.append(f"{sum(l == 0 for l in lost)}/{len(lost)} lossless, median lost {statistics.median(lost):g}")
    print(f"| {x} | " + " | ".join(cells) + " |")
print()
print("| contender | highest rate cap lossless in every run (MB/s) |")
print("|---|---|")
for c in cs:
    good = [x for x in rates if all(int(r["lost"] or 0) == 0 for r in rows if r["contender"] == c and r["rate"] == x)]
    # The highest rate below which every rate was lossless too.
    best = None
    for x in rates:
        if x not in good:
            break
        best = x
    print(f"| {c} | {best or 'none'} |")
EOF
	exit 0
fi
for round in $(seq "$ROUNDS"); do
	for c in $CONTENDERS; do
		run_one "$c" "$round"
	done
done

python3 - "$csv" <<'EOF'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
order = []
for r in rows:
    if (r["contender"], r["rate"]) not in order:
        order.append((r["contender"], r["rate"]))
print("| contender | rate cap MB/s | MB/s | seen | lost (median, min-max) | lost % | CPU s | CPU s/GB | peak RSS MiB |")
print("|---|---|---|---|---|---|---|---|---|")
for c, rate in order:
    rs = [r for r in rows if r["contender"] == c and r["rate"] == rate]
    med = lambda k: statistics.median(float(r[k] or 0) for r in rs)
    lost = [int(r["lost"] or 0) for r in rs]
    seen = med("seen")
    gb = med("file_bytes") / 1e9
    print(f"| {c} | {rate if rate != '0' else '-'} | {med('mbps'):.0f} | {seen:.0f} | "
          f"{statistics.median(lost):.0f} ({min(lost)}-{max(lost)}) | "
          f"{100 * statistics.median(lost) / seen if seen else 0:.1f} | {med('cpu_s'):.3f} | "
          f"{med('cpu_s') / gb if gb else 0:.2f} | {med('peak_rss_kib') / 1024:.1f} |")
EOF
