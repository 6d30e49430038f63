// SPDX-License-Identifier: GPL-2.0-only
/*
 * The runtimes' records from arbitrary bytes (a file on disk is whatever
 * wrote it): each parser takes them, never reads past them, and every
 * name it gives is terminated and one word of a comment.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "ctrnames.h"

static void one_word(const char *s, size_t len)
{
	size_t n = strnlen(s, len);

	if (n == len)
		abort();
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] <= ' ' || s[i] == '=')
			abort();
}

static void check(const struct ps_ctr_names *n)
{
	one_word(n->name, sizeof(n->name));
	one_word(n->image, sizeof(n->image));
	one_word(n->pod, sizeof(n->pod));
	one_word(n->pod_ns, sizeof(n->pod_ns));
	one_word(n->k8s_container, sizeof(n->k8s_container));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *json = (const char *)data;
	struct ps_ctr_names n;

	memset(&n, 0, sizeof(n));
	ps_ctr_names_docker(json, size, &n);
	check(&n);
	memset(&n, 0, sizeof(n));
	ps_ctr_names_oci(json, size, &n);
	check(&n);
	memset(&n, 0, sizeof(n));
	ps_ctr_names_storage(json, size, "1cd6e7c7d83e", &n);
	check(&n);
	return 0;
}
