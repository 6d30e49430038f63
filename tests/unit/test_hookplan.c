// SPDX-License-Identifier: GPL-2.0-only
/*
 * Which hooks each kind of device gets, in which XDP mode, and the line -v
 * says (user/app/hookplan.h): at the start and for an interface that comes
 * later, with the kernel's features (native XDP, tracing XDP programs)
 * present or absent.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <net/if_arp.h>
#include <cmocka.h>
#include "hookplan.h"

#define TC_IN PS_HOOK_BIT(PS_HOOK_TC_INGRESS)
#define TC_OUT PS_HOOK_BIT(PS_HOOK_TC_EGRESS)
#define XDP PS_HOOK_BIT(PS_HOOK_XDP)

static const struct ps_hook_opts defaults = { .xdp_mode = PS_XDP_AUTO };

static struct ps_device dev(const char *name, int arphrd, const char *driver, int xdp_native,
			    unsigned int flags)
{
	struct ps_device d = {
		.ifindex = 7, .flags = flags, .arphrd = arphrd, .xdp_native = xdp_native
	};

	snprintf(d.name, sizeof(d.name), "%s", name);
	snprintf(d.driver, sizeof(d.driver), "%s", driver);
	return d;
}

/* Without --hook: tc-ingress and tc-egress on every kind, lo tc-egress
 * alone; header-less devices as raw IP; the reason in the line. */
static void every_device_kind_by_default(void **state)
{
	const struct {
		struct ps_device d;
		int linktype;
		unsigned int hooks;
		enum ps_xdp_mode mode;
		const char *line;
	} cases[] = {
		{ dev("v0", ARPHRD_ETHER, "veth", 1, IFF_UP), PS_LINKTYPE_ETHERNET, TC_IN | TC_OUT,
		  PS_XDP_SKB, "v0: link type EN10MB; ingress at tc-ingress: " },
		{ dev("eth0", ARPHRD_ETHER, "ixgbe", 1, IFF_UP), PS_LINKTYPE_ETHERNET,
		  TC_IN | TC_OUT, PS_XDP_NATIVE,
		  "eth0: link type EN10MB; ingress at tc-ingress: " },
		{ dev("br0", ARPHRD_ETHER, "bridge", 0, IFF_UP), PS_LINKTYPE_ETHERNET,
		  TC_IN | TC_OUT, PS_XDP_SKB, "br0: link type EN10MB; ingress at tc-ingress: " },
		{ dev("tun0", ARPHRD_NONE, "tun", -1, IFF_UP), PS_LINKTYPE_RAW, TC_IN | TC_OUT,
		  PS_XDP_AUTO, "tun0: link type RAW; ingress at tc-ingress: " },
		{ dev("lo", ARPHRD_LOOPBACK, "", 0, IFF_UP | IFF_LOOPBACK), PS_LINKTYPE_ETHERNET,
		  TC_OUT, PS_XDP_SKB, "lo: link type EN10MB; ingress at none: " },
		{ dev("ib0", ARPHRD_INFINIBAND, "mlx5", 1, IFF_UP), -1, TC_IN | TC_OUT,
		  PS_XDP_NATIVE, "ib0: link type ?; ingress at tc-ingress: " },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ps_hook_plan p;

		ps_hook_plan(&cases[i].d, &defaults, NULL, &p);
		assert_int_equal(p.linktype, cases[i].linktype);
		assert_int_equal(p.hooks, cases[i].hooks);
		assert_int_equal(p.xdp_mode, cases[i].mode);
		assert_int_equal(p.missing, 0);
		assert_memory_equal(p.line, cases[i].line, strlen(cases[i].line));
	}
}

/* --hook and --xdp-mode as asked, whatever the device. */
static void hooks_as_asked(void **state)
{
	const struct ps_hook_opts o = { .hooks_given = true,
					.hooks = XDP | TC_OUT,
					.xdp_mode = PS_XDP_NATIVE };
	struct ps_device lo = dev("lo", ARPHRD_LOOPBACK, "", 0, IFF_UP | IFF_LOOPBACK);
	struct ps_hook_plan p;

	(void)state;
	ps_hook_plan(&lo, &o, NULL, &p);
	assert_int_equal(p.hooks, XDP | TC_OUT);
	assert_int_equal(p.xdp_mode, PS_XDP_NATIVE);
	assert_string_equal(p.line, "lo: link type EN10MB; hooks as asked");
}

/* Another tool's XDP program: traced at its entry and exit where the
 * kernel lets us (fentry on XDP programs), else tc-ingress, said why. */
static void around_an_xdp_program(void **state)
{
	struct ps_device lb = dev("eth1", ARPHRD_ETHER, "ixgbe", 1, IFF_UP);
	struct ps_hook_plan p;

	(void)state;
	lb.xdp_prog_id = 42;
	snprintf(lb.xdp_prog_name, sizeof(lb.xdp_prog_name), "katran");
	lb.xdp_traceable = 1;
	ps_hook_plan(&lb, &defaults, NULL, &p);
	assert_int_equal(p.hooks, PS_HOOKS_XDP_TRACE | TC_OUT);
	assert_non_null(strstr(p.line, "ingress at xdp-entry,xdp-exit: XDP program 42 (katran)"));
	/* A kernel without fentry on XDP programs. */
	lb.xdp_traceable = 0;
	snprintf(lb.xdp_trace_why, sizeof(lb.xdp_trace_why), "the kernel refuses fentry on it");
	ps_hook_plan(&lb, &defaults, NULL, &p);
	assert_int_equal(p.hooks, TC_IN | TC_OUT);
	assert_non_null(strstr(p.line, "tc-ingress sees what it passes"));
}

/* Later: no tracing programs of its own (tc-ingress instead), and what the
 * start did not load is missing, and said. */
