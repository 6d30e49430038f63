#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# ctest's fuzz layer: tests/fuzz/run.sh for 10 s a target. Needs clang
# with libFuzzer: skipped without it, a failure in CI.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v clang >/dev/null || ! echo 'int LLVMFuzzerTestOneInput(const char *d, long n) { return 0; }' |
	clang -x c -fsanitize=fuzzer -o /dev/null - 2>/dev/null; then
	if [ -n "${CI:-}" ]; then
		echo "FAIL: fuzz_smoke needs clang with libFuzzer, and CI skips nothing" >&2
		exit 1
	fi
	echo "skipped: fuzz_smoke needs clang with libFuzzer" >&2
	exit 77
fi
exec "$here/run.sh" "${FUZZ_SECONDS:-10}"
