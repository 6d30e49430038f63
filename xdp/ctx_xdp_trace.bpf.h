/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Context access for fentry/fexit programs around another XDP program
 * (xdp/pktsample_xdp_trace.bpf.c); see ctx_xdp.bpf.h. The context is the
 * kernel's struct xdp_buff the traced program was given. It is no packet
 * pointer the verifier knows: data and data_end are plain addresses, every
 * read of the packet goes through bpf_probe_read_kernel() (the filter's
 * too: PS_XLATE_XDP_TRACE), and the perf output appends the packet through
 * bpf_xdp_output(). Only the linear part is read: the frags of a
 * multi-buffer packet are not (wire_len says the linear length too).
 * Include exactly one ctx_*.bpf.h, first.
 */
#ifndef PS_CTX_XDP_TRACE_BPF_H
#define PS_CTX_XDP_TRACE_BPF_H

#ifdef PS_CTX
#error "include exactly one ctx_*.bpf.h"
#endif

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

/*
 * The kernel's structs, the fields used and nothing else: CO-RE relocates
 * each access against the running kernel's BTF (no vmlinux.h needed).
 */
struct net_device {
	int ifindex;
} __attribute__((preserve_access_index));

struct xdp_rxq_info {
	struct net_device *dev;
	__u32 queue_index;
} __attribute__((preserve_access_index));

struct xdp_buff {
	void *data;
	void *data_end;
	struct xdp_rxq_info *rxq;
} __attribute__((preserve_access_index));

#define PS_CTX struct xdp_buff

/* ps_ctx_data(), ps_ctx_data_end(), ps_ctx_load_bytes(): the linear part. */
#include "linear.bpf.h"

/* The kernel appends the packet (BPF_F_CTXLEN_MASK) from the xdp_buff. */
/* The xdp_buff the traced program is given, the same at its entry and its
 * exit (bpf/path.bpf.h): a packet's two records share an id. No skb yet,
 * so the TC hooks after give it another. */
static __always_inline __u64 ps_ctx_packet_key(struct xdp_buff *ctx)
{
	return (__u64)(long)ctx;
}

static __always_inline long ps_ctx_perf_output(struct xdp_buff *ctx, void *map, __u64 flags,
					       void *data, __u64 size)
{
	return bpf_xdp_output(ctx, map, flags, data, size);
}

/* A tracing program has no socket lookup, and no packet pointers to
 * parse headers with: its packets say nothing of who they belong to. */
#define PS_CTX_NO_SOCKETS 1

#endif /* PS_CTX_XDP_TRACE_BPF_H */
