#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# pktsample as a Wireshark extcap, driven by a real tshark 4.0 (the flight
# recorder through the dialog's settings too): the entry in
# a personal extcap directory ($XDG_CONFIG_HOME/wireshark/extcap), tshark -D
# listing it, captures with annotations and a capture filter that runs in
# the kernel, a bad filter reported before anything is attached, nothing
# left when tshark stops, and the same as an unprivileged user through file
# capabilities on the binary (the supported way, as dumpcap's).
source "$(dirname "$0")/lib.sh"
need_tools setcap setpriv

env_up
XDG=$WORK/xdg
mkdir -p "$XDG/wireshark/extcap"
ln -s "$PKTSAMPLE" "$XDG/wireshark/extcap/pktsample"
IF=pktsample:$CAPIF

# tshark in the capture namespace, with our extcap directory; its stderr
# goes to $WORK/ts.err.
ts() { "$TESTENV" exec "$ENV" cap -- env XDG_CONFIG_HOME="$XDG" tshark "$@" 2>"$WORK/ts.err"; }
# What tshark says beyond its routine lines: the root warning, its progress
# messages, the packet count, and the empty "tshark: " line that tshark 4.0
# prints whenever an extcap capture ends.
ts_complaints() {
	grep -vE '^Running as user|^Capturing on|\[Main MESSAGE\]|^[0-9]+ packets? captured$|^tshark: $|^$' \
		"$WORK/ts.err" || true
}
no_pktsample_left() {
	sleep 0.3
	assert_eq "" "$(pgrep -f -- "--extcap-interface $IF" || true)" "$1: no pktsample left"
}

# --- the protocol -------------------------------------------------------------
out=$("$PKTSAMPLE" --extcap-interfaces --extcap-version=4.0)
assert_match "^extcap \{version=[0-9.]+\}\{help=[^}]+\}" "$out" "--extcap-interfaces: the extcap line"
assert_match "interface \{value=pktsample:lo\}\{display=lo: [^}]+\}" "$out" "--extcap-interfaces: lo"
assert_eq "dlt {number=1}{name=EN10MB}{display=Ethernet}" \
	"$("$PKTSAMPLE" --extcap-interface "$IF" --extcap-dlts)" "--extcap-dlts: Ethernet"
"$PKTSAMPLE" --extcap-interface "$IF" --extcap-config >"$WORK/config"
python3 - "$WORK/config" <<'EOF' || fail "--extcap-config does not parse: $(cat "$WORK/err" 2>/dev/null)"
import re, sys
args, values = {}, []
for line in open(sys.argv[1]):
    kind, rest = line.split(" ", 1)
    fields = dict(re.findall(r"\{([a-z]+)=([^}]*)\}", rest))
    assert "".join("{%s=%s}" % kv for kv in re.findall(r"\{([a-z]+)=([^}]*)\}", rest)) == rest.strip(), line
    if kind == "arg":
        for k in ("number", "call", "display", "type"):
            assert k in fields, "arg without %s: %s" % (k, line)
        assert fields["number"] not in args, "number used twice: " + line
        assert fields["call"].startswith("--"), line
        args[fields["number"]] = fields
    elif kind == "value":
        values.append(fields)
    else:
        raise AssertionError("unknown line: " + line)
for v in values:
    assert v["arg"] in args, "value of no arg: %r" % v
    assert "value" in v and "display" in v, "value without value/display: %r" % v
assert len(args) >= 10, "only %d args" % len(args)
EOF
ok "--extcap-config: every arg has number, call, display and type; every value has its arg"
# Every option the dialog offers is one the command line takes.
for call in $(grep -o '{call=--[a-z-]*}' "$WORK/config" | sed 's/{call=//; s/}//'); do
	grep -q -- "$call" <<<"$("$PKTSAMPLE" --help)" || [[ $call == --extcap-* ]] ||
		fail "the dialog offers $call, which --help does not know"
done
ok "the dialog's options are pktsample's own"
assert_eq "" "$("$PKTSAMPLE" --extcap-interface "$IF" --extcap-capture-filter 'udp port 53')" \
	"a good capture filter: nothing to say"
assert_match "syntax error" "$("$PKTSAMPLE" --extcap-interface "$IF" --extcap-capture-filter 'tcp port')" \
	"a bad capture filter: libpcap's message, for Wireshark's filter field"

