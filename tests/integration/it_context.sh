#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Whom packets belong to: two processes in containers of their own (cgroups
# named as docker's and podman's) and one whose sockets exist before the
# capture starts, all in the capture namespace, talk TCP and UDP to the
# peer and ping it. Captured from the host with --netns, every packet at
# every hook names the process, container and namespace its local socket
# belongs to, or says why it has none; --pid and --container capture
# exactly their packets; the file survives Wireshark's tools; -r -v
# prints it; bad input is refused with nothing left attached.
. "$(dirname "$0")/lib.sh"
need_tools python3 editcap mergecap ping bpftool

CGROOT=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
[ -n "$CGROOT" ] || skip "needs the cgroup v2 hierarchy mounted"

env_up
PEER=192.0.2.2
in_peer python3 "$here/ctx_peer.py" server &
PIDS+=($!)
for _ in $(seq 100); do
	in_peer ss -ltn | grep -q ':5001 ' && break
	sleep 0.1
done

hex64() { head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n'; }
ID_A=$(hex64)
ID_B=$(hex64)
TOP=$CGROOT/pktsample-it-$$
CG_A=$TOP/docker-$ID_A.scope
CG_B=$TOP/libpod-$ID_B.scope
mkdir "$TOP" && CLEAN_CGROUPS+=("$TOP")
mkdir "$CG_A" && CLEAN_CGROUPS+=("$CG_A")
mkdir "$CG_B" && CLEAN_CGROUPS+=("$CG_B")

# in_cgroup DIR CMD...: CMD in cgroup DIR, in the capture namespace (the
# same process all along: its pid is $!'s).
in_cgroup() {
	local dir=$1
	shift
	exec sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$dir" "$TESTENV" exec "$ENV" cap -- "$@"
}

wait_file() {
	for _ in $(seq 100); do [ -s "$1" ] && return 0; sleep 0.1; done
	fail "no $1"
}

# A process whose sockets exist before pktsample starts.
in_cgroup "$TOP" python3 "$here/ctx_peer.py" pre "$PEER" "$WORK/pre.ports" "$WORK/go" &
PRE=$!
PIDS+=("$PRE")
wait_file "$WORK/pre.ports"
# Two pings that start before pktsample: one through a raw socket (root's,
# where the namespace lets nobody make ping sockets), one through a ping
# socket (ICMP datagram, once the namespace lets everyone), which no
# sock_diag lists: the start's scan finds them both.
in_cgroup "$TOP" ping -i 0.2 -q "$PEER" >/dev/null &
PING_RAW=$!
PIDS+=("$PING_RAW")
in_cap sysctl -q -w net.ipv4.ping_group_range="0 2147483647"
in_cgroup "$TOP" ping -i 0.2 -q "$PEER" >/dev/null &
PING_DGRAM=$!
PIDS+=("$PING_DGRAM")
for _ in $(seq 100); do
	in_cap grep -q ' 07 ' /proc/net/icmp && break
	sleep 0.1
done
in_cap grep -q ' 07 ' /proc/net/icmp || fail "the second ping made no ping socket"
# Not the pings that started before: A's and the peer's checks below.
NOT_PRE="!(frame.comment contains \"pid=$PING_RAW \") && !(frame.comment contains \"pid=$PING_DGRAM \")"

# cap NAME ARGS...: pktsample from the host, in the capture namespace by
# --netns (CAP_NS, CAP_IF: another), writing $WORK/NAME.pcapng; its pid in
# CAP_PID[NAME].
declare -A CAP_PID
cap() {
	local name=$1
	shift
	: >"$WORK/$name.err"
	"$PKTSAMPLE" --netns "${CAP_NS:-$ENV-cap}" -i "${CAP_IF:-$CAPIF}" "$@" \
		-w "$WORK/$name.pcapng" 2>"$WORK/$name.err" &
	CAP_PID[$name]=$!
	PIDS+=($!)
	for _ in $(seq $((100 * PS_TIME_SCALE))); do
		started "$WORK/$name.err" && return 0
		kill -0 "${CAP_PID[$name]}" 2>/dev/null || break
		sleep 0.1
	done
	fail "pktsample $name did not start: $(cat "$WORK/$name.err")"
}
# sFlow's view: the datagrams on the capture namespace's lo, as sent. A
# socket takes them: with none, each draws a port unreachable, which the
# exporter's connected socket reports on its next send, and that datagram
# is not sent (counted failed) — A's samples, one run in the 6.1 VM.
in_cap ip link set lo up
"$TESTENV" exec "$ENV" cap -- python3 -c 'import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 6343))
while True: s.recv(65536)' &
PIDS+=($!)
for _ in $(seq $((50 * PS_TIME_SCALE))); do
	in_cap ss -Hnlu 'sport = :6343' | grep -q . && break
	sleep 0.1
done
start_sflow_tcpdump
cap full --hook xdp,tc-ingress,tc-egress -v
cap sflow --hook tc-egress --sflow 127.0.0.1
# The peer's side: what arrives for no local socket of the peer still
# carries its sender's, from the capture namespace.
CAP_NS=$ENV-peer CAP_IF=$PEERIF cap peer --hook tc-ingress,tc-egress
cap bypid --hook tc-ingress,tc-egress --pid "$PRE"
cap bycont --hook tc-ingress,tc-egress --container "${ID_B:0:12}"
sock_create_on "$CGROOT" || fail "the socket-owner program is not attached to the cgroup v2 root"
ok "the socket-owner program is attached to the cgroup v2 root"

touch "$WORK/go"
in_cgroup "$CG_A" python3 "$here/ctx_peer.py" client "$PEER" "$WORK/a.ports" &
A=$!
wait "$A"
in_cgroup "$CG_A" ping -c 2 -i 0.2 -q "$PEER" >/dev/null &
A_PING=$!
wait "$A_PING"
in_cgroup "$CG_B" python3 "$here/ctx_peer.py" client "$PEER" "$WORK/b.ports" &
B=$!
wait "$B"
wait "$PRE"
sleep 0.5
kill "$PING_RAW" "$PING_DGRAM"
for name in full bypid bycont sflow peer; do
	kill -INT "${CAP_PID[$name]}"
	rc=0
	wait "${CAP_PID[$name]}" || rc=$?
	assert_eq 0 "$rc" "capture $name ends cleanly"
done
! sock_create_on "$CGROOT" || fail "the socket-owner program stayed after the captures"
ok "the socket-owner program went with the captures"
assert_nothing_attached

# who FILE FILTER: the comments of the matching packets, one per line.
who() { fields "$1" "$2" frame.comment; }
ports() { sed -n "s/^$2 //p" "$1"; }

# kernel_reply PORTFILTER: a filter for the packets of a connection the
# kernel sends at tc-egress from its own control socket, which no process
# owns, so they name no owner: a TIME_WAIT stub's ACK, and a
# RST for a segment that came after the socket was gone. Each connection
# has at most two (KERNEL_REPLIES_MAX). A slow machine, such as the 6.1
# VM, makes them now and then: the closing side's ACK of the other's FIN
# arrives after that FIN was sent again, so the stub ACKs once more and
# the other side, closed by then, answers with a RST.
KERNEL_REPLIES_MAX=2
kernel_reply() {
	echo "($1) && tcp.len == 0 && (tcp.flags == 0x010 || tcp.flags.reset == 1) && frame.interface_description == \"tc egress\" && !(frame.comment contains \"pid=\")"
}

# check NAME PID PORTSFILE WHERE: every packet of the process's TCP and UDP
# ports names it, its container or cgroup (WHERE) and namespace, at every
# hook that saw it, but for the kernel's replies (kernel_reply).
check() {
	local name=$1 pid=$2 file=$3 where=$4 tcp udp lines bad stub
	tcp=$(ports "$file" tcp)
	udp=$(ports "$file" udp)
	stub=$(kernel_reply "tcp.port == $tcp")
	lines=$(who "$WORK/full.pcapng" "(tcp.port == $tcp || udp.port == $udp) && !($stub)")
	[ -n "$lines" ] || fail "$name: no packets"
	bad=$(grep -v "pid=$pid comm=python3 $where netns=$ENV-cap\$" <<<"$lines" || true)
	assert_eq "" "$bad" "$name: every TCP and UDP packet says pid=$pid, $where, netns=$ENV-cap"
	[ "$(count "$WORK/full.pcapng" "$stub")" -le $KERNEL_REPLIES_MAX ] ||
		fail "$name: more than $KERNEL_REPLIES_MAX packets from the kernel's control socket"
	for hook in "xdp ingress" tc-ingress tc-egress; do
		for proto in "tcp.port == $tcp" "udp.port == $udp"; do
			[ "$(count "$WORK/full.pcapng" "($proto) && frame.interface_description == \"${hook/-/ }\"")" -gt 0 ] ||
				fail "$name: no $proto packet at $hook"
		done
	done
	ok "$name: attributed at xdp, tc-ingress and tc-egress, TCP and UDP"
}
check "process A (docker)" "$A" "$WORK/a.ports" "container=docker:${ID_A:0:12}"
check "process B (podman)" "$B" "$WORK/b.ports" "container=podman:${ID_B:0:12}"
check "a process whose sockets existed before" "$PRE" "$WORK/pre.ports" "cgroup=/pktsample-it-$$"

# ping: its requests leave from its socket; the replies have no local
# socket to be for (XDP), or carry the peer kernel's (TC ingress).
assert_match "^(.*pid=$A_PING comm=ping container=docker:${ID_A:0:12} netns=$ENV-cap
?){2}\$" "$(who "$WORK/full.pcapng" "icmp.type == 8 && frame.interface_description == \"tc egress\" && $NOT_PRE")" \
	"ping's two requests name ping and its container"
