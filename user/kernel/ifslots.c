// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdlib.h>
#include "ifslots.h"

int ps_ifslots_init(struct ps_ifslots *s, uint32_t capacity)
{
	s->used = 0;
	s->capacity = 0;
	s->ifindex = NULL;
	if (!capacity)
		return -EINVAL;
	s->ifindex = calloc(capacity, sizeof(*s->ifindex));
	if (!s->ifindex)
		return -ENOMEM;
	s->capacity = capacity;
	return 0;
}

void ps_ifslots_free(struct ps_ifslots *s)
{
	free(s->ifindex);
	s->ifindex = NULL;
	s->capacity = s->used = 0;
}

/* A linear scan: it runs as interfaces come and go and when counters are
 * read, never per packet (the kernel's hash map answers those). */
int ps_ifslots_find(const struct ps_ifslots *s, uint32_t ifindex)
{
	for (uint32_t i = 0; ifindex && i < s->capacity; i++)
		if (s->ifindex[i] == ifindex)
			return (int)i;
	return -ENOENT;
}

int ps_ifslots_take(struct ps_ifslots *s, uint32_t ifindex)
{
	int slot = ps_ifslots_find(s, ifindex);

	if (!ifindex)
		return -EINVAL;
	if (slot >= 0)
		return slot;
	for (uint32_t i = 0; i < s->capacity; i++)
		if (!s->ifindex[i]) {
			s->ifindex[i] = ifindex;
			s->used++;
			return (int)i;
		}
	return -E2BIG;
}

int ps_ifslots_release(struct ps_ifslots *s, uint32_t ifindex)
{
	int slot = ps_ifslots_find(s, ifindex);

	if (slot >= 0) {
		s->ifindex[slot] = 0;
		s->used--;
	}
	return slot;
}
