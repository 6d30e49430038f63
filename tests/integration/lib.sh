# SPDX-License-Identifier: GPL-2.0-only
# Shared helpers for pktsample's integration tests. Each test runs in its own
# testenv (uniquely named namespaces), and an EXIT trap tears everything down
# even when an assertion fails.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
: "${PKTSAMPLE:=$top/build/pktsample}"
: "${PSGEN:=$top/build/psgen}"
: "${PCAPCHECK:=$top/build/tests/pcapcheck}"
: "${TESTENV:=$top/testenv/testenv.sh}"
: "${TCX_HOLD:=$top/build/tests/tcx_hold}"

# skip REASON: exit 77 (ctest reports the test skipped); in CI, where
# everything is installed and we are root, a lack is a failure instead.
skip() {
	if [ -n "${CI:-}" ]; then
		echo "FAIL: $(basename "$0") cannot run in CI: $*" >&2
		exit 1
	fi
	echo "skipped: $(basename "$0"): $*" >&2
	exit 77
}

# need_tools TOOL...: skip unless every tool is installed.
need_tools() {
	local t
	for t in "$@"; do
		command -v "$t" >/dev/null 2>&1 || skip "needs $t"
	done
}

# The namespace tests need root; a script that does not sets PS_NO_ROOT=1
# before sourcing this file.
if [ -z "${PS_NO_ROOT:-}" ] && [ "$(id -u)" != 0 ]; then
	skip "needs root (network namespaces, BPF)"
fi
[ -n "${PS_NO_ROOT:-}" ] || need_tools ip tshark capinfos tcpdump

WORK=$(mktemp -d /tmp/pktsample-it.XXXXXX)
ENVS=()
PIDS=()
MOUNTS=()
CLEAN_DIRS=() # outside $WORK (tmpfs), removed at exit
CLEAN_CGROUPS=() # cgroup directories, removed (the last made first) at exit
SYSCTLS=()    # key=value, written back at exit
PASSED=0

