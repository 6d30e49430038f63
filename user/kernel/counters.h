/* SPDX-License-Identifier: GPL-2.0-only */
/* Summing the kernel's per-stage counters (struct ps_counters), and where
 * an output reads them without knowing the loader that holds them. */
#ifndef PS_COUNTERS_H
#define PS_COUNTERS_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include "pktsample.h"

/* sum += c, stage by stage: the one place that knows every counter. */
static inline void ps_counters_add(struct ps_counters *sum, const struct ps_counters *c)
{
	sum->seen += c->seen;
	sum->filtered += c->filtered;
	sum->sampled_out += c->sampled_out;
	sum->rate_limited += c->rate_limited;
	sum->emitted += c->emitted;
	sum->output_errors += c->output_errors;
}

/* d = a - b, stage by stage: what a stretch of the capture added. */
static inline void ps_counters_sub(struct ps_counters *d, const struct ps_counters *a,
				   const struct ps_counters *b)
{
	d->seen = a->seen - b->seen;
	d->filtered = a->filtered - b->filtered;
	d->sampled_out = a->sampled_out - b->sampled_out;
	d->rate_limited = a->rate_limited - b->rate_limited;
	d->emitted = a->emitted - b->emitted;
	d->output_errors = a->output_errors - b->output_errors;
}

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

/*
 * Every stage of one (interface, hook), for its ISB comment and -v, so a
 * reader can check the sums and scale back:
 * seen = filtered-out + sampled-out + rate-limited + emitted,
 * emitted = written + lost (lost: the buffer was full).
 */
int ps_counters_format(char *buf, size_t len, const struct ps_counters *c, uint64_t written);

#endif
