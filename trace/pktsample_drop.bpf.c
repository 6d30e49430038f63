// SPDX-License-Identifier: GPL-2.0-only
/*
 * The drop hook: packets the kernel frees as dropped, with its reason.
 * A raw tracepoint on kfree_skb (no kprobe, no fentry: it loads wherever
 * the tracepoint exists, Debian 12's 6.1 included), whose arguments are
 * the skb, the address it was freed from and the enum skb_drop_reason.
 *
 * Only the captured interfaces, in the capture's network namespace
 * (ifindexes repeat across namespaces). The bytes start at the MAC header
 * where the skb has one (hook drop), else at the network header (drop-ip,
 * raw IP: a packet dropped on its way down before it got one); then the
 * same filter, sampler, rate cap and counters as every hook.
 */
#include "ctx_drop.bpf.h"
#include <stdbool.h>
#include "capture.bpf.h"

/* skb->mac_header and network_header when unset: (typeof)~0U. */
#define PS_SKB_HDR_UNSET 0xffff

static __always_inline void count_reason(__u32 reason)
{
	__u32 key = reason < PS_DROP_REASON_SLOTS ? reason : PS_DROP_REASON_SLOTS - 1;
	__u64 *n = bpf_map_lookup_elem(&drop_reasons, &key);

	if (n)
		(*n)++;
}

/* The packet is freed: its address is free for another (bpf/path.bpf.h).
 * Not inlined, for the hook's stack (as ps_path_find). */
static __noinline void ps_path_end(__u64 key)
{
	bpf_map_delete_elem(&paths, &key);
}

SEC(PS_SEC_DROP)
int pktsample_drop(__u64 *args)
{
	struct sk_buff *skb = (struct sk_buff *)args[0];
	/* Before 5.17 the tracepoint has no reason, and a program that reads
	 * past its arguments does not attach: the kernel's own word for a
	 * drop it did not explain, then. */
	__u32 reason = drop_reason_arg ? (__u32)args[2] : PS_DROP_REASON_NOT_SPECIFIED;
	struct ps_drop_ctx ctx = { .args = args, .skb = skb };
	struct ps_meta m = { .verdict = (__s32)reason, .location = args[1] };
	const struct ps_iface *iface;
	struct net_device *dev;
	unsigned char *head, *start;
	__u16 mac, nh;

	/* Not a drop: a kernel that reports SKB_CONSUMED here. */
	if (reason == drop_skip_reason)
		return 0;
	dev = BPF_CORE_READ(skb, dev);
	if (!dev)
		return 0;
	m.ifindex = BPF_CORE_READ(dev, ifindex);
	iface = ps_iface_of(m.ifindex);
	if (!iface || BPF_CORE_READ(dev, nd_net.net, ns.inum) != drop_netns_ino)
		return 0;

	head = BPF_CORE_READ(skb, head);
	mac = BPF_CORE_READ(skb, mac_header);
	nh = BPF_CORE_READ(skb, network_header);
	if (mac != PS_SKB_HDR_UNSET) {
		start = head + mac;
		m.hook = PS_HOOK_DROP;
	} else if (nh != PS_SKB_HDR_UNSET) {
		start = head + nh;
		m.hook = PS_HOOK_DROP_IP;
	} else {
		return 0;
	}
	ctx.data = start;
	ctx.data_end = head + BPF_CORE_READ(skb, tail);
	if (ctx.data_end < ctx.data)
		return 0;
	/* skb->len counts from skb->data, which the layers above the MAC
	 * header have moved on (or, on the way down, not reached yet). */
	m.wire_len = BPF_CORE_READ(skb, len) +
		     (__u32)((long)BPF_CORE_READ(skb, data) - (long)start);
	m.rx_queue = BPF_CORE_READ(skb, queue_mapping);
	count_reason(reason);
	ps_capture(&ctx, &m, iface);
	if (paths_enabled)
		ps_path_end((__u64)(long)skb);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