# --- tshark -D and captures ---------------------------------------------------------
ts -D >"$WORK/ifaces"
assert_match "[0-9]+\. $IF \($CAPIF: XDP and TC hooks \(pktsample\)\)" "$(cat "$WORK/ifaces")" \
	"tshark -D lists the test veth's pktsample interface"

traffic() { # two seconds of ping and UDP from the peer
	in_peer ping -q -c 10 -i 0.2 192.0.2.1 >/dev/null &
	local p=$!
	in_peer "$PSGEN" -i "$PEERIF" --rate 20 -n 40 >/dev/null
	wait "$p"
}
# ts_capture ARGS...: tshark in the background; the traffic once pktsample
# has attached; then tshark's own stop condition (-a duration).
ts_capture() {
	ts "$@" >/dev/null &
	local t=$! i
	for i in $(seq 100); do
		pgrep -f -- "--capture --extcap-interface $IF" >/dev/null && break
		sleep 0.05
	done
	sleep 0.5
	traffic
	wait "$t" || true
}
ts_capture -i "$IF" -a duration:5 -w "$WORK/ext.pcapng"
assert_eq "" "$(ts_complaints)" "tshark: no complaint"
n=$(count "$WORK/ext.pcapng" icmp)
[ "$n" -eq 20 ] || fail "only $n ICMP packets captured through tshark"
ok "tshark captured the 10 pings, each way"
assert_eq "tc egress|tc ingress" \
	"$(fields "$WORK/ext.pcapng" icmp frame.interface_description | sort -u | paste -sd'|')" \
	"one interface per hook, described"
assert_eq "" "$(fields "$WORK/ext.pcapng" icmp frame.comment | grep -vE "$BLOCK_WORDS" || true)" \
	"packet comments: the owner, where it is known"
assert_eq "0x00000001|0x00000002" "$(fields "$WORK/ext.pcapng" icmp frame.packet_flags_direction | sort -u | paste -sd'|')" \
	"directions: inbound at TC ingress, outbound at TC egress"
no_pktsample_left "after tshark -a duration"
assert_nothing_attached
# What tshark wrote, Wireshark 4.0's own tools can rewrite and read back.
tshark_q -r "$WORK/ext.pcapng" -w "$WORK/resaved.pcapng" >/dev/null
assert_eq "$(count "$WORK/ext.pcapng" '')" "$(count "$WORK/resaved.pcapng" '')" \
	"the capture survives tshark -r -w"

# Wireshark's capture filter becomes the in-kernel filter.
ts_capture -i "$IF" -f udp -a duration:4 -w "$WORK/udp.pcapng"
assert_eq "" "$(ts_complaints)" "-f udp: no complaint"
[ "$(count "$WORK/udp.pcapng" udp)" -ge 40 ] || fail "-f udp: too few UDP frames"
assert_eq 0 "$(count "$WORK/udp.pcapng" '!udp')" "-f udp: only UDP frames arrive"
no_pktsample_left "after -f udp"

# The flight recorder from the dialog's settings (Wireshark's preferences
# extcap.pktsample_IFACE.*): pings, then a datagram to the trigger port;
# tshark gets the incident, the trigger marked.
pref=extcap.pktsample_$CAPIF
ts -i "$IF" -o "$pref.flight:30s" -o "$pref.trigger:udp dst port 7000" -o "$pref.after:1s" \
	-c 21 -a duration:$((20 * PS_TIME_SCALE)) -w "$WORK/flight.pcapng" >/dev/null &
t=$!
for _ in $(seq 100); do
	pgrep -f -- "--capture --extcap-interface $IF" >/dev/null && break
	sleep 0.05
done
sleep 0.5
in_peer ping -q -c 10 -i 0.2 192.0.2.1 >/dev/null
in_peer python3 -c 'import socket
socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"trigger", ("192.0.2.1", 7000))'
wait "$t" || true
assert_eq "" "$(ts_complaints)" "--flight through the dialog: no complaint"
assert_eq "20 1" "$(count "$WORK/flight.pcapng" 'icmp.type == 8 || icmp.type == 0') $(count "$WORK/flight.pcapng" 'frame.comment contains "trigger=udp dst port 7000"')" \
	"--flight through the dialog: the pings before the trigger, and the trigger marked"
no_pktsample_left "after the flight recorder"

