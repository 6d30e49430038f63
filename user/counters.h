/* SPDX-License-Identifier: GPL-2.0-only */
/* Summing the kernel's per-stage counters (struct ps_counters). */
#ifndef PS_COUNTERS_H
#define PS_COUNTERS_H

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

#endif
