// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel's BTF cut (user/kernel/corebtf.h) from arbitrary bytes: never
 * past them, never looping, and what it returns a BTF libbpf takes back.
 */
#include <stdlib.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "corebtf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const paths[] = { "sock_common.skc_cookie", "sock_common.skc_listener",
					     "task_struct.nsproxy", "nsproxy.net_ns",
					     "net.ns.inum" };
	struct btf *cut = ps_corebtf_cut(data, size, paths, 5);
	const void *raw;
	struct btf *again;
	__u32 n;

	if (!cut)
		return 0;
	raw = btf__raw_data(cut, &n);
	again = raw ? btf__new(raw, n) : NULL;
	if (libbpf_get_error(again) || !again)
		abort();
	btf__free(again);
	btf__free(cut);
	return 0;
}
