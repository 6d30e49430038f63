/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* The capture filter's placeholders, replaced at load time. */
#ifndef PS_FILTER_BPF_H
#define PS_FILTER_BPF_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

/*
 * User space replaces this body with the eBPF translation of the user's
 * expression at load time (user/filter/splice.c); the result is what the cBPF
 * program returns: 0 = no match, else the number of bytes to keep.
 * __noinline keeps it a separate function to replace (each program gets its
 * own copy: static, one per entry file); the asm uses every argument, so
 * clang passes them all, and hides the result, so clang cannot assume what
 * it returns. The length is 64 bits wide so that its high half is known
 * (0 here: see pktsample_filter_raw()).
 */
static __noinline __u32 pktsample_filter(void *ctx, void *data, void *data_end, __u64 wire_len,
					 __u64 vlan)
{
	__u32 keep = 0; /* never spliced: fail closed, capture nothing */

	asm volatile(""
		     : "+r"(keep)
		     : "r"(ctx), "r"(data), "r"(data_end), "r"(wire_len), "r"(vlan));
	return keep;
}

/* The same for devices without a link-layer header: the expression
 * compiled for LINKTYPE_RAW (packets start at the IP header). data is
 * the IP header; len_off is the packet's length from there, with the IP
 * header's offset in the hook's bytes above it (<< 32), for the loads
 * that go through the helper (ps_meta.net_off). */
static __noinline __u32 pktsample_filter_raw(void *ctx, void *data, void *data_end, __u64 len_off,
					     __u64 vlan)
{
	__u32 keep = 0;

	asm volatile("" : "+r"(keep) : "r"(ctx), "r"(data), "r"(data_end), "r"(len_off), "r"(vlan));
	return keep;
}

#endif /* PS_FILTER_BPF_H */
