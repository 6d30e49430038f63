#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# --tc-position: a foreign TC program that drops UDP to port 4242 (as a
# firewall or Cilium would), on tcx where the kernel has it and on clsact:
# pktsample first sees the dropped packets, pktsample last does not, and
# the default (wire) sees what tcpdump sees: at ingress what arrived, at
# egress what leaves. -v says where it sits; the foreign program keeps
# dropping, and stays, whatever pktsample does.
source "$(dirname "$0")/lib.sh"
need_tools tc
: "${DROP_PORT_OBJ:=$top/build/bpf/tc_drop_port.bpf.o}"
: "${TCX_HOLD:=$top/build/tests/tcx_hold}"
[ -r "$DROP_PORT_OBJ" ] && [ -x "$TCX_HOLD" ] || skip "needs the test programs (build first)"

env_up
# udp FROM TO: three datagrams to port 4242 and three to 4243.
udp() {
	"$TESTENV" exec "$ENV" "$1" -- bash -c "for i in 1 2 3; do
		echo x >/dev/udp/$2/4242; echo y >/dev/udp/$2/4243; done"
}
in_cap ping -q -c 1 192.0.2.2 >/dev/null # neighbours resolved: nothing queued
ports() { # FILE: how many to 4242 and to 4243
	echo "$(count "$1" 'udp.dstport == 4242') $(count "$1" 'udp.dstport == 4243')"
}

# foreign MODE DIR: the dropping program on CAPIF's DIR hook; sets FOREIGN
# (the tcx holder's pid) for unforeign.
foreign() {
	if [ "$1" = tcx ]; then
		# Not through in_cap: $! must be the holder itself, for the signal.
		"$TESTENV" exec "$ENV" cap -- "$TCX_HOLD" "$DROP_PORT_OBJ" "$CAPIF" "$2" \
			>"$WORK/hold.out" 2>&1 &
		FOREIGN=$!
		PIDS+=("$FOREIGN")
		for _ in $(seq 50); do
			grep -q attached "$WORK/hold.out" && return 0
			sleep 0.1
		done
		fail "tcx_hold: $(cat "$WORK/hold.out")"
	fi
	in_cap tc qdisc add dev "$CAPIF" clsact
	in_cap tc filter add dev "$CAPIF" "$2" pref 10 bpf da obj "$DROP_PORT_OBJ" sec tc
}
unforeign() {
	if [ "$1" = tcx ]; then
		kill "$FOREIGN"
		wait "$FOREIGN" || true
	else
		in_cap tc qdisc del dev "$CAPIF" clsact
	fi
}
# still_foreign MODE DIR: the foreign program is still there, unchanged.
still_foreign() {
	if [ "$1" = tcx ]; then
		assert_eq "tc_drop_port" "$(in_cap "$TCX_HOLD" --list "$CAPIF" "$2")" \
			"$1 $2: the foreign program is still there, alone"
	else
		assert_eq 1 "$(in_cap tc filter show dev "$CAPIF" "$2" | grep -c 'pref 10 .*tc_drop_port')" \
			"$1 $2: the foreign filter is still there, at its pref"
	fi
}

# nothing_of_ours: no pktsample program or filter left beside the foreign one.
nothing_of_ours() {
	local n
	for _ in $(seq 50); do
		n=$( { in_cap tc filter show dev "$CAPIF" ingress; in_cap tc filter show dev "$CAPIF" egress
		       if kernel_has_tcx; then
			       in_cap "$TCX_HOLD" --list "$CAPIF" ingress
			       in_cap "$TCX_HOLD" --list "$CAPIF" egress
		       fi; } 2>/dev/null | grep -c pktsample || true)
		[ "$n" = 0 ] && break
		sleep 0.1
	done
	assert_eq 0 "$n" "$1: nothing of ours left, the foreign program kept"
}

