/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Context access for the drop hook (trace/pktsample_drop.bpf.c), a raw
 * tracepoint program on kfree_skb; see xdp/ctx_xdp.bpf.h. The context is
 * ours: the tracepoint's arguments, the skb, and where its bytes start and
 * its linear part ends. Those are plain kernel addresses, not packet
 * pointers the verifier knows: every read goes through
 * bpf_probe_read_kernel(), the filter's too (PS_XLATE_XDP_TRACE), and the
 * output copies the bytes (a raw tracepoint's perf output cannot append a
 * packet). Only the linear part is read. Include exactly one ctx_*.bpf.h,
 * first.
 */
#ifndef PS_CTX_DROP_BPF_H
#define PS_CTX_DROP_BPF_H

#ifdef PS_CTX
#error "include exactly one ctx_*.bpf.h"
#endif

#include <stdbool.h>
#include <linux/bpf.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include "pktsample.h"

/*
 * The kernel's structs, the fields used and nothing else: CO-RE relocates
 * each read against the running kernel's BTF (fields inside the kernel's
 * anonymous unions and struct_group()s are found by name).
 */
struct ns_common {
	unsigned int inum;
} __attribute__((preserve_access_index));

struct net {
	struct ns_common ns;
} __attribute__((preserve_access_index));

typedef struct {
	struct net *net;
} __attribute__((preserve_access_index)) possible_net_t;

struct net_device {
	int ifindex;
	possible_net_t nd_net;
} __attribute__((preserve_access_index));

struct ps_atomic64___drop {
	long long counter;
};

struct sock_common {
	struct ps_atomic64___drop skc_cookie;
} __attribute__((preserve_access_index));

struct sock {
	struct sock_common __sk_common;
} __attribute__((preserve_access_index));

struct sk_buff {
	struct net_device *dev;
	struct sock *sk;
	unsigned int len;
	__u16 queue_mapping;
	__u16 mac_header;
	__u16 network_header;
	unsigned int tail; /* an offset from head on 64-bit kernels */
	unsigned char *head;
	unsigned char *data;
} __attribute__((preserve_access_index));

struct ps_drop_ctx {
	__u64 *args; /* the tracepoint's: skb, location, reason[, rx_sk] */
	struct sk_buff *skb;
	void *data;	/* the first byte captured: MAC or network header */
	void *data_end; /* the end of the linear part */
};

#define PS_CTX struct ps_drop_ctx

/* ps_ctx_data(), ps_ctx_data_end(), ps_ctx_load_bytes(): the linear part. */
#include "linear.bpf.h"

/* The packet's key (bpf/path.bpf.h): its skb's address, as at TC. */
static __always_inline __u64 ps_ctx_packet_key(struct ps_drop_ctx *ctx)
{
	return (__u64)(long)ctx->skb;
}

/* No packet appended by the kernel here: the output copies the linear
 * part, one record per packet (PS_CTX_COPY_OUT, bpf/output.bpf.h). */
static __always_inline long ps_ctx_perf_output(struct ps_drop_ctx *ctx, void *map, __u64 flags,
					       void *data, __u64 size)
{
	return bpf_perf_event_output(ctx->args, map, flags, data, size);
}
#define PS_CTX_COPY_OUT 1

/* The linear part's length: what can be read (and so captured). */
static __always_inline __u32 ps_ctx_linear(const struct ps_drop_ctx *ctx)
{
	return (__u32)((__u64)ctx->data_end - (__u64)ctx->data);
}

/*
 * The socket the skb still holds (the sender's, or the receiver's once it
 * was delivered), and how: PS_CTX_SKB with its cookie, PS_CTX_UNNAMED where
 * the kernel has made it none yet (this hook cannot make one), else
 * PS_CTX_NO_SOCKET. Its cgroup comes from its owner (the owners map).
 */
static __always_inline int ps_ctx_skb_socket(struct ps_drop_ctx *ctx, __u64 *cookie, __u64 *cgroup)
{
	struct sk_buff *skb = ctx->skb; /* ours: no relocation */
	struct sock *sk = BPF_CORE_READ(skb, sk);

	(void)cgroup;
	if (!sk)
		return PS_CTX_NO_SOCKET;
	*cookie = (__u64)BPF_CORE_READ(sk, __sk_common.skc_cookie.counter);
	return *cookie ? PS_CTX_SKB : PS_CTX_UNNAMED;
}
#define PS_CTX_SKB_SOCKET_ONLY 1

#endif /* PS_CTX_DROP_BPF_H */
