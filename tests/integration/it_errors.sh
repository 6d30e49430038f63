#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Bad input: one clear line on stderr, exit 2 for usage and 1 for runtime
# failures, nothing left attached, and no capture file clobbered.
source "$(dirname "$0")/lib.sh"

env_up

# expect_error RC REGEX DESCRIPTION -- pktsample ARGS...
expect_error() {
	local want_rc=$1 re=$2 desc=$3 rc=0; shift 4
	in_cap "$@" >"$WORK/out" 2>"$WORK/err" || rc=$?
	assert_eq "$want_rc" "$rc" "$desc: exit $want_rc"
	assert_eq 1 "$(grep -c . "$WORK/err")" "$desc: exactly one line on stderr"
	assert_match "$re" "$(cat "$WORK/err")" "$desc: says why"
	assert_eq 0 "$(stat -c %s "$WORK/out")" "$desc: nothing on stdout"
}

P=$PKTSAMPLE
help=$("$P" --help)
assert_match "^Usage: pktsample -i IFACE" "$help" "--help prints usage on stdout"
assert_match "--xdp-mode MODE" "$help" "--help lists the options"
assert_match "^pktsample [0-9]+\.[0-9]+\.[0-9]+ " "$("$P" --version)" "--version"
expect_error 2 "^pktsample: unknown interface 'nope0'$" "unknown interface" -- \
	"$P" -i nope0 -w "$WORK/x.pcapng"
expect_error 2 "^pktsample: unknown option '--frobnicate' \(see --help\)$" "unknown flag" -- \
	"$P" -i "$CAPIF" -w "$WORK/x.pcapng" --frobnicate
expect_error 2 "bad snaplen 'lots'" "bad number" -- \
	"$P" -i "$CAPIF" -w "$WORK/x.pcapng" -s lots
expect_error 2 "no interface: use -i IFACE" "no -i" -- "$P" -w "$WORK/x.pcapng"
expect_error 2 "^pktsample: -i is for a live capture; -r reads a file" "-r with -i" -- \
	"$P" -r "$WORK/x.pcapng" -i "$CAPIF"
expect_error 1 "^pktsample: cannot read $WORK/none.pcap: No such file or directory$" \
	"-r of a missing file" -- "$P" -r "$WORK/none.pcap"
printf 'not a capture' >"$WORK/junk"
expect_error 1 "^pktsample: $WORK/junk is neither pcap nor pcapng$" "-r of junk" -- \
	"$P" -r "$WORK/junk" -w "$WORK/never.pcap"
[ ! -e "$WORK/never.pcap" ] || fail "-r of junk created its output"
expect_error 1 "^pktsample: cannot write $WORK/no/such/dir/x.pcapng: No such file or directory$" \
	"unwritable path" -- "$P" -i "$CAPIF" -w "$WORK/no/such/dir/x.pcapng"
# As nobody, from a copy nobody may run wherever the build tree lives.
chmod 755 "$WORK"
install -m 755 "$P" "$WORK/pktsample-copy"
expect_error 1 "^pktsample: need root, or CAP_BPF, CAP_PERFMON and CAP_NET_ADMIN" \
	"no privileges" -- setpriv --reuid=65534 --regid=65534 --clear-groups \
	--inh-caps=-all "$WORK/pktsample-copy" -i "$CAPIF" -w "$WORK/never.pcapng"
[ ! -e "$WORK/never.pcapng" ] || fail "an unprivileged run created its output"
assert_nothing_attached

# pcapng is binary: not onto a terminal.
rc=0
script -qec "ip netns exec $ENV-cap $P -i $CAPIF -w -" /dev/null >"$WORK/tty" 2>&1 || rc=$?
assert_eq 2 "$rc" "-w - on a terminal: exit 2"
assert_match "refusing to write pcapng to a terminal" "$(cat "$WORK/tty")" "-w - on a terminal: says why"

# A failure after some hooks attached: native XDP on lo is refused, after
# XDP and tc-egress went onto the veth. All of it must come off again, an
# existing capture file must stay as it was, and a new one must go.
echo "precious" >"$WORK/old.pcapng"
expect_error 1 "^pktsample: cannot attach XDP to lo in native mode" "attach failure" -- \
	"$P" -i "$CAPIF" -i lo --hook xdp,tc-egress --xdp-mode native -w "$WORK/old.pcapng"
assert_eq "precious" "$(cat "$WORK/old.pcapng")" "a failed start leaves an existing file alone"
expect_error 1 "^pktsample: cannot attach XDP to lo in native mode" "attach failure, new file" -- \
	"$P" -i "$CAPIF" -i lo --hook xdp,tc-egress --xdp-mode native -w "$WORK/new.pcapng"
[ ! -e "$WORK/new.pcapng" ] || fail "a failed start left $WORK/new.pcapng behind"
ok "a failed start removes the file it created"
assert_nothing_attached
assert_nothing_attached lo

# The rings in a memory cgroup too small for them: their pages are charged
# to the capture's memory cgroup (kernels from 5.11; 5.10 counts BPF memory
# against the locked-memory limit instead), the perf buffers' are not. In
# the same cgroup the perf buffers start; the rings give one line that
# says what fits, exit 1, and leave nothing attached and no file. -B 65536
# is more than the limit on any number of CPUs.
memcg="" limit=""
if [ -w /sys/fs/cgroup/memory/cgroup.procs ]; then
	memcg=/sys/fs/cgroup/memory/pktsample-it-$ENV limit=memory.limit_in_bytes
elif grep -qw memory /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null; then
	memcg=/sys/fs/cgroup/pktsample-it-$ENV limit=memory.max
