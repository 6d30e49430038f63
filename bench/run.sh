#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Build and run pktsample's benchmarks; tables on stdout, CSV in bench/out/.
# Needs root (BPF_PROG_TEST_RUN). Usage: bench/run.sh [BUILD_DIR]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
mkdir -p "$top/bench/out"
cmake -S "$top" -B "$build" >/dev/null
cmake --build "$build" --target bench_datapath_cost -j2 >/dev/null

echo "## Datapath cost per packet (BPF_PROG_TEST_RUN, 64-byte frames, no perf reader)"
echo
"$build/bench_datapath_cost" -o "$top/bench/out/datapath_cost.csv"
echo
echo "CSV: bench/out/datapath_cost.csv"
