/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The cgroup v2 tree: where it is mounted, and an index of its cgroups by
 * id (a cgroup's id is its directory's inode number), read by walking it.
 * The context turns a socket's cgroup id into a path and a container with
 * it; --cgroup and --container turn a path or a name into the ids the
 * hooks match.
 */
#ifndef PS_CGROUPFS_H
#define PS_CGROUPFS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ps_cgroup_entry {
	uint64_t id;
	char *path; /* relative to the mount: "/" for the root, "/a/b" */
};

struct ps_cgroup_index {
	char root[PATH_MAX]; /* the mount point; "" if there is none */
	struct ps_cgroup_entry *e;
	size_t n, cap;
	uint64_t built_ns; /* CLOCK_MONOTONIC of the last walk */
};

/* Find the cgroup v2 mount and walk it. Where there is none (under ip netns
 * exec, say) it is mounted in a mount namespace of this process's own, if
 * the process is still single-threaded. 0, or -ENOENT (no cgroup v2) or
 * -errno. */
int ps_cgroup_index_open(struct ps_cgroup_index *x);
void ps_cgroup_index_free(struct ps_cgroup_index *x);
/* The path of cgroup id, walking the tree again (at most once a second)
 * for an id made since, else opening the cgroup by its id (with
 * CAP_DAC_READ_SEARCH); NULL if there is none. */
const char *ps_cgroup_index_path(struct ps_cgroup_index *x, uint64_t id);
/* The path of cgroup id as the last walk (or open by id) found it, with
 * no walk and no open; NULL if the index does not have it. Pure. */
const char *ps_cgroup_index_find(const struct ps_cgroup_index *x, uint64_t id);
/* The ids the tree had at its last walk, sorted, into a malloc'd *ids.
 * 0 or -ENOMEM. */
int ps_cgroup_index_ids(const struct ps_cgroup_index *x, uint64_t **ids, size_t *n);
/* The ids of path (absolute, or relative to the mount) and every cgroup
 * below it, into a malloc'd *ids. 0, or -ENOENT (no such cgroup). */
int ps_cgroup_index_under(const struct ps_cgroup_index *x, const char *path, uint64_t **ids,
			  size_t *n);
struct ps_container;
/* The ids of every cgroup whose container (container.h) pick(arg) takes,
 * and of those below them. 0, or -ENOENT (none). */
int ps_cgroup_index_pick(const struct ps_cgroup_index *x,
			 bool (*pick)(const struct ps_container *c, void *arg), void *arg,
			 uint64_t **ids, size_t *n);

#endif
