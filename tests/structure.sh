#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The tree's shape, as doc/design.md promises it: main.c at most 300 lines,
# no user source over 900, no function over 80. A function's body is what
# lies between a '{' and a '}' at the start of a line (.clang-format's
# style).
set -euo pipefail
cd "$(dirname "$0")/.."
fail=0
say() { echo "FAIL: $*"; fail=1; }
n=$(wc -l <user/app/main.c)
[ "$n" -le 300 ] || say "user/app/main.c has $n lines (at most 300)"
while read -r lines file; do
	[ "$file" = total ] && continue
	[ "$lines" -le 900 ] || say "$file has $lines lines (at most 900)"
done < <(wc -l $(git ls-files 'user/*.c' 'user/*.h'))
long=$(awk '
	/^\{/ { start = FNR; name = prev }
	/^\}/ { if (start && FNR - start + 1 > 80) print FILENAME ":" name ":" FNR - start + 1; start = 0 }
	/^[a-z].*\(/ { p = $0; sub(/\(.*/, "", p); n = split(p, w, /[ *]+/); prev = w[n] }
' $(git ls-files 'user/*.c'))
for f in $long; do
	say "$f: a function over 80 lines"
done
[ "$fail" = 0 ] && echo "ok: main.c, files and functions within their sizes"
exit "$fail"
