// SPDX-License-Identifier: GPL-2.0-only
/* rtnetlink link messages in, interface events out. */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include <net/if.h>
#include <linux/netlink.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include "linkwatch.h"

/* Append one message of type with an ifinfomsg (plus pad bytes of
 * attributes) at *off; returns its header. */
static struct nlmsghdr *put_msg(char *buf, size_t *off, unsigned short type, int ifindex,
				unsigned int flags, size_t pad)
{
	struct nlmsghdr *nh = (void *)(buf + *off);
	struct ifinfomsg *ifi = NLMSG_DATA(nh);

	nh->nlmsg_len = NLMSG_LENGTH(sizeof(*ifi) + pad);
	nh->nlmsg_type = type;
	ifi->ifi_index = ifindex;
	ifi->ifi_flags = flags;
	*off += NLMSG_ALIGN(nh->nlmsg_len);
	return nh;
}

static void link_events(void **state)
{
	char buf[1024] __attribute__((aligned(NLMSG_ALIGNTO))) = { 0 };
	struct ps_link_event ev[8];
	size_t off = 0;

	(void)state;
	put_msg(buf, &off, RTM_NEWLINK, 5, IFF_UP | IFF_RUNNING, 20);
	put_msg(buf, &off, RTM_NEWADDR, 5, 0, 0);	      /* not a link event */
	put_msg(buf, &off, RTM_NEWLINK, 7, IFF_BROADCAST, 0); /* down */
	put_msg(buf, &off, RTM_DELLINK, 6, IFF_UP, 0);
	assert_int_equal(ps_linkwatch_parse(buf, off, ev, 8), 3);
	assert_int_equal(ev[0].ifindex, 5);
	assert_true(ev[0].up);
	assert_false(ev[0].gone);
	assert_int_equal(ev[1].ifindex, 7);
	assert_false(ev[1].up);
	assert_false(ev[1].gone);
	assert_int_equal(ev[2].ifindex, 6);
	assert_true(ev[2].gone);
	/* room for fewer: the first ones */
	assert_int_equal(ps_linkwatch_parse(buf, off, ev, 1), 1);
	assert_int_equal(ev[0].ifindex, 5);
}

/* Add attribute type with len bytes of data to the message nh. */
static struct rtattr *put_attr(struct nlmsghdr *nh, size_t *off, unsigned short type,
			       const void *data, size_t len)
{
	struct rtattr *a = (void *)((char *)nh + NLMSG_ALIGN(nh->nlmsg_len));

	a->rta_type = type;
	a->rta_len = RTA_LENGTH(len);
	if (data)
		memcpy(RTA_DATA(a), data, len);
	*off += RTA_ALIGN(a->rta_len);
	nh->nlmsg_len = NLMSG_ALIGN(nh->nlmsg_len) + RTA_ALIGN(a->rta_len);
	return a;
}

/* The name (IFLA_IFNAME) and loopback flag: what following interfaces
 * matches on. A name that does not fit IF_NAMESIZE is left empty. */
static void names(void **state)
{
	char buf[1024] __attribute__((aligned(NLMSG_ALIGNTO))) = { 0 };
	struct ps_link_event ev[4];
	struct nlmsghdr *nh;
	size_t off = 0;
	int mtu = 1500;

	(void)state;
	nh = put_msg(buf, &off, RTM_NEWLINK, 9, IFF_UP, 0);
	put_attr(nh, &off, IFLA_MTU, &mtu, sizeof(mtu));
	put_attr(nh, &off, IFLA_IFNAME, "veth9a", 7);
	nh = put_msg(buf, &off, RTM_NEWLINK, 1, IFF_UP | IFF_LOOPBACK, 0);
	put_attr(nh, &off, IFLA_IFNAME, "lo", 3);
	nh = put_msg(buf, &off, RTM_NEWLINK, 4, 0, 0);
	put_attr(nh, &off, IFLA_IFNAME, "0123456789abcdefXYZ", 19); /* no NUL in 16 */
	assert_int_equal(ps_linkwatch_parse(buf, off, ev, 4), 3);
	assert_string_equal(ev[0].name, "veth9a");
	assert_false(ev[0].loopback);
	assert_string_equal(ev[1].name, "lo");
	assert_true(ev[1].loopback);
	assert_string_equal(ev[2].name, "");
}

