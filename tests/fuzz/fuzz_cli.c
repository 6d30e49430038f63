// SPDX-License-Identifier: GPL-2.0-only
/*
 * The command-line parser on arbitrary argv (the input's NUL-separated
 * words): it returns 0 or -EINVAL, and a refusal is one non-empty line.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "support/parse_args.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1), *argv[65] = { "pktsample" };
	enum ps_extcap_request req;
	struct ps_opts o;
	char err[256];
	int argc = 1, ret;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = 0;
	for (size_t i = 0; i < size && argc < 64;) {
		argv[argc++] = buf + i;
		i += strlen(buf + i) + 1;
	}
	argv[argc] = NULL;
	ret = ps_test_parse(argc, argv, &o, &req, err, sizeof(err));
	if (ret != 0 && ret != -EINVAL)
		abort();
	if (ret && !err[0]) /* one line once printed: the logger escapes control characters */
		abort();
	if (!ret && !o.help && !o.version && !o.list_interfaces && !o.dump_filter && !req &&
	    !o.read_file) {
		if (!o.n_ifaces || o.snaplen == 0 || o.snaplen > PS_SNAPLEN_MAX)
			abort();
		if (o.sflow.n_collectors && !o.sflow.rate)
			abort();
	}
	free(buf);
	return 0;
}
