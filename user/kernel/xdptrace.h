/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Another program's XDP program on a device, as a target for the
 * xdp-entry and xdp-exit hooks (fentry/fexit on it, xdp/pktsample_xdp_trace.bpf.c):
 * which program it is, what it is called, and whether this kernel lets a
 * program trace it. Under libxdp's dispatcher, the first program of its
 * chain is the one traced (the dispatcher itself cannot be while programs
 * are in it).
 */
#ifndef PS_XDPTRACE_H
#define PS_XDPTRACE_H

#include <stddef.h>
#include <stdint.h>

struct ps_xdp_target {
	uint32_t id; /* the traced program's id, as bpftool shows it; 0: none */
	int fd;	     /* -1: not open */
	/* Its name; under libxdp's dispatcher "NAME in xdp_dispatcher". */
	char name[96];
	/* Its BTF function, what fentry/fexit attach to; "" without BTF. */
	char func[128];
	uint32_t func_btf_id;
};

/*
 * The XDP program attached to ifindex, in whichever mode (under libxdp's
 * dispatcher, the first program in it). 0 with t filled and its fd open,
 * -ENOENT when there is none (t->id 0), -errno otherwise.
 */
int ps_xdp_target_find(int ifindex, struct ps_xdp_target *t);
/*
 * May fentry and fexit trace t here? Loads a trivial fentry program on
 * it, attaches and removes it. 0, or -errno with a short reason in why
 * ("it was loaded without BTF", "the kernel refuses fentry on it: ...").
 */
int ps_xdp_target_probe(const struct ps_xdp_target *t, char *why, size_t len);
void ps_xdp_target_close(struct ps_xdp_target *t);

#endif
