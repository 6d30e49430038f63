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

#include <stdbool.h>
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

/*
 * The socket the skb carries: at egress the sender's; at ingress only
 * where the skb kept its sender's socket across namespaces (a veth peer).
 * Its cookie (made now if the socket had none yet) and the cgroup v2 of
 * its full socket.
 */
static __always_inline bool ps_ctx_skb_socket(struct __sk_buff *skb, __u64 *cookie, __u64 *cgroup)
{
	*cookie = bpf_get_socket_cookie(skb);
	if (!*cookie)
		return false;
	*cgroup = bpf_skb_cgroup_id(skb);
	return true;
}

/* The local socket the packet is for, in the device's namespace. */
static __always_inline struct bpf_sock *ps_ctx_skc_lookup_tcp(struct __sk_buff *skb,
							      struct bpf_sock_tuple *t, __u32 len)
{
	return (struct bpf_sock *)bpf_skc_lookup_tcp(skb, t, len, BPF_F_CURRENT_NETNS, 0);
}

static __always_inline struct bpf_sock *ps_ctx_sk_lookup_udp(struct __sk_buff *skb,
							     struct bpf_sock_tuple *t, __u32 len)
{
	return bpf_sk_lookup_udp(skb, t, len, BPF_F_CURRENT_NETNS, 0);
}

#endif /* PS_CTX_SKB_BPF_H */
