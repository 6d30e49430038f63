/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cBPF -> eBPF translation of a libpcap filter program. Pure: no syscalls,
 * so every rule is unit-testable. The output is the body of the BPF-side
 * placeholder
 *
 *   __u32 pktsample_filter(void *ctx, void *data, void *data_end,
 *                          __u64 len_off, __u64 vlan)
 *
 * where len_off's low half is the packet's length from data, and its high
 * half (PS_XLATE_TC) how far data lies from the first byte the hook was
 * given, which bpf_skb_load_bytes() counts from (ps_meta.net_off).
 *
 * and returns what the cBPF program returns: 0 = no match, otherwise the
 * number of bytes to keep (the caller clamps it to snaplen and the packet).
 *
 * cBPF semantics are kept where eBPF differs: A = X = M[] = 0 at start,
 * division or modulo by zero and out-of-bounds loads return 0, shifts by
 * X >= 32 give 0, and `len` is the wire length. Opcodes that are not
 * classic BPF (junk in unused bits) and constant shifts of 32 or more are
 * refused, as the kernel's checker refuses them. Loads the direct bounds
 * check cannot prove (non-linear skb data, XDP frags) go through
 * bpf_skb_load_bytes()/bpf_xdp_load_bytes(), or where the frame is one
 * buffer (PS_XLATE_XDP_LINEAR) end the filter with 0.
 *
 * For TC the body holds a second translation, used when the skb carries
 * its VLAN tag out of band (vlan != 0, see PS_FILTER_VLAN_PRESENT in pktsample.h): there the
 * program sees the frame as it was on the wire, tag at byte 12, exactly as
 * the XDP hook and libpcap see it.
 */
#ifndef PS_XLATE_H
#define PS_XLATE_H

#include <stddef.h>
#include <stdio.h>
#include <linux/bpf.h>
#include <linux/filter.h>

enum ps_xlate_target {
	PS_XLATE_XDP, /* ctx is struct xdp_md, bpf_xdp_load_bytes */
	PS_XLATE_TC,  /* ctx is struct __sk_buff, bpf_skb_load_bytes + tag view */
	/* ctx is struct xdp_md + tag view: native XDP where the driver hands
	 * over the VLAN tag it stripped (xdp/pktsample_xdp.bpf.c) */
	PS_XLATE_XDP_TAG,
	/* ctx is the kernel's struct xdp_buff, seen from fentry/fexit on
	 * another XDP program (xdp/pktsample_xdp_trace.bpf.c): data and
	 * data_end are plain addresses, so every load is bounded by the
	 * linear length and goes through bpf_probe_read_kernel() */
	PS_XLATE_XDP_TRACE,
	/* ctx is struct xdp_md of a program that is not multi-buffer (the
	 * generic-mode one, and every XDP program on kernels before 5.18,
	 * which have no bpf_xdp_load_bytes): the frame is one buffer, and a
	 * load past data_end finds nothing */
	PS_XLATE_XDP_LINEAR,
};

struct ps_ebpf {
	struct bpf_insn *insns;
	size_t n;
};

/* Longest cBPF program accepted (the kernel's own cBPF limit). */
#define PS_CBPF_MAX_INSNS 4096

/*
 * Translate n cBPF instructions. Returns 0, or -EINVAL/-E2BIG/-ENOMEM with a
 * one-line reason in err (backward jumps, ancillary loads, jumps out of the
 * program, a result too large for 16-bit eBPF jump offsets).
 */
int ps_xlate(const struct sock_filter *prog, size_t n, enum ps_xlate_target target,
	     struct ps_ebpf *out, char *err, size_t errlen);
void ps_ebpf_free(struct ps_ebpf *e);

/* Print eBPF instructions in the kernel verifier's notation. */
void ps_ebpf_dump(FILE *f, const struct bpf_insn *insns, size_t n);

#endif
