// SPDX-License-Identifier: GPL-2.0-only
/* Benchmark reference: the cheapest XDP program there is. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("xdp")
int bare_xdp_pass(struct xdp_md *ctx)
{
	(void)ctx;
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
