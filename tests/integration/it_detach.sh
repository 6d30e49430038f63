#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Nothing left behind after any death, and nothing of others removed:
# SIGKILL at every hook and mode (links go with the process; a clsact
# filter is removed by the capture's guardian, or by the next start if the
# guardian was killed too), a capabilities-only run, -Z, and one SIGTERM
# while the output is blocked.
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
# left on the interface, for XDP in both modes and TC through tcx (where
# the kernel has it: before 6.6, forcing tcx is refused in one line).
specs=("xdp --xdp-mode skb" "xdp --xdp-mode native" "xdp,tc-ingress,tc-egress")
if kernel_has_tcx; then
	specs+=("tc-ingress,tc-egress --tc-mode tcx")
else
	: >"$WORK/ps.err"
	rc=0
	in_cap "$PKTSAMPLE" -i "$CAPIF" --hook tc-ingress --tc-mode tcx -w "$WORK/x.pcapng" \
		2>"$WORK/ps.err" || rc=$?
	assert_eq 1 "$rc" "--tc-mode tcx before 6.6: exit 1"
	assert_match "^pktsample: --tc-mode tcx: this kernel has no tcx \(Linux 6\.6 has it\)" \
		"$(cat "$WORK/ps.err")" "--tc-mode tcx before 6.6: it says why"
	assert_nothing_attached
fi
for spec in "${specs[@]}"; do
	# shellcheck disable=SC2086 # spec is words on purpose
	start_capture -i "$CAPIF" --hook $spec -w "$WORK/k.pcapng"
	pid=$(capture_pid "$WORK/k.pcapng")
	links=$(links_of "$pid")
	[ -n "$links" ] || fail "--hook $spec: no BPF link held"
	# Links only (tcx where TC is hooked, auto's choice on 6.6 and
	# later): nothing for a guardian to look after, so none is forked.
	if [[ $spec != xdp,* ]] || kernel_has_tcx; then
		assert_eq "" "$(pgrep -f "^pktsample-guard $pid\$" || true)" "--hook $spec: no guardian where all are links"
	fi
	stop_capture KILL
	assert_eq 137 "$PS_RC" "--hook $spec: SIGKILL kills"
	assert_links_gone "$links" "--hook $spec: its links went with it"
	assert_nothing_attached
done

# clsact after SIGKILL: nothing in the kernel removes a filter, so the
# guardian the capture forked does, exactly ours, and the qdisc we made.
qdiscs() { in_cap tc qdisc show dev "$CAPIF" | grep -c clsact || true; }
start_capture -i "$CAPIF" --hook tc-ingress,tc-egress --tc-mode clsact -w "$WORK/k.pcapng"
pid=$(capture_pid "$WORK/k.pcapng")
guard=$(pgrep -f "^pktsample-guard $pid\$" || true)
[ -n "$guard" ] || fail "clsact: no guardian for pktsample $pid"
ok "clsact: the capture has a guardian, named for it"
stop_capture KILL
assert_eq 137 "$PS_RC" "clsact: SIGKILL kills"
assert_nothing_attached
assert_eq 0 "$(qdiscs)" "clsact: the qdisc the killed capture made is gone too"
for _ in $(seq 50); do kill -0 "$guard" 2>/dev/null || break; sleep 0.1; done
assert_match "guardian: pktsample $pid ended without detaching; removed its clsact filter on $CAPIF ingress" \
	"$(cat "$WORK/ps.err")" "clsact: the guardian says what it removed"
kill -0 "$guard" 2>/dev/null && fail "clsact: the guardian outlived its work"
ok "clsact: the guardian is gone with its work done"

# Signals the guardian ignores (a terminal's Ctrl-C goes to the whole
# process group): the capture handles them and detaches itself.
start_capture -i "$CAPIF" --hook tc-ingress --tc-mode clsact -w "$WORK/g.pcapng"
pid=$(capture_pid "$WORK/g.pcapng")
guard=$(pgrep -f "^pktsample-guard $pid\$") || fail "clsact: no guardian for pktsample $pid"
kill -INT "$guard" "$pid"
wait_capture
assert_eq 0 "$PS_RC" "clsact, SIGINT to the capture and its guardian: exit 0"
assert_no_match "guardian" "$(cat "$WORK/ps.err")" "a capture that detached itself leaves the guardian nothing to do"
assert_nothing_attached