fi
kver=$(uname -r | awk -F. '{ print $1 * 1000 + $2 }')
if [ -z "$memcg" ] || [ "$kver" -lt 5011 ]; then
	why=$([ -z "$memcg" ] && echo "no memory cgroup to make" || echo "kernel $(uname -r) charges no BPF memory to cgroups")
	[ -z "${CI:-}" ] || fail "the rings in a small memory cgroup cannot be checked in CI: $why"
	echo "skipped: the rings in a small memory cgroup: $why" >&2
else
	mkdir "$memcg" && CLEAN_CGROUPS+=("$memcg")
	echo $((48 << 20)) >"$memcg/$limit"
	# CMD in that cgroup, then in the namespace (whose /sys has no cgroups).
	in_memcg=(bash -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$memcg" "$TESTENV" exec "$ENV" cap --)
	: >"$WORK/ps.err"
	"${in_memcg[@]}" "$P" -i "$CAPIF" -B 65536 -w "$WORK/perf.pcapng" 2>"$WORK/ps.err" &
	PS_PID=$!
	PIDS+=("$PS_PID")
	wait_started "$PS_PID"
	stop_capture
	assert_eq 0 "$PS_RC" "perf buffers within a 48 MiB memory cgroup: they start and stop"
	rc=0
	"${in_memcg[@]}" "$P" -i "$CAPIF" --transport ringbuf -B 65536 -w "$WORK/ring.pcapng" \
		>"$WORK/out" 2>"$WORK/err" || rc=$?
	assert_eq 1 "$rc" "rings over a memory cgroup's limit: exit 1"
	assert_eq 1 "$(grep -c . "$WORK/err")" "rings over a memory cgroup's limit: one line on stderr"
	assert_match "^pktsample: cannot make the BPF ring buffer of CPU [0-9]+ \([0-9]+ KiB\): Cannot allocate memory \(rings are charged to the capture's memory cgroup: a smaller buffer may fit, or the perf buffers, which are not\)$" \
		"$(cat "$WORK/err")" "rings over a memory cgroup's limit: says what fits"
	[ ! -e "$WORK/ring.pcapng" ] || fail "rings over the memory limit left their file behind"
	assert_nothing_attached
fi

# A full disk: a 256 KiB tmpfs fills mid-capture. One line naming the file
# and the error, exit 1, nothing attached; the file ends on its last whole
# block, and "captured" counts exactly the packets in it.
mkdir "$WORK/small"
mount -t tmpfs -o size=256k "pktsample-it-$ENV" "$WORK/small"
MOUNTS+=("$WORK/small")
: >"$WORK/ps.err"
"$TESTENV" exec "$ENV" cap -- "$P" -i "$CAPIF" -w "$WORK/small/full.pcapng" 2>"$WORK/ps.err" &
PS_PID=$!
PIDS+=("$PS_PID")
wait_started "$PS_PID"
in_peer "$PSGEN" -i "$PEERIF" -n 5000 -s 300 --rate 20000 >/dev/null
wait_capture
assert_eq 1 "$PS_RC" "full disk: exit 1 without being stopped"
assert_eq 1 "$(grep -c '^pktsample: cannot write' "$WORK/ps.err")" "full disk: one error line"
assert_match "^pktsample: cannot write $WORK/small/full.pcapng: No space left on device$" \
	"$(grep '^pktsample: cannot write' "$WORK/ps.err")" "full disk: names the file and the error"
assert_nothing_attached
in_file=$("$PCAPCHECK" blocks "$WORK/small/full.pcapng") || fail "full disk: the file ends in a partial block"
ok "full disk: every block whole to the end ($in_file packets)"
assert_eq "$in_file" "$(count "$WORK/small/full.pcapng" frame)" "full disk: tshark reads it to the end"
assert_match "^$in_file packets? captured$" "$(grep captured "$WORK/ps.err")" \
	"full disk: captured = packets in the file"
assert_match "^[1-9][0-9]* packets? lost to the write error$" "$(grep 'write error' "$WORK/ps.err")" \
	"full disk: says how many the write error lost"

# A reader that goes away: `-w - | head -c N`. Only what head read counts.
for bytes in 100 3000; do
	: >"$WORK/ps.err"
	"$TESTENV" exec "$ENV" cap -- "$P" -i "$CAPIF" -w - 2>"$WORK/ps.err" |
		head -c "$bytes" >"$WORK/head.out" &
	PS_PID=$!
	PIDS+=("$PS_PID")
	wait_started "$PS_PID"
	in_peer "$PSGEN" -i "$PEERIF" -n 3000 -s 64 --rate 10000 >/dev/null
	in_cap ping -q -c 3 -i 0.2 192.0.2.2 >/dev/null || true
	if kill -0 "$PS_PID" 2>/dev/null; then
		kill -INT "$PS_PID"
	fi
	wait "$PS_PID" || true
	# The whole packet blocks in what head read.
	whole=$(python3 - "$WORK/head.out" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read(); off = n = 0
while off + 12 <= len(d):
    t, l = struct.unpack_from("<II", d, off)
    if l < 12 or off + l > len(d):
        break
    n += t == 6; off += l
print(n)
PY
)
	assert_match "^pktsample: cannot write stdout: Broken pipe$" \
		"$(grep '^pktsample: cannot write' "$WORK/ps.err")" "head -c $bytes: says the pipe broke"
	assert_match "^$whole packets? captured$" "$(grep captured "$WORK/ps.err")" \
		"head -c $bytes: captured = the $whole whole packets head read"
	assert_nothing_attached
done
