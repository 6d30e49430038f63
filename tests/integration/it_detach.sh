#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Nothing left behind after any death, and nothing of others removed:
# SIGKILL at every hook and mode (links go with the process; a clsact
# filter is found stale by the next start), a capabilities-only run, -Z,
# and one SIGTERM while the output is blocked.
source "$(dirname "$0")/lib.sh"
need_tools setpriv bpftool

env_up
gen() { in_peer "$PSGEN" -i "$PEERIF" --rate 20000 "$@" >/dev/null; }
# Others may run our binary only from a directory they can reach, and
# write only where they may.
chmod 755 "$WORK"
install -m 755 "$PKTSAMPLE" "$WORK/pktsample"
mkdir -m 777 "$WORK/out"

# SIGKILL: every link this process held is gone with it, and nothing is
# left on the interface, for XDP in both modes and TC through tcx.
for spec in "xdp --xdp-mode skb" "xdp --xdp-mode native" "tc-ingress,tc-egress --tc-mode tcx" \
	    "xdp,tc-ingress,tc-egress"; do
	# shellcheck disable=SC2086 # spec is words on purpose
	start_capture -i "$CAPIF" --hook $spec -w "$WORK/k.pcapng"
	links=$(links_of "$(capture_pid "$WORK/k.pcapng")")
	[ -n "$links" ] || fail "--hook $spec: no BPF link held"
	stop_capture KILL
	assert_eq 137 "$PS_RC" "--hook $spec: SIGKILL kills"
	assert_links_gone "$links" "--hook $spec: its links went with it"
	assert_nothing_attached
done

# clsact after SIGKILL: the kernel cannot remove a filter. The next start
# says so in one line and leaves it; with --remove-stale it removes it.
start_capture -i "$CAPIF" --hook tc-ingress --tc-mode clsact -w "$WORK/k.pcapng"
stop_capture KILL
stale=$(in_cap tc filter show dev "$CAPIF" ingress | grep -c pktsample_tc_in || true)
assert_eq 1 "$stale" "clsact: SIGKILL leaves our filter (nothing in the kernel removes it)"
start_capture -i "$CAPIF" --hook tc-egress --tc-mode clsact -w "$WORK/s.pcapng"
assert_eq 0 "$(grep -c stale "$WORK/ps.err" || true)" "a stale ingress filter is not looked for on egress"
stop_capture INT
start_capture -i "$CAPIF" --hook tc-ingress --tc-mode clsact -w "$WORK/s.pcapng"
assert_match "pktsample: $CAPIF ingress: filter pktsample_tc_in:\[[0-9]+\] \(pref [0-9]+\) was left by a pktsample that was killed; --remove-stale removes it" \
	"$(grep 'was left' "$WORK/ps.err")" "the next start says a stale filter is there"
stop_capture INT
assert_eq 1 "$(in_cap tc filter show dev "$CAPIF" ingress | grep -c pktsample_tc_in || true)" \
	"without --remove-stale the stale filter stays"
start_capture -i "$CAPIF" --hook tc-ingress --tc-mode clsact --remove-stale -w "$WORK/s.pcapng"
assert_match "removed the stale filter pktsample_tc_in" "$(cat "$WORK/ps.err")" "--remove-stale removes it"
assert_eq 1 "$(in_cap tc filter show dev "$CAPIF" ingress | grep -c 'pktsample_tc_in.*direct-action' || true)" \
	"--remove-stale: only our own live filter remains"
# A live pktsample's filter is never stale, whoever asks.
in_cap "$PKTSAMPLE" -i "$CAPIF" --hook tc-ingress --tc-mode clsact --remove-stale --duration 300ms \
	-w "$WORK/t.pcapng" 2>"$WORK/t.err"
assert_eq 0 "$(grep -c stale "$WORK/t.err" || true)" "a running capture's filter is left alone"
stop_capture INT
assert_nothing_attached
in_cap tc qdisc del dev "$CAPIF" clsact # the killed run's qdisc: nobody's now

