#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Loss, made certain: the ingest is stopped while a 4 KiB-per-CPU perf
# buffer overflows (named: -B 4 alone takes a shared ring; it_order checks
# the rings' loss). Every lost sample must be accounted for, the same way in the
# packet blocks (epb_dropcount), the statistics blocks and the summary.
source "$(dirname "$0")/lib.sh"

env_up
start_capture -i "$CAPIF" --hook xdp --transport perf -B 4 -v -w "$WORK/cap.pcapng"
lose_samples 2000 64
stop_capture INT
assert_eq 0 "$PS_RC" "capture with loss exits 0"
cap=$WORK/cap.pcapng

written=$(count "$cap" "$GEN")
read -r seen drop deliv < <("$PCAPCHECK" isb "$cap" | sed 's/.*ifrecv=\([0-9]*\) ifdrop=\([0-9]*\) usrdeliv=\([0-9]*\).*/\1 \2 \3/')
echo "# seen $seen, written $written, lost $drop"
[ "$drop" -gt 1000 ] || fail "expected most of 2000 samples lost with a stopped reader, lost $drop"
ok "a stopped reader loses samples ($drop)"
# (the odd IPv6 housekeeping packet may come on top)
[ "$seen" -ge 2020 ] || fail "the hook saw $seen packets, fewer than the 2020 sent"
ok "the hook saw every frame"
assert_eq "$seen" "$((deliv + drop))" "seen = written + lost"
assert_eq "$deliv" "$(count "$cap" frame)" "usrdeliv = packets in the file"
dropsum=$(fields "$cap" frame.drop_count frame.drop_count | awk "{ s += \$1 } END { print s + 0 }")
assert_eq "$drop" "$dropsum" "the packets' drop counts add up to the loss"
assert_match "^$drop packets lost in perf buffer$" "$(grep 'lost in perf' "$WORK/ps.err")" "summary: lost"
assert_match "perf buffer: $drop lost records reported, $drop sequence gaps" "$(cat "$WORK/ps.err")" \
	"PERF_RECORD_LOST and the sequence gaps agree with the kernel's count"
assert_match "^$seen packets seen by hooks$" "$(grep 'seen by hooks' "$WORK/ps.err")" "summary: seen"
assert_nothing_attached