for p in "$PING_RAW raw" "$PING_DGRAM ping"; do
	[ "$(count "$WORK/full.pcapng" "icmp.type == 8 && frame.interface_description == \"tc egress\" && frame.comment contains \"pid=${p% *} comm=ping cgroup=/pktsample-it-$$ netns=$ENV-cap\"")" -gt 0 ] ||
		fail "a ping through a ${p#* } socket made before the capture is not named"
done
ok "pings whose raw and ping sockets were made before the capture are named"
assert_eq "" "$(who "$WORK/full.pcapng" 'icmp.type == 0' | grep . || true)" \
	"ping's replies have no owner, and their blocks no comment"
# The file says nothing of an owner not known; -v's summary counts them,
# by why: as many as the packets that name no process.
why=$(sed -n 's/.*packets without a known owner, by why: //p' "$WORK/full.err")
assert_match "none:not-tcp-udp [0-9]+" "$why" "the summary counts the replies: not TCP or UDP"
assert_eq "$(count "$WORK/full.pcapng" '!(frame.comment contains "pid=")')" \
	"$(grep -oE '[0-9]+' <<<"$why" | awk '{ s += $1 } END { print s + 0 }')" \
	"the summary counts every packet that names no process, by why"

# At the peer's tc-ingress: A's ping requests and the datagram to a port
# nothing listens on name their senders, in the capture namespace: one that
# ping made during the capture, one that existed before it (found in the
# other namespace by the start's scan).
lost=$(ports "$WORK/pre.ports" lost)
assert_match "^(owner=sender pid=$A_PING comm=ping container=docker:${ID_A:0:12} netns=$ENV-cap
?){2}\$" "$(who "$WORK/peer.pcapng" "icmp.type == 8 && $NOT_PRE")" \
	"at the peer: ping's requests name their sender"
