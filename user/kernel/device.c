// SPDX-License-Identifier: GPL-2.0-only
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/ethtool.h>
#include <linux/genetlink.h>
#include <net/if_arp.h>
#include <linux/netlink.h>
#include <linux/sockios.h>
#include "device.h"
#include "xdptrace.h"
#include "linkwatch.h"

/* Hardware types newer than some uapi headers. */
#ifndef ARPHRD_RAWIP
#define ARPHRD_RAWIP 519
#endif
#ifndef ARPHRD_IP6GRE
#define ARPHRD_IP6GRE 823
#endif

int ps_linktype_of(int arphrd)
{
	switch (arphrd) {
	case ARPHRD_ETHER:
	case ARPHRD_LOOPBACK: /* lo carries a zeroed Ethernet header */
		return PS_LINKTYPE_ETHERNET;
	/* No link-layer header: the hooks see the packet from its IP header
	 * on, at ingress and at egress (the tunnel's own encapsulation is
	 * added below TC). */
	case ARPHRD_NONE:    /* tun, wireguard */
	case ARPHRD_RAWIP:   /* rmnet and other WWAN devices */
	case ARPHRD_TUNNEL:  /* ipip */
	case ARPHRD_TUNNEL6: /* ip6tnl */
	case ARPHRD_SIT:
	case ARPHRD_IPGRE:
	case ARPHRD_IP6GRE:
	case ARPHRD_PPP:
		return PS_LINKTYPE_RAW;
	default:
		return -1;
	}
}

const char *ps_linktype_name(int linktype)
{
	switch (linktype) {
	case PS_LINKTYPE_ETHERNET:
		return "EN10MB";
	case PS_LINKTYPE_RAW:
		return "RAW";
	default:
		return "?";
	}
}

static bool is_veth(const struct ps_device *d)
{
	return !strcmp(d->driver, "veth");
}

/*
 * No device kind we know attaches XDP without changing what others see
 * (doc/guide.md's "Devices" section has the reasons and bench/e2e.sh's numbers):
 * TC ingress sees the same packets, after the stack built the skb, and
 * leaves them and the device as they were.
 */
unsigned int ps_device_default_ingress(const struct ps_device *d, char *why, size_t len)
{
	const char *w;

	if (d->flags & IFF_LOOPBACK) {
		snprintf(why, len, "every packet on lo passes tc-egress, once");
		return 0;
	}
	if (d->xdp_prog_id && d->xdp_traceable == 1) {
		snprintf(why, len, "XDP program %u (%s) is attached: traced at its entry and exit",
			 d->xdp_prog_id, d->xdp_prog_name);
		return PS_HOOKS_XDP_TRACE;
	}
	if (d->xdp_prog_id) {
		snprintf(why, len,
			 "XDP program %u (%s) is attached and %s; tc-ingress sees what "
			 "it passes",
			 d->xdp_prog_id, d->xdp_prog_name,
			 d->xdp_traceable == 0 ? d->xdp_trace_why :
						 "whether it can be traced is unknown");
		return PS_HOOK_BIT(PS_HOOK_TC_INGRESS);
	}
	if (is_veth(d))
		w = "native XDP on veth turns off the peer's TSO, generic XDP bypasses GRO";
	else if (d->xdp_native == 1)
		w = "a native XDP attach resets the rings of many NICs";
	else if (d->xdp_native == 0)
		w = "no native XDP; generic XDP bypasses GRO and turns off LRO";
	else
		w = "native XDP resets many NICs' rings, generic XDP bypasses GRO; "
		    "which the driver has, kernels before 6.3 do not say";
	snprintf(why, len, "%s", w);
	return PS_HOOK_BIT(PS_HOOK_TC_INGRESS);
}

enum ps_xdp_mode ps_device_xdp_mode(const struct ps_device *d)
{
	/*
	 * On a veth a flood's sender runs faster past a bare XDP_PASS in
	 * skb mode than native (bench/e2e.sh), because veth's native path
	 * copies each skb into page-pool pages (skb_pp_cow_data).
	 */
	if (is_veth(d))
		return PS_XDP_SKB;
	/* lo has no driver XDP, whatever the kernel can tell (before 6.3,
	 * nothing): known without asking. */
	if (d->flags & IFF_LOOPBACK)
		return PS_XDP_SKB;
	if (d->xdp_native == 1)
		return PS_XDP_NATIVE;
	if (d->xdp_native == 0)
		return PS_XDP_SKB;
	return PS_XDP_AUTO;
}

