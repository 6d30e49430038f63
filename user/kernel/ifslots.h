/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Which counter slot each captured interface has (include/pktsample.h:
 * struct ps_iface): a table of capacity slots, sized once, where an
 * interface that goes frees its slot for one that comes. Pure: no kernel,
 * no logging.
 */
#ifndef PS_IFSLOTS_H
#define PS_IFSLOTS_H

#include <stdint.h>

struct ps_ifslots {
	uint32_t *ifindex; /* per slot; 0: free */
	uint32_t capacity;
	uint32_t used;
};

/* capacity slots, all free: 0 or -ENOMEM (-EINVAL for 0). */
int ps_ifslots_init(struct ps_ifslots *s, uint32_t capacity);
void ps_ifslots_free(struct ps_ifslots *s);
/* ifindex's slot, or -ENOENT. */
int ps_ifslots_find(const struct ps_ifslots *s, uint32_t ifindex);
/* ifindex's slot, taking the lowest free one if it has none: -E2BIG when
 * every slot is taken, -EINVAL for ifindex 0. */
int ps_ifslots_take(struct ps_ifslots *s, uint32_t ifindex);
/* Free ifindex's slot: the slot, or -ENOENT. */
int ps_ifslots_release(struct ps_ifslots *s, uint32_t ifindex);

#endif
