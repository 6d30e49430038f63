#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# What the drop hook costs the box: FRAMES 64-byte UDP frames to a port
# nothing listens on, sent from the peer of a testenv pair as fast as it
# goes (every one a kfree_skb in the capture namespace), ROUNDS times each:
#   none       no capture
#   elsewhere  --hook drop on another interface (lo): the program runs on
#              every drop of the host and keeps none
#   capped     --hook drop there, --max-rate 1000: most are counted only
#   all        --hook drop there, every drop into a file (tmpfs)
# A line per run: the sender's rate, the drop program's mean time per call
# (kernel.bpf_stats_enabled, on for the run and put back after), the
# packets captured, and the capture's CPU and peak RSS.
#   bench/drops.sh [BUILD_DIR]          FRAMES=500000 ROUNDS=3 by default
source "$(dirname "$0")/lib.sh"
build=${1:-$top/build}
FRAMES=${FRAMES:-500000}
ROUNDS=${ROUNDS:-3}
bench_env stats
MAC=$("$TESTENV" exec "$ENV" cap -- cat /sys/class/net/"${ENV}0"/address)
"$TESTENV" exec "$ENV" cap -- ip link set lo up

echo "| round | capture | sender pps | ns per kfree_skb call | captured | capture user s, sys s, peak RSS KiB |"
echo "|---|---|---|---|---|---|"
for r in $(seq "$ROUNDS"); do
	for how in none elsewhere capped all; do
		pid=
		case $how in
		none) ;;
		elsewhere) args=(-i lo --hook drop -w "$SHM/c.pcapng") ;;
		capped) args=(-i "${ENV}0" --hook drop --max-rate 1000 -w "$SHM/c.pcapng") ;;
		all) args=(-i "${ENV}0" --hook drop -w "$SHM/c.pcapng") ;;
		esac
		if [ "$how" != none ]; then
			"$TESTENV" exec "$ENV" cap -- "$build/bench_runstat" "$SHM/stat" "$build/pktsample" \
				"${args[@]}" 2>"$SHM/err" &
			pid=$!
			wait_for "$SHM/err" "capturing on" "$pid"
		fi
		pps=$("$TESTENV" exec "$ENV" peer -- "$build/psgen" -i "${ENV}1" -n "$FRAMES" -s 64 \
			--src 192.0.2.2 --dst 192.0.2.1 --dst-mac "$MAC" 2>&1 |
			sed -n 's/.*pps=\([0-9]*\).*/\1/p')
		sleep 0.5
		if [ -z "$pid" ]; then
			echo "| $r | $how | $pps | - | - | - |"
			continue
		fi
		ns=$(prog_ns pktsample_drop)
		pkill -INT -f -- "pktsample ${args[*]:0:3}" || true
		wait "$pid" || true
		got=$(sed -n 's/^\([0-9]*\) packets\? captured$/\1/p' "$SHM/err")
		echo "| $r | $how | $pps | $ns | $got | $(cat "$SHM/stat") |"
	done
done
