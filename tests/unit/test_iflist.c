// SPDX-License-Identifier: GPL-2.0-only
/* -D's line: state, driver, the XDP mode auto would use, the TC attach. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include "iflist.h"

static const char *line_of(const struct ps_ifinfo *i)
{
	static char buf[256];

	ps_iflist_format(buf, sizeof(buf), i);
	return buf;
}

static void lines(void **state)
{
	(void)state;
	assert_string_equal(line_of(&(struct ps_ifinfo){ .index = 4, .name = "eth0",
		.flags = IFF_UP | IFF_RUNNING, .driver = "ixgbe", .xdp_native = 1, .tcx = true }),
		"4.eth0 [Up, Running] driver ixgbe, xdp native, tc tcx");
	/* veth: skb mode by measurement, even though its driver has XDP */
	assert_string_equal(line_of(&(struct ps_ifinfo){ .index = 7, .name = "v0",
		.flags = IFF_UP, .driver = "veth", .xdp_native = 1, .tcx = false }),
		"7.v0 [Up] driver veth, xdp skb, tc clsact");
	assert_string_equal(line_of(&(struct ps_ifinfo){ .index = 1, .name = "lo",
		.flags = IFF_UP | IFF_RUNNING | IFF_LOOPBACK, .xdp_native = 0, .tcx = true }),
		"1.lo [Up, Running, Loopback] driver unknown, xdp skb, tc tcx");
	assert_string_equal(line_of(&(struct ps_ifinfo){ .index = 3, .name = "x",
		.driver = "foo", .xdp_native = -1, .tcx = true }),
		"3.x [Down] driver foo, xdp native if the driver has XDP, else skb, tc tcx");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
