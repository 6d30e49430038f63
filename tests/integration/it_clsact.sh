#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The clsact fallback (--tc-mode clsact, what older kernels without tcx get):
# captures like tcx, and on exit removes exactly what it added: its own
# filters always, the clsact qdisc only if it created it and nothing else
# is on it, whichever of several users leaves first.
source "$(dirname "$0")/lib.sh"

env_up
qdiscs() { in_cap tc qdisc show dev "$CAPIF" | grep -c clsact || true; }
filters() { in_cap tc filter show dev "$CAPIF" "$1" | grep -c "$2" || true; }

# No qdisc before: ours comes and goes.
assert_eq 0 "$(qdiscs)" "no clsact qdisc to begin with"
start_capture -i "$CAPIF" --hook tc-ingress,tc-egress --tc-mode clsact -v -w "$WORK/a.pcapng"
assert_match "tc-ingress: attached to $CAPIF \(clsact pref [0-9]+, alone there\)" "$(cat "$WORK/ps.err")" "attached through clsact"
assert_eq 1 "$(qdiscs)" "clsact qdisc added"
assert_eq "1 1" "$(filters ingress pktsample_tc_in) $(filters egress pktsample_tc_eg)" "our filters in place"
in_cap ping -q -c 2 -i 0.2 192.0.2.2 >/dev/null
stop_capture INT
assert_eq 0 "$PS_RC" "clsact capture exits 0"
assert_eq 2 "$(count "$WORK/a.pcapng" 'frame.interface_description == "tc egress" && icmp.type == 8')" "tc egress captured through clsact"
assert_eq 2 "$(count "$WORK/a.pcapng" 'frame.interface_description == "tc ingress" && icmp.type == 0')" "tc ingress captured through clsact"
assert_eq 0 "$(qdiscs)" "the qdisc we created is gone"
assert_nothing_attached

# A qdisc and a filter of someone else's: both survive us.
in_cap tc qdisc add dev "$CAPIF" clsact
in_cap tc filter add dev "$CAPIF" ingress pref 7 protocol all u32 match u32 0 0 flowid 1:1
start_capture -i "$CAPIF" --hook tc-ingress,tc-egress --tc-mode clsact -w "$WORK/b.pcapng"
assert_eq 1 "$(filters ingress pktsample_tc_in)" "our filter added beside theirs"
stop_capture TERM
assert_eq 0 "$PS_RC" "clsact capture exits 0 on SIGTERM"
assert_eq 1 "$(qdiscs)" "their qdisc is still there"
assert_eq 1 "$(filters ingress 'pref 7 u32.*flowid 1:1')" "their filter is still there"
assert_eq "0 0" "$(filters ingress pktsample) $(filters egress pktsample)" "our filters are gone"

# Two clsact captures and someone else's filter on one interface: the
# first (the qdisc's creator) leaves first; the second goes on capturing,
# the foreign filter survives, and the qdisc stays while anything is on it.
in_cap tc qdisc del dev "$CAPIF" clsact
# (Their filter matches nothing here: a classifier that matches ends the
# ingress chain, and no filter after it would see the packet.)
start_capture -i "$CAPIF" --hook tc-ingress,tc-egress --tc-mode clsact -v -w "$WORK/first.pcapng"
first=$PS_PID
in_cap tc filter add dev "$CAPIF" ingress pref 7 protocol ip u32 match ip dport 4242 0xffff flowid 1:1
start_capture -i "$CAPIF" --hook tc-ingress,tc-egress --tc-mode clsact -w "$WORK/second.pcapng"
second=$PS_PID
PS_PID=$first
stop_capture INT
assert_eq 0 "$PS_RC" "the qdisc's creator leaves first: exit 0"
assert_match "leaving the clsact qdisc we created: other filters are on it" "$(cat "$WORK/ps.err")" \
	"it says why it leaves the qdisc"
in_cap ping -q -c 3 -i 0.2 192.0.2.2 >/dev/null
PS_PID=$second
stop_capture INT
assert_eq 0 "$PS_RC" "the second capture exits 0"
assert_eq 3 "$(count "$WORK/second.pcapng" 'frame.interface_description == "tc egress" && icmp.type == 8')" \
	"the second capture kept capturing after the first left"
assert_eq 3 "$(count "$WORK/second.pcapng" 'frame.interface_description == "tc ingress" && icmp.type == 0')" \
	"on both of its hooks"
assert_eq 1 "$(filters ingress 'flowid 1:1')" "the foreign filter survived both"
assert_eq 1 "$(qdiscs)" "the qdisc stays: the foreign filter is on it"
assert_nothing_attached
