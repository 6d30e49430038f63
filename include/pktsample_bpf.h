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
#include <linux/bpf_perf_event.h>
#include <stdbool.h>
#include "pktsample.h"

/* Rodata knobs, set by user space between open and load. */
const volatile __u32 snaplen = PS_SNAPLEN_MAX;
const volatile __u32 filter_enabled = 0; /* 0: the filter call is dead code */
const volatile __u32 sample_mode = PS_SAMPLE_ALL;  /* enum ps_sample_mode */
const volatile __u32 sample_threshold = 0; /* random, flow: keep if hash < this (2^32/N) */
const volatile __u64 sample_every = 1;     /* count: keep every Nth */
const volatile __u32 flow_seed = 0;        /* flow: varies which flows are chosen */
const volatile __u64 sample_interval_ns = 0; /* clock: the tick period */
const volatile __u64 rate_cost_ns = 0;     /* rate cap: 1e9 / max rate; 0 = no cap */
const volatile __u64 rate_burst_ns = 0;    /* rate cap: bucket size, in ns of credit */
const volatile __u32 transport = PS_TRANSPORT_PERF; /* enum ps_transport */
const volatile __u64 ring_wakeup_bytes = 0; /* ringbuf: wake the reader from here */
/* The captured interfaces; an interface's index here is its counter slot. */
const volatile __u32 iface_count = 0;
const volatile __u32 ifindexes[PS_MAX_IFACES] = {};

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} events SEC(".maps");

/* --transport ringbuf only; user space sizes it (a page when unused). */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
} ring SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PS_COUNTER_SLOTS);
	__type(key, __u32);
	__type(value, struct ps_counters);
} counters SEC(".maps");

/* One u64 per CPU: the sequence number of the next sample from that CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} cpu_seq SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ps_sampler);
} sampler SEC(".maps");

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
 * so clang cannot assume what it returns.
 */
static __noinline __u32 pktsample_filter(void *ctx, void *data, void *data_end,
					 __u32 wire_len, __u64 vlan)
{
	__u32 keep = 0; /* never spliced: fail closed, capture nothing */

	asm volatile("" : "+r"(keep)
		     : "r"(ctx), "r"(data), "r"(data_end), "r"(wire_len), "r"(vlan));
	return keep;
}

/* ---- flow hash: symmetric, VLAN-aware, the same at XDP and TC ---- */

#define PS_FLOW_HDR 128 /* header bytes copied for parsing */

static __always_inline __u32 ps_rol32(__u32 x, int r)
{
	return (x << r) | (x >> (32 - r));
}

/* MurmurHash3's block and final mix: cheap, and good enough to pick flows. */
static __always_inline __u32 ps_mix(__u32 h, __u32 v)
{
	v *= 0xcc9e2d51;
	v = ps_rol32(v, 15);
	v *= 0x1b873593;
	h ^= v;
	h = ps_rol32(h, 13);
	return h * 5 + 0xe6546b64;
}

static __always_inline __u32 ps_fmix(__u32 h)
{
	h ^= h >> 16;
	h *= 0x85ebca6b;
	h ^= h >> 13;
	h *= 0xc2b2ae35;
	return h ^ (h >> 16);
}

/* Indices are masked so the verifier sees every read inside b[]. */
#define PS_B(b, i) ((__u32)(b)[(i) & (PS_FLOW_HDR - 1)])
#define PS_GET16(b, i) (PS_B(b, i) << 8 | PS_B(b, (i) + 1))
#define PS_GET32(b, i) (PS_GET16(b, i) << 16 | PS_GET16(b, (i) + 2))

/*
 * Hash of the flow a packet belongs to, equal for both directions: each
 * endpoint (address, port) is hashed alone, and the two are combined in
 * sorted order with the protocol and the outer VLAN id. Ports count for
 * TCP, UDP and SCTP outside fragments; other protocols hash by addresses,
 * non-IP frames by MAC addresses and EtherType. Parsed from a copy of the
 * first bytes, so frags and non-linear skbs are read the same way.
 */
