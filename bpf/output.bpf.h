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
 * A ring record is copied whole by the kernel from this CPU's scratch
 * (maps.bpf.h: ring_scratch): bpf_ringbuf_output() takes a length the
 * verifier only knows a bound of, so a record is ps_meta and cap_len bytes
 * exactly, one path for every size. bpf_ringbuf_reserve() would have the
 * packet loaded into the ring directly, but wants a size the verifier
 * knows: records of a size class each, one call per class, and every path
 * after it verified once per class, which multiplies the verifier's work,
 * and so the programs' load time, by the number of classes; and a small
 * frame would take the room of its whole class. The copy costs the sender
 * one memcpy of the bytes more, which its measured cost did not show
 * (doc/performance.md#transport).
 */

/*
 * bpf_xdp_load_bytes() copies at most 0xffff bytes, from an offset of at
 * most 0xffff: a longer packet is loaded in pieces (an XDP packet is thus
 * whole up to 131,070 bytes, further than any XDP frame gets; skbs have
 * no such limit on kernels from 5.12 on).
 */
#define PS_LOAD_MAX 0xffffu
#define PS_RING_PIECES ((int)((PS_SNAPLEN_MAX + PS_LOAD_MAX - 1) / PS_LOAD_MAX))
_Static_assert(PS_RING_PIECES *PS_LOAD_MAX >= PS_SNAPLEN_MAX,
	       "the pieces cover the largest snap length");

/*
 * n bytes (1 or more) to copy, at most max: the length less one, in *m,
 * for the helpers' lengths to be made from as m + 1 where they are called.
 * Older verifiers learn no lower bound from a test against 0, and take
 * 0..max - 1 plus one as 1..max. The clamp is tested again behind a
 * barrier, in the register the length is made from (clang may test a
 * copy). False only where that test fails, which it never does at run
 * time.
 */
static __always_inline bool ps_len_less_one(__u32 n, __u32 max, __u32 *m)
{
	__u32 v = n - 1;

	if (v > max - 1)
		v = max - 1;
	barrier_var(v);
	if (v > max - 1)
		return false;
	*m = v;
	return true;
}

static __always_inline long ps_ring_output(PS_CTX *ctx, struct ps_meta *meta)
{
	__u32 cap = meta->cap_len, cpu = meta->cpu;
	struct ps_ring_scratch *s;
	__u64 prod, len, rec;
	void *ring;
	__u32 m;

	/* A bound the verifier sees, for the copies. */
	if (cap > PS_SNAPLEN_MAX)
		return -1;
	ring = bpf_map_lookup_elem(&rings, &cpu);
	s = bpf_map_lookup_elem(&ring_scratch, &cpu);
	if (!ring || !s)
		return -1; /* no ring for this CPU: counted as an output error */
	s->meta = *meta;
#pragma unroll
	for (int k = 0; k < PS_RING_PIECES; k++) {
		const __u32 off = k * PS_LOAD_MAX;
		const __u32 lim = PS_SNAPLEN_MAX - off < PS_LOAD_MAX ? PS_SNAPLEN_MAX - off :
								       PS_LOAD_MAX;

		if (off >= cap)
			break;
		if (!ps_len_less_one(cap - off, lim, &m))
			return -1;
		if (ps_ctx_load_bytes(ctx, off, s->data + off, m + 1))
			return -1;
	}
	/*
	 * Wake the reader each time the producer passes a multiple of the
	 * mark (a power of two), as a perf buffer's watermark does: once per
	 * batch, never per record, and whatever the reader still holds. A
	 * mark on the waiting data instead (wake as they cross it) missed
	 * wakeups: the reader keeps what it has read until it is written,
	 * and what came meanwhile could leave the data above the mark when
	 * the round gave its space back, so nothing crossed it again and the
	 * buffer filled while the reader slept (doc/performance.md#wakeups,
	 * bench/bulk.sh). An output between the query and this one can hide
	 * a crossing (a tracepoint's program, preempted; another CPU's,
	 * where a ring serves a group), and the next crossing wakes the
	 * reader then, or its own timer: a sixteenth of the ring late, not
	 * lost. The record takes its 8-byte header and is rounded up to 8
	 * bytes.
	 */
	prod = bpf_ringbuf_query(ring, BPF_RB_PROD_POS);
	/* The length bounded again where it is used: clang may test one
	 * copy of cap above and spill another for here, whose bound older
	 * verifiers do not carry. */
	if (!ps_len_less_one(sizeof(*meta) + cap, sizeof(*meta) + PS_SNAPLEN_MAX, &m))
		return -1;
	len = m + 1;
	rec = (len + 8 + 7) & ~7ull;
	return bpf_ringbuf_output(ring, s, len,
				  ((prod + rec) ^ prod) >= ring_wakeup_bytes ? BPF_RB_FORCE_WAKEUP :
									       BPF_RB_NO_WAKEUP);
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
	struct ps_scratch *c = bpf_map_lookup_elem(&scratch, &zero);

	if (!c)
		return -1;
	c->meta = *meta;
	c->meta.flags |= PS_F_CONT;
	for (__u32 i = 0; i < PS_PERF_CONTS_MAX; i++) {
		__u32 off = PS_PERF_CHUNK + i * PS_PERF_CONT;
		__u32 m;

		if (off >= cap)
			break;
		if (!ps_len_less_one(cap - off, PS_PERF_CONT, &m))
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
	struct ps_scratch *c;

	if (transport == PS_TRANSPORT_RINGBUF)
		return ps_ring_output(ctx, meta);
	c = bpf_map_lookup_elem(&scratch, &zero);
	if (!c)
		return -1;
	c->meta = *meta;
	if (!cap)
		return ps_ctx_perf_output(ctx, &events, BPF_F_CURRENT_CPU, c, sizeof(c->meta));
	if (!ps_len_less_one(cap, PS_PERF_CONT, &m))
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
