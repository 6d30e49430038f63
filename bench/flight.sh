#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# What the flight recorder costs: a flood of FRAMES frames of SIZE bytes
# from the peer of a testenv pair into the capture's interface (as fast as
# psgen sends), ROUNDS times, each capture alone:
#   file    -w to tmpfs, every packet written
#   flight  --flight 10m --flight-size 64m, then SIGUSR2: one incident,
#           the newest 64 MiB of them, written to tmpfs
# A line per run: the sender's rate, the packets the hooks handed over,
# those the incident holds, the bytes each took in the flight buffer
# (64 MiB over the packets it held when full), and the capture's CPU and
# peak RSS (bench_runstat).
#   bench/flight.sh [BUILD_DIR]     FRAMES=400000 ROUNDS=3 SIZES="64 1500"
source "$(dirname "$0")/lib.sh"
build=${1:-$top/build}
FRAMES=${FRAMES:-400000}
ROUNDS=${ROUNDS:-3}
SIZES=${SIZES:-64 1500}
bench_env
MAC=$("$TESTENV" exec "$ENV" cap -- cat /sys/class/net/"${ENV}0"/address)
FLIGHT_MIB=64

echo "| round | frame bytes | capture | sender pps | captured | in the incident | bytes per packet held | capture user s, sys s, peak RSS KiB |"
echo "|---|---|---|---|---|---|---|---|"
for r in $(seq "$ROUNDS"); do
	for size in $SIZES; do
		for how in file flight; do
			rm -f "$SHM"/c.pcapng*
			args=(-i "${ENV}0" --hook tc-ingress -w "$SHM/c.pcapng")
			[ "$how" = file ] ||
				args+=(--flight 10m --flight-size "${FLIGHT_MIB}m" --after 0)
			"$TESTENV" exec "$ENV" cap -- "$build/bench_runstat" "$SHM/stat" "$build/pktsample" \
				"${args[@]}" 2>"$SHM/err" &
			runner=$!
			wait_for "$SHM/err" "capturing on" "$runner"
			pps=$("$TESTENV" exec "$ENV" peer -- "$build/psgen" -i "${ENV}1" -n "$FRAMES" -s "$size" \
				--src 192.0.2.2 --dst 192.0.2.1 --dst-mac "$MAC" 2>&1 |
				sed -n 's/.*pps=\([0-9]*\).*/\1/p')
			sleep 0.5
			pid=$(pgrep -n -x pktsample)
			held=-
			per=-
			if [ "$how" = flight ]; then
				kill -USR2 "$pid"
				wait_for "$SHM/err" "^incident 1:" "$runner"
				held=$(sed -n 's/^incident 1: \([0-9]*\) packets.*/\1/p' "$SHM/err")
			fi
			kill -INT "$pid"
			wait "$runner" || true
			# Full (the summary says so): the buffer over what it held.
			! grep -q "packets given up for room" "$SHM/err" ||
				per=$((FLIGHT_MIB * 1048576 / held))
			got=$(sed -n 's/^\([0-9]*\) packets\? seen by hooks$/\1/p' "$SHM/err")
			echo "| $r | $size | $how | $pps | $got | $held | $per | $(cat "$SHM/stat") |"
		done
	done
done
