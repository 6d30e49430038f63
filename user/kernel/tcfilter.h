/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What sits on a clsact qdisc: a dump of one direction's filters over
 * rtnetlink, and whether a BPF program is still held by a live process.
 * The clsact fallback needs both to leave other people's state alone: it
 * removes the qdisc only when nothing but its own filters was on it, and
 * it calls a pktsample filter stale only when no process holds its
 * program (a pktsample that was killed), never when one might.
 */
#ifndef PS_TCFILTER_H
#define PS_TCFILTER_H

#include <stdbool.h>
#include <stdint.h>

struct ps_tc_filter {
	uint32_t prio;
	uint32_t handle;  /* 0: the priority's chain head, not a filter */
	char kind[16];	  /* "bpf", "u32", "flower", ... */
	char name[64];	  /* cls_bpf: libbpf names it "prog_name:[id]" */
	uint32_t prog_id; /* cls_bpf: the program's id; 0 otherwise */
};

/*
 * The filters of ifindex's clsact ingress or egress (the qdisc's "ffff:fff2"
 * or "ffff:fff3"), at most max of them. Returns how many, or -errno
 * (-ENODEV: no such interface). Without a clsact qdisc some kernels answer
 * -EINVAL, others an empty list: ps_tc_has_clsact tells.
 */
int ps_tc_filter_dump(int ifindex, bool ingress, struct ps_tc_filter *out, int max);
/* Has ifindex a clsact qdisc? 1, 0, or -errno. */
int ps_tc_has_clsact(int ifindex);

/*
 * Is the BPF program prog_id held by any process (an fd in /proc/PID/fdinfo
 * naming it)? 1 held, 0 held by none, -EACCES when a pktsample process
 * could not be looked at (so the answer is unknown). Other processes we
 * may not look into (a container's init) are not counted: a filter only
 * they could hold is not a running pktsample's.
 */
int ps_bpf_prog_held(uint32_t prog_id);

#endif
