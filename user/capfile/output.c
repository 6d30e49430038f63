// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "log.h"
#include "output.h"

int ps_output_open(struct ps_output *out, const char *path)
{
	struct stat st;

	out->path = strcmp(path, "-") ? path : "stdout";
	out->created = out->new_file = false;
	if (!strcmp(path, "-")) {
		if (isatty(STDOUT_FILENO)) {
			pr_err("refusing to write pcapng to a terminal; redirect stdout or use -w FILE\n");
			return -ENOTTY;
		}
		out->fd = STDOUT_FILENO;
		return 0;
	}
	out->created = out->new_file = stat(path, &st) != 0;
	/* No O_TRUNC: an existing file is only emptied once capture starts. */
	out->fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (out->fd < 0) {
		int err = -errno;

		pr_err("cannot write %s: %s\n", path, strerror(-err));
		return err;
	}
	return 0;
}

int ps_output_start(struct ps_output *out)
{
	struct stat st;

	if (out->fd != STDOUT_FILENO && !fstat(out->fd, &st) && S_ISREG(st.st_mode) &&
	    ftruncate(out->fd, 0)) {
		int err = -errno;

		pr_err("cannot truncate %s: %s\n", out->path, strerror(-err));
		return err;
	}
	out->created = false;
	return 0;
}

void ps_output_close(struct ps_output *out)
{
	if (out->fd > STDOUT_FILENO) {
		close(out->fd);
		if (out->created)
			unlink(out->path);
	}
	out->fd = -1;
}
