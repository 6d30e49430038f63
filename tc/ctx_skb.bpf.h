/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Context access for TC (skb) programs, chosen at compile time (as cilium's
 * bpf/include/bpf/ctx/skb.h); see xdp/ctx_xdp.bpf.h. Include exactly one
 * ctx_*.bpf.h, first.
 */
#ifndef PS_CTX_SKB_BPF_H
#define PS_CTX_SKB_BPF_H

#ifdef PS_CTX
#error "include exactly one ctx_*.bpf.h"
#endif

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define PS_CTX struct __sk_buff

static __always_inline void *ps_ctx_data(const struct __sk_buff *ctx)
{
	return (void *)(long)ctx->data;
}

static __always_inline void *ps_ctx_data_end(const struct __sk_buff *ctx)
{
	return (void *)(long)ctx->data_end;
}

/* Copes with non-linear skbs: reads past the linear part too. */
static __always_inline long ps_ctx_load_bytes(struct __sk_buff *ctx, __u32 off, void *to, __u32 len)
{
	return bpf_skb_load_bytes(ctx, off, to, len);
}

/* The perf output; the kernel appends the packet (BPF_F_CTXLEN_MASK). */
static __always_inline long ps_ctx_perf_output(struct __sk_buff *ctx, void *map, __u64 flags,
					       void *data, __u64 size)
{
	return bpf_perf_event_output(ctx, map, flags, data, size);
}

#endif /* PS_CTX_SKB_BPF_H */
