// SPDX-License-Identifier: GPL-2.0-only
/* XDP ingress hook: capture what the shared path chooses, always pass it on. */
#include "ctx_xdp.bpf.h"
#include <stdbool.h>
#include "capture.bpf.h"

/* The driver's RX VLAN metadata (6.8+); its program is loaded only where
 * the kernel has it, and where it does not, the object is built without
 * the reference (CMakeLists.txt: pktsample_nokfunc). */
#ifdef PS_NO_XDP_METADATA_KFUNC
#define bpf_xdp_metadata_rx_vlan_tag(ctx, proto, tci) (-1)
#else
extern int bpf_xdp_metadata_rx_vlan_tag(const struct xdp_md *ctx, __be16 *vlan_proto,
					__u16 *vlan_tci) __ksym __weak;
#endif

static __always_inline int xdp_capture(struct xdp_md *ctx, bool vlan_meta)
{
	struct ps_meta m = {
		.ifindex = ctx->ingress_ifindex,
		.rx_queue = ctx->rx_queue_index,
		.wire_len = ps_ctx_xdp_len(ctx),
		.verdict = PS_XDP_VERDICT,
		.hook = PS_HOOK_XDP,
	};
	__be16 proto;
	__u16 tci;

	/* A tag the NIC (or, on veth, the peer) holds out of band: the
	 * ingest puts it back, as at TC. */
	if (vlan_meta && !bpf_xdp_metadata_rx_vlan_tag(ctx, &proto, &tci)) {
		m.flags |= PS_F_VLAN_OOB;
		m.vlan_tci = tci;
		m.vlan_proto = proto;
	}
	ps_capture(ctx, &m, NULL);
	return PS_XDP_VERDICT;
}

/*
 * Native mode. Jumbo frames on veth (MTU 9000) arrive as multi-buffer XDP:
 * this program is opened with BPF_F_XDP_HAS_FRAGS (the section is ours, see
 * PS_SEC_XDP, so libbpf's "xdp.frags" cannot set it; user/filter/splice.c does at
 * open).
 */
SEC(PS_SEC_XDP)
int pktsample_xdp(struct xdp_md *ctx)
{
	return xdp_capture(ctx, false);
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
	return xdp_capture(ctx, false);
}

/*
 * Native mode on a device whose driver gives XDP the VLAN tag it took out
 * of the frame (netdev xdp-rx-metadata-features: vlan-tag; veth, mlx5, ice,
 * ...): the same as pktsample_xdp, plus that tag. Loaded once per such
 * device, bound to it (the kfunc becomes the driver's own), by a loader
 * of its own that shares the maps (user/kernel/loader.h: xdp_dev_ifindex).
 */
SEC(PS_SEC_XDP)
int pktsample_xdp_dev(struct xdp_md *ctx)
{
	return xdp_capture(ctx, true);
}

char LICENSE[] SEC("license") = "GPL";
