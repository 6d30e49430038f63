#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# VLAN-tagged frames through TC ingress, where the stack has moved the tag
# out of band, must come out as they were on the wire; 9000-byte frames
# (veth MTU 9000, multi-buffer XDP) are captured whole, or cut at -s.
source "$(dirname "$0")/lib.sh"

env_up --mtu 9000
start_capture -i "$CAPIF" --hook xdp,tc-ingress -w "$WORK/cap.pcapng"
in_peer "$PSGEN" -i "$PEERIF" -n 50 -s 1000 --vlan 100 --rate 20000 -w "$WORK/vlan.pcap" >/dev/null
in_peer "$PSGEN" -i "$PEERIF" -n 20 -s 9000 --rate 20000 -w "$WORK/jumbo.pcap" >/dev/null
in_peer "$PSGEN" -i "$PEERIF" -n 5 -s 9000 --vlan 7 -6 --rate 20000 -w "$WORK/jumbovlan.pcap" >/dev/null
sleep 0.3
stop_capture TERM
assert_eq 0 "$PS_RC" "pktsample exits 0 on SIGTERM"
assert_nothing_attached
cap=$WORK/cap.pcapng

for d in "tc ingress" "xdp ingress"; do
	sel="frame.interface_description == \"$d\""
	extract "$cap" "$sel && vlan.id == 100" "$WORK/h.pcap"
	assert_eq "50 frames identical" "$("$PCAPCHECK" same "$WORK/vlan.pcap" "$WORK/h.pcap")" \
		"$d: VLAN 100 frames as on the wire, tag included"
	extract "$cap" "$sel && !vlan && $GEN" "$WORK/h.pcap"
	assert_eq "20 frames identical" "$("$PCAPCHECK" same "$WORK/jumbo.pcap" "$WORK/h.pcap")" \
		"$d: 9000-byte frames whole"
	extract "$cap" "$sel && vlan.id == 7" "$WORK/h.pcap"
	assert_eq "5 frames identical" "$("$PCAPCHECK" same "$WORK/jumbovlan.pcap" "$WORK/h.pcap")" \
		"$d: 9000-byte VLAN-tagged IPv6 frames whole, tag included"
done

# The same jumbo frames with a snap length of 128.
start_capture -i "$CAPIF" --hook xdp,tc-ingress -s 128 -w "$WORK/snap.pcapng"
in_peer "$PSGEN" -i "$PEERIF" -n 10 -s 9000 --rate 20000 >/dev/null
in_peer "$PSGEN" -i "$PEERIF" -n 10 -s 9000 --vlan 5 --rate 20000 >/dev/null
sleep 0.3
stop_capture INT
assert_eq 0 "$PS_RC" "snaplen capture exits 0"
for d in "tc ingress" "xdp ingress"; do
	got=$(fields "$WORK/snap.pcapng" "frame.interface_description == \"$d\" && $GEN" \
		frame.cap_len frame.len | sort | uniq -c | sed 's/^ *//')
	assert_eq "20 128|9000" "$got" "$d: 9000-byte frames cut to 128 bytes, length kept"
done
snap=$(capinfos -M "$WORK/snap.pcapng" 2>/dev/null | grep -c 'Capture length = 128' || true)
assert_eq 2 "$snap" "each IDB records the snap length"
assert_nothing_attached
