#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Rotation as tcpdump does it (-C, -G, -W, -z), with -Z: every file a
# complete pcapng of its own (section, interfaces, statistics), read by
# tshark, capinfos and libpcap; no packet lost or written twice across a
# rotation.
source "$(dirname "$0")/lib.sh"
need_tools gzip

env_up
gen() { in_peer "$PSGEN" -i "$PEERIF" "$@" >/dev/null; }

# valid FILE: tshark and capinfos read it without a complaint, libpcap
# reads every packet, and it ends with one ISB per interface.
valid() {
	local file=$1 idbs isbs
	tshark_q -r "$file" >/dev/null
	capinfos "$file" >/dev/null 2>"$WORK/capinfos.err" || fail "capinfos $file: $(cat "$WORK/capinfos.err")"
	"$PCAPCHECK" count "$file" >/dev/null || fail "libpcap cannot read $file"
	idbs=$(capinfos -I "$file" | grep -c 'Encapsulation = ' || true)
	isbs=$("$PCAPCHECK" isb "$file" | grep -c '^if=' || true)
	[ "$idbs" -ge 1 ] && [ "$idbs" = "$isbs" ] || fail "$file: $idbs interfaces, $isbs statistics blocks"
}

# ids FILTER FILE...: the id (epb_packetid) of every packet matching
# FILTER, one per line.
ids() {
	local filter=$1 f; shift
	for f in "$@"; do
		tshark_q -r "$f" -Y "$filter" -T fields -e frame.packet_id
		echo # tshark_q's output ends without a newline
	done | grep .
}

# -C 1 alone: out, out1, out2, ...; together they hold every packet once.
mkdir "$WORK/c"
start_capture -i "$CAPIF" --hook xdp,tc-ingress -C 1 -w "$WORK/c/out.pcapng"
gen -n 6000 -s 500 --rate $((30000 / PS_TIME_SCALE))
sleep 0.5
stop_capture INT
assert_eq 0 "$PS_RC" "-C 1: exit 0"
files=("$WORK/c/out.pcapng" "$WORK/c/out.pcapng"[0-9]*)
[ "${#files[@]}" -ge 5 ] || fail "-C 1: only ${#files[@]} files for ~6 MB"
ok "-C 1: ${#files[@]} files, named as tcpdump names them"
for f in "${files[@]}"; do valid "$f"; done
ok "-C 1: every file complete on its own"
for f in "${files[@]:0:${#files[@]}-1}"; do
	size=$(stat -c %s "$f")
	[ "$size" -gt 1000000 ] && [ "$size" -lt 1100000 ] || fail "$f: $size bytes for -C 1"
done
ok "-C 1: each full file just over 1,000,000 bytes"
# (What the veth drops before the hooks under the burst is not ours to
# count; what the hooks saw is.)
all=$(ids frame "${files[@]}" | wc -l)
assert_eq "" "$(ids frame "${files[@]}" | sort | uniq -d | head -3 | tr '\n' ' ')" "-C 1: no packet in two files"
assert_match "^$all packets captured$" "$(grep 'packets captured' "$WORK/ps.err")" \
	"-C 1: the summary counts every file"
# A reader too slow for the burst (under emulation) loses some in the
# buffer, counted; a rotation loses none.
seen=$(sed -n 's/^\([0-9]*\) packets seen by hooks$/\1/p' "$WORK/ps.err")
lost=$(sed -n 's/^\([0-9]*\) packets lost in .* buffer$/\1/p' "$WORK/ps.err")
assert_eq "$seen" "$((all + ${lost:-0}))" \
	"-C 1: every packet the hooks saw is in some file, or counted lost in the buffer"
[ "$(ids "$GEN" "${files[@]}" | wc -l)" -gt 11000 ] || fail "-C 1: the generated packets are missing"
usr=$(for f in "${files[@]}"; do "$PCAPCHECK" isb "$f"; done |
	sed -n 's/.*usrdeliv=\([0-9]*\).*/\1/p' | paste -sd+ | bc)
assert_eq "$all" "$usr" "-C 1: the files' ISBs add up to what was written"
assert_nothing_attached

# -C 1 -W 3 on a flood: a ring of exactly three files, each valid.
mkdir "$WORK/w"
start_capture -i "$CAPIF" --hook xdp -C 1 -W 3 -w "$WORK/w/ring.pcapng"
gen -n 20000 -s 500 --rate 50000
sleep 0.5
stop_capture INT
assert_eq 0 "$PS_RC" "-C 1 -W 3: exit 0"
assert_eq "ring.pcapng0 ring.pcapng1 ring.pcapng2" "$(ls "$WORK/w" | tr '\n' ' ' | sed 's/ $//')" \
	"-C 1 -W 3: exactly three files"
