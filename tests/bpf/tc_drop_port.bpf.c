// SPDX-License-Identifier: GPL-2.0-only
/*
 * Test only (it_position): a foreign TC program, as a firewall or Cilium
 * would have, that drops IPv4 UDP to port 4242 and lets everything else
 * run on to whatever follows it (TC_ACT_UNSPEC, tcx's TCX_NEXT). Loaded
 * by tc as a clsact filter, or by tcx_hold as a tcx link.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/pkt_cls.h>
#include <linux/udp.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#define DROP_PORT 4242

SEC("tc")
int tc_drop_port(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data, *end = (void *)(long)skb->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = (void *)(eth + 1);
	struct udphdr *udp;

	if ((void *)(ip + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP) ||
	    ip->protocol != IPPROTO_UDP || ip->ihl != 5)
		return TC_ACT_UNSPEC;
	udp = (void *)(ip + 1);
	if ((void *)(udp + 1) > end)
		return TC_ACT_UNSPEC;
	return udp->dest == bpf_htons(DROP_PORT) ? TC_ACT_SHOT : TC_ACT_UNSPEC;
}

char LICENSE[] SEC("license") = "GPL";
