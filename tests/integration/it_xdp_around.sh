#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Capture around another program's XDP program (xdp-entry, xdp-exit): a
# foreign program that drops UDP to port 4242 and passes the rest, loaded
# by `ip link` and by `xdp-loader` (libxdp's dispatcher).
#
# Where the kernel lets fentry/fexit trace it (Debian's 6.1; the VM smoke
# set sets PS_EXPECT_FENTRY=1 there, so a probe that wrongly refuses
# fails): a default capture records every packet at the entry and the
# verdicts at the exit, drop exactly for that port, on two interfaces
# named after the program, each packet's entry and exit under one id; a filter and sampling apply; -r prints the
# verdict; the foreign program keeps running unchanged and stays after
# pktsample exits and after SIGKILL, with nothing of ours left.
# Where the kernel refuses (this project's CI host): an explicit
# --hook xdp-entry is one line and exit 1, nothing attached, and the
# default captures at tc-ingress and says why.
source "$(dirname "$0")/lib.sh"
need_tools bpftool xdp-loader
: "${XDP_DROP_OBJ:=$top/build/bpf/xdp_drop_port.bpf.o}"
[ -r "$XDP_DROP_OBJ" ] || skip "needs the test program (build first)"

env_up
in_peer ping -q -c 1 192.0.2.1 >/dev/null # neighbours resolved
# udp: three datagrams to port 4242 (dropped) and three to 4243 (passed).
udp() {
	in_peer bash -c "for i in 1 2 3; do
		echo x >/dev/udp/192.0.2.1/4242; echo y >/dev/udp/192.0.2.1/4243; done"
}
foreign_id() {
	in_cap ip -d link show dev "$CAPIF" | sed -n 's/.*prog\/xdp id \([0-9]*\).*/\1/p'
}
# ours_left: pktsample's programs still loaded anywhere (fentry/fexit
# links hold them; none may outlive the capture).
ours_left() { bpftool prog show | grep -c 'name pktsample_' || true; }
# still_foreign ID WHAT: the foreign program is still attached, the same one.
still_foreign() {
	assert_eq "$1" "$(foreign_id)" "$2: the foreign XDP program is still attached, unchanged"
	for _ in $(seq 50); do [ "$(ours_left)" = 0 ] && break; sleep 0.1; done
	assert_eq 0 "$(ours_left)" "$2: no program of ours is left"
}
# on IDB_DESCRIPTION FILTER FILE: packets of that interface matching FILTER
# (ICMP errors quoting a datagram left out).
on() { count "$3" "frame.interface_description == \"$1\" && !icmp && $2"; }

in_cap ip link set dev "$CAPIF" xdp obj "$XDP_DROP_OBJ" sec xdp
ID=$(foreign_id)
[ -n "$ID" ] || fail "ip link did not attach the foreign XDP program"
dline=$(in_cap "$PKTSAMPLE" -D | grep "^[0-9]*\.$CAPIF ")

if ! grep -q 'traced at its entry and exit' <<<"$dline"; then
	[ -z "${PS_EXPECT_FENTRY:-}" ] ||
		fail "this kernel allows fentry, but pktsample says: $dline"
	assert_match "ingress tc-ingress \(XDP program $ID \(xdp_drop_port\) is attached and the kernel refuses" \
		"$dline" "-D: the program, and why tc-ingress"
	rc=0
	in_cap "$PKTSAMPLE" -i "$CAPIF" --hook xdp-entry,xdp-exit -w "$WORK/x.pcapng" \
		2>"$WORK/err" || rc=$?
	assert_eq "1 1" "$rc $(grep -c . "$WORK/err")" "--hook xdp-entry,xdp-exit refused: exit 1, one line"
	assert_match "cannot trace XDP program $ID \(xdp_drop_port\) on $CAPIF: .*; --hook tc-ingress" \
		"$(cat "$WORK/err")" "the refusal names the program, why and what works instead"
	[ ! -e "$WORK/x.pcapng" ] || fail "a refused capture created its output file"
	still_foreign "$ID" "after the refusal"

	start_capture -v -i "$CAPIF" -w "$WORK/d.pcapng"
	udp
	sleep 0.5
	stop_capture INT
	assert_eq 0 "$PS_RC" "the default capture: exit 0"
	assert_match "ingress at tc-ingress: XDP program $ID \(xdp_drop_port\) is attached and" \
		"$(cat "$WORK/ps.err")" "-v: the default's ingress and why"
	assert_eq "0 3" "$(count "$WORK/d.pcapng" 'udp.dstport == 4242 && !icmp') $(count "$WORK/d.pcapng" \
		'udp.dstport == 4243 && !icmp')" "tc-ingress sees what the program passed (4243), not what it dropped"
	still_foreign "$ID" "after the default capture"
	exit 0
fi

# --- the kernel lets us trace it ---------------------------------------------
# run_default FILE [ARGS...]: the default capture (plus ARGS) over udp().
run_default() {
	local f=$1; shift
	start_capture -v -i "$CAPIF" -w "$f" "$@"
	udp
	sleep "$(scaled 1)"
	stop_capture INT
	assert_eq 0 "$PS_RC" "capture ${*:-(default)}: exit 0"
}
# verdicts FILE NAME: entry and exit of the program NAME, each port's count
# and the verdict of each at the exit.
verdicts() {
	local f=$1 entry="xdp entry of $2 (id $ID)" exit="xdp exit of $2 (id $ID)"
	assert_eq "3 3" "$(on "$entry" 'udp.dstport == 4242' "$f") $(on "$entry" 'udp.dstport == 4243' "$f")" \
		"$2: the entry has every packet"
	assert_eq "3 3" "$(on "$exit" 'udp.dstport == 4242 && frame.comment contains "verdict=drop"' "$f") $(on \
		"$exit" 'udp.dstport == 4243 && frame.comment contains "verdict=pass"' "$f")" \
		"$2: the exit says drop for 4242 and pass for 4243"
	assert_eq 0 "$(on "$exit" 'udp && frame.comment contains "verdict=drop" && udp.dstport != 4242' "$f")" \
		"$2: drop exactly for that port"
}

