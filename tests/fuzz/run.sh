#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Build every libFuzzer target (clang, ASan + fatal UBSan) and run each for
# SECONDS from its seed corpus (tests/fuzz/corpus/NAME). One line per
# target: "NAME: N runs, 0 crashes", or the crash and where its input is.
# Exit status: 0 with no crash, 1 with any, 2 for a usage or build error.
#   tests/fuzz/run.sh SECONDS [TARGET...]     BUILD_DIR=build-fuzz by default
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
if [ $# -lt 1 ] || ! [[ $1 =~ ^[0-9]+$ ]] || [ "$1" -lt 1 ]; then
	echo "usage: tests/fuzz/run.sh SECONDS [TARGET...]" >&2
	exit 2
fi
seconds=$1
shift
targets=${*:-cli split decode xlate pcapng read perfbuf context ctrnames dropnames linkwatch config webcfg corebtf top}
build=$(realpath -m "${BUILD_DIR:-$top/build-fuzz}") # absolute: the targets run elsewhere
work=$build/fuzz-work
mkdir -p "$build"

if ! cmake -S "$top" -B "$build" -DCMAKE_C_COMPILER=clang -DPKTSAMPLE_FUZZ=ON \
	-DPKTSAMPLE_WERROR=OFF -DBUILD_TESTING=OFF >"$build/fuzz-build.log" 2>&1 ||
   ! cmake --build "$build" -j"$(nproc)" $(printf -- "--target fuzz_%s " $targets) \
	>>"$build/fuzz-build.log" 2>&1; then
	echo "fuzz: build failed; see $build/fuzz-build.log" >&2
	tail -20 "$build/fuzz-build.log" >&2
	exit 2
fi

crashed=0
for t in $targets; do
	corpus=$work/$t
	mkdir -p "$corpus" "$work/crashes-$t"
	log=$work/$t.log
	rc=0
	# The working corpus grows in the build tree; the seeds stay as they are.
	(cd "$work/crashes-$t" && "$build/tests/fuzz/fuzz_$t" -max_total_time="$seconds" \
		-print_final_stats=1 -rss_limit_mb=2048 -timeout=10 "$corpus" \
		"$top/tests/fuzz/corpus/$t") >"$log" 2>&1 || rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	if [ $rc -ne 0 ]; then
		crashed=1
		what=$(grep -m1 -E "ERROR: |runtime error|ebpf_run:|==ERROR|deadly signal" "$log" || true)
		input=$(ls -t "$work/crashes-$t" 2>/dev/null | head -1)
		echo "$t: crash after ${runs:-?} runs: ${what:-exit $rc} (input: $work/crashes-$t/$input, log: $log)"
	else
		echo "$t: ${runs:-0} runs, 0 crashes"
	fi
done
exit $crashed