assert_eq "owner=sender pid=$PRE comm=python3 cgroup=/pktsample-it-$$ netns=$ENV-cap" \
	"$(who "$WORK/peer.pcapng" "udp.srcport == $lost && !icmp")" \
	"at the peer: a datagram for no socket names its sender, whose socket existed before"

# The server's side of the connection it accepted before the capture (the
# kernel made that socket; the start's scan found who holds it).
SERVER=$(pgrep -f -- "ctx_peer.py server" | head -1)
conn="tcp.srcport == 5001 && tcp.dstport == $(ports "$WORK/pre.ports" tcp)"
lines=$(who "$WORK/peer.pcapng" "($conn) && !($(kernel_reply "$conn"))")
[ -n "$lines" ] || fail "at the peer: no packets of the server's accepted connection"
assert_eq "" "$(grep -Ev "^pid=$SERVER( tid=[0-9]+)? comm=python3 netns=$ENV-peer\$" <<<"$lines" || true)" \
	"at the peer: the server's accepted connection names the server"
[ "$(count "$WORK/peer.pcapng" "$(kernel_reply "$conn")")" -le $KERNEL_REPLIES_MAX ] ||
	fail "at the peer: more than $KERNEL_REPLIES_MAX packets of the server's connection from the kernel's control socket"

# The pcapng draft's process option and Apple's process information
# blocks are in the file; Wireshark 4.0 reads it all the same.
procs=$("$PCAPCHECK" processes "$WORK/full.pcapng")
assert_eq 1 "$(grep -c "^pib [0-9]* pid=$A name=python3\$" <<<"$procs")" \
	"one process information block for process A"
assert_match "packets with a process: [1-9][0-9]*, not matching their PIB: 0\$" "$procs" \
	"epb_processid_threadid on the packets, each pointing at its process's PIB"

# --pid and --container: exactly the full capture's packets of that
# process and container, at the TC hooks.
same() { # NAME SELECTOR
	local want got
	want=$(fields "$WORK/full.pcapng" "frame.interface_description != \"xdp ingress\" && frame.comment contains \"$2\"" \
		frame.comment tcp.seq_raw tcp.flags udp.length | sort)
	got=$(fields "$WORK/$1.pcapng" "frame" frame.comment tcp.seq_raw tcp.flags udp.length | sort)
	[ -n "$want" ] || fail "$1: the full capture has no packets of $2"
	assert_eq "$want" "$got" "$1 has exactly the full capture's packets of $2"
}
same bypid "pid=$PRE "
same bycont "container=podman:${ID_B:0:12}"

