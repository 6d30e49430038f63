// SPDX-License-Identifier: GPL-2.0-only
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include "cgfollow.h"
#include "log.h"

/* A directory watched: its cgroup, and whether its id is in the map. */
struct watched {
	int wd;
	bool wanted;
	uint64_t id;
	char *path; /* relative to the mount */
};

struct ps_cgfollow {
	int fd;	    /* inotify */
	int map_fd; /* ours: the loader's may be replaced by a reload's */
	char root[PATH_MAX];
	ps_cgfollow_want_fn want;
	void *arg;
	struct watched *w;
	size_t n, cap;
	bool full_said, watches_said;
};

static struct watched *find(struct ps_cgfollow *f, int wd)
{
	for (size_t i = 0; i < f->n; i++)
		if (f->w[i].wd == wd)
			return &f->w[i];
	return NULL;
}

static bool listed(const uint64_t *ids, size_t n, uint64_t id)
{
	for (size_t i = 0; i < n; i++)
		if (ids[i] == id)
			return true;
	return false;
}

static void set_wanted(struct ps_cgfollow *f, struct watched *w)
{
	uint8_t one = 1;

	if (bpf_map_update_elem(f->map_fd, &w->id, &one, BPF_ANY)) {
		if (!f->full_said)
			pr_warn("cannot add cgroup %s to the filter: %s; its packets are not "
				"captured\n",
				w->path, strerror(errno));
		f->full_said = true;
		return;
	}
	w->wanted = true;
	pr_info("the filter takes cgroup %s\n", w->path);
}

/* rel: the path of parent's child name. false where it is too long. */
static bool child_path(const char *parent, const char *name, char *rel, size_t len)
{
	return (size_t)snprintf(rel, len, "%s/%s", strcmp(parent, "/") ? parent : "", name) < len;
}

/*
 * Watch the directory at rel, judge it unless it is watched already, then
 * the same below it (made before its watch was). x, ids: as at open; NULL
 * once running. 0 or -ENOMEM; a directory gone meanwhile is skipped.
 */
static int add_dir(struct ps_cgfollow *f, const char *rel, const struct ps_cgroup_index *x,
		   const uint64_t *ids, size_t n_ids)
{
	char full[PATH_MAX];
	struct stat st;
	struct dirent *d;
	DIR *dir;
	int wd, err = 0;

	if ((size_t)snprintf(full, sizeof(full), "%s%s", f->root, rel) >= sizeof(full))
		return 0;
	wd = inotify_add_watch(f->fd, full, IN_CREATE | IN_DELETE | IN_ONLYDIR | IN_DONT_FOLLOW);
	if (wd < 0) {
		if (errno == ENOSPC && !f->watches_said)
			pr_warn("cannot follow the cgroups below %s: no inotify watch left "
				"(fs.inotify.max_user_watches)\n",
				full);
		f->watches_said |= errno == ENOSPC;
		return errno == ENOMEM ? -ENOMEM : 0;
	}
	if (!find(f, wd) && !stat(full, &st)) {
		struct watched *w;

		if (f->n == f->cap) {
			size_t cap = f->cap ? f->cap * 2 : 64;

			w = realloc(f->w, cap * sizeof(*w));
			if (!w)
				return -ENOMEM;
			f->w = w;
			f->cap = cap;
		}
		w = &f->w[f->n];
		*w = (struct watched){ .wd = wd, .id = st.st_ino, .path = strdup(rel) };
		if (!w->path)
			return -ENOMEM;
		f->n++;
		/* Judged at the start where the start saw it; else now. */
		if (ps_cgroup_index_find(x, w->id) ? listed(ids, n_ids, w->id) :
						     f->want(rel, f->arg))
			set_wanted(f, w);
	}
	dir = opendir(full);
	if (!dir)
		return 0;
	while (!err && (d = readdir(dir))) {
		char sub[PATH_MAX];

		if (d->d_type != DT_DIR || d->d_name[0] == '.')
			continue;
		if (child_path(rel, d->d_name, sub, sizeof(sub)))
			err = add_dir(f, sub, x, ids, n_ids);
	}
	closedir(dir);
	return err;
}

