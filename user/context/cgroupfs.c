// SPDX-License-Identifier: GPL-2.0-only
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include "cgroupfs.h"
#include "container.h"

/* include/linux/exportfs.h: a kernfs node by its 64-bit id. */
#ifndef FILEID_KERNFS
#define FILEID_KERNFS 0xfe
#endif

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The first cgroup2 mount in /proc/self/mountinfo (field 5 the mount
 * point, the file system type after " - "). */
static int find_mount(char *buf, size_t len)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096];
	int err = -ENOENT;

	if (!f)
		return -errno;
	while (err && fgets(line, sizeof(line), f)) {
		char mnt[PATH_MAX], *sep = strstr(line, " - ");

		if (!sep || strncmp(sep + 3, "cgroup2 ", 8))
			continue;
		if (sscanf(line, "%*s %*s %*s %*s %4095s", mnt) == 1 && strlen(mnt) < len) {
			snprintf(buf, len, "%s", mnt);
			err = 0;
		}
	}
	fclose(f);
	return err;
}

static int append(struct ps_cgroup_index *x, uint64_t id, const char *rel)
{
	if (x->n == x->cap) {
		size_t cap = x->cap ? x->cap * 2 : 256;
		struct ps_cgroup_entry *e = realloc(x->e, cap * sizeof(*e));

		if (!e)
			return -ENOMEM;
		x->e = e;
		x->cap = cap;
	}
	x->e[x->n].id = id;
	x->e[x->n].path = strdup(*rel ? rel : "/");
	if (!x->e[x->n].path)
		return -ENOMEM;
	x->n++;
	return 0;
}

/*
 * The cgroups below path (len bytes of a PATH_MAX buffer), each by the
 * id that is its directory's inode number, which readdir gives (d_ino,
 * d_type): no stat of each of the files every cgroup holds. A cgroup
 * removed meanwhile is skipped, not an error.
 */
static int walk_below(struct ps_cgroup_index *x, char *path, size_t len)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int err = 0;

	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while (!err && (e = readdir(d))) {
		size_t n = strlen(e->d_name);

		if (e->d_type != DT_DIR || !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    len + 1 + n >= PATH_MAX)
			continue;
		path[len] = '/';
		memcpy(path + len + 1, e->d_name, n + 1);
		err = append(x, e->d_ino, path + strlen(x->root));
		if (!err)
			err = walk_below(x, path, len + 1 + n);
		path[len] = '\0';
	}
	closedir(d);
	return err;
}

static void drop_entries(struct ps_cgroup_index *x)
{
	for (size_t i = 0; i < x->n; i++)
		free(x->e[i].path);
	x->n = 0;
}

static int walk(struct ps_cgroup_index *x)
{
	char path[PATH_MAX];
	struct stat st;
	int err;

	drop_entries(x);
	snprintf(path, sizeof(path), "%s", x->root);
	err = stat(path, &st) ? -errno : append(x, st.st_ino, "");
	if (!err)
		err = walk_below(x, path, strlen(path));
	x->built_ns = now_ns();
	return err;
}

/*
 * No cgroup v2 mount where we run (ip netns exec's fresh /sys has none):
 * mount it in a mount namespace of our own, where nobody else sees it.
 * Only while single-threaded (unshare refuses otherwise).
 */
static int mount_private(char *buf, size_t len)
{
	static const char at[] = "/sys/fs/cgroup";

	if (unshare(CLONE_NEWNS) || mount("", "/", NULL, MS_SLAVE | MS_REC, NULL) ||
	    mount("cgroup2", at, "cgroup2", 0, NULL))
		return -ENOENT;
	snprintf(buf, len, "%s", at);
	return 0;
}

int ps_cgroup_index_open(struct ps_cgroup_index *x)
{
	int err;

	memset(x, 0, sizeof(*x));
	err = find_mount(x->root, sizeof(x->root));
	if (err == -ENOENT)
		err = mount_private(x->root, sizeof(x->root));
	if (err)
		return err;
	return walk(x);
}

void ps_cgroup_index_free(struct ps_cgroup_index *x)
{
	drop_entries(x);
	free(x->e);
	x->e = NULL;
	x->cap = 0;
}

const char *ps_cgroup_index_find(const struct ps_cgroup_index *x, uint64_t id)
{
	for (size_t i = 0; x && i < x->n; i++)
		if (x->e[i].id == id)
			return x->e[i].path;
	return NULL;
}

/*
 * The path of cgroup id without a walk: the cgroup v2 file system takes an
 * id as a file handle (FILEID_KERNFS), which open_by_handle_at opens with
 * CAP_DAC_READ_SEARCH, and the fd's link names the directory. Added to the
 * index; NULL without that privilege (after -Z), or for an id gone.
 */