const char *ps_device_xdp_cost(const struct ps_device *d, enum ps_xdp_mode mode)
{
	if (mode == PS_XDP_SKB)
		return "bypasses GRO there while attached and turns its LRO and hardware GRO off "
		       "for good";
	if (is_veth(d))
		return "turns off TSO on the peer while attached (it then sends segments, not "
		       "super-packets)";
	return "resets the rings of many drivers as it attaches (a short link outage)";
}

/* ---- looking the facts up ---- */

/* The kernel's "netdev" generic netlink family (uapi linux/netdev.h, 6.3+;
 * Debian 12's headers predate it). */
#define NETDEV_CMD_DEV_GET 1
#define NETDEV_A_DEV_IFINDEX 1
#define NETDEV_A_DEV_XDP_FEATURES 3
#define NETDEV_A_DEV_XDP_RX_METADATA_FEATURES 5 /* 6.8+ */
#define NETDEV_XDP_ACT_BASIC 1
#define NETDEV_XDP_RX_METADATA_VLAN_TAG 4

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

/* The attributes of the answer to one request: 0 with *attrs and *len set
 * (into buf), or -errno. */
static int genl_ask(int fd, struct nl_req *r, char *buf, size_t size, const struct nlattr **attrs,
		    ssize_t *len)
{
	struct nlmsghdr *nh = (void *)buf;
	ssize_t got;

	if (send(fd, r, r->nh.nlmsg_len, 0) < 0)
		return -errno;
	got = recv(fd, buf, size, 0);
	if (got < 0)
		return -errno;
	if (!NLMSG_OK(nh, (size_t)got))
		return -EPROTO;
	if (nh->nlmsg_type == NLMSG_ERROR)
		return ((struct nlmsgerr *)NLMSG_DATA(nh))->error ?: -EPROTO;
	*len = nh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
	*attrs = (const void *)((char *)NLMSG_DATA(nh) + GENL_HDRLEN);
	return 0;
}

