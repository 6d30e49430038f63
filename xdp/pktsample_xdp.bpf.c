// SPDX-License-Identifier: GPL-2.0-only
/* XDP ingress hook: capture what the shared path chooses, always pass it on. */
#include "bpf/ctx_xdp.bpf.h"
#include "bpf/capture.bpf.h"

/*
 * Jumbo frames on veth (MTU 9000) arrive as multi-buffer XDP: the program
 * is opened with BPF_F_XDP_HAS_FRAGS (the section is ours, see PS_SEC_XDP,
 * so libbpf's "xdp.frags" cannot set it; user/splice.c does at open).
 */
SEC(PS_SEC_XDP)
int pktsample_xdp(struct xdp_md *ctx)
{
	struct ps_pkt p = {
		.ifindex = ctx->ingress_ifindex,
		.rx_queue = ctx->rx_queue_index,
		.len = bpf_xdp_get_buff_len(ctx),
		.verdict = PS_XDP_VERDICT,
		.hook = PS_HOOK_XDP,
	};

	ps_capture(ctx, &p);
	return PS_XDP_VERDICT;
}

char LICENSE[] SEC("license") = "GPL";
