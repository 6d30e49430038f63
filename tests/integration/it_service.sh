#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The service. The unit cmake --install puts in place passes
# systemd-analyze verify, with the binary where systemd looks for it, and
# its exposure is stated. Run as the unit runs it, without systemd (a user
# of its own with the unit's four capabilities, $NOTIFY_SOCKET read by a
# listener of the test's, $JOURNAL_STREAM): READY=1 once attached; SIGHUP
# reads the file again (RELOADING=1, READY=1), takes a new pattern and a
# new collector while the sFlow sequences go on where they were; a bad
# file, or one that needs a restart, is one line and the running
# configuration stays; SIGTERM stops it (STOPPING=1), nothing left. Each
# kind of bad line at the start: FILE:LINE, exit 2, nothing attached.
# (tests/vm/systemd.sh runs the unit under a real systemd.)
source "$(dirname "$0")/lib.sh"
need_tools systemd-analyze setpriv sfacctd tcpdump unshare
: "${BUILD_DIR:=$(dirname "$PKTSAMPLE")}"

# The unit as installed, checked by systemd's own tool: the binary found
# by name where systemd looks (a private mount puts it in /usr/local/sbin),
# the man page its Documentation= names.
DESTDIR=$WORK/root cmake --install "$BUILD_DIR" --prefix /usr >/dev/null
unit=$WORK/root/usr/lib/systemd/system/pktsample.service
[ -f "$unit" ] && [ -f "$WORK/root/usr/share/doc/pktsample/examples/pktsample.conf" ] ||
	fail "cmake --install did not install the unit and the example configuration"
ok "cmake --install: the unit and an example configuration"
out=$(unshare -m sh -c 'mount -t tmpfs tmpfs /usr/local/sbin &&
	cp "$1/usr/sbin/pktsample" /usr/local/sbin/ &&
	MANPATH="$1/usr/share/man" systemd-analyze verify "$2" 2>&1' sh "$WORK/root" "$unit") ||
	fail "systemd-analyze verify: $out"
assert_eq "" "$out" "systemd-analyze verify finds nothing to say"
exposure=$(systemd-analyze security --offline=yes --root="$WORK/root" "$unit" 2>/dev/null |
	sed -n 's/.*Overall exposure level for pktsample.service: \([0-9.]*\).*/\1/p')
echo "# systemd-analyze security: exposure $exposure (0 best, 10 worst)"
python3 -c "import sys; sys.exit(0 if float('$exposure') < 4 else 1)" ||
	fail "the unit's exposure is $exposure"
ok "the unit is hardened: exposure $exposure"

env_up
# The example, as it is: a second's capture in the test's namespace.
rc=0
in_cap "$PKTSAMPLE" --config "$WORK/root/usr/share/doc/pktsample/examples/pktsample.conf" \
	--duration 1s 2>"$WORK/example.err" || rc=$?
assert_eq 0 "$rc" "the example configuration runs: exit 0"
assert_match "capturing on $CAPIF \(tc-ingress,tc-egress\)" "$(cat "$WORK/example.err")" \
	"the example's -i any captures the namespace's interface"
chmod 711 "$WORK"
cp "$PKTSAMPLE" "$WORK/pktsample"
caps=+bpf,+perfmon,+net_admin,+net_raw # the unit's AmbientCapabilities
# And its LimitMEMLOCK=infinity: before 5.11 the kernel counts BPF memory
# against that limit (-D says so), and a reload loads a second set of
# programs beside the first.
[[ $("$PKTSAMPLE" -D) != *"kernel: BPF memory counts against the locked-memory limit"* ]] ||
	ulimit -l unlimited
# The listener for sd_notify's datagrams: one line each.
python3 - "$WORK/notify.sock" "$WORK/notify.log" <<'EOF' &
import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
os.chmod(sys.argv[1], 0o777)
with open(sys.argv[2], "w", buffering=1) as log:
    while True:
        log.write(s.recv(4096).decode().replace("\n", " ") + "\n")
EOF
PIDS+=($!)
for _ in $(seq 50); do [ -S "$WORK/notify.sock" ] && break; sleep 0.1; done
# Collector A: a socket that reads them; collector B: sfacctd; a tcpdump
# on lo sees every datagram to either.
"$TESTENV" exec "$ENV" cap -- python3 -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 6343))
while True:
    s.recv(65536)' &
