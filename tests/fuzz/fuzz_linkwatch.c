// SPDX-License-Identifier: GPL-2.0-only
/*
 * rtnetlink link messages as the kernel might send them, or not: the link
 * watch's events (ifindex, name, flags) and the XDP program id of one
 * interface's RTM_GETLINK answer. The first byte picks the ifindex asked
 * about; the rest is the datagram.
 */
#include <stdlib.h>
#include <string.h>
#include <linux/netlink.h>
#include "linkwatch.h"

static char buf[65536] __attribute__((aligned(NLMSG_ALIGNTO)));

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ps_link_event ev[8];
	uint32_t id = 1;
	int n, ifindex;

	if (size < 1 || size - 1 > sizeof(buf))
		return 0;
	ifindex = data[0];
	memcpy(buf, data + 1, size - 1);
	n = ps_linkwatch_parse(buf, size - 1, ev, 8);
	if (n < 0 || n > 8)
		abort();
	for (int i = 0; i < n; i++)
		if (memchr(ev[i].name, '\0', sizeof(ev[i].name)) == NULL)
			abort(); /* every name is a string */
	if (ps_link_parse_xdp(buf, size - 1, ifindex, &id) && id)
		abort(); /* no id without an answer */
	return 0;
}
