// SPDX-License-Identifier: GPL-2.0-only
/*
 * The configuration file on arbitrary text, and what it parses to through
 * the command line's parser and checks: every setting of a file that
 * parses is an argument the parser takes or refuses with a reason, and a
 * refusal names an argument of the file (or none).
 */
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ps_config c;
	struct ps_opts *o;
	char err[512], **argv;
	int bad = -1;

	if (ps_config_parse((const char *)data, size, &c, err, sizeof(err))) {
		if (!err[0] || c.n || c.args)
			abort(); /* a reason, and nothing kept */
		return 0;
	}
	argv = calloc((size_t)c.n + 2, sizeof(*argv));
	o = malloc(sizeof(*o));
	if (!argv || !o)
		abort();
	argv[0] = "pktsample";
	for (int i = 0; i < c.n; i++) {
		if (strncmp(c.args[i], "--", 2) || c.lines[i] < 1)
			abort();
		argv[1 + i] = c.args[i];
	}
	if (ps_cli_parse_at(c.n + 1, argv, o, err, sizeof(err), &bad)) {
		if (!err[0] || bad > c.n)
			abort();
	} else {
		(void)ps_cli_check(o, err, sizeof(err));
	}
	free(o);
	free(argv);
	ps_config_free(&c);
	return 0;
}
