// SPDX-License-Identifier: GPL-2.0-only
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <linux/netlink.h>
#include <linux/pkt_cls.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include "tcfilter.h"

#ifndef TC_H_CLSACT
#define TC_H_CLSACT TC_H_INGRESS
#endif

static const struct rtattr *find_attr(const struct rtattr *a, int len, unsigned short type)
{
	for (; RTA_OK(a, len); a = RTA_NEXT(a, len))
		if (a->rta_type == type)
			return a;
	return NULL;
}

static void copy_str(char *dst, size_t size, const struct rtattr *a)
{
	size_t n = a ? RTA_PAYLOAD(a) : 0;

	if (n >= size)
		n = size - 1;
	if (n)
		memcpy(dst, RTA_DATA(a), n);
	dst[n] = '\0';
}

/* One RTM_NEWTFILTER message into *f. */
static void parse_filter(const struct nlmsghdr *nh, struct ps_tc_filter *f)
{
	const struct tcmsg *t = NLMSG_DATA(nh);
	const struct rtattr *attrs = (const void *)((const char *)t + NLMSG_ALIGN(sizeof(*t)));
	int len = (int)nh->nlmsg_len - NLMSG_LENGTH(sizeof(*t));
	const struct rtattr *opts;

	memset(f, 0, sizeof(*f));
	f->prio = t->tcm_info >> 16;
	f->handle = t->tcm_handle;
	copy_str(f->kind, sizeof(f->kind), find_attr(attrs, len, TCA_KIND));
	opts = find_attr(attrs, len, TCA_OPTIONS);
	if (opts && !strcmp(f->kind, "bpf")) {
		const struct rtattr *id;

		copy_str(f->name, sizeof(f->name),
			 find_attr(RTA_DATA(opts), (int)RTA_PAYLOAD(opts), TCA_BPF_NAME));
		id = find_attr(RTA_DATA(opts), (int)RTA_PAYLOAD(opts), TCA_BPF_ID);
		if (id && RTA_PAYLOAD(id) >= sizeof(uint32_t))
			memcpy(&f->prog_id, RTA_DATA(id), sizeof(uint32_t));
	}
}

/*
 * One rtnetlink request of type for tcm, a dump or a get; each message of
 * the type want goes to take(nh, arg). 0 or -errno.
 */
static int tc_ask(int type, bool dump, const struct tcmsg *tcm, int want,
		  void (*take)(const struct nlmsghdr *nh, void *arg), void *arg)
{
	struct {
		struct nlmsghdr nh;
		struct tcmsg t;
	} req = {
		.nh = { .nlmsg_len = NLMSG_LENGTH(sizeof(struct tcmsg)),
			.nlmsg_type = (__u16)type,
			/* A get's answer comes back to us only when echoed,
			 * and not at all for a builtin qdisc: its ack ends it. */
			.nlmsg_flags = (__u16)(NLM_F_REQUEST |
					       (dump ? NLM_F_DUMP : NLM_F_ACK | NLM_F_ECHO)),
			.nlmsg_seq = 1 },
		.t = *tcm,
	};
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	const struct timeval limit = { .tv_sec = 5 }; /* the kernel answers, or this fails */
	size_t buf_size = 32768;
	char *buf = malloc(buf_size);
	int fd, err = 0;
	bool done = false;

	if (!buf)
		return -ENOMEM;
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0) {
		free(buf);
		return -errno;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof(limit)) ||
	    sendto(fd, &req, req.nh.nlmsg_len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		err = -errno;
		goto out;
	}
	while (!done) {
		ssize_t len = recv(fd, buf, buf_size, 0);
		struct nlmsghdr *nh;

		if (len < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		for (nh = (void *)buf; NLMSG_OK(nh, (size_t)len); nh = NLMSG_NEXT(nh, len)) {
			if (nh->nlmsg_type == NLMSG_DONE) {
				done = true;
				break;
			}
			if (nh->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(nh);

				err = e->error;
				done = true;
				break;
			}
			if (nh->nlmsg_type == want)
				take(nh, arg);
		}
	}
out:
	close(fd);
	free(buf);
	return err;
}

