// SPDX-License-Identifier: GPL-2.0-only
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include "sockscan.h"

struct sock_ent {
	uint32_t inode;
	uint64_t cookie; /* 0: a ping or raw socket, asked of the socket itself */
};

struct sock_list {
	struct sock_ent *e;
	size_t n, cap;
};

static int add_sock(struct sock_list *l, uint32_t inode, uint64_t cookie)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 1024;
		struct sock_ent *e = realloc(l->e, cap * sizeof(*e));

		if (!e)
			return -ENOMEM;
		l->e = e;
		l->cap = cap;
	}
	l->e[l->n++] = (struct sock_ent){ .inode = inode, .cookie = cookie };
	return 0;
}

/* Send a dump request and add every socket of the answer: 0, -errno, or
 * the kernel's error for the request (-ENOENT: no diag for it here). */
static int dump_req(int nl, const void *req, size_t len, struct sock_list *l)
{
	static char buf[32768] __attribute__((aligned(8)));

	if (send(nl, req, len, 0) < 0)
		return -errno;
	for (;;) {
		ssize_t got = recv(nl, buf, sizeof(buf), 0);
		struct nlmsghdr *h = (struct nlmsghdr *)buf;

		if (got < 0)
			return errno == EINTR ? 0 : -errno;
		for (; NLMSG_OK(h, (size_t)got); h = NLMSG_NEXT(h, got)) {
			const struct inet_diag_msg *m = NLMSG_DATA(h);
			uint64_t cookie;

			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			if (h->nlmsg_type == NLMSG_ERROR)
				return ((const struct nlmsgerr *)NLMSG_DATA(h))->error;
			if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*m)) || !m->idiag_inode)
				continue;
			cookie = m->id.idiag_cookie[0] | (uint64_t)m->id.idiag_cookie[1] << 32;
			if (add_sock(l, m->idiag_inode, cookie))
				return -ENOMEM;
		}
	}
}

/* Every socket of one family and protocol: inode and cookie. */
static int dump(int nl, uint8_t family, uint8_t proto, struct sock_list *l)
{
	struct {
		struct nlmsghdr nlh;
		struct inet_diag_req_v2 r;
	} req = {
		.nlh = { .nlmsg_len = sizeof(req),
			 .nlmsg_type = SOCK_DIAG_BY_FAMILY,
			 .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP },
		.r = { .sdiag_family = family, .sdiag_protocol = proto, .idiag_states = ~0u },
	};
	int err = dump_req(nl, &req, sizeof(req), l);

	return err == -ENOENT ? 0 : err; /* a protocol this kernel has no diag for */
}

/*
 * Every TCP socket, of both families, in one walk of the kernel's
 * connection table: the legacy TCPDIAG_GETSOCK dump asks for AF_UNSPEC,
 * which SOCK_DIAG_BY_FAMILY cannot. Each dump walks every bucket of the
 * table, however few sockets it holds (the kernel sizes the table by the
 * machine's memory), so one walk for two is a visible part of an idle
 * start (doc/performance.md#start-up). The two dumps where the kernel has
 * no legacy interface.
 */
static int dump_tcp(int nl, struct sock_list *l)
{
	struct {
		struct nlmsghdr nlh;
		struct inet_diag_req r;
	} req = {
		.nlh = { .nlmsg_len = sizeof(req),
			 .nlmsg_type = TCPDIAG_GETSOCK,
			 .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP },
		.r = { .idiag_family = AF_INET, .idiag_states = ~0u },
	};
	size_t before = l->n;
	int err = dump_req(nl, &req, sizeof(req), l);

	if (err != -EINVAL && err != -ENOENT && err != -EOPNOTSUPP)
		return err;
	l->n = before;
	err = dump(nl, AF_INET, IPPROTO_TCP, l);
	return err ? err : dump(nl, AF_INET6, IPPROTO_TCP, l);
}

static int by_inode(const void *a, const void *b)
{
	const struct sock_ent *x = a, *y = b;

	return x->inode < y->inode ? -1 : x->inode > y->inode;
}

