#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Build and run pktsample's benchmarks; markdown tables on stdout, CSV in
# bench/out/. Needs root (BPF_PROG_TEST_RUN, namespaces) and tcpdump
# (.ci/deps.sh installs it). ROUNDS=N sets the end-to-end rounds (default 3).
#   bench/run.sh [BUILD_DIR]          everything (the end-to-end part takes minutes)
#   QUICK=1 bench/run.sh              skip the end-to-end part
# Numbers from one machine are comparable only within one run: each part
# interleaves its contenders and reports medians and min-max.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
mkdir -p "$top/bench/out"
cmake -S "$top" -B "$build" >/dev/null
cmake --build "$build" --target pktsample psgen bench_datapath_cost bench_writer_throughput bench_runstat bench_readers \
	-j2 >/dev/null

echo "## 1. Datapath cost per packet (BPF_PROG_TEST_RUN on CPU 0, a reader draining on CPU 1)"
echo
"$build/bench_datapath_cost" -o "$top/bench/out/datapath_cost.csv"
echo
echo "## 2. Ingest + pcapng writer, one core, synthetic samples to tmpfs"
echo
"$build/bench_writer_throughput" /dev/shm/pktsample-bench-writer.pcapng \
	"$top/bench/out/writer_throughput.csv"
echo
"$top/bench/print.sh" "$build"
echo
echo "## 3. Reader threads, 16 simulated CPUs (perf buffers or BPF rings in memory)"
echo
for ring in "" -r; do
	for size in 64 1500; do
		# shellcheck disable=SC2086 # "" or -r
		"$build/bench_readers" $ring -c 16 -n 30000 -s "$size" -t 4 -o "$top/bench/out/readers.csv"
		echo
	done
done
if [ -z "${QUICK:-}" ]; then
	"$top/bench/e2e.sh" "$build"
	echo
	echo "## Bulk TCP at byte rates"
	echo
	"$top/bench/bulk.sh" "$build"
	echo
	echo "## Whom packets belong to, at TC egress"
	echo
	"$top/bench/context.sh" "$build"
	echo
	echo "## The drop hook under a drop flood"
	echo
	"$top/bench/drops.sh" "$build"
	echo
	echo "## The flight recorder under a flood"
	echo
	"$top/bench/flight.sh" "$build"
fi
