#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Every C file of the tree as .clang-format says: clang-format changes
# nothing. The tree's files only (git ls-files), so a build tree is not read.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
if ! command -v clang-format >/dev/null || ! command -v git >/dev/null ||
   ! git -C "$top" rev-parse >/dev/null 2>&1; then
	[ -n "${CI:-}" ] && { echo "FAIL: format needs clang-format, git and the tree's git" >&2; exit 1; }
	echo "skipped: format needs clang-format, git and the tree's git" >&2
	exit 77
fi
cd "$top"
mapfile -t files < <(git ls-files '*.c' '*.h')
out=$(clang-format --dry-run --Werror "${files[@]}" 2>&1)
if [ -n "$out" ]; then
	echo "$out" | grep -E "(warning|error):" | cut -d: -f1 | sort -u | sed 's/^/not formatted: /'
	echo "FAIL: clang-format -i \$(git ls-files '*.c' '*.h') formats them"
	exit 1
fi
echo "ok: ${#files[@]} files as .clang-format says"
