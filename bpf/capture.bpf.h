/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The capture path every hook runs: count, filter, sample, output. A hook's
 * entry file includes its ctx_*.bpf.h, then this, and calls ps_capture().
 */
#ifndef PS_CAPTURE_BPF_H
#define PS_CAPTURE_BPF_H

#ifndef PS_CTX
#error "include a ctx_*.bpf.h first"
#endif

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "pktsample.h"
#include "context.bpf.h"
#include "filter.bpf.h"
#include "maps.bpf.h"
#include "output.bpf.h"
#include "path.bpf.h"
#include "sampler.bpf.h"

#ifndef PS_CTX_HAS_NET_OFF
/* Where the IP header starts in a raw-IP device's packet: at the start of
 * what the hook was given, but at TC ingress (tc/ctx_skb.bpf.h has its
 * own, and defines PS_CTX_HAS_NET_OFF). */
static __always_inline __u32 ps_ctx_net_off(PS_CTX *ctx __attribute__((unused)),
					    __u8 hook __attribute__((unused)),
					    __u32 len __attribute__((unused)))
{
	return 0;
}
#endif

/*
 * The candidate's number in its pool. Kernels before 5.12 have no atomic
 * fetch, and refuse the whole object for one such instruction, reached or
 * not: the object built for them (CMakeLists.txt: pktsample_compat) adds,
 * then reads (user/kernel/kfeatures.c says what that costs).
 */
static __always_inline __u32 ps_pool_next(__u64 *candidates)
{
#ifdef PS_NO_ATOMIC_FETCH
	__sync_fetch_and_add(candidates, 1);
	return (__u32) * (volatile __u64 *)candidates;
#else
	return (__u32)__sync_fetch_and_add(candidates, 1) + 1;
#endif
}

/*
 * Count the packet, run the filter, find whom it belongs to (and run the
 * context filter), sample (once a packet where packets are followed:
 * bpf/path.bpf.h), and emit metadata + the first min(snaplen, len, filter
 * result) bytes. Every packet ends in exactly one counter stage
 * (include/pktsample.h). meta: what the hook's entry knows of the packet
 * (its interface, queue, whole length, verdict, hook, flags, out-of-band
 * tag, a drop's place), every other field zero; this completes it, so a
 * field the entry knows is set there alone. iface: the packet's
 * interface, where the hook looked it up already (ps_iface_of()); NULL
 * has it looked up here.
 */
