# SPDX-License-Identifier: GPL-2.0-only
# What the end-to-end benches share (sourced by bench/e2e.sh, bench/bulk.sh,
# bench/context.sh, bench/drops.sh).

# wait_for FILE REGEX PID: until the capture says it is ready.
wait_for() {
	for _ in $(seq 200); do
		grep -Eq "$2" "$1" 2>/dev/null && return 0
		kill -0 "$3" 2>/dev/null || break
		sleep 0.05
	done
	echo "bench: contender did not start: $(cat "$1")" >&2
	exit 1
}

# prog_ns NAME: ns per run of the loaded BPF program NAME (the kernel's
# run_time_ns / run_cnt, with kernel.bpf_stats_enabled on), or -.
prog_ns() {
	bpftool -j prog show name "$1" 2>/dev/null | python3 -c '
import json, sys
try:
    p = json.load(sys.stdin)
    p = p[0] if isinstance(p, list) else p
    print("%.0f" % (p["run_time_ns"] / p["run_cnt"]) if p.get("run_cnt") else "-")
except Exception:
    print("-")'
}
