// SPDX-License-Identifier: GPL-2.0-only
/* TC ingress and egress hooks: capture what the shared path chooses, let the rest run. */
#include "ctx_skb.bpf.h"
#include "capture.bpf.h"

static __always_inline void tc_capture(struct __sk_buff *skb, __u8 hook)
{
	struct ps_meta m = {
		.ifindex = skb->ifindex,
		.wire_len = skb->len,
		.verdict = PS_TC_VERDICT,
		.hook = hook,
	};

	/*
	 * At ingress the stack records rx queue q as queue_mapping q + 1
	 * (0 = not recorded); at egress queue_mapping is the tx queue.
	 */
	if (hook == PS_HOOK_TC_INGRESS)
		m.rx_queue = skb->queue_mapping ? skb->queue_mapping - 1 : 0;
	else
		m.rx_queue = skb->queue_mapping;

	/* The tag may live in the skb, not in the bytes: the ingest puts
	 * it back so the capture shows the frame as it was on the wire. */
	if (skb->vlan_present) {
		m.flags |= PS_F_VLAN_OOB;
		m.vlan_tci = skb->vlan_tci;
		m.vlan_proto = skb->vlan_proto;
	}
	ps_capture(skb, &m, NULL);
}

SEC(PS_SEC_TC)
int pktsample_tc_ingress(struct __sk_buff *skb)
{
	tc_capture(skb, PS_HOOK_TC_INGRESS);
	return PS_TC_VERDICT;
}

SEC(PS_SEC_TC)
int pktsample_tc_egress(struct __sk_buff *skb)
{
	tc_capture(skb, PS_HOOK_TC_EGRESS);
	return PS_TC_VERDICT;
}

char LICENSE[] SEC("license") = "GPL";
