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
#include <linux/in.h>
#include <bpf/bpf_helpers.h>
#include "pktsample.h"

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

/*
 * Where the IP header starts in what tc-ingress is given on a device without
 * a link-layer header (ps_capture()'s raw): the bytes in front of it are not
 * the packet's. 0 where the stack starts the packet at its IP header, as
 * 6.1 does. 5.10's gre and ipip leave the MAC header where the outer packet
 * had it, and cls_bpf starts there: gre's outer IPv4 and GRE headers, or
 * ipip's lower Ethernet and outer IPv4 headers, come first. The offset is
 * the packet's length less its IP length, and counts only where the bytes
 * there are the network header's own (so a tun packet with bytes past its
 * IP length stays whole). One load of 8 bytes a raw packet at tc-ingress,
 * two where there is an offset.
 */
static __always_inline __u32 ps_ctx_net_off(struct __sk_buff *skb, __u8 hook, __u32 len)
{
	__u64 net, at;
	__u8 *b = (__u8 *)&net;
	__u32 iplen, off;

	if (hook != PS_HOOK_TC_INGRESS)
		return 0;
	if (bpf_skb_load_bytes_relative(skb, 0, &net, sizeof(net), BPF_HDR_START_NET))
		return 0;
	if (b[0] >> 4 == 4)
		iplen = (__u32)b[2] << 8 | b[3];
	else if (b[0] >> 4 == 6)
		iplen = ((__u32)b[4] << 8 | b[5]) + 40;
	else
		return 0;
	if (iplen >= len || len - iplen > PS_NET_OFF_MAX)
		return 0;
	off = len - iplen;
	if (bpf_skb_load_bytes(skb, off, &at, sizeof(at)) || at != net)
		return 0;
	return off & PS_NET_OFF_MAX;
}
#define PS_CTX_HAS_NET_OFF 1

/* The perf output; the kernel appends the packet (BPF_F_CTXLEN_MASK). */
/*
 * The packet's key at every hook (bpf/path.bpf.h): the address of its skb,
 * which is what the program is given. A pointer made a number, which the
 * verifier allows a program loaded with CAP_PERFMON (or CAP_SYS_ADMIN)
 * alone: the loader follows packets only then.
 */
static __always_inline __u64 ps_ctx_packet_key(struct __sk_buff *ctx)
{
	return (__u64)(long)ctx;
}

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

/* Whether the socket the skb carries is other than TCP or UDP over IP (a
 * packet socket, a raw one). A request or timewait socket is TCP's. */
static __always_inline bool ps_ctx_skb_socket_not_inet(struct __sk_buff *skb)
{
	struct bpf_sock *sk = skb->sk;

	if (!sk)
		return false;
	sk = bpf_sk_fullsock(sk);
	if (!sk)
		return false;
	return (sk->family != 2 /* AF_INET */ && sk->family != 10 /* AF_INET6 */) ||
	       (sk->protocol != IPPROTO_TCP && sk->protocol != IPPROTO_UDP);
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
