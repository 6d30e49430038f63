/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Reading a packet the verifier knows no pointers into (fentry/fexit's
 * xdp_buff, the drop hook's skb): its linear part, from data to data_end,
 * plain kernel addresses, through bpf_probe_read_kernel() and never past
 * the end. For the context headers that need it.
 */
#ifndef PS_LINEAR_BPF_H
#define PS_LINEAR_BPF_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

static __always_inline long ps_linear_load(void *data, void *data_end, __u32 off, void *to,
					   __u32 len)
{
	__u64 linear = (__u64)data_end - (__u64)data;

	if ((__u64)off + len > linear)
		return -14; /* -EFAULT, as the packet helpers past the end */
	return bpf_probe_read_kernel(to, len, data + off);
}

#endif /* PS_LINEAR_BPF_H */
