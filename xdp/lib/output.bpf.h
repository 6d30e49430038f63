/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * How a chosen packet leaves the kernel: the perf buffer, the kernel
 * appending the packet bytes (the default), or the BPF ring buffer
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

static __always_inline long ps_ring_class(PS_CTX *ctx, struct ps_meta *meta, const __u32 room)
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
		err = ps_ctx_load_bytes(ctx, 0, r->data, n);
	}
	if (err) {
		bpf_ringbuf_discard(r, BPF_RB_NO_WAKEUP);
		return err;
	}
	/*
	 * Wake the reader only once a batch is waiting, never per record:
	 * below the mark it finds the data on its idle drain.
	 */
	bpf_ringbuf_submit(r, bpf_ringbuf_query(&ring, BPF_RB_AVAIL_DATA) >= ring_wakeup_bytes ?
				      BPF_RB_FORCE_WAKEUP :
				      BPF_RB_NO_WAKEUP);
	return 0;
}

static __always_inline long ps_ring_output(PS_CTX *ctx, struct ps_meta *meta)
{
	__u32 cap = meta->cap_len;

	/* Unrolled, so each call reserves a constant size. */
#pragma unroll
	for (int k = 0; k < PS_RING_CLASSES - 1; k++)
		if (cap <= PS_RING_CLASS_MIN << k)
			return ps_ring_class(ctx, meta, PS_RING_CLASS_MIN << k);
	return ps_ring_class(ctx, meta, PS_RING_CLASS_MIN << (PS_RING_CLASSES - 1));
}

/*
 * Emit metadata + meta->cap_len packet bytes; 0, or an error when the
 * buffer is full. Through the perf buffer the kernel copies the packet bytes
 * itself (BPF_F_CTXLEN_MASK), frags and non-linear data included, so
 * nothing passes through the stack.
 */
static __always_inline long ps_output(PS_CTX *ctx, struct ps_meta *meta)
{
	if (transport == PS_TRANSPORT_RINGBUF)
		return ps_ring_output(ctx, meta);
	return ps_ctx_perf_output(ctx, &events, BPF_F_CURRENT_CPU | ((__u64)meta->cap_len << 32),
				  meta, sizeof(*meta));
}

#endif /* PS_OUTPUT_BPF_H */
