// SPDX-License-Identifier: GPL-2.0-only
/* What a device means for a capture: link type, default ingress hook, XDP
 * mode and its cost (user/kernel/device.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <net/if_arp.h>
#include <cmocka.h>
#include "device.h"

static const struct ps_device veth = { .ifindex = 7,
				       .name = "v0",
				       .flags = IFF_UP,
				       .arphrd = ARPHRD_ETHER,
				       .driver = "veth",
				       .xdp_native = 1,
				       .rx_vlan_offload = 1 };
static const struct ps_device nic = { .ifindex = 2,
				      .name = "eth0",
				      .flags = IFF_UP,
				      .arphrd = ARPHRD_ETHER,
				      .driver = "ixgbe",
				      .xdp_native = 1,
				      .rx_vlan_offload = 0 };
static const struct ps_device bridge = { .ifindex = 3,
					 .name = "br0",
					 .flags = IFF_UP,
					 .arphrd = ARPHRD_ETHER,
					 .driver = "bridge",
					 .xdp_native = 0 };
static const struct ps_device tun = { .ifindex = 4,
				      .name = "tun0",
				      .flags = IFF_UP,
				      .arphrd = ARPHRD_NONE,
				      .driver = "tun",
				      .xdp_native = -1 };
static const struct ps_device lo = { .ifindex = 1,
				     .name = "lo",
				     .flags = IFF_UP | IFF_LOOPBACK,
				     .arphrd = ARPHRD_LOOPBACK,
				     .xdp_native = 0 };
/* Before 6.3 no kernel says which drivers have XDP: lo's is known all the same. */
static const struct ps_device lo_before_6_3 = { .ifindex = 1,
						.name = "lo",
						.flags = IFF_UP | IFF_LOOPBACK,
						.arphrd = ARPHRD_LOOPBACK,
						.xdp_native = -1 };

/* As libpcap: Ethernet and lo as Ethernet, header-less devices as RAW. */
static void link_types(void **state)
{
	(void)state;
	assert_int_equal(PS_LINKTYPE_ETHERNET, ps_linktype_of(ARPHRD_ETHER));
	assert_int_equal(PS_LINKTYPE_ETHERNET, ps_linktype_of(ARPHRD_LOOPBACK));
	assert_int_equal(PS_LINKTYPE_RAW, ps_linktype_of(ARPHRD_NONE));	  /* tun, wireguard */
	assert_int_equal(PS_LINKTYPE_RAW, ps_linktype_of(ARPHRD_TUNNEL)); /* ipip */
	assert_int_equal(PS_LINKTYPE_RAW, ps_linktype_of(ARPHRD_TUNNEL6));
	assert_int_equal(PS_LINKTYPE_RAW, ps_linktype_of(ARPHRD_SIT));
	assert_int_equal(PS_LINKTYPE_RAW, ps_linktype_of(ARPHRD_IPGRE));
	assert_int_equal(PS_LINKTYPE_RAW, ps_linktype_of(519)); /* ARPHRD_RAWIP */
	assert_int_equal(-1, ps_linktype_of(ARPHRD_IEEE80211_RADIOTAP));
	assert_int_equal(-1, ps_linktype_of(ARPHRD_INFINIBAND));
	assert_int_equal(-1, ps_linktype_of(-1));
	assert_string_equal("EN10MB", ps_linktype_name(PS_LINKTYPE_ETHERNET));
	assert_string_equal("RAW", ps_linktype_name(PS_LINKTYPE_RAW));
}

/* No device kind gets XDP by default, each with its reason; lo none. */
static void default_ingress(void **state)
{
	const unsigned int tc = PS_HOOK_BIT(PS_HOOK_TC_INGRESS);
	char why[256];

	(void)state;
	assert_int_equal(tc, ps_device_default_ingress(&veth, why, sizeof(why)));
	assert_non_null(strstr(why, "peer's TSO"));
	assert_int_equal(tc, ps_device_default_ingress(&nic, why, sizeof(why)));
	assert_non_null(strstr(why, "resets the rings"));
	assert_int_equal(tc, ps_device_default_ingress(&bridge, why, sizeof(why)));
	assert_non_null(strstr(why, "no native XDP"));
	assert_int_equal(tc, ps_device_default_ingress(&tun, why, sizeof(why)));
	assert_non_null(strstr(why, "kernels before 6.3 do not say")); /* no netdev family */
	assert_int_equal(0, ps_device_default_ingress(&lo, why, sizeof(why)));
	assert_non_null(strstr(why, "tc-egress"));
}

