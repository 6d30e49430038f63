/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the capture's outputs share about where packets come from: the
 * targets, one per (interface, hook); the kernel's counters of one come
 * through a struct ps_counter_src (counters.h).
 */
#ifndef PS_TARGET_H
#define PS_TARGET_H

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>
#include "counters.h"
#include "pktsample.h"

/* One (interface, hook) pair: one pcapng interface, one sFlow sampler. */
struct ps_target {
	char ifname[IF_NAMESIZE]; /* its own copy: the interface may go */
	/* Written last (atomically) when another interface takes the entry
	 * over: the ingest's reader threads match on it. */
	int ifindex;
	unsigned int hook;
	int linktype;	  /* PS_LINKTYPE_*: what its packets start with */
	uint64_t written; /* packets every output took */
	/* Its interface disappeared: the kernel's counters of it, as they
	 * were then; the entry may be taken over by a new interface. */
	bool gone;
	struct ps_counters final;
};

#endif
