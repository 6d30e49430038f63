// SPDX-License-Identifier: GPL-2.0-only
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/prctl.h>
#include "guardian.h"
#include "log.h"

enum { GUARD_ADD = 1, GUARD_DEL };

/* The capture's argument strings, which the guardian overwrites with its
 * own name so that ps and pgrep -f tell the two apart. */
static char *title;
static size_t title_len;

void ps_guardian_set_title_area(char *start, size_t len)
{
	title = start;
	title_len = len;
}

struct guard_msg {
	__u32 op;
	__u32 pad;
	struct ps_clsact c;
};

/* What the capture attached and has not removed: the guardian's list. */
struct guard_list {
	struct ps_clsact *c;
	int n, cap;
};

static int list_add(struct guard_list *l, const struct ps_clsact *c)
{
	if (l->n == l->cap) {
		int cap = l->cap ? 2 * l->cap : 16;
		struct ps_clsact *p = realloc(l->c, (size_t)cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		l->c = p;
		l->cap = cap;
	}
	l->c[l->n++] = *c;
	return 0;
}

static void list_del(struct guard_list *l, const struct ps_clsact *c)
{
	for (int i = 0; i < l->n; i++)
		if (!memcmp(&l->c[i], c, sizeof(*c))) {
			l->c[i] = l->c[--l->n];
			return;
		}
}

/* The capture is gone without saying goodbye: remove what it left. */
static void clean_up(const struct guard_list *l, pid_t capture)
{
	/* In reverse: a qdisc we created goes after the filters on it. */
	for (int i = l->n - 1; i >= 0; i--) {
		const struct ps_clsact *c = &l->c[i];
		char name[IF_NAMESIZE];
		int err = ps_clsact_detach(c);

		if (!if_indextoname((unsigned int)c->ifindex, name))
			continue; /* the interface went, and the filter with it */
		if (err)
			pr_warn("guardian: cannot remove the clsact filter that pktsample %d left "
				"on %s %s: %s\n",
				(int)capture, name, c->ingress ? "ingress" : "egress",
				strerror(-err));
		else
			pr_warn("guardian: pktsample %d ended without detaching; removed its "
				"clsact filter on %s %s\n",
				(int)capture, name, c->ingress ? "ingress" : "egress");
	}
}

static int keep_watch(int fd, pid_t capture)
{
	struct guard_list l = { 0 };
	struct guard_msg m;

	for (;;) {
		ssize_t n = read(fd, &m, sizeof(m));

		if (n < 0 && errno == EINTR)
			continue;
		if (n != sizeof(m)) /* 0: the capture's end closed */
			break;
		/* Out of memory: that one filter is left to the next start on
		 * its hook, rather than the capture's live ones removed now. */
		if (m.op == GUARD_ADD)
			(void)list_add(&l, &m.c);
		if (m.op == GUARD_DEL)
			list_del(&l, &m.c);
	}
	clean_up(&l, capture); /* nothing, after a capture that ended well */
	free(l.c);
	return 0;
}

int ps_guardian_start(void)
{
	pid_t capture = getpid();
	int p[2], err;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC))
		goto fail;
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		goto fail;
	}
	if (pid > 0) {
		close(p[0]);
		return p[1];
	}
	/* The guardian: the pipe and stderr, nothing else of the capture's. */
	close(p[1]);
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	prctl(PR_SET_NAME, "pktsample-guard");
	if (title && title_len > 1) {
		memset(title, 0, title_len);
		snprintf(title, title_len, "pktsample-guard %d", (int)capture);
	}
	if (p[0] != 3 && dup2(p[0], 3) < 0)
		_exit(1);
	close_range(4, ~0U, 0);
	err = open("/dev/null", O_RDWR);
	if (err >= 0) {
		dup2(err, STDIN_FILENO);
		dup2(err, STDOUT_FILENO);
		if (err > STDERR_FILENO)
			close(err);
	}
	_exit(keep_watch(3, capture));
fail:
	err = -errno;
	pr_err("cannot start the process that removes clsact filters after a crash: %s\n",
	       strerror(-err));
	return err;
}

void ps_guardian_tell(int fd, const struct ps_clsact *c, bool attached)
{
	struct guard_msg m = { .op = attached ? GUARD_ADD : GUARD_DEL, .c = *c };

	if (fd < 0)
		return;
	/* Smaller than PIPE_BUF: written whole or not at all. */
	if (write(fd, &m, sizeof(m)) != sizeof(m))
		pr_warn("cannot tell the clsact guardian: %s\n", strerror(errno));
}
