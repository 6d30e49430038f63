/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * How a chosen packet leaves the kernel: the perf buffer, the kernel
 * appending the packet bytes (the default), or this CPU's BPF ring buffer
 * (--transport ringbuf).
 */
#ifndef PS_OUTPUT_BPF_H
#define PS_OUTPUT_BPF_H

#ifndef PS_CTX
#error "include a ctx_*.bpf.h first"
#endif

#include <stdbool.h>
#include "maps.bpf.h"

/*
 * bpf_ringbuf_reserve() wants a size the verifier knows, so a record is
 * reserved in a size class: ps_meta plus a class's packet bytes, the
 * smallest class that holds cap_len. The classes go from 128 bytes to the
 * largest snap length in two steps per power of two, j << s for j in 2..3
 * (128, 192, 256, 384, ...), so a record wastes less than a third of its
 * room, and a 1514-byte frame takes 1,536 bytes, not 2,048: a 4 MiB ring
 * holds 2,557 such records, not 1,949. Each class is a call the verifier
 * checks, on every path that reaches it: eight steps per power of two
 * (1,536 bytes for a 1514-byte frame too, 9,216 for 9018 where two steps
 * give 12,288) took the programs with sFlow and a filter past 6.1's
 * million instructions (tests/vm/systemd.sh's reload); with two they load
 * there with a five-term filter (doc/performance.md). The reader trusts
 * meta.cap_len, not the record size.
 */
#define PS_RING_STEPS 2u      /* classes per power of two */
#define PS_RING_SHIFT_MIN 6u  /* 2 << 6 = 128 bytes */
#define PS_RING_SHIFT_END 17u /* up to 3 << 16 = 196,608; then the last */
#define PS_RING_CLASS_MAX (PS_RING_STEPS << PS_RING_SHIFT_END) /* 256 KiB */
_Static_assert(PS_RING_CLASS_MAX >= PS_SNAPLEN_MAX,
	       "the largest ring class holds the largest snap length");

struct ps_ring_rec {
	struct ps_meta meta;
	__u8 data[];
};

/*
 * bpf_xdp_load_bytes() copies at most 0xffff bytes, from an offset of at
 * most 0xffff: a class past that is loaded in pieces (an XDP packet is
 * thus whole up to 131,070 bytes, further than any XDP frame gets; skbs
 * have no such limit on kernels from 5.12 on).
 */
#define PS_LOAD_MAX 0xffffu
#define PS_RING_PIECES 5 /* of PS_LOAD_MAX: the largest class */
_Static_assert(PS_RING_PIECES *PS_LOAD_MAX >= PS_RING_CLASS_MAX,
	       "the pieces cover the largest ring class");

/*
 * One class's reservation and copy. Not inlined: its one body serves every
 * class, each call verified with its own constant room (a static
 * function's arguments keep their values for the verifier).
 */
static __noinline long ps_ring_class(PS_CTX *ctx, struct ps_meta *meta, const __u32 room)
{
	struct ps_ring_rec *r;
	__u32 cap = meta->cap_len, cpu = meta->cpu;
	void *ring = bpf_map_lookup_elem(&rings, &cpu);
	__u64 prod, len;
	long err = 0;

	if (!ring)
		return -1; /* no ring for this CPU: counted as an output error */
	r = bpf_ringbuf_reserve(ring, sizeof(*meta) + room, 0);
	if (!r)
		return -1; /* full: counted as an output error */
	r->meta = *meta;
#pragma unroll
	for (int k = 0; k < PS_RING_PIECES; k++) {
		const __u32 off = k * PS_LOAD_MAX;
		const __u32 lim = room - off < PS_LOAD_MAX ? room - off : PS_LOAD_MAX;
		__u64 m;

		if (off >= room || off >= cap)
			break;
		/* The length less one, checked where the helper's length is
		 * made from it: 1..lim. (Older verifiers learn no lower bound
		 * from a test against 0.) */
		m = cap - off - 1;
		if (m > lim - 1)
			m = lim - 1;
		barrier_var(m);
		if (m > lim - 1) {
			err = -1;
			break;
		}
		err = ps_ctx_load_bytes(ctx, off, r->data + off, m + 1);
		if (err)
			break;
	}
	if (err) {
		bpf_ringbuf_discard(r, BPF_RB_NO_WAKEUP);
		return err;
	}
	/*
	 * Wake the reader each time the producer passes a multiple of the
	 * mark (a power of two), as a perf buffer's watermark does: once per
	 * batch, never per record, and whatever the reader still holds. A
	 * mark on the waiting data instead (wake as they cross it) missed
	 * wakeups: the reader keeps what it has read until it is written,
	 * and what came meanwhile could leave the data above the mark when
	 * the round gave its space back, so nothing crossed it again and the
	 * buffer filled while the reader slept (bench/bulk.sh). The ring is
	 * this CPU's; a program that ran between our reservation and the
	 * query (a tracepoint's, preempted) can hide a crossing, and the next
	 * one wakes the reader then.
	 */
	prod = bpf_ringbuf_query(ring, BPF_RB_PROD_POS);
	len = sizeof(*meta) + room + 8; /* and the record's header */
	bpf_ringbuf_submit(r, ((prod - len) ^ prod) >= ring_wakeup_bytes ? BPF_RB_FORCE_WAKEUP :
									   BPF_RB_NO_WAKEUP);
	return 0;
}