static const char *by_handle(struct ps_cgroup_index *x, uint64_t id)
{
	union {
		struct file_handle fh;
		char bytes[sizeof(struct file_handle) + sizeof(uint64_t)];
	} h = { .fh = { .handle_bytes = sizeof(uint64_t), .handle_type = FILEID_KERNFS } };
	char link[64], full[PATH_MAX];
	size_t rl = strlen(x->root);
	int mnt, fd = -1;
	ssize_t len = -1;

	memcpy(h.fh.f_handle, &id, sizeof(id));
	mnt = open(x->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (mnt >= 0)
		fd = open_by_handle_at(mnt, &h.fh, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		len = readlink(link, full, sizeof(full) - 1);
		close(fd);
	}
	if (mnt >= 0)
		close(mnt);
	if (len < (ssize_t)rl || (size_t)len >= sizeof(full))
		return NULL;
	full[len] = '\0';
	if (strncmp(full, x->root, rl) || (full[rl] && full[rl] != '/') || append(x, id, full + rl))
		return NULL;
	return x->e[x->n - 1].path;
}

const char *ps_cgroup_index_path(struct ps_cgroup_index *x, uint64_t id)
{
	const char *p = ps_cgroup_index_find(x, id);

	if (p || !x->root[0])
		return p;
	/* A walk at most once a second: it also tells which cgroups went
	 * (built_ns changes), for the callers' caches to let go of. */
	if (now_ns() - x->built_ns >= 1000000000ull) {
		walk(x);
		p = ps_cgroup_index_find(x, id);
	}
	return p ? p : by_handle(x, id);
}

static int by_id(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int ps_cgroup_index_ids(const struct ps_cgroup_index *x, uint64_t **ids, size_t *n)
{
	*n = 0;
	*ids = malloc((x->n ? x->n : 1) * sizeof(**ids));
	if (!*ids)
		return -ENOMEM;
	for (size_t i = 0; i < x->n; i++)
		(*ids)[i] = x->e[i].id;
	qsort(*ids, x->n, sizeof(**ids), by_id);
	*n = x->n;
	return 0;
}

static bool find_id_by_path(const struct ps_cgroup_index *x, const char *path)
{
	for (size_t i = 0; i < x->n; i++)
		if (!strcmp(x->e[i].path, path))
			return true;
	return false;
}

/* path and those below it: the same string, or it and a '/' after. */
static bool is_under(const char *path, const char *top)
{
	size_t n = strlen(top);

	if (!strcmp(top, "/"))
		return true;
	return !strncmp(path, top, n) && (path[n] == '\0' || path[n] == '/');
}

static int push(uint64_t **ids, size_t *n, uint64_t id)
{
	uint64_t *v = realloc(*ids, (*n + 1) * sizeof(**ids));

	if (!v)
		return -ENOMEM;
	v[(*n)++] = id;
	*ids = v;
	return 0;
}

/* Every entry under top, once each. */
static int collect_under(const struct ps_cgroup_index *x, const char *top, uint64_t **ids,
			 size_t *n)
{
	for (size_t i = 0; i < x->n; i++) {
		bool seen = false;

		if (!is_under(x->e[i].path, top))
			continue;
		for (size_t k = 0; k < *n && !seen; k++)
			seen = (*ids)[k] == x->e[i].id;
		if (!seen && push(ids, n, x->e[i].id))
			return -ENOMEM;
	}
	return 0;
}

int ps_cgroup_index_under(const struct ps_cgroup_index *x, const char *path, uint64_t **ids,
			  size_t *n)
{
	size_t rl = strlen(x->root);
	char rel[PATH_MAX];
	size_t l;

	*ids = NULL;
	*n = 0;
	/* Absolute under the mount, or relative to it. */
	if (rl && !strncmp(path, x->root, rl) && (path[rl] == '/' || !path[rl]))
		path += rl;
	snprintf(rel, sizeof(rel), "%s%s", *path == '/' ? "" : "/", path);
	l = strlen(rel);
	while (l > 1 && rel[l - 1] == '/')
		rel[--l] = '\0';
	if (!find_id_by_path(x, rel))
		return -ENOENT;
	return collect_under(x, rel, ids, n);
}

int ps_cgroup_index_pick(const struct ps_cgroup_index *x,
			 bool (*pick)(const struct ps_container *c, void *arg), void *arg,
			 uint64_t **ids, size_t *n)
{
	*ids = NULL;
	*n = 0;
	for (size_t i = 0; i < x->n; i++) {
		struct ps_container c;

		ps_container_of_path(x->e[i].path, &c);
		/* The container's own cgroup: where it first appears. */
		if (c.kind == PS_CONTAINER_NONE || !pick(&c, arg))
			continue;
		if (collect_under(x, x->e[i].path, ids, n))
			return -ENOMEM;
	}
	return *n ? 0 : -ENOENT;
}
