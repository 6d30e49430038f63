# SPDX-License-Identifier: GPL-2.0-only
# What the end-to-end benches share (sourced by bench/e2e.sh, bench/bulk.sh).

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
