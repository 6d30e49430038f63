#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The unit layer again, built with -DPKTSAMPLE_TSAN=ON (ThreadSanitizer) in
# BUILD_DIR-tsan next to the normal build: the ingest's reader threads
# (test_reader: 1, 2 and 4 readers, and a reader's failure crossing to
# the merge), the metrics server's thread. Any report fails the test.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$top/build}-tsan
cmake -S "$top" -B "$build" -DPKTSAMPLE_TSAN=ON >/dev/null
cmake --build "$build" -j"$(nproc)" >/dev/null
# A report is an error (exit 66), never a warning that passes.
export TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1"
ctest --test-dir "$build" -L unit --output-on-failure
