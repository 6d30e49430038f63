#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Interfaces that come and go during a capture: with -i any (and with a
# name pattern), one that appears is attached within a second and its
# packets are in the file (a new IDB), the live view and sFlow (a real
# sfacctd counts them by interface); one that goes is let go with nothing
# left and its last ISB; --max-ifaces caps how many at once, and the
# entries of gone ones are taken over by new ones, many times over.
source "$(dirname "$0")/lib.sh"

env_up
pair() { # NAME: a veth pair NAMEa/NAMEb in the capture namespace, up
	in_cap ip link add "${1}a" type veth peer name "${1}b"
	in_cap ip link set "${1}a" up
	in_cap ip link set "${1}b" up
}
# send N IFACE...: one UDP datagram to port 9 from 198.51.100.N, broadcast
# out of each IFACE (tc-egress there, tc-ingress on its peer).
send() {
	in_cap python3 - "$@" <<'EOF'
import socket, struct, sys
n = int(sys.argv[1])
udp = struct.pack("!HHHH", 9999, 9, 8 + 32, 0) + bytes(32)
ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), n, 0, 64, 17, 0,
                 bytes([198, 51, 100, n]), bytes([198, 51, 100, 255]))
s16 = sum(struct.unpack("!10H", ip))
s16 = (s16 & 0xFFFF) + (s16 >> 16)
ip = ip[:10] + struct.pack("!H", ~((s16 & 0xFFFF) + (s16 >> 16)) & 0xFFFF) + ip[12:]
for name in sys.argv[2:]:
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((name, 0))
    s.send(b"\xff" * 6 + b"\x02\x00\x00\x00\x00\x01" + b"\x08\x00" + ip + udp)
    s.close()
EOF
}
# wait_line TEXT: until pktsample's stderr has it; how long it took (ms).
wait_line() {
	local t0
	t0=$(now_ns)
	for _ in $(seq $((50 * PS_TIME_SCALE))); do
		grep -qF -- "$1" "$WORK/ps.err" && { ms_since "$t0"; return 0; }
		sleep 0.02
	done
	fail "no '$1' in: $(cat "$WORK/ps.err")"
}
frames() { # FILE: interface|hook of each of our frames
	fields "$1" 'udp.dstport == 9 && ip.src == 198.51.100.0/24' frame.interface_name \
		frame.interface_description
}

# sfacctd counts the samples by interface (renormalising changes nothing
# at 1 in 1).
start_sfacctd_csv "in_iface, out_iface"

# -i any: one pair there at the start, one that comes, one that goes.
pair "${ENV}f"
start_capture -i any -w "$WORK/any.pcapng" --print --sflow 127.0.0.1 --sflow-counters 1 \
	>"$WORK/any.out"
pair "${ENV}g"
ms=$(wait_line "capturing on ${ENV}gb (tc-ingress,tc-egress)")
echo "# ${ENV}g attached $ms ms after the pair was up"
[ "$ms" -lt "$(scaled 1000)" ] || fail "a new interface took $ms ms to be attached"
ok "a new interface is attached within a second"
send 1 "${ENV}fa" "${ENV}ga"
sleep 0.3
gi=$(in_cap cat "/sys/class/net/${ENV}ga/ifindex")
in_cap ip link del "${ENV}ga"
wait_line "interface ${ENV}ga disappeared" >/dev/null
ok "a deleted interface: one line"
pair "${ENV}h"
wait_line "capturing on ${ENV}hb " >/dev/null
send 2 "${ENV}fa" "${ENV}ha"
sleep 2.5 # sfacctd writes every second; the samples leave within one
stop_capture INT
assert_eq 0 "$PS_RC" "-i any with interfaces coming and going: exit 0"
got=$(frames "$WORK/any.pcapng" | sort | uniq -c | sed 's/^ *//' | sort)
want=$(printf '%s\n' "2 ${ENV}fa|tc egress" "2 ${ENV}fb|tc ingress" "1 ${ENV}ga|tc egress" \
	"1 ${ENV}gb|tc ingress" "1 ${ENV}ha|tc egress" "1 ${ENV}hb|tc ingress" | sort)
assert_eq "$want" "$got" "the file: each frame on the interfaces there when it was sent"
assert_eq 14 "$(capinfos -I "$WORK/any.pcapng" 2>/dev/null | grep -c 'Interface #')" \
	"an IDB for each (interface, hook) of $CAPIF, f, g and h, the new ones after packets"
