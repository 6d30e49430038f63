#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# pktsample where the pods run, with a real runtime: the OCI image made
# from this build (packaging/oci/mkimage.sh: podman build, from scratch),
# run by podman kube play from the manifests in packaging/k8s/, in the
# node's namespaces with the capabilities they list (not privileged) and
# the node's root read-only for --host-root:
# - the one-off capture Pod (capture-pod.yaml) captures a named podman
#   container's packets, and not those of another container sharing its
#   network, into its hostPath; stopped as a pod is deleted (SIGTERM), it
#   exits 0 with the file whole;
# - the agent (agent-daemonset.yaml: its ConfigMap, and its pod template
#   played as a Pod: podman 4.3 plays no DaemonSet), its settings the
#   ConfigMap's but for the test's interface and ports, told to follow a
#   pod that is not there yet: it says it waits, then counts the pod's
#   packets under the pod's name in its metrics.
# Only the test namespace's interface is captured; the containers' traffic
# goes to that namespace's address alone.
. "$(dirname "$0")/lib.sh"
. "$top/testenv/containers.sh"
need_tools podman runc catatonit busybox python3 curl
python3 -c 'import yaml' 2>/dev/null || skip "needs python3-yaml"

RUN=psi$$
IMAGE=localhost/pktsample:it-$RUN
BB=bb-$RUN:1
NS=shop-$RUN
KUBE=$top/packaging/k8s
env_up
PCTRS=()  # containers, removed at the end
PLAYED=() # kube YAML played, taken down at the end
podman_conf "$WORK/containers.conf"

