# SPDX-License-Identifier: GPL-2.0-only
# What the end-to-end benches share (sourced first by bench/e2e.sh,
# bench/bulk.sh, bench/soak.sh, bench/context.sh, bench/drops.sh,
# bench/flight.sh, bench/profile.sh, bench/paths.sh): strict mode, the tree (top),
# testenv (TESTENV) and the helpers below.
# shellcheck disable=SC2034 # what it sets is the sourcing script's
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TESTENV=$top/testenv/testenv.sh

# bench_csv FILE: the output directory $out (OUT, bench/out by default),
# made, and $csv, FILE in it.
bench_csv() {
	out=${OUT:-$top/bench/out}
	csv=$out/$1
	mkdir -p "$out"
}

# bench_pair NAME: a testenv pair named NAME and this shell's pid, ENV;
# CAPIF its capture end, PEERIF the peer's. The caller tears it down.
bench_pair() {
	ENV=$("$TESTENV" setup --name "$1$$")
	CAPIF=${ENV}0
	PEERIF=${ENV}1
}

# bench_env [stats]: a testenv pair (ENV) and a tmpfs directory (SHM), both
# gone at exit. With stats, kernel.bpf_stats_enabled is on (prog_ns reads
# what it counts) until then, and is put back.
bench_env() {
	ENV=$("$TESTENV" setup)
	SHM=$(mktemp -d /dev/shm/pktsample-bench.XXXXXX)
	if [ "${1:-}" = stats ]; then
		bpf_stats=$(sysctl -n kernel.bpf_stats_enabled)
		trap '"$TESTENV" teardown "$ENV"; rm -rf "$SHM"; sysctl -q -w kernel.bpf_stats_enabled="$bpf_stats"' EXIT
		sysctl -q -w kernel.bpf_stats_enabled=1
	else
		trap '"$TESTENV" teardown "$ENV"; rm -rf "$SHM"' EXIT
	fi
}

in_cap() { "$TESTENV" exec "$ENV" cap -- "$@"; }
in_peer() { "$TESTENV" exec "$ENV" peer -- "$@"; }

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