assert_match "if=[0-9]+ ifrecv=[0-9]+ .*\| interface disappeared; " \
	"$("$PCAPCHECK" isb "$WORK/any.pcapng" | grep 'interface disappeared' | head -1)" \
	"the gone interface's ISB says so"
assert_eq 2 "$(grep -cE "^[0-9:.]+ ${ENV}h[ab] .* IP 198\.51\.100\.2\.9999 > 198\.51\.100\.255\.9: UDP, length 32$" "$WORK/any.out")" \
	"the live view prints the new interface's packets"
# sfacctd counts what the new interfaces' samplers sent, by ifindex.
hi=$(in_cap cat "/sys/class/net/${ENV}hb/ifindex" 2>/dev/null || true)
[ -s "$WORK/sfacctd.csv" ] || fail "sfacctd wrote nothing: $(cat "$WORK/sfacctd.log")"
assert_match "(^|
)$gi,0,|,$gi," "$(grep -v IN_IFACE "$WORK/sfacctd.csv" | sed 's/ //g')" \
	"sFlow: samples of the interface that came and went"
assert_match "(^|
)$hi,0," "$(grep -v IN_IFACE "$WORK/sfacctd.csv" | sed 's/ //g')" \
	"sFlow: samples of the interface that came last (input ifindex $hi)"
for dev in "$CAPIF" "${ENV}fa" "${ENV}fb" "${ENV}ha" "${ENV}hb"; do
	assert_nothing_attached "$dev"
done

# A pattern: only what matches, including one renamed into it; and one
# that goes detaches with nothing left while the capture goes on.
start_capture -i "${ENV}p*" -w "$WORK/pat.pcapng"
assert_match "capturing on no interface yet: waiting for -i ${ENV}p\*" "$(cat "$WORK/ps.err")" \
	"a pattern nothing matches yet: the capture waits"
pair "${ENV}p"
pair "${ENV}q"
in_cap ip link set "${ENV}qa" down
in_cap ip link set "${ENV}qa" name "${ENV}pr"
wait_line "capturing on ${ENV}pr " >/dev/null
in_cap ip link set "${ENV}pr" up
wait_line "capturing on ${ENV}pb " >/dev/null
send 3 "${ENV}pa" "${ENV}pr"
sleep 0.3
in_cap ip link del "${ENV}pa"
wait_line "interface ${ENV}pb disappeared" >/dev/null
tcx_on_pr=$(tcx_programs "${ENV}pr")
kernel_has_tcx || tcx_on_pr=2
assert_eq 2 "$tcx_on_pr" "the renamed one is still captured"
stop_capture INT
assert_eq 0 "$PS_RC" "a pattern: exit 0"
got=$(frames "$WORK/pat.pcapng" | sort | tr '\n' ' ')
assert_eq "${ENV}pa|tc egress ${ENV}pb|tc ingress ${ENV}pr|tc egress " "$got" \
	"a pattern: what matches, and one renamed to match (its peer ${ENV}qb does not)"
assert_nothing_attached "${ENV}pr"
assert_nothing_attached "${ENV}qb"

# --max-ifaces 4: room for 4 at once; a fifth waits out, said in one line;
# then 30 pairs come and go one after the other, each captured in the
# entries the ones before left.
in_cap ip link del "${ENV}fa"
start_capture -i 'c*' --max-ifaces 4 -w "$WORK/churn.pcapng"
pair c0
pair c1
wait_line "capturing on c1b " >/dev/null
pair c2
wait_line "not capturing on c2a: the capture has room for 4 interfaces (--max-ifaces)" >/dev/null
ok "past --max-ifaces: one line, the capture goes on"
in_cap ip link del c0a
wait_line "capturing on c2b " >/dev/null
ok "room again: the one refused is captured"
in_cap ip link del c1a
in_cap ip link del c2a
for i in $(seq 3 32); do
	pair "c$i"
	wait_line "capturing on c${i}b " >/dev/null
	send "$i" "c${i}a"
	in_cap ip link del "c${i}a"
	wait_line "interface c${i}b disappeared" >/dev/null
done
stop_capture INT
assert_eq 0 "$PS_RC" "30 pairs one after the other in room for 4: exit 0"
got=$(frames "$WORK/churn.pcapng" | grep -c '^c[0-9]*a|tc egress$')
assert_eq 30 "$got" "each one's frame, at its own interface"
assert_eq 30 "$(frames "$WORK/churn.pcapng" | grep -c '^c[0-9]*b|tc ingress$')" \
	"and at its peer's ingress"
tshark_q -r "$WORK/churn.pcapng" >/dev/null
ok "tshark reads the file, an IDB for each interface that came, whole"