assert_match "ingress xdp-entry,xdp-exit \(XDP program $ID \(xdp_drop_port\) is attached: traced" \
	"$dline" "-D: a default capture traces the program"
run_default "$WORK/d.pcapng"
assert_match "ingress at xdp-entry,xdp-exit: XDP program $ID \(xdp_drop_port\)" \
	"$(cat "$WORK/ps.err")" "-v: the default's ingress and why"
assert_match "xdp-exit: around XDP program $ID \(xdp_drop_port\) on $CAPIF \(fexit\)" \
	"$(cat "$WORK/ps.err")" "-v: how it attached"
verdicts "$WORK/d.pcapng" xdp_drop_port
still_foreign "$ID" "after the capture"
# Entry and exit are one packet: one id, the exit saying the entry came
# before (--packet-id auto follows packets there).
assert_match "packet ids: one a packet from xdp-entry to xdp-exit" "$(cat "$WORK/ps.err")" \
	"-v: entry and exit share a packet's id"
assert_eq "6 6" "$(tshark_q -r "$WORK/d.pcapng" -Y 'udp && !icmp' -T fields -e frame.packet_id |
	sort | uniq -c | awk '$1 == 2' | grep -c .) $(count "$WORK/d.pcapng" \
	"udp && !icmp && frame.comment contains \"prev=xdp-entry@$CAPIF after=\"")" \
	"each datagram's entry and exit under one id, the exit after the entry"

# -r prints the verdict where the direction goes.
assert_eq 3 "$("$PKTSAMPLE" -r "$WORK/d.pcapng" 'udp dst port 4242' 2>/dev/null |
	grep -c "^[0-9:.]* $CAPIF xdp-exit drop IP 192.0.2.2\.[0-9]* > 192.0.2.1.4242: UDP")" \
	"-r: xdp-exit lines say drop"

# A filter and sampling in the kernel, as at every hook.
run_default "$WORK/f.pcapng" --hook xdp-entry,xdp-exit 'udp dst port 4242'
assert_eq "3 3 0" "$(on "xdp entry of xdp_drop_port (id $ID)" udp "$WORK/f.pcapng") $(on \
	"xdp exit of xdp_drop_port (id $ID)" 'frame.comment contains "verdict=drop"' "$WORK/f.pcapng") $(count \
	"$WORK/f.pcapng" 'udp.dstport != 4242 && !icmp')" "a filter: only that port, at both"
run_default "$WORK/s.pcapng" --hook xdp-entry --sample 2 --sample-mode count 'udp'
line=$(grep " xdp-entry: seen=" "$WORK/ps.err" | tail -1)
python3 - "$line" <<'EOF' || fail "sampling at xdp-entry: $line"
import re, sys
c = dict((k, int(v)) for k, v in re.findall(r"([a-z-]+)=(\d+)", sys.argv[1]))
assert c["seen"] - c["filtered-out"] == 6 and c["sampled-out"] > 0 and c["emitted"] > 0, c
assert c["seen"] == c["filtered-out"] + c["sampled-out"] + c["rate-limited"] + c["emitted"], c
EOF
ok "sampling at xdp-entry: the 6 datagrams matched, some sampled out, the stages add up"

# SIGKILL: the links go with the process; the program stays, unchanged.
start_capture -i "$CAPIF" -w "$WORK/k.pcapng"
kill -KILL "$(capture_pid "$PKTSAMPLE -i $CAPIF -w $WORK/k.pcapng")"
wait_capture
still_foreign "$ID" "after SIGKILL"
in_cap ip link set dev "$CAPIF" xdp off

# libxdp's dispatcher (xdp-loader): the first program in it is traced, named
# "NAME in xdp_dispatcher". The dispatcher keeps its state in bpffs, which `ip netns exec`
# hides (it remounts /sys): a bpffs of the test's own, outside /sys, for
# xdp-loader and pktsample alike (libxdp's LIBXDP_BPFFS).
LIBXDP_BPFFS=$(mktemp -d /tmp/pktsample-bpffs.XXXXXX)
CLEAN_DIRS+=("$LIBXDP_BPFFS")
mount -t bpf bpf "$LIBXDP_BPFFS" || fail "cannot mount a bpffs for libxdp"
MOUNTS+=("$LIBXDP_BPFFS")
export LIBXDP_BPFFS
in_cap xdp-loader load -m skb "$CAPIF" "$XDP_DROP_OBJ" >"$WORK/loader.out" 2>&1 ||
	fail "xdp-loader could not load the program: $(cat "$WORK/loader.out")"
DISPATCHER=$(foreign_id)
assert_match "xdp_dispatcher" "$(in_cap ip -d link show dev "$CAPIF")" \
	"xdp-loader attached its dispatcher, with the program in it"
# The program in it (a freplace extension of the dispatcher) is what is traced.
ID=$(bpftool -j prog show name xdp_drop_port | python3 -c '
import json, sys
d = json.load(sys.stdin)
print((d if isinstance(d, list) else [d])[-1]["id"])')

run_default "$WORK/l.pcapng"
verdicts "$WORK/l.pcapng" "xdp_drop_port in xdp_dispatcher"
still_foreign "$DISPATCHER" "xdp-loader's: after the capture"
in_cap xdp-loader unload --all "$CAPIF"