# round MODE DIR POS: the foreign program drops 4242 at DIR (ingress: sent by
# the peer, egress: by the capture side); pktsample at POS. The default
# (wire) runs beside tcpdump -Q, whose tap is before TC ingress and after
# TC egress: it must see what tcpdump sees.
round() {
	local mode=$1 dir=$2 pos=$3 from=peer to=192.0.2.1 q=in want where before=false td=
	[ "$dir" = ingress ] || { from=cap; to=192.0.2.2; q=out; }
	if [ "$pos" = first ] || { [ "$pos" = wire ] && [ "$dir" = ingress ]; }; then before=true; fi
	start_capture -i "$CAPIF" --hook "tc-$dir" --tc-mode "$mode" --tc-position "$pos" -v \
		-w "$WORK/$dir-$mode-$pos.pcapng" udp
	if [ "$pos" = wire ]; then
		"$TESTENV" exec "$ENV" cap -- tcpdump -i "$CAPIF" -Q "$q" --immediate-mode -U \
			-w "$WORK/$dir-$mode.pcap" udp 2>"$WORK/td.err" &
		td=$!
		PIDS+=("$td")
		for _ in $(seq 50); do grep -q listening "$WORK/td.err" && break; sleep 0.1; done
	fi
	udp "$from" "$to"
	stop_capture INT
	assert_eq 0 "$PS_RC" "$mode $dir $pos: exit 0"
	if $before; then want="3 3" where="before 1 other"; else want="0 3" where="after 1 other"; fi
	assert_eq "$want" "$(ports "$WORK/$dir-$mode-$pos.pcapng")" \
		"$mode $dir $pos: sees the dropped port $($before && echo too || echo not)"
	assert_match "tc-$dir: attached to $CAPIF \(${mode}.*, $where (program|filter)\)" \
		"$(cat "$WORK/ps.err")" "$mode $dir $pos: -v says where it sits"
	if [ -n "$td" ]; then
		sleep 0.5
		kill -INT "$td"
		wait "$td" || true
		assert_eq "$want" "$(ports "$WORK/$dir-$mode.pcap")" \
			"$mode $dir: the default sees what tcpdump sees"
	fi
	still_foreign "$mode" "$dir"
	nothing_of_ours "$mode $dir $pos"
}

modes=(clsact)
if kernel_has_tcx; then modes=(tcx clsact); fi
for mode in "${modes[@]}"; do
	for dir in ingress egress; do
		foreign "$mode" "$dir"
		for pos in first last wire; do round "$mode" "$dir" "$pos"; done
		unforeign "$mode"
	done
done

# clsact: first and last are prefs before and after the others', said in -v.
in_cap tc qdisc add dev "$CAPIF" clsact
in_cap tc filter add dev "$CAPIF" ingress pref 7 protocol ip u32 match ip dport 4444 0xffff flowid 1:1
for pos in first last; do
	start_capture -i "$CAPIF" --hook tc-ingress --tc-mode clsact --tc-position "$pos" -v -w "$WORK/p.pcapng"
	want=$([ "$pos" = first ] && echo 6 || echo 8)
	assert_match "attached to $CAPIF \(clsact pref $want, " "$(cat "$WORK/ps.err")" \
		"clsact $pos: pref $want beside the foreign pref 7"
	assert_eq 1 "$(in_cap tc filter show dev "$CAPIF" ingress | grep -c "pref $want bpf.*pktsample_tc_in")" \
		"clsact $pos: tc shows our filter at pref $want"
	stop_capture INT
done
# No room before pref 1: one line, exit 1, nothing attached.
in_cap tc filter add dev "$CAPIF" ingress pref 1 protocol ip u32 match ip dport 4445 0xffff flowid 1:1
: >"$WORK/ps.err"
rc=0
in_cap "$PKTSAMPLE" -i "$CAPIF" --hook tc-ingress --tc-mode clsact --tc-position first \
	-w "$WORK/q.pcapng" 2>"$WORK/ps.err" || rc=$?
assert_eq 1 "$rc" "clsact first with a filter at pref 1: exit 1"
assert_match "cannot attach tc-ingress to $CAPIF first: a filter there already has pref 1" \
	"$(cat "$WORK/ps.err")" "it says why"
assert_nothing_attached
in_cap tc qdisc del dev "$CAPIF" clsact