static void an_interface_that_comes_later(void **state)
{
	const struct ps_hooks_loaded tc_only = { .hooks = PS_HOOKS_TC };
	const struct ps_hooks_loaded xdp_native = { .hooks = PS_HOOKS_TC | XDP,
						    .xdp = { true, false } };
	const struct ps_hook_opts asked = { .hooks_given = true,
					    .hooks = XDP | TC_IN,
					    .xdp_mode = PS_XDP_AUTO };
	struct ps_device lb = dev("eth1", ARPHRD_ETHER, "ixgbe", 1, IFF_UP);
	struct ps_device veth = dev("v1", ARPHRD_ETHER, "veth", 1, IFF_UP);
	struct ps_hook_plan p;

	(void)state;
	lb.xdp_prog_id = 42;
	lb.xdp_traceable = 1;
	ps_hook_plan(&lb, &defaults, &tc_only, &p);
	assert_int_equal(p.hooks, TC_IN | TC_OUT);
	assert_int_equal(p.missing, 0);
	assert_non_null(strstr(p.line, "it came after the start, with an XDP program"));
	/* XDP asked, not loaded at the start: missing. */
	ps_hook_plan(&veth, &asked, &tc_only, &p);
	assert_int_equal(p.hooks, TC_IN);
	assert_int_equal(p.missing, XDP);
	/* Loaded, but only native: a veth takes skb mode, which is missing. */
	ps_hook_plan(&veth, &asked, &xdp_native, &p);
	assert_int_equal(p.xdp_mode, PS_XDP_SKB);
	assert_int_equal(p.missing, XDP);
	/* A NIC takes native: there. */
	ps_hook_plan(&lb, &asked, &xdp_native, &p);
	assert_int_equal(p.hooks, XDP | TC_IN);
	assert_int_equal(p.missing, 0);
	/* Tracing asked for: never for one that comes later. */
	ps_hook_plan(&lb,
		     &(struct ps_hook_opts){ .hooks_given = true,
					     .hooks = PS_HOOKS_XDP_TRACE | TC_OUT },
		     &(struct ps_hooks_loaded){ .hooks = PS_HOOKS_TC | PS_HOOKS_XDP_TRACE }, &p);
	assert_int_equal(p.hooks, TC_OUT);
	assert_int_equal(p.missing, PS_HOOKS_XDP_TRACE);
}

/* A reload's hook settings weighed by what they mean for the interfaces
 * there are: the default written out, or reordered, changes nothing; a
 * different set, or one the loaded programs do not cover, does. */
static void settings_that_mean_the_same(void **state)
{
	const struct ps_device veth = dev("v0", ARPHRD_ETHER, "veth", 1, IFF_UP),
			       lo = dev("lo", ARPHRD_LOOPBACK, "", 0, IFF_UP | IFF_LOOPBACK);
	const struct ps_hook_have both[] = { { &veth, TC_IN | TC_OUT, false },
					     { &lo, TC_OUT, false } },
				  one[] = { { &veth, TC_IN | TC_OUT, false } };
	const struct ps_hooks_loaded tc = { TC_IN | TC_OUT, { false, false } };
	const struct ps_hook_opts tc_both = { true, TC_IN | TC_OUT, PS_XDP_AUTO },
				  tc_in = { true, TC_IN, PS_XDP_AUTO },
				  xdp = { true, XDP | TC_OUT, PS_XDP_AUTO };

	(void)state;
	assert_true(ps_hook_plan_keeps(one, 1, &defaults, &tc));
	assert_true(ps_hook_plan_keeps(one, 1, &tc_both, &tc));
	assert_false(ps_hook_plan_keeps(one, 1, &tc_in, &tc));
	/* No program for XDP: not for those that come either. */
	assert_false(ps_hook_plan_keeps(NULL, 0, &xdp, &tc));
	assert_false(ps_hook_plan_keeps(NULL, 0, &tc_both, NULL));
	/* lo has tc-egress alone by default: "both" is a change there. */
	assert_true(ps_hook_plan_keeps(both, 2, &defaults, &tc));
	assert_false(ps_hook_plan_keeps(both, 2, &tc_both, &tc));
}

/* --packet-id auto follows packets where one can meet two of the hooks. */
static void packets_followed_where_they_meet_two_hooks(void **state)
{
	const unsigned int drop = PS_HOOKS_DROP;

	(void)state;
	assert_false(ps_packet_id_paths(PS_PKTID_AUTO, TC_IN | TC_OUT, 1));
	assert_true(ps_packet_id_paths(PS_PKTID_AUTO, TC_IN | TC_OUT, 2));
	assert_true(ps_packet_id_paths(PS_PKTID_AUTO, TC_IN | drop, 1));
	assert_false(ps_packet_id_paths(PS_PKTID_AUTO, drop, 1));
	assert_true(ps_packet_id_paths(PS_PKTID_AUTO, PS_HOOKS_XDP_TRACE | TC_OUT, 1));
	assert_false(ps_packet_id_paths(PS_PKTID_AUTO, PS_HOOK_BIT(PS_HOOK_XDP_ENTRY) | TC_OUT, 1));
	assert_true(ps_packet_id_paths(PS_PKTID_AUTO, drop, 2));
	assert_true(ps_packet_id_paths(PS_PKTID_PATH, TC_OUT, 1));
	assert_false(ps_packet_id_paths(PS_PKTID_CPU, TC_IN | drop, 2));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_device_kind_by_default),
		cmocka_unit_test(hooks_as_asked),
		cmocka_unit_test(around_an_xdp_program),
		cmocka_unit_test(an_interface_that_comes_later),
		cmocka_unit_test(settings_that_mean_the_same),
		cmocka_unit_test(packets_followed_where_they_meet_two_hooks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
