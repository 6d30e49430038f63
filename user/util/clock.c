// SPDX-License-Identifier: GPL-2.0-only
#include <time.h>
#include "clock.h"

int64_t ps_clock_read_ns(int clock_id, void *ctx)
{
	struct timespec ts;

	(void)ctx;
	clock_gettime(clock_id, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void ps_clock_calibrate(struct ps_clock *c, int tries, ps_clock_read_fn read, void *ctx)
{
	int64_t best_width = INT64_MAX;

	c->offset_ns = 0;
	c->error_ns = INT64_MAX;

	for (int i = 0; i < tries; i++) {
		int64_t m1 = read(CLOCK_MONOTONIC, ctx);
		int64_t rt = read(CLOCK_REALTIME, ctx);
		int64_t m2 = read(CLOCK_MONOTONIC, ctx);
		int64_t width = m2 - m1;

		if (width < 0 || width >= best_width)
			continue;
		best_width = width;
		/* m1 + width/2 avoids overflowing m1 + m2 */
		c->offset_ns = rt - (m1 + width / 2);
		c->error_ns = (width + 1) / 2;
	}
}