/* RTM_GETLINK's answer for one interface: its XDP program's id, however
 * the kernel put it (one program: PROG_ID; one per mode: DRV, else SKB),
 * 0 without; the kernel's error; -ENODEV for an answer about another. */
static void xdp_ids(void **state)
{
	char buf[512] __attribute__((aligned(NLMSG_ALIGNTO)));
	struct nlmsghdr *nh;
	struct rtattr *xdp;
	struct nlmsgerr *e;
	uint32_t id, v;
	size_t off;
	uint8_t mode = 1;

	(void)state;
	memset(buf, 0, sizeof(buf));
	off = 0;
	nh = put_msg(buf, &off, RTM_NEWLINK, 5, IFF_UP, 0);
	put_attr(nh, &off, IFLA_IFNAME, "eth0", 5);
	xdp = put_attr(nh, &off, IFLA_XDP | NLA_F_NESTED, NULL, 0);
	{
		struct rtattr *a = RTA_DATA(xdp);

		a->rta_type = IFLA_XDP_ATTACHED;
		a->rta_len = RTA_LENGTH(1);
		memcpy(RTA_DATA(a), &mode, 1);
		a = (void *)((char *)a + RTA_ALIGN(a->rta_len));
		a->rta_type = IFLA_XDP_SKB_PROG_ID;
		a->rta_len = RTA_LENGTH(4);
		v = 77;
		memcpy(RTA_DATA(a), &v, 4);
		a = (void *)((char *)a + RTA_ALIGN(a->rta_len));
		a->rta_type = IFLA_XDP_DRV_PROG_ID;
		a->rta_len = RTA_LENGTH(4);
		v = 42;
		memcpy(RTA_DATA(a), &v, 4);
		xdp->rta_len = RTA_LENGTH(3 * RTA_ALIGN(RTA_LENGTH(4)));
		nh->nlmsg_len += RTA_ALIGN(xdp->rta_len) - RTA_ALIGN(RTA_LENGTH(0));
		off = NLMSG_ALIGN(nh->nlmsg_len);
	}
	assert_int_equal(ps_link_parse_xdp(buf, off, 5, &id), 0);
	assert_int_equal(id, 42); /* the driver's before skb's */
	assert_int_equal(ps_link_parse_xdp(buf, off, 6, &id), -ENODEV);

	memset(buf, 0, sizeof(buf));
	off = 0;
	nh = put_msg(buf, &off, RTM_NEWLINK, 5, IFF_UP, 0);
	put_attr(nh, &off, IFLA_IFNAME, "eth0", 5);
	assert_int_equal(ps_link_parse_xdp(buf, off, 5, &id), 0);
	assert_int_equal(id, 0); /* none */

	memset(buf, 0, sizeof(buf));
	nh = (void *)buf;
	nh->nlmsg_type = NLMSG_ERROR;
	nh->nlmsg_len = NLMSG_LENGTH(sizeof(*e));
	e = NLMSG_DATA(nh);
	e->error = -ENODEV;
	assert_int_equal(ps_link_parse_xdp(buf, nh->nlmsg_len, 5, &id), -ENODEV);
	e->error = -EPERM;
	assert_int_equal(ps_link_parse_xdp(buf, nh->nlmsg_len, 5, &id), -EPERM);
}

/* A message cut short, or one claiming more than was read, is not parsed. */
static void truncated(void **state)
{
	char buf[256] __attribute__((aligned(NLMSG_ALIGNTO))) = { 0 };
	struct ps_link_event ev[4];
	struct nlmsghdr *nh;
	size_t off = 0;

	(void)state;
	nh = put_msg(buf, &off, RTM_NEWLINK, 5, IFF_UP, 0);
	assert_int_equal(ps_linkwatch_parse(buf, off - 4, ev, 4), 0);
	nh->nlmsg_len = NLMSG_LENGTH(2); /* too short for an ifinfomsg */
	assert_int_equal(ps_linkwatch_parse(buf, off, ev, 4), 0);
	nh->nlmsg_len = 4096; /* longer than the datagram */
	assert_int_equal(ps_linkwatch_parse(buf, off, ev, 4), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(link_events),
		cmocka_unit_test(truncated),
		cmocka_unit_test(names),
		cmocka_unit_test(xdp_ids),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
