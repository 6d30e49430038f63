/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A filter by name that follows the cgroups made and removed while a
 * capture runs (--container NAME, --pod, --k8s-namespace): inotify on
 * every directory of the cgroup v2 tree tells of each new one, which
 * want() judges (by the names its runtime's records give its container);
 * the ids it takes go into the hooks' cgroup map, and leave it when their
 * directory goes. A runtime makes a container's cgroup before the
 * container's first process runs, and writes its records before that: the
 * id is in the map before that process can make a socket, but for a
 * process that races the event's reading (a window of the loop's round).
 */
#ifndef PS_CGFOLLOW_H
#define PS_CGFOLLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "cgroupfs.h"

struct ps_cgfollow;

/* Does the capture want the cgroup at path (relative to the mount,
 * "/a/b")? */
typedef bool (*ps_cgfollow_want_fn)(const char *path, void *arg);

/*
 * Watch the tree at x->root. The cgroups x lists are judged already: those
 * in ids (the map's, as loaded) are wanted, the others not; one made since
 * x was walked is judged now. map_fd is the hooks' cgroup map (dup'ed).
 * 0 or -errno, logged.
 */
int ps_cgfollow_open(const struct ps_cgroup_index *x, const uint64_t *ids, size_t n_ids, int map_fd,
		     ps_cgfollow_want_fn want, void *arg, struct ps_cgfollow **out);
/* Readable when the tree changed. */
int ps_cgfollow_fd(const struct ps_cgfollow *f);
/* The changes that came: 0 or -errno (logged). */
int ps_cgfollow_run(struct ps_cgfollow *f);
void ps_cgfollow_free(struct ps_cgfollow *f);

#endif