PIDS+=($!)
cat >"$WORK/sfacctd.conf" <<CONF
daemonize: false
sfacctd_ip: 127.0.0.1
sfacctd_port: 6344
plugins: print
aggregate: proto, dst_host
print_output: csv
print_output_file: $WORK/sfacctd.csv
print_output_file_append: true
print_refresh_time: 1
CONF
"$TESTENV" exec "$ENV" cap -- sfacctd -f "$WORK/sfacctd.conf" >"$WORK/sfacctd.log" 2>&1 &
PIDS+=($!)
wait_listening udp 6344 || fail "sfacctd is not listening: $(cat "$WORK/sfacctd.log")"
"$TESTENV" exec "$ENV" cap -- tcpdump -i lo -U -w "$WORK/sflow.pcap" udp portrange 6343-6344 \
	2>"$WORK/tcpdump.err" &
PIDS+=($!)
for _ in $(seq 50); do grep -q listening "$WORK/tcpdump.err" && break; sleep 0.1; done

conf=$WORK/ps.conf
mkdir -m 777 "$WORK/out"
cat >"$conf" <<CONF
# the service's settings
iface $CAPIF
sflow 127.0.0.1:6343
sflow-counters 1
write $WORK/out/svc.pcapng
filter udp port 9
CONF
chmod 644 "$conf"
notified() { # TEXT [N]: until the Nth message with TEXT came
	for _ in $(seq $((100 * PS_TIME_SCALE))); do
		[ "$(grep -c -- "$1" "$WORK/notify.log" 2>/dev/null)" -ge "${2:-1}" ] && return 0
		sleep 0.05
	done
	fail "no ${2:-1} '$1' from pktsample: $(cat "$WORK/notify.log") $(cat "$WORK/ps.err")"
}
: >"$WORK/ps.err"
"$TESTENV" exec "$ENV" cap -- env NOTIFY_SOCKET="$WORK/notify.sock" setpriv --reuid=65534 \
	--regid=65534 --clear-groups --inh-caps="$caps" --ambient-caps="$caps" \
	"$WORK/pktsample" --config "$conf" 2>"$WORK/ps.err" &
PS_PID=$!
PIDS+=("$PS_PID")
notified READY=1
started "$WORK/ps.err" || fail "READY=1 before everything was attached: $(cat "$WORK/ps.err")"
assert_match "^READY=1 STATUS=capturing on 1 interface$" "$(head -1 "$WORK/notify.log")" \
	"READY=1 once attached, and a status"
in_peer "$PSGEN" -i "$PEERIF" --dst 192.0.2.1 -n 300 --rate 2000 >/dev/null
sleep 1.5

# A new pattern and another collector: read again on SIGHUP.
pid=$(capture_pid "pktsample --config $conf")
sed -i "s/^sflow .*/sflow 127.0.0.1:6344/" "$conf"
sed -i "s/^sflow-counters 1$/sflow-counters 1\nmetrics 127.0.0.1:9651/" "$conf"
echo "iface ${ENV}n*" >>"$conf"
kill -HUP "$pid"
notified RELOADING=1
notified READY=1 2
assert_match "RELOADING=1 MONOTONIC_USEC=[0-9]+" "$(grep RELOADING "$WORK/notify.log")" \
	"RELOADING=1, with the time systemd asks for"
