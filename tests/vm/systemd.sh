#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The service under a real systemd: systemd.sh [BUILD_DIR] boots Debian
# 12's kernel with the host's own systemd (252) as init
# (PS_VM_INIT=systemd testenv/kernel-vm.sh run 6.1) and, inside, as a unit
# of that systemd: installs pktsample (cmake --install --prefix /usr into
# the guest's overlay), writes /etc/pktsample/pktsample.conf, and then
#  - systemctl start: returns once pktsample said READY=1 (Type=notify),
#    all attached, running as a user of its own with the unit's four
#    capabilities and no others, its lines in the journal with their
#    priorities;
#  - it samples to a collector;
#  - systemctl reload with a changed file (another interface, another
#    collector): the journal says so, the new interface is captured, the
#    new collector gets datagrams, the service stays the same process;
#  - a reload with a new filter: new programs in place of the running
#    ones (clsact filters replaced), the same process, samples going on;
#  - a reload with a bad line: one journal entry at priority err naming
#    file and line, and the service goes on;
#  - systemctl stop: inactive, nothing attached, no process left.
# ctest's vm_systemd (label vm). 6.1 has no tcx: TC goes through clsact
# and the guardian, whose process must go with the service too.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)

if [ "${1:-}" != --guest ]; then
	build=$(cd "${1:-$top/build}" && pwd)
	for t in qemu-system-x86_64 busybox cpio /usr/lib/qemu/virtiofsd /lib/systemd/systemd; do
		[ -e "$t" ] || command -v "$t" >/dev/null && continue
		if [ -n "${CI:-}" ]; then
			echo "FAIL: vm systemd cannot run in CI: needs $t" >&2
			exit 1
		fi
		echo "skipped: vm systemd: needs $t" >&2
		exit 77
	done
	[ "$(id -u)" = 0 ] || { echo "skipped: vm systemd: needs root" >&2; exit 77; }
	PS_VM_INIT=systemd exec "$top/testenv/kernel-vm.sh" run "${PS_VM_KERNEL:-6.1}" -- \
		"$0" --guest "$build"
fi
build=$2
PASSED=0
fail() {
	echo "FAIL: $*"
	journalctl -u pktsample --no-pager -o short-monotonic 2>&1 | tail -30 | sed 's/^/#   /'
	exit 1
}
ok() { PASSED=$((PASSED + 1)); echo "ok $PASSED - $*"; }
# until CMD... succeeds, for at most S seconds of the clock (a minute
# under TCG), however long each try takes (journalctl takes a second there).
until_ok() {
	local end=$((SECONDS + $1))
	shift
	until "$@" >/dev/null 2>&1; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.1
	done
}
journal() { journalctl -u pktsample --no-pager -o cat "$@"; }
# frames IFACE: 150 broadcast IPv4 frames out of IFACE, in three bursts.
frames() {
	for _ in 1 2 3; do
		python3 -c 'import socket, sys; s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW); s.bind((sys.argv[1], 0)); [s.send(b"\xff" * 6 + b"\x02" + bytes(5) + b"\x08\x00" + bytes(46)) for _ in range(50)]' "$1"
		sleep 0.5
	done
}
echo "# $(systemctl --version | head -1), kernel $(uname -r)"
[ "$(cat /proc/1/comm)" = systemd ] || fail "PID 1 is $(cat /proc/1/comm), not systemd"

cmake --install "$build" --prefix /usr >/tmp/install.log 2>&1 || fail "cmake --install failed: $(tail -5 /tmp/install.log)"
systemctl daemon-reload
ip link add sva type veth peer name svb
ip link add swa type veth peer name swb
for d in sva svb swa swb; do ip link set "$d" up; done
# Two collectors: UDP sinks that count the datagrams each gets.
for port in 6343 6344; do
	python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", int(sys.argv[1])))
n = 0
while True:
    s.recv(65536)
    n += 1
    open("/run/collector-%s" % sys.argv[1], "w").write("%d\n" % n)' "$port" &
done
mkdir -p /etc/pktsample
cat >/etc/pktsample/pktsample.conf <<EOF
iface sva
sflow 127.0.0.1:6343
sflow-counters 1
EOF

# Start: systemctl waits for READY=1.
systemctl start pktsample || fail "systemctl start failed"
[ "$(systemctl is-active pktsample)" = active ] || fail "not active after start"
pid=$(systemctl show -p MainPID --value pktsample)
journal -p warning | grep -q "capturing on sva (tc-ingress,tc-egress)" ||
	fail "systemctl start returned before everything was attached"
