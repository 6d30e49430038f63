#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# --top: the live ranking. Two processes of the capture side, named
# fastsend and slowsend, send UDP at about 200 and 20 datagrams a second;
# the peer sends to a port nothing listens on, which the kernel drops
# (NO_SOCKET).
#   batch (--top --batch, and stdout not a terminal): the tables parse,
#     both senders are named, the faster first at about 200/s, and the
#     tables' packets add up to the file written beside them (-w);
#     stdout closed (| head) ends the capture cleanly, nothing left attached;
#     --metrics beside it serves the same counts by process (promtool checks
#     the text), fastsend's the most; with --sample 2 and a filter, each
#     sample counts twice (the header says so) and the rate is still 200/s
#   full screen, in a real terminal (tmux): both named within a few
#     seconds, the faster above, near 200/s; 5 shows the drop reasons
#     (NO_SOCKET); a terminal too small says so and a larger one gets the
#     table back; q quits with the summary, SIGINT too, and either way the
#     terminal is given back (no alternate screen, echo and canonical mode
#     on again)
source "$(dirname "$0")/lib.sh"
need_tools python3 tmux stty curl promtool

env_up
SENDER=$WORK/sender.py
cat >"$SENDER" <<'EOF'
import ctypes, socket, sys, time
# NAME RATE ADDR PORT: UDP datagrams of 100 bytes at RATE a second, as NAME.
ctypes.CDLL(None).prctl(15, sys.argv[1].encode(), 0, 0, 0)  # PR_SET_NAME
rate, addr, port = float(sys.argv[2]), sys.argv[3], int(sys.argv[4])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
t, i = time.monotonic(), 0
while True:
    try:
        s.sendto(b"x" * 100, (addr, port))
    except OSError:
        pass  # the port unreachable that came back
    i += 1
    d = t + i / rate - time.monotonic()
    if d > 0:
        time.sleep(d)
EOF
# senders: the two of the capture side and the peer's to a closed port.
SENDERS=()
senders() {
	in_cap python3 "$SENDER" fastsend 200 192.0.2.2 9 2>/dev/null &
	SENDERS+=($!)
	in_cap python3 "$SENDER" slowsend 20 192.0.2.2 9 2>/dev/null &
	SENDERS+=($!)
	in_peer python3 "$SENDER" dropsend 50 192.0.2.1 9 2>/dev/null &
	SENDERS+=($!)
	PIDS+=("${SENDERS[@]}")
}
senders_stop() {
	pkill -f "$SENDER" || true
	wait "${SENDERS[@]}" 2>/dev/null || true # quietly: no "Terminated"
	SENDERS=()
}
HOOKS=tc-ingress,tc-egress,drop

# --- batch ---------------------------------------------------------------
: >"$WORK/ps.err"
in_cap "$PKTSAMPLE" -i "$CAPIF" --hook "$HOOKS" --top -w "$WORK/top.pcapng" \
	--metrics 127.0.0.1:9650 >"$WORK/top.txt" 2>"$WORK/ps.err" &
PS_PID=$!
PIDS+=("$PS_PID")
wait_started "$PS_PID"
senders
sleep "$(scaled 4)"
in_cap curl -sf http://127.0.0.1:9650/metrics >"$WORK/metrics" || fail "no metrics"
sleep "$(scaled 1)"
in_cap pkill -INT -f "pktsample -i $CAPIF" || true
wait "$PS_PID" && rc=0 || rc=$?
senders_stop
assert_eq 0 "$rc" "--top with stdout a file: exit 0"
assert_match "^pktsample top [0-9:]+, by process, most bytes first" "$(head -1 "$WORK/top.txt")" \
	"stdout no terminal: plain tables, as top -b"
python3 - "$WORK/top.txt" >"$WORK/parsed" <<'EOF' || fail "the tables do not parse: $(cat "$WORK/top.txt")"
import re, sys
tables, cur = [], None
for line in open(sys.argv[1]):
    line = line.rstrip("\n")
    if line.startswith("pktsample top "):
        cur = {"secs": float(re.search(r", ([0-9.]+) s", line).group(1)), "rows": {}}
        tables.append(cur)
    elif line.startswith("total: "):
        cur["total"] = int(line.split()[1])
    elif line.startswith(" IN_PKT/S") or not line:
        continue
    else:
        f = line.split(None, 7)
        assert len(f) == 8 and f[5].endswith("%"), line
        cur["rows"][f[7]] = {"out": float(f[2]), "packets": int(f[6])}
        assert f[7], line
for t in tables:
    assert sum(r["packets"] for r in t["rows"].values()) == t["total"], t
