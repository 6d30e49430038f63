/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Who a packet belongs to: its local socket (the one the skb carries, or
 * the one a lookup finds for it), that socket's cgroup, and the process
 * that made the socket (the owners map, include/pktsample.h), without
 * kprobes or fentry. Then the context filter (--pid, --comm, --cgroup,
 * --container) on them.
 *
 * The hook's context header supplies ps_ctx_skb_socket() (TC: skb->sk) and
 * ps_ctx_skc_lookup_tcp() and ps_ctx_sk_lookup_udp() (the kernel's socket
 * lookup, in the device's network namespace). One that defines
 * PS_CTX_SKB_SOCKET_ONLY (the drop hook) supplies the first alone: its
 * packets' socket is the one the skb holds, whichever side it is.
 */
#ifndef PS_CONTEXT_BPF_H
#define PS_CONTEXT_BPF_H

#ifndef PS_CTX
#error "include a ctx_*.bpf.h first"
#endif

#include <stdbool.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>
#include "maps.bpf.h"
#include "pktsample.h"

/* Kernel types read through BTF, their offsets relocated at load (CO-RE):
 * only the fields used, under local names libbpf matches by the part
 * before "___". A socket's cookie is in sock_common, at offset 0 of every
 * TCP and UDP socket type the lookups return. */
struct ps_atomic64___ps {
	long long counter;
};
struct sock_common___ps {
	struct ps_atomic64___ps skc_cookie;
	struct sock_common___ps *skc_listener; /* a request socket's listener */
} __attribute__((preserve_access_index));

#ifndef PS_CTX_NO_SOCKETS
static __always_inline bool ps_comm_is(const char *comm)
{
#pragma unroll
	for (int i = 0; i < PS_COMM_LEN; i++) {
		if (comm[i] != ctx_comm[i])
			return false;
		if (!comm[i])
			break;
	}
	return true;
}
#endif

#if !defined(PS_CTX_NO_SOCKETS) && !defined(PS_CTX_SKB_SOCKET_ONLY)
/*
 * The cookie of a socket a lookup returned (a struct bpf_sock *), 0 if the
 * kernel has made none for it yet (a connection a listener accepted, until
 * it sends: the cookie is made when first asked for). The TCP socket kinds and UDP over IPv6 have
 * bpf_skc_to_*() casts the verifier follows; a request socket (a handshake
 * in progress) has no cookie of its own yet, its listener's stands for it.
 * A UDP/IPv4 socket has no cast (and bpf_rdonly_cast, 6.2+, cannot be
 * linked from two entry files by Debian 12's bpftool): its sock_common is
 * read as bytes, which the verifier allows with CAP_PERFMON.
 */
static __always_inline __u64 ps_sock_cookie(struct bpf_sock *sk)
{
	const __u32 off = bpf_core_field_offset(struct sock_common___ps, skc_cookie);
	__u32 zero = 0;
	struct ps_scratch *s;
	void *p;

	p = bpf_skc_to_tcp_sock(sk);
	if (!p)
		p = bpf_skc_to_tcp_timewait_sock(sk);
	if (!p)
		p = bpf_skc_to_udp6_sock(sk);
	if (p)
		return *(__u64 *)((char *)p + off);
	p = bpf_skc_to_tcp_request_sock(sk);
	if (p) {
		/* skc_listener shares a union with a number: the verifier
		 * sees a number, read through as an address. */
		__u64 listener = *(
			__u64 *)((char *)p +
				 bpf_core_field_offset(struct sock_common___ps, skc_listener));
		__u64 cookie = 0;

		if (listener)
			bpf_probe_read_kernel(&cookie, sizeof(cookie), (void *)(listener + off));
		return cookie;
	}
	/* Read into this CPU's scratch (maps.bpf.h): the stack has no room. */
	s = bpf_map_lookup_elem(&scratch, &zero);
	if (!s || off > PS_SOCK_COMMON_READ - 8 ||
	    bpf_probe_read_kernel(s->lookup.sock, off + 8, sk))
		return 0;
	return *(__u64 *)(s->lookup.sock + off);
}

/* The tuple of a TCP or UDP packet over IP, for the lookup, from direct
 * packet access (the headers are in the linear part at XDP and, but for
 * rare skbs, at TC ingress): 0 and *l, or PS_CTX_NOT_L4. raw: the packet
 * starts at its IP header, off bytes into what the hook was given
 * (ps_ctx_net_off()). */
static __always_inline int ps_parse_l4(PS_CTX *ctx, bool raw, __u32 off, struct ps_l4 *l)
{
	void *data = ps_ctx_data(ctx) + off, *end = ps_ctx_data_end(ctx);
	__u16 proto;
	void *nh = data;

	if (raw) {
		__u8 *v = data;

		if ((void *)(v + 1) > end)
			return PS_CTX_NOT_L4;
		proto = (*v >> 4) == 4 ? bpf_htons(ETH_P_IP) :
			(*v >> 4) == 6 ? bpf_htons(ETH_P_IPV6) :
					 0;
	} else {
		struct ethhdr *eth = data;

		if ((void *)(eth + 1) > end)
			return PS_CTX_NOT_L4;
		proto = eth->h_proto;
		nh = eth + 1;
		/* One tag in the frame (XDP, or TC where the tag stayed in). */
		if (proto == bpf_htons(ETH_P_8021Q) || proto == bpf_htons(ETH_P_8021AD)) {
			__be16 *tag = nh;

			if ((void *)(tag + 2) > end)
				return PS_CTX_NOT_L4;
			proto = tag[1];
			nh = tag + 2;
		}
	}
	if (proto == bpf_htons(ETH_P_IP)) {
		struct iphdr *ip = nh;
		__be16 *ports;

		if ((void *)(ip + 1) > end || ip->ihl < 5)
			return PS_CTX_NOT_L4;
		/* A fragment but the first has no ports. */
		if (ip->frag_off & bpf_htons(0x1fff))
			return PS_CTX_NOT_L4;
		if (ip->protocol != IPPROTO_TCP && ip->protocol != IPPROTO_UDP)
			return PS_CTX_NOT_L4;
		ports = (void *)ip + ip->ihl * 4;
		if ((void *)(ports + 2) > end)
			return PS_CTX_NOT_L4;
		/* The lookup's tuple is the packet's: source is the peer. */
		l->tuple.ipv4.saddr = ip->saddr;
		l->tuple.ipv4.daddr = ip->daddr;
		l->tuple.ipv4.sport = ports[0];
		l->tuple.ipv4.dport = ports[1];
		l->tuple_len = sizeof(l->tuple.ipv4);
		l->proto = ip->protocol;
		return 0;
	}
	if (proto == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr *ip6 = nh;
		__be16 *ports;

		if ((void *)(ip6 + 1) > end)
			return PS_CTX_NOT_L4;
		if (ip6->nexthdr != IPPROTO_TCP && ip6->nexthdr != IPPROTO_UDP)
			return PS_CTX_NOT_L4;
		ports = (void *)(ip6 + 1);
		if ((void *)(ports + 2) > end)
			return PS_CTX_NOT_L4;
		__builtin_memcpy(l->tuple.ipv6.saddr, &ip6->saddr, 16);
		__builtin_memcpy(l->tuple.ipv6.daddr, &ip6->daddr, 16);
		l->tuple.ipv6.sport = ports[0];
		l->tuple.ipv6.dport = ports[1];
		l->tuple_len = sizeof(l->tuple.ipv6);
		l->proto = ip6->nexthdr;
		return 0;
	}
	return PS_CTX_NOT_L4;
}

/* The packet's local socket by lookup: its cookie in *cookie, and how
 * (enum ps_ctx). */
static __always_inline int ps_lookup_socket(PS_CTX *ctx, bool raw, __u32 off, __u64 *cookie)
{
	__u32 zero = 0;
	struct ps_scratch *s = bpf_map_lookup_elem(&scratch, &zero);
	struct ps_l4 *l;
	struct bpf_sock *sk;
	int how;

	if (!s)
		return PS_CTX_UNNAMED;
	l = &s->lookup.l4; /* the tuple too: the stack has no room */
	__builtin_memset(l, 0, sizeof(*l));
	how = ps_parse_l4(ctx, raw, off, l);
	if (how)
		return how;
	if (l->proto == IPPROTO_TCP)
		sk = ps_ctx_skc_lookup_tcp(ctx, &l->tuple, l->tuple_len);
	else
		sk = ps_ctx_sk_lookup_udp(ctx, &l->tuple, l->tuple_len);
	if (!sk)
		return PS_CTX_NO_SOCKET;
	*cookie = ps_sock_cookie(sk);
	bpf_sk_release(sk);
	return *cookie ? PS_CTX_LOOKUP : PS_CTX_UNNAMED;
}

#endif /* the lookups */

/*
 * Fill meta's context (ctx_enabled) and run the context filter (ctx_filter):
 * false if the packet is not wanted. egress: the hook is TC egress, where
 * the packet's socket is the one the skb carries; elsewhere the local
 * socket it is for is looked up, and where there is none, an skb that came
 * from another namespace of this host may still carry its sender's.
 */
static __always_inline bool ps_context(PS_CTX *ctx, bool raw, __u32 off, bool egress,
				       struct ps_meta *meta)
{
#ifdef PS_CTX_NO_SOCKETS
	(void)ctx, (void)raw, (void)off, (void)egress, (void)meta;
	/* The context filter wants an owner: there is none here. */
	return !ctx_enabled || !ctx_filter;
#else
	const struct ps_owner *o = NULL;
	__u64 cookie = 0, cgroup = 0;
	int how;

	if (!ctx_enabled)
		return true;
#ifdef PS_CTX_SKB_SOCKET_ONLY
	(void)raw, (void)off, (void)egress;
	how = ps_ctx_skb_socket(ctx, &cookie, &cgroup);
#else
	if (egress) {
		how = ps_ctx_skb_socket(ctx, &cookie, &cgroup) ? PS_CTX_SKB : PS_CTX_NO_SOCKET;
	} else {
		how = ps_lookup_socket(ctx, raw, off, &cookie);
		/* None here: the sender's, if it came over a veth from another
		 * namespace of this host and kept its socket (TC only). */
		if ((how == PS_CTX_NO_SOCKET || how == PS_CTX_NOT_L4) &&
		    ps_ctx_skb_socket(ctx, &cookie, &cgroup))
			how = PS_CTX_SENDER;
	}
#endif
	if (cookie)
		o = bpf_map_lookup_elem(&owners, &cookie);
#ifndef PS_CTX_SKB_SOCKET_ONLY
	/* The skb's own socket with no owner here, and one no scan can
	 * find: user space then leaves its owner to the socket hook (a flood
	 * from a packet socket would otherwise have the sockets scanned
	 * again for it). Asked only where the owner is missing: a packet
	 * whose owner is known pays nothing for it. */
	if (!o && (how == PS_CTX_SKB || how == PS_CTX_SENDER) && ps_ctx_skb_socket_not_inet(ctx))
		meta->flags |= PS_F_SOCK_NOT_INET;
#endif
	if (o) {
		meta->pid = o->pid;
		meta->tid = o->tid;
		if (!cgroup)
			cgroup = o->cgroup_id;
		/* Sent from the owner's process, in one of its threads: that
		 * thread (where TC may ask; TCP's ACKs and retransmissions
		 * run in softirq, in whatever task it interrupted). */
		if (how == PS_CTX_SKB && ctx_task_helpers) {
			__u64 id = bpf_get_current_pid_tgid();

			if (id >> 32 == o->pid)
				meta->tid = (__u32)id;
		}
	}
	meta->ctx = how;
	meta->sock_cookie = cookie;
	meta->cgroup_id = cgroup;

	if (!ctx_filter)
		return true;
	if ((ctx_filter & PS_CTXF_PID) && (!o || o->pid != ctx_pid))
		return false;
	if ((ctx_filter & PS_CTXF_COMM) && (!o || !ps_comm_is(o->comm)))
		return false;
	if ((ctx_filter & PS_CTXF_CGROUP) &&
	    (!cgroup || !bpf_map_lookup_elem(&ctx_cgroups, &cgroup)))
		return false;
	return true;
#endif
}

#endif /* PS_CONTEXT_BPF_H */
