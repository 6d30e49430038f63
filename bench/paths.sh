#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# What following packets across hooks (--packet-id path) costs the hook
# program: FRAMES 64-byte frames of 64 flows from the peer (psgen) into the
# capture's tc-ingress, captured with -w to tmpfs, --packet-id cpu and path,
# each alone and with --sample 10 (path: every packet looks its entry up,
# and each one left writes the decision for its later hooks), interleaved
# ROUNDS times. A line per run: the hook program's ns per packet (the
# kernel's run_time_ns / run_cnt, kernel.bpf_stats_enabled on for the run
# and put back after), the packets captured and lost; then each mode's
# median and range.
#   bench/paths.sh [BUILD_DIR]
#   env: FRAMES=500000 ROUNDS=5
source "$(dirname "$0")/lib.sh"
build=${1:-$top/build}
FRAMES=${FRAMES:-500000}
ROUNDS=${ROUNDS:-5}
bench_env stats
MAC=$(in_cap cat "/sys/class/net/${ENV}0/address")

# run LABEL ARGS...: the flood captured with ARGS; a row.
run() {
	local label=$1 pid ns got lost
	shift
	in_cap "$build/pktsample" -i "${ENV}0" --hook tc-ingress -s 128 -w "$SHM/p.pcapng" "$@" \
		2>"$SHM/err" &
	pid=$!
	wait_for "$SHM/err" "capturing on" "$pid"
	in_peer "$build/psgen" -i "${ENV}1" -n "$FRAMES" -s 64 --rate 200000 --flows 64 \
		--src 192.0.2.2 --dst 192.0.2.1 --dst-mac "$MAC" >/dev/null
	ns=$(prog_ns pktsample_tc_ingress)
	pkill -INT -f -- "pktsample -i ${ENV}0 " || true
	wait "$pid" || true
	got=$(sed -n 's/^\([0-9]*\) packets\? captured$/\1/p' "$SHM/err")
	lost=$(sed -En 's/^([0-9]+) packets? lost in .* buffer$/\1/p' "$SHM/err")
	echo "| $label | $ns | $got | $lost |"
}

echo "| --packet-id | ns per packet in the hook | captured | lost |"
echo "|---|---|---|---|"
for _ in $(seq "$ROUNDS"); do
	run cpu --packet-id cpu
	run path --packet-id path
	run "cpu --sample 10" --packet-id cpu --sample 10
	run "path --sample 10" --packet-id path --sample 10
done | tee "$SHM/rows"
python3 - "$SHM/rows" <<'PY'
import statistics, sys
by = {}
for line in open(sys.argv[1]):
    f = [c.strip() for c in line.strip().strip("|").split("|")]
    if f[1] != "-":
        by.setdefault(f[0], []).append(float(f[1]))
for k, v in by.items():
    print(f"{k}: median {statistics.median(v):.0f} ns, {min(v):.0f}-{max(v):.0f}")
PY
