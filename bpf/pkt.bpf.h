/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* What a hook knows about a packet before the shared capture path runs. */
#ifndef PS_PKT_BPF_H
#define PS_PKT_BPF_H

#include <stdbool.h>
#include <linux/types.h>
#include "pktsample.h"

struct ps_pkt {
	__u32 ifindex;
	__u32 rx_queue;
	__u32 len; /* whole packet, linear and non-linear parts */
	__s32 verdict;
	__u8 hook;	/* enum ps_hook */
	__u8 flags;	/* PS_F_* */
	__u16 vlan_tci; /* out-of-band tag, if PS_F_VLAN_OOB (TC) */
	__u16 vlan_proto;
	__u64 location; /* drop hooks: where the kernel freed it */
};

/* ps_capture()'s hook: TC egress, where the packet's socket comes with it. */
static inline bool ps_pkt_egress(const struct ps_pkt *p)
{
	return p->hook == PS_HOOK_TC_EGRESS;
}

#endif /* PS_PKT_BPF_H */
