#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# --metrics: the counters for Prometheus. A capture at tc-ingress and the
# drop hook, exporting sFlow, serves them on 127.0.0.1 in the capture
# namespace while 500 frames to a closed port arrive: promtool accepts the
# text, the numbers are the frames sent, a real Prometheus scrapes them and
# answers a query with them. Clients as they come on a network: one that
# says nothing, one that trickles its request a byte every 1.5 s, one that
# never ends its headers: they hold up neither the capture nor any scrape
# (each answered within 1 s meanwhile), and the two that start a request
# are cut off at its deadline. 64 concurrent scrapes are all answered, a
# 100 kB request line gets 414, other paths and methods 404 and 405, and a
# bad or taken address is refused in one line with nothing attached.
# (TLS and basic authentication: it_metrics_web.sh.)
source "$(dirname "$0")/lib.sh"
need_tools promtool prometheus curl python3

env_up
MAC=$(in_cap cat /sys/class/net/"$CAPIF"/address)
in_cap ip link set lo up
PORT=9650
URL=http://127.0.0.1:$PORT/metrics
in_cap python3 -c 'import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 6343)); time.sleep(120)' &
PIDS+=($!)
wait_listening udp 6343 || fail "the sFlow listener is not up"

start_capture -i "$CAPIF" --hook tc-ingress,drop --metrics "127.0.0.1:$PORT" --sflow 127.0.0.1 \
	-w "$WORK/cap.pcapng"
assert_match "^[0-9]+$" "$(in_cap curl -s "$URL" | sed -n 's/^pktsample_start_time_seconds \([0-9]*\)\..*/\1/p')" \
	"served from the start"

# A client that connects and says nothing, held while the rest runs.
in_cap python3 -c 'import socket, time
s = socket.create_connection(("127.0.0.1", '"$PORT"')); time.sleep(30)' &
SILENT=$!
PIDS+=("$SILENT")
# Two that start a request and never end it: MODE trickle sends a byte
# every 1.5 s, stall its first line and then nothing. Each writes how its
# connection ended, and after how long, to $WORK/MODE.out.
hostile() {
	in_cap python3 -c 'import socket, sys, time
mode, port = sys.argv[1], int(sys.argv[2])
req = b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"y" * 100
s = socket.create_connection(("127.0.0.1", port))
s.settimeout(1.5)
t0, got = time.time(), None
if mode == "stall":
    s.sendall(req[:16])
for i in range(len(req)):
    try:
        if mode == "trickle":
            s.send(req[i:i + 1])
        got = s.recv(200)
        break
    except socket.timeout:
        continue
    except OSError as e:
        got = str(e).encode()
        break
print("%s after %.1f s: %r" % (mode, time.time() - t0, got))' "$1" "$PORT" >"$WORK/$1.out" &
	PIDS+=($!)
}
hostile trickle
hostile stall
in_peer "$PSGEN" -i "$PEERIF" --src 192.0.2.2 --dst 192.0.2.1 --dst-mac "$MAC" -n 500 >/dev/null
sleep 1.5 # a new text every second
in_cap curl -sS --max-time "$(scaled 5)" "$URL" >"$WORK/m.txt" 2>"$WORK/curl.err" ||
	fail "a scrape with a silent client connected: $(cat "$WORK/curl.err" "$WORK/ps.err")"
ok "a client that says nothing holds up no scrape"
for i in 1 2 3 4 5; do
	code=$(in_cap curl -s -o /dev/null -w '%{http_code}' --max-time "$(scaled 1)" "$URL" || true)
	assert_eq 200 "$code" "scrape $i of 5 answered within 1 s while two clients trickle and stall"
	sleep 0.3
done
codes=$(seq 64 | in_cap xargs -P 64 -I{} curl -s -o /dev/null -w '%{http_code}\n' \
	--max-time "$(scaled 10)" "$URL" | sort | uniq -c | awk '{print $2 "x" $1}' | xargs)
