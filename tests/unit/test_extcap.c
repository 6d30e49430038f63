// SPDX-License-Identifier: GPL-2.0-only
/*
 * The extcap side: interface values, the dialog's defaults being the
 * command line's, and the dialog's choices mapped onto the command line.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "cli.h"
#include "extcap.h"
#include "support/parse_args.h"

static enum ps_extcap_request req;

#define PARSE(o, err, ...)                                                                         \
	({                                                                                         \
		char *argv_[] = { "pktsample", __VA_ARGS__, NULL };                                \
		ps_test_parse(sizeof(argv_) / sizeof(argv_[0]) - 1, argv_, (o), &req, (err), 256); \
	})

static void interface_values(void **state)
{
	(void)state;
	assert_string_equal(ps_extcap_ifname("pktsample:eth0"), "eth0");
	assert_null(ps_extcap_ifname("eth0"));
	assert_null(ps_extcap_ifname("pktsample:"));
	assert_null(ps_extcap_ifname(NULL));
}

/* Wireshark passes each argument with its default: the result must be the
 * command line's own defaults. */
static void dialog_defaults_are_the_command_lines(void **state)
{
	char *text = NULL, *argv[64], *line, *save;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct ps_opts dialog, cli;
	char err[256];
	int argc = 0;

	(void)state;
	ps_extcap_print_config(f, "eth0");
	fclose(f);
	argv[argc++] = "pktsample";
	argv[argc++] = "--capture";
	argv[argc++] = "--extcap-interface";
	argv[argc++] = "pktsample:eth0";
	argv[argc++] = "--fifo";
	argv[argc++] = "/tmp/fifo";
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *call = strstr(line, "{call="), *def = strstr(line, "{default="), *type;

		if (strncmp(line, "arg ", 4) || !def)
			continue;
		type = strstr(line, "{type=boolflag}");
		*strchr(call, '}') = 0;
		*strchr(def, '}') = 0;
		if (type) { /* a flag: given when its default is true */
			if (!strcmp(def + 9, "true"))
				argv[argc++] = call + 6;
			continue;
		}
		argv[argc++] = call + 6;
		argv[argc++] = def + 9;
	}
	argv[argc] = NULL;
	assert_int_equal(ps_test_parse(argc, argv, &dialog, &req, err, sizeof(err)), 0);
	assert_int_equal(req, PS_EXTCAP_CAPTURE);
	assert_int_equal(PARSE(&cli, err, "-i", "eth0", "-w", "/tmp/fifo"), 0);
	assert_string_equal(dialog.ifaces[0], "eth0");
	assert_string_equal(dialog.output, "/tmp/fifo");
	assert_int_equal(dialog.hooks, cli.hooks);
	assert_int_equal(dialog.snaplen, cli.snaplen);
	assert_int_equal(dialog.no_promisc, cli.no_promisc);
	assert_int_equal(dialog.sample_mode, cli.sample_mode);
	assert_int_equal(dialog.max_rate, cli.max_rate);
	assert_int_equal(dialog.xdp_mode, cli.xdp_mode);
	assert_int_equal(dialog.tc_mode, cli.tc_mode);
	assert_int_equal(dialog.xdp_attach, cli.xdp_attach);
	assert_int_equal(dialog.tc_position, cli.tc_position);
	assert_int_equal(dialog.transport, cli.transport);
	assert_int_equal(dialog.buffer_kib, cli.buffer_kib);
	assert_int_equal(dialog.epb_verdict, cli.epb_verdict);
	free(text);
}

/* lo: the dialog defaults to TC egress alone, as the command line does. */
static void lo_defaults_to_tc_egress(void **state)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	(void)state;
	ps_extcap_print_config(f, "lo");
	fclose(f);
	assert_non_null(
		strstr(text, "{call=--hook}{display=Hooks}{type=multicheck}{default=tc-egress}"));
	assert_non_null(
		strstr(text,
		       "{value=xdp}{display=XDP (ingress, before the stack)}{default=false}"));
	free(text);
}

