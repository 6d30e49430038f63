// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/bpf.h>
#include <linux/capability.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "kfeatures.h"
#include "hooks.h"

/* Not in Debian 12's uapi headers (6.6+). */
#define PS_KF_BPF_TCX_INGRESS 46

static const struct {
	const char *name;
	const char *missing;
} table[PS_KF_MAX] = {
	[PS_KF_ATOMIC_FETCH] = { "atomic-fetch",
				 "no atomic fetch-and-add in BPF (Linux 5.12 has it): sFlow's "
				 "sample pool is counted by an add and a read, so two CPUs at "
				 "the same moment may give their samples the same pool" },
	[PS_KF_XDP_FRAGS] = { "xdp-frags",
			      "no multi-buffer XDP (bpf_xdp_load_bytes; Linux 5.18 has it): "
			      "XDP reads each frame's one buffer, which on this kernel is the "
			      "whole frame" },
	[PS_KF_DROP_REASON] = { "drop-reason",
				"kfree_skb has no drop reason (Linux 5.17 has it): drops are "
				"captured, each with the reason NOT_SPECIFIED" },
	[PS_KF_TC_TASK] = { "tc-task",
			    "TC programs cannot call bpf_get_current_pid_tgid (Linux 6.10 has "
			    "it): a packet sent by a process names the thread that made its "
			    "socket, not the one that sent it" },
	[PS_KF_TCX] = { "tcx", "no tcx (Linux 6.6 has it): TC hooks attach as filters of a "
			       "clsact qdisc, first in its chain" },
	[PS_KF_XDP_VLAN_META] = { "xdp-vlan-meta",
				  "no XDP VLAN metadata (bpf_xdp_metadata_rx_vlan_tag; Linux 6.8 "
				  "has it): at XDP, a VLAN tag the driver took out of the frame "
				  "is not shown" },
	[PS_KF_MEMCG] = { "memcg",
			  "BPF memory counts against the locked-memory limit (Linux 5.11 charges "
			  "the cgroup instead): only CAP_SYS_RESOURCE lets pktsample raise it; "
			  "without, raise it first (ulimit -l unlimited, LimitMEMLOCK=infinity)" },
	[PS_KF_FD_UNPRIV] = { "fd-unpriv",
			      "reading a BPF map needs CAP_BPF while "
			      "kernel.unprivileged_bpf_disabled is set (Linux 6.1 asks only when "
			      "maps and programs are made): -Z keeps CAP_BPF, to read the "
			      "counters and whom packets belong to" },
};

unsigned int ps_kfeatures_used(const struct ps_kneeds *n)
{
	/* Every capture makes maps. */
	unsigned int used = PS_KF_BIT(PS_KF_MEMCG);

	if (n->pool)
		used |= PS_KF_BIT(PS_KF_ATOMIC_FETCH);
	if (n->hooks & PS_HOOK_BIT(PS_HOOK_XDP))
		used |= PS_KF_BIT(PS_KF_XDP_FRAGS) | PS_KF_BIT(PS_KF_XDP_VLAN_META);
	if (n->hooks & PS_HOOKS_DROP)
		used |= PS_KF_BIT(PS_KF_DROP_REASON);
	/* The sender's own thread is asked for on the way out. */
	if (n->context && (n->hooks & PS_HOOK_BIT(PS_HOOK_TC_EGRESS)))
		used |= PS_KF_BIT(PS_KF_TC_TASK);
	if (n->tcx && (n->hooks & PS_HOOKS_TC))
		used |= PS_KF_BIT(PS_KF_TCX);
	return used;
}

const char *ps_kfeature_name(enum ps_kfeature k)
{
	return k < PS_KF_MAX ? table[k].name : "?";
}

const char *ps_kfeature_missing_line(enum ps_kfeature k)
{
	return k < PS_KF_MAX ? table[k].missing : "?";
}

enum ps_kobject ps_kfeatures_object(unsigned int have, bool vlan_meta)
{
	if (!(have & PS_KF_BIT(PS_KF_ATOMIC_FETCH)))
		return PS_KOBJ_COMPAT;
	if (vlan_meta && (have & PS_KF_BIT(PS_KF_XDP_VLAN_META)))
		return PS_KOBJ_FULL;
	return PS_KOBJ_NOKFUNC;
}

/* ---- probes ------------------------------------------------------------ */