assert_eq "200x64" "$codes" "64 concurrent scrapes: all answered"
line=$(in_cap python3 -c 'import socket
s = socket.create_connection(("127.0.0.1", '"$PORT"'))
s.sendall(b"GET /metrics?" + b"a" * 100000 + b" HTTP/1.1\r\nHost: x\r\n\r\n")
print(s.recv(100).split(b"\r\n")[0].decode())')
assert_eq "HTTP/1.1 414 URI Too Long" "$line" "a 100 kB request line: 414"
# Cut off at the deadline (5 s, checked every second), not held for as
# long as they like: closed, with no answer.
for mode in trickle stall; do
	for _ in $(seq $((300 * PS_TIME_SCALE))); do
		[ -s "$WORK/$mode.out" ] && break
		sleep 0.1
	done
	assert_match "^$mode after [0-9.]+ s: (b''|.*reset.*)$" "$(cat "$WORK/$mode.out")" \
		"a client that $([ $mode = trickle ] && echo "trickles its request" || echo "never ends its headers"): cut off at the deadline"
done
promtool check metrics <"$WORK/m.txt" >"$WORK/promtool.out" 2>&1 ||
	fail "promtool check metrics: $(cat "$WORK/promtool.out")"
ok "promtool check metrics accepts the text"
metric() { sed -n "s/^$1 \([0-9]*\)$/\1/p" "$WORK/m.txt"; }
# Before 5.17 kfree_skb has no reason (-D says so): every drop is
# NOT_SPECIFIED, the 500 among them.
REASON=NO_SOCKET
"$PKTSAMPLE" -D | grep -q '^kernel: kfree_skb has no drop reason' && REASON=NOT_SPECIFIED
drops_are_the_500() { # COUNT DESCRIPTION
	if [ "$REASON" = NO_SOCKET ]; then
		assert_eq 500 "$1" "$2"
	else
		[ "${1:-0}" -ge 500 ] || fail "$2: expected at least 500, got '$1'"
		ok "$2 (at least 500, all NOT_SPECIFIED on this kernel)"
	fi
}
drops_are_the_500 "$(metric "pktsample_kernel_drops_total{reason=\"$REASON\"}")" \
	"the drops by reason: the 500 frames sent to a closed port"
seen=$(metric "pktsample_packets_seen_total{interface=\"$CAPIF\",hook=\"tc-ingress\"}")
written=$(metric "pktsample_packets_written_total{interface=\"$CAPIF\",hook=\"tc-ingress\"}")
[ "${seen:-0}" -ge 500 ] && [ "$written" = "$seen" ] ||
	fail "tc-ingress: seen '$seen', written '$written'"
ok "tc-ingress: $seen seen, all written"
seen=$(metric "pktsample_packets_seen_total{interface=\"$CAPIF\",hook=\"drop\"}")
written=$(metric "pktsample_packets_written_total{interface=\"$CAPIF\",hook=\"drop\"}")
[ "${seen:-0}" -ge 500 ] && [ "$written" = "$seen" ] || fail "drop: seen '$seen', written '$written'"
ok "drop: $seen seen (the 500, and the peer's IPv6 noise), all written"
sent=$(metric pktsample_sflow_sent_total)
[ "${sent:-0}" -ge 1 ] && [ "$(metric pktsample_sflow_send_errors_total)" = 0 ] ||
	fail "sFlow: sent '$sent', failed '$(metric pktsample_sflow_send_errors_total)'"
ok "sFlow: $sent datagrams sent, none failed"

assert_eq "404" "$(in_cap curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/")" \
	"another path: 404"
assert_eq "405" "$(in_cap curl -s -o /dev/null -w '%{http_code}' -X POST "$URL")" \
	"another method: 405"
assert_match "Content-Type: text/plain; version=0.0.4" "$(in_cap curl -s -I "$URL")" \
	"HEAD: the exposition format's content type"

# A real Prometheus, scraping every second, asked through its API.
cat >"$WORK/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: pktsample
    static_configs:
      - targets: ['127.0.0.1:$PORT']
EOF
start_prometheus
got=
for _ in $(seq $((300 * PS_TIME_SCALE))); do
	got=$(prom_query "pktsample_kernel_drops_total{reason=\"$REASON\"}" 2>/dev/null || true)
	[ -n "$got" ] && break
	sleep 0.1
done
drops_are_the_500 "$got" "Prometheus scraped the drops by reason"
assert_eq 1 "$(prom_query 'up{job="pktsample"}')" "Prometheus sees the target up"

kill "$SILENT" 2>/dev/null || true
stop_capture INT
assert_eq 0 "$PS_RC" "--metrics: exit 0 on SIGINT"
assert_nothing_attached
! listening tcp "$PORT" || fail "port $PORT still listened on"
ok "the port is closed with the capture"

# Bad input: one line, nothing attached.
rc=0
in_cap "$PKTSAMPLE" -i "$CAPIF" --metrics 127.0.0.1 --duration 5 >/dev/null 2>"$WORK/bad.err" || rc=$?
assert_eq "2|1" "$rc|$(grep -c . "$WORK/bad.err")" "--metrics without a port: exit 2, one line"
TAKEN=$((PORT + 1))
in_cap python3 -c 'import socket, time
s = socket.socket(); s.bind(("127.0.0.1", '"$TAKEN"')); s.listen(); time.sleep(30)' &
HOLD=$!
PIDS+=("$HOLD")
wait_listening tcp "$TAKEN" || fail "the port holder is not up"
rc=0
in_cap "$PKTSAMPLE" -i "$CAPIF" --metrics "127.0.0.1:$TAKEN" --duration 5 >/dev/null \
	2>"$WORK/taken.err" || rc=$?
assert_eq "1|1" "$rc|$(grep -c . "$WORK/taken.err")" "--metrics on a port that is taken: exit 1, one line"
assert_match "cannot serve metrics on 127.0.0.1:$TAKEN: Address already in use" \
	"$(cat "$WORK/taken.err")" "--metrics on a taken port: says so"
assert_nothing_attached
