// SPDX-License-Identifier: GPL-2.0-only
/*
 * --metrics-web-config's parser (webcfg.h) on arbitrary text: it never
 * crashes or leaks, a refusal gives a reason and keeps nothing, and what
 * it takes holds what the server relies on: TLS with both files or
 * neither, every user named, once, with a bcrypt hash.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "webcfg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ps_webcfg c;
	char err[256];

	if (ps_webcfg_parse((const char *)data, size, &c, err, sizeof(err))) {
		if (!err[0] || c.cert_file || c.key_file || c.users || c.n_users)
			abort();
		return 0;
	}
	if (!c.cert_file != !c.key_file || c.cert_pem || c.key_pem)
		abort();
	for (size_t i = 0; i < c.n_users; i++) {
		if (!c.users[i].name[0] || strncmp(c.users[i].hash, "$2", 2) ||
		    strlen(c.users[i].hash) != 60)
			abort();
		for (size_t j = 0; j < i; j++)
			if (!strcmp(c.users[i].name, c.users[j].name))
				abort();
	}
	ps_webcfg_free(&c);
	return 0;
}