/* Does the verifier take insns as a program of this type? */
static bool loads(enum bpf_prog_type type, const struct bpf_insn *insns, size_t n)
{
	int fd = bpf_prog_load(type, "ps_probe", "GPL", insns, n, NULL);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* An atomic fetch-and-add on the stack. Kernels before 5.12 reject the
 * instruction's fields before they verify anything. */
static bool probe_atomic_fetch(void)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_STX | BPF_MEM | BPF_DW,
		  .dst_reg = BPF_REG_10,
		  .src_reg = BPF_REG_0,
		  .off = -8 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_1, .imm = 1 },
		{ .code = BPF_STX | BPF_ATOMIC | BPF_DW,
		  .dst_reg = BPF_REG_10,
		  .src_reg = BPF_REG_1,
		  .off = -8,
		  .imm = BPF_ADD | BPF_FETCH },
		{ .code = BPF_JMP | BPF_EXIT },
	};

	return loads(BPF_PROG_TYPE_SCHED_CLS, insns, sizeof(insns) / sizeof(insns[0]));
}

/* The smallest TC program that asks for the current task's ids. */
static bool probe_tc_task(void)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_get_current_pid_tgid },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};

	return loads(BPF_PROG_TYPE_SCHED_CLS, insns, sizeof(insns) / sizeof(insns[0]));
}

/* A query of loopback's tcx ingress (every namespace has ifindex 1):
 * kernels without tcx answer EINVAL for the attach type. */
static bool probe_tcx(void)
{
	__u32 count = 0;

	return !bpf_prog_query(1, PS_KF_BPF_TCX_INGRESS, 0, NULL, NULL, &count);
}

/* A name of the given kind in the kernel's BTF. */
static bool in_vmlinux_btf(const char *name, __u32 kind)
{
	struct btf *vmlinux = btf__load_vmlinux_btf();
	bool found;

	if (libbpf_get_error(vmlinux))
		return false;
	found = btf__find_by_name_kind(vmlinux, name, kind) > 0;
	btf__free(vmlinux);
	return found;
}

/*
 * May a process without capabilities use a map fd it holds? On 5.10
 * every bpf() command is refused to it while
 * kernel.unprivileged_bpf_disabled is set, map lookups on fds made with
 * privilege included. A child that drops every capability tries (an
 * effective set cleared is enough: capable() does not look at the uid).
 */
static bool probe_fd_unpriv(void)
{
	int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "ps_probe", 4, 4, 1, NULL);
	int status = 0;
	pid_t pid;

	if (fd < 0)
		return false;
	pid = fork();
	if (pid == 0) {
		struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
		struct __user_cap_data_struct d[2] = { 0 };
		__u32 key = 0, val;

		if (syscall(SYS_capset, &h, d))
			_exit(2);
		_exit(bpf_map_lookup_elem(fd, &key, &val) ? 1 : 0);
	}
	close(fd);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return false;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static bool probe(enum ps_kfeature k)
{
	switch (k) {
	case PS_KF_ATOMIC_FETCH:
		return probe_atomic_fetch();
	case PS_KF_XDP_FRAGS:
		return libbpf_probe_bpf_helper(BPF_PROG_TYPE_XDP, BPF_FUNC_xdp_load_bytes, NULL) >
		       0;
	case PS_KF_DROP_REASON:
		/* The enum came with the tracepoint's argument. */
		return in_vmlinux_btf("skb_drop_reason", BTF_KIND_ENUM);
	case PS_KF_TC_TASK:
		return probe_tc_task();
	case PS_KF_TCX:
		return probe_tcx();
	case PS_KF_XDP_VLAN_META:
		return in_vmlinux_btf("bpf_xdp_metadata_rx_vlan_tag", BTF_KIND_FUNC);
	case PS_KF_MEMCG:
		/* libbpf's own test: the helper that came in the same release. */
		return libbpf_probe_bpf_helper(BPF_PROG_TYPE_SOCKET_FILTER,
					       BPF_FUNC_ktime_get_coarse_ns, NULL) > 0;
	case PS_KF_FD_UNPRIV:
		return probe_fd_unpriv();
	case PS_KF_MAX:
		break;
	}
	return false;
}

/* Probed once per process: the start, reloads and -D ask again. Only the
 * main thread asks. */
static unsigned int known, have, pretend_missing;

void ps_kfeatures_pretend_missing(unsigned int mask)
{
	pretend_missing = mask;
}

bool ps_kfeature_has(enum ps_kfeature k)
{
	if (k >= PS_KF_MAX || (pretend_missing & PS_KF_BIT(k)))
		return false;
	if (!(known & PS_KF_BIT(k))) {
		if (probe(k))
			have |= PS_KF_BIT(k);
		known |= PS_KF_BIT(k);
	}
	return have & PS_KF_BIT(k);
}

unsigned int ps_kfeatures_missing(unsigned int want)
{
	unsigned int missing = 0;

	for (int k = 0; k < PS_KF_MAX; k++)
		if ((want & PS_KF_BIT(k)) && !ps_kfeature_has((enum ps_kfeature)k))
			missing |= PS_KF_BIT(k);
	return missing;
}
