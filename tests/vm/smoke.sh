#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The smoke set for Debian 12's own kernel: smoke.sh [BUILD_DIR] boots it
# (testenv/kernel-vm.sh run ${PS_VM_KERNEL:-6.1}) and runs itself inside
# with --guest (ctest's vm_smoke, label vm). Scripts chosen so that under
# emulation (10-30x slower than natively) the set stays within CI's time
# (about 28 min): capture at every hook (it_capture), SIGKILL at every hook
# and mode with the clsact guardian, and capabilities only at Debian's
# perf_event_paranoid 3, where the ring buffer carries the samples
# (it_detach), a filter and the TC position beside a foreign program
# (it_position), sampling (it_sample), the devices Debian's kernel has
# and CI's does not (it_devices: VLAN devices, bond, gre, ipip, wireguard),
# capture around another XDP program through fentry/fexit, which CI's
# kernel refuses (it_xdp_around, told that this kernel must allow it), and
# whom packets belong to, where 6.1's helpers and verifier differ
# (it_context), and packets the kernel drops, whose reasons and places
# differ by version (it_drops).
# A line per script with its result and time; the log of one that failed;
# exit 1 if any failed; a script that runs past PS_VM_SCRIPT_TIMEOUT
# (default 1800 s) is stopped, counted failed, and its log shown. PS_VM_SET=all runs every netns script instead (the
# whole suite on that kernel: hours under TCG), PS_VM_SET="it_a it_b" those.
# PS_VM_KERNEL=6.12 boots the newest 6.12 instead of 6.1.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)

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
	exec "$top/testenv/kernel-vm.sh" run "${PS_VM_KERNEL:-6.1}" -- "$0" --guest "$build" \
		"${PS_VM_SET:-smoke}" "${PS_VM_SCRIPT_TIMEOUT:-1800}"
fi
build=$2
export PKTSAMPLE=$build/pktsample PSGEN=$build/psgen PCAPCHECK=$build/tests/pcapcheck
export TESTENV=$top/testenv/testenv.sh VLAN_PUSH_OBJ=$build/bpf/tc_vlan_push.bpf.o
export DROP_PORT_OBJ=$build/bpf/tc_drop_port.bpf.o TCX_HOLD=$build/tests/tcx_hold
export BARE_XDP_OBJ=$build/bpf/bare_xdp.bpf.o XDP_DROP_OBJ=$build/bpf/xdp_drop_port.bpf.o

# SCRIPT[|VAR=VALUE]: the scripts, one with a variable of its own.
SET=(
	"it_capture"
	"it_detach"
	"it_position"
	"it_sample"
	"it_devices|KINDS=vlan bond gre ipip wireguard"
	"it_xdp_around|PS_EXPECT_FENTRY=1"
	"it_context"
	"it_drops"
)
# PS_VM_SET=all: every netns script (the bench's aside), each with as long
# as it takes: ctest's per-test limits are for native speed. Or a list of
# script names ("it_order it_filter"): the whole suite in parts.
case ${3:-smoke} in
smoke) ;;
all) SET=()
	for script in "$top"/tests/integration/it_*.sh; do
		name=$(basename "$script" .sh)
		[ "$name" = it_bench ] || SET+=("$name")
	done ;;
*) read -r -a SET <<<"$3" ;;
esac
for i in "${!SET[@]}"; do # told that this kernel must allow fentry
	[ "${SET[$i]}" != it_xdp_around ] || SET[$i]="it_xdp_around|PS_EXPECT_FENTRY=1"
done

echo "# kernel $(uname -r), perf_event_paranoid $(sysctl -n kernel.perf_event_paranoid)"
failed=()
for entry in "${SET[@]}"; do
	IFS='|' read -r name var <<<"$entry"
	t0=$(date +%s)
	# A script that hangs still shows its log: each has at most
	# PS_VM_SCRIPT_TIMEOUT seconds (timeout's 124 is its exit then).
	timeout -k 30 "$4" \
		env ${var:+"$var"} bash "$top/tests/integration/$name.sh" >"/tmp/vm-$name.log" 2>&1
	rc=$?
	echo "# $name: $(tail -1 "/tmp/vm-$name.log") (exit $rc, $(($(date +%s) - t0)) s)"
	if [ $rc -ne 0 ]; then
		failed+=("$name")
		sed 's/^/#   /' "/tmp/vm-$name.log" | tail -40
	fi
done
[ ${#failed[@]} -eq 0 ] || { echo "# failed: ${failed[*]}"; exit 1; }
echo "# all passed"