static __always_inline __u32 ps_flow_hash(void *ctx, const struct ps_pkt *p)
{
	__u8 b[PS_FLOW_HDR + 4];
	__u64 n = p->len; /* 64-bit: the verifier tracks bounds across its copies */
	__u32 l3 = 14, l4 = 0, proto, ipproto = 0, vid = 0;
	__u32 ea, eb, sport = 0, dport = 0, lo, hi, h;
	bool have_vid = false;
	long err;

	__builtin_memset(b, 0, sizeof(b));
	if (n > PS_FLOW_HDR)
		n = PS_FLOW_HDR;
	if (n < 14)
		return ps_fmix(flow_seed);
	/* The same n, rebuilt so the verifier sees 1..128 in the register the
	 * helper gets (clang may check bounds on a copy); the barrier keeps
	 * clang from folding it away. */
	barrier_var(n);
	n = ((n - 1) & (PS_FLOW_HDR - 1)) + 1;
	if (p->hook == PS_HOOK_XDP)
		err = bpf_xdp_load_bytes(ctx, 0, b, n);
	else
		err = bpf_skb_load_bytes(ctx, 0, b, n);
	if (err)
		return ps_fmix(flow_seed);

	if (p->flags & PS_F_VLAN_OOB) { /* the outer tag, at TC */
		vid = p->vlan_tci & 0xfff;
		have_vid = true;
	}
	proto = PS_GET16(b, 12);
#pragma unroll
	for (int i = 0; i < 2; i++) {
		if (proto != 0x8100 && proto != 0x88a8)
			break;
		if (!have_vid) {
			vid = PS_GET16(b, l3) & 0xfff;
			have_vid = true;
		}
		proto = PS_GET16(b, l3 + 2);
		l3 += 4;
	}
	if (proto == 0x0800) {
		ipproto = PS_B(b, l3 + 9);
		ea = PS_GET32(b, l3 + 12);
		eb = PS_GET32(b, l3 + 16);
		if (!(PS_GET16(b, l3 + 6) & 0x3fff)) /* not a fragment */
			l4 = l3 + (PS_B(b, l3) & 0xf) * 4;
	} else if (proto == 0x86dd) {
		ipproto = PS_B(b, l3 + 6);
		ea = PS_GET32(b, l3 + 8) ^ PS_GET32(b, l3 + 12) ^
		     PS_GET32(b, l3 + 16) ^ PS_GET32(b, l3 + 20);
		eb = PS_GET32(b, l3 + 24) ^ PS_GET32(b, l3 + 28) ^
		     PS_GET32(b, l3 + 32) ^ PS_GET32(b, l3 + 36);
		l4 = l3 + 40;
#pragma unroll
		for (int i = 0; i < 3; i++) { /* hop-by-hop, routing, destination */
			if (ipproto != 0 && ipproto != 43 && ipproto != 60)
				break;
			if (l4 + 2 > n) {
				l4 = 0;
				break;
			}
			ipproto = PS_B(b, l4);
			l4 += (PS_B(b, l4 + 1) + 1) * 8;
		}
		if (ipproto == 44) /* fragment header: no ports */
			l4 = 0;
	} else {
		ipproto = proto << 8;
		ea = PS_GET32(b, 6) ^ PS_GET16(b, 10);
		eb = PS_GET32(b, 0) ^ PS_GET16(b, 4);
	}
	if (l4 && l4 + 4 <= n &&
	    (ipproto == 6 || ipproto == 17 || ipproto == 132)) {
		sport = PS_GET16(b, l4);
		dport = PS_GET16(b, l4 + 2);
	}
	ea = ps_mix(ps_mix(0, ea), sport);
	eb = ps_mix(ps_mix(0, eb), dport);
	lo = ea < eb ? ea : eb;
	hi = ea < eb ? eb : ea;
	h = ps_mix(ps_mix(ps_mix(flow_seed, lo), hi), ipproto << 12 | vid);
	return ps_fmix(h);
}

/*
 * This CPU's counters of (ifindex, hook), or NULL for an interface not in
 * the list. A linear scan: the list is short (one entry, usually), and the
 * array lookup that follows is inlined by the verifier, no helper call.
 */
