#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The docs cannot drift from the program or the tree. One source per fact:
#  - doc/options.md is `pktsample --help`, made by this script (--write);
#  - the man page names every option --help lists, and --help every long
#    option the man page names (but Wireshark's extcap options, which
#    --help keeps to itself);
#  - every path of the tree that README.md and doc/*.md name exists.
#   tests/docs.sh [--write]          PKTSAMPLE: the binary (default build/)
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
bin=${PKTSAMPLE:-$top/build/pktsample}
[ -x "$bin" ] || { echo "docs: $bin missing: build first" >&2; exit 2; }
options=$top/doc/options.md
page=$top/doc/pktsample.8

make_options() {
	printf '# pktsample: every option\n\n'
	printf 'As `pktsample --help` prints it (this file is made from it:\n'
	printf '`tests/docs.sh --write`). `man pktsample` says more about each; the\n'
	printf '[guide](guide.md) says when to use which.\n\n```\n'
	"$bin" --help
	printf '```\n'
}

if [ "${1:-}" = --write ]; then
	make_options >"$options"
	echo "wrote $options"
	exit 0
fi
failed=0
fail() { echo "FAIL: $*"; failed=1; }

if ! diff -u "$options" <(make_options) >/tmp/docs.$$ 2>&1; then
	fail "doc/options.md is not what --help prints (tests/docs.sh --write):"
	head -20 /tmp/docs.$$
fi
rm -f /tmp/docs.$$

help_opts=$("$bin" --help | grep -o -- '--[a-z][a-z-]*' | sort -u)
# In the page's own markup of options (.B, .BR), not in its prose.
man_opts=$(grep -E '^\.(B|BR|BI) ' "$page" | grep -o -- '\\-\\-[a-z][a-z\\-]*' |
	   sed 's/\\-/-/g' | sort -u)
for o in $help_opts; do
	grep -qx -- "$o" <<<"$man_opts" || fail "the man page does not name $o"
done
for o in $man_opts; do
	[[ $o == --extcap* || $o == --capture || $o == --fifo ]] && continue
	grep -qx -- "$o" <<<"$help_opts" || fail "the man page names $o, which --help does not know"
done

# Paths of the tree named in the docs, as `dir/...` in backquotes or links.
for doc in "$top/README.md" "$top"/doc/*.md; do
	for p in $(grep -o -E '(^|[^A-Za-z0-9_/.~-])(user|bpf|xdp|tc|trace|cgroup|perf|include|tests|testenv|bench|doc|packaging|\.ci)/[A-Za-z0-9_./-]*[A-Za-z0-9_]' "$doc" |
		   sed -E 's/^[^A-Za-z.]//' | sort -u); do
		[[ $p == bench/out* ]] && continue # what bench/run.sh writes
		[[ $p == cgroup/sock_create ]] && continue # a hook's name, not a path
		[ -e "$top/$p" ] || [ -e "$(dirname "$doc")/$p" ] ||
			fail "$(basename "$doc") names $p, which is not in the tree"
	done
done
[ $failed -eq 0 ] && echo "ok: options.md is --help, the man page and --help agree, every path named exists"
exit $failed
