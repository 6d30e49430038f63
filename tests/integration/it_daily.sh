#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# tcpdump habits: -D lists interfaces, -Q picks a direction, captures are
# promiscuous unless -p (and stop being so however pktsample ends), lo
# shows each packet once, and 'inbound'/'outbound' point to -Q.
source "$(dirname "$0")/lib.sh"

env_up
gen() { in_peer "$PSGEN" -i "$PEERIF" --rate 20000 "$@" >/dev/null; }
promiscuity() { in_cap ip -d link show dev "$CAPIF" | sed -n 's/.* promiscuity \([0-9]*\) .*/\1/p'; }

# -D: the test veth, with its driver, link type, default ingress hook and
# why, and how the hooks would attach (tcx from 6.6, and before that a
# line of its own after the interfaces says why not).
list=$(in_cap "$PKTSAMPLE" -D)
tc="tc tcx"
if ! kernel_has_tcx; then
	tc="tc clsact"
	assert_match "^kernel: no tcx \(Linux 6\.6 has it\): TC hooks attach as filters of a clsact qdisc" \
		"$(grep '^kernel: no tcx' <<<"$list")" "-D says why not tcx, once"
fi
assert_eq "" "$(grep -v -E '^[0-9]+\.|^kernel: ' <<<"$list")" \
	"-D's lines are interfaces, then what the kernel lacks"
assert_match "[0-9]+\.$CAPIF \[Up, Running\] driver veth, link EN10MB, ingress tc-ingress \(native XDP on veth turns off the peer's TSO, generic XDP bypasses GRO\), xdp skb, $tc" \
	"$list" "-D lists the veth"
assert_match "1\.lo \[Up, Running, Loopback\] driver unknown, link EN10MB, ingress none \(every packet on lo passes tc-egress, once\), xdp skb, $tc" \
	"$list" "-D lists lo"

# -Q in: the ingress hook only; -Q out: tc egress only.
for dir in in out; do
	start_capture -i "$CAPIF" -Q "$dir" -w "$WORK/q-$dir.pcapng"
	in_cap ping -q -c 3 -i 0.2 192.0.2.2 >/dev/null
	stop_capture INT
	assert_eq 0 "$PS_RC" "-Q $dir: exit 0"
	descr=$(fields "$WORK/q-$dir.pcapng" icmp frame.interface_description | sort -u)
	want=$([ "$dir" = in ] && echo "tc ingress" || echo "tc egress")
	assert_eq "$want" "$descr" "-Q $dir: only $want"
	assert_eq 3 "$(count "$WORK/q-$dir.pcapng" icmp)" "-Q $dir: each ping once"
done
rc=0
in_cap "$PKTSAMPLE" -i "$CAPIF" -Q in --hook xdp -w "$WORK/never.pcapng" 2>"$WORK/err" || rc=$?
assert_eq "2 1" "$rc $(grep -c . "$WORK/err")" "-Q with --hook: exit 2, one line"

# Promiscuous while capturing, not before, not after, not with -p, and
# not after SIGKILL either (the membership goes with the socket). A veth
# has no MAC filter to open, so the counter is what can be checked here.
assert_eq 0 "$(promiscuity)" "not promiscuous before"
start_capture -i "$CAPIF" -w "$WORK/p.pcapng"
assert_eq 1 "$(promiscuity)" "promiscuous while capturing"
stop_capture INT
assert_eq 0 "$(promiscuity)" "not promiscuous after exit"
start_capture -i "$CAPIF" -p -w "$WORK/p.pcapng"
assert_eq 0 "$(promiscuity)" "-p: left alone"
stop_capture INT
start_capture -i "$CAPIF" -w "$WORK/p.pcapng"
assert_eq 1 "$(promiscuity)" "promiscuous again"
stop_capture KILL
assert_eq 0 "$(promiscuity)" "not promiscuous after SIGKILL"
assert_nothing_attached

# lo by default: each packet once (both default hooks see every packet).
start_capture -i lo -w "$WORK/lo.pcapng"
assert_match "capturing on lo \(tc-egress\)" "$(cat "$WORK/ps.err")" "lo: one hook, and it says which"
in_cap ping -q -c 10 -i 0.1 127.0.0.1 >/dev/null
stop_capture INT
assert_eq 10 "$(count "$WORK/lo.pcapng" 'icmp.type == 8')" "lo: 10 pings, 10 echo requests"
start_capture -i lo --hook xdp,tc-egress -w "$WORK/lo2.pcapng"
in_cap ping -q -c 10 -i 0.1 127.0.0.1 >/dev/null
stop_capture INT
assert_eq 20 "$(count "$WORK/lo2.pcapng" 'icmp.type == 8')" "lo with --hook: each hook as asked"
assert_nothing_attached lo

# -i any: every interface that is up, lo only when named; one line says which.
start_capture -i any -w "$WORK/any.pcapng"
for _ in $(seq 50); do grep -q -- '-i any: capturing' "$WORK/ps.err" && break; sleep 0.1; done
assert_match "pktsample: -i any: capturing on $CAPIF$" "$(grep -- '-i any' "$WORK/ps.err")" "-i any: says which"
# Ready means ready, as tcpdump's "listening on": the summary comes after
# every interface's own line, which comes once all is attached.
assert_match "pktsample: -i any: capturing on $CAPIF$" "$(grep 'capturing on' "$WORK/ps.err" | tail -n 1)" \
	"-i any: its line comes last, after the attach"
in_cap ping -q -c 2 -i 0.2 192.0.2.2 >/dev/null
in_cap ping -q -c 2 -i 0.2 127.0.0.1 >/dev/null
stop_capture INT
assert_eq 2 "$(count "$WORK/any.pcapng" "frame.interface_name == \"$CAPIF\" && icmp.type == 8")" "-i any: the veth captured"
assert_eq 0 "$(count "$WORK/any.pcapng" 'frame.interface_name == "lo"')" "-i any: lo left out"
start_capture -i any -i lo -w "$WORK/any-lo.pcapng"
in_cap ping -q -c 2 -i 0.2 127.0.0.1 >/dev/null
stop_capture INT
assert_eq 2 "$(count "$WORK/any-lo.pcapng" 'frame.interface_name == "lo" && icmp.type == 8')" "-i any -i lo: lo too"
assert_nothing_attached
assert_nothing_attached lo

# inbound/outbound: refused, pointing to -Q.
rc=0
in_cap "$PKTSAMPLE" -i "$CAPIF" -w "$WORK/never.pcapng" inbound and icmp 2>"$WORK/err" || rc=$?
assert_eq "2 1" "$rc $(grep -c . "$WORK/err")" "'inbound': exit 2, one line"
assert_match "choose the direction with -Q in or -Q out" "$(cat "$WORK/err")" "'inbound': names -Q"
[ ! -e "$WORK/never.pcapng" ] || fail "a refused filter left a file"
ok "a refused filter makes no file"
