/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The room the capture's memory cgroup leaves it: what a BPF ring's
 * pages may take. From Linux 5.11 the kernel charges a ring's pages to
 * the memory cgroup of the process that makes it (a perf buffer's pages
 * are charged to no cgroup), so rings that do not fit the cgroup's limit
 * less its usage, or any ancestor's, cannot be made.
 */
#ifndef PS_MEMCG_H
#define PS_MEMCG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ps_memcg {
	bool v1;	/* the memory controller's hierarchy is cgroup v1's */
	bool limited;	/* the cgroup or one above it has a limit */
	uint64_t limit; /* the limit of the cgroup with the least room */
	uint64_t room;	/* that limit less that cgroup's usage; UINT64_MAX */
	char path[256]; /* that cgroup, as /proc/self/cgroup names it */
};

/*
 * The memory controller's cgroup of this process from /proc/self/cgroup's
 * text: a v1 line whose controllers include "memory", else the v2 line
 * ("0::PATH"). 0, or -ENOENT. Pure.
 */
int ps_memcg_path(const char *proc_cgroup, char *path, size_t len, bool *v1);

/*
 * The room of cgroup path (absolute under mount, the hierarchy's mount
 * point) and of each cgroup above it, v1's files or v2's, into *m: the
 * least. A cgroup without the files (v2's root) limits nothing. 0, or
 * -ENOENT if path is not there.
 */
int ps_memcg_read_at(const char *mount, const char *path, bool v1, struct ps_memcg *m);

/*
 * This process's room. Where its mount namespace has no mount of the
 * memory controller (ip netns exec's fresh /sys), one is made for the
 * read in a mount namespace of its own, and unmade: only while the
 * process is single-threaded. 0, or -errno (no memory controller).
 */
int ps_memcg_read(struct ps_memcg *m);

#endif
