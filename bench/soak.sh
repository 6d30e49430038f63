#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Soak: a long flood into a capture that rotates a ring of files, as a
# capture left running for hours would (-C 50 -W 4 by default). Samples the
# capture's RSS every INTERVAL seconds (it must stay flat), then checks that
# every file left is a complete pcapng (capinfos, libpcap, one ISB per
# interface) and states what was lost and where.
#
# Usage: bench/soak.sh [BUILD_DIR]
#   env: DURATION=600 (s)  RATE=200000 (pps)  SIZE=64 (frame bytes)
#        INTERVAL=10 (s)   ARGS="-C 50 -W 4"  OUT=bench/out
source "$(dirname "$0")/lib.sh"
build=${1:-$top/build}
DURATION=${DURATION:-600}
RATE=${RATE:-200000}
SIZE=${SIZE:-64}
INTERVAL=${INTERVAL:-10}
ARGS=${ARGS:--C 50 -W 4}
bench_csv soak_rss.csv

bench_pair pss
DIR=$(mktemp -d /var/tmp/pktsample-soak.XXXXXX)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
	"$TESTENV" teardown "$ENV"
	rm -rf "$DIR"
}
trap cleanup EXIT

# shellcheck disable=SC2086 # ARGS is words on purpose
in_cap "$build/pktsample" -i "$CAPIF" $ARGS -v -w "$DIR/soak.pcapng" 2>"$DIR/ps.err" &
pids+=("$!")
for _ in $(seq 200); do
	grep -q "capturing on" "$DIR/ps.err" && break
	sleep 0.05
done
grep -q "capturing on" "$DIR/ps.err" || { echo "soak: pktsample did not start: $(cat "$DIR/ps.err")" >&2; exit 1; }
pid=$(pgrep -n -f -- "$DIR/soak.pcapng")

in_peer "$build/psgen" -i "$PEERIF" -s "$SIZE" --rate "$RATE" -n $((RATE * DURATION)) >"$DIR/gen.out" &
gen=$!
pids+=("$gen")
echo "t_s,rss_kib,files_rotated" >"$csv"
t0=$(date +%s)
while kill -0 "$gen" 2>/dev/null; do
	sleep "$INTERVAL"
	rss=$(sed -n 's/^VmRSS:[^0-9]*\([0-9]*\).*/\1/p' /proc/"$pid"/status)
	echo "$(($(date +%s) - t0)),$rss,$(grep -c 'now writing' "$DIR/ps.err" || true)" >>"$csv"
done
wait "$gen" || true
elapsed=$(($(date +%s) - t0))
sleep 0.5
# utime + stime, in clock ticks, fields 14 and 15 after the "(comm)" field
cpu=$(sed 's/.*) //' /proc/"$pid"/stat | awk -v hz="$(getconf CLK_TCK)" '{printf "%.1f", ($12 + $13) / hz}')
kill -INT "$pid"
wait "${pids[0]}" || { echo "soak: pktsample failed: $(tail -3 "$DIR/ps.err")" >&2; exit 1; }

valid=0
nfiles=0
for f in "$DIR"/soak.pcapng*; do
	nfiles=$((nfiles + 1))
	capinfos "$f" >/dev/null 2>&1 || { echo "soak: capinfos cannot read $f" >&2; exit 1; }
	"$build/tests/pcapcheck" count "$f" >/dev/null || { echo "soak: libpcap cannot read $f" >&2; exit 1; }
	isbs=$("$build/tests/pcapcheck" isb "$f" | grep -c '^if=' || true)
	[ "$isbs" -ge 1 ] || { echo "soak: $f has no statistics block" >&2; exit 1; }
	valid=$((valid + 1))
done

num() { sed -n "s/^\([0-9]*\) $1.*/\1/p" "$DIR/ps.err" | head -1; }
seen=$(num "packets\\? seen by hooks")
captured=$(num "packets\\? captured")
lost=$(num "packets\\? lost in perf buffer")
sent=$(sed -n 's/^sent=\([0-9]*\).*/\1/p' "$DIR/gen.out")
rss_min=$(tail -n +2 "$csv" | cut -d, -f2 | sort -n | head -1)
rss_max=$(tail -n +2 "$csv" | cut -d, -f2 | sort -n | tail -1)
rss_first=$(sed -n 2p "$csv" | cut -d, -f2)
rss_last=$(tail -1 "$csv" | cut -d, -f2)

echo "## Soak: ${elapsed} s at ${RATE} pps offered, ${SIZE} B frames, pktsample ${ARGS}"
echo
echo "| what | value |"
echo "| --- | --- |"
echo "| frames sent (psgen) | ${sent:-?} |"
echo "| seen by the hook | $seen |"
echo "| written (all files, rotated away included) | $captured |"
echo "| lost in the perf buffer | $lost |"
echo "| files rotated | $(grep -c 'now writing' "$DIR/ps.err" || true) |"
echo "| files left (-W), each valid | $valid of $nfiles |"
echo "| capture CPU seconds (user + system) | $cpu |"
echo "| merge: rounds, most held, out of order | $(sed -n 's/^pktsample: merge: //p' "$DIR/ps.err") |"
echo "| RSS every ${INTERVAL} s: first, last, min, max (KiB) | $rss_first, $rss_last, $rss_min, $rss_max |"
echo
echo "RSS samples: $csv"
