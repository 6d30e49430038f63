#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Hundreds of interfaces: -i any on 300 veth pairs (600 interfaces, 1,200
# hooks; auto attaches them through clsact, tcx's grace periods being too
# slow for so many) starts, takes a new filter on SIGHUP on every hook at
# once, captures a frame on every interface at both hooks, and exits
# cleanly with nothing left attached: no program, no qdisc it made; after
# SIGKILL its guardian leaves nothing either. How
# long the start, the reload and the stop take and the RSS are printed
# (bench/ifaces.sh measures them against issue 44's goals); the limits
# here only catch a hang.
source "$(dirname "$0")/lib.sh"

PAIRS=${PAIRS:-300}
env_up
# Both ends of each pair in the capture namespace, up.
for i in $(seq "$PAIRS"); do echo "link add s${i}a type veth peer name s${i}b"; done >"$WORK/add"
for i in $(seq "$PAIRS"); do echo "link set s${i}a up"; echo "link set s${i}b up"; done >"$WORK/up"
in_cap ip -batch "$WORK/add"
in_cap ip -batch "$WORK/up"
n_up=$(in_cap ip -o link show up | grep -c '^[0-9]*: s[0-9]*[ab]@')
assert_eq $((2 * PAIRS)) "$n_up" "$PAIRS veth pairs up"

printf 'iface any\nwrite %s\n' "$WORK/any.pcapng" >"$WORK/cap.conf"
qdiscs_before=$(in_cap tc qdisc show | grep -c clsact || true)
t0=$(now_ns)
: >"$WORK/ps.err"
"$TESTENV" exec "$ENV" cap -- "$PKTSAMPLE" --config "$WORK/cap.conf" 2>"$WORK/ps.err" &
PS_PID=$!
PIDS+=("$PS_PID")
for _ in $(seq $((3000 * PS_TIME_SCALE))); do
	grep -q "capturing on s${PAIRS}b " "$WORK/ps.err" && break
	kill -0 "$PS_PID" 2>/dev/null || break
	sleep 0.1
done
started_ms=$(ms_since "$t0")
grep -q "capturing on s${PAIRS}b " "$WORK/ps.err" || fail "did not start: $(tail -3 "$WORK/ps.err")"
pid=$(capture_pid "$WORK/cap.conf")
rss=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")
echo "# started on $((2 * PAIRS + 1)) interfaces in $started_ms ms; RSS $rss KiB"
assert_match "-i any: capturing on $((2 * PAIRS + 1)) interfaces" "$(cat "$WORK/ps.err")" \
	"-i any counts the interfaces rather than naming hundreds"
assert_eq $((2 * PAIRS + 1)) "$(grep -c 'capturing on .* (tc-ingress,tc-egress)' "$WORK/ps.err")" \
	"each interface attached at tc-ingress and tc-egress"

# A new filter that keeps the frames below: new programs on every hook.
echo "filter ether proto 0x88b5" >>"$WORK/cap.conf"
t1=$(now_ns)
kill -HUP "$pid"
for _ in $(seq $((600 * PS_TIME_SCALE))); do
	grep -q "configuration read again" "$WORK/ps.err" && break
	sleep 0.05
done
reload_ms=$(ms_since "$t1")
assert_match "configuration read again" "$(cat "$WORK/ps.err")" "SIGHUP: a new filter taken"
echo "# the filter swapped on $((4 * PAIRS + 2)) hooks in $reload_ms ms"

# One frame out of each sXa (its tc-egress), into its sXb (tc-ingress):
# an experimental ethertype that nothing else sends, the pair's number in
# it.
in_cap python3 - "$PAIRS" <<'EOF'
import socket, struct, sys
for i in range(1, int(sys.argv[1]) + 1):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((f"s{i}a", 0))
    s.send(b"\xff" * 6 + b"\x02\x00\x00\x00\x00\x01" + struct.pack("!HI", 0x88B5, i) + bytes(40))
    s.close()
EOF
sleep 1
t2=$(now_ns)
stop_capture INT
stopped_ms=$(ms_since "$t2")
echo "# stopped in $stopped_ms ms"
assert_eq 0 "$PS_RC" "SIGINT: exit 0"
seen=$(fields "$WORK/any.pcapng" 'eth.type == 0x88b5' frame.interface_name frame.interface_description |
	sort -u)
assert_eq "$PAIRS" "$(grep -c '^s[0-9]*a|tc egress$' <<<"$seen")" "the frame out of every sXa, at tc-egress"
assert_eq "$PAIRS" "$(grep -c '^s[0-9]*b|tc ingress$' <<<"$seen")" "the frame into every sXb, at tc-ingress"
assert_eq "$((2 * PAIRS))" "$(count "$WORK/any.pcapng" 'eth.type == 0x88b5')" "each once at each hook"
# Nothing of ours left on any of them: clsact programs (bpftool net lists
# those in the namespace), and tcx ones, interface by interface.
left=$(in_cap bpftool -j net show | python3 -c 'import json,sys; d=json.load(sys.stdin)[0]; print(len(d.get("tc",[]))+len(d.get("xdp",[])))')
for i in $(seq "$PAIRS"); do
	left=$((left + $(tcx_programs "s${i}a") + $(tcx_programs "s${i}b")))
done
assert_eq 0 "$left" "nothing attached to any of the $((2 * PAIRS + 1)) interfaces"
assert_eq "$qdiscs_before" "$(in_cap tc qdisc show | grep -c clsact || true)" \
	"no clsact qdisc left of those it made"

# SIGKILL at this scale: auto chose clsact, whose filters nothing in the
# kernel removes; the guardian removes all 1,202 of them, and the qdiscs
# it made, then ends.
start_capture -i any -w "$WORK/kill.pcapng"
pid=$(capture_pid "$WORK/kill.pcapng")
guard=$(pgrep -f "^pktsample-guard $pid\$" || true)
[ -n "$guard" ] || fail "no guardian for the clsact filters of pktsample $pid"
stop_capture KILL
assert_eq 137 "$PS_RC" "SIGKILL kills"
for _ in $(seq $((300 * PS_TIME_SCALE))); do kill -0 "$guard" 2>/dev/null || break; sleep 0.1; done
kill -0 "$guard" 2>/dev/null && fail "the guardian is still at work after $((30 * PS_TIME_SCALE)) s"
left=$(in_cap bpftool -j net show | python3 -c 'import json,sys; d=json.load(sys.stdin)[0]; print(len(d.get("tc",[]))+len(d.get("xdp",[])))')
assert_eq 0 "$left" "SIGKILL: the guardian removed every filter on the $((2 * PAIRS + 1)) interfaces"
assert_eq "$qdiscs_before" "$(in_cap tc qdisc show | grep -c clsact || true)" \
	"SIGKILL: and every qdisc it made"
