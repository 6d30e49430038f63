#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# A reload weighs the hook line by what it means for the interfaces there
# are. Running with "hook tc-ingress,tc-egress" on a veth (its default):
#  - the line removed, a filter added in the same reload: no restart asked,
#    the filter applied (frames to port 9 kept, to 53 not);
#  - the line back, reordered: read again, nothing refused;
#  - another set (tc-ingress alone): a restart named, the running one kept
#    (the filter still applies, and both hooks still capture).
source "$(dirname "$0")/lib.sh"
need_tools tshark

env_up
MAC=$(in_cap cat /sys/class/net/"$CAPIF"/address)
conf=$WORK/cap.conf
cat >"$conf" <<EOF
iface $CAPIF
hook tc-ingress,tc-egress
write $WORK/cap.pcapng
EOF
start_capture --config "$conf"
send() { # PORT: 20 frames to it
	in_peer "$PSGEN" -i "$PEERIF" --src 192.0.2.2 --dst 192.0.2.1 --dst-mac "$MAC" -n 20 \
		--dst-port "$1" >/dev/null
}

sed -i '/^hook /d' "$conf"
echo "filter udp port 9" >>"$conf"
assert_match "configuration read again" "$(reload_capture)" \
	"the hook line removed (the veth's default): no restart asked"
send 9
send 53
sed -i '/^filter /d' "$conf"
echo "hook tc-egress,tc-ingress" >>"$conf"
echo "filter udp port 9" >>"$conf"
assert_match "configuration read again" "$(reload_capture)" "the same hooks reordered: read again"
sed -i 's/^hook .*/hook tc-ingress/' "$conf"
assert_match "changes hook \(or direction\), which needs a restart; keeping the running one" \
	"$(reload_capture)" "another set of hooks: a restart named"
send 9
send 53
sleep 1
stop_capture INT
assert_eq 0 "$PS_RC" "exit 0"
assert_eq 40 "$(count "$WORK/cap.pcapng" "udp.dstport == 9")" \
	"the filter that came with the removed hook line applies: 40 frames to port 9"
assert_eq 0 "$(count "$WORK/cap.pcapng" "udp.dstport == 53")" "and none to port 53"
assert_nothing_attached
