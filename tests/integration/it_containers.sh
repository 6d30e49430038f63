#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Containers by name, with real runtimes: a docker container (dockerd
# started here by hand, cgroupfs driver, no bridge and no NAT) and a podman
# container given a Kubernetes pod's annotations as CRI-O writes them
# (runc, cgroupfs), both from an image imported from a busybox tree and
# without a network of their own: each gets a veth whose other end is in
# the capture namespace, so their traffic goes only to the test's own
# addresses. Captured there, every packet of theirs names the container by
# its name and image (docker), or by its pod, namespace and name (podman),
# with the runtime's id after: in the file, from -r -v, and in --top's
# container, pod and namespace groupings.
. "$(dirname "$0")/lib.sh"
. "$top/testenv/containers.sh"
need_tools dockerd docker podman runc containerd ctr busybox python3 curl promtool

RUN=pst$$
WEB=web-$RUN
IMAGE=bb-$RUN:1
NS=shop-$RUN
POD=cart-7d9f

env_up
CTRS=()   # docker containers, removed at the end
PCTRS=()  # podman's
DOCKERD=""
podman_conf "$WORK/containers.conf"

CTRD_NS=pst$$     # containerd's namespace of the test
CTRD=""           # the containerd started here, if one was
CID=""            # its container
runtimes_down() {
	local c h
	if [ -n "$CID" ]; then
		ctr -n "$CTRD_NS" task kill -s KILL "$CID" >/dev/null 2>&1
		for _ in $(seq 50); do
			ctr -n "$CTRD_NS" task rm "$CID" >/dev/null 2>&1 && break
			sleep 0.1
		done
		ctr -n "$CTRD_NS" container rm "$CID" >/dev/null 2>&1
		ctr -n "$CTRD_NS" image rm --sync "localhost/$IMAGE" >/dev/null 2>&1
		ctr -n "$CTRD_NS" content ls -q 2>/dev/null | xargs -r ctr -n "$CTRD_NS" content rm >/dev/null 2>&1
		ctr namespace rm "$CTRD_NS" >/dev/null 2>&1
	fi
	# runc made the cgroups (those of each v1 hierarchy too) below the
	# pod's, which the runtime leaves to kubelet.
	for h in /sys/fs/cgroup/*/"$RUN-kubepods" /sys/fs/cgroup/"$RUN-kubepods"; do
		[ -d "$h" ] && find "$h" -depth -type d -exec rmdir {} + 2>/dev/null
	done
	if [ -n "$CTRD" ]; then
		kill -TERM "$CTRD" 2>/dev/null || true
		for _ in $(seq 100); do kill -0 "$CTRD" 2>/dev/null || break; sleep 0.1; done
	fi
	for c in "${CTRS[@]}"; do docker rm -f "$c" >/dev/null 2>&1 || true; done
	docker rmi "$IMAGE" >/dev/null 2>&1 || true
	for c in "${PCTRS[@]}"; do podman rm -f -t 0 "$c" >/dev/null 2>&1 || true; done
	podman rmi "localhost/$IMAGE" >/dev/null 2>&1 || true
	if [ -n "$DOCKERD" ]; then
		kill -TERM "$DOCKERD" 2>/dev/null || true
		for _ in $(seq 100); do kill -0 "$DOCKERD" 2>/dev/null || break; sleep 0.1; done
	fi
}
# cleanup reads the exit status first: given back to it, errexit off so
# that giving it back does not end the trap.
trap 'rc=$?; set +e; runtimes_down; (exit $rc); cleanup' EXIT

# The image: a busybox-static tree.
busybox_tree "$WORK/root"

# wait_daemon PID NAME CMD...: until CMD answers, while PID (NAME, logging
# to $WORK/NAME.log) lives.
wait_daemon() {
	local pid=$1 name=$2
	shift 2
	for _ in $(seq $((300 * PS_TIME_SCALE))); do
		"$@" >/dev/null 2>&1 && return 0
		kill -0 "$pid" 2>/dev/null || fail "$name did not start: $(tail -5 "$WORK/$name.log")"
		sleep 0.1
	done
	fail "$name did not answer: $(tail -5 "$WORK/$name.log")"
}

# docker: the host's daemon where one answers, else one of our own (no
# bridge, no iptables: nothing of the host's network changes).
if ! docker info >/dev/null 2>&1; then
	export DOCKER_HOST=unix://$WORK/docker.sock
	dockerd --iptables=false --ip6tables=false --bridge=none \
		--exec-opt native.cgroupdriver=cgroupfs -H "$DOCKER_HOST" \
		--pidfile "$WORK/docker.pid" >"$WORK/dockerd.log" 2>&1 &
	DOCKERD=$!
	wait_daemon "$DOCKERD" dockerd docker info
fi
tar -C "$WORK/root" -c . | docker import - "$IMAGE" >/dev/null || fail "docker import failed"
tar -C "$WORK/root" -c . | podman import - "$IMAGE" >/dev/null 2>"$WORK/podman.err" ||
	fail "podman import failed: $(cat "$WORK/podman.err")"

CTRS+=("$WEB")
DID=$(docker run -d --name "$WEB" --network none "$IMAGE" sleep 600) || fail "docker run failed"
PCTRS+=("$RUN-cart")
k8s_annotations "$NS" "$POD" cart
PID_=$(podman run -d --name "$RUN-cart" --network none "${K8S[@]}" "localhost/$IMAGE" \
	sleep 600 2>"$WORK/podman.err") ||
	fail "podman run failed: $(cat "$WORK/podman.err")"

# wire N PID: a veth from the capture namespace (198.18.N.1, ${ENV}cN) to
# the container whose first process is PID (198.18.N.2).
wire() { wire_container "$ENV-cap" "$1" "$2"; }
wire 1 "$(docker inspect -f '{{.State.Pid}}' "$WEB")"
wire 2 "$(podman inspect -f '{{.State.Pid}}' "$RUN-cart")"

CAPTURE=(-i "${ENV}c1" -i "${ENV}c2" --hook tc-ingress,tc-egress)

# side OUT ERR ARGS...: another pktsample on the capture, stdout to OUT,
# stderr to ERR, started as start_capture starts one (its pid pktsample's,
# so that SIGINT reaches it: SIDE_PID), once it has attached.
side() {
	local out=$1 err=$2
	shift 2
	: >"$err"
	"$TESTENV" exec "$ENV" cap -- "$PKTSAMPLE" "${CAPTURE[@]}" "$@" >"$out" 2>"$err" &
	SIDE_PID=$!
	PIDS+=("$SIDE_PID")
	for _ in $(seq $((100 * PS_TIME_SCALE))); do
		started "$err" && return 0
		kill -0 "$SIDE_PID" 2>/dev/null || break
		sleep 0.1
	done
	fail "pktsample $* did not start: $(cat "$err")"
}

start_capture "${CAPTURE[@]}" -w "$WORK/names.pcapng"
side "$WORK/top-container.txt" "$WORK/top.err" --top --batch --top-group container
TOP_PID=$SIDE_PID
# The live view: -v prints each packet's words after its line.
side "$WORK/live.txt" "$WORK/live.err" -v
LIVE_PID=$SIDE_PID
# sFlow: the owner's words in the flow samples' extended_user record.
start_sflow_tcpdump
side /dev/null "$WORK/sflow.err" --sflow 127.0.0.1
SFLOW_PID=$SIDE_PID

# --container by the docker container's name, and by the beginning of
# the podman container's id.
declare -A BY
# --pod and --k8s-namespace by the podman container's annotations.
for f in "name --container=$WEB" "prefix --container=${PID_:0:8}" "pod --pod=$NS/$POD" \
	"podname --pod=$POD" "ns --k8s-namespace=$NS"; do
	side /dev/null "$WORK/by-${f% *}.err" "${f#* }" -w "$WORK/by-${f% *}.pcapng"
	BY[${f% *}]=$SIDE_PID
done

docker exec "$WEB" ping -c 3 -i 0.2 198.18.1.1 >/dev/null || fail "the docker container's ping failed"
podman exec "$RUN-cart" ping -c 3 -i 0.2 198.18.2.1 >/dev/null || fail "the podman container's ping failed"
sleep "$(scaled 2)"
stop_capture
assert_eq 0 "$PS_RC" "the capture ends cleanly"
kill -INT "$TOP_PID"
wait "$TOP_PID" || fail "--top did not end cleanly: $(cat "$WORK/top.err")"
for b in name prefix pod podname ns; do
	kill -INT "${BY[$b]}"
	wait "${BY[$b]}" || fail "the capture by $b did not end cleanly: $(cat "$WORK/by-$b.err")"
done
kill -INT "$LIVE_PID"
wait "$LIVE_PID" || fail "the live view did not end cleanly: $(cat "$WORK/live.err")"
kill -INT "$SFLOW_PID"
wait "$SFLOW_PID" || fail "the sFlow export did not end cleanly: $(cat "$WORK/sflow.err")"
stop_sflow_tcpdump

who() { fields "$WORK/names.pcapng" "$1" frame.comment; }
D_WORDS="container=$WEB image=$IMAGE cid=docker:${DID:0:12}"
P_WORDS="pod=$NS/$POD container=cart image=localhost/$IMAGE cid=podman:${PID_:0:12}"
lines=$(who 'icmp.type == 8 && ip.src == 198.18.1.2')
[ "$(wc -l <<<"$lines")" -eq 3 ] || fail "not the docker container's 3 echo requests: $lines"
assert_eq "" "$(grep -v "comm=ping $D_WORDS netns=" <<<"$lines" || true)" \
	"docker: each echo request names the container by its name and image, its id after"
lines=$(who 'icmp.type == 8 && ip.src == 198.18.2.2')
[ "$(wc -l <<<"$lines")" -eq 3 ] || fail "not the podman container's 3 echo requests: $lines"
assert_eq "" "$(grep -v "comm=ping $P_WORDS netns=" <<<"$lines" || true)" \
	"podman: each echo request names the pod, its namespace and the container, its id after"
[ "$(count "$WORK/names.pcapng" "icmp.type == 8 && frame.comment contains \"pod=$NS/\"")" -eq 3 ] ||
	fail "Wireshark's filter on the namespace does not find the pod's 3 requests"
assert_eq 0 "$(count "$WORK/names.pcapng" "frame.comment contains \"pod=$NS/\" && !(ip.src == 198.18.2.2)")" \
	"Wireshark's filter on the namespace finds the pod's packets alone"
ok "a pod's namespace is a Wireshark filter: frame.comment contains \"pod=$NS/\""
users=$(tshark_q -r "$WORK/sflow.pcap" -T fields -e sflow_5.extended_user.source_user)
assert_match "comm=ping $D_WORDS netns=" "$users" "sFlow: the docker container's samples name it"
assert_match "comm=ping $P_WORDS netns=" "$users" "sFlow: the pod's samples name it"

# Each --container capture holds exactly the full capture's packets of
# that container: its 3 requests, and nothing of the other's.
for b in "name 198.18.1.2 198.18.2.2" "prefix 198.18.2.2 198.18.1.2" "pod 198.18.2.2 198.18.1.2" \
	"podname 198.18.2.2 198.18.1.2" "ns 198.18.2.2 198.18.1.2"; do
	set -- $b
	assert_eq 3 "$(count "$WORK/by-$1.pcapng" "icmp.type == 8 && ip.src == $2")" \
		"the capture by $1: the container's 3 requests"
	assert_eq 0 "$(count "$WORK/by-$1.pcapng" "ip.src == $3 || ip.dst == $3")" \
		"the capture by $1: nothing of the other container's"
done
bad() { # DESCRIPTION REGEX ARGS...
	local rc=0 err
	err=$("$TESTENV" exec "$ENV" cap -- "$PKTSAMPLE" "${CAPTURE[@]}" "${@:3}" -w "$WORK/bad.pcapng" 2>&1 >/dev/null) || rc=$?
	assert_eq 2 "$rc" "$1: exit 2"
	assert_match "^pktsample: $2" "$err" "$1: says so, in one line"
	assert_eq 1 "$(printf '%s\n' "$err" | wc -l)" "$1: one line"
}
bad "a container by no one's name" "--container nosuch-$RUN: no such container" --container "nosuch-$RUN"
bad "a pod nobody runs" "--pod $NS/nosuch: no container of such a pod" --pod "$NS/nosuch"
bad "a namespace without pods" "--k8s-namespace nosuch-$RUN: no container of such a namespace" \
	--k8s-namespace "nosuch-$RUN"

# Wireshark's profile: the hook, the direction, the owner, the pod or
# container and the annotation as columns, the words as fields (a
# personal profile and the Lua script named here; the package installs
# both as global ones).
mkdir -p "$WORK/ws/profiles/pktsample"
cp "$top/packaging/wireshark/preferences" "$WORK/ws/profiles/pktsample/"
ws() { WIRESHARK_CONFIG_DIR=$WORK/ws tshark -C pktsample -X "lua_script:$top/packaging/wireshark/pktsample.lua" \
	-r "$WORK/names.pcapng" "$@" 2>/dev/null; }
line=$(ws -Y 'icmp.type == 8 && ip.src == 198.18.2.2' | head -1)
assert_match "${ENV}c2 tc ingress Inbound .* ping \([0-9]+\) $NS/$POD/cart .*$P_WORDS " "$line" \
	"tshark -C pktsample: the interface, hook, direction, owner, pod and annotation in columns"
line=$(ws -Y 'icmp.type == 8 && ip.src == 198.18.1.2' | head -1)
assert_match "${ENV}c1 tc ingress Inbound .* ping \([0-9]+\) $WEB .*$D_WORDS " "$line" \
	"tshark -C pktsample: the docker container by name in its column"
assert_eq 3 "$(ws -Y "icmp.type == 8 && pktsample.pod == \"$NS/$POD\"" | wc -l)" \
	"Wireshark's filter pktsample.pod finds the pod's 3 requests"
assert_eq 0 "$(ws -Y "pktsample.pod && !(ip.src == 198.18.2.2)" | wc -l)" \
	"Wireshark's filter pktsample.pod finds the pod's packets alone"

[ "$(grep -c "$D_WORDS" "$WORK/live.txt")" -ge 3 ] && [ "$(grep -c "$P_WORDS" "$WORK/live.txt")" -ge 3 ] ||
	fail "the live view's -v does not print the names: $(cat "$WORK/live.txt")"
ok "the live view's -v prints the names"
"$PKTSAMPLE" -r "$WORK/names.pcapng" -v >"$WORK/read.txt" 2>&1 || fail "-r -v failed"
[ "$(grep -c "$D_WORDS" "$WORK/read.txt")" -eq 3 ] && [ "$(grep -c "$P_WORDS" "$WORK/read.txt")" -eq 3 ] ||
	fail "-r -v does not print the names: $(cat "$WORK/read.txt")"
ok "-r -v prints the names"

# --metrics: each container's packets under its name. The metrics name a
# row at the first second's tick that finds it sending, and count it from
# then: both containers ping all through, and the text is read meanwhile.
start_capture "${CAPTURE[@]}" -w /dev/null --metrics 127.0.0.1:9651
docker exec "$WEB" ping -c $((15 * PS_TIME_SCALE)) -i 0.2 198.18.1.1 >/dev/null &
PINGS=($!)
podman exec "$RUN-cart" ping -c $((15 * PS_TIME_SCALE)) -i 0.2 198.18.2.1 >/dev/null &
PINGS+=($!)
PIDS+=("${PINGS[@]}")
sleep "$(scaled 2)"
in_cap curl -sf http://127.0.0.1:9651/metrics >"$WORK/metrics" || fail "no metrics"
stop_capture
wait "${PINGS[@]}" || true
promtool check metrics <"$WORK/metrics" >"$WORK/promtool" 2>&1 || fail "promtool: $(cat "$WORK/promtool")"
for c in "$WEB" "$NS/$POD/cart"; do
	grep -q "^pktsample_container_packets_total{container=\"$c\",direction=\"in\"} [1-9]" "$WORK/metrics" ||
		fail "--metrics: no packets of container $c: $(grep container_packets "$WORK/metrics")"
done
ok "--metrics: the containers' packets labelled by their names, promtool takes the text"

# --top: one row per container by its name; then the pod and namespace
# groupings, over the same packets read back.
grep -q " $WEB\$" "$WORK/top-container.txt" || fail "--top: no row for $WEB: $(cat "$WORK/top-container.txt")"
grep -q " $NS/$POD/cart\$" "$WORK/top-container.txt" ||
	fail "--top: no row for $NS/$POD/cart: $(cat "$WORK/top-container.txt")"
ok "--top groups by the containers' names"
for g in "pod $NS/$POD" "namespace $NS"; do
	side "$WORK/top-g.txt" "$WORK/top.err" --top --batch --top-group "${g% *}"
	TOP_PID=$SIDE_PID
	podman exec "$RUN-cart" ping -c 2 -i 0.2 198.18.2.1 >/dev/null
	docker exec "$WEB" ping -c 2 -i 0.2 198.18.1.1 >/dev/null
	sleep "$(scaled 2)"
	kill -INT "$TOP_PID"
	wait "$TOP_PID" || fail "--top-group ${g% *} did not end cleanly"
	grep -q " ${g#* }\$" "$WORK/top-g.txt" || fail "--top-group ${g% *}: no row ${g#* }: $(cat "$WORK/top-g.txt")"
	[ "$(grep -c ' (none)$' "$WORK/top-g.txt")" -le "$(grep -c '^pktsample top ' "$WORK/top-g.txt")" ] ||
		fail "--top-group ${g% *}: (none) more than once a table: $(cat "$WORK/top-g.txt")"
	ok "--top-group ${g% *}: a row ${g#* }, (none) once"
done
assert_nothing_attached "${ENV}c1"
assert_nothing_attached "${ENV}c2"

# A filter by name follows: a container that stops leaves it, and one
# started during the capture under the same name is in it from its first
# packet (its first process is the ping); an agent (--config) whose pod
# is not there yet waits for it, and takes it from its first packet. All
# share the network of a holder container (wired as 3), whose own
# packets no filter takes.
CTRS+=("$RUN-net" "$RUN-fol")
docker run -d --name "$RUN-net" --network none "$IMAGE" sleep 600 >/dev/null || fail "docker run failed"
HPID=$(docker inspect -f '{{.State.Pid}}' "$RUN-net")
wire 3 "$HPID"
FID1=$(docker run -d --name "$RUN-fol" --network "container:$RUN-net" "$IMAGE" sleep 600) ||
	fail "docker run failed"
CAPTURE=(-i "${ENV}c3" --hook tc-ingress,tc-egress)
side /dev/null "$WORK/follow.err" -v --container "$RUN-fol" -w "$WORK/follow.pcapng"
FOL_PID=$SIDE_PID
printf 'pod %s/later\n' "$NS" >"$WORK/agent.conf"
side /dev/null "$WORK/agent.err" --config "$WORK/agent.conf" -w "$WORK/agent.pcapng"
AGENT_PID=$SIDE_PID
docker exec "$RUN-fol" ping -c 2 -i 0.2 198.18.3.1 >/dev/null || fail "the first follower's ping failed"
docker rm -f "$RUN-fol" >/dev/null
FID2=$(docker run -d --name "$RUN-fol" --network "container:$RUN-net" "$IMAGE" \
	ping -c 3 -i 0.2 198.18.3.1) || fail "docker run failed"
assert_eq 0 "$(docker wait "$RUN-fol")" "the second follower's ping answered"
docker exec "$RUN-net" ping -c 2 -i 0.2 198.18.3.1 >/dev/null || fail "the holder's ping failed"
PCTRS+=("$RUN-later")
k8s_annotations "$NS" later app
podman run --name "$RUN-later" --network "ns:/proc/$HPID/ns/net" "${K8S[@]}" "localhost/$IMAGE" \
	ping -c 3 -i 0.2 198.18.3.1 >/dev/null 2>"$WORK/podman.err" ||
	fail "the pod that comes later: $(cat "$WORK/podman.err")"
sleep "$(scaled 2)"
for p in "$FOL_PID follow" "$AGENT_PID agent"; do
	kill -INT "${p% *}"
	wait "${p% *}" || fail "the ${p#* } capture did not end cleanly: $(cat "$WORK/${p#* }.err")"
done
FOL="frame.comment contains \"container=$RUN-fol \""
assert_eq 2 "$(count "$WORK/follow.pcapng" "icmp.type == 8 && $FOL && frame.comment contains \"docker:${FID1:0:12}\"")" \
	"--container NAME: the first container's 2 requests"
assert_eq 3 "$(count "$WORK/follow.pcapng" "icmp.type == 8 && $FOL && frame.comment contains \"docker:${FID2:0:12}\"")" \
	"--container NAME: the one run later under that name, from its first packet"
assert_eq 5 "$(count "$WORK/follow.pcapng" "icmp.type == 8")" \
	"--container NAME: nothing of the holder's or the pod's"
assert_match "cgroup /docker/$FID1 is gone from the filter" "$(cat "$WORK/follow.err")" \
	"-v: the container that stopped leaves the filter"
assert_match "pktsample: --pod $NS/later: none there yet; waiting for it" "$(cat "$WORK/agent.err")" \
	"an agent whose pod is not there yet says it waits"
assert_eq 3 "$(count "$WORK/agent.pcapng" "icmp.type == 8 && frame.comment contains \"pod=$NS/later container=app \"")" \
	"the agent: the pod's 3 requests, from its first packet"
assert_eq 3 "$(count "$WORK/agent.pcapng" "icmp.type == 8")" "the agent: nothing but the pod's"
assert_nothing_attached "${ENV}c3"

# containerd: a task made through containerd itself (ctr), with the
# annotations containerd's CRI writes for a Kubernetes container, in a pod
# cgroup as kubelet's cgroupfs driver makes them: named from its bundle.
# The host's containerd where one answers, else one of our own (no CRI).
if ! ctr version >/dev/null 2>&1; then
	printf 'version = 2\ndisabled_plugins = ["io.containerd.grpc.v1.cri"]\n' >"$WORK/containerd.toml"
	containerd --config "$WORK/containerd.toml" >"$WORK/containerd.log" 2>&1 &
	CTRD=$!
	wait_daemon "$CTRD" containerd ctr version
fi
podman save --format oci-archive -o "$WORK/image.tar" "localhost/$IMAGE" >/dev/null 2>&1 ||
	fail "podman save failed"
CID=$(python3 -c 'import secrets; print(secrets.token_hex(32))')
ctr -n "$CTRD_NS" image import --base-name "localhost/${IMAGE%:*}" "$WORK/image.tar" >/dev/null 2>&1 ||
	fail "ctr image import failed"
ctr -n "$CTRD_NS" run -d --cgroup "/$RUN-kubepods/pod$(python3 -c 'import uuid; print(uuid.uuid4())')/$CID" \
	--annotation io.kubernetes.cri.sandbox-name=cart2 \
	--annotation io.kubernetes.cri.sandbox-namespace="$NS" \
	--annotation io.kubernetes.cri.container-name=app \
	--annotation io.kubernetes.cri.image-name="localhost/$IMAGE" \
	"localhost/$IMAGE" "$CID" sleep 600 >"$WORK/ctr.out" 2>&1 || fail "ctr run failed: $(cat "$WORK/ctr.out")"
wire 4 "$(ctr -n "$CTRD_NS" task ls | awk -v id="$CID" '$1 == id {print $2}')"
CAPTURE=(-i "${ENV}c4" --hook tc-ingress,tc-egress)
side /dev/null "$WORK/ctrd.err" --pod "$NS/cart2" -w "$WORK/ctrd.pcapng"
CTRD_PID=$SIDE_PID
ctr -n "$CTRD_NS" task exec --exec-id "ping$RUN" "$CID" ping -c 3 -i 0.2 198.18.4.1 >/dev/null ||
	fail "the containerd container's ping failed"
sleep "$(scaled 1)"
kill -INT "$CTRD_PID"
wait "$CTRD_PID" || fail "the capture by the containerd pod did not end cleanly: $(cat "$WORK/ctrd.err")"
C_WORDS="pod=$NS/cart2 container=app image=localhost/$IMAGE cid=containerd:${CID:0:12}"
lines=$(fields "$WORK/ctrd.pcapng" 'icmp.type == 8' frame.comment)
[ "$(wc -l <<<"$lines")" -eq 3 ] || fail "not the containerd container's 3 echo requests: $lines"
assert_eq "" "$(grep -v "comm=ping $C_WORDS netns=" <<<"$lines" || true)" \
	"containerd: --pod finds the task by its CRI annotations, each request names its pod"
assert_nothing_attached "${ENV}c4"
