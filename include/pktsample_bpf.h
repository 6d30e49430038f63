/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * BPF-side helpers shared by the XDP and TC programs: the maps (created once
 * by user space and reused by both objects) and the capture step.
 */
#ifndef PKTSAMPLE_BPF_H
#define PKTSAMPLE_BPF_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "pktsample.h"

/* Rodata knobs, set by user space between open and load. */
const volatile __u32 snaplen = PS_SNAPLEN_MAX;
const volatile __u32 filter_enabled = 0; /* 0: the filter call is dead code */

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, PS_COUNTERS_MAX_ENTRIES);
	__type(key, struct ps_counter_key);
	__type(value, struct ps_counters);
} counters SEC(".maps");

/* One u64 per CPU: the sequence number of the next sample from that CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} cpu_seq SEC(".maps");

struct ps_pkt {
	__u32 ifindex;
	__u32 rx_queue;
	__u32 len;      /* whole packet, linear and non-linear parts */
	__s32 verdict;
	__u8 hook;
	__u8 flags;
	__u16 vlan_tci;
	__u16 vlan_proto;
};

/*
 * The filter placeholder. User space replaces this body with the eBPF
 * translation of the user's expression at load time (user/splice.c); the
 * result is what the cBPF program returns: 0 = no match, else the number of
 * bytes to keep. __noinline keeps it a separate function to replace; the
 * asm uses every argument, so clang passes them all, and hides the result,
 * so clang cannot assume it is wire_len.
 */
static __noinline __u32 pktsample_filter(void *ctx, void *data, void *data_end,
					 __u32 wire_len, __u64 vlan)
{
	__u32 keep = wire_len;

	asm volatile("" : "+r"(keep) : "r"(ctx), "r"(data), "r"(data_end), "r"(vlan));
	return keep;
}

/*
 * Count the packet, run the filter and emit metadata + the first
 * min(snaplen, len, filter result) bytes. The kernel copies the packet
 * bytes itself (BPF_F_CTXLEN_MASK), including XDP frags and non-linear skb
 * data, so nothing passes through the stack.
 */
static __always_inline void ps_capture(void *ctx, void *data, void *data_end,
				       const struct ps_pkt *p)
{
	struct ps_counter_key key = { .ifindex = p->ifindex, .hook = p->hook };
	struct ps_counters *cnt;
	struct ps_meta meta = {};
	__u32 zero = 0, cap;
	__u64 *seq;
	long err;

	cnt = bpf_map_lookup_elem(&counters, &key);
	if (cnt)
		cnt->seen++;

	cap = p->len < snaplen ? p->len : snaplen;
	if (filter_enabled) {
		__u64 vlan = 0;
		__u32 keep;

		if (p->flags & PS_F_VLAN_OOB)
			vlan = PS_FILTER_VLAN_PRESENT |
			       (__u64)bpf_ntohs(p->vlan_proto) << 16 | p->vlan_tci;
		keep = pktsample_filter(ctx, data, data_end, p->len, vlan);
		if (!keep) {
			if (cnt)
				cnt->filtered++;
			return;
		}
		if (keep < cap)
			cap = keep;
	}

	seq = bpf_map_lookup_elem(&cpu_seq, &zero);
	if (!seq)
		return;
	meta.ts_ns = bpf_ktime_get_ns();
	meta.seq = (*seq)++;
	meta.ifindex = p->ifindex;
	meta.rx_queue = p->rx_queue;
	meta.wire_len = p->len;
	meta.cap_len = cap;
	meta.verdict = p->verdict;
	meta.cpu = bpf_get_smp_processor_id();
	meta.version = PS_META_VERSION;
	meta.hook = p->hook;
	meta.flags = p->flags;
	meta.vlan_tci = p->vlan_tci;
	meta.vlan_proto = p->vlan_proto;

	err = bpf_perf_event_output(ctx, &events,
				    BPF_F_CURRENT_CPU | ((__u64)cap << 32),
				    &meta, sizeof(meta));
	if (cnt) {
		if (err)
			cnt->output_errors++;
		else
			cnt->emitted++;
	}
}

#endif /* PKTSAMPLE_BPF_H */
