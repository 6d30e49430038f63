#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# --metrics-web-config: TLS and basic authentication, configured as
# Prometheus' exporters are (tls_server_config, basic_auth_users with a
# bcrypt hash; the certificate named relative to the file). With a test
# certificate: curl --cacert gets the text with the right password; a
# wrong one, an unknown user and none get 401 with Basic's challenge;
# plain HTTP gets no answer; a real Prometheus scrapes it over TLS with
# basic auth. SIGHUP with --config takes a new web configuration (no
# users) on the same port, and keeps the running one when the new file is
# bad. Bad input (the option alone, a missing file, a plain password, a
# missing key, a key that is not the certificate's): one line, nothing
# attached.
source "$(dirname "$0")/lib.sh"
need_tools openssl curl python3 prometheus promtool

env_up
in_cap ip link set lo up
PORT=9652
URL=https://localhost:$PORT/metrics
mkdir -p "$WORK/web"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
	-subj /CN=localhost -addext subjectAltName=DNS:localhost,IP:127.0.0.1 \
	-keyout "$WORK/web/server.key" -out "$WORK/web/server.crt" 2>/dev/null ||
	fail "openssl could not make a test certificate"
HASH=$(python3 -W ignore -c 'import crypt
print(crypt.crypt("s3cret", crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=1 << 10)))')
cat >"$WORK/web/web.yml" <<EOF
# As node_exporter's --web.config.file takes it.
tls_server_config:
  cert_file: server.crt
  key_file: server.key
basic_auth_users:
  prometheus: '$HASH'
EOF
cat >"$WORK/cap.conf" <<EOF
iface $CAPIF
write $WORK/cap.pcapng
metrics 127.0.0.1:$PORT
metrics-web-config $WORK/web/web.yml
EOF
start_capture --config "$WORK/cap.conf"
scrape() { in_cap curl -s --cacert "$WORK/web/server.crt" --resolve "localhost:$PORT:127.0.0.1" "$@"; }
code() { scrape -o /dev/null -w '%{http_code}' "$@" "$URL"; }

scrape -u prometheus:s3cret "$URL" >"$WORK/m.txt"
assert_match "pktsample_packets_seen_total\{interface=\"$CAPIF\",hook=\"tc-ingress\"\}" \
	"$(cat "$WORK/m.txt")" "TLS, the right password: the text"
promtool check metrics <"$WORK/m.txt" >"$WORK/promtool.out" 2>&1 ||
	fail "promtool check metrics: $(cat "$WORK/promtool.out")"
ok "promtool check metrics accepts it"
assert_eq 401 "$(code -u prometheus:wrong)" "a wrong password: 401"
assert_eq 401 "$(code -u nobody:s3cret)" "an unknown user: 401"
assert_eq 401 "$(code)" "no credentials: 401"
assert_match "WWW-Authenticate: Basic realm=\"pktsample\"" "$(scrape -D - -o /dev/null "$URL")" \
	"401 says how to authenticate"
assert_eq 200 "$(code -u prometheus:s3cret)" "the right password again (remembered): 200"
rc=0
in_cap curl -s -o /dev/null --max-time "$(scaled 5)" "http://127.0.0.1:$PORT/metrics" || rc=$?
[ "$rc" != 0 ] || fail "plain HTTP on the TLS port was answered"
ok "plain HTTP on the TLS port: no answer (curl exit $rc)"

# A real Prometheus, over TLS with basic auth.
cat >"$WORK/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: pktsample
    scheme: https
    tls_config:
      ca_file: $WORK/web/server.crt
      server_name: localhost
    basic_auth:
      username: prometheus
      password: s3cret
    static_configs:
      - targets: ['127.0.0.1:$PORT']
EOF
start_prometheus
up=
for _ in $(seq $((300 * PS_TIME_SCALE))); do
	up=$(prom_query 'up{job="pktsample"}' 2>/dev/null || true)
	[ "$up" = 1 ] && break
	sleep 0.1
done
assert_eq 1 "$up" "Prometheus scrapes it over TLS with basic auth"

# Reload: a new file without users, the same port: served without them.
sed -i '/^basic_auth_users:/,$d' "$WORK/web/web.yml"
reload_capture >/dev/null
assert_eq 200 "$(code)" "reload: a web configuration without users, served without them"
# A bad one: said in one line, the running one kept.
echo "  client_auth_type: RequireAndVerifyClientCert" >>"$WORK/web/web.yml"
reload_capture >/dev/null
assert_match "bad --metrics-web-config $WORK/web/web.yml: line 5: client_auth_type: not supported" \
	"$(cat "$WORK/ps.err")" "reload: a key pktsample does not do is refused by name"
assert_eq 200 "$(code)" "reload: after a bad web configuration, the running one serves"
# A key that is not the certificate's: found before anything changes.
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:prime256v1 -out "$WORK/web/other.key" \
	2>/dev/null || fail "openssl could not make a key"
printf 'tls_server_config:\n  cert_file: server.crt\n  key_file: other.key\n' >"$WORK/web/web.yml"
assert_match "is not a PEM certificate with $WORK/web/other.key its unencrypted key; keeping the running configuration" \
	"$(reload_capture)" "reload: a key that is not the certificate's is refused"
assert_eq 200 "$(code)" "reload: and the running one serves"
stop_capture INT
assert_eq 0 "$PS_RC" "exit 0 on SIGINT"
assert_nothing_attached

# Bad input: one line each, nothing attached.
bad() { # EXPECTED_RC PATTERN DESCRIPTION ARGS...
	local want=$1 pattern=$2 what=$3 rc=0
	shift 3
	in_cap "$PKTSAMPLE" -i "$CAPIF" -w "$WORK/bad.pcapng" --duration 5 "$@" >/dev/null \
		2>"$WORK/bad.err" || rc=$?
	assert_eq "$want|1" "$rc|$(grep -c . "$WORK/bad.err")" "$what: exit $want, one line"
	assert_match "$pattern" "$(cat "$WORK/bad.err")" "$what: says why"
	assert_nothing_attached
}
bad 2 "--metrics-web-config needs --metrics" "--metrics-web-config alone" \
	--metrics-web-config "$WORK/web/web.yml"
# bad_web PATTERN DESCRIPTION FILE: --metrics with the web configuration
# FILE fails as bad does, exit 1.
bad_web() {
	bad 1 "$1" "$2" --metrics "127.0.0.1:$PORT" --metrics-web-config "$3"
}
bad_web "nosuch.yml: No such file" "a web configuration that is not there" "$WORK/nosuch.yml"
printf 'basic_auth_users:\n  prometheus: plaintext\n' >"$WORK/plain.yml"
bad_web "line 2: basic_auth_users: prometheus's password is not a bcrypt hash" \
	"a password that is not a bcrypt hash" "$WORK/plain.yml"
printf 'tls_server_config:\n  cert_file: server.crt\n  key_file: nosuch.key\n' >"$WORK/web/nokey.yml"
bad_web "cannot read $WORK/web/nosuch.key" "a key file that is not there" "$WORK/web/nokey.yml"
printf 'tls_server_config:\n  cert_file: server.crt\n  key_file: other.key\n' >"$WORK/web/mismatch.yml"
bad_web "cannot serve metrics over TLS: $WORK/web/server.crt is not a PEM certificate with $WORK/web/other.key its unencrypted key" \
	"a key that is not the certificate's" "$WORK/web/mismatch.yml"
