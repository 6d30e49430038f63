#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The smoke set for Debian 12's own kernel: smoke.sh [BUILD_DIR] boots it
# (testenv/kernel-vm.sh run ${PS_VM_KERNEL:-6.1}) and runs itself inside
# with --guest (ctest's vm_smoke, label vm). Scripts chosen so that under
# emulation (10-30x slower than natively) the set stays within CI's time:
# capture at every hook (it_capture), SIGKILL at every hook
# and mode with the clsact guardian, and capabilities only at Debian's
# perf_event_paranoid 3, where the ring buffer carries the samples
# (it_detach), a filter and the TC position beside a foreign program
# (it_position), sampling (it_sample), the devices Debian's kernel has
# and CI's does not (it_devices: VLAN devices, bond, gre, ipip, wireguard;
# its parts whose kernel side differs by version),
# capture around another XDP program through fentry/fexit, which CI's
# kernel refuses (it_xdp_around, told that this kernel must allow it), and
# whom packets belong to, where 6.1's helpers and verifier differ
# (it_context), packets the kernel drops, whose reasons and places
# differ by version (it_drops), and packets followed across hooks by their
# skb's address, which 5.10's and 6.1's verifiers must let a TC program
# keep (it_path).
# The set runs in PS_VM_PARALLEL guests at once (default 2, one per host
# core: a guest under TCG keeps about one core busy), the scripts split
# between them by how long each took; their lines are printed together.
# A line per script with its result and time; the log of one that failed;
# exit 1 if any failed; a script that runs past PS_VM_SCRIPT_TIMEOUT
# (default 2400 s) is stopped, counted failed, and its log shown: a
# smoke script takes 4 minutes at most here, and it_harmless in the whole
# set longer, so that stops a script that hangs, not a slow one.
# PS_VM_SET=all runs every netns script instead (the whole suite on that
# kernel: hours under TCG, in one guest), PS_VM_SET="it_a it_b" those,
# split between the guests as the smoke set is.
# PS_VM_KERNEL=6.12 boots the newest 6.12 instead of 6.1; PS_VM_KERNEL=5.10
# boots Debian 11's and runs its own smoke set (ctest's vm_smoke_5_10):
# capture at every hook through both transports (it_capture), a filter
# (it_position), sampling (it_sample), SIGKILL leaving nothing and
# capabilities only at perf_event_paranoid 3 (it_detach), where each
# feature 5.10 lacks takes its fallback (user/kernel/kfeatures.h), and the
# devices as on 6.1 (it_devices), IP tunnels among them, whose outer
# headers 5.10 leaves in front of what TC ingress is given, and packets
# followed across hooks (it_path).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)

# Each smoke script's seconds under TCG (6.1, this project's machine, two
# guests at once; it decides the split) and the variables it runs with.
declare -A COST=([it_capture]=164 [it_detach]=78 [it_position]=126 [it_sample]=85
	[it_devices]=191 [it_xdp_around]=136 [it_context]=231 [it_drops]=136 [it_path]=254)
# (Variables apart by ";".) it_devices runs the parts whose kernel side
# differs by version, for the kinds CI's kernel lacks; the host runs all.
declare -A VARS=([it_devices]="KINDS=vlan bond gre ipip wireguard;PARTS=matrix vlan tunnels"
	[it_xdp_around]="PS_EXPECT_FENTRY=1")
SMOKE="it_capture it_detach it_position it_sample it_devices it_xdp_around it_context it_drops it_path"
if [ "${PS_VM_KERNEL:-6.1}" = 5.10 ]; then
	SMOKE="it_capture it_detach it_position it_sample it_devices it_path"
fi