/* Attribute `want` of attrs into out (n bytes): 0, or -ENOENT. */
static int nla_get(const struct nlattr *a, ssize_t len, unsigned short want, void *out, size_t n)
{
	for (; len >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= len;
	     len -= NLA_ALIGN(a->nla_len),
	     a = (const void *)((const char *)a + NLA_ALIGN(a->nla_len)))
		if ((a->nla_type & NLA_TYPE_MASK) == want &&
		    (size_t)(a->nla_len - NLA_HDRLEN) >= n) {
			memcpy(out, (const char *)a + NLA_HDRLEN, n);
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

void ps_netdev_nl_open(struct ps_netdev_nl *nl)
{
	char buf[8192] __attribute__((aligned(NLMSG_ALIGNTO)));
	const struct nlattr *attrs;
	struct nl_req r;
	uint16_t id = 0;
	ssize_t len;

	nl->family = 0;
	nl->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (nl->fd < 0)
		return;
	init_req(&r, GENL_ID_CTRL, CTRL_CMD_GETFAMILY);
	put_attr(&r, CTRL_ATTR_FAMILY_NAME, "netdev", sizeof("netdev"));
	if (!genl_ask(nl->fd, &r, buf, sizeof(buf), &attrs, &len) &&
	    !nla_get(attrs, len, CTRL_ATTR_FAMILY_ID, &id, sizeof(id)))
		nl->family = id;
}

void ps_netdev_nl_close(struct ps_netdev_nl *nl)
{
	if (nl->fd >= 0)
		close(nl->fd);
	nl->fd = -1;
	nl->family = 0;
}

/* What the driver offers XDP, from the netdev family: native XDP, and the
 * VLAN tag it strips handed to XDP; each 1, 0, or -1 unknown. */
static void xdp_features(const struct ps_netdev_nl *nl, struct ps_device *d)
{
	char buf[8192] __attribute__((aligned(NLMSG_ALIGNTO)));
	const struct nlattr *attrs;
	uint32_t idx = (uint32_t)d->ifindex;
	uint64_t features;
	struct nl_req r;
	ssize_t len;

	if (!nl || nl->fd < 0 || !nl->family)
		return;
	init_req(&r, nl->family, NETDEV_CMD_DEV_GET);
	put_attr(&r, NETDEV_A_DEV_IFINDEX, &idx, sizeof(idx));
	if (genl_ask(nl->fd, &r, buf, sizeof(buf), &attrs, &len))
		return;
	if (!nla_get(attrs, len, NETDEV_A_DEV_XDP_FEATURES, &features, sizeof(features)))
		d->xdp_native = !!(features & NETDEV_XDP_ACT_BASIC);
	if (!nla_get(attrs, len, NETDEV_A_DEV_XDP_RX_METADATA_FEATURES, &features,
		     sizeof(features)))
		d->xdp_rx_vlan = !!(features & NETDEV_XDP_RX_METADATA_VLAN_TAG);
}

/* The ioctls below, on one socket. */
static int dev_ioctl(int fd, const char *name, unsigned long req, struct ifreq *ifr)
{
	snprintf(ifr->ifr_name, sizeof(ifr->ifr_name), "%s", name);
	return ioctl(fd, req, ifr) ? -errno : 0;
}

/* The devices directly above d, from /sys/class/net/NAME/upper_*. */
static void read_uppers(struct ps_device *d)
{
	char path[64 + IF_NAMESIZE];
	struct dirent *e;
	DIR *dir;

	d->n_uppers = 0;
	snprintf(path, sizeof(path), "/sys/class/net/%s", d->name);
	dir = opendir(path);
	if (!dir)
		return;
	while ((e = readdir(dir)) &&
	       d->n_uppers < (int)(sizeof(d->uppers) / sizeof(d->uppers[0]))) {
		unsigned int idx;

		if (strncmp(e->d_name, "upper_", 6))
			continue;
		idx = if_nametoindex(e->d_name + 6);
		if (idx)
			d->uppers[d->n_uppers++] = (int)idx;
	}
	closedir(dir);
}

/* Someone else's XDP program on d, and whether fentry/fexit may trace it. */
static void probe_xdp_program(struct ps_device *d)
{
	struct ps_xdp_target t;
	int err = ps_xdp_target_find(d->ifindex, &t);

	d->xdp_traceable = -1;
	if (err == -ENOENT || !t.id)
		return;
	d->xdp_prog_id = t.id;
	snprintf(d->xdp_prog_name, sizeof(d->xdp_prog_name), "%s", t.name);
	if (!err)
		d->xdp_traceable = !ps_xdp_target_probe(&t, d->xdp_trace_why,
							sizeof(d->xdp_trace_why));
	ps_xdp_target_close(&t);
}

int ps_device_probe(struct ps_device *d, int ifindex, const struct ps_netdev_nl *nl)
{
	struct ethtool_drvinfo info = { .cmd = ETHTOOL_GDRVINFO };
	struct ethtool_value flags = { .cmd = ETHTOOL_GFLAGS };
	struct ifreq ifr = { 0 };
	int fd, f;

	memset(d, 0, sizeof(*d));
	d->ifindex = ifindex;
	d->arphrd = d->xdp_native = d->xdp_rx_vlan = d->rx_vlan_offload = -1;
	if (!if_indextoname((unsigned int)ifindex, d->name))
		return -ENODEV;
	f = ps_link_flags(ifindex);
	if (f < 0)
		return f;
	d->flags = (unsigned int)f;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (!dev_ioctl(fd, d->name, SIOCGIFHWADDR, &ifr))
		d->arphrd = ifr.ifr_hwaddr.sa_family;
	ifr.ifr_data = (void *)&info;
	if (!dev_ioctl(fd, d->name, SIOCETHTOOL, &ifr))
		snprintf(d->driver, sizeof(d->driver), "%.*s", (int)sizeof(d->driver) - 1,
			 info.driver);
	/* The legacy flags word still mirrors rx-vlan-offload (ETH_FLAG_RXVLAN). */
	ifr.ifr_data = (void *)&flags;
	if (!dev_ioctl(fd, d->name, SIOCETHTOOL, &ifr))
		d->rx_vlan_offload = !!(flags.data & ETH_FLAG_RXVLAN);
	close(fd);
	xdp_features(nl, d);
	read_uppers(d);
	probe_xdp_program(d);
	return 0;
}

bool ps_device_is_below(const struct ps_device *d, int upper)
{
	for (int i = 0; i < d->n_uppers; i++)
		if (d->uppers[i] == upper)
			return true;
	return false;
}
