// SPDX-License-Identifier: GPL-2.0-only
/*
 * The owner of every socket made while pktsample runs (cgroup/sock_create,
 * on the cgroup v2 root, so every process's): the hooks find a packet's
 * socket cookie, and here who made the socket. It runs in the creating
 * task, so that task is the owner. It returns 1: the socket is made as
 * if pktsample were not there.
 */
#include <linux/bpf.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include "maps.bpf.h"
#include "pktsample.h"

/* The fields used, relocated against the running kernel's BTF (CO-RE). */
struct ns_common___ps {
	unsigned int inum;
} __attribute__((preserve_access_index));
struct net___ps {
	struct ns_common___ps ns;
} __attribute__((preserve_access_index));
struct nsproxy___ps {
	struct net___ps *net_ns;
} __attribute__((preserve_access_index));
struct task_struct___ps {
	struct nsproxy___ps *nsproxy;
} __attribute__((preserve_access_index));

SEC(PS_SEC_SOCK_CREATE)
int pktsample_sock_create(struct bpf_sock *sk)
{
	struct task_struct___ps *task = (void *)bpf_get_current_task();
	__u64 id = bpf_get_current_pid_tgid();
	__u64 cookie = bpf_get_socket_cookie(sk);
	struct ps_owner o = {
		.pid = id >> 32,
		.tid = (__u32)id,
		.cgroup_id = bpf_get_current_cgroup_id(),
		.netns_ino = BPF_CORE_READ(task, nsproxy, net_ns, ns.inum),
	};

	bpf_get_current_comm(o.comm, sizeof(o.comm));
	bpf_map_update_elem(&owners, &cookie, &o, BPF_ANY);
	return 1;
}

char LICENSE[] SEC("license") = "GPL";
