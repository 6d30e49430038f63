// SPDX-License-Identifier: GPL-2.0-only
/*
 * Test only. BPF_PROG_TEST_RUN cannot hand a TC program an skb whose VLAN
 * tag is out of band, as the stack does at TC ingress. This program makes
 * one: it pops the outer tag from the bytes and pushes it back as the skb's
 * tag, then runs the real ingress capture path. The filter's tag view is
 * then checked against libpcap on the original, tagged bytes.
 */
#include "../../tc/pktsample_tc.bpf.c"
#include <bpf/bpf_endian.h>

SEC(PS_SEC_TC)
int tc_vlan_oob(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data;
	void *end = (void *)(long)skb->data_end;

	if (data + 18 <= end) {
		__u16 proto = *(__u16 *)(data + 12);
		__u16 tci = bpf_ntohs(*(__u16 *)(data + 14));

		if ((proto == bpf_htons(0x8100) || proto == bpf_htons(0x88a8)) &&
		    !bpf_skb_vlan_pop(skb))
			bpf_skb_vlan_push(skb, proto, tci);
	}
	tc_capture(skb, PS_HOOK_TC_INGRESS);
	return PS_TC_VERDICT;
}
