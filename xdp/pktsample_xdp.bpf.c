// SPDX-License-Identifier: GPL-2.0-only
/* XDP ingress hook: capture what the shared path chooses, always pass it on. */
#include "bpf/ctx_xdp.bpf.h"
#include "bpf/capture.bpf.h"

static __always_inline int xdp_capture(struct xdp_md *ctx)
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

/*
 * Native mode. Jumbo frames on veth (MTU 9000) arrive as multi-buffer XDP:
 * this program is opened with BPF_F_XDP_HAS_FRAGS (the section is ours, see
 * PS_SEC_XDP, so libbpf's "xdp.frags" cannot set it; user/splice.c does at
 * open).
 */
SEC(PS_SEC_XDP)
int pktsample_xdp(struct xdp_md *ctx)
{
	return xdp_capture(ctx);
}

/*
 * Generic (skb) mode: the same, without multi-buffer support. For a
 * multi-buffer program the generic hook copies every skb into page-pool
 * pages and hands the copy on without its MAC header (mac_len 0), which
 * every TC ingress program and mirror after it then sees; for this one it
 * linearizes the rare non-linear skb in place, and the skb stays as it was.
 */
SEC(PS_SEC_XDP)
int pktsample_xdp_skb(struct xdp_md *ctx)
{
	return xdp_capture(ctx);
}

char LICENSE[] SEC("license") = "GPL";
