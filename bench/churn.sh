#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Containers coming and going under a capture that follows them by name:
# N podman containers (runc, cgroupfs), one after the other, each named
# churn-PID, each sharing the network of a holder container wired to the
# capture's namespace and sending one ping there, while pktsample -v
# --container churn-PID -w captures on that veth. Its open fds, inotify
# watches, RSS and the cgroups its filter holds, at the start and after
# every STEP containers: flat is the goal (each container's cgroup, watch,
# filter entry and names go when it does). Then the packets captured
# against the containers run.
#   bench/churn.sh [BUILD_DIR]
#   env: N=200 STEP=50
source "$(dirname "$0")/lib.sh"
. "$top/testenv/containers.sh"
build=${1:-$top/build}
N=${N:-200}
STEP=${STEP:-50}
bench_env
RUN=churn$$
podman_conf "$SHM/containers.conf"
down() {
	# One at a time (one missing fails the lot), the network's holder last.
	podman rm -f -t 0 "$RUN" >/dev/null 2>&1 || true
	podman rm -f -t 0 "$RUN-net" >/dev/null 2>&1 || true
	podman rmi "localhost/$RUN:1" >/dev/null 2>&1 || true
	"$TESTENV" teardown "$ENV"
	rm -rf "$SHM"
}
trap down EXIT

busybox_tree "$SHM/root"
tar -C "$SHM/root" -c . | podman import - "localhost/$RUN:1" >/dev/null
podman run -d --name "$RUN-net" --network none "localhost/$RUN:1" sleep 3600 >/dev/null
hpid=$(podman inspect -f '{{.State.Pid}}' "$RUN-net")
wire_container "$ENV-cap" 9 "$hpid"

# The first of them runs before the capture: a one-off capture's name
# must match at its start.
podman run -d --name "$RUN" --network "container:$RUN-net" "localhost/$RUN:1" sleep 3600 >/dev/null
"$TESTENV" exec "$ENV" cap -- "$build/pktsample" -v -i "${ENV}c9" --hook tc-egress,tc-ingress \
	--container "$RUN" -w "$SHM/churn.pcapng" 2>"$SHM/err" &
pid=$!
wait_for "$SHM/err" "capturing on" "$pid"
ps_pid=$(pgrep -P "$pid" -x pktsample || echo "$pid")

# row CONTAINERS: what the capture holds now.
row() {
	local fds watches rss held
	fds=$(find "/proc/$ps_pid/fd" -mindepth 1 | wc -l)
	watches=$(grep -h '^inotify' /proc/"$ps_pid"/fdinfo/* 2>/dev/null | wc -l)
	rss=$(awk '/^VmRSS/ {print $2}' "/proc/$ps_pid/status")
	held=$(($(grep -c 'the filter takes cgroup' "$SHM/err") - $(grep -c 'is gone from the filter' "$SHM/err")))
	printf '%-10s %6s %8s %10s %12s\n' "$1" "$fds" "$watches" "$rss" "$held"
}
printf '%-10s %6s %8s %10s %12s\n' containers fds watches rss_kib filter_holds
podman rm -f -t 0 "$RUN" >/dev/null
row 0
t0=$(date +%s)
for i in $(seq "$N"); do
	podman run --rm --name "$RUN" --network "container:$RUN-net" "localhost/$RUN:1" \
		ping -c 1 -W 1 198.18.9.1 >/dev/null || true
	[ $((i % STEP)) -eq 0 ] && row "$i"
done
t1=$(date +%s)
kill -INT "$ps_pid"
wait "$pid" || true
sent=$N
got=$(tshark -r "$SHM/churn.pcapng" -Y 'icmp.type == 8' 2>/dev/null | wc -l)
echo "# $N containers in $((t1 - t0)) s; echo requests captured: $got of $sent"