static __always_inline void ps_capture(PS_CTX *ctx, struct ps_meta *meta,
				       const struct ps_iface *iface)
{
	__u32 slot;
	bool raw = false, egress = meta->hook == PS_HOOK_TC_EGRESS;
	int have_slot = ps_slot_of(iface ?: ps_iface_of(meta->ifindex), meta->hook, &slot, &raw);
	struct ps_counters *cnt = have_slot ? bpf_map_lookup_elem(&counters, &slot) : NULL;
	__u32 zero = 0, cap, pool = 0, len = meta->wire_len, off = 0;
	enum ps_path_state path = PS_PATH_FIRST;
	__u64 key = 0;
	__u8 flags;
	struct ps_emit_state *emit;
	long err;

	if (cnt)
		cnt->seen++;

	/* Everything below sees the packet from its IP header; the output
	 * adds what lies in front (ps_meta.net_off). */
	if (raw) {
		off = ps_ctx_net_off(ctx, meta->hook, meta->wire_len);
		len -= off;
	}
	cap = len < snaplen ? len : snaplen;
#ifdef PS_CTX_COPY_OUT
	/* What can be read, and what one copied record holds. */
	if (cap > ps_ctx_linear(ctx))
		cap = ps_ctx_linear(ctx);
	if (transport == PS_TRANSPORT_PERF && cap > PS_PERF_CONT)
		cap = PS_PERF_CONT;
#endif
	flags = meta->flags;
	if (filter_enabled) {
		__u64 vlan = 0;
		__u32 keep;

		if (meta->flags & PS_F_VLAN_OOB)
			vlan = PS_FILTER_VLAN_PRESENT | (__u64)bpf_ntohs(meta->vlan_proto) << 16 |
			       meta->vlan_tci;
		/* Each interface's packets meet the expression compiled for
		 * its link type, as tcpdump's would. */
		if (raw)
			keep = pktsample_filter_raw(ctx, ps_ctx_data(ctx) + off,
						    ps_ctx_data_end(ctx), (__u64)off << 32 | len,
						    vlan);
		else
			keep = pktsample_filter(ctx, ps_ctx_data(ctx), ps_ctx_data_end(ctx),
						meta->wire_len, vlan);
		if (!keep) {
			if (cnt)
				cnt->filtered++;
			return;
		}
		if (keep < cap)
			cap = keep;
	}
	/* --pid, --comm, --cgroup, --container: a filter too, before the
	 * sampler (which samples what they let through), counted as one. */
	if (ctx_filter && !ps_context(ctx, raw, off, egress, meta)) {
		if (cnt)
			cnt->filtered++;
		return;
	}
	if (pool_enabled && have_slot) {
		__u64 *candidates = bpf_map_lookup_elem(&pools, &slot);

		if (candidates)
			pool = ps_pool_next(candidates);
	}
	/* A packet followed: what its first hook decided holds here. */
	if (paths_enabled) {
		key = ps_ctx_packet_key(ctx);
		path = ps_path_find(ctx, meta, key,
				    raw || meta->hook == PS_HOOK_DROP_IP ? off : PS_PRINT_ETHER);
		if (path == PS_PATH_LEFT) {
			if (cnt)
				cnt->sampled_out++;
			return;
		}
	}
	if (path == PS_PATH_FIRST && (sample_mode != PS_SAMPLE_ALL || rate_cost_ns)) {
		struct ps_sampler *s = bpf_map_lookup_elem(&sampler, &zero);

		if (!s)
			return;
		if (!ps_sample(ctx, meta, s, &flags)) {
			if (cnt)
				cnt->sampled_out++;
			if (paths_enabled)
				ps_path_begin(meta, key, 0);
			return;
		}
		if (rate_cost_ns && !ps_rate_ok(s)) {
			if (cnt)
				cnt->rate_limited++;
			if (paths_enabled)
				ps_path_begin(meta, key, 0);
			return;
		}
	}

	/* Without the context filter, only what is kept pays for the
	 * lookups (doc/performance.md#owners, bench/datapath_cost.c). */
	if (!ctx_filter)
		ps_context(ctx, raw, off, egress, meta);

	emit = bpf_map_lookup_elem(&emit_state, &zero);
	if (!emit)
		return;
	/*
	 * in_flight brackets the timestamp and the output: set before the
	 * clock is read, cleared once the sample is in the buffer (or the
	 * output failed). A reader that sees it clear at time T knows this
	 * CPU has no sample stamped before T still to come (user/ingest/order.h).
	 * The helper calls keep the compiler from moving these stores, and
	 * one program runs at a time per CPU (softirq or BH disabled), as
	 * the sequence numbers already assume.
	 */
	*(volatile __u64 *)&emit->in_flight = 1;
	meta->ts_ns = bpf_ktime_get_ns();
	meta->seq = emit->seq++;
	meta->cap_len = cap + off;
	meta->net_off = off;
	meta->cpu = bpf_get_smp_processor_id();
	meta->version = PS_META_VERSION;
	meta->flags |= flags; /* the sampler's, and the context's (PS_F_SOCK_NOT_INET) */
	meta->pool = pool;
	if (paths_enabled) {
		if (path == PS_PATH_FIRST)
			ps_path_begin(meta, key, 1);
		meta->flags |= PS_F_PATH;
	}

	err = ps_output(ctx, meta);
	*(volatile __u64 *)&emit->in_flight = 0;
	if (cnt) {
		if (err)
			cnt->output_errors++;
		else
			cnt->emitted++;
	}
}

#endif /* PS_CAPTURE_BPF_H */
