#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The fleet recipe of the README, end to end with Debian's packages: two
# hosts (the testenv's two namespaces) each run a pktsample agent sampling
# 1 in 10 (its settings in a configuration file) and exporting sFlow to
# one sfacctd, which renormalises and writes
# per agent and protocol into an SQLite database (pmacct's sqlite3 plugin).
# 20,000 frames cross from one host to the other: the database holds, for
# each agent, the frames it saw, within 5 sigma.
source "$(dirname "$0")/lib.sh"
need_tools sfacctd sqlite3

env_up
MAC=$(in_cap cat /sys/class/net/"$CAPIF"/address)
FRAMES=20000
RATE=10

# The collector, on the first host, as the README sets it up.
sqlite3 "$WORK/flows.db" <<'SQL'
CREATE TABLE acct (
	peer_ip_src CHAR(45) NOT NULL DEFAULT '0.0.0.0',
	ip_proto CHAR(6) NOT NULL DEFAULT 0,
	packets INT NOT NULL,
	bytes BIGINT NOT NULL,
	stamp_inserted DATETIME NOT NULL DEFAULT '0000-00-00 00:00:00',
	stamp_updated DATETIME,
	PRIMARY KEY (peer_ip_src, ip_proto, stamp_inserted)
);
SQL
cat >"$WORK/sfacctd.conf" <<CONF
daemonize: false
sfacctd_ip: 0.0.0.0
sfacctd_port: 6343
sfacctd_renormalize: true
plugins: sqlite3
aggregate: peer_src_ip, proto
sql_db: $WORK/flows.db
sql_table: acct
sql_optimize_clauses: true
sql_refresh_time: 1
sql_history: 1h
sql_history_roundoff: h
CONF
start_sfacctd "$WORK/sfacctd.conf"

# The agents, each from a configuration file as the README writes it: the
# receiving host at its ingress, the sending one at its egress, both to
# the collector's address.
agent_conf() { # IFACE HOOK
	printf '%s\n' "iface $1" "hook $2" "sample $RATE" "sflow 192.0.2.1" "filter udp port 9"
}
agent_conf "$CAPIF" tc-ingress >"$WORK/cap.conf"
agent_conf "$PEERIF" tc-egress >"$WORK/peer.conf"
start_capture --config "$WORK/cap.conf"
"$TESTENV" exec "$ENV" peer -- "$PKTSAMPLE" --config "$WORK/peer.conf" 2>"$WORK/peer.err" &
PEER=$!
PIDS+=("$PEER")
for _ in $(seq $((100 * PS_TIME_SCALE))); do started "$WORK/peer.err" && break; sleep 0.1; done
started "$WORK/peer.err" || fail "the second agent did not start: $(cat "$WORK/peer.err")"

in_peer "$PSGEN" -i "$PEERIF" --src 192.0.2.2 --dst 192.0.2.1 --dst-mac "$MAC" -n "$FRAMES" \
	--rate 20000 >/dev/null
sleep 1
stop_capture INT
assert_eq 0 "$PS_RC" "the first agent exits 0"
kill -INT "$(capture_pid "pktsample --config $WORK/peer.conf")"
rc=0
wait "$PEER" || rc=$?
assert_eq 0 "$rc" "the second agent exits 0"

# sfacctd writes every second; the rows of this hour, per agent.
sigma=$(python3 -c "import math; print(math.sqrt($FRAMES * $RATE * (1 - 1 / $RATE)))")
within() { python3 -c "import sys; sys.exit(0 if abs($1 - $FRAMES) <= 5 * $sigma else 1)"; }
for agent in 192.0.2.1 192.0.2.2; do
	got=
	for _ in $(seq $((50 * PS_TIME_SCALE))); do
		got=$(sqlite3 "$WORK/flows.db" "SELECT SUM(packets) FROM acct
			WHERE peer_ip_src = '$agent' AND ip_proto = 'udp'")
		[ -n "$got" ] && within "$got" && break
		sleep 0.1
	done
	within "${got:-0}" ||
		fail "agent $agent: the database says '${got:-}' for $FRAMES frames: $(tail -3 "$WORK/sfacctd.log")"
	ok "agent $agent: $got UDP packets in the database for $FRAMES sent (within 5 sigma)"
done
assert_nothing_attached
