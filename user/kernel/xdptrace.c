// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>
#include "linkwatch.h"
#include "xdptrace.h"

/* The main function of prog fd: its BTF type id and name. */
static int main_func(int fd, struct ps_xdp_target *t)
{
	struct bpf_prog_info info = { 0 };
	struct bpf_func_info fi = { 0 };
	__u32 len = sizeof(info);
	const struct btf_type *type;
	struct btf *btf;
	int err = 0;

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	if (!info.btf_id || !info.nr_func_info)
		return -ENOENT;
	memset(&info, 0, sizeof(info));
	info.nr_func_info = 1;
	info.func_info_rec_size = sizeof(fi);
	info.func_info = (__u64)(unsigned long)&fi;
	len = sizeof(info);
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	btf = btf__load_from_kernel_by_id(info.btf_id);
	if (!btf)
		return -errno;
	type = btf__type_by_id(btf, fi.type_id);
	if (!type)
		err = -ENOENT;
	else
		snprintf(t->func, sizeof(t->func), "%s", btf__name_by_offset(btf, type->name_off));
	t->func_btf_id = fi.type_id;
	btf__free(btf);
	return err;
}

/*
 * Under libxdp's dispatcher the program to trace is the first in its
 * chain: the dispatcher itself takes no trampoline while extensions
 * (freplace) hang off it (EBUSY), and the first program sees every packet
 * the chain is given. t then names that program, "NAME in xdp_dispatcher".
 */
static void first_dispatched(int ifindex, struct ps_xdp_target *t)
{
	struct xdp_multiprog *mp = xdp_multiprog__get_from_ifindex(ifindex);
	struct xdp_program *main, *first;
	char dispatcher[sizeof(t->name)];
	int fd;

	if (!mp || libxdp_get_error(mp))
		return;
	main = xdp_multiprog__main_prog(mp);
	first = xdp_multiprog__next_prog(NULL, mp);
	if (!xdp_multiprog__is_legacy(mp) && main && first && xdp_program__id(main) == t->id &&
	    (fd = bpf_prog_get_fd_by_id(xdp_program__id(first))) >= 0) {
		close(t->fd);
		t->fd = fd;
		t->id = xdp_program__id(first);
		snprintf(dispatcher, sizeof(dispatcher), "%s", t->name);
		snprintf(t->name, sizeof(t->name), "%.40s in %.40s", xdp_program__name(first),
			 dispatcher);
	}
	xdp_multiprog__close(mp);
}

int ps_xdp_target_find(int ifindex, struct ps_xdp_target *t)
{
	struct bpf_prog_info info = { 0 };
	__u32 len = sizeof(info);
	int err;

	memset(t, 0, sizeof(*t));
	t->fd = -1;
	err = ps_link_xdp_prog_id(ifindex, &t->id);
	if (err)
		return err;
	if (!t->id)
		return -ENOENT;
	t->fd = bpf_prog_get_fd_by_id(t->id);
	if (t->fd < 0) {
		err = -errno;
		snprintf(t->name, sizeof(t->name), "?");
		return err;
	}
	if (!bpf_obj_get_info_by_fd(t->fd, &info, &len))
		snprintf(t->name, sizeof(t->name), "%s", info.name);
	first_dispatched(ifindex, t);
	if (main_func(t->fd, t))
		t->func[0] = '\0'; /* no BTF: cannot be traced (probe says so) */
	return 0;
}

int ps_xdp_target_probe(const struct ps_xdp_target *t, char *why, size_t len)
{
	const struct bpf_insn ret0[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = BPF_TRACE_FENTRY,
		    .attach_btf_id = t->func_btf_id, .attach_prog_fd = t->fd);
	int fd, link, err;

	if (t->fd < 0) {
		snprintf(why, len, "it cannot be opened");
		return -EBADF;
	}
	if (!*t->func) {
		snprintf(why, len, "it was loaded without BTF, which fentry needs");
		return -ENOENT;
	}
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "pktsample_probe", "GPL", ret0, 2, &o);
	if (fd < 0) {
		err = -errno;
		snprintf(why, len, "the kernel refuses fentry on it (%s)", strerror(-err));
		return err;
	}
	link = bpf_link_create(fd, 0, BPF_TRACE_FENTRY, NULL);
	err = link < 0 ? -errno : 0;
	if (err)
		snprintf(why, len, "the kernel refuses to attach fentry to it (%s)",
			 strerror(-err));
	else
		close(link);
	close(fd);
	return err;
}

void ps_xdp_target_close(struct ps_xdp_target *t)
{
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
}
