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

#include <stdbool.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "maps.bpf.h"

#define PS_CTX struct xdp_md

static __always_inline void *ps_ctx_data(const struct xdp_md *ctx)
{
	return (void *)(long)ctx->data;
}

static __always_inline void *ps_ctx_data_end(const struct xdp_md *ctx)
{
	return (void *)(long)ctx->data_end;
}

/*
 * The frame's length, frags included. Before 5.18 (no xdp_frags) a frame
 * is one buffer: data to data_end.
 */
static __always_inline __u32 ps_ctx_xdp_len(struct xdp_md *ctx)
{
	if (xdp_frags)
		return (__u32)bpf_xdp_get_buff_len(ctx);
	return ctx->data_end - ctx->data;
}

/* Copes with frags: multi-buffer packets are read across their pages.
 * Without them, the one buffer is read as kernel memory, which it is. */
static __always_inline long ps_ctx_load_bytes(struct xdp_md *ctx, __u32 off, void *to, __u32 len)
{
	if (xdp_frags)
		return bpf_xdp_load_bytes(ctx, off, to, len);
	if ((__u64)off + len > (__u64)(ctx->data_end - ctx->data))
		return -1;
	return bpf_probe_read_kernel(to, len, (void *)(long)ctx->data + off);
}

/* The perf output; the kernel appends the packet (BPF_F_CTXLEN_MASK). */
/* No skb yet: a packet's XDP record keeps its own id (bpf/path.bpf.h). */
static __always_inline __u64 ps_ctx_packet_key(struct xdp_md *ctx __attribute__((unused)))
{
	return 0;
}

static __always_inline long ps_ctx_perf_output(struct xdp_md *ctx, void *map, __u64 flags,
					       void *data, __u64 size)
{
	return bpf_perf_event_output(ctx, map, flags, data, size);
}

/* XDP runs before there is an skb: no socket comes with the packet. */
static __always_inline bool ps_ctx_skb_socket(struct xdp_md *ctx __attribute__((unused)),
					      __u64 *cookie __attribute__((unused)),
					      __u64 *cgroup __attribute__((unused)))
{
	return false;
}

static __always_inline bool ps_ctx_skb_socket_not_inet(struct xdp_md *ctx __attribute__((unused)))
{
	return false;
}

/* The local socket the packet is for, in the device's namespace. */
static __always_inline struct bpf_sock *ps_ctx_skc_lookup_tcp(struct xdp_md *ctx,
							      struct bpf_sock_tuple *t, __u32 len)
{
	return (struct bpf_sock *)bpf_skc_lookup_tcp(ctx, t, len, BPF_F_CURRENT_NETNS, 0);
}

static __always_inline struct bpf_sock *ps_ctx_sk_lookup_udp(struct xdp_md *ctx,
							     struct bpf_sock_tuple *t, __u32 len)
{
	return bpf_sk_lookup_udp(ctx, t, len, BPF_F_CURRENT_NETNS, 0);
}

#endif /* PS_CTX_XDP_BPF_H */
