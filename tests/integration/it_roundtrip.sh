#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# A pktsample file survives Wireshark's own tools (tshark -w, editcap,
# mergecap, reordercap): each result reads cleanly and keeps every packet
# annotation Wireshark keeps. libpcap's and scapy's readers read it too.
source "$(dirname "$0")/lib.sh"
need_tools editcap mergecap reordercap
SCAPY_PY=
for py in python3 /usr/bin/python3; do
	if "$py" -c 'import scapy.all' 2>/dev/null; then SCAPY_PY=$py; break; fi
done
[ -n "$SCAPY_PY" ] || skip "needs scapy (python3-scapy)"

env_up
# Every hook, a filter (if_filter), and a reader stopped for a moment so
# that samples are lost and packets carry drop counts.
start_capture -i "$CAPIF" --hook xdp,tc-ingress,tc-egress -B 4 -w "$WORK/f.pcapng" 'udp or icmp'
in_cap ping -q -c 2 -i 0.2 192.0.2.2 >/dev/null
lose_samples 1000 300
stop_capture INT
assert_eq 0 "$PS_RC" "capture exits 0"
cap=$WORK/f.pcapng
[ "$(fields "$cap" 'frame.drop_count > 0' frame.number | grep -c .)" -gt 0 ] ||
	fail "the capture has no packet with a drop count"
ok "the capture has drop counts to keep"
assert_eq "" "$(fields "$cap" frame frame.verdict.ebpf_xdp frame.verdict.ebpf_tc | tr -d '|\n')" \
	"no epb_verdict by default"

ANN=(frame.interface_name frame.interface_description frame.packet_flags_direction
     frame.interface_queue frame.packet_id frame.drop_count frame.comment
     frame.time_epoch frame.len frame.cap_len frame.protocols)
fields "$cap" frame "${ANN[@]}" >"$WORK/f.fields"
n=$(grep -c . "$WORK/f.fields")

# capinfos_q FILE: capinfos, exit 0 and nothing on stderr; prints stdout.
capinfos_q() {
	local out rc=0
	out=$(capinfos "$1" 2>"$WORK/capinfos.err") || rc=$?
	[ $rc -eq 0 ] || fail "capinfos $1 exited $rc: $(cat "$WORK/capinfos.err")"
	[ ! -s "$WORK/capinfos.err" ] || fail "capinfos $1 complained: $(cat "$WORK/capinfos.err")"
	printf '%s' "$out"
}

for tool in "tshark -w" editcap mergecap reordercap; do
	g=$WORK/g.pcapng
	rm -f "$g"
	case $tool in
	"tshark -w") tshark_q -r "$cap" -w "$g" >/dev/null ;;
	editcap) editcap "$cap" "$g" ;;
	mergecap) mergecap -w "$g" "$cap" ;;
	reordercap) reordercap "$cap" "$g" >/dev/null ;;
	esac
	info=$(capinfos_q "$g")
	assert_match "Number of packets: +$n" "$info" "$tool: capinfos reads all $n packets"
	assert_match "Filter string = udp or icmp" "$info" "$tool: if_filter kept"
	assert_match "Comment = pktsample xdp hook, attached via" "$info" "$tool: IDB comment kept"
	fields "$g" frame "${ANN[@]}" >"$WORK/g.fields"
	cmp -s "$WORK/f.fields" "$WORK/g.fields" ||
		fail "$tool: annotations changed: $(diff "$WORK/f.fields" "$WORK/g.fields" | head -5)"
	ok "$tool: every packet annotation kept"
done

# libpcap's reader, and scapy's (2.5 warns about comments without a line
# break and skips them; packets, bytes and nanosecond times must be right).
assert_eq "$n" "$("$PCAPCHECK" count "$cap")" "libpcap reads every packet"
assert_eq "$n" "$("$PCAPCHECK" blocks "$cap")" "every block whole"
want=$("$PCAPCHECK" times "$cap")
got=$("$SCAPY_PY" - "$cap" 2>/dev/null <<'EOF'
import sys
from scapy.all import rdpcap
p = rdpcap(sys.argv[1])
t = [int(x.time * 10**9) for x in p]
print("packets=%d first_ns=%d last_ns=%d" % (len(p), min(t), max(t)))
EOF
)
assert_eq "$want" "$got" "scapy reads every packet with nanosecond times"
scapy_bytes=$("$SCAPY_PY" - "$cap" 2>/dev/null <<'EOF'
import sys, hashlib
from scapy.all import rdpcap
print(hashlib.md5(b"".join(bytes(x) for x in rdpcap(sys.argv[1]))).hexdigest())
EOF
)
tshark_bytes=$(tshark_q -r "$cap" -x | python3 -c '
import sys, hashlib, re
data = b"".join(bytes.fromhex("".join(m.group(1).split())) for m in
               re.finditer(r"^[0-9a-f]{4}  ((?:[0-9a-f]{2} )+)", sys.stdin.read(), re.M))
print(hashlib.md5(data).hexdigest())')
assert_eq "$tshark_bytes" "$scapy_bytes" "scapy's packet bytes are tshark's"
assert_nothing_attached
