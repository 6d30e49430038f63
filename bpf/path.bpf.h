/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * One id per packet at every hook of the capture (--packet-id path): the
 * id of its first record, kept by the address of its skb, which stays the
 * same from the device it came by to the one it leaves by, into a
 * container's veth, across a bridge, to where the kernel frees it.
 *
 * The kernel frees many skbs without a tracepoint (TCP's coalescing, the
 * deferred frees of received data), so an entry may outlive its packet and
 * the next skb at that address find it. A packet takes an entry's id only
 * where nothing says it is another one: its fingerprint (the bytes from
 * the IP header on that forwarding leaves as they are) is the entry's, it
 * was not written at this hook of this interface before (a packet passes
 * each once), and the entry is younger than a second. In doubt, a new id:
 * a path cut in two rather than two packets under one. Two share one only
 * where the first's skb went without a trace and came to the second
 * within a second, both have the same fingerprint, and the second met
 * first a hook the first never passed.
 *
 * The sampler and the rate cap decide once a packet, at the first hook
 * whose filters choose it: a packet written there is written at every
 * later hook it meets, one left there is left at all of them, so a path is
 * whole or absent. The filters choose at each hook, as tcpdump's do: a
 * packet whose addresses NAT rewrites is written where they match.
 */
#ifndef PS_PATH_BPF_H
#define PS_PATH_BPF_H

#ifndef PS_CTX
#error "include a ctx_*.bpf.h first"
#endif

#include "flow_hash.bpf.h"

const volatile __u32 paths_enabled __weak = 0;

struct ps_path {
	__u64 id;    /* the packet's: its first record's CPU << 48 | seq */
	__u64 ts_ns; /* when it was last met */
	__u64 seen;  /* where it was met: a bit per hook and interface, hashed */
	__u32 print; /* its fingerprint (ps_packet_print) */
	__u32 kept;  /* whether its first hook chose it: every later one does the same */
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1); /* the loader's: PS_PATHS_MAX where followed */
	__type(key, __u64);
	__type(value, struct ps_path);
} paths SEC(".maps") __weak;

#define PS_PATH_STALE_NS 1000000000ull

/* What a packet's earlier hooks decided (ps_path_find). */
enum ps_path_state {
	PS_PATH_FIRST, /* none met it: this hook's sampler decides */
	PS_PATH_KEPT,  /* written there: written here, under that id */
	PS_PATH_LEFT,  /* sampled out (or over the rate) there: left here too */
};

static __always_inline __u64 ps_path_bit(const struct ps_meta *m)
{
	return 1ull << ((m->ifindex * PS_HOOK_MAX + m->hook) & 63);
}

/*
 * What the packet's earlier hooks decided, for a packet this hook's
 * filters chose: key its skb's address (xdp-entry and xdp-exit: the
 * xdp_buff's; 0: this hook has neither, and the packet is its own). Sets m->ts_ns to now; where KEPT, m->pkt_id to the
 * packet's id; where FIRST, m->pkt_id to its fingerprint, which
 * ps_path_begin() keeps.
 *
 * Functions of their own, not inlined, working in this CPU's scratch
 * record (used again only by the output after them): the hook's stack and
 * the filter's together may not pass the verifier's 512 bytes, and the
 * hook's has little room left.
 */
static __noinline enum ps_path_state ps_path_find(PS_CTX *ctx, struct ps_meta *m, __u64 key,
						  __u32 l3)
{
	__u32 print, zero = 0;
	struct ps_scratch *s;
	struct ps_path *p;

	m->ts_ns = bpf_ktime_get_ns();
	m->pkt_id = 0;
	s = bpf_map_lookup_elem(&scratch, &zero);
	if (!key || !s)
		return PS_PATH_FIRST;
	print = ps_packet_print(ctx, m, l3, s->data);
	m->pkt_id = print;
	p = bpf_map_lookup_elem(&paths, &key);
	if (!p || p->print != print || (p->seen & ps_path_bit(m)) ||
	    m->ts_ns - p->ts_ns >= PS_PATH_STALE_NS)
		return PS_PATH_FIRST;
	p->seen |= ps_path_bit(m);
	p->ts_ns = m->ts_ns;
	if (!p->kept)
		return PS_PATH_LEFT;
	m->pkt_id = p->id;
	return PS_PATH_KEPT;
}

/*
 * The packet's first hook decided: kept (m complete: its id is its
 * record's, CPU and sequence) or not. Remembers it for the later hooks.
 */
static __noinline void ps_path_begin(struct ps_meta *m, __u64 key, __u32 kept)
{
	__u32 print = (__u32)m->pkt_id, zero = 0;
	struct ps_scratch *s;
	struct ps_path *n;

	m->pkt_id = ps_packet_id(m->cpu, m->seq);
	s = bpf_map_lookup_elem(&scratch, &zero);
	if (!key || !s)
		return;
	n = (struct ps_path *)s->data;
	*n = (struct ps_path){
		.id = m->pkt_id,
		.ts_ns = m->ts_ns,
		.seen = ps_path_bit(m),
		.print = print,
		.kept = kept,
	};
	bpf_map_update_elem(&paths, &key, n, BPF_ANY);
}

#endif /* PS_PATH_BPF_H */