# The capture and its guardian both killed (a cgroup's SIGKILL): the next
# start on that hook removes what was left, and says so in one line; a
# start on the other hook leaves it alone.
start_capture -i "$CAPIF" --hook tc-ingress --tc-mode clsact -w "$WORK/k2.pcapng"
pid=$(capture_pid "$WORK/k2.pcapng")
guard=$(pgrep -f "^pktsample-guard $pid\$") || fail "clsact: no guardian for pktsample $pid"
kill -KILL "$guard"
stop_capture KILL
stale=$(in_cap tc filter show dev "$CAPIF" ingress | grep -c pktsample_tc_in || true)
assert_eq 1 "$stale" "clsact: with its guardian killed too, the filter stays"
start_capture -i "$CAPIF" --hook tc-egress --tc-mode clsact -w "$WORK/s.pcapng"
assert_eq 0 "$(grep -c 'left by' "$WORK/ps.err" || true)" "a stale ingress filter is not looked for on egress"
stop_capture INT
start_capture -i "$CAPIF" --hook tc-ingress --tc-mode clsact -w "$WORK/s.pcapng"
assert_match "pktsample: $CAPIF ingress: removed filter pktsample_tc_in:\[[0-9]+\] \(pref [0-9]+\), left by a pktsample that was killed" \
	"$(grep 'left by' "$WORK/ps.err")" "the next start removes the stale filter and says so"
assert_eq 1 "$(in_cap tc filter show dev "$CAPIF" ingress | grep -c 'pktsample_tc_in.*direct-action' || true)" \
	"only our own live filter remains"
# A live pktsample's filter is never stale, whoever asks.
in_cap "$PKTSAMPLE" -i "$CAPIF" --hook tc-ingress --tc-mode clsact --duration 300ms \
	-w "$WORK/t.pcapng" 2>"$WORK/t.err"
assert_eq 0 "$(grep -c 'left by' "$WORK/t.err" || true)" "a running capture's filter is left alone"
stop_capture INT
assert_nothing_attached
in_cap tc qdisc del dev "$CAPIF" clsact # the killed run's qdisc: nobody's now

# Capabilities only, no root uid (doc/guide.md's file-capabilities setup):
# start, capture, stop, nothing left, for links and for clsact (whose
# detach needs the CAP_NET_ADMIN it has); at this kernel's
# perf_event_paranoid and at Debian's 3, where perf events need
# CAP_SYS_ADMIN: there the ring buffer carries the samples, and what has
# no way round says what would do.
caps=+bpf,+perfmon,+net_admin,+net_raw # net_raw: promiscuous mode
as_nobody() { # ARGS...: in the background, $PS_PID
	: >"$WORK/ps.err"
	"$TESTENV" exec "$ENV" cap -- setpriv --reuid=65534 --regid=65534 --clear-groups \
		--inh-caps="$caps" --ambient-caps="$caps" "$WORK/pktsample" "$@" 2>"$WORK/ps.err" &
	PS_PID=$!
	PIDS+=("$PS_PID")
}
refused_as_nobody() { # WHAT REGEX ARGS...: exit 1, one line, nothing attached
	local what=$1 re=$2
	shift 2
	as_nobody "$@"
	PS_RC=0
	wait "$PS_PID" || PS_RC=$?
	assert_eq 1 "$PS_RC" "$what: exit 1"
	assert_match "$re" "$(cat "$WORK/ps.err")" "$what: one line says what would do"
	assert_eq 1 "$(wc -l <"$WORK/ps.err")" "$what: one line"
	assert_nothing_attached
}
# Before 5.11 BPF memory counts against the locked-memory limit, which
# without CAP_SYS_RESOURCE only who starts pktsample may raise: refused in
# one line until then (-D names the kernel's lack), then captured alike.
if "$PKTSAMPLE" -D | grep -q '^kernel: BPF memory counts against the locked-memory limit'; then
	ulimit -l 64
	refused_as_nobody "capabilities only, locked memory 64 KiB before 5.11" \
		"^pktsample: cannot load the BPF programs: this kernel counts BPF memory against the locked-memory limit .* 64 KiB here, .* 'ulimit -l unlimited' first" \
		-i "$CAPIF" -w "$WORK/out/memlock.pcapng"
	ulimit -l unlimited
