/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the running kernel's BPF can do, of what pktsample's programs use:
 * found by probing (a trial load, a helper probe, the kernel's BTF, a
 * query), never by version, because distributions backport pieces one by
 * one. Each feature that is missing removes its code from the programs
 * (a rodata knob, or the object built without it: user/kernel/loader.c)
 * and costs the user something, which its line says.
 *
 * The table (which feature a capture uses, what its absence costs, which
 * object a kernel takes) is pure and unit-tested; ps_kfeature_has() probes,
 * once per process, on first use.
 */
#ifndef PS_KFEATURES_H
#define PS_KFEATURES_H

#include <stdbool.h>

enum ps_kfeature {
	PS_KF_ATOMIC_FETCH,  /* BPF_ATOMIC with BPF_FETCH (5.12) */
	PS_KF_XDP_FRAGS,     /* multi-buffer XDP's helpers (5.18) */
	PS_KF_DROP_REASON,   /* kfree_skb's reason argument (5.17) */
	PS_KF_TC_TASK,	     /* bpf_get_current_pid_tgid() at TC (6.10) */
	PS_KF_TCX,	     /* tcx attachment (6.6) */
	PS_KF_XDP_VLAN_META, /* the XDP VLAN metadata kfunc (6.8) */
	PS_KF_MEMCG,	     /* BPF memory charged to the cgroup, not RLIMIT_MEMLOCK (5.11) */
	PS_KF_FD_UNPRIV, /* a map fd usable without CAP_BPF, unprivileged BPF off (6.1; not 5.10) */
	PS_KF_MAX,
};

#define PS_KF_BIT(k) (1u << (k))
#define PS_KF_ALL (PS_KF_BIT(PS_KF_MAX) - 1)

/* What a capture asks of the kernel. */
struct ps_kneeds {
	unsigned int hooks; /* PS_HOOK_BIT() set */
	bool context;	    /* --context: whom packets belong to */
	bool pool;	    /* --sflow: the sample pool's numbers */
	bool tcx;	    /* TC through tcx wanted (--tc-mode auto or tcx) */
};

/* The features (PS_KF_BIT set) such a capture would use. */
unsigned int ps_kfeatures_used(const struct ps_kneeds *n);

/* The feature's name, as -v and -D print it. */
const char *ps_kfeature_name(enum ps_kfeature k);

/* One line for a missing feature: what is missing, what it costs the
 * user, and which kernel has it. No newline. */
const char *ps_kfeature_missing_line(enum ps_kfeature k);

/* The embedded BPF objects (CMakeLists.txt): the whole one; without the
 * VLAN metadata kfunc's reference; and without that nor the atomic fetch
 * (kernels before 5.12 refuse the whole object for one such instruction,
 * dead or not). */
enum ps_kobject {
	PS_KOBJ_FULL,
	PS_KOBJ_NOKFUNC,
	PS_KOBJ_COMPAT,
};

/* The object for a kernel with the features have (PS_KF_BIT set), for a
 * loader that wants the VLAN metadata kfunc or not. */
enum ps_kobject ps_kfeatures_object(unsigned int have, bool vlan_meta);

/* Does the running kernel have k? Probed on first use, then remembered
 * (the kernel does not change under us). A probe that cannot tell says
 * no. */
bool ps_kfeature_has(enum ps_kfeature k);

/* The features of want (PS_KF_BIT set) the kernel lacks, each probed. */
unsigned int ps_kfeatures_missing(unsigned int want);

/* For the BPF tests: have ps_kfeature_has() say no to the features of
 * mask (PS_KF_BIT set), so that the programs an older kernel gets are
 * loaded and run on this one. */
void ps_kfeatures_pretend_missing(unsigned int mask);

#endif /* PS_KFEATURES_H */