static int read_line(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

int ps_proc_owner(uint32_t pid, const char *cgroup_root, struct ps_owner *o)
{
	char path[64], line[4096];
	struct stat st;

	memset(o, 0, sizeof(*o));
	o->pid = o->tid = pid;
	snprintf(path, sizeof(path), "/proc/%u/comm", pid);
	if (read_line(path, o->comm, sizeof(o->comm)))
		return -ENOENT;
	snprintf(path, sizeof(path), "/proc/%u/ns/net", pid);
	if (!stat(path, &st))
		o->netns_ino = (uint32_t)st.st_ino;
	/* The unified hierarchy's line: "0::/path". */
	snprintf(path, sizeof(path), "/proc/%u/cgroup", pid);
	if (cgroup_root[0]) {
		FILE *f = fopen(path, "re");

		while (f && fgets(line, sizeof(line), f)) {
			char dir[PATH_MAX * 2];

			if (strncmp(line, "0::", 3))
				continue;
			line[strcspn(line, "\n")] = '\0';
			snprintf(dir, sizeof(dir), "%s%s", cgroup_root, line + 3);
			if (!stat(dir, &st))
				o->cgroup_id = st.st_ino;
			break;
		}
		if (f)
			fclose(f);
	}
	return 0;
}

/* The cookie of the socket at fd fd of the process pidfd: a copy of the
 * descriptor, asked, then closed (the process's own is left as it was);
 * 0 where it cannot be had. */
static uint64_t cookie_of_fd(int pidfd, int fd)
{
	uint64_t cookie = 0;
	socklen_t len = sizeof(cookie);
	int copy;

	if (pidfd < 0)
		return 0;
	copy = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
	if (copy < 0)
		return 0;
	if (getsockopt(copy, SOL_SOCKET, SO_COOKIE, &cookie, &len))
		cookie = 0;
	close(copy);
	return cookie;
}

/* Which sockets of l the process pid holds. */
static void scan_fds(uint32_t pid, const struct sock_list *l, bool *claimed,
		     const char *cgroup_root,
		     void (*found)(void *, uint64_t, const struct ps_owner *), void *arg, int *n)
{
	char dir[64];
	struct ps_owner o;
	bool have_owner = false;
	struct dirent *d;
	DIR *fds;

	int pidfd = -2; /* -2: not opened yet */

	snprintf(dir, sizeof(dir), "/proc/%u/fd", pid);
	fds = opendir(dir);
	if (!fds)
		return;
	while ((d = readdir(fds))) {
		char target[64];
		struct sock_ent key, *hit;
		uint64_t cookie;
		ssize_t len;
		unsigned int ino;

		if (d->d_name[0] == '.')
			continue;
		/* Relative to the directory: no walk from / for each. */
		len = readlinkat(dirfd(fds), d->d_name, target, sizeof(target) - 1);
		if (len <= 0)
			continue;
		target[len] = '\0';
		if (sscanf(target, "socket:[%u]", &ino) != 1)
			continue;
		key.inode = ino;
		hit = bsearch(&key, l->e, l->n, sizeof(*l->e), by_inode);
		if (!hit || claimed[hit - l->e])
			continue;
		cookie = hit->cookie;
		if (!cookie) {
			if (pidfd == -2)
				pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
			cookie = cookie_of_fd(pidfd, atoi(d->d_name));
			if (!cookie)
				continue;
		}
		if (!have_owner) {
			if (ps_proc_owner(pid, cgroup_root, &o))
				break;
			have_owner = true;
		}
		claimed[hit - l->e] = true;
		found(arg, cookie, &o);
		(*n)++;
	}
	closedir(fds);
	if (pidfd >= 0)
		close(pidfd);
}

/* Every TCP and UDP socket of the namespace nl was made in. */
static int dump_all(int nl, struct sock_list *l)
{
	int err = dump_tcp(nl, l);

	if (!err)
		err = dump(nl, AF_INET, IPPROTO_UDP, l);
	if (!err)
		err = dump(nl, AF_INET6, IPPROTO_UDP, l);
	return err;
}

/*
 * The ping sockets (ICMP datagram) and raw sockets (ping's where it may
 * make no ping socket) of a namespace, from its /proc/PID/net (dir:
 * "/proc/self" or "/proc/PID"): no sock_diag lists the first, and the
 * second only where the kernel has raw_diag, so their cookies are asked of
 * the sockets when their holders are found (cookie_of_fd).
 */
static int list_icmp(const char *dir, struct sock_list *l)
{
	static const char *const files[] = { "icmp", "icmp6", "raw", "raw6" };
	char path[300], line[512];

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/net/%s", dir, files[i]);
		f = fopen(path, "re");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			unsigned long inode;

			/* sl local rem st queues tr retrnsmt uid timeout inode */
			if (sscanf(line, "%*s %*s %*s %*s %*s %*s %*s %*s %*s %lu", &inode) == 1 &&
			    inode && add_sock(l, (uint32_t)inode, 0)) {
				fclose(f);
				return -ENOMEM;
			}
		}
		fclose(f);
	}
	return 0;
}