static struct watched *find_path(struct ps_cgfollow *f, const char *rel)
{
	for (size_t i = 0; i < f->n; i++)
		if (!strcmp(f->w[i].path, rel))
			return &f->w[i];
	return NULL;
}

/* A directory that went: its id out of the map, its watch gone. A
 * removed cgroup keeps its links (kernfs), so the kernel would not end
 * the watch itself: the parent's IN_DELETE says it went. */
static void drop_dir(struct ps_cgfollow *f, struct watched *w)
{
	if (w->wanted) {
		bpf_map_delete_elem(f->map_fd, &w->id);
		pr_info("cgroup %s is gone from the filter\n", w->path);
	}
	inotify_rm_watch(f->fd, w->wd);
	free(w->path);
	*w = f->w[--f->n];
}

int ps_cgfollow_open(const struct ps_cgroup_index *x, const uint64_t *ids, size_t n_ids, int map_fd,
		     ps_cgfollow_want_fn want, void *arg, struct ps_cgfollow **out)
{
	struct ps_cgfollow *f = calloc(1, sizeof(*f));
	int err;

	*out = NULL;
	if (!f)
		return -ENOMEM;
	f->want = want;
	f->arg = arg;
	snprintf(f->root, sizeof(f->root), "%s", x->root);
	f->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	f->map_fd = fcntl(map_fd, F_DUPFD_CLOEXEC, 0);
	if (f->fd < 0 || f->map_fd < 0) {
		err = -errno;
		pr_err("cannot follow the containers: %s\n", strerror(-err));
		ps_cgfollow_free(f);
		return err;
	}
	err = add_dir(f, "/", x, ids, n_ids);
	if (err) {
		pr_err("cannot follow the containers: %s\n", strerror(-err));
		ps_cgfollow_free(f);
		return err;
	}
	*out = f;
	return 0;
}

int ps_cgfollow_fd(const struct ps_cgfollow *f)
{
	return f ? f->fd : -1;
}

int ps_cgfollow_run(struct ps_cgfollow *f)
{
	char buf[16384] __attribute__((aligned(__alignof__(struct inotify_event))));
	int err = 0;

	for (;;) {
		ssize_t got = read(f->fd, buf, sizeof(buf));

		if (got < 0)
			return errno == EAGAIN || errno == EINTR ? err : -errno;
		for (char *p = buf; !err && p < buf + got;) {
			const struct inotify_event *ev = (const void *)p;
			struct watched *parent = find(f, ev->wd), *gone;
			char rel[PATH_MAX];

			p += sizeof(*ev) + ev->len;

			if (ev->mask & IN_Q_OVERFLOW) {
				/* Events lost: the whole tree again; what is
				 * watched already is skipped. */
				err = add_dir(f, "/", NULL, NULL, 0);
			} else if (!(ev->mask & IN_ISDIR) || !parent || !ev->len ||
				   !child_path(parent->path, ev->name, rel, sizeof(rel))) {
				continue;
			} else if (ev->mask & IN_CREATE) {
				err = add_dir(f, rel, NULL, NULL, 0);
			} else if ((ev->mask & IN_DELETE) && (gone = find_path(f, rel))) {
				drop_dir(f, gone);
			}
		}
		if (err) {
			pr_err("cannot follow the containers: %s\n", strerror(-err));
			return err;
		}
	}
}

void ps_cgfollow_free(struct ps_cgfollow *f)
{
	if (!f)
		return;
	if (f->fd >= 0)
		close(f->fd);
	if (f->map_fd >= 0)
		close(f->map_fd);
	for (size_t i = 0; i < f->n; i++)
		free(f->w[i].path);
	free(f->w);
	free(f);
}