/* Someone else's XDP program: traced at its entry and exit where the
 * kernel allows it, else tc-ingress, with the program and the reason. */
static void default_ingress_around_xdp(void **state)
{
	struct ps_device lb = nic;
	char why[256];

	(void)state;
	lb.xdp_prog_id = 42;
	snprintf(lb.xdp_prog_name, sizeof(lb.xdp_prog_name), "katran");
	lb.xdp_traceable = 1;
	assert_int_equal(PS_HOOKS_XDP_TRACE, ps_device_default_ingress(&lb, why, sizeof(why)));
	assert_string_equal("XDP program 42 (katran) is attached: traced at its entry and exit",
			    why);
	lb.xdp_traceable = 0;
	snprintf(lb.xdp_trace_why, sizeof(lb.xdp_trace_why),
		 "the kernel refuses fentry on it (Operation not permitted)");
	assert_int_equal(PS_HOOK_BIT(PS_HOOK_TC_INGRESS),
			 ps_device_default_ingress(&lb, why, sizeof(why)));
	assert_string_equal("XDP program 42 (katran) is attached and the kernel refuses fentry on "
			    "it (Operation not permitted); tc-ingress sees what it passes",
			    why);
}

/* --hook's names, and a set of them as -v and -D print it. */
static void hook_sets(void **state)
{
	char buf[64];

	(void)state;
	ps_hooks_format(PS_HOOKS_XDP_TRACE | PS_HOOK_BIT(PS_HOOK_TC_EGRESS), buf, sizeof(buf));
	assert_string_equal("tc-egress,xdp-entry,xdp-exit", buf);
	ps_hooks_format(0, buf, sizeof(buf));
	assert_string_equal("none", buf);
	ps_hooks_format(PS_HOOKS_DEFAULT, buf, 12); /* cut, terminated */
	assert_string_equal("tc-ingress,", buf);
}

/* --xdp-mode auto with --hook xdp: skb on veth (measured cheaper), native
 * where the driver has XDP, skb where it has none, auto if unknown. */
static void xdp_modes_and_costs(void **state)
{
	(void)state;
	assert_int_equal(PS_XDP_SKB, ps_device_xdp_mode(&veth));
	assert_int_equal(PS_XDP_NATIVE, ps_device_xdp_mode(&nic));
	assert_int_equal(PS_XDP_SKB, ps_device_xdp_mode(&bridge));
	assert_int_equal(PS_XDP_AUTO, ps_device_xdp_mode(&tun));
	assert_int_equal(PS_XDP_SKB, ps_device_xdp_mode(&lo_before_6_3));
	assert_non_null(strstr(ps_device_xdp_cost(&bridge, PS_XDP_SKB), "bypasses GRO"));
	assert_non_null(strstr(ps_device_xdp_cost(&veth, PS_XDP_NATIVE), "TSO on the peer"));
	assert_non_null(strstr(ps_device_xdp_cost(&nic, PS_XDP_NATIVE), "resets the rings"));
}

/* The probe on a real device, and on none. */
static void probe(void **state)
{
	struct ps_device d;

	(void)state;
	assert_int_equal(-ENODEV, ps_device_probe(&d, 0x7fffff00, NULL));
	assert_int_equal(0, ps_device_probe(&d, 1, NULL)); /* lo is ifindex 1 */
	assert_string_equal("lo", d.name);
	assert_int_equal(ARPHRD_LOOPBACK, d.arphrd);
	assert_true(d.flags & IFF_LOOPBACK);
	assert_int_equal(-1, d.xdp_native); /* no netlink asked */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(link_types),
		cmocka_unit_test(default_ingress),
		cmocka_unit_test(default_ingress_around_xdp),
		cmocka_unit_test(hook_sets),
		cmocka_unit_test(xdp_modes_and_costs),
		cmocka_unit_test(probe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
