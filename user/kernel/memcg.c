// SPDX-License-Identifier: GPL-2.0-only
/* The room the capture's memory cgroup leaves it; see memcg.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include "memcg.h"

/* v1 writes "no limit" as the largest page count in bytes
 * (9223372036854771712); anything this large limits nothing. */
#define UNLIMITED_FROM (1ull << 60)

int ps_memcg_path(const char *proc_cgroup, char *path, size_t len, bool *v1)
{
	const char *line = proc_cgroup, *v2 = NULL;

	while (line && *line) {
		const char *end = strchr(line, '\n'), *c1 = strchr(line, ':'), *c2;
		size_t n = end ? (size_t)(end - line) : strlen(line);

		c2 = c1 && c1 < line + n ? memchr(c1 + 1, ':', (size_t)(line + n - c1 - 1)) : NULL;
		if (c2) {
			const char *ctl = c1 + 1;
			bool memory = false;

			/* "4:memory:/a/b", "5:cpu,memory:/a": the controllers
			 * between the colons, comma-separated. */
			for (const char *p = ctl; p < c2;) {
				const char *comma = memchr(p, ',', (size_t)(c2 - p));
				const char *e = comma ? comma : c2;

				if (e - p == 6 && !memcmp(p, "memory", 6))
					memory = true;
				p = e + 1;
			}
			if (memory || (c2 == ctl && !strncmp(line, "0:", 2) && !v2)) {
				size_t plen = (size_t)(line + n - c2 - 1);

				if (plen + 1 > len || !plen)
					return -ENOENT;
				if (memory) {
					memcpy(path, c2 + 1, plen);
					path[plen] = '\0';
					*v1 = true;
					return 0;
				}
				v2 = c2 + 1;
			}
		}
		line = end ? end + 1 : NULL;
	}
	if (!v2)
		return -ENOENT;
	{
		const char *e = strchr(v2, '\n');
		size_t plen = e ? (size_t)(e - v2) : strlen(v2);

		if (plen + 1 > len)
			return -ENOENT;
		memcpy(path, v2, plen);
		path[plen] = '\0';
	}
	*v1 = false;
	return 0;
}

/* The number in file dir/name: 0, or -ENOENT (no such file), -EINVAL.
 * v2's "max" reads as UINT64_MAX. */
static int read_u64(const char *dir, const char *name, uint64_t *v)
{
	char p[PATH_MAX + 64], buf[64];
	FILE *f;
	int ok;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "re");
	if (!f)
		return -ENOENT;
	ok = fgets(buf, sizeof(buf), f) != NULL;
	fclose(f);
	if (!ok)
		return -EINVAL;
	if (!strncmp(buf, "max", 3)) {
		*v = UINT64_MAX;
		return 0;
	}
	errno = 0;
	*v = strtoull(buf, NULL, 10);
	return errno ? -EINVAL : 0;
}

int ps_memcg_read_at(const char *mount, const char *path, bool v1, struct ps_memcg *m)
{
	const char *limit_file = v1 ? "memory.limit_in_bytes" : "memory.max";
	const char *usage_file = v1 ? "memory.usage_in_bytes" : "memory.current";
	char rel[sizeof(m->path)], dir[PATH_MAX];

	memset(m, 0, sizeof(*m));
	m->v1 = v1;
	m->room = UINT64_MAX;
	snprintf(m->path, sizeof(m->path), "%s", path);
	snprintf(rel, sizeof(rel), "%s", path);
	snprintf(dir, sizeof(dir), "%s%s", mount, rel);
	if (access(dir, F_OK))
		return -ENOENT;
	/* The cgroup, then each above it: the tightest room wins. */
	for (;;) {
		uint64_t limit, usage;
		char *slash;

		snprintf(dir, sizeof(dir), "%s%s", mount, rel);
		if (!read_u64(dir, limit_file, &limit) && limit < UNLIMITED_FROM &&
		    !read_u64(dir, usage_file, &usage)) {
			uint64_t room = limit > usage ? limit - usage : 0;

			if (!m->limited || room < m->room) {
				m->limited = true;
				m->limit = limit;
				m->room = room;
				snprintf(m->path, sizeof(m->path), "%s", *rel ? rel : "/");
			}
		}
		slash = strrchr(rel, '/');
		if (!slash || !rel[0] || !strcmp(rel, "/"))
			break;
		*slash = '\0'; /* "/a/b" to "/a", "/a" to "" (the root) */
	}
	return 0;
}

/* The mount point of the memory controller's hierarchy: a v1 "cgroup"
 * mount with "memory" among its options, or the first "cgroup2". */
static int find_mount(bool v1, char *buf, size_t len)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096];
	int err = -ENOENT;

	if (!f)
		return -errno;
	while (err && fgets(line, sizeof(line), f)) {
		char mnt[PATH_MAX], fstype[32], opts[1024], *sep = strstr(line, " - ");
		bool memory = false;

		if (!sep || sscanf(sep + 3, "%31s %*s %1023s", fstype, opts) != 2)
			continue;
		if (v1 && strcmp(fstype, "cgroup"))
			continue;
		if (!v1 && strcmp(fstype, "cgroup2"))
			continue;
		for (char *o = strtok(opts, ","); v1 && o; o = strtok(NULL, ","))
			memory |= !strcmp(o, "memory");
		if ((memory || !v1) && sscanf(line, "%*s %*s %*s %*s %4095s", mnt) == 1 &&
		    strlen(mnt) < len) {
			snprintf(buf, len, "%s", mnt);
			err = 0;
		}
	}
	fclose(f);
	return err;
}

int ps_memcg_read(struct ps_memcg *m)
{
	static const char at[] = "/sys/fs/cgroup";
	char text[4096], path[sizeof(m->path)], mnt[PATH_MAX];
	bool v1 = false;
	FILE *f = fopen("/proc/self/cgroup", "re");
	size_t n;
	int err;

	if (!f)
		return -errno;
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	err = ps_memcg_path(text, path, sizeof(path), &v1);
	if (err)
		return err;
	if (!find_mount(v1, mnt, sizeof(mnt)))
		return ps_memcg_read_at(mnt, path, v1, m);
	/* Not mounted here: mounted for the read where nobody else sees it. */
	if (unshare(CLONE_NEWNS) || mount("", "/", NULL, MS_SLAVE | MS_REC, NULL))
		return -ENOENT;
	if (v1 ? mount("cgroup", at, "cgroup", MS_RDONLY, "memory") :
		 mount("cgroup2", at, "cgroup2", MS_RDONLY, NULL))
		return -ENOENT;
	err = ps_memcg_read_at(at, path, v1, m);
	umount2(at, MNT_DETACH);
	return err;
}