if [ "${1:-}" != --guest ]; then
	build=$(cd "${1:-$top/build}" && pwd)
	for t in qemu-system-x86_64 busybox cpio /usr/lib/qemu/virtiofsd; do
		command -v "$t" >/dev/null && continue
		if [ -n "${CI:-}" ]; then
			echo "FAIL: vm smoke cannot run in CI: needs $t (qemu-system-x86, busybox-static, cpio)" >&2
			exit 1
		fi
		echo "skipped: vm smoke: needs $t (qemu-system-x86, busybox-static, cpio)" >&2
		exit 77
	done
	[ "$(id -u)" = 0 ] || { echo "skipped: vm smoke: needs root" >&2; exit 77; }
	vm=("$top/testenv/kernel-vm.sh" run "${PS_VM_KERNEL:-6.1}" --)
	set_=${PS_VM_SET:-smoke}
	n=${PS_VM_PARALLEL:-2}
	[ "$set_" = smoke ] && set_=$SMOKE
	if [ "$set_" = all ] || [ "$n" -le 1 ]; then
		exec "${vm[@]}" "$0" --guest "$build" "$set_" "${PS_VM_SCRIPT_TIMEOUT:-2400}"
	fi
	# One boot first: it fetches the kernel and makes the initramfs, which
	# the guests then share.
	"${vm[@]}" true || { echo "FAIL: the guest does not boot" >&2; exit 1; }
	# Longest first, each to the guest with the least so far.
	declare -a part load
	for ((g = 0; g < n; g++)); do part[g]=""; load[g]=0; done
	for name in $(for s in $set_; do echo "${COST[$s]:-300} $s"; done | sort -rn | cut -d' ' -f2); do
		least=0
		for ((g = 1; g < n; g++)); do [ "${load[g]}" -lt "${load[least]}" ] && least=$g; done
		part[least]="${part[least]} $name"
		load[least]=$((load[least] + ${COST[$name]:-300}))
	done
	logs=$(mktemp -d)
	trap 'rm -rf "$logs"' EXIT
	pids=()
	for ((g = 0; g < n; g++)); do
		[ -n "${part[g]}" ] || continue
		"${vm[@]}" "$0" --guest "$build" "${part[g]# }" "${PS_VM_SCRIPT_TIMEOUT:-2400}" \
			>"$logs/${#pids[@]}" 2>&1 &
		pids+=($!)
	done
	rc=0
	for ((g = 0; g < ${#pids[@]}; g++)); do
		wait "${pids[g]}" || rc=1
		cat "$logs/$g"
	done
	exit $rc
fi
build=$2
export PKTSAMPLE=$build/pktsample PSGEN=$build/psgen PCAPCHECK=$build/tests/pcapcheck
export TESTENV=$top/testenv/testenv.sh VLAN_PUSH_OBJ=$build/bpf/tc_vlan_push.bpf.o
export DROP_PORT_OBJ=$build/bpf/tc_drop_port.bpf.o TCX_HOLD=$build/tests/tcx_hold
export BARE_XDP_OBJ=$build/bpf/bare_xdp.bpf.o XDP_DROP_OBJ=$build/bpf/xdp_drop_port.bpf.o

# PS_VM_SET=all: every netns script (the bench's aside), each with as long
# as it takes: ctest's per-test limits are for native speed. Or a list of
# script names ("it_order it_filter"): the whole suite in parts.
case ${3:-smoke} in
smoke) read -r -a SET <<<"$SMOKE" ;;
all) SET=()
	for script in "$top"/tests/integration/it_*.sh; do
		name=$(basename "$script" .sh)
		[ "$name" = it_bench ] || SET+=("$name")
	done ;;
*) read -r -a SET <<<"$3" ;;
esac
echo "# kernel $(uname -r), perf_event_paranoid $(sysctl -n kernel.perf_event_paranoid)"
failed=()
for name in "${SET[@]}"; do
	IFS=';' read -r -a vars <<<"${VARS[$name]:-}"
	t0=$(date +%s)
	# A script that hangs still shows its log: each has at most
	# PS_VM_SCRIPT_TIMEOUT seconds (timeout's 124 is its exit then).
	timeout -k 30 "$4" \
		env "${vars[@]}" bash "$top/tests/integration/$name.sh" >"/tmp/vm-$name.log" 2>&1
	rc=$?
	echo "# $name: $(tail -1 "/tmp/vm-$name.log") (exit $rc, $(($(date +%s) - t0)) s)"
	if [ $rc -ne 0 ]; then
		failed+=("$name")
		sed 's/^/#   /' "/tmp/vm-$name.log" | tail -40
	fi
done
[ ${#failed[@]} -eq 0 ] || { echo "# failed: ${failed[*]}"; exit 1; }
echo "# all passed"
