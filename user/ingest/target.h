/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the capture's outputs share about where packets come from: the
 * targets, one per (interface, hook), and a way to read the kernel's
 * counters of one, without knowing the loader that holds them.
 */
#ifndef PS_TARGET_H
#define PS_TARGET_H

#include <errno.h>
#include <stdint.h>
#include "pktsample.h"

/* One (interface, hook) pair: one pcapng interface, one sFlow sampler. */
struct ps_target {
	const char *ifname;
	int ifindex;
	unsigned int hook;
	int linktype;	  /* PS_LINKTYPE_*: what its packets start with */
	uint64_t written; /* packets every output took */
};

/* The kernel's per-stage counters of one (interface, hook): 0 or -errno. */
struct ps_counter_src {
	int (*read)(void *arg, uint32_t ifindex, unsigned int hook, struct ps_counters *c);
	void *arg;
};

static inline int ps_counter_read(const struct ps_counter_src *src, uint32_t ifindex,
				  unsigned int hook, struct ps_counters *c)
{
	return src && src->read ? src->read(src->arg, ifindex, hook, c) : -ENOENT;
}

#endif
