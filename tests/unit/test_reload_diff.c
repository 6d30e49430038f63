// SPDX-License-Identifier: GPL-2.0-only
/*
 * What a reload does with each setting (user/app/reload_diff.h): applied
 * live, new programs, or a restart named in the line the capture says.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "reload_diff.h"

static const char *const one_iface[] = { "eth0" };
static const char *const two_ifaces[] = { "eth0", "veth*" };

static struct ps_capture_cfg base(void)
{
	return (struct ps_capture_cfg){
		.ifaces = one_iface,
		.n_ifaces = 1,
		.snaplen = 262144,
		.print = true,
		.smp = { .mode = PS_SAMPLE_ALL },
		.context = { .enabled = true },
	};
}

static void diff(const struct ps_capture_cfg *b, const char *fa, const char *fb,
		 struct ps_reload_diff *d)
{
	const struct ps_capture_cfg a = base();
	const struct ps_reload_run run = { &a, fa, NULL, 0, NULL };

	ps_reload_diff(&run, b, fb, d);
}

/* Settings that need new maps, files or outputs, one at a time. */
static const char *const file_line = "the file (write, file-size, rotate-seconds, file-count, "
				     "postrotate-command, epb-verdict)";
static const char *const print_line = "what is printed (print and its flags)";
static const char *const flight_line =
	"the flight recorder (flight, flight-size, trigger, after, holdoff, incidents)";
static const char *const ctx_line =
	"context, pid, comm, cgroup, container, pod, k8s-namespace or host-root";
static const char *const buf_line = "transport, buffer-size or threads";

/* Setting k changed in c; the name the line gives it (NULL past the last). */
static const char *change(struct ps_capture_cfg *c, int k)
{
	switch (k) {
	case 0:
		c->hooks_given = true;
		c->hooks = PS_HOOK_BIT(PS_HOOK_XDP);
		return "hook (or direction)";
	case 1:
		c->xdp_mode = PS_XDP_NATIVE;
		return "xdp-mode or xdp-attach";
	case 2:
		c->xdp_attach = PS_XDP_VIA_LIBXDP;
		return "xdp-mode or xdp-attach";
	case 3:
		c->tc_mode = PS_TC_CLSACT;
		return "tc-mode or tc-position";
	case 4:
		c->tc_position = PS_TC_LAST;
		return "tc-mode or tc-position";
	case 5:
		c->transport = 1;
		return buf_line;
	case 6:
		c->buffer_kib = 4096;
		return buf_line;
	case 7:
		c->threads = 2;
		return buf_line;
	case 8:
		c->snaplen = 128;
		return "snaplen";
	case 9:
		c->max_ifaces = 8;
		return "max-ifaces";
	case 10:
		c->smp.mode = PS_SAMPLE_CLOCK;
		c->smp.interval_ns = 1000;
		return "sample-interval";
	case 11:
		c->count = 10;
		return "count or duration";
	case 12:
		c->duration_ms = 1000;
		return "count or duration";
	case 13:
		c->file.output = "x.pcapng";
		return file_line;
	case 14:
		c->file.file_count = 3;
		return file_line;
	case 15:
		c->file.postrotate_cmd = "gzip";
		return file_line;
	case 16:
		c->print = false;
		return print_line;
	case 17:
		c->line_buffered = true;
		return print_line;
	case 18:
		c->print_opts.link = true;
		return print_line;
	case 19:
		c->sflow.n_collectors = 1;
		return "whether there is sflow";
	case 20:
		c->context.pid = 42;
		return ctx_line;
	case 21:
		c->context.enabled = false;
		return ctx_line;
	case 22:
		c->context.comm = "nginx";
		return ctx_line;
	case 23:
		c->no_promisc = true;
		return "no-promiscuous-mode";
	case 24:
		c->flight.window_ns = 30000000000ull;
		return flight_line;
	case 25:
		c->flight.n_triggers = 1;
		c->flight.triggers[0] = "icmp";
		return flight_line;
	default:
		return NULL;
	}
}

/* Each setting that needs new maps, files or outputs: named. */
static void restart_settings_are_named(void **state)
{
	struct ps_capture_cfg b = base();
	const char *name;

	(void)state;
	for (int k = 0; (name = change(&b, k)); k++) {
		struct ps_reload_diff d;

		diff(&b, NULL, NULL, &d);
		assert_non_null(d.restart);
		assert_string_equal(d.restart, name);
		b = base();
	}
}

