// SPDX-License-Identifier: GPL-2.0-only
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include "cgroupfs.h"
#include "log.h"
#include "netns.h"

static void spec_path(const char *spec, char *path, size_t len)
{
	size_t digits = strspn(spec, "0123456789");

	if (strchr(spec, '/'))
		snprintf(path, len, "%s", spec);
	else if (digits && !spec[digits])
		snprintf(path, len, "/proc/%s/ns/net", spec);
	else
		snprintf(path, len, "/run/netns/%s", spec);
}

/* As ip netns exec: a private /sys showing the namespace's devices (the
 * device code reads /sys/class/net), and cgroup v2 where it was. */
static int remount_sys(const char *cgroup_root)
{
	if (unshare(CLONE_NEWNS) || mount("", "/", NULL, MS_SLAVE | MS_REC, NULL))
		return -errno;
	if (umount2("/sys", MNT_DETACH) && errno != EINVAL)
		return -errno;
	if (mount("sysfs", "/sys", "sysfs", 0, NULL))
		return -errno;
	/* The hybrid layout's /sys/fs/cgroup/unified is in a tmpfs the old
	 * /sys had: mount cgroup v2 on /sys/fs/cgroup then. */
	if (cgroup_root[0] && mount("cgroup2", cgroup_root, "cgroup2", 0, NULL) &&
	    mount("cgroup2", "/sys/fs/cgroup", "cgroup2", 0, NULL))
		pr_debug("--netns: cgroup v2 not mounted again: %s\n", strerror(errno));
	return 0;
}

int ps_netns_enter(const char *spec)
{
	struct ps_cgroup_index cg;
	char path[PATH_MAX], root[PATH_MAX] = "";
	int fd, err;

	spec_path(spec, path, sizeof(path));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		if (err == -ENOENT)
			pr_err("--netns %s: no such network namespace (%s: not found; ip netns list "
			       "shows the names)\n",
			       spec, path);
		else
			pr_err("--netns %s: cannot open %s: %s\n", spec, path, strerror(-err));
		return err;
	}
	/* Where cgroup v2 is, before /sys goes. */
	if (!ps_cgroup_index_open(&cg))
		snprintf(root, sizeof(root), "%s", cg.root);
	ps_cgroup_index_free(&cg);
	if (setns(fd, CLONE_NEWNET)) {
		err = -errno;
		close(fd);
		if (err == -EINVAL)
			pr_err("--netns %s: %s is not a network namespace\n", spec, path);
		else
			pr_err("--netns %s: cannot enter it: %s\n", spec, strerror(-err));
		return err;
	}
	close(fd);
	err = remount_sys(root);
	if (err)
		pr_err("--netns %s: cannot mount its /sys: %s\n", spec, strerror(-err));
	return err;
}
