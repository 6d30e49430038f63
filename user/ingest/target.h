/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the capture's outputs share about where packets come from: the
 * targets, one per (interface, hook); the kernel's counters of one come
 * through a struct ps_counter_src (counters.h).
 */
#ifndef PS_TARGET_H
#define PS_TARGET_H

#include <stdint.h>
#include "counters.h"
#include "pktsample.h"

/* One (interface, hook) pair: one pcapng interface, one sFlow sampler. */
struct ps_target {
	const char *ifname;
	int ifindex;
	unsigned int hook;
	int linktype;	  /* PS_LINKTYPE_*: what its packets start with */
	uint64_t written; /* packets every output took */
};

#endif