# kube play builds podman's pause image where there is none: removed
# after if it was not there before.
PAUSE=$(podman images -q --filter reference=localhost/podman-pause)
runtime_down() {
	local y i
	for y in "${PLAYED[@]}"; do podman kube down "$y" >/dev/null 2>&1 || true; done
	# Those that share another's network first.
	for ((i = ${#PCTRS[@]} - 1; i >= 0; i--)); do
		podman rm -f -t 0 "${PCTRS[i]}" >/dev/null 2>&1 || true
	done
	podman rmi "$IMAGE" "localhost/$BB" >/dev/null 2>&1 || true
	if [ -z "$PAUSE" ]; then
		podman images -q --filter reference=localhost/podman-pause | xargs -r podman rmi -f \
			>/dev/null 2>&1 || true
	fi
}
trap 'rc=$?; set +e; runtime_down; (exit $rc); cleanup' EXIT

"$top/packaging/oci/mkimage.sh" "$(dirname "$PKTSAMPLE")" "$IMAGE" >"$WORK/mkimage.out" 2>&1 ||
	fail "mkimage.sh failed: $(cat "$WORK/mkimage.out")"
assert_match "^pktsample [0-9]" "$(podman run --rm "$IMAGE" --version 2>&1)" \
	"the image made from the build runs pktsample"

busybox_tree "$WORK/root"
tar -C "$WORK/root" -c . | podman import - "$BB" >/dev/null 2>"$WORK/podman.err" ||
	fail "podman import failed: $(cat "$WORK/podman.err")"

# web, wired to the capture namespace (198.18.1.2 to .1); other shares
# web's network, in a cgroup of its own.
PCTRS+=("$RUN-web" "$RUN-other")
podman run -d --name "$RUN-web" --network none "localhost/$BB" sleep 600 >/dev/null ||
	fail "podman run failed"
podman run -d --name "$RUN-other" --network "container:$RUN-web" "localhost/$BB" sleep 600 \
	>/dev/null || fail "podman run failed"
WPID=$(podman inspect -f '{{.State.Pid}}' "$RUN-web")
wire_container "$ENV-cap" 1 "$WPID"

# play YAML: podman kube play, taken down at the end.
play() {
	PLAYED+=("$1")
	podman kube play "$1" >"$WORK/play.out" 2>&1 || fail "podman kube play failed: $(cat "$WORK/play.out")"
}
# wait_log CONTAINER REGEX: until its log has a line that matches.
wait_log() {
	for _ in $(seq $((300 * PS_TIME_SCALE))); do
		podman logs "$1" 2>&1 | grep -qE "$2" && return 0
		[ "$(podman inspect -f '{{.State.Running}}' "$1" 2>/dev/null)" = true ] || break
		sleep 0.1
	done
	fail "$1 did not log /$2/: $(podman logs "$1" 2>&1 | tail -5)"
}

# The capture Pod, on the capture namespace's interface (found through
# the node's root), by the container's name.
mkdir -p "$WORK/captures"
python3 "$top/tests/support/kube_yaml.py" pod "$KUBE/capture-pod.yaml" "$IMAGE" "$WORK/captures" \
	--host-root /host --netns "/host/run/netns/$ENV-cap" -i "${ENV}c1" --container "$RUN-web" \
	-w /captures/web.pcapng >"$WORK/capture.yaml" || fail "kube_yaml.py pod failed"
play "$WORK/capture.yaml"
wait_log pktsample-capture-pktsample "capturing on ${ENV}c1 "
podman exec "$RUN-web" ping -c 3 -i 0.2 198.18.1.1 >/dev/null || fail "web's ping failed"
podman exec "$RUN-other" ping -c 2 -i 0.2 198.18.1.1 >/dev/null || fail "other's ping failed"
sleep "$(scaled 1)"
podman pod stop -t $((10 * PS_TIME_SCALE)) pktsample-capture >/dev/null
assert_eq 0 "$(podman inspect -f '{{.State.ExitCode}}' pktsample-capture-pktsample)" \
	"the capture Pod, stopped as a deleted pod is, exits 0"
F=$WORK/captures/web.pcapng
assert_eq 3 "$(count "$F" "icmp.type == 8 && frame.comment contains \"container=$RUN-web image=localhost/$BB \"")" \
	"the capture Pod: web's 3 requests, named, in the hostPath"
assert_eq 3 "$(count "$F" "icmp.type == 8")" "the capture Pod: nothing of the other container's"
podman kube down "$WORK/capture.yaml" >/dev/null 2>&1 || true

# The agent, told to follow a pod nobody runs yet; its metrics and sFlow
# inside the capture namespace.
python3 "$top/tests/support/kube_yaml.py" agent "$KUBE/agent-daemonset.yaml" "$IMAGE" \
	"pktsample-agent-$RUN" "netns /host/run/netns/$ENV-cap" "iface ${ENV}c1" -sample \
	"sflow 127.0.0.1" "metrics 127.0.0.1:9652" "pod $NS/later" >"$WORK/agent.yaml" ||
	fail "kube_yaml.py agent failed"
play "$WORK/agent.yaml"
AGENT=pktsample-agent-$RUN-pktsample
wait_log "$AGENT" "capturing on ${ENV}c1 "
assert_match "--pod $NS/later: none there yet; waiting for it" "$(podman logs "$AGENT" 2>&1)" \
	"the agent says it waits for the pod"
# The pod sends all through 2.4 s: the metrics name a row at the first
# second's tick that finds it sending.
PCTRS+=("$RUN-later")
k8s_annotations "$NS" later app
podman run --name "$RUN-later" --network "container:$RUN-web" "${K8S[@]}" "localhost/$BB" \
	ping -c 8 -i 0.3 198.18.1.1 >/dev/null 2>"$WORK/podman.err" ||
	fail "the pod that comes later: $(cat "$WORK/podman.err")"
podman exec "$RUN-web" ping -c 2 -i 0.2 198.18.1.1 >/dev/null || fail "web's ping failed"
sleep "$(scaled 2)"
in_cap curl -sf http://127.0.0.1:9652/metrics >"$WORK/metrics" || fail "the agent serves no metrics"
assert_eq 8 "$(sed -n "s/^pktsample_packets_written_total{interface=\"${ENV}c1\",hook=\"tc-ingress\"} //p" "$WORK/metrics")" \
	"the agent: the pod's 8 requests from its first, nothing of web's"
grep -q "^pktsample_container_packets_total{container=\"$NS/later/app\",direction=\"in\"} [1-8]$" \
	"$WORK/metrics" || fail "the agent's metrics do not name the pod: $(grep container_packets "$WORK/metrics")"
ok "the agent's metrics count the pod it waited for under its name"
podman pod stop -t $((10 * PS_TIME_SCALE)) "pktsample-agent-$RUN" >/dev/null
assert_eq 0 "$(podman inspect -f '{{.State.ExitCode}}' "$AGENT")" "the agent exits 0"
assert_nothing_attached "${ENV}c1"