cleanup() {
	local rc=$?
	for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
	for m in "${MOUNTS[@]}"; do umount "$m" 2>/dev/null || true; done
	for e in "${ENVS[@]}"; do "$TESTENV" teardown "$e"; done
	for d in "${CLEAN_DIRS[@]}"; do rm -rf "$d"; done
	for ((i = ${#CLEAN_CGROUPS[@]} - 1; i >= 0; i--)); do
		# Its processes are gone (killed above), perhaps not yet reaped.
		for _ in $(seq 20); do rmdir "${CLEAN_CGROUPS[i]}" 2>/dev/null && break; sleep 0.1; done
	done
	for s in "${SYSCTLS[@]}"; do sysctl -q -w "$s" || true; done
	if [ $rc -ne 0 ] && [ -s "$WORK/ps.err" ]; then
		echo "--- last pktsample stderr:" >&2
		cat "$WORK/ps.err" >&2
	fi
	[ -n "${KEEP_WORK:-}" ] || rm -rf "$WORK"
	if [ $rc -eq 0 ]; then
		echo "$PASSED passed, 0 failed"
	else
		echo "$PASSED passed, 1 failed"
	fi
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Time limits that say "promptly" (a stop within a second) are natively
# measured; on a slower machine (testenv/kernel-vm.sh's emulated guest sets
# PS_TIME_SCALE) they stretch by its factor. scaled MS: the limit here.
: "${PS_TIME_SCALE:=1}"
scaled() { echo $(($1 * PS_TIME_SCALE)); }

fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { PASSED=$((PASSED + 1)); echo "ok $PASSED - $*"; }

assert_eq() { # expected actual description
	[ "$1" = "$2" ] || fail "$3: expected '$1', got '$2'"
	ok "$3"
}

assert_match() { # regex text description
	[[ "$2" =~ $1 ]] || fail "$3: '$2' does not match /$1/"
	ok "$3"
}

assert_no_match() { # regex text description
	[[ ! "$2" =~ $1 ]] || fail "$3: '$2' matches /$1/"
	ok "$3"
}

# env_up [--mtu N]: a fresh testenv; sets ENV, CAPIF, PEERIF.
env_up() {
	ENV=$("$TESTENV" setup "$@")
	ENVS+=("$ENV")
	CAPIF=${ENV}0
	PEERIF=${ENV}1
}

in_cap() { "$TESTENV" exec "$ENV" cap -- "$@"; }
in_peer() { "$TESTENV" exec "$ENV" peer -- "$@"; }

# start_capture ARGS...: pktsample in the capture namespace, in the
# background; returns once it has attached (or fails with its stderr).
start_capture() {
	: >"$WORK/ps.err"
	"$TESTENV" exec "$ENV" cap -- "$PKTSAMPLE" "$@" 2>"$WORK/ps.err" &
	PS_PID=$!
	PIDS+=("$PS_PID")
	wait_started "$PS_PID"
}

# started FILE: has the pktsample logging to FILE attached everything? (Its
# per-interface lines come once all is attached, -i any's line of names
# after them; following interfaces, there may be none yet.)
started() { grep -qE 'capturing on ([^ ]+ \(.*\), snaplen|no interface yet)' "$1"; }

# wait_started PID: until pktsample (logging to $WORK/ps.err, which the
# caller truncated before starting it) has attached.
wait_started() {
	for _ in $(seq $((100 * PS_TIME_SCALE))); do
		started "$WORK/ps.err" && return 0
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	fail "pktsample did not start: $(cat "$WORK/ps.err")"
}

# stop_capture [SIGNAL]: signal pktsample and wait; sets PS_RC.
stop_capture() {
	kill "-${1:-INT}" "$PS_PID" 2>/dev/null || true
	wait_capture
}

wait_capture() {
	PS_RC=0
	wait "$PS_PID" || PS_RC=$?
}

# lose_samples N SIZE: samples lost for certain. The capture is stopped
# while the peer sends N 64-byte frames from CPU 0 at 50000/s (its buffer
# overflows), then resumed; then 20 frames of SIZE bytes from the same CPU,
# after the reader caught up (drop counts are per CPU: a gap shows on the
# next packet from the CPU that lost it).
lose_samples() {
	kill -STOP "$PS_PID"
	in_peer taskset -c 0 "$PSGEN" -i "$PEERIF" -n "$1" -s 64 --rate 50000 >/dev/null
	kill -CONT "$PS_PID"
	sleep 0.3
	in_peer taskset -c 0 "$PSGEN" -i "$PEERIF" -n 20 -s "$2" --rate 1000 >/dev/null
	sleep 0.3
}

# tshark_q ARGS...: tshark whose stderr must be empty (bar the root warning)
# and whose exit status must be 0; prints its stdout.
tshark_q() {
	local out rc=0
	out=$(tshark "$@" 2>"$WORK/tshark.err") || rc=$?
	grep -v '^Running as user "root"' "$WORK/tshark.err" >"$WORK/tshark.err2" || true
	[ $rc -eq 0 ] || fail "tshark $* exited $rc: $(cat "$WORK/tshark.err2")"
	[ ! -s "$WORK/tshark.err2" ] || fail "tshark $* complained: $(cat "$WORK/tshark.err2")"
	printf '%s' "$out"
}

# fields FILE FILTER FIELD...: one line per matching packet.
fields() {
	local file=$1 filter=$2; shift 2
	local args=()
	for f in "$@"; do args+=(-e "$f"); done
	tshark_q -r "$file" -Y "$filter" -T fields -E separator='|' "${args[@]}"
}

count() { # FILE FILTER
	local n
	n=$(tshark_q -r "$1" -Y "$2" -T fields -e frame.number | grep -c . || true)
	echo "$n"
}

# extract FILE FILTER OUT: the matching frames as a nanosecond pcap.
extract() {
	tshark_q -r "$1" -Y "$2" -F nsecpcap -w "$3" >/dev/null
}

# tcx_programs DEV [NS]: how many programs are on DEV's tcx hooks, both
# (bpftool 7.1 shows none of them; tcx_hold --list asks the kernel). 0
# where the kernel has no tcx.
tcx_programs() {
	local n=0 dir
	kernel_has_tcx || { echo 0; return; }
	[ -x "$TCX_HOLD" ] || fail "needs $TCX_HOLD (build first)"
	for dir in ingress egress; do
		n=$((n + $("$TESTENV" exec "$ENV" "${2:-cap}" -- "$TCX_HOLD" --list "$1" "$dir" | grep -c . || true)))
	done
	echo "$n"
}

# Nothing of ours on the interface: no XDP program (ip link), no clsact
# BPF program (bpftool net), no program on its tcx hooks, no pktsample
# filter (tc filter). (After a SIGKILL on clsact, the guardian removes the
# filters as soon as it sees the capture gone: a moment later, so this
# asks for a while.)
assert_nothing_attached() {
	local dev=${1:-$CAPIF} ns=${2:-cap} xdp tc filters
	for _ in $(seq 50); do
		xdp=$("$TESTENV" exec "$ENV" "$ns" -- ip -d link show dev "$dev" | grep -c 'prog/xdp' || true)
		tc=$("$TESTENV" exec "$ENV" "$ns" -- bpftool -j net show dev "$dev" |
			python3 -c 'import json,sys; d=json.load(sys.stdin)[0]; print(len(d.get("tc",[]))+len(d.get("xdp",[])))')
		tc=$((tc + $(tcx_programs "$dev" "$ns")))
		filters=$( { "$TESTENV" exec "$ENV" "$ns" -- tc filter show dev "$dev" ingress
			     "$TESTENV" exec "$ENV" "$ns" -- tc filter show dev "$dev" egress; } 2>/dev/null |
			grep -c pktsample || true)
		[ "$xdp $tc $filters" = "0 0 0" ] && break
		sleep 0.1
	done
	assert_eq "0 0 0" "$xdp $tc $filters" "nothing attached to $dev"
}

# listening udp|tcp PORT: does something in the capture namespace listen
# there?
listening() { in_cap ss -Hl"${1:0:1}"n "sport = :$2" | grep -q .; }

# wait_listening udp|tcp PORT: until something listens there (a datagram
# sent before is refused, and counted as a failed send); 1 if none does.
wait_listening() {
	for _ in $(seq $((50 * PS_TIME_SCALE))); do
		listening "$1" "$2" && return 0
		sleep 0.1
	done
	return 1
}

# start_sfacctd CONF: pmacct's sFlow collector in the capture namespace,
# listening on 6343, logging to $WORK/sfacctd.log.
start_sfacctd() {
	"$TESTENV" exec "$ENV" cap -- sfacctd -f "$1" >"$WORK/sfacctd.log" 2>&1 &
	PIDS+=($!)
	wait_listening udp 6343 || fail "sfacctd is not listening: $(cat "$WORK/sfacctd.log")"
}

# start_sfacctd_csv [AGGREGATE]: sfacctd on 127.0.0.1, renormalising by the
# sampling rate, counting per AGGREGATE (default: proto) into
# $WORK/sfacctd.csv every second.
start_sfacctd_csv() {
	cat >"$WORK/sfacctd.conf" <<CONF
daemonize: false
sfacctd_ip: 127.0.0.1
sfacctd_port: 6343
sfacctd_renormalize: true
plugins: print
aggregate: ${1:-proto}
print_output: csv
print_output_file: $WORK/sfacctd.csv
print_output_file_append: true
print_refresh_time: 1
CONF
	start_sfacctd "$WORK/sfacctd.conf"
}

# assert_sfacctd_udp FRAMES RATE WHAT: the UDP packets start_sfacctd_csv's
# collector counted (each second's rows appended), renormalised, are
# within 5 sigma of the FRAMES sent, sampled 1 in RATE.
assert_sfacctd_udp() {
	local got sigma
	[ -s "$WORK/sfacctd.csv" ] || fail "sfacctd wrote nothing: $(cat "$WORK/sfacctd.log")"
	got=$(awk -F, '/PACKETS/ { for (i = 1; i <= NF; i++) if ($i == "PACKETS") p = i; next }
		tolower($0) ~ /udp/ { s += $p } END { print s + 0 }' "$WORK/sfacctd.csv")
	sigma=$(python3 -c "import math; print(math.sqrt($1 * $2 * (1 - 1 / $2)))")
	echo "# sfacctd: $got UDP packets renormalised, $1 sent, sigma $sigma"
	python3 -c "import sys; sys.exit(0 if abs($got - $1) <= 5 * $sigma else 1)" ||
		fail "sfacctd counted $got UDP packets for $1 sent (more than 5 sigma off)"
	ok "$3"
}

# start_sflow_tcpdump [OPTION...]: tcpdump on the capture namespace's lo
# (with the OPTIONs), writing the datagrams to UDP 6343 (the sFlow
# collector's port) to $WORK/sflow.pcap; TD its pid. Returns once it
# listens, or after 5 s.
start_sflow_tcpdump() {
	local args=(-i lo -U "$@" -w "$WORK/sflow.pcap")
	SFLOW_TCPDUMP="^tcpdump ${args[*]}"
	"$TESTENV" exec "$ENV" cap -- tcpdump "${args[@]}" udp port 6343 2>"$WORK/tcpdump.err" &
	TD=$!
	PIDS+=("$TD")
	for _ in $(seq 50); do grep -q listening "$WORK/tcpdump.err" && break; sleep 0.1; done
}

# stop_sflow_tcpdump: start_sflow_tcpdump's tcpdump interrupted (so that it
# writes out what it holds; $TD is the namespace wrapper's pid) and waited
# for.
stop_sflow_tcpdump() {
	local td
	td=$(pgrep -f "$SFLOW_TCPDUMP" || true)
	[ -z "$td" ] || kill -INT "$td" 2>/dev/null || true
	wait "$TD" 2>/dev/null || true
}

# set_sysctl KEY VALUE: for this test; the old value comes back at exit.
set_sysctl() {
	SYSCTLS+=("$1=$(sysctl -n "$1")")
	sysctl -q -w "$1=$2"
}

# kernel_has_tcx: tcx links came with 6.6; before, TC goes through clsact.
kernel_has_tcx() {
	local v
	v=$(uname -r)
	[ "${v%%.*}" -gt 6 ] || { [ "${v%%.*}" -eq 6 ] && v=${v#*.} && [ "${v%%.*}" -ge 6 ]; }
}

# sock_create_on CGROUP: is a cgroup/sock_create program attached there?
# bpftool's cgroup listing, or where its query fails (bpftool 7.1 on 5.10),
# the BPF links made on that cgroup (its id is its inode number).
sock_create_on() {
	local out id
	if out=$(bpftool cgroup show "$1" 2>/dev/null); then
		grep -q sock_create <<<"$out"
		return
	fi
	id=$(stat -c %i "$1")
	bpftool link show | grep -q "cgroup_id $id  *attach_type cgroup_inet_sock_create"
}

# capture_pid PATTERN: the pid of the pktsample whose command line has
# PATTERN (start_capture's $PS_PID is the namespace wrapper's).
capture_pid() {
	pgrep -n -f -- "$1" || fail "no pktsample running with $1"
}

# links_of PID: the BPF link ids a process holds, from its fdinfo.
links_of() {
	cat /proc/"$1"/fdinfo/* 2>/dev/null | sed -n 's/^link_id:\t*//p' | sort -n | tr '\n' ' '
}

# assert_links_gone IDS DESCRIPTION: none of the link ids exists any more.
assert_links_gone() {
	local id
	for id in $1; do
		! bpftool link show id "$id" >/dev/null 2>&1 || fail "$2: link $id is still there"
	done
	ok "$2"
}

# ms_since T0: milliseconds since T0 (from now_ns).
# reload_capture: SIGHUP to $PS_PID (a capture with --config), until it
# says what became of the reload; prints that line.
reload_capture() {
	local said="configuration read again\|keeping the running" n
	n=$(grep -c "$said" "$WORK/ps.err" || true)
	kill -HUP "$PS_PID"
	for _ in $(seq $((100 * PS_TIME_SCALE))); do
		[ "$(grep -c "$said" "$WORK/ps.err")" -gt "$n" ] && break
		sleep 0.05
	done
	grep "$said" "$WORK/ps.err" | tail -1
}

# start_prometheus: a real Prometheus in the capture namespace on
# 127.0.0.1:9090 with $WORK/prometheus.yml, its storage in $WORK/tsdb.
start_prometheus() {
	"$TESTENV" exec "$ENV" cap -- prometheus --config.file="$WORK/prometheus.yml" \
		--storage.tsdb.path="$WORK/tsdb" --web.listen-address=127.0.0.1:9090 \
		>"$WORK/prometheus.log" 2>&1 &
	PIDS+=($!)
}

# prom_query QUERY: its first value through Prometheus' API; "" for none.
prom_query() {
	in_cap curl -s --get --data-urlencode "query=$1" http://127.0.0.1:9090/api/v1/query |
		python3 -c 'import json, sys
r = json.load(sys.stdin)["data"]["result"]
print(r[0]["value"][1] if r else "")'
}

now_ns() { date +%s%N; }
ms_since() { echo $((($(now_ns) - $1) / 1000000)); }

# The words a printed packet's annotation ends with: whom it belongs to,
# or why not (doc/guide.md, "Who sent it"), as an extended regular
# expression.
OWNER_WORDS='((owner=sender )?pid=[0-9]+( tid=[0-9]+)? comm=[^ ]+( container=[^ ]+| cgroup=[^ ]+)?( netns=[^ ]+)?|owner=[a-z]+:[a-z-]+( container=[^ ]+| cgroup=[^ ]+)?)'

# A packet block's whole comment at the defaults: its process (and its
# container or cgroup), or its container or cgroup alone, or nothing (the
# CPU is in the packet id, and an owner not known goes unsaid).
BLOCK_WORDS='^(((owner=sender )?pid=[0-9]+( tid=[0-9]+)? comm=[^ ]+|container=[^ ]+|cgroup=[^ ]+)( container=[^ ]+| cgroup=[^ ]+)?( netns=[^ ]+)?)?$'

# The generator's frames (UDP/TCP to port 9) only.
GEN='(udp.dstport == 9 || tcp.dstport == 9)'
