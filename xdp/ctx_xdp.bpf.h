/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Context access for XDP programs, chosen at compile time (as cilium's
 * bpf/include/bpf/ctx/xdp.h): the shared code below calls ps_ctx_*() and
 * never asks at run time which kind of program it is in. Include exactly one
 * ctx_*.bpf.h, first.
 */
#ifndef PS_CTX_XDP_BPF_H
#define PS_CTX_XDP_BPF_H

#ifdef PS_CTX
#error "include exactly one ctx_*.bpf.h"
#endif

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define PS_CTX struct xdp_md

static __always_inline void *ps_ctx_data(const struct xdp_md *ctx)
{
	return (void *)(long)ctx->data;
}

static __always_inline void *ps_ctx_data_end(const struct xdp_md *ctx)
{
	return (void *)(long)ctx->data_end;
}

/* Copes with frags: multi-buffer packets are read across their pages. */
static __always_inline long ps_ctx_load_bytes(struct xdp_md *ctx, __u32 off, void *to, __u32 len)
{
	return bpf_xdp_load_bytes(ctx, off, to, len);
}

/* The perf output; the kernel appends the packet (BPF_F_CTXLEN_MASK). */
static __always_inline long ps_ctx_perf_output(struct xdp_md *ctx, void *map, __u64 flags,
					       void *data, __u64 size)
{
	return bpf_perf_event_output(ctx, map, flags, data, size);
}

#endif /* PS_CTX_XDP_BPF_H */
