// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include "linkwatch.h"

/* The attributes after an ifinfomsg, or NULL with *len 0. */
static const struct rtattr *link_attrs(const struct nlmsghdr *nh, int *len)
{
	const struct ifinfomsg *ifi = NLMSG_DATA(nh);

	*len = (int)nh->nlmsg_len - (int)NLMSG_LENGTH(sizeof(*ifi));
	return *len > 0 ? IFLA_RTA(ifi) : NULL;
}

/* What is left to parse, signed: NLMSG_NEXT takes a message's aligned
 * length off it, which is past the end for a last message that is not. */
static int remaining(size_t len)
{
	return len > INT_MAX ? INT_MAX : (int)len;
}

int ps_linkwatch_parse(const void *buf, size_t len, struct ps_link_event *ev, int max)
{
	const struct nlmsghdr *nh;
	int n = 0, rem = remaining(len);

	for (nh = buf; NLMSG_OK(nh, rem) && n < max; nh = NLMSG_NEXT(nh, rem)) {
		const struct ifinfomsg *ifi = NLMSG_DATA(nh);
		const struct rtattr *a;
		int alen;

		if ((nh->nlmsg_type != RTM_NEWLINK && nh->nlmsg_type != RTM_DELLINK) ||
		    nh->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi)))
			continue;
		ev[n] = (struct ps_link_event){
			.ifindex = ifi->ifi_index,
			.gone = nh->nlmsg_type == RTM_DELLINK,
			.up = !!(ifi->ifi_flags & IFF_UP),
			.loopback = !!(ifi->ifi_flags & IFF_LOOPBACK),
		};
		for (a = link_attrs(nh, &alen); a && RTA_OK(a, alen); a = RTA_NEXT(a, alen))
			if (a->rta_type == IFLA_IFNAME) {
				size_t l = strnlen(RTA_DATA(a), RTA_PAYLOAD(a));

				if (l < sizeof(ev[n].name))
					memcpy(ev[n].name, RTA_DATA(a), l);
			}
		n++;
	}
	return n;
}

int ps_link_parse_xdp(const void *buf, size_t len, int ifindex, uint32_t *id)
{
	const struct nlmsghdr *nh;
	int rem = remaining(len);

	*id = 0;
	for (nh = buf; NLMSG_OK(nh, rem); nh = NLMSG_NEXT(nh, rem)) {
		const struct ifinfomsg *ifi = NLMSG_DATA(nh);
		const struct rtattr *a;
		uint32_t ids[IFLA_XDP_HW_PROG_ID + 1] = { 0 };
		int alen;

		if (nh->nlmsg_type == NLMSG_ERROR &&
		    nh->nlmsg_len >= NLMSG_LENGTH(sizeof(struct nlmsgerr)))
			return ((const struct nlmsgerr *)NLMSG_DATA(nh))->error;
		if (nh->nlmsg_type != RTM_NEWLINK || nh->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi)) ||
		    ifi->ifi_index != ifindex)
			continue;
		for (a = link_attrs(nh, &alen); a && RTA_OK(a, alen); a = RTA_NEXT(a, alen)) {
			const struct rtattr *x;
			int xlen = (int)RTA_PAYLOAD(a);

			if ((a->rta_type & NLA_TYPE_MASK) != IFLA_XDP)
				continue;
			for (x = RTA_DATA(a); RTA_OK(x, xlen); x = RTA_NEXT(x, xlen))
				if (x->rta_type <= IFLA_XDP_HW_PROG_ID &&
				    RTA_PAYLOAD(x) >= sizeof(uint32_t))
					memcpy(&ids[x->rta_type], RTA_DATA(x), sizeof(uint32_t));
		}
		/* One program: PROG_ID; one per mode: the driver's, else skb's. */
		*id = ids[IFLA_XDP_PROG_ID]	? ids[IFLA_XDP_PROG_ID] :
		      ids[IFLA_XDP_DRV_PROG_ID] ? ids[IFLA_XDP_DRV_PROG_ID] :
						  ids[IFLA_XDP_SKB_PROG_ID];
		return 0;
	}
	return -ENODEV;
}

int ps_link_ask(int fd, int ifindex, uint32_t seq)
{
	struct {
		struct nlmsghdr nh;
		struct ifinfomsg ifi;
	} req = {
		.nh = { .nlmsg_len = sizeof(req),
			.nlmsg_type = RTM_GETLINK,
			.nlmsg_flags = NLM_F_REQUEST,
			.nlmsg_seq = seq },
		.ifi = { .ifi_family = AF_UNSPEC, .ifi_index = ifindex },
	};

	return send(fd, &req, sizeof(req), 0) < 0 ? -errno : 0;
}

int ps_link_xdp_prog_id(int ifindex, uint32_t *id)
{
	char buf[32768] __attribute__((aligned(NLMSG_ALIGNTO)));
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE), err;
	ssize_t len;

	*id = 0;
	if (fd < 0)
		return -errno;
	err = ps_link_ask(fd, ifindex, 0);
	if (!err && (len = recv(fd, buf, sizeof(buf), 0)) < 0)
		err = -errno;
	else if (!err)
		err = ps_link_parse_xdp(buf, (size_t)len, ifindex, id);
	close(fd);
	return err;
}

int ps_linkwatch_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = RTMGRP_LINK };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_ROUTE);

	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

int ps_linkwatch_read(int fd, struct ps_link_event *ev, int max)
{
	char buf[16384] __attribute__((aligned(NLMSG_ALIGNTO)));
	int n = 0;

	while (n < max) {
		ssize_t len = recv(fd, buf, sizeof(buf), 0);

		if (len < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				break;
			return -errno;
		}
		n += ps_linkwatch_parse(buf, (size_t)len, ev + n, max - n);
	}
	return n;
}

int ps_link_list(struct ps_link_event **now)
{
	struct if_nameindex *all = if_nameindex(), *p;
	int n = 0;

	*now = NULL;
	if (!all)
		return -errno;
	for (p = all; p->if_index; p++)
		n++;
	*now = calloc((size_t)n + 1, sizeof(**now));
	if (!*now) {
		if_freenameindex(all);
		return -ENOMEM;
	}
	n = 0;
	for (p = all; p->if_index; p++) {
		int flags = ps_link_flags((int)p->if_index);
		struct ps_link_event *ev = &(*now)[n];

		if (flags < 0) /* gone meanwhile */
			continue;
		ev->ifindex = (int)p->if_index;
		ev->up = flags & IFF_UP;
		ev->loopback = flags & IFF_LOOPBACK;
		snprintf(ev->name, sizeof(ev->name), "%s", p->if_name);
		n++;
	}
	if_freenameindex(all);
	return n;
}

int ps_link_flags(int ifindex)
{
	struct ifreq ifr = { 0 };
	int fd, ret;

	if (!if_indextoname(ifindex, ifr.ifr_name))
		return -ENODEV;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	ret = ioctl(fd, SIOCGIFFLAGS, &ifr) ? -errno : (unsigned short)ifr.ifr_flags;
	close(fd);
	return ret == -ENXIO ? -ENODEV : ret;
}

int ps_link_state(int ifindex)
{
	int flags = ps_link_flags(ifindex);

	return flags < 0 ? flags : !!(flags & IFF_UP);
}