# Capabilities only, no root uid: start, capture, stop, nothing left, for
# links and for clsact (whose detach needs the CAP_NET_ADMIN it has).
caps=+bpf,+perfmon,+net_admin,+net_raw # net_raw: promiscuous mode
for mode in tcx clsact; do
	: >"$WORK/ps.err"
	"$TESTENV" exec "$ENV" cap -- setpriv --reuid=65534 --regid=65534 --clear-groups \
		--inh-caps="$caps" --ambient-caps="$caps" "$WORK/pktsample" -i "$CAPIF" \
		--hook xdp,tc-ingress,tc-egress --tc-mode "$mode" -w "$WORK/out/caps-$mode.pcapng" \
		2>"$WORK/ps.err" &
	PS_PID=$!
	PIDS+=("$PS_PID")
	wait_started "$PS_PID"
	in_cap ping -q -c 3 -i 0.2 192.0.2.2 >/dev/null
	stop_capture INT
	assert_eq 0 "$PS_RC" "capabilities only, $mode: exit 0"
	assert_eq "" "$(grep -v -e 'capturing on' -e 'packets\? ' -e 'xdp: skb mode on' "$WORK/ps.err" || true)" \
		"capabilities only, $mode: no complaint (but what skb-mode XDP costs)"
	assert_eq 3 "$(count "$WORK/out/caps-$mode.pcapng" 'icmp.type == 8 && frame.interface_description == "tc egress"')" \
		"capabilities only, $mode: packets written"
	assert_nothing_attached
done

# -Z nobody: uid and gid 65534 in all four fields while capturing, no
# capability left, the file nobody's; detaching still works.
rm -f "$WORK/z.pcapng"
start_capture -i "$CAPIF" --hook xdp,tc-ingress,tc-egress -Z nobody -w "$WORK/z.pcapng"
pid=$(capture_pid "$WORK/z.pcapng")
for _ in $(seq 50); do
	grep -q "^Uid:.*65534" /proc/"$pid"/status && break
	sleep 0.02
done
assert_eq "65534 65534 65534 65534" "$(sed -n 's/^Uid:\t*//p' /proc/"$pid"/status | tr -s '\t' ' ')" "-Z nobody: uids"
assert_eq "65534 65534 65534 65534" "$(sed -n 's/^Gid:\t*//p' /proc/"$pid"/status | tr -s '\t' ' ')" "-Z nobody: gids"
assert_eq "0000000000000000 0000000000000000" \
	"$(sed -n 's/^Cap\(Eff\|Prm\):\t*//p' /proc/"$pid"/status | tr '\n' ' ' | sed 's/ $//')" \
	"-Z nobody: no capabilities"
in_cap ping -q -c 3 -i 0.2 192.0.2.2 >/dev/null
stop_capture TERM
assert_eq 0 "$PS_RC" "-Z nobody: exit 0"
assert_eq "nobody" "$(stat -c %U "$WORK/z.pcapng")" "-Z nobody: the file is nobody's"
assert_eq 3 "$(count "$WORK/z.pcapng" 'icmp.type == 0 && frame.interface_description == "xdp ingress"')" \
	"-Z nobody: packets written after the drop"
assert_nothing_attached

# -Z with clsact keeps CAP_NET_ADMIN, and only it, to remove its filters.
start_capture -i "$CAPIF" --hook tc-ingress --tc-mode clsact -Z nobody -w "$WORK/zc.pcapng"
pid=$(capture_pid "$WORK/zc.pcapng")
assert_match "keeping CAP_NET_ADMIN" "$(cat "$WORK/ps.err")" "-Z with clsact names what it keeps"
assert_eq "0000000000001000" "$(sed -n 's/^CapEff:\t*//p' /proc/"$pid"/status)" \
	"-Z with clsact: CAP_NET_ADMIN only"
stop_capture INT
assert_eq 0 "$PS_RC" "-Z with clsact: exit 0"
assert_nothing_attached

# One SIGTERM while stdout is blocked (a reader that never reads): stops
# within a second, says what it could not write, nothing left attached.
: >"$WORK/ps.err"
in_cap bash -c "'$PKTSAMPLE' -i '$CAPIF' --hook xdp,tc-egress -w - 2>'$WORK/ps.err' | sleep 30" &
PIDS+=("$!")
wait_started "$!"
pid=$(capture_pid "$CAPIF --hook xdp,tc-egress -w -")
gen -n 20000 -s 1000
for _ in $(seq 100); do
	grep -q pipe_write /proc/"$pid"/wchan 2>/dev/null && break
	sleep 0.05
done
assert_match "pipe_write" "$(cat /proc/"$pid"/wchan)" "the capture is blocked writing to the pipe"
t0=$(now_ns)
kill -TERM "$pid"
while kill -0 "$pid" 2>/dev/null && [ "$(ms_since "$t0")" -lt 5000 ]; do sleep 0.02; done
elapsed=$(ms_since "$t0")
[ "$elapsed" -lt 1000 ] || fail "one SIGTERM with stdout blocked: still running after ${elapsed} ms"
ok "one SIGTERM with stdout blocked: stopped in ${elapsed} ms"
assert_match "cannot write stdout: the reader took nothing more after the stop" "$(cat "$WORK/ps.err")" \
	"it says the output would not take the rest"
assert_match "[0-9]+ packets lost to the write error" "$(cat "$WORK/ps.err")" "and counts what was lost"
assert_nothing_attached