assert_match "pktsample: $conf: configuration read again" "$(cat "$WORK/ps.err")" "said so"
in_cap ip link add "${ENV}na" type veth peer name "${ENV}nb"
in_cap ip link set "${ENV}na" up
in_cap ip link set "${ENV}nb" up
for _ in $(seq $((50 * PS_TIME_SCALE))); do
	grep -q "capturing on ${ENV}nb " "$WORK/ps.err" && break
	sleep 0.1
done
assert_match "capturing on ${ENV}nb \(" "$(cat "$WORK/ps.err")" "the new pattern's interfaces are captured"
for _ in $(seq $((50 * PS_TIME_SCALE))); do listening tcp 9651 && break; sleep 0.1; done
assert_match "pktsample_packets_seen_total\{interface=\"$CAPIF\",hook=\"tc-ingress\"\} [0-9]+" \
	"$(in_cap curl -s http://127.0.0.1:9651/metrics)" "a metrics address added: served"
in_peer "$PSGEN" -i "$PEERIF" --dst 192.0.2.1 -n 300 --rate 2000 >/dev/null
sleep 1.5

# A new filter: new programs in place of the running ones on every hook
# at once, during a flood: every frame captured exactly once, under the
# old filter's interfaces or the new's.
sed -i 's/^filter .*/filter udp/' "$conf"
in_peer "$PSGEN" -i "$PEERIF" --dst 192.0.2.77 -n 20000 --rate 10000 --write "$WORK/sent.pcap" \
	>/dev/null &
FLOOD=$!
sleep 0.5
kill -HUP "$pid"
notified READY=1 3
wait "$FLOOD"
sleep 1
assert_match "$conf: configuration read again" "$(tail -1 "$WORK/ps.err")" "a new filter: read again"

# A bad line, then a change only a restart can make: one line each, and
# the capture goes on as it was.
echo "bogus 1" >>"$conf"
kill -HUP "$pid"
notified READY=1 4
assert_match "pktsample: $conf:9: unknown setting 'bogus'; keeping the running configuration" \
	"$(cat "$WORK/ps.err")" "a bad line at reload: FILE:LINE, and the running configuration stays"
sed -i '$d' "$conf"
echo "snaplen 128" >>"$conf"
kill -HUP "$pid"
notified READY=1 5
assert_match "changes snaplen, which needs a restart; keeping the running one" \
	"$(cat "$WORK/ps.err")" "a change that needs a restart: said, and the running configuration stays"
kill -0 "$pid" 2>/dev/null || fail "pktsample ended on a reload"
in_peer "$PSGEN" -i "$PEERIF" --dst 192.0.2.1 -n 300 --rate 2000 >/dev/null
sleep 1.5
kill -TERM "$pid"
wait_capture
assert_eq 0 "$PS_RC" "SIGTERM: exit 0"
notified STOPPING=1
assert_nothing_attached "$CAPIF"
assert_nothing_attached "${ENV}na"
sleep 1.5 # sfacctd's last second

# The datagrams: A's before the reload, B's after, each sub-agent's
# sequence going on across the switch (no restart from 1), one agent.
pkill -INT -f "tcpdump -i lo -U -w $WORK/sflow.pcap" || true
sleep 0.5
seqs=$(tshark_q -r "$WORK/sflow.pcap" -d udp.port==6344,sflow -T fields -E occurrence=f -e udp.dstport -e sflow_245.sub_agent_id \
	-e sflow_245.sequence_number -e sflow_245.sysuptime)
python3 - <<EOF || fail "the sFlow sequences did not go on across the reload: $seqs"
rows = [l.split("\t") for l in """$seqs""".splitlines() if l.strip()]
by = {}
for port, sub, seq, up in rows:
    by.setdefault(sub, []).append((int(port), int(seq), int(up)))
ok = False
for sub, r in by.items():
    seqs = [s for _, s, _ in r]
    assert seqs == list(range(1, len(seqs) + 1)), (sub, seqs)      # 1, 2, 3, ... throughout
    ports = [p for p, _, _ in r]
    assert ports == sorted(ports), (sub, ports)                    # A's, then B's
    ok |= 6343 in ports and 6344 in ports
    ups = [u for _, _, u in r]
    assert ups == sorted(ups), (sub, ups)                          # one uptime, going on