print(len(tables), sum(t["total"] for t in tables))
# The full tables (not the first, which the senders started in, nor the
# last, cut short by the stop): each sender's rate, by its name.
for t in tables[1:-1]:
    if abs(t["secs"] - 1) > 0.3:
        continue
    fast = [r["out"] for n, r in t["rows"].items() if n.startswith("fastsend (")]
    slow = [r["out"] for n, r in t["rows"].items() if n.startswith("slowsend (")]
    order = [n.split(" (")[0] for n in t["rows"]]
    print("full", fast[0] if fast else -1, slow[0] if slow else -1,
          order.index("fastsend") < order.index("slowsend") if fast and slow else False)
EOF
read -r n_tables total <"$WORK/parsed"
[ "$n_tables" -ge 4 ] || fail "$n_tables tables in 5 s"
ok "$n_tables tables parse, each row's packets adding up to its total"
file_packets=$(capinfos -c -M "$WORK/top.pcapng" | awk '/Number of packets/ {print $NF}')
assert_eq "$file_packets" "$total" "the tables' packets together are the file's ($file_packets)"
grep -q "^full " "$WORK/parsed" || fail "no full table: $(cat "$WORK/top.txt")"
python3 - "$WORK/parsed" <<'EOF' || fail "the senders' rates: $(grep ^full "$WORK/parsed")"
import sys
rows = [l.split() for l in open(sys.argv[1]) if l.startswith("full ")]
fast = sorted(float(r[1]) for r in rows)
assert all(r[3] == "True" for r in rows), rows
assert 150 <= fast[len(fast) // 2] <= 250, fast
assert all(10 <= float(r[2]) <= 30 for r in rows), rows
EOF
ok "fastsend and slowsend named, the faster first at about 200/s, the slower about 20/s"

promtool check metrics <"$WORK/metrics" >"$WORK/promtool" 2>&1 ||
	fail "promtool: $(cat "$WORK/promtool")"
python3 - "$WORK/metrics" <<'EOF' || fail "the metrics by process: $(grep process_ "$WORK/metrics")"
import re, sys
out = {}
for line in open(sys.argv[1]):
    m = re.match(r'pktsample_process_packets_total\{process="([^"]*)",pid="([0-9]*)",'
                 r'direction="out"\} ([0-9]+)', line)
    if m:
        out[m.group(1)] = int(m.group(3))
assert out["fastsend"] > out["slowsend"] > 0, out
assert "(other)" in out, out
assert len(out) <= 21, out
EOF
ok "--metrics beside it: packets by process, fastsend's the most, promtool takes the text"

# Sampled 1 in 2 at random: each sample counts twice, and the header says so.
: >"$WORK/ps.err"
in_cap "$PKTSAMPLE" -i "$CAPIF" --sample 2 --top --batch 'udp' >"$WORK/sampled.txt" \
	2>"$WORK/ps.err" &
PS_PID=$!
PIDS+=("$PS_PID")
wait_started "$PS_PID"
senders
sleep "$(scaled 5)"
in_cap pkill -INT -f "pktsample -i $CAPIF" || true
wait "$PS_PID" || fail "--sample 2 --top: $(cat "$WORK/ps.err")"
senders_stop
assert_match "^pktsample top .*; sampled 1 in 2: counts x2$" "$(head -1 "$WORK/sampled.txt")" \
	"--sample 2: the header says each sample counts twice"
python3 - "$WORK/sampled.txt" <<'EOF' || fail "sampled rates: $(cat "$WORK/sampled.txt")"
import statistics, sys
rates = [float(l.split()[2]) for l in open(sys.argv[1]) if l.rstrip().endswith(")") and " fastsend (" in l]
assert len(rates) >= 3, rates
m = statistics.median(rates[1:-1] or rates)
assert 140 <= m <= 260, rates
EOF
ok "--sample 2: fastsend still at about 200/s, renormalised"

# Stdout closed: the reader leaves after a few lines.
: >"$WORK/ps.err"
in_cap bash -o pipefail -c "'$PKTSAMPLE' -i '$CAPIF' --top --batch 2>'$WORK/ps.err' | head -3 >/dev/null" &
HEAD_PID=$!
PIDS+=("$HEAD_PID")
senders
wait "$HEAD_PID" && rc=0 || rc=$?
senders_stop
assert_eq 0 "$rc" "| head: the capture ends with its reader, exit 0"
assert_match "packets captured" "$(cat "$WORK/ps.err")" "with its summary"
assert_nothing_attached

# --- full screen, in tmux --------------------------------------------------
SESSION=pstop$$
tmux_kill() { tmux kill-session -t "$SESSION" 2>/dev/null || true; }
trap 'rc=$?; tmux_kill; (exit $rc); cleanup' EXIT
# top_in_tmux KEYS_AT_END: pktsample --top in a 120x30 terminal; afterwards
# the terminal's state: its exit status, then stty's words.
top_in_tmux() {
	tmux_kill
	rm -f "$WORK/tty.done"
	: >"$WORK/ps.err"
	tmux new-session -d -s "$SESSION" -x 120 -y 30 \
		"$TESTENV exec $ENV cap -- $PKTSAMPLE -i $CAPIF --hook $HOOKS --top 2>$WORK/ps.err;
		 echo \$? >$WORK/tty.rc; stty -a >$WORK/tty.stty; touch $WORK/tty.done; sleep 600"
	wait_started "$(tmux list-panes -t "$SESSION" -F '#{pane_pid}')"
}
pane() { tmux capture-pane -p -t "$SESSION"; }
# until PATTERN: the screen shows it within a few seconds.
until_pane() {
	for _ in $(seq $((80 * PS_TIME_SCALE))); do
		pane | grep -qE "$1" && return 0
		sleep 0.1
	done
	fail "the screen never showed /$1/:
$(pane)"
}
ended() {
	for _ in $(seq $((100 * PS_TIME_SCALE))); do
		[ -e "$WORK/tty.done" ] && return 0
		sleep 0.1
	done
	fail "pktsample did not end: $(pane)"
}
restored() { # WHAT
	assert_eq 0 "$(cat "$WORK/tty.rc")" "$1: exit 0"
	assert_match "packets captured" "$(cat "$WORK/ps.err")" "$1: the summary"
	assert_eq 0 "$(tmux display -p -t "$SESSION" '#{alternate_on}')" \
		"$1: the alternate screen left"
	assert_match " icanon .* echo " "$(tr '\n' ' ' <"$WORK/tty.stty")" \
		"$1: canonical mode and echo back on"
	assert_nothing_attached
}

top_in_tmux
senders
until_pane "fastsend \\("
until_pane "slowsend \\("
# One second's rate on a loaded machine may stray: the first of ten
# screens that shows it near 200 will do, each with the faster above.
good=
for _ in $(seq 10); do
	sleep 1
	pane >"$WORK/screen"
	python3 - "$WORK/screen" 2>/dev/null <<'EOF' && { good=1; break; }
import sys
lines = open(sys.argv[1]).read().splitlines()
at = {n: i for i, l in enumerate(lines) for n in ("fastsend", "slowsend") if n + " (" in l}
assert at["fastsend"] < at["slowsend"], at
out = lines[at["fastsend"]].split()[2]  # OUT/S
assert 150 <= float(out) <= 250, lines[at["fastsend"]]
EOF
done
[ -n "$good" ] || fail "the screen: $(cat "$WORK/screen")"
ok "the screen names both, the faster above at about 200/s"
tmux send-keys -t "$SESSION" s
until_pane "by process, most packets first"
tmux send-keys -t "$SESSION" p
until_pane "most packets first \\[paused\\]"
tmux send-keys -t "$SESSION" p
until_pane "most packets first$"
ok "s sorts by packets, p pauses and goes on"
# A filter that nothing here matches empties the rates; a bad one is said
# and the one before stays; an empty one clears it.
tmux send-keys -t "$SESSION" / "udp port 7" Enter
until_pane "filter: udp port 7"
until_pane "^ +0 +0 +0 +0 +0 +0.0%  fastsend \\("
tmux send-keys -t "$SESSION" / "udp port" Enter
until_pane "filter 'udp port': "
until_pane "filter: udp port 7"
tmux send-keys -t "$SESSION" / Enter
until_pane "most packets first$"
until_pane "^ +0 +0 +(1[5-9][0-9]|2[0-4][0-9]) .* fastsend \\("
ok "/ sets a filter on what is counted, refuses a bad one, and an empty one clears it"
tmux send-keys -t "$SESSION" 5
until_pane "by drop reason"
until_pane "NO_SOCKET"
ok "5: the drop reasons, NO_SOCKET among them"
tmux resize-window -t "$SESSION" -x 40 -y 5
until_pane "terminal too small \\(40x5\\)"
ok "a terminal too small says so"
tmux resize-window -t "$SESSION" -x 120 -y 30
until_pane "NO_SOCKET"
ok "larger again: the table is back"
tmux send-keys -t "$SESSION" q
ended
restored "q"

top_in_tmux
until_pane "by process"
tmux send-keys -t "$SESSION" C-c
ended
restored "SIGINT"
senders_stop
