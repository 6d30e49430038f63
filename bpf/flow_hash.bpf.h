/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* The flow hash of --sample-flows (symmetric, VLAN-aware, the same at XDP
 * and TC), and a packet's fingerprint (--packet-id path). */
#ifndef PS_FLOW_HASH_BPF_H
#define PS_FLOW_HASH_BPF_H

#ifndef PS_CTX
#error "include a ctx_*.bpf.h first"
#endif

#include <stdbool.h>
#include "maps.bpf.h"

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
static __always_inline __u32 ps_flow_hash(PS_CTX *ctx, const struct ps_meta *m)
{
	__u8 b[PS_FLOW_HDR + 4];
	__u64 n = m->wire_len; /* 64-bit: the verifier tracks bounds across its copies */
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
	err = ps_ctx_load_bytes(ctx, 0, b, n);
	if (err)
		return ps_fmix(flow_seed);

	if (m->flags & PS_F_VLAN_OOB) { /* the outer tag, at TC */
		vid = m->vlan_tci & 0xfff;
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
		ea = PS_GET32(b, l3 + 8) ^ PS_GET32(b, l3 + 12) ^ PS_GET32(b, l3 + 16) ^
		     PS_GET32(b, l3 + 20);
		eb = PS_GET32(b, l3 + 24) ^ PS_GET32(b, l3 + 28) ^ PS_GET32(b, l3 + 32) ^
		     PS_GET32(b, l3 + 36);
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
	if (l4 && l4 + 4 <= n && (ipproto == 6 || ipproto == 17 || ipproto == 132)) {
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

/* ps_packet_print's l3: the bytes start with an Ethernet header. */
#define PS_PRINT_ETHER 0xffffffffu
/* The bytes it copies, at most: an Ethernet, IPv6 and UDP header's worth,
 * within the linear part of most packets the drop hook sees. */
#define PS_PRINT_HDR 64

/*
 * A packet's fingerprint (bpf/path.bpf.h): what a router, a bridge and a
 * veth leave as it was. From the IP header on: the addresses, the
 * protocol, the length, IPv4's id and fragment offset or IPv6's flow
 * label, and the 8 bytes past the fixed header where the copy has them
 * (ports and TCP's sequence, UDP's length and checksum, ICMP's id and
 * sequence); not the TTL or hop limit, not the header checksum, not the
 * link-layer header. A frame that is not IP: its EtherType and 32 bytes
 * past it. l3: where the IP header starts, or PS_PRINT_ETHER. b: room for
 * PS_FLOW_HDR bytes, read as ps_flow_hash reads its copy (not on the
 * stack: bpf/path.bpf.h).
 */
static __always_inline __u32 ps_packet_print(PS_CTX *ctx, const struct ps_meta *m, __u32 l3,
					     __u8 *b)
{
	__u64 n = m->wire_len; /* 64-bit, as in ps_flow_hash */
	__u32 proto, l4 = 0, h = 0x9e3779b9;

	__builtin_memset(b, 0, PS_FLOW_HDR);
	if (n > PS_PRINT_HDR)
		n = PS_PRINT_HDR;
	if (n < 14)
		return 0;
	barrier_var(n);
	n = ((n - 1) & (PS_PRINT_HDR - 1)) + 1;
	if (ps_ctx_load_bytes(ctx, 0, b, n))
		return 0;
	if (l3 == PS_PRINT_ETHER) {
		l3 = 14;
		proto = PS_GET16(b, 12);
#pragma unroll
		for (int i = 0; i < 2; i++) {
			if (proto != 0x8100 && proto != 0x88a8)
				break;
			proto = PS_GET16(b, l3 + 2);
			l3 += 4;
		}
	} else {
		proto = PS_B(b, l3) >> 4 == 6 ? 0x86dd : 0x0800;
	}
	if (proto == 0x0800) {
		h = ps_mix(ps_mix(h, PS_GET32(b, l3 + 12)), PS_GET32(b, l3 + 16));
		h = ps_mix(h, PS_GET16(b, l3 + 2) << 16 | PS_B(b, l3 + 9));
		h = ps_mix(h, PS_GET16(b, l3 + 4) << 16 | (PS_GET16(b, l3 + 6) & 0x3fff));
		if (!(PS_GET16(b, l3 + 6) & 0x1fff)) /* the first fragment, or none */
			l4 = l3 + (PS_B(b, l3) & 0xf) * 4;
	} else if (proto == 0x86dd) {
#pragma unroll
		for (int i = 8; i < 40; i += 4)
			h = ps_mix(h, PS_GET32(b, l3 + i));
		h = ps_mix(h, PS_GET32(b, l3) & 0xfffff);
		h = ps_mix(h, PS_GET16(b, l3 + 4) << 8 | PS_B(b, l3 + 6));
		l4 = l3 + 40;
	} else {
		h = ps_mix(h, proto);
		l4 = l3; /* its first 8 bytes, below */
#pragma unroll
		for (int i = 8; i < 32; i += 4)
			h = ps_mix(h, PS_GET32(b, l3 + i));
	}
	if (l4 && l4 + 8 <= n) {
		h = ps_mix(h, PS_GET32(b, l4));
		h = ps_mix(h, PS_GET32(b, l4 + 4));
	}
	return ps_fmix(h);
}

#endif /* PS_FLOW_HASH_BPF_H */
