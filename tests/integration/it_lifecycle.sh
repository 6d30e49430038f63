#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# How a capture starts and ends: -c, --duration, signals (one, two, KILL),
# pcapng on stdout, several interfaces, XDP through a BPF link or libxdp,
# and a second instance that must fail without disturbing the first.
source "$(dirname "$0")/lib.sh"

env_up
gen() { in_peer "$PSGEN" -i "$PEERIF" --rate 20000 "$@" >/dev/null; }

# -c: stops by itself after N packets, file complete.
start_capture -i "$CAPIF" --hook xdp -c 10 -w "$WORK/c.pcapng"
gen -n 100
wait_capture
assert_eq 0 "$PS_RC" "-c 10 exits 0 by itself"
assert_eq 10 "$("$PCAPCHECK" count "$WORK/c.pcapng")" "-c 10 writes exactly 10 packets"
assert_match "^if=0 ifrecv=[0-9]+ ifdrop=0 usrdeliv=10 \| .*" "$("$PCAPCHECK" isb "$WORK/c.pcapng")" \
	"-c 10: ISB says 10 written"
assert_nothing_attached

# --xdp-mode skb: generic XDP, and the IDB says how it was attached.
start_capture -i "$CAPIF" --hook xdp --xdp-mode skb -v -c 5 -w "$WORK/skb.pcapng" "udp port 9 or tcp port 9"
gen -n 5
wait_capture
assert_eq 0 "$PS_RC" "--xdp-mode skb capture exits 0"
assert_match "xdp: attached to $CAPIF \(skb mode, BPF link\)" "$(cat "$WORK/ps.err")" "attached in skb mode, through a link"
assert_match "Comment = pktsample xdp hook, attached via skb" "$(capinfos -M "$WORK/skb.pcapng")" \
	"the IDB comment records the attach mode"
assert_eq 5 "$(count "$WORK/skb.pcapng" "$GEN")" "skb-mode XDP captures"
assert_nothing_attached

# --xdp-mode auto (the default) picks skb mode on veth, where it measured
# cheaper, with the program that has no multi-buffer support (for one that
# has, the generic hook copies every skb); --xdp-mode native still gets
# native, and the multi-buffer program. Each says once what it costs.
for mode in auto native; do
	start_capture -i "$CAPIF" --hook xdp --xdp-mode "$mode" -v -c 3 -w "$WORK/$mode.pcapng" "udp port 9"
	linkinfo=$("$TESTENV" exec "$ENV" cap -- ip -d link show dev "$CAPIF")
	id=$(sed -n 's/.*prog\/xdp id \([0-9]*\).*/\1/p' <<<"$linkinfo" | head -1)
	proginfo=$(bpftool prog show id "${id:-0}" 2>&1 || true)
	gen -n 3
	wait_capture
	assert_eq 0 "$PS_RC" "--xdp-mode $mode capture exits 0"
	assert_eq 3 "$(count "$WORK/$mode.pcapng" "$GEN")" "--xdp-mode $mode captures"
	if [ "$mode" = auto ]; then
		assert_match "xdp: attached to $CAPIF \(skb mode, BPF link\)" "$(cat "$WORK/ps.err")" "auto on veth: skb mode"
		assert_match "xdpgeneric" "$linkinfo" "auto on veth: the link shows generic XDP"
		assert_match "name pktsample_xdp_s" "$proginfo" \
			"auto on veth: the program without multi-buffer support"
		assert_match "xdp: skb mode on $CAPIF bypasses GRO there" "$(cat "$WORK/ps.err")" \
			"skb mode: the warning says what it costs"
	else
		assert_match "xdp: attached to $CAPIF \(native mode, BPF link(, VLAN tags from the driver)?\)" \
			"$(cat "$WORK/ps.err")" "native asked: native mode"
		assert_match " xdp qdisc" "$linkinfo" "native asked: the link shows driver XDP"
		# (on 6.8+ the copy bound to the veth, which reads its VLAN tags)
		assert_match "name pktsample_xdp(_dev)? " "$proginfo" \
			"native: a multi-buffer program"
		assert_match "xdp: native mode on $CAPIF turns off TSO on the peer" \
			"$(cat "$WORK/ps.err")" "native on veth: the warning says what it costs"
	fi
	assert_nothing_attached
done

# --duration: stops by itself. A second natively; stretched by
# PS_TIME_SCALE where starting the generator alone takes longer (TCG).
start_capture -i "$CAPIF" --duration "$PS_TIME_SCALE" -w "$WORK/d.pcapng"
gen -n 10
wait_capture
assert_eq 0 "$PS_RC" "--duration $PS_TIME_SCALE exits 0 by itself"
assert_eq 10 "$(count "$WORK/d.pcapng" "$GEN")" "--duration capture holds the traffic"
assert_nothing_attached

