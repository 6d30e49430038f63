// SPDX-License-Identifier: GPL-2.0-only
/* The configuration file: settings into the command line's arguments,
 * and each kind of bad line named by its number. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "cli.h"
#include "config.h"

#define PARSE(text, c, err) ps_config_parse(text, strlen(text), c, err, sizeof(err))

static void settings(void **state)
{
	static const char text[] = "# a comment\n"
				   "\n"
				   "iface any\n"
				   "   iface\tveth*  \n"
				   "sample 256\n"
				   "print\n"
				   "filter not port 22 and host 192.0.2.1\r\n"
				   "#sflow 192.0.2.9\n"
				   "sflow [2001:db8::1]:6343";
	struct ps_config c;
	char err[128];

	(void)state;
	assert_int_equal(PARSE(text, &c, err), 0);
	assert_int_equal(c.n, 6);
	assert_string_equal(c.args[0], "--iface=any");
	assert_int_equal(c.lines[0], 3);
	assert_string_equal(c.args[1], "--iface=veth*");
	assert_int_equal(c.lines[1], 4);
	assert_string_equal(c.args[2], "--sample=256");
	assert_string_equal(c.args[3], "--print");
	assert_string_equal(c.args[4], "--filter=not port 22 and host 192.0.2.1");
	assert_int_equal(c.lines[4], 7);
	assert_string_equal(c.args[5], "--sflow=[2001:db8::1]:6343");
	assert_int_equal(c.lines[5], 9);
	ps_config_free(&c);
	assert_int_equal(PARSE("", &c, err), 0);
	assert_int_equal(c.n, 0);
}

/* Each bad line: its number and why, and nothing kept. */
static void bad_lines(void **state)
{
	static const struct {
		const char *text, *err;
	} cases[] = {
		{ "iface eth0\nbogus 1\n", "2: unknown setting 'bogus'" },
		{ "iface eth0\n\n\nsample\n", "4: 'sample' needs a value" },
		{ "print yes\n", "1: 'print' takes no value" },
		{ "read-file x.pcap\n",
		  "1: 'read-file' is not a setting for a configuration file" },
		{ "config /etc/other.conf\n",
		  "1: 'config' is not a setting for a configuration file" },
		{ "fifo /tmp/f\n", "1: 'fifo' is not a setting for a configuration file" },
		{ "--iface eth0\n", "1: unknown setting '--iface'" },
		{ "iface=eth0\n", "1: unknown setting 'iface=eth0'" },
		{ "iface eth\0 0\n", "1: a NUL byte" },
	};
	char err[128];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ps_config c;
		size_t len = strlen(cases[i].text);

		if (i == sizeof(cases) / sizeof(cases[0]) - 1)
			len = sizeof("iface eth\0 0\n") - 1;
		assert_int_equal(ps_config_parse(cases[i].text, len, &c, err, sizeof(err)),
				 -EINVAL);
		assert_string_equal(err, cases[i].err);
		assert_int_equal(c.n, 0);
		assert_null(c.args);
	}
}

/* The file: its name before the line; a file that is not there. */
static void files(void **state)
{
	char path[] = "/tmp/pktsample-config.XXXXXX", err[512], want[600];
	struct ps_config c;
	FILE *f;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fputs("iface lo\nsample 0x\nstats\n", f);
	fclose(f);
	assert_int_equal(ps_config_read(path, &c, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "%s:3: 'stats' needs a value", path);
	assert_string_equal(err, want);
	unlink(path);
	assert_int_equal(ps_config_read(path, &c, err, sizeof(err)), -ENOENT);
	snprintf(want, sizeof(want), "%s: No such file or directory", path);
	assert_string_equal(err, want);
}

/* text's settings as the command line's arguments, after argv[0]
 * (argv has room for them all). */
static void as_argv(const char *text, struct ps_config *c, char **argv)
{
	char why[256];

	assert_int_equal(ps_config_parse(text, strlen(text), c, why, sizeof(why)), 0);
	argv[0] = "pktsample";
	for (int i = 0; i < c->n; i++)
		argv[1 + i] = c->args[i];
}

/* What the command line's parser makes of the arguments, and which one it
 * found wrong: how a bad value is traced back to its line. */
static void parsed_as_options(void **state)
{
	static const char text[] = "iface lo\nsample 10\nfilter udp port 53\nsflow-burst 0\n";
	char *argv[8], err[256];
	struct ps_opts o;
	struct ps_config c;
	int bad = 0;

	(void)state;
	as_argv(text, &c, argv);
	assert_int_not_equal(ps_cli_parse_at(1 + c.n, argv, &o, err, sizeof(err), &bad), 0);
	assert_int_equal(bad, 4);
	assert_int_equal(c.lines[bad - 1], 4);
	assert_non_null(strstr(err, "--sflow-burst"));
	assert_int_equal(ps_cli_parse_at(1 + c.n - 1, argv, &o, err, sizeof(err), &bad), 0);
	assert_int_equal(ps_cli_check(&o, err, sizeof(err)), 0);
	assert_int_equal(o.n_filter_words, 1);
	assert_string_equal(o.filter_words[0], "udp port 53");
	assert_int_equal(o.sample_n, 10);
	ps_config_free(&c);
}

/* The flight recorder's settings: each trigger a line, the rest of it its
 * expression. */
static void flight_settings(void **state)
{
	static const char text[] = "iface lo\nwrite inc.pcapng\nhook tc-ingress,drop\n"
				   "flight 30s\nflight-size 16m\nafter 2s\nholdoff 1m\n"
				   "trigger tcp[tcpflags] & tcp-rst != 0\ntrigger drop:NO_SOCKET\n"
				   "incidents 4\n";
	char *argv[16], err[256];
	struct ps_opts o;
	struct ps_config c;
	int bad = 0;

	(void)state;
	as_argv(text, &c, argv);
	assert_int_equal(ps_cli_parse_at(1 + c.n, argv, &o, err, sizeof(err), &bad), 0);
	assert_int_equal(ps_cli_check(&o, err, sizeof(err)), 0);
	assert_int_equal(o.flight_ms, 30000);
	assert_int_equal(o.flight_size, 16ull << 20);
	assert_int_equal(o.after_ms, 2000);
	assert_int_equal(o.holdoff_ms, 60000);
	assert_int_equal(o.incidents, 4);
	assert_int_equal(o.n_triggers, 2);
	assert_string_equal(o.triggers[0], "tcp[tcpflags] & tcp-rst != 0");
	assert_string_equal(o.triggers[1], "drop:NO_SOCKET");
	ps_config_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(settings),	     cmocka_unit_test(flight_settings),
		cmocka_unit_test(bad_lines),	     cmocka_unit_test(files),
		cmocka_unit_test(parsed_as_options),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
