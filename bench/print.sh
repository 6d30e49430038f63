#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The printer's cost next to tcpdump's: the same pcap of N frames (TCP with
# timestamps and payload, UDP, ICMP echo, IPv6 TCP, ARP; relative sequence
# numbers over 1000 connections) printed by `tcpdump -n -r` and by
# `pktsample -r`, to /dev/null, plain and with -e -x. Interleaved rounds,
# median seconds and packets/s. Markdown on stdout, CSV in bench/out/.
#   bench/print.sh [BUILD_DIR]        N=1000000 ROUNDS=3 by default
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
N=${N:-1000000}
ROUNDS=${ROUNDS:-3}
file=/dev/shm/pktsample-bench-print.pcap
csv=$top/bench/out/print.csv
mkdir -p "$top/bench/out"
trap 'rm -f "$file"' EXIT

python3 - "$file" "$N" <<'EOF'
import struct, sys
path, n = sys.argv[1], int(sys.argv[2])
mac = bytes.fromhex("0200000000aa0200000000bb")
def ip4(proto, payload, src=b"\x0a\x00\x00\x01", dst=b"\x0a\x00\x00\x02"):
    return struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), 1, 0x4000, 64, proto, 0,
                       src, dst) + payload
def tcp(sport, dport, seq, ack, flags, data):
    opts = b"\x01\x01\x08\x0a" + struct.pack("!II", seq, ack)
    return struct.pack("!HHIIBBHHH", sport, dport, seq, ack, (20 + len(opts)) // 4 << 4, flags,
                       501, 0, 0) + opts + data
frames = []
for c in range(1000):
    frames.append(mac + b"\x08\x00" + ip4(6, tcp(40000 + c, 443, 1000, 5000, 0x10, b"")))
    frames.append(mac + b"\x08\x00" + ip4(6, tcp(443, 40000 + c, 5000, 1000, 0x18, b"x" * 200)))
frames.append(mac + b"\x08\x00" + ip4(17, struct.pack("!HHHH", 5000, 6000, 40, 0) + b"u" * 32))
frames.append(mac + b"\x08\x00" + ip4(1, struct.pack("!BBHHH", 8, 0, 0, 1, 1) + b"p" * 56))
frames.append(mac + b"\x86\xdd" + struct.pack("!IHBB", 0x60000000, 32, 6, 64) + b"\x20\x01" +
              b"\x00" * 13 + b"\x01" + b"\x20\x01" + b"\x00" * 13 + b"\x02" +
              tcp(1234, 443, 9, 9, 0x10, b""))
frames.append(mac + b"\x08\x06" + bytes.fromhex("0001080006040001") + mac[6:] +
              b"\x0a\x00\x00\x01" + b"\x00" * 6 + b"\x0a\x00\x00\x02")
with open(path, "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    for i in range(n):
        fr = frames[i % len(frames)]
        f.write(struct.pack("<IIII", 1700000000 + i // 1000000, i % 1000000, len(fr), len(fr)))
        f.write(fr)
EOF

# The two printers must agree before their speed means anything.
if [ "$(tcpdump -n -r "$file" 2>/dev/null | md5sum)" != "$("$build/pktsample" -r "$file" | md5sum)" ]; then
	echo "pktsample -r and tcpdump -n -r print different text for $file" >&2
	exit 1
fi

# median of the seconds a command takes, over ROUNDS interleaved runs
declare -A times
run() { # NAME CMD...
	local name=$1 t0 t1; shift
	t0=$(date +%s%N)
	"$@" >/dev/null 2>&1
	t1=$(date +%s%N)
	times[$name]+="$(((t1 - t0) / 1000000)) "
}
for _ in $(seq "$ROUNDS"); do
	run tcpdump tcpdump -n -r "$file"
	run pktsample "$build/pktsample" -r "$file"
	run "tcpdump -e -x" tcpdump -n -e -x -r "$file"
	run "pktsample -e -x" "$build/pktsample" -e -x -r "$file"
done
median() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

echo "## Printing $N packets to /dev/null (-r, median of $ROUNDS)"
echo
echo "| printer | seconds | packets/s |"
echo "|---|---:|---:|"
echo "printer,ms,pps" >"$csv"
for name in tcpdump pktsample "tcpdump -e -x" "pktsample -e -x"; do
	ms=$(echo "${times[$name]}" | median)
	pps=$((N * 1000 / (ms > 0 ? ms : 1)))
	printf '| %s | %d.%03d | %d |\n' "$name" $((ms / 1000)) $((ms % 1000)) "$pps"
	echo "$name,$ms,$pps" >>"$csv"
done