struct filters {
	struct ps_tc_filter *out;
	int n, max;
};

static void take_filter(const struct nlmsghdr *nh, void *arg)
{
	struct filters *f = arg;

	if (f->n < f->max)
		parse_filter(nh, &f->out[f->n++]);
}

int ps_tc_filter_dump(int ifindex, bool ingress, struct ps_tc_filter *out, int max)
{
	struct tcmsg t = {
		.tcm_family = AF_UNSPEC,
		.tcm_ifindex = ifindex,
		.tcm_parent = TC_H_MAKE(TC_H_CLSACT, ingress ? TC_H_MIN_INGRESS : TC_H_MIN_EGRESS),
	};
	struct filters f = { .out = out, .max = max };
	int err = tc_ask(RTM_GETTFILTER, true, &t, RTM_NEWTFILTER, take_filter, &f);

	return err ? err : f.n;
}

struct clsact_seen {
	int ifindex;
	bool seen;
};

static void take_qdisc(const struct nlmsghdr *nh, void *arg)
{
	const struct tcmsg *t = NLMSG_DATA(nh);
	const struct rtattr *attrs = (const void *)((const char *)t + NLMSG_ALIGN(sizeof(*t)));
	int len = (int)nh->nlmsg_len - NLMSG_LENGTH(sizeof(*t));
	struct clsact_seen *c = arg;
	char kind[16];

	copy_str(kind, sizeof(kind), find_attr(attrs, len, TCA_KIND));
	if (t->tcm_ifindex == c->ifindex && !strcmp(kind, "clsact"))
		c->seen = true;
}

/* The device's ingress qdisc asked for, not every qdisc of every device
 * dumped: one message, where the dump made a start on many interfaces
 * quadratic in them (doc/performance.md#start-up). */
int ps_tc_has_clsact(int ifindex)
{
	struct tcmsg t = { .tcm_family = AF_UNSPEC,
			   .tcm_ifindex = ifindex,
			   .tcm_parent = TC_H_CLSACT };
	struct clsact_seen c = { .ifindex = ifindex };
	int err = tc_ask(RTM_GETQDISC, false, &t, RTM_NEWQDISC, take_qdisc, &c);

	return err == -ENOENT ? 0 : err ? err : c.seen;
}

/* Does this fdinfo text name prog_id? */
static bool fdinfo_names(const char *path, const char *needle)
{
	char text[1024];
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return false;
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	return strstr(text, needle) != NULL;
}

static bool is_pktsample(const char *pid)
{
	char path[300], comm[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/comm", pid);
	f = fopen(path, "re");
	if (!f)
		return true; /* cannot tell: assume it might be */
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = '\0';
	fclose(f);
	return !strncmp(comm, "pktsample", 9);
}

int ps_bpf_prog_held(uint32_t prog_id)
{
	char needle[32], path[600];
	DIR *proc = opendir("/proc");
	struct dirent *p;
	int ret = 0;

	if (!proc)
		return -errno;
	snprintf(needle, sizeof(needle), "\nprog_id:\t%u\n", prog_id);
	while (ret != 1 && (p = readdir(proc))) {
		struct dirent *fd;
		DIR *fds;

		if (p->d_name[0] < '1' || p->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/fdinfo", p->d_name);
		fds = opendir(path);
		if (!fds) {
			/* A process we may not look into: the answer is unknown
			 * only if it is a pktsample (the holders that matter). */
			if ((errno == EACCES || errno == EPERM) && is_pktsample(p->d_name))
				ret = -EACCES;
			continue; /* or one that has just exited */
		}
		while ((fd = readdir(fds))) {
			if (fd->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "/proc/%s/fdinfo/%s", p->d_name, fd->d_name);
			if (fdinfo_names(path, needle)) {
				ret = 1;
				break;
			}
		}
		closedir(fds);
	}
	closedir(proc);
	return ret;
}
