/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Context access for a packet the verifier knows no pointers into
 * (fentry/fexit's xdp_buff, the drop hook's skb): its linear part, from
 * ctx->data to ctx->data_end, plain kernel addresses, read through
 * bpf_probe_read_kernel() and never past the end. A context header whose
 * PS_CTX has those two fields includes this once it has defined PS_CTX,
 * for its ps_ctx_data(), ps_ctx_data_end() and ps_ctx_load_bytes().
 */
#ifndef PS_LINEAR_BPF_H
#define PS_LINEAR_BPF_H

#ifndef PS_CTX
#error "define PS_CTX first"
#endif

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

static __always_inline void *ps_ctx_data(const PS_CTX *ctx)
{
	return ctx->data;
}

static __always_inline void *ps_ctx_data_end(const PS_CTX *ctx)
{
	return ctx->data_end;
}

static __always_inline long ps_ctx_load_bytes(PS_CTX *ctx, __u32 off, void *to, __u32 len)
{
	return ps_linear_load(ctx->data, ctx->data_end, off, to, len);
}

#endif /* PS_LINEAR_BPF_H */
