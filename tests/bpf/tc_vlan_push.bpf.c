// SPDX-License-Identifier: GPL-2.0-only
/*
 * Test only (testenv's vlanoob device): at the peer's TC egress, give each
 * IPv4 packet VLAN tag 100, out of band (the skb's tag, as a VLAN device
 * with tx-vlan-offload makes it), where no 8021q module exists. Across the
 * veth the tag stays out of band: the capture side's generic XDP sees the
 * frame untagged, its TC ingress sees the skb's tag, tcpdump sees it put
 * back.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

SEC("tc")
int tc_vlan_push(struct __sk_buff *skb)
{
	if (skb->protocol == bpf_htons(ETH_P_IP) && !skb->vlan_present)
		bpf_skb_vlan_push(skb, bpf_htons(ETH_P_8021Q), 100);
	return TC_ACT_OK;
}

char LICENSE[] SEC("license") = "GPL";