static __always_inline long ps_ring_output(PS_CTX *ctx, struct ps_meta *meta)
{
	__u32 cap = meta->cap_len;

	/* Unrolled, so each call reserves a constant size: the power of two
	 * first, then the step within it, at most 12 tests a packet. */
#pragma unroll
	for (__u32 s = PS_RING_SHIFT_MIN; s < PS_RING_SHIFT_END; s++) {
		if (cap > (2 * PS_RING_STEPS - 1) << s)
			continue;
#pragma unroll
		for (__u32 j = PS_RING_STEPS; j < 2 * PS_RING_STEPS - 1; j++)
			if (cap <= j << s)
				return ps_ring_class(ctx, meta, j << s);
		return ps_ring_class(ctx, meta, (2 * PS_RING_STEPS - 1) << s);
	}
	return ps_ring_class(ctx, meta, PS_RING_CLASS_MAX);
}

/*
 * The bytes of a packet longer than one perf record holds, after the
 * first PS_PERF_CHUNK: continuations of at most PS_PERF_CONT bytes each,
 * copied into the per-CPU scratch record (include/pktsample.h). 0, or an
 * error when the buffer is full: the reader then drops the whole packet,
 * which counts as lost here.
 */
static __always_inline long ps_perf_rest(PS_CTX *ctx, const struct ps_meta *meta)
{
	__u32 zero = 0, cap = meta->cap_len;
	struct ps_perf_cont *c = bpf_map_lookup_elem(&perf_cont, &zero);

	if (!c)
		return -1;
	c->meta = *meta;
	c->meta.flags |= PS_F_CONT;
	for (__u32 i = 0; i < PS_PERF_CONTS_MAX; i++) {
		__u32 off = PS_PERF_CHUNK + i * PS_PERF_CONT;
		__u32 m;

		if (off >= cap)
			break;
		/* The length less one, 0..PS_PERF_CONT - 1, checked where the
		 * helpers' lengths are made from it (older verifiers learn no
		 * lower bound from a test against 0). */
		m = cap - off - 1;
		if (m > PS_PERF_CONT - 1)
			m = PS_PERF_CONT - 1;
		barrier_var(m);
		if (m > PS_PERF_CONT - 1)
			return -1;
		c->meta.chunk_off = off;
		if (ps_ctx_load_bytes(ctx, off, c->data, m + 1))
			return -1;
		if (ps_ctx_perf_output(ctx, &events, BPF_F_CURRENT_CPU, c, sizeof(c->meta) + m + 1))
			return -1;
	}
	return 0;
}

/*
 * Emit metadata + meta->cap_len packet bytes; 0, or an error when the
 * buffer is full. Through the perf buffer the kernel copies the packet bytes
 * itself (BPF_F_CTXLEN_MASK), frags and non-linear data included, so
 * nothing passes through the stack; a packet longer than one record holds
 * goes on in continuations.
 */
#ifdef PS_CTX_COPY_OUT
/*
 * A hook whose perf output cannot have the kernel append the packet (a
 * raw tracepoint): its bytes are copied into the per-CPU scratch record and
 * leave in one record with the metadata. ps_capture() keeps cap_len within
 * the record (PS_PERF_CONT).
 */
static __always_inline long ps_output(PS_CTX *ctx, struct ps_meta *meta)
{
	__u32 zero = 0, cap = meta->cap_len, m;
	struct ps_perf_cont *c;

	if (transport == PS_TRANSPORT_RINGBUF)
		return ps_ring_output(ctx, meta);
	c = bpf_map_lookup_elem(&perf_cont, &zero);
	if (!c)
		return -1;
	c->meta = *meta;
	if (!cap)
		return ps_ctx_perf_output(ctx, &events, BPF_F_CURRENT_CPU, c, sizeof(c->meta));
	/* The length less one, checked where the helpers' lengths are made
	 * from it (older verifiers learn no lower bound from n < 1). */
	m = cap - 1;
	if (m > PS_PERF_CONT - 1)
		m = PS_PERF_CONT - 1;
	barrier_var(m);
	if (m > PS_PERF_CONT - 1)
		return -1;
	if (ps_ctx_load_bytes(ctx, 0, c->data, m + 1))
		return -1;
	return ps_ctx_perf_output(ctx, &events, BPF_F_CURRENT_CPU, c, sizeof(c->meta) + m + 1);
}
#else
static __always_inline long ps_output(PS_CTX *ctx, struct ps_meta *meta)
{
	__u32 head = meta->cap_len < PS_PERF_CHUNK ? meta->cap_len : PS_PERF_CHUNK;
	long err;

	if (transport == PS_TRANSPORT_RINGBUF)
		return ps_ring_output(ctx, meta);
	err = ps_ctx_perf_output(ctx, &events, BPF_F_CURRENT_CPU | ((__u64)head << 32), meta,
				 sizeof(*meta));
	if (err || meta->cap_len <= PS_PERF_CHUNK)
		return err;
	return ps_perf_rest(ctx, meta);
}
#endif /* PS_CTX_COPY_OUT */

#endif /* PS_OUTPUT_BPF_H */
