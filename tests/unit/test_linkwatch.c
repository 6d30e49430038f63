// SPDX-License-Identifier: GPL-2.0-only
/* rtnetlink link messages in, interface events out. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include <net/if.h>
#include <linux/netlink.h>
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