assert ok, by
EOF
ok "sFlow: A's datagrams, then B's, every sub-agent's sequence going on without a gap"
[ -s "$WORK/sfacctd.csv" ] || fail "sfacctd wrote nothing: $(cat "$WORK/sfacctd.log")"
got=$(awk -F, '/PACKETS/ { for (i = 1; i <= NF; i++) if ($i == "PACKETS") p = i; next }
	tolower($0) ~ /udp/ && /192\.0\.2\.1,/ { s += $p } END { print s + 0 }' "$WORK/sfacctd.csv")
assert_eq 600 "$got" "collector B (sfacctd) counted the 600 frames sent to 192.0.2.1 after the reload"
# The file: the flood's frames, each once, under one filter's interfaces
# or the other's; the interfaces described anew after the swap.
extract "$WORK/out/svc.pcapng" 'frame.interface_description == "tc ingress" && ip.dst == 192.0.2.77' \
	"$WORK/flood.pcap"
assert_eq "20000 frames identical" "$("$PCAPCHECK" same "$WORK/sent.pcap" "$WORK/flood.pcap")" \
	"new programs during a flood: every frame exactly once"
assert_eq "udp port 9 udp " "$(capinfos -I "$WORK/out/svc.pcapng" | sed -n 's/^ *Filter string = //p' |
	uniq | tr '\n' ' ')" "the file's interfaces: the old filter's, then the new one's"
lost=$(sed -n 's/^\([0-9]*\) packets\? lost in .* buffer$/\1/p' "$WORK/ps.err")
assert_eq 0 "$lost" "nothing lost in the buffer"

# Bad lines at the start: each one line naming file and line, exit 2,
# nothing attached; and to the journal, with its priority.
bad() { # LINE WANT DESCRIPTION
	printf '# bad\niface %s\n%s\n' "$CAPIF" "$1" >"$WORK/bad.conf"
	rc=0
	in_cap "$PKTSAMPLE" --config "$WORK/bad.conf" --duration 1s 2>"$WORK/bad.err" || rc=$?
	assert_eq "2|1|pktsample: $WORK/bad.conf:3: $2" \
		"$rc|$(grep -c . "$WORK/bad.err")|$(cat "$WORK/bad.err")" "$3"
}
bad "bogus 1" "unknown setting 'bogus'" "an unknown setting"
bad "sample" "'sample' needs a value" "a value missing"
bad "print yes" "'print' takes no value" "a value too many"
bad "read-file x.pcap" "'read-file' is not a setting for a configuration file" "not a file's setting"
bad "sample ten" "bad --sample 'ten': use N from 1 to 4294967295 (1 in N packets)" "a bad value"
bad "sflow-burst 0" "bad --sflow-burst '0': use 1 to 64 datagrams" "a value out of range"
assert_nothing_attached "$CAPIF"
rc=0
in_cap "$PKTSAMPLE" --config "$WORK/nosuch.conf" 2>"$WORK/bad.err" || rc=$?
assert_eq "2|pktsample: $WORK/nosuch.conf: No such file or directory" "$rc|$(cat "$WORK/bad.err")" \
	"no such file: one line, exit 2"
# $JOURNAL_STREAM names stderr: the journal's priorities instead of the name.
: >"$WORK/journal"
stream=$(stat -c '%d:%i' "$WORK/journal")
rc=0
JOURNAL_STREAM=$stream "$PKTSAMPLE" --config "$WORK/bad.conf" 2>>"$WORK/journal" || rc=$?
assert_eq "2|<3>$WORK/bad.conf:3: bad --sflow-burst '0': use 1 to 64 datagrams" \
	"$rc|$(cat "$WORK/journal")" "stderr as the journal's: <3> for an error"
