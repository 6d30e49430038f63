#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# What whom-a-packet-belongs-to costs at TC egress, where BPF_PROG_TEST_RUN
# cannot show it (its skbs carry no socket): FRAMES 64-byte frames sent
# from a packet socket in a testenv namespace (psgen), captured there with
# --hook tc-egress -w, --context off and on interleaved ROUNDS times. A line
# per run: the sender's rate, the packets captured, the capture's CPU.
#   bench/context.sh [BUILD_DIR]        FRAMES=500000 ROUNDS=3 by default
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
source "$top/bench/lib.sh"
T=$top/testenv/testenv.sh
FRAMES=${FRAMES:-500000}
ROUNDS=${ROUNDS:-3}
ENV=$("$T" setup)
SHM=$(mktemp -d /dev/shm/pktsample-bench.XXXXXX)
trap '"$T" teardown "$ENV"; rm -rf "$SHM"' EXIT

echo "| round | --context | sender pps | captured | capture user s, sys s, peak RSS KiB |"
echo "|---|---|---|---|---|"
for r in $(seq "$ROUNDS"); do
	for ctx in off on; do
		"$T" exec "$ENV" cap -- "$build/bench_runstat" "$SHM/stat" "$build/pktsample" \
			-i "${ENV}0" --hook tc-egress --context "$ctx" -w "$SHM/c.pcapng" \
			2>"$SHM/err" &
		pid=$!
		wait_for "$SHM/err" "capturing on" "$pid"
		pps=$("$T" exec "$ENV" cap -- "$build/psgen" -i "${ENV}0" -n "$FRAMES" -s 64 2>&1 |
			sed -n 's/.*pps=\([0-9]*\).*/\1/p')
		sleep 0.5
		pkill -INT -f -- "pktsample -i ${ENV}0 --hook tc-egress" || true
		wait "$pid" || true
		got=$(sed -n 's/^\([0-9]*\) packets captured$/\1/p' "$SHM/err")
		echo "| $r | $ctx | $pps | $got | $(cat "$SHM/stat") |"
	done
done
