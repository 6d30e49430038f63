// SPDX-License-Identifier: GPL-2.0-only
/* -D's line: state, driver, link type, default ingress hook and why, the
 * XDP mode auto would use, the TC attach. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <net/if_arp.h>
#include <cmocka.h>
#include "iflist.h"

static const char *line_of(const struct ps_device *d, bool tcx)
{
	static char buf[512];

	ps_iflist_format(buf, sizeof(buf), d, tcx);
	return buf;
}

static void lines(void **state)
{
	(void)state;
	assert_string_equal(line_of(&(struct ps_device){ .ifindex = 4,
							 .name = "eth0",
							 .flags = IFF_UP | IFF_RUNNING,
							 .arphrd = ARPHRD_ETHER,
							 .driver = "ixgbe",
							 .xdp_native = 1 },
				    true),
			    "4.eth0 [Up, Running] driver ixgbe, link EN10MB, ingress tc-ingress (a native "
			    "XDP attach resets the rings of many NICs), xdp native, tc tcx");
	/* veth: skb mode by measurement, even though its driver has XDP */
	assert_string_equal(
		line_of(&(struct ps_device){ .ifindex = 7,
					     .name = "v0",
					     .flags = IFF_UP,
					     .arphrd = ARPHRD_ETHER,
					     .driver = "veth",
					     .xdp_native = 1 },
			false),
		"7.v0 [Up] driver veth, link EN10MB, ingress tc-ingress (native XDP on veth "
		"turns off the peer's TSO, generic XDP bypasses GRO), xdp skb, tc clsact");
	assert_string_equal(line_of(&(struct ps_device){ .ifindex = 1,
							 .name = "lo",
							 .flags = IFF_UP | IFF_RUNNING |
								  IFF_LOOPBACK,
							 .arphrd = ARPHRD_LOOPBACK,
							 .xdp_native = 0 },
				    true),
			    "1.lo [Up, Running, Loopback] driver unknown, link EN10MB, ingress none (every "
			    "packet on lo passes tc-egress, once), xdp skb, tc tcx");
	assert_string_equal(
		line_of(&(struct ps_device){ .ifindex = 3,
					     .name = "t",
					     .arphrd = ARPHRD_NONE,
					     .driver = "tun",
					     .xdp_native = -1 },
			true),
		"3.t [Down] driver tun, link RAW, ingress tc-ingress (native XDP resets many NICs' "
		"rings, generic XDP bypasses GRO; which the driver has, kernels before 6.3 do not "
		"say), xdp native if the driver has it, else skb (unknown before 6.3), tc tcx");
	assert_string_equal(
		line_of(&(struct ps_device){ .ifindex = 9,
					     .name = "mon0",
					     .arphrd = ARPHRD_IEEE80211_RADIOTAP,
					     .xdp_native = 0 },
			true),
		"9.mon0 [Down] driver unknown, link ARPHRD 803 (pktsample cannot write it), "
		"ingress tc-ingress (no native XDP; generic XDP bypasses GRO and turns off LRO), "
		"xdp skb, tc tcx");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