static __always_inline struct ps_counters *ps_counters_of(__u32 ifindex, __u32 hook)
{
	for (__u32 i = 0; i < PS_MAX_IFACES && i < iface_count; i++) {
		if (ifindexes[i] == ifindex) {
			__u32 key = i * PS_HOOK_MAX + hook;

			return bpf_map_lookup_elem(&counters, &key);
		}
	}
	return NULL;
}

/*
 * A per-CPU xorshift64* generator for random sampling (Marsaglia's
 * xorshift, then Vigna's multiply; the high 32 bits are the result): a few
 * instructions inline instead of a helper call per packet, which the
 * packets a sampler drops would otherwise pay. Seeded from the kernel's
 * generator on each CPU's first use.
 */
static __always_inline __u32 ps_random(struct ps_sampler *s)
{
	__u64 x = s->rng;

	if (!x)
		x = (__u64)bpf_get_prandom_u32() << 32 | bpf_get_prandom_u32() | 1;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	s->rng = x;
	return (x * 0x2545F4914F6CDD1DULL) >> 32;
}

/*
 * The sampler: true if this matching packet is chosen. All state is
 * per CPU, so no atomics; the hooks of one CPU never run concurrently.
 */
static __always_inline bool ps_sample(void *ctx, const struct ps_pkt *p,
				      struct ps_sampler *s, __u8 *flags)
{
	__u64 now, due;

	switch (sample_mode) {
	case PS_SAMPLE_RANDOM:
		return ps_random(s) < sample_threshold;
	case PS_SAMPLE_COUNT:
		if (++s->count < sample_every)
			return false;
		s->count = 0;
		return true;
	case PS_SAMPLE_FLOW:
		return ps_flow_hash(ctx, p) < sample_threshold;
	case PS_SAMPLE_CLOCK:
		if (s->armed) {
			s->armed = 0;
			return true;
		}
		/*
		 * Some CPUs' clocks do not tick on time (measured here: the
		 * second vCPU ticks a third as often as asked, even when
		 * busy). Half an interval past a missed tick, take this
		 * packet instead, keeping the cadence of the missed ticks.
		 */
		now = bpf_ktime_get_ns();
		due = s->slot_ns + sample_interval_ns;
		if (now < due + sample_interval_ns / 2)
			return false;
		s->slot_ns = now - due < sample_interval_ns ? due :
			     now - sample_interval_ns / 2; /* after a gap: resync */
		s->fallback_at_ns = now;
		s->fallbacks++;
		*flags |= PS_F_CLOCK_FALLBACK;
		return true;
	default:
		return true;
	}
}

/* Token bucket, in nanoseconds of credit: one packet costs rate_cost_ns. */
static __always_inline bool ps_rate_ok(struct ps_sampler *s)
{
	__u64 now = bpf_ktime_get_ns();
	__u64 credit = s->credit_ns + (now - s->refill_ns);

	if (credit > rate_burst_ns)
		credit = rate_burst_ns;
	s->refill_ns = now;
	if (credit < rate_cost_ns) {
		s->credit_ns = credit;
		return false;
	}
	s->credit_ns = credit - rate_cost_ns;
	return true;
}

/*
 * Clock-driven sampling: a software CPU-clock perf event per CPU runs this
 * every interval; it arms a token that the next packet on that CPU takes.
 * The event's enabled/running times are kept so a multiplexed or stalled
 * clock shows up in the statistics instead of silently thinning samples.
 */
SEC("perf_event")
int pktsample_tick(struct bpf_perf_event_data *ctx)
{
	struct bpf_perf_event_value v;
	struct ps_sampler *s;
	__u32 zero = 0;
	__u64 now;

	s = bpf_map_lookup_elem(&sampler, &zero);
	if (!s)
		return 0;
	now = bpf_ktime_get_ns();
	s->ticks++;
	s->last_tick_ns = now;
	/* A tick whose interval the fallback already sampled arms nothing. */
	if (now - s->slot_ns >= sample_interval_ns / 2) {
		s->armed = 1;
		s->slot_ns = now;
	}
	if (!bpf_perf_prog_read_value(ctx, &v, sizeof(v))) {
		s->enabled_ns = v.enabled;
		s->running_ns = v.running;
	}
	return 0;
}

