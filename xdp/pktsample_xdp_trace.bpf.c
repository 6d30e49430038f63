// SPDX-License-Identifier: GPL-2.0-only
/*
 * Around another XDP program (a load balancer's, a DDoS filter's, libxdp's
 * dispatcher): fentry on it records what it is given, fexit what it
 * returned, with its verdict, as xdpdump does. The program stays attached
 * and unchanged; ours run on the trampoline the kernel puts around it.
 * The target is set at load (user/kernel/loader.c: trace_prog_fd), one loader
 * per traced program, sharing the main loader's maps.
 */
#include "ctx_xdp_trace.bpf.h"
#include <stdbool.h>
#include "capture.bpf.h"

static __always_inline void trace_capture(struct xdp_buff *xdp, __u8 hook, __s32 verdict)
{
	struct ps_meta m = {
		.ifindex = xdp->rxq->dev->ifindex,
		.rx_queue = xdp->rxq->queue_index,
		.wire_len = (__u32)((__u64)xdp->data_end - (__u64)xdp->data),
		.verdict = verdict,
		.hook = hook,
	};
	const struct ps_iface *iface = ps_iface_of(m.ifindex);

	/* The traced program may run on interfaces we do not capture. */
	if (!iface)
		return;
	ps_capture(xdp, &m, iface);
}

/* fentry: the arguments of the traced program, ctx[0] its xdp_buff. */
SEC(PS_SEC_XDP_ENTRY)
int pktsample_xdp_entry(__u64 *ctx)
{
	trace_capture((struct xdp_buff *)ctx[0], PS_HOOK_XDP_ENTRY, PS_VERDICT_NONE);
	return 0;
}

/* fexit: the arguments, then the return value, the program's verdict. */
SEC(PS_SEC_XDP_EXIT)
int pktsample_xdp_exit(__u64 *ctx)
{
	trace_capture((struct xdp_buff *)ctx[0], PS_HOOK_XDP_EXIT, (__s32)ctx[1]);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