# sFlow: the samples of A's TCP flow carry its socket (extended_socket_ipv4,
# which Wireshark 4.0 does not decode but skips) and its owner as the
# source user (extended_user), and no datagram is malformed.
sleep 0.5
stop_sflow_tcpdump
users=$(tshark_q -r "$WORK/sflow.pcap" -T fields -e sflow_5.extended_user.source_user)
assert_match "pid=$A comm=python3 container=docker:${ID_A:0:12} netns=$ENV-cap" "$users" \
	"sFlow: extended_user names the sender of A's packets"
assert_match "datagrams: [0-9]+ sent, 0 failed\$" "$(cat "$WORK/sflow.err")" \
	"sFlow: every datagram sent"
assert_eq 0 "$(count "$WORK/sflow.pcap" '_ws.malformed || _ws.expert.severity >= "warning"')" \
	"sFlow: no datagram malformed"

# Wireshark's tools keep the comments.
orig=$(tshark_q -r "$WORK/full.pcapng" -T fields -e frame.comment)
editcap "$WORK/full.pcapng" "$WORK/edit.pcapng"
assert_eq "$orig" "$(tshark_q -r "$WORK/edit.pcapng" -T fields -e frame.comment)" "editcap keeps them"
mergecap -w "$WORK/merge.pcapng" "$WORK/full.pcapng"
assert_eq "$orig" "$(tshark_q -r "$WORK/merge.pcapng" -T fields -e frame.comment)" "mergecap keeps them"
tshark_q -r "$WORK/full.pcapng" -w "$WORK/tw.pcapng" >/dev/null
assert_eq "$orig" "$(tshark_q -r "$WORK/tw.pcapng" -T fields -e frame.comment)" "tshark -w keeps them"

# -r -v prints them.
assert_match "pid=$A comm=python3 container=docker:${ID_A:0:12}" \
	"$("$PKTSAMPLE" -r "$WORK/full.pcapng" -v 2>/dev/null)" "-r -v prints whom packets belong to"

# SIGKILL: the socket-owner program is a link, and goes with the process.
cap killed --hook tc-egress
kill -KILL "${CAP_PID[killed]}"
wait "${CAP_PID[killed]}" 2>/dev/null || true
for _ in $(seq 50); do
	sock_create_on "$CGROOT" || break
	sleep 0.1
done
! sock_create_on "$CGROOT" || fail "after SIGKILL a socket-owner program is left"
ok "after SIGKILL no socket-owner program is left"

# Bad input: one line, exit 2, nothing attached.
bad() { # DESCRIPTION REGEX ARGS...
	local what=$1 re=$2 rc=0 err
	shift 2
	err=$("$PKTSAMPLE" -i "$CAPIF" "$@" -w "$WORK/bad.pcapng" 2>&1 >/dev/null) || rc=$?
	assert_eq 2 "$rc" "$what: exit 2"
	assert_match "^pktsample: $re" "$err" "$what: says so"
	assert_eq 1 "$(printf '%s\n' "$err" | wc -l)" "$what: in one line"
}
bad "an unknown pid" "--pid 2147483647: no such process" --netns "$ENV-cap" --pid 2147483647
bad "an unknown container" "--container 0123deadbeef: no such container" --netns "$ENV-cap" \
	--container 0123deadbeef
# Two containers whose ids begin alike: that beginning names neither
# (docker's and podman's rule), the whole id one.
AMB=$(hex64)
AMB=${AMB:0:8}
for k in 1 2; do
	id=$AMB$(hex64)
	mkdir "$TOP/docker-${id:0:64}.scope" && CLEAN_CGROUPS+=("$TOP/docker-${id:0:64}.scope")
done
bad "a beginning of two containers' ids" "--container $AMB: more than one container's id begins so" \
	--netns "$ENV-cap" --container "$AMB"
bad "an unknown cgroup" "--cgroup /nosuch-$$: no such cgroup" --netns "$ENV-cap" --cgroup "/nosuch-$$"
bad "an unknown netns" "--netns nosuch-$$: no such network namespace" --netns "nosuch-$$"
bad "a filter without context" "--pid needs --context on" --netns "$ENV-cap" --context off --pid 1
assert_nothing_attached
! sock_create_on "$CGROOT" || fail "a socket-owner program is left"
ok "no socket-owner program left"
