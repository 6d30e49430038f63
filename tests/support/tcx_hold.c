// SPDX-License-Identifier: GPL-2.0-only
/*
 * Test only: attach an object's first program to a tcx hook as a foreign
 * tool would (bpftool 7.1 and tc cannot) and hold the link until killed.
 *   tcx_hold OBJ IFNAME ingress|egress
 * Prints "attached" once it is. Exit 1 on failure, 3 if the kernel has no
 * tcx (before 6.6). And what is on such a hook, first to last, one program
 * name a line (bpftool 7.1 does not show tcx):
 *   tcx_hold --list IFNAME ingress|egress
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#define TCX_INGRESS 46 /* BPF_TCX_INGRESS, newer than these headers */
#define TCX_EGRESS 47

static int list(unsigned int ifindex, int type)
{
	__u32 ids[64], count = 64;

	if (bpf_prog_query((int)ifindex, type, 0, NULL, ids, &count)) {
		fprintf(stderr, "tcx_hold: cannot query: %s\n", strerror(errno));
		return 1;
	}
	for (__u32 i = 0; i < count; i++) {
		struct bpf_prog_info info = { 0 };
		__u32 len = sizeof(info);
		int fd = bpf_prog_get_fd_by_id(ids[i]);

		if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
			return 1;
		printf("%s\n", info.name);
		close(fd);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct bpf_object *obj;
	struct bpf_program *prog;
	unsigned int ifindex;
	int fd;

	if (argc != 4 || !(ifindex = if_nametoindex(argv[2]))) {
		fprintf(stderr, "usage: tcx_hold OBJ IFNAME ingress|egress\n");
		return 1;
	}
	if (!strcmp(argv[1], "--list"))
		return list(ifindex, strcmp(argv[3], "ingress") ? TCX_EGRESS : TCX_INGRESS);
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj || bpf_object__load(obj)) {
		fprintf(stderr, "tcx_hold: cannot load %s\n", argv[1]);
		return 1;
	}
	prog = bpf_object__next_program(obj, NULL);
	fd = bpf_link_create(bpf_program__fd(prog), (int)ifindex,
			     strcmp(argv[3], "ingress") ? TCX_EGRESS : TCX_INGRESS, NULL);
	if (fd < 0) {
		fprintf(stderr, "tcx_hold: cannot attach: %s\n", strerror(errno));
		return errno == EINVAL ? 3 : 1;
	}
	printf("attached\n");
	fflush(stdout);
	pause();
	return 0;
}
