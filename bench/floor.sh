#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The floor under a capture's CPU (issue 43): what the cheapest capture
# pktsample can make costs against tcpdump's on the same flood. Builds a
# copy of this tree whose pcapng writer leaves every packet block bare
# (bench/floor-bare-blocks.patch: no option at all, 96 bytes for a 64-byte
# frame against the 80 of tcpdump's pcap record; not a product, a
# measurement), then floods N 64-byte frames (bench/e2e.sh) past:
#   tcpdump                      -B 4096, as e2e.sh runs it
#   pktsample                    the defaults
#   pktsample-noctx-B8192        the leanest real configuration: no owners,
#                                4 MiB of perf buffers a CPU on 2 CPUs
#   pktsample-base-noctx-B8192   the bare copy in that configuration
# each also @null and @idle, so that the summary splits every one's CPU
# into start-up, reading per packet and the file's write per packet.
#
# Usage: bench/floor.sh [BUILD_DIR]
#   env: ROUNDS=5 N=1000000 OUT=bench/out
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
work=$(mktemp -d /tmp/pktsample-floor.XXXXXX)
trap 'rm -rf "$work"' EXIT

# The working tree as it is (uncommitted changes too), then the patch.
rev=$(git -C "$top" stash create)
git -C "$top" archive "${rev:-HEAD}" | tar -x -C "$work"
if ! patch -s -d "$work" -p1 <"$top/bench/floor-bare-blocks.patch"; then
	echo "bench: bench/floor-bare-blocks.patch no longer applies to user/capfile/pcapng.c" >&2
	exit 1
fi
echo "bench: building the bare copy in $work" >&2
cmake -S "$work" -B "$work/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$work/build" -j"$(nproc)" --target pktsample >/dev/null
# Its files still read: every frame of a pcap copied through the bare writer.
"$work/build/pktsample" -r "$top/tests/print/frames.pcap" -w "$work/bare.pcapng" 2>/dev/null
want=$(capinfos -Mc "$top/tests/print/frames.pcap" | awk '/Number of packets/ {print $NF}')
got=$(capinfos -Mc "$work/bare.pcapng" | awk '/Number of packets/ {print $NF}')
if [ "$got" != "$want" ]; then
	echo "bench: the bare copy wrote $got packets of $want" >&2
	exit 1
fi

c=
for k in tcpdump pktsample pktsample-noctx-B8192 pktsample-base-noctx-B8192; do
	c+="$k $k@null $k@idle "
done
ROUNDS=${ROUNDS:-5} N=${N:-1000000} SIZES=64 BASE_PKTSAMPLE=$work/build/pktsample \
	CONTENDERS=$c OUT=${OUT:-$top/bench/out/floor} "$top/bench/e2e.sh" "$build"
