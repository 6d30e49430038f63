// SPDX-License-Identifier: GPL-2.0-only
/*
 * Test only (it_xdp_around): a foreign XDP program, as a load balancer or
 * a DDoS filter would have, that drops IPv4 UDP to port 4242 and passes
 * everything else. Loaded by `ip link` and by `xdp-loader` (libxdp's
 * dispatcher), then traced by pktsample's xdp-entry and xdp-exit.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#define DROP_PORT 4242

SEC("xdp")
int xdp_drop_port(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = (void *)(eth + 1);
	struct udphdr *udp = (void *)(ip + 1);

	if ((void *)(udp + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP) ||
	    ip->protocol != IPPROTO_UDP || ip->ihl != 5)
		return XDP_PASS;
	return udp->dest == bpf_htons(DROP_PORT) ? XDP_DROP : XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