fi
tc_modes=(clsact)
if kernel_has_tcx; then tc_modes=(tcx clsact); fi
paranoid=$(sysctl -n kernel.perf_event_paranoid)
levels=("$paranoid")
[ "$paranoid" -ge 3 ] || levels+=(3)
for level in "${levels[@]}"; do
	[ "$level" = "$(sysctl -n kernel.perf_event_paranoid)" ] || set_sysctl kernel.perf_event_paranoid "$level"
	for mode in "${tc_modes[@]}"; do
		what="capabilities only, paranoid $level, $mode"
		as_nobody -i "$CAPIF" --hook xdp,tc-ingress,tc-egress --tc-mode "$mode" \
			-w "$WORK/out/caps-$mode-$level.pcapng"
		wait_started "$PS_PID"
		in_cap ping -q -c 3 -i 0.2 192.0.2.2 >/dev/null
		stop_capture INT
		assert_eq 0 "$PS_RC" "$what: exit 0"
		assert_eq "" "$(grep -v -e 'capturing on' -e 'packets\? ' -e 'xdp: skb mode on' "$WORK/ps.err" || true)" \
			"$what: no complaint (but what skb-mode XDP costs)"
		assert_eq 3 "$(count "$WORK/out/caps-$mode-$level.pcapng" 'icmp.type == 8 && frame.interface_description == "tc egress"')" \
			"$what: packets written"
		assert_nothing_attached
	done
	[ "$level" -ge 3 ] || continue
	as_nobody -i "$CAPIF" -v --duration 300ms -w "$WORK/out/v.pcapng"
	wait "$PS_PID"
	assert_match "transport: ringbuf, as kernel.perf_event_paranoid is above 2" "$(cat "$WORK/ps.err")" \
		"paranoid $level: -v says why the ring buffer carries the samples"
	for args in "--sample-interval 10ms" "--transport perf"; do
		# shellcheck disable=SC2086 # args is words
		refused_as_nobody "paranoid $level, $args" \
			"needs (a )?perf events?.*: kernel.perf_event_paranoid is above 2 \(Debian's default\), which allows perf events only with CAP_SYS_ADMIN; .*'sysctl kernel.perf_event_paranoid=2'" \
			-i "$CAPIF" $args -w "$WORK/out/r.pcapng"
	done
done

# -Z nobody: uid and gid 65534 in all four fields while capturing, no
# capability left (before 6.6, where TC goes through clsact, CAP_NET_ADMIN,
# as below; on 5.10, with unprivileged BPF off, CAP_BPF, which -D says),
# the file nobody's, the counters read to the end; detaching still works.
net_admin=0
kernel_has_tcx || net_admin=$((1 << 12))
bpf=0
[[ $("$PKTSAMPLE" -D) != *"kernel: reading a BPF map needs CAP_BPF"* ]] || bpf=$((1 << 39))
caps_left=$(printf '%016x %016x' $((net_admin | bpf)) $((net_admin | bpf)))
echo "# -Z keeps: $caps_left"
rm -f "$WORK/z.pcapng"
start_capture -i "$CAPIF" --hook xdp,tc-ingress,tc-egress -Z nobody -w "$WORK/z.pcapng"
pid=$(capture_pid "$WORK/z.pcapng")
for _ in $(seq 50); do
	grep -q "^Uid:.*65534" /proc/"$pid"/status && break
	sleep 0.02