ok "systemctl start: active once READY=1, everything attached by then"
assert_status() { [ "$(systemctl show -p StatusText --value pktsample)" = "$1" ] || fail "status: $(systemctl show -p StatusText --value pktsample), not $1"; }
assert_status "capturing on 1 interface"
ok "its status: capturing on 1 interface"
uid=$(awk '/^Uid:/ {print $2}' "/proc/$pid/status")
caps=$(awk '/^CapEff:/ {print $2}' "/proc/$pid/status")
[ "$uid" != 0 ] || fail "it runs as root"
# CAP_NET_ADMIN 12, CAP_NET_RAW 13, CAP_PERFMON 38, CAP_BPF 39.
[ "$caps" = "000000c000003000" ] || fail "its capabilities are $caps"
ok "a user of its own (uid $uid), with CAP_NET_ADMIN, CAP_NET_RAW, CAP_PERFMON and CAP_BPF only"
journalctl -u pktsample -o json --no-pager | grep -q '"PRIORITY":"4".*capturing on sva' ||
	journalctl -u pktsample -o json --no-pager | grep '"MESSAGE":"capturing on sva' | grep -q '"PRIORITY":"4"' ||
	fail "the journal's entries have no priority of their own"
ok "its lines in the journal, at their priority (warning)"

frames sva
until_ok 60 test -s /run/collector-6343 || fail "collector A got nothing"
ok "sFlow to collector A"

# Reload with another interface and collector.
sed -i 's/^sflow .*/sflow 127.0.0.1:6344/; s/^iface sva$/iface sv*\niface swa/' /etc/pktsample/pktsample.conf
systemctl reload pktsample || fail "systemctl reload failed"
until_ok 60 sh -c 'journalctl -u pktsample -o cat --no-pager | grep -q "configuration read again"' ||
	fail "no reload in the journal"
until_ok 60 sh -c 'journalctl -u pktsample -o cat --no-pager | grep -q "capturing on swa"' ||
	fail "the new interface was not captured"
[ "$(systemctl show -p MainPID --value pktsample)" = "$pid" ] || fail "the reload restarted it"
[ "$(systemctl is-active pktsample)" = active ] || fail "not active after the reload"
journal | grep -q "capturing on svb" || fail "the new pattern's svb was not captured"
ok "systemctl reload: the same process takes the new interfaces (svb, swa)"
frames swa
until_ok 60 test -s /run/collector-6344 || fail "collector B got nothing after the reload"
ok "sFlow to collector B after the reload"
until_ok 30 sh -c '[ "$(systemctl show -p StatusText --value pktsample)" = "capturing on 3 interfaces" ]' ||
	fail "status after the reload: $(systemctl show -p StatusText --value pktsample)"
ok "its status: capturing on 3 interfaces (sva, svb, swa)"

# A new filter: new programs in place (6.1: each clsact filter replaced,
# the guardian told), one filter per hook still, and sampling goes on.
echo "filter not udp port 53" >>/etc/pktsample/pktsample.conf
systemctl reload pktsample
until_ok 60 sh -c '[ "$(journalctl -u pktsample -o cat --no-pager | grep -c "configuration read again")" -ge 2 ]' ||
	fail "the new filter was not taken"
[ "$(systemctl show -p MainPID --value pktsample)" = "$pid" ] || fail "the new filter restarted it"
n=$(tc filter show dev swa ingress | grep -c pktsample)
[ "$n" = 1 ] || fail "$n of our filters on swa's ingress after the swap"
before=$(cat /run/collector-6344)
frames swa
until_ok 60 sh -c "[ \$(cat /run/collector-6344) -gt $before ]" || fail "no samples after the new filter"
ok "systemctl reload with a new filter: the same process, one filter per hook, samples go on"

# A bad line: an error entry naming file and line; the service goes on.
echo "bogus 1" >>/etc/pktsample/pktsample.conf
systemctl reload pktsample
until_ok 60 sh -c 'journalctl -u pktsample -p err -o cat --no-pager | grep -q "pktsample.conf:6: unknown setting"' ||
	fail "no error entry for the bad line"
[ "$(systemctl is-active pktsample)" = active ] || fail "a bad line stopped it"
[ "$(systemctl show -p MainPID --value pktsample)" = "$pid" ] || fail "a bad line restarted it"
ok "a bad line at reload: one entry at priority err, /etc/pktsample/pktsample.conf:6, and it goes on"

# Stop: nothing attached, no process of its left (the guardian neither).
systemctl stop pktsample
[ "$(systemctl is-active pktsample)" = inactive ] || fail "not inactive after stop: $(systemctl is-active pktsample)"
until_ok 30 sh -c '! pgrep -x pktsample && ! pgrep -x pktsample-guard' || fail "left running: $(pgrep -a 'pktsample')"
for d in sva svb swa swb; do
	[ -z "$(tc filter show dev "$d" ingress 2>/dev/null; tc filter show dev "$d" egress 2>/dev/null)" ] ||
		fail "filters left on $d: $(tc filter show dev "$d" ingress)"
done
ok "systemctl stop: inactive, no filter left on any interface, no process left"
journal | grep -q "packets captured" || fail "no summary in the journal"
ok "the summary in the journal"
echo "$PASSED passed, 0 failed"
