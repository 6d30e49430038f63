// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include "log.h"
#include "rotate.h"

int ps_rotate_width(uint32_t files)
{
	int c = 0;

	for (uint32_t x = files ? files - 1 : 0; x > 0; x /= 10)
		c++;
	return c;
}

void ps_rotate_init(struct ps_rotate *r, const char *tmpl, uint64_t size_limit,
		    uint64_t interval_ns, uint32_t max_files, uint64_t now_ns)
{
	memset(r, 0, sizeof(*r));
	r->tmpl = tmpl;
	r->size_limit = size_limit;
	r->interval_ns = interval_ns;
	r->max_files = max_files;
	r->width = ps_rotate_width(max_files);
	r->next_ns = now_ns + interval_ns;
	r->numbered = size_limit != 0;
	r->timed_names = interval_ns != 0;
}

void ps_rotate_init_incidents(struct ps_rotate *r, const char *tmpl, uint32_t max_files)
{
	ps_rotate_init(r, tmpl, 0, 0, max_files, 0);
	r->timed_names = strchr(tmpl, '%') != NULL;
	r->numbered = !r->timed_names;
}

bool ps_rotate_active(const struct ps_rotate *r)
{
	return r->numbered || r->timed_names;
}

int ps_rotate_name(const struct ps_rotate *r, time_t t, char *buf, size_t size)
{
	char base[4096];
	struct tm tm;
	int n;

	if (r->timed_names) {
		if (!localtime_r(&t, &tm))
			return -EINVAL;
		if (!strftime(base, sizeof(base), r->tmpl, &tm))
			return -EINVAL;
	} else if ((size_t)snprintf(base, sizeof(base), "%s", r->tmpl) >= sizeof(base)) {
		return -ENAMETOOLONG;
	}
	/* tcpdump: no number on the first file unless -W asks for digits. */
	if (!r->numbered || (r->count == 0 && r->width == 0))
		n = snprintf(buf, size, "%s", base);
	else
		n = snprintf(buf, size, "%s%0*u", base, r->width, r->count);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

bool ps_rotate_size_due(const struct ps_rotate *r, uint64_t bytes)
{
	return r->size_limit && bytes > r->size_limit;
}

void ps_rotate_next_size(struct ps_rotate *r)
{
	r->count++;
	if (r->max_files && r->count >= r->max_files)
		r->count = 0;
}

int ps_rotate_time_due(struct ps_rotate *r, uint64_t now_ns)
{
	if (!r->interval_ns || now_ns < r->next_ns)
		return 0;
	while (r->next_ns <= now_ns)
		r->next_ns += r->interval_ns;
	r->time_files++;
	if (!r->size_limit && r->max_files && r->time_files >= r->max_files)
		return -1;
	r->count = 0;
	return 1;
}

int ps_rotate_run_cmd(const char *cmd, const char *path)
{
	pid_t pid;

	/* Reaped by the kernel: no zombie per rotated file. */
	signal(SIGCHLD, SIG_IGN);
	pid = fork();
	if (pid < 0) {
		int err = -errno;

		pr_err("cannot run -z %s on %s: %s\n", cmd, path, strerror(-err));
		return err;
	}
	if (pid == 0) {
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGCHLD, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		setpgid(0, 0);
		(void)!setpriority(PRIO_PROCESS, 0, 19);
		execlp(cmd, cmd, path, (char *)NULL);
		fprintf(stderr, "pktsample: cannot run -z %s: %s\n", cmd, strerror(errno));
		_exit(127);
	}
	pr_info("-z: %s %s (pid %d)\n", cmd, path, (int)pid);
	return 0;
}
