// SPDX-License-Identifier: GPL-2.0-only
/*
 * Test only. BPF_PROG_TEST_RUN cannot hand a TC program an skb whose VLAN
 * tag is out of band, as the stack does at TC ingress. This program makes
 * one: it pops the outer tag from the bytes and pushes it back as the skb's
 * tag, then tail-calls the shipped TC ingress program, which the fixture
 * loaded through the loader and put in slot 0 of `capture`. The filter's
 * tag view is then checked against libpcap on the original, tagged bytes.
 */
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} capture SEC(".maps");

SEC("tc")
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
	bpf_tail_call(skb, &capture, 0);
	return TC_ACT_SHOT; /* not our verdict: the tail call failed */
}

char LICENSE[] SEC("license") = "GPL";
