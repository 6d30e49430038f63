#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Interfaces that disappear or go down mid-capture: one line each; the
# capture goes on on the others and ends with exit 1 when none remain; the
# file stays valid, with a statistics block for what the interface had.
source "$(dirname "$0")/lib.sh"

env_up
EXTRA=${ENV}x # a second veth pair, both ends in the capture namespace
in_cap ip link add "$EXTRA" type veth peer name "${EXTRA}p"
in_cap ip link set "$EXTRA" up
in_cap ip link set "${EXTRA}p" up

# The only interface deleted: exit 1 within a second, file valid.
start_capture -i "$CAPIF" --hook xdp,tc-ingress,tc-egress -w "$WORK/one.pcapng"
in_cap ping -q -c 2 -i 0.2 192.0.2.2 >/dev/null
t0=$(now_ns)
in_cap ip link del "$CAPIF"
wait_capture
elapsed=$(ms_since "$t0")
[ "$elapsed" -lt "$(scaled 1000)" ] || fail "the capture took ${elapsed} ms to notice"
ok "the only interface deleted: over in ${elapsed} ms"
assert_eq 1 "$PS_RC" "the only interface deleted: exit 1"
assert_eq "pktsample: interface $CAPIF disappeared" "$(grep "$CAPIF" "$WORK/ps.err" | grep -v -e 'capturing on' -e 'xdp: skb mode on')" \
	"one line says so, and nothing else about it"
tshark_q -r "$WORK/one.pcapng" >/dev/null
assert_eq 2 "$(count "$WORK/one.pcapng" 'icmp.type == 8 && frame.interface_description == "tc egress"')" \
	"what was captured before is in the file"
assert_match "^if=2 ifrecv=[0-9]+ .*usrdeliv=[0-9]+ \| interface disappeared; " \
	"$("$PCAPCHECK" isb "$WORK/one.pcapng" | grep '^if=2')" "its ISB is written, and says why it ended"

# Two interfaces, one deleted: the capture goes on on the other.
start_capture -i lo -i "$EXTRA" --hook xdp,tc-egress -w "$WORK/two.pcapng"
in_cap ip link del "$EXTRA"
sleep 0.3
in_cap ping -q -c 3 -i 0.2 127.0.0.1 >/dev/null
kill -0 "$PS_PID" 2>/dev/null || fail "the capture ended with an interface left"
ok "one of two interfaces deleted: still capturing"
stop_capture INT
assert_eq 0 "$PS_RC" "one of two deleted, then Ctrl-C: exit 0"
assert_match "pktsample: interface $EXTRA disappeared" "$(cat "$WORK/ps.err")" "says which disappeared"
assert_eq 3 "$(count "$WORK/two.pcapng" 'frame.interface_name == "lo" && frame.interface_description == "tc egress" && icmp.type == 8')" \
	"packets after the deletion on the other interface"
assert_eq 4 "$("$PCAPCHECK" isb "$WORK/two.pcapng" | grep -c '^if=')" "an ISB for every interface, gone or not"
assert_nothing_attached lo

# Down at start, or going down: one warning line each, capture goes on.
in_cap ip link add "$EXTRA" type veth peer name "${EXTRA}p"
start_capture -i lo -i "$EXTRA" --hook tc-egress -w "$WORK/down.pcapng"
assert_match "interface $EXTRA is down; capturing anyway" "$(cat "$WORK/ps.err")" "down at start: a warning"
in_cap ip link set "$EXTRA" up
in_cap ip link set lo down
sleep 0.3
in_cap ip link set lo up
sleep 0.3
stop_capture INT
assert_eq 0 "$PS_RC" "an interface going down and up: exit 0"
assert_eq 1 "$(grep -c "interface lo went down; capturing on" "$WORK/ps.err")" "going down: one warning"
assert_eq 1 "$(grep -c "interface lo is up again" "$WORK/ps.err")" "coming back: one line"
assert_nothing_attached lo
assert_nothing_attached "$EXTRA"