# A bad filter: tshark reports libpcap's message; nothing was attached.
rc=0
ts -i "$IF" -f 'tcp port' -a duration:2 -w "$WORK/bad.pcapng" >/dev/null || rc=$?
assert_match "Error by extcap pipe: pktsample: bad filter expression: .*syntax error" \
	"$(cat "$WORK/ts.err")" "a bad filter: one readable line in tshark's error"
assert_nothing_attached
no_pktsample_left "after a bad filter"

# Live: a packet shows up in tshark while the capture runs, well before it
# ends. The ping goes once the extcap has attached (tshark and pktsample
# take seconds to start under emulation, where the duration stretches too).
"$TESTENV" exec "$ENV" cap -- env XDG_CONFIG_HOME="$XDG" tshark -i "$IF" -l \
	-a duration:$((6 * PS_TIME_SCALE)) -T fields -e frame.number >"$WORK/live.txt" 2>/dev/null &
TS=$!
PIDS+=("$TS")
# attached: the extcap's pktsample holds BPF links (tcx), or its clsact
# filter is on the interface (bpftool 7.1 lists no tcx attachment).
attached() {
	local pid
	pid=$(pgrep -n -x pktsample) || return 1
	[ -n "$(links_of "$pid")" ] || in_cap tc filter show dev "$CAPIF" ingress | grep -q pktsample
}
for _ in $(seq $((50 * PS_TIME_SCALE))); do
	attached && break
	sleep 0.1
done
attached || fail "the extcap did not attach within $((5 * PS_TIME_SCALE)) s"
t0=$(now_ns)
in_peer ping -q -c 1 192.0.2.1 >/dev/null
while ! grep -q . "$WORK/live.txt" && [ "$(ms_since "$t0")" -lt "$(scaled 3000)" ]; do sleep 0.02; done
latency=$(ms_since "$t0")
grep -q . "$WORK/live.txt" || fail "no packet reached tshark while it captured"
echo "# ping to tshark's line: $latency ms"
ok "packets reach tshark while the capture runs"
wait "$TS" || true

# --- unprivileged: tshark as nobody, pktsample with file capabilities -----------
chmod 755 "$WORK"
mkdir -p "$WORK/bin" "$WORK/nobody/wireshark/extcap"
install -m 755 "$PKTSAMPLE" "$WORK/bin/pktsample"
# Before 5.11 (-D says so) the kernel counts BPF memory against the
# locked-memory limit, which the binary raises with cap_sys_resource.
caps=cap_bpf,cap_perfmon,cap_net_admin,cap_net_raw
"$PKTSAMPLE" -D | grep -q '^kernel: BPF memory counts against the locked-memory limit' &&
	caps=$caps,cap_sys_resource
setcap "$caps+ep" "$WORK/bin/pktsample"
ln -s "$WORK/bin/pktsample" "$WORK/nobody/wireshark/extcap/pktsample"
chown -R 65534:65534 "$WORK/nobody"
# TS_LIMIT=SECONDS: tshark is stopped after that long (it must not hang
# the suite should Wireshark wait on an extcap that has already failed).
ts() {
	${TS_LIMIT:+timeout -k 5 "$TS_LIMIT"} "$TESTENV" exec "$ENV" cap -- setpriv --reuid=65534 --regid=65534 --clear-groups \
		--inh-caps=-all env HOME="$WORK/nobody" XDG_CONFIG_HOME="$WORK/nobody" \
		tshark "$@" 2>"$WORK/ts.err"
}
ts_capture -i "$IF" -a duration:5 -w "$WORK/nobody/np.pcapng"
assert_eq "" "$(ts_complaints)" "as nobody: no complaint"
assert_eq 20 "$(count "$WORK/nobody/np.pcapng" icmp)" \
	"as nobody through file capabilities: tshark captures the 10 pings, each way"
no_pktsample_left "as nobody"
assert_nothing_attached

# Without the capabilities: Wireshark's error says why, in one line.
install -m 755 "$PKTSAMPLE" "$WORK/bin/plain"
ln -sf "$WORK/bin/plain" "$WORK/nobody/wireshark/extcap/pktsample"
TS_LIMIT=$(scaled 30) ts -i "$IF" -a duration:2 -w "$WORK/nobody/none.pcapng" >/dev/null || true
assert_match "Error by extcap pipe: pktsample: need root, or CAP_BPF, CAP_PERFMON and CAP_NET_ADMIN" \
	"$(cat "$WORK/ts.err")" "as nobody without capabilities: one readable line in tshark's error"
no_pktsample_left "without capabilities"
assert_nothing_attached
