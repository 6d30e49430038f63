/* SPDX-License-Identifier: GPL-2.0-only */
/* Clocks in ns, and kernel monotonic time (bpf_ktime_get_ns) to
 * wall-clock time. */
#ifndef PS_CLOCK_H
#define PS_CLOCK_H

#include <stdint.h>
#include <time.h>

struct ps_clock {
	int64_t offset_ns; /* realtime - monotonic */
	int64_t error_ns;  /* half the tightest bracket seen while calibrating */
};

/* Reads a clock in ns; injectable so calibration is testable. */
typedef int64_t (*ps_clock_read_fn)(int clock_id, void *ctx);

int64_t ps_clock_read_ns(int clock_id, void *ctx);
/* CLOCK_MONOTONIC in ns: the kernel's timestamps' clock. */
static inline uint64_t ps_clock_mono_ns(void)
{
	return (uint64_t)ps_clock_read_ns(CLOCK_MONOTONIC, NULL);
}

/*
 * Estimate realtime - monotonic from `tries` (mono, real, mono) triples,
 * keeping the one whose monotonic reads are closest together: the realtime
 * read is then known to fall within that bracket.
 */
void ps_clock_calibrate(struct ps_clock *c, int tries, ps_clock_read_fn read, void *ctx);

static inline uint64_t ps_clock_to_realtime(const struct ps_clock *c, uint64_t mono_ns)
{
	/* Unsigned: wraps where a signed sum would overflow (corrupt input). */
	return mono_ns + (uint64_t)c->offset_ns;
}

#endif
