// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include "attach.h"
#include "iflist.h"
#include "linkwatch.h"

/* The kernel's "netdev" generic netlink family (uapi linux/netdev.h, 6.3+;
 * Debian 12's headers predate it). */
#define NETDEV_CMD_DEV_GET 1
#define NETDEV_A_DEV_IFINDEX 1
#define NETDEV_A_DEV_XDP_FEATURES 3
#define NETDEV_XDP_ACT_BASIC 1

int ps_iflist_format(char *buf, size_t len, const struct ps_ifinfo *i)
{
	enum ps_xdp_mode m = ps_xdp_default_mode(i->driver);
	const char *xdp;

	if (m == PS_XDP_SKB)
		xdp = "skb";
	else if (i->xdp_native == 1)
		xdp = "native";
	else if (i->xdp_native == 0)
		xdp = "skb";
	else
		xdp = "native if the driver has XDP, else skb";
	return snprintf(buf, len, "%d.%s [%s%s%s] driver %s, xdp %s, tc %s", i->index, i->name,
			i->flags & IFF_UP ? "Up" : "Down",
			i->flags & IFF_RUNNING ? ", Running" : "",
			i->flags & IFF_LOOPBACK ? ", Loopback" : "",
			*i->driver ? i->driver : "unknown", xdp, i->tcx ? "tcx" : "clsact");
}

struct nl_req {
	struct nlmsghdr nh;
	struct genlmsghdr g;
	char attrs[64];
};

static void put_attr(struct nl_req *r, unsigned short type, const void *data, size_t n)
{
	struct nlattr *a = (void *)((char *)r + NLMSG_ALIGN(r->nh.nlmsg_len));

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + n;
	memcpy((char *)a + NLA_HDRLEN, data, n);
	r->nh.nlmsg_len = NLMSG_ALIGN(r->nh.nlmsg_len) + NLA_ALIGN(a->nla_len);
}

/* One request, the first answer's attribute `want` into out (n bytes). */
static int genl_ask(int fd, struct nl_req *r, unsigned short want, void *out, size_t n)
{
	char buf[8192] __attribute__((aligned(NLMSG_ALIGNTO)));
	struct nlmsghdr *nh = (void *)buf;
	ssize_t len;

	if (send(fd, r, r->nh.nlmsg_len, 0) < 0)
		return -errno;
	len = recv(fd, buf, sizeof(buf), 0);
	if (len < 0)
		return -errno;
	if (!NLMSG_OK(nh, (size_t)len))
		return -EPROTO;
	if (nh->nlmsg_type == NLMSG_ERROR)
		return ((struct nlmsgerr *)NLMSG_DATA(nh))->error ?: -EPROTO;
	len = nh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
	for (struct nlattr *a = (void *)((char *)NLMSG_DATA(nh) + GENL_HDRLEN);
	     len >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= len;
	     len -= NLA_ALIGN(a->nla_len), a = (void *)((char *)a + NLA_ALIGN(a->nla_len)))
		if ((a->nla_type & NLA_TYPE_MASK) == want && (size_t)(a->nla_len - NLA_HDRLEN) >= n) {
			memcpy(out, (char *)a + NLA_HDRLEN, n);
			return 0;
		}
	return -ENOENT;
}

static void init_req(struct nl_req *r, unsigned short type, unsigned char cmd)
{
	memset(r, 0, sizeof(*r));
	r->nh.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	r->nh.nlmsg_type = type;
	r->nh.nlmsg_flags = NLM_F_REQUEST;
	r->g.cmd = cmd;
	r->g.version = 1;
}

/* Whether each driver has native XDP, from the netdev family: 1, 0, -1. */
static int xdp_native(int fd, uint16_t family, int ifindex)
{
	struct nl_req r;
	uint64_t features;
	uint32_t idx = (uint32_t)ifindex;

	if (!family)
		return -1;
	init_req(&r, family, NETDEV_CMD_DEV_GET);
	put_attr(&r, NETDEV_A_DEV_IFINDEX, &idx, sizeof(idx));
	if (genl_ask(fd, &r, NETDEV_A_DEV_XDP_FEATURES, &features, sizeof(features)))
		return -1;
	return !!(features & NETDEV_XDP_ACT_BASIC);
}

static uint16_t netdev_family(int fd)
{
	struct nl_req r;
	uint16_t id = 0;

	init_req(&r, GENL_ID_CTRL, CTRL_CMD_GETFAMILY);
	put_attr(&r, CTRL_ATTR_FAMILY_NAME, "netdev", sizeof("netdev"));
	return genl_ask(fd, &r, CTRL_ATTR_FAMILY_ID, &id, sizeof(id)) ? 0 : id;
}

/* tcx came with 6.6: what --tc-mode auto would find. */
static bool kernel_has_tcx(void)
{
	struct utsname u;
	int major = 0, minor = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &major, &minor) != 2)
		return false;
	return major > 6 || (major == 6 && minor >= 6);
}

int ps_iflist_print(FILE *f)
{
	struct if_nameindex *all = if_nameindex();
	int nl = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	uint16_t family = nl >= 0 ? netdev_family(nl) : 0;
	bool tcx = kernel_has_tcx();
	int err = 0;

	if (!all) {
		err = -errno;
		goto out;
	}
	for (struct if_nameindex *p = all; p->if_index; p++) {
		struct ps_ifinfo i = { .index = (int)p->if_index, .tcx = tcx };
		int flags = ps_link_flags(i.index);
		char line[256];

		snprintf(i.name, sizeof(i.name), "%s", p->if_name);
		i.flags = flags < 0 ? 0 : (unsigned int)flags;
		ps_iface_driver(i.name, i.driver, sizeof(i.driver));
		i.xdp_native = xdp_native(nl, family, i.index);
		ps_iflist_format(line, sizeof(line), &i);
		fprintf(f, "%s\n", line);
	}
out:
	if (all)
		if_freenameindex(all);
	if (nl >= 0)
		close(nl);
	return err;
}
