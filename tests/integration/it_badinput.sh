#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The bad-input matrix: every option that takes a value, given an empty,
# blank, padded, negative, overflowing, out-of-range or wrong-type one;
# then interfaces, files and filters that cannot be used. Each must give
# exactly one line on stderr, nothing on stdout, the right exit status
# (2 usage, 1 runtime), nothing attached, and no capture file written or
# clobbered.
source "$(dirname "$0")/lib.sh"

env_up
OUT=$WORK/out.pcapng
echo "precious" >"$WORK/old.pcapng"
P=$PKTSAMPLE

# bad WANT_RC DESCRIPTION ARGS...: one refusal.
bad() {
	local want=$1 desc=$2 rc=0 lines
	shift 2
	# timeout: a value wrongly accepted would start a capture
	in_cap timeout "$(( $(scaled 10000) / 1000 ))" "$P" "$@" >"$WORK/stdout" 2>"$WORK/stderr" || rc=$?
	lines=$(wc -l <"$WORK/stderr")
	if [ "$rc" != "$want" ] || [ "$lines" != 1 ] || [ -s "$WORK/stdout" ] || [ -e "$OUT" ] ||
	   [ "$(cat "$WORK/old.pcapng")" != precious ]; then
		fail "$desc ($*): exit $rc (want $want), $lines stderr lines: $(cat "$WORK/stderr")"
	fi
	N=$((N + 1))
}
N=0

# Numbers and words: every value below is wrong for every option here.
values=("" " " " 7" "7 " $'\t7' "-5" " -5" "+5" "0x10" "1e3" "abc" "7abc"
	"18446744073709551616" "99999999999999999999999999" $'7\n' "-0")
numeric=(-s -c -B -C -G -W --duration --sample --sample-flows --sample-interval --max-rate
	--stats --sflow-header --sflow-counters --pid)
for opt in "${numeric[@]}"; do
	for v in "${values[@]}"; do
		extra=()
		case $opt in
		-W) extra=(-C 1) ;;
		--sflow-*) extra=(--sflow 127.0.0.1) ;;
		esac
		bad 2 "$opt '$v'" -i "$CAPIF" -w "$OUT" "${extra[@]}" "$opt" "$v"
	done
done
# Out of range where the type is right.
for args in "-s 262145" "-B 3" "-B 1048577" "--sample 0" "--sample-flows 0" \
	"--sample-interval 0ms" "--sample-interval 2h" "--max-rate 0" "--max-rate 1000000001" \
	"--stats 50ms" "-C 0" "-G 0" "-c 0" "--duration 0" "--sflow-header 13" \
	"--sflow-header 1025" "--sflow-counters 3601" "--pid 0" "--pid 2147483648"; do
	# shellcheck disable=SC2086
	bad 2 "out of range: $args" -i "$CAPIF" -w "$OUT" --sflow 127.0.0.1 $args
done
# Words from a fixed set.
for opt in --hook -Q --transport --xdp-mode --tc-mode --xdp-attach --sample-mode --context; do
	for v in "" " " "nope" "xdp," ",xdp" "XDP" $'in\n'; do
		extra=()
		[ "$opt" != --sample-mode ] || extra=(--sample 10)
		bad 2 "$opt '$v'" -i "$CAPIF" -w "$OUT" "${extra[@]}" "$opt" "$v"
	done
done
# Names that cannot be one: empty, or longer than the kernel keeps.
for args in "--comm=" "--comm=abcdefghijklmnop" "--cgroup=" "--container=" "--netns="; do
	bad 2 "$args" -i "$CAPIF" -w "$OUT" "$args"
done
# Addresses.
for v in "" " " "host.example" "192.0.2.1:0" "192.0.2.1:65536" "192.0.2.1:x" "[2001:db8::1" \
	"300.1.1.1"; do
	bad 2 "--sflow '$v'" -i "$CAPIF" --sflow "$v"
	bad 2 "--sflow-agent '$v'" -i "$CAPIF" --sflow 127.0.0.1 --sflow-agent "$v"
done
ok "$N numeric, word and address values refused: one line, exit 2, nothing written"

# Options and their spelling.
N=0
bad 2 "unknown option" -i "$CAPIF" --frobnicate
bad 2 "a switch given a value" --help=foo
bad 2 "an ambiguous abbreviation" -i "$CAPIF" --s 3
bad 2 "a missing value" -i "$CAPIF" -w
bad 2 "-t six times" -i "$CAPIF" -tttttt
bad 2 "-Q with --hook" -i "$CAPIF" -Q in --hook xdp
bad 2 "-r with -i" -r "$WORK/old.pcapng" -i "$CAPIF"
ok "$N option spellings refused in one line"

# Interfaces, files and filters.
N=0
bad 2 "an empty interface" -i "" -w "$OUT"
bad 2 "a blank interface" -i " " -w "$OUT"
bad 2 "an interface with a newline" -i $'eth0\nx' -w "$OUT"
bad 2 "an interface name too long" -i "$(printf 'x%.0s' {1..40})" -w "$OUT"
bad 2 "an unknown interface" -i nope0 -w "$OUT"
bad 2 "33 interfaces" $(for i in $(seq 33); do printf -- '-i lo '; done) -w "$OUT"
bad 2 "an empty output" -i "$CAPIF" -w ""
bad 1 "an output in a missing directory" -i "$CAPIF" -w "$WORK/no/such/out.pcapng"
bad 1 "an output that is a directory" -i "$CAPIF" -w "$WORK"
bad 2 "an empty filter file" -i "$CAPIF" -w "$OUT" -F ""
bad 2 "a filter file that is a directory" -i "$CAPIF" -w "$OUT" -F /tmp
bad 2 "a missing filter file" -i "$CAPIF" -w "$OUT" -F "$WORK/none"
bad 2 "a filter that does not parse" -i "$CAPIF" -w "$OUT" 'tcp port'
bad 2 "a filter with inbound" -i "$CAPIF" -w "$OUT" inbound
bad 2 "a filter of 1000 hosts" -i "$CAPIF" -w "$OUT" \
	"$(python3 -c "print(' or '.join('host 10.0.%d.%d' % (i // 250, i % 250 + 1) for i in range(1000)))")"
bad 2 "filter words and -F" -i "$CAPIF" -w "$OUT" -F /etc/hostname udp
bad 2 "an unknown -Z user" -i "$CAPIF" -w "$OUT" -Z no-such-user-here
bad 2 "an empty -r" -r ""
bad 1 "a missing -r file" -r "$WORK/none.pcap"
bad 1 "a -r file that is a directory" -r "$WORK"
printf 'junk' >"$WORK/junk"
bad 1 "a -r file that is not a capture" -r "$WORK/junk"
python3 -c "import struct, sys; sys.stdout.buffer.write(struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))" \
	>"$WORK/empty.pcap"
bad 2 "-r with a bad filter" -r "$WORK/empty.pcap" 'tcp port'
ok "$N interface, file and filter cases refused in one line"

# An existing file is never clobbered by a refused start.
bad 2 "a bad value after -w of an existing file" -i "$CAPIF" -w "$WORK/old.pcapng" -s 0x10
assert_eq precious "$(cat "$WORK/old.pcapng")" "an existing file stays as it was"
assert_nothing_attached