/*
 * A sock_diag socket in another network namespace: a thread joins it
 * (setns changes the calling thread's namespace only) and makes the
 * socket, which stays in that namespace; the thread then ends.
 */
struct ns_socket {
	int ns_fd, fd;
};

static void *make_ns_socket(void *arg)
{
	struct ns_socket *x = arg;

	x->fd = setns(x->ns_fd, CLONE_NEWNET) ?
			-1 :
			socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	return NULL;
}

/* The sockets of every network namespace a process is in, ours first: a
 * capture on a host's veth sees the sockets of the containers behind it. */
static int dump_namespaces(struct sock_list *l)
{
	uint32_t seen[1024];
	size_t n_seen = 0;
	struct stat st;
	struct dirent *d;
	DIR *proc;
	int nl, err;

	nl = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (nl < 0)
		return -errno;
	err = dump_all(nl, l);
	close(nl);
	if (!err)
		err = list_icmp("/proc/self", l);
	if (err || stat("/proc/self/ns/net", &st))
		return err;
	seen[n_seen++] = (uint32_t)st.st_ino;
	proc = opendir("/proc");
	while (proc && (d = readdir(proc)) && n_seen < sizeof(seen) / sizeof(seen[0])) {
		char path[300];
		struct ns_socket x = { .fd = -1 };
		pthread_t t;
		bool known = false;

		if (d->d_name[0] < '1' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/ns/net", d->d_name);
		if (stat(path, &st))
			continue;
		for (size_t i = 0; i < n_seen && !known; i++)
			known = seen[i] == (uint32_t)st.st_ino;
		if (known)
			continue;
		seen[n_seen++] = (uint32_t)st.st_ino;
		x.ns_fd = open(path, O_RDONLY | O_CLOEXEC);
		if (x.ns_fd < 0)
			continue;
		if (!pthread_create(&t, NULL, make_ns_socket, &x))
			pthread_join(t, NULL);
		close(x.ns_fd);
		if (x.fd < 0)
			continue; /* not ours to enter (no CAP_SYS_ADMIN): skipped */
		err = dump_all(x.fd, l);
		close(x.fd);
		snprintf(path, sizeof(path), "/proc/%s", d->d_name);
		if (!err)
			err = list_icmp(path, l);
		if (err == -ENOMEM)
			break;
		err = 0;
	}
	if (proc)
		closedir(proc);
	return err;
}

int ps_sockscan(const char *cgroup_root,
		void (*found)(void *arg, uint64_t cookie, const struct ps_owner *o), void *arg)
{
	struct sock_list l = { 0 };
	bool *claimed = NULL;
	struct dirent *d;
	DIR *proc = NULL;
	int err, n = 0;

	err = dump_namespaces(&l);
	if (err)
		goto out;
	qsort(l.e, l.n, sizeof(*l.e), by_inode);
	claimed = calloc(l.n ? l.n : 1, sizeof(*claimed));
	proc = opendir("/proc");
	if (!claimed || !proc) {
		err = claimed ? -errno : -ENOMEM;
		goto out;
	}
	while ((d = readdir(proc))) {
		char *end;
		unsigned long pid = strtoul(d->d_name, &end, 10);

		if (*end || !pid)
			continue;
		scan_fds((uint32_t)pid, &l, claimed, cgroup_root, found, arg, &n);
	}
out:
	if (proc)
		closedir(proc);
	free(claimed);
	free(l.e);
	return err ? err : n;
}
