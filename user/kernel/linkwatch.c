// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include "linkwatch.h"

int ps_linkwatch_parse(const void *buf, size_t len, struct ps_link_event *ev, int max)
{
	const struct nlmsghdr *nh;
	int n = 0;

	for (nh = buf; NLMSG_OK(nh, len) && n < max; nh = NLMSG_NEXT(nh, len)) {
		const struct ifinfomsg *ifi = NLMSG_DATA(nh);

		if ((nh->nlmsg_type != RTM_NEWLINK && nh->nlmsg_type != RTM_DELLINK) ||
		    nh->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi)))
			continue;
		ev[n++] = (struct ps_link_event){
			.ifindex = ifi->ifi_index,
			.gone = nh->nlmsg_type == RTM_DELLINK,
			.up = !!(ifi->ifi_flags & IFF_UP),
		};
	}
	return n;
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
