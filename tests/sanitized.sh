#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The unit and BPF layers again, built with -DPKTSAMPLE_SANITIZE=ON
# (AddressSanitizer, UndefinedBehaviorSanitizer with every finding fatal)
# in BUILD_DIR-san next to the normal build.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$top/build}-san
cmake -S "$top" -B "$build" -DPKTSAMPLE_SANITIZE=ON >/dev/null
cmake --build "$build" -j"$(nproc)" >/dev/null
# The same skip rules as the normal run (CI fails where a layer cannot run).
ctest --test-dir "$build" -L 'unit|bpf' --output-on-failure
