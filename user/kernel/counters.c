// SPDX-License-Identifier: GPL-2.0-only
/* A target's counters in words; see counters.h. */
#include <stdio.h>
#include "counters.h"

#define ULL(x) ((unsigned long long)(x))

int ps_counters_format(char *buf, size_t len, const struct ps_counters *c, uint64_t written)
{
	return snprintf(buf, len,
			"seen=%llu filtered-out=%llu sampled-out=%llu rate-limited=%llu "
			"emitted=%llu written=%llu lost=%llu",
			ULL(c->seen), ULL(c->filtered), ULL(c->sampled_out), ULL(c->rate_limited),
			ULL(c->emitted + c->output_errors), ULL(written), ULL(c->output_errors));
}