/* ---- the BPF ring buffer transport (--transport ringbuf) ---- */

/*
 * bpf_ringbuf_reserve() wants a size the verifier knows, so a record is
 * reserved in a size class: ps_meta plus PS_RING_CLASS(k) packet bytes, the
 * smallest class that holds cap_len. Classes double from 128 bytes up to
 * the largest snap length; the reader trusts meta.cap_len, not the record
 * size.
 */
#define PS_RING_CLASS_MIN 128u
#define PS_RING_CLASSES 10 /* 128 B .. 64 KiB */
_Static_assert((PS_RING_CLASS_MIN << (PS_RING_CLASSES - 1)) >= PS_SNAPLEN_MAX,
	       "the largest ring class holds the largest snap length");

struct ps_ring_rec {
	struct ps_meta meta;
	__u8 data[];
};

static __always_inline long ps_ring_class(void *ctx, struct ps_meta *meta,
					  bool xdp, const __u32 room)
{
	struct ps_ring_rec *r;
	__u64 n = meta->cap_len;
	long err = 0;

	r = bpf_ringbuf_reserve(&ring, sizeof(*meta) + room, 0);
	if (!r)
		return -1; /* full: counted as an output error */
	r->meta = *meta;
	if (n) {
		/* n is 1..room; rebuilt so the verifier sees the bound in the
		 * register the helper gets. */
		barrier_var(n);
		n = ((n - 1) & (room - 1)) + 1;
		if (xdp)
			err = bpf_xdp_load_bytes(ctx, 0, r->data, n);
		else
			err = bpf_skb_load_bytes(ctx, 0, r->data, n);
	}
	if (err) {
		bpf_ringbuf_discard(r, BPF_RB_NO_WAKEUP);
		return err;
	}
	/*
	 * Wake the reader only once a batch is waiting, never per record:
	 * below the mark it finds the data on its idle drain.
	 */
	bpf_ringbuf_submit(r, bpf_ringbuf_query(&ring, BPF_RB_AVAIL_DATA) >=
				      ring_wakeup_bytes ? BPF_RB_FORCE_WAKEUP :
							  BPF_RB_NO_WAKEUP);
	return 0;
}

static __always_inline long ps_ring_output(void *ctx, struct ps_meta *meta, bool xdp)
{
	__u32 cap = meta->cap_len;

	/* Unrolled, so each call reserves a constant size. */
#pragma unroll
	for (int k = 0; k < PS_RING_CLASSES - 1; k++)
		if (cap <= PS_RING_CLASS_MIN << k)
			return ps_ring_class(ctx, meta, xdp, PS_RING_CLASS_MIN << k);
	return ps_ring_class(ctx, meta, xdp, PS_RING_CLASS_MIN << (PS_RING_CLASSES - 1));
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
	struct ps_counters *cnt = ps_counters_of(p->ifindex, p->hook);
	struct ps_meta meta = {};
	__u32 zero = 0, cap;
	__u8 flags;
	__u64 *seq;
	long err;

	if (cnt)
		cnt->seen++;

	cap = p->len < snaplen ? p->len : snaplen;
	flags = p->flags;
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
	if (sample_mode != PS_SAMPLE_ALL || rate_cost_ns) {
		struct ps_sampler *s = bpf_map_lookup_elem(&sampler, &zero);

		if (!s)
			return;
		if (!ps_sample(ctx, p, s, &flags)) {
			if (cnt)
				cnt->sampled_out++;
			return;
		}
		if (rate_cost_ns && !ps_rate_ok(s)) {
			if (cnt)
				cnt->rate_limited++;
			return;
		}
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
	meta.flags = flags;
	meta.vlan_tci = p->vlan_tci;
	meta.vlan_proto = p->vlan_proto;

	if (transport == PS_TRANSPORT_RINGBUF)
		err = ps_ring_output(ctx, &meta, p->hook == PS_HOOK_XDP);
	else
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