done
assert_eq "65534 65534 65534 65534" "$(sed -n 's/^Uid:\t*//p' /proc/"$pid"/status | tr -s '\t' ' ')" "-Z nobody: uids"
assert_eq "65534 65534 65534 65534" "$(sed -n 's/^Gid:\t*//p' /proc/"$pid"/status | tr -s '\t' ' ')" "-Z nobody: gids"
assert_eq "$caps_left" \
	"$(sed -n 's/^Cap\(Eff\|Prm\):\t*//p' /proc/"$pid"/status | tr '\n' ' ' | sed 's/ $//')" \
	"-Z nobody: no capabilities (but CAP_NET_ADMIN for clsact)"
in_cap ping -q -c 3 -i 0.2 192.0.2.2 >/dev/null
stop_capture TERM
assert_eq 0 "$PS_RC" "-Z nobody: exit 0"
assert_eq "nobody" "$(stat -c %U "$WORK/z.pcapng")" "-Z nobody: the file is nobody's"
assert_eq 3 "$(count "$WORK/z.pcapng" 'icmp.type == 0 && frame.interface_description == "xdp ingress"')" \
	"-Z nobody: packets written after the drop"
assert_eq "" "$(grep 'cannot read' "$WORK/ps.err")" "-Z nobody: the counters read after the drop"
assert_match "^[1-9][0-9]* packets seen by hooks$" "$(grep 'seen by hooks' "$WORK/ps.err")" \
	"-Z nobody: the summary counts what the hooks saw"
assert_nothing_attached

# -Z with clsact keeps CAP_NET_ADMIN, and only it, to remove its filters.
start_capture -i "$CAPIF" --hook tc-ingress --tc-mode clsact -Z nobody -w "$WORK/zc.pcapng"
pid=$(capture_pid "$WORK/zc.pcapng")
assert_match "keeping CAP_NET_ADMIN" "$(cat "$WORK/ps.err")" "-Z with clsact names what it keeps"
assert_eq "$(printf '%016x' $(((1 << 12) | bpf)))" "$(sed -n 's/^CapEff:\t*//p' /proc/"$pid"/status)" \
	"-Z with clsact: CAP_NET_ADMIN only (and CAP_BPF where -D says)"
stop_capture INT
assert_eq 0 "$PS_RC" "-Z with clsact: exit 0"
assert_nothing_attached

# One SIGTERM while stdout is blocked (a reader that never reads): stops
# within a second, says what it could not write, nothing left attached.
# The reader outlives the flood however slow the machine (under emulation
# 20,000 frames took longer than 30 s, and the pipe broke instead).
: >"$WORK/ps.err"
in_cap bash -c "'$PKTSAMPLE' -i '$CAPIF' --hook xdp,tc-egress -w - 2>'$WORK/ps.err' | sleep $(scaled 30)" &
PIDS+=("$!")
wait_started "$!"
pid=$(capture_pid "$CAPIF --hook xdp,tc-egress -w -")
gen -n 20000 -s 1000
# Where it waits: wchan, or where that says 0 (x86 kernels with the ORC
# unwinder before 5.16, Debian 11's 5.10) the kernel stack.
in_pipe_write() { grep -q pipe_write /proc/"$1"/wchan /proc/"$1"/stack 2>/dev/null; }
for _ in $(seq 100); do
	in_pipe_write "$pid" && break
	sleep 0.05
done
in_pipe_write "$pid" || fail "the capture is not blocked writing to the pipe: $(cat /proc/"$pid"/wchan)"
ok "the capture is blocked writing to the pipe"
t0=$(now_ns)
kill -TERM "$pid"
while kill -0 "$pid" 2>/dev/null && [ "$(ms_since "$t0")" -lt "$(scaled 5000)" ]; do sleep 0.02; done
elapsed=$(ms_since "$t0")
[ "$elapsed" -lt "$(scaled 1000)" ] || fail "one SIGTERM with stdout blocked: still running after ${elapsed} ms"
ok "one SIGTERM with stdout blocked: stopped in ${elapsed} ms"
assert_match "cannot write stdout: the reader took nothing more after the stop" "$(cat "$WORK/ps.err")" \
	"it says the output would not take the rest"
assert_match "[0-9]+ packets lost to the write error" "$(cat "$WORK/ps.err")" "and counts what was lost"
assert_nothing_attached
