#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# --metrics: the counters for Prometheus. A capture at tc-ingress and the
# drop hook, exporting sFlow, serves them on 127.0.0.1 in the capture
# namespace while 500 frames to a closed port arrive: promtool accepts the
# text, the numbers are the frames sent, a real Prometheus scrapes them and
# answers a query with them, a client that says nothing holds up neither
# the capture nor the next scrape, other paths and methods get 404 and 405,
# and a bad or taken address is refused in one line with nothing attached.
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
in_peer "$PSGEN" -i "$PEERIF" --src 192.0.2.2 --dst 192.0.2.1 --dst-mac "$MAC" -n 500 >/dev/null
sleep 1.5 # a new text every second
in_cap curl -s --max-time "$(scaled 5)" "$URL" >"$WORK/m.txt" ||
	fail "a scrape with a silent client connected: $(cat "$WORK/ps.err")"
ok "a client that says nothing holds up no scrape"
promtool check metrics <"$WORK/m.txt" >"$WORK/promtool.out" 2>&1 ||
	fail "promtool check metrics: $(cat "$WORK/promtool.out")"
ok "promtool check metrics accepts the text"
metric() { sed -n "s/^$1 \([0-9]*\)$/\1/p" "$WORK/m.txt"; }
assert_eq 500 "$(metric 'pktsample_kernel_drops_total{reason="NO_SOCKET"}')" \
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
"$TESTENV" exec "$ENV" cap -- prometheus --config.file="$WORK/prometheus.yml" \
	--storage.tsdb.path="$WORK/tsdb" --web.listen-address=127.0.0.1:9090 \
	>"$WORK/prometheus.log" 2>&1 &
PIDS+=($!)
query() {
	in_cap curl -s --get --data-urlencode "query=$1" http://127.0.0.1:9090/api/v1/query |
		python3 -c 'import json, sys
r = json.load(sys.stdin)["data"]["result"]
print(r[0]["value"][1] if r else "")'
}
got=
for _ in $(seq $((300 * PS_TIME_SCALE))); do
	got=$(query 'pktsample_kernel_drops_total{reason="NO_SOCKET"}' 2>/dev/null || true)
	[ -n "$got" ] && break
	sleep 0.1
done
assert_eq 500 "$got" "Prometheus scraped the drops by reason"
assert_eq 1 "$(query 'up{job="pktsample"}')" "Prometheus sees the target up"

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
