#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# A slow output: `pktsample -w - | a reader that takes 64 KiB every 10 ms`
# under a flood, through the perf buffers (named: -B 1024 alone takes a
# shared ring). The writer waits on the pipe, the buffers fill, and the
# kernel's losses are counted: nothing is lost silently. The reader's file
# is whole (every block, as tshark reads it), holds exactly the packets the
# summary says were captured, and seen = captured + lost in the buffer +
# lost to the write error (the stop gives a full pipe 500 ms).
source "$(dirname "$0")/lib.sh"
need_tools python3

env_up
: >"$WORK/ps.err"
in_cap bash -c "'$PKTSAMPLE' -i '$CAPIF' --hook tc-ingress --transport perf -B 1024 -w - 2>'$WORK/ps.err' |
	python3 -c '
import sys, time
out = open(sys.argv[1], \"wb\")
while True:
    b = sys.stdin.buffer.read1(65536)
    if not b:
        break
    out.write(b)
    time.sleep(0.01)' '$WORK/slow.pcapng'" &
PS_PID=$!
PIDS+=("$PS_PID")
wait_started "$PS_PID"
in_peer "$PSGEN" -i "$PEERIF" -n 20000 -s 1000 >/dev/null
sleep "$(scaled 1)"
in_cap pkill -INT -f "pktsample -i $CAPIF" || true
wait_capture
assert_eq 0 "$PS_RC" "pktsample and the reader exit 0"

summary() { sed -n "s/^\([0-9]*\) packets\? $1.*/\1/p" "$WORK/ps.err"; }
captured=$(summary captured)
seen=$(summary "seen by hooks")
lost=$(summary "lost in perf buffer")
to_write=$(summary "lost to the write error")
to_write=${to_write:-0}
[ "${lost:-0}" -gt 0 ] || fail "the slow reader made no loss: $(cat "$WORK/ps.err")"
ok "the buffer filled behind the slow output: $lost lost, counted"
assert_match "the buffer was too small: about -B [0-9]+" "$(cat "$WORK/ps.err")" \
	"the summary says what -B would have held them"
if [ "$(getconf _NPROCESSORS_ONLN)" -gt 1 ]; then
	assert_match "each CPU had 1/[0-9]+ of it, and a flow's packets all land on one CPU" \
		"$(cat "$WORK/ps.err")" "and that each CPU had its share of it"
else
	assert_no_match "each CPU had" "$(cat "$WORK/ps.err")" "one CPU: no share to speak of"
fi
assert_eq "$seen" "$((captured + lost + to_write))" \
	"seen = captured + lost in the buffer + lost to the write error ($captured + $lost + $to_write)"
assert_eq "$captured" "$(count "$WORK/slow.pcapng" "frame")" \
	"the reader's file is whole and holds exactly the packets captured"
assert_nothing_attached