for f in "$WORK"/w/*; do valid "$f"; done
ok "-C 1 -W 3: each file valid"

# -G 1: a new file every second, named by strftime, each valid, even with
# nothing to capture (the timer runs from the start); -z gzip on each
# closed file, and -Z: the files are nobody's.
mkdir "$WORK/g"
chmod 777 "$WORK/g"
chmod 755 "$WORK"
t_start=$(now_ns)
start_capture -i "$CAPIF" --hook xdp -G 1 -z gzip -Z nobody -w "$WORK/g/cap-%s.pcapng"
t0=$(now_ns)
gen -n 600 --rate 300
while [ "$(ms_since "$t0")" -lt 3500 ]; do sleep 0.1; done
ran_ms=$(ms_since "$t0")
stop_capture INT
all_ms=$(ms_since "$t_start")
assert_eq 0 "$PS_RC" "-G 1: exit 0"
for _ in $(seq 50); do # the last gzip runs after we exit
	ls "$WORK"/g/*.pcapng >/dev/null 2>&1 || break
	sleep 0.1
done
mapfile -t gz < <(ls "$WORK"/g/cap-*.pcapng.gz)
# One file per second the capture ran: at least as many as whole seconds
# between its attach and the stop (about 4 natively; more where the
# generator starts slowly), at most one more than the whole span allows.
[ "${#gz[@]}" -ge $((ran_ms / 1000)) ] && [ "${#gz[@]}" -le $((all_ms / 1000 + 1)) ] ||
	fail "-G 1 over ${ran_ms}-${all_ms} ms: ${#gz[@]} files"
ok "-G 1: one file a second (${#gz[@]} over ${ran_ms}-${all_ms} ms), each gzipped by -z"
secs=$(for f in "${gz[@]}"; do basename "$f" | sed 's/cap-\([0-9]*\)\..*/\1/'; done)
assert_eq "${#gz[@]}" "$(sort -u <<<"$secs" | wc -l)" "-G 1: strftime names, one per second"
for f in "${gz[@]}"; do
	[ "$(stat -c %U "$f")" = nobody ] || fail "$f is not nobody's"
	gzip -dc "$f" >"${f%.gz}.plain"
	valid "${f%.gz}.plain"
done
ok "-G 1 -Z nobody: every file valid and nobody's"
assert_eq 600 "$(for f in "${gz[@]}"; do "$PCAPCHECK" count "${f%.gz}.plain"; done | paste -sd+ | bc)" \
	"-G 1: every packet in some file"

# -G 1 -W 2: stops by itself once two files are complete.
mkdir "$WORK/gw"
start_capture -i "$CAPIF" --hook xdp -G 1 -W 2 -w "$WORK/gw/cap-%s.pcapng"
t0=$(now_ns)
wait_capture
assert_eq 0 "$PS_RC" "-G 1 -W 2: exits 0 by itself"
assert_match "maximum file limit reached: 2" "$(cat "$WORK/ps.err")" "-G 1 -W 2: says why it stopped"
assert_eq 2 "$(ls "$WORK/gw" | wc -l)" "-G 1 -W 2: two files"
for f in "$WORK"/gw/*; do valid "$f"; done
ok "-G 1 -W 2: both valid"
assert_nothing_attached

# Bad rotation arguments: one line, exit 2, nothing made.
rc=0
in_cap "$PKTSAMPLE" -i "$CAPIF" -C 1 -w - >/dev/null 2>"$WORK/err" || rc=$?
assert_eq "2 1" "$rc $(grep -c . "$WORK/err")" "-C with stdout: exit 2, one line"
rc=0
in_cap "$PKTSAMPLE" -i "$CAPIF" -G 1 -w "" 2>"$WORK/err" || rc=$?
assert_eq "2 1" "$rc $(grep -c . "$WORK/err")" "-G with an empty name: exit 2, one line"
rc=0
in_cap "$PKTSAMPLE" -i "$CAPIF" -Z no-such-user-here -w "$WORK/nz.pcapng" 2>"$WORK/err" || rc=$?
assert_eq "2 1" "$rc $(grep -c . "$WORK/err")" "-Z unknown user: exit 2, one line"
assert_match "^pktsample: -Z: no such user 'no-such-user-here'$" "$(cat "$WORK/err")" "-Z unknown user: says so"
[ ! -e "$WORK/nz.pcapng" ] || fail "-Z unknown user created its file"
ok "-Z unknown user: no file made"
assert_nothing_attached
