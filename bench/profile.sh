#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Where a capture's CPU goes: `perf record` (software clock, call graphs)
# while psgen floods N frames of SIZE bytes into a veth in testenv, then
# `perf report` by binary and by symbol. Start-up is left out (perf starts
# counting DELAY_MS after the capture). Needs root and perf.
#
#   bench/profile.sh [BUILD_DIR] [capture|sender|tcpdump] [-- PKTSAMPLE_ARGS...]
#     capture  the capture process alone (default)
#     sender   every CPU while the flood runs (the sender's side: its
#              system calls, the hooks' programs, the stack), pktsample
#              capturing
#     tcpdump  tcpdump -w -B 4096 profiled as the capture is, to compare
#   env: N=1000000 SIZE=64 DELAY_MS=1500 OUT=bench/out (perf.data goes there)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
source "$top/bench/lib.sh"
build=${1:-$top/build}
mode=${2:-capture}
shift $(($# > 2 ? 2 : $#))
[ "${1:-}" = -- ] && shift
N=${N:-1000000}
SIZE=${SIZE:-64}
DELAY_MS=${DELAY_MS:-1500}
out=${OUT:-$top/bench/out}
command -v perf >/dev/null || { echo "profile.sh: needs perf (linux-perf)" >&2; exit 1; }
mkdir -p "$out"
data=$out/profile-$mode.data
TESTENV=$top/testenv/testenv.sh
ENV=$("$TESTENV" setup --name "psp$$")
SHM=$(mktemp -d /dev/shm/pktsample-profile.XXXXXX)
cleanup() {
	"$TESTENV" teardown "$ENV"
	rm -rf "$SHM"
}
trap cleanup EXIT
in_cap() { "$TESTENV" exec "$ENV" cap -- "$@"; }

record=(perf record -F 4999 -g -D "$DELAY_MS" -o "$data" --)
[ "$mode" = capture ] || [ "$mode" = tcpdump ] || record=()
if [ "$mode" = tcpdump ]; then
	in_cap "${record[@]}" tcpdump -i "${ENV}0" -n -s 65460 -B 4096 -w "$SHM/t.pcap" \
		2>"$SHM/err" &
	ready="listening on" stop="tcpdump -i ${ENV}0"
else
	in_cap "${record[@]}" "$build/pktsample" -i "${ENV}0" -w "$SHM/p.pcapng" "$@" \
		2>"$SHM/err" &
	ready="capturing on" stop="pktsample -i ${ENV}0"
fi
pid=$!
wait_for "$SHM/err" "$ready" "$pid"
sleep "$(python3 -c "print($DELAY_MS / 1000 + 0.2)")"
if [ "$mode" = sender ]; then
	perf record -a -F 2999 -g -o "$data" -- \
		"$TESTENV" exec "$ENV" peer -- "$build/psgen" -i "${ENV}1" -n "$N" -s "$SIZE"
else
	"$TESTENV" exec "$ENV" peer -- "$build/psgen" -i "${ENV}1" -n "$N" -s "$SIZE"
fi
sleep 1.2
in_cap pkill -INT -f "$stop" || true
wait "$pid" || true
tail -n 4 "$SHM/err" >&2
comm=$([ "$mode" = sender ] && echo psgen || echo "")
echo "## By binary"
perf report -i "$data" --stdio --no-children --sort dso ${comm:+--comm "$comm"} 2>/dev/null |
	grep -E '^ +[0-9.]+%' | head -8
echo "## By symbol"
perf report -i "$data" --stdio --no-children --sort sym -g none ${comm:+--comm "$comm"} 2>/dev/null |
	grep -E '^ +[0-9.]+%' | head -30
echo "perf.data: $data" >&2