/* The filter and the sampling: new programs, no restart; the seed is the
 * capture's own and no change. */
static void filter_and_sampling_swap_programs(void **state)
{
	struct ps_capture_cfg b = base();
	struct ps_reload_diff d;

	(void)state;
	diff(&b, NULL, NULL, &d);
	assert_null(d.restart);
	assert_false(d.programs);
	diff(&b, NULL, "tcp", &d);
	assert_null(d.restart);
	assert_true(d.programs);
	diff(&b, "tcp", "tcp", &d);
	assert_false(d.programs);
	diff(&b, "tcp", NULL, &d);
	assert_true(d.programs);
	b.smp.mode = PS_SAMPLE_RANDOM;
	b.smp.n = 100;
	diff(&b, NULL, NULL, &d);
	assert_null(d.restart);
	assert_true(d.programs);
	b = base();
	b.smp.seed = 1234;
	diff(&b, NULL, NULL, &d);
	assert_false(d.programs);
}

/* Interfaces, sFlow's collectors and timing, --stats and --metrics: live. */
static void live_settings(void **state)
{
	struct ps_capture_cfg b = base();
	struct ps_reload_diff d;

	(void)state;
	b.ifaces = two_ifaces;
	b.n_ifaces = 2;
	b.stats_ms = 1000;
	b.reloadable = true;
	diff(&b, NULL, NULL, &d);
	assert_null(d.restart);
	assert_false(d.programs);
	assert_false(d.metrics);
	b.metrics = true;
	diff(&b, NULL, NULL, &d);
	assert_null(d.restart);
	assert_true(d.metrics);
	/* sFlow on both sides: its collectors and timing change live. */
	{
		struct ps_capture_cfg a = base(), c = base();

		a.sflow.n_collectors = 1;
		c.sflow.n_collectors = 2;
		c.sflow.counters_s = 5;
		c.sflow.burst = 3;
		c.sflow.header_bytes = 256;
		const struct ps_reload_run run = { &a, NULL, NULL, 0, NULL };

		ps_reload_diff(&run, &c, NULL, &d);
		assert_null(d.restart);
	}
}

/* Hooks written otherwise, meaning the same on the interfaces there are:
 * no restart, and the new settings taken; meaning otherwise: a restart. */
static void hooks_by_what_they_mean(void **state)
{
	struct ps_device veth = { .ifindex = 7, .flags = 1, .arphrd = 1, .xdp_native = 1 };
	const unsigned int both = PS_HOOK_BIT(PS_HOOK_TC_INGRESS) | PS_HOOK_BIT(PS_HOOK_TC_EGRESS);
	const struct ps_hook_have have[] = { { &veth, both, false } };
	const struct ps_hooks_loaded loaded = { both, { false, false } };
	struct ps_capture_cfg a = base(), b = base();
	const struct ps_reload_run run = { &a, NULL, have, 1, &loaded };
	struct ps_reload_diff d;

	(void)state;
	snprintf(veth.name, sizeof(veth.name), "v0");
	snprintf(veth.driver, sizeof(veth.driver), "veth");
	/* Running with "hook tc-egress,tc-ingress", the new one without. */
	a.hooks_given = true;
	a.hooks = both;
	ps_reload_diff(&run, &b, NULL, &d);
	assert_null(d.restart);
	assert_true(d.hooks);
	/* The same set, given: nothing to take. */
	b.hooks_given = true;
	b.hooks = both;
	ps_reload_diff(&run, &b, NULL, &d);
	assert_null(d.restart);
	assert_false(d.hooks);
	/* Another set: a restart. */
	b.hooks = PS_HOOK_BIT(PS_HOOK_TC_INGRESS);
	ps_reload_diff(&run, &b, NULL, &d);
	assert_non_null(d.restart);
	assert_string_equal(d.restart, "hook (or direction)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(restart_settings_are_named),
		cmocka_unit_test(filter_and_sampling_swap_programs),
		cmocka_unit_test(live_settings),
		cmocka_unit_test(hooks_by_what_they_mean),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
