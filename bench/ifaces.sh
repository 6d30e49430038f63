#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# What interfaces cost: -i any on N veth pairs (2N interfaces plus the
# testenv's own, each at tc-ingress and tc-egress, the default), for each
# N in PAIRS and each TC attach mode, ROUNDS times:
#   start   from exec to the last "capturing on" line (all attached)
#   stop    from SIGINT to exit (everything detached)
#   RSS     peak resident set (bench_runstat)
#   CPU     user and system seconds of the whole run
# Then, following: how long a pair created during the capture takes to be
# attached (its "capturing on" line after `ip link set up`), median of 10.
#   bench/ifaces.sh [BUILD_DIR]          PAIRS="30 150 300" ROUNDS=3
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
T=$top/testenv/testenv.sh
PAIRS=${PAIRS:-30 150 300}
ROUNDS=${ROUNDS:-3}
ENV=$("$T" setup)
SHM=$(mktemp -d /dev/shm/pktsample-bench.XXXXXX)
trap '"$T" teardown "$ENV"; rm -rf "$SHM"' EXIT
in_cap() { "$T" exec "$ENV" cap -- "$@"; }
ms() { echo $((($(date +%s%N) - $1) / 1000000)); }

have=0
grow_to() { # N: pairs p1..pN in the capture namespace, up
	[ "$1" -gt "$have" ] || return 0
	for i in $(seq $((have + 1)) "$1"); do
		echo "link add p${i}a type veth peer name p${i}b"
		echo "link set p${i}a up"
		echo "link set p${i}b up"
	done >"$SHM/batch"
	in_cap ip -batch "$SHM/batch"
	have=$1
}

echo "| interfaces | TC via | round | start s | stop s | peak RSS KiB | CPU user s, sys s |"
echo "|---|---|---|---|---|---|---|"
for n in $PAIRS; do
	grow_to "$n"
	ifaces=$(($(in_cap ip -o link show up | grep -vc ': lo:')))
	for mode in tcx clsact; do
		for r in $(seq "$ROUNDS"); do
			t0=$(date +%s%N)
			in_cap "$build/bench_runstat" "$SHM/stat" "$build/pktsample" -i any \
				--tc-mode "$mode" -w "$SHM/c.pcapng" 2>"$SHM/err" &
			pid=$!
			for _ in $(seq 6000); do
				grep -q "capturing on p${n}b " "$SHM/err" && break
				kill -0 "$pid" 2>/dev/null || break
				sleep 0.01
			done
			start=$(ms "$t0")
			t1=$(date +%s%N)
			pkill -INT -f -- "pktsample -i any --tc-mode $mode" || true
			wait "$pid" || true
			stop=$(ms "$t1")
			read -r u s rss <"$SHM/stat"
			printf '| %d | %s | %d | %d.%03d | %d.%03d | %s | %s, %s |\n' "$ifaces" "$mode" \
				"$r" $((start / 1000)) $((start % 1000)) $((stop / 1000)) \
				$((stop % 1000)) "$rss" "$u" "$s"
		done
	done
done

# Following: pairs made while -i any runs; from up to attached.
in_cap "$build/pktsample" -i any -w "$SHM/f.pcapng" 2>"$SHM/err" &
pid=$!
for _ in $(seq 6000); do
	grep -q "capturing on p${have}b " "$SHM/err" && break
	kill -0 "$pid" 2>/dev/null || { echo "bench: did not start: $(cat "$SHM/err")" >&2; exit 1; }
	sleep 0.01
done
lat=()
for i in $(seq 10); do
	in_cap ip link add "n${i}a" type veth peer name "n${i}b"
	t0=$(date +%s%N)
	in_cap ip link set "n${i}a" up
	in_cap ip link set "n${i}b" up
	for _ in $(seq 500); do grep -q "capturing on n${i}b " "$SHM/err" && break; sleep 0.002; done
	lat+=("$(ms "$t0")")
done
pkill -INT -f -- "pktsample -i any -w $SHM/f.pcapng" || true
wait "$pid" || true
echo
echo "following: a new pair attached (both ends, tcx) ${lat[*]} ms after up; median" \
	"$(printf '%s\n' "${lat[@]}" | sort -n | sed -n 5p) ms"
