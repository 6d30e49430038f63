#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The writer's sample file, read by Wireshark's reader (tshark, capinfos)
# and libpcap's: every annotation must come through as written.
PS_NO_ROOT=1
source "$(dirname "$0")/lib.sh"
TEST_PCAPNG=${1:?usage: pcapng_tshark.sh path/to/test_pcapng}
need_tools tshark capinfos

"$TEST_PCAPNG" --write-sample "$WORK/s.pcapng"
got=$(fields "$WORK/s.pcapng" frame frame.interface_name frame.interface_description \
	frame.packet_flags_direction frame.interface_queue frame.packet_id \
	frame.verdict.ebpf_xdp frame.verdict.ebpf_tc frame.drop_count frame.comment \
	frame.len frame.cap_len frame.time_epoch)
expect="veth0|xdp ingress|0x00000001|3|100|2|||hook=xdp cpu=1 queue=3|60|60|1700000000.123456789
veth0|tc egress|0x00000002|3|101||-1||hook=tc-egress cpu=0 queue=3|9000|9000|1700000000.123456790
veth0|xdp ingress|0x00000001|3|102|2||4|hook=xdp cpu=1 queue=3|100|1|1700000000.123456791"
assert_eq "$expect" "$got" "tshark reads every EPB annotation"

info=$(capinfos -M "$WORK/s.pcapng" 2>&1)
assert_match "Number of packets: +3" "$info" "capinfos counts the packets"
assert_match "Number of interfaces in file: 2" "$info" "capinfos sees both interfaces"
assert_match "Capture application: +pktsample test" "$info" "shb_userappl"
assert_match "Capture hardware: +x86_64" "$info" "shb_hardware"
assert_eq 3 "$("$PCAPCHECK" count "$WORK/s.pcapng")" "libpcap reads the packets"
assert_eq "if=0 ifrecv=10 ifdrop=4 usrdeliv=2
if=1 ifrecv=10 ifdrop=4 usrdeliv=2" "$("$PCAPCHECK" isb "$WORK/s.pcapng")" "ISB counters"