static void sampling_and_filter_map_onto_the_command_line(void **state)
{
	struct ps_opts o;
	char err[256];

	(void)state;
	assert_int_equal(PARSE(&o, err, "--capture", "--extcap-interface", "pktsample:v0", "--fifo",
			       "f", "--extcap-capture-filter", "udp port 53", "--extcap-sampling",
			       "count", "--extcap-sampling-n", "7"),
			 0);
	assert_int_equal(o.sample_mode, PS_SAMPLE_COUNT);
	assert_int_equal(o.sample_n, 7);
	assert_int_equal(o.n_filter_words, 1);
	assert_string_equal(o.filter_words[0], "udp port 53");
	assert_int_equal(PARSE(&o, err, "--capture", "--extcap-interface", "pktsample:v0", "--fifo",
			       "f", "--extcap-sampling", "flows", "--extcap-sampling-n", "64"),
			 0);
	assert_int_equal(o.sample_mode, PS_SAMPLE_FLOW);
	assert_int_equal(PARSE(&o, err, "--capture", "--extcap-interface", "pktsample:v0", "--fifo",
			       "f", "--extcap-sampling", "interval", "--extcap-sampling-interval",
			       "20ms"),
			 0);
	assert_int_equal(o.sample_mode, PS_SAMPLE_CLOCK);
	assert_int_equal(o.sample_interval_ms, 20);
	assert_int_equal(PARSE(&o, err, "--capture", "--extcap-interface", "pktsample:v0", "--fifo",
			       "f", "--extcap-sampling", "all", "--extcap-sampling-n", "100"),
			 0);
	assert_int_equal(o.sample_mode, PS_SAMPLE_ALL);
	/* The queries need nothing else. */
	assert_int_equal(PARSE(&o, err, "--extcap-interfaces", "--extcap-version=4.0"), 0);
	assert_int_equal(req, PS_EXTCAP_INTERFACES);
	assert_int_equal(PARSE(&o, err, "--extcap-interface", "pktsample:v0", "--extcap-config"),
			 0);
	assert_int_equal(req, PS_EXTCAP_CONFIG);
	assert_int_equal(PARSE(&o, err, "--extcap-interface", "pktsample:v0",
			       "--extcap-capture-filter", "tcp"),
			 0);
	assert_int_equal(req, PS_EXTCAP_CHECK_FILTER);
}

static void bad_extcap_input(void **state)
{
	struct {
		const char *want;
		char *argv[12];
	} cases[] = {
		{ "needs --fifo", { "--capture", "--extcap-interface", "pktsample:v0" } },
		{ "is not a pktsample interface", { "--extcap-interface", "v0", "--extcap-dlts" } },
		{ "need --extcap-interface", { "--extcap-config" } },
		{ "bad --sample '0'",
		  { "--capture", "--extcap-interface", "pktsample:v0", "--fifo", "f",
		    "--extcap-sampling", "random", "--extcap-sampling-n", "0" } },
		{ "bad --extcap-sampling 'most'",
		  { "--capture", "--extcap-interface", "pktsample:v0", "--fifo", "f",
		    "--extcap-sampling", "most" } },
		{ "takes its interface and output from Wireshark",
		  { "--capture", "--extcap-interface", "pktsample:v0", "--fifo", "f", "-i",
		    "v1" } },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *argv[16] = { "pktsample" };
		struct ps_opts o;
		char err[256] = "";
		int argc = 1, r;

		while (cases[i].argv[argc - 1])
			argv[argc] = cases[i].argv[argc - 1], argc++;
		r = ps_test_parse(argc, argv, &o, &req, err, sizeof(err));
		if (r != -EINVAL || !strstr(err, cases[i].want) || strchr(err, '\n'))
			fail_msg("case %zu: %d '%s', want '%s'", i, r, err, cases[i].want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(interface_values),
		cmocka_unit_test(dialog_defaults_are_the_command_lines),
		cmocka_unit_test(lo_defaults_to_tc_egress),
		cmocka_unit_test(sampling_and_filter_map_onto_the_command_line),
		cmocka_unit_test(bad_extcap_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