# Two Ctrl-C: the second skips the drain; still exits cleanly, detached,
# with a readable file.
start_capture -i "$CAPIF" --hook xdp,tc-ingress,tc-egress -w "$WORK/i.pcapng"
gen -n 200
kill -INT "$PS_PID"; kill -INT "$PS_PID"
wait_capture
assert_eq 0 "$PS_RC" "double Ctrl-C exits"
assert_nothing_attached
tshark_q -r "$WORK/i.pcapng" -c 1 >/dev/null
ok "double Ctrl-C leaves a readable capture"

# SIGKILL: nothing can run, yet tcx links go with the process.
start_capture -i "$CAPIF" --hook tc-ingress,tc-egress -w "$WORK/k.pcapng"
stop_capture KILL
assert_eq 137 "$PS_RC" "SIGKILL kills"
assert_nothing_attached

# pcapng to stdout, read by tshark from a pipe.
: >"$WORK/ps.err"
in_cap bash -c "'$PKTSAMPLE' -i '$CAPIF' --hook xdp -c 5 -w - 2>'$WORK/ps.err' |
	tshark -r - -T fields -e frame.interface_description >'$WORK/pipe.txt' 2>'$WORK/pipe.err'" &
pipe_pid=$!
PIDS+=("$pipe_pid")
wait_started "$pipe_pid"
gen -n 20
wait "$pipe_pid"
assert_eq "5 xdp ingress" "$(sort "$WORK/pipe.txt" | uniq -c | sed 's/^ *//')" "-w - | tshark -r - reads 5 packets"
assert_eq "" "$(grep -v '^Running as user "root"' "$WORK/pipe.err" || true)" "tshark reading the pipe: no complaints"

# Several interfaces: the veth and lo, one IDB per (interface, hook);
# XDP through libxdp, which falls back to a single program here.
start_capture -i "$CAPIF" -i lo --hook xdp,tc-egress --xdp-attach libxdp -v -w "$WORK/m.pcapng"
in_cap ping -q -c 2 -i 0.2 127.0.0.1 >/dev/null
gen -n 10
sleep 0.3
stop_capture INT
assert_eq 0 "$PS_RC" "two-interface capture exits 0"
idbs=$(capinfos -M "$WORK/m.pcapng" | sed -n 's/^ *\(Name\|Description\) = //p' | paste -d'|' - - | sort | tr '\n' ' ')
want=$(printf '%s\n' "$CAPIF|tc egress" "$CAPIF|xdp ingress" "lo|tc egress" "lo|xdp ingress" | sort | tr '\n' ' ')
assert_eq "$want" "$idbs" "one IDB per interface and hook"
assert_eq 10 "$(count "$WORK/m.pcapng" "frame.interface_name == \"$CAPIF\" && $GEN")" "veth traffic on its IDB"
assert_eq 2 "$(count "$WORK/m.pcapng" 'frame.interface_name == "lo" && frame.interface_description == "xdp ingress" && icmp.type == 8')" \
	"lo traffic on its IDB"
assert_eq 1 "$(grep -c "XDP attached as a single program" "$WORK/ps.err")" \
	"-v: the single-program fallback is reported once for two interfaces"
assert_match "libxdp: " "$(cat "$WORK/ps.err")" "-v shows libxdp's own messages"
assert_nothing_attached
assert_nothing_attached lo

# A second XDP capture on a busy interface fails, and leaves the first alone.
start_capture -i "$CAPIF" --hook xdp -w "$WORK/first.pcapng"
first_pid=$PS_PID
rc=0
in_cap "$PKTSAMPLE" -i "$CAPIF" --hook xdp,tc-egress -w "$WORK/second.pcapng" 2>"$WORK/second.err" || rc=$?
assert_eq 1 "$rc" "second XDP capture on the same interface exits 1"
assert_match "cannot attach XDP to $CAPIF: XDP program [0-9]+ \(pktsample_xdp_s\) is attached there; capture with --hook (tc-ingress|xdp-entry,xdp-exit \\(around it\\)) instead" \
	"$(cat "$WORK/second.err")" "and says which program is there, and what to use instead"
xdp_now=$(in_cap ip link show dev "$CAPIF" | grep -c 'prog/xdp' || true)
assert_eq 1 "$xdp_now" "the first capture's program is still attached"
gen -n 10
sleep 0.3
PS_PID=$first_pid
stop_capture INT
assert_eq 10 "$(count "$WORK/first.pcapng" "$GEN")" "the first capture kept capturing"
assert_nothing_attached
