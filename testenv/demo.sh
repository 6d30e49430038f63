#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The built-in demo: a veth pair between two namespaces, pktsample on one
# end at all three hooks, some ping and generator traffic (plain, VLAN-tagged,
# IPv6), then a summary of the capture as Wireshark's tools read it.
#
# Usage: testenv/demo.sh [OUT.pcapng]   (default: ./demo.pcapng; needs a build)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
out=$(realpath -m "${1:-demo.pcapng}")
build=${BUILD_DIR:-$top/build}
testenv=$top/testenv/testenv.sh
for b in pktsample psgen; do
	[ -x "$build/$b" ] || { echo "demo: $build/$b missing: build first (see README)" >&2; exit 1; }
done

env=$("$testenv" setup)
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	"$testenv" teardown "$env"
}
trap cleanup EXIT

echo "== testenv $env: ${env}0 (192.0.2.1, 2001:db8::1) <-> ${env}1 (192.0.2.2, 2001:db8::2)"
err=$(mktemp)
"$testenv" exec "$env" cap -- "$build/pktsample" -i "${env}0" \
	--hook xdp,tc-ingress,tc-egress -w "$out" 2>"$err" &
pid=$!
until grep -q "capturing on" "$err"; do
	kill -0 "$pid" 2>/dev/null || { cat "$err" >&2; exit 1; }
	sleep 0.1
done
cat "$err"

echo "== traffic: 3 pings (IPv4 and IPv6), 10000 UDP frames, 100 VLAN 42 frames, 100 IPv6 TCP frames"
"$testenv" ping "$env" 3 >/dev/null
"$testenv" ping "$env" -6 3 >/dev/null
"$testenv" exec "$env" peer -- "$build/psgen" -i "${env}1" -n 10000 -s 128 --flows 8 --rate 200000
"$testenv" exec "$env" peer -- "$build/psgen" -i "${env}1" -n 100 -s 256 --vlan 42 --rate 100000
"$testenv" exec "$env" peer -- "$build/psgen" -i "${env}1" -n 100 -s 256 -6 --tcp --rate 100000
sleep 0.3
kill -INT "$pid"
wait "$pid"
pid=
tail -n 3 "$err"
rm -f "$err"

echo
echo "== $out, as capinfos sees it"
capinfos -M "$out" 2>/dev/null | grep -E "Number of packets|Capture application|Number of interfaces|Name =|Description ="
echo
echo "== packets per interface and hook (tshark)"
tshark -r "$out" -T fields -e frame.interface_name -e frame.interface_description 2>/dev/null |
	sort | uniq -c
echo
echo "== the first packets, with their annotations"
tshark -r "$out" -c 8 -T fields -E header=y -e frame.interface_description \
	-e frame.packet_flags_direction -e frame.interface_queue -e frame.packet_id \
	-e frame.drop_count -e frame.comment -e _ws.col.Info 2>/dev/null |
	column -t -s $'\t'
echo
echo "Open it in Wireshark: wireshark $out"
