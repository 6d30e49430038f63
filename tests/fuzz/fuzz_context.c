// SPDX-License-Identifier: GPL-2.0-only
/*
 * Containers from arbitrary cgroup paths (a path is whatever the runtime
 * named its cgroup), and a packet owner's words from arbitrary fields:
 * never past a buffer, always terminated, and a container's name always
 * matches itself.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "container.h"
#include "who.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[4096], name[200], buf[512];
	struct ps_container c;
	struct ps_who w;
	size_t n = size < sizeof(path) - 1 ? size : sizeof(path) - 1;
	size_t len;

	memcpy(path, data, n);
	path[n] = '\0';
	ps_container_of_path(path, &c);
	ps_container_name(&c, name, sizeof(name));
	if (c.kind != PS_CONTAINER_NONE && (!name[0] || !ps_container_matches(&c, name)))
		abort();
	ps_container_matches(&c, path);

	memset(&w, 0, sizeof(w));
	w.ctx = size ? data[0] % PS_CTX_MAX : 0;
	w.known = size > 1 && data[1] & 1;
	w.pid = size > 5 ? (uint32_t)data[2] << 24 | data[3] << 16 | data[4] << 8 | data[5] : 0;
	w.tid = w.pid ^ (size > 6 ? data[6] : 0);
	snprintf(w.comm, sizeof(w.comm), "%s", path);
	snprintf(w.container, sizeof(w.container), "%s", name);
	snprintf(w.cgroup, sizeof(w.cgroup), "%s", path);
	snprintf(w.netns, sizeof(w.netns), "%s", path);
	len = size ? data[size - 1] % sizeof(buf) + 1 : sizeof(buf);
	memset(buf, 'Z', sizeof(buf));
	ps_who_format(&w, buf, len, size > 1 && data[1] & 2);
	if (strlen(buf) >= len || (len < sizeof(buf) && buf[len] != 'Z'))
		abort();
	return 0;
}
