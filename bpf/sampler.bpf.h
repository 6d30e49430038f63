/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * How a matching packet is chosen: random, count, flow or clock-driven
 * sampling, then the --max-rate token bucket. The clock's ticks come from
 * perf/clock_tick.bpf.c through the shared per-CPU sampler state.
 */
#ifndef PS_SAMPLER_BPF_H
#define PS_SAMPLER_BPF_H

#include <stdbool.h>
#include "flow_hash.bpf.h"
#include "maps.bpf.h"

/*
 * A per-CPU xorshift64* generator for random sampling (Marsaglia's
 * xorshift, then Vigna's multiply; the high 32 bits are the result): a few
 * instructions inline instead of a helper call per packet, which the
 * packets a sampler drops would otherwise pay. Seeded from the kernel's
 * generator on each CPU's first use.
 */
static __always_inline __u32 ps_random(struct ps_sampler *s)
{
	__u64 x = s->rng;

	if (!x)
		x = (__u64)bpf_get_prandom_u32() << 32 | bpf_get_prandom_u32() | 1;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	s->rng = x;
	return (x * 0x2545F4914F6CDD1DULL) >> 32;
}

/*
 * The sampler: true if this matching packet is chosen. All state is
 * per CPU, so no atomics; the hooks of one CPU never run concurrently.
 */
static __always_inline bool ps_sample(PS_CTX *ctx, const struct ps_meta *m, struct ps_sampler *s,
				      __u8 *flags)
{
	__u64 now, due;

	switch (sample_mode) {
	case PS_SAMPLE_RANDOM:
		return ps_random(s) < sample_threshold;
	case PS_SAMPLE_COUNT:
		if (++s->count < sample_every)
			return false;
		s->count = 0;
		return true;
	case PS_SAMPLE_FLOW:
		return ps_flow_hash(ctx, m) < sample_threshold;
	case PS_SAMPLE_CLOCK:
		if (s->armed) {
			s->armed = 0;
			return true;
		}
		/*
		 * Some CPUs' clocks do not tick on time (a virtual CPU's
		 * may tick far less often than asked, even when busy).
		 * Half an interval past a missed tick, take this packet
		 * instead, keeping the cadence of the missed ticks.
		 */
		now = bpf_ktime_get_ns();
		due = s->slot_ns + sample_interval_ns;
		if (now < due + sample_interval_ns / 2)
			return false;
		s->slot_ns = now - due < sample_interval_ns ?
				     due :
				     now - sample_interval_ns / 2; /* after a gap: resync */
		s->fallback_at_ns = now;
		s->fallbacks++;
		*flags |= PS_F_CLOCK_FALLBACK;
		return true;
	default:
		return true;
	}
}

/* Token bucket, in nanoseconds of credit: one packet costs rate_cost_ns. */
static __always_inline bool ps_rate_ok(struct ps_sampler *s)
{
	__u64 now = bpf_ktime_get_ns();
	__u64 credit = s->credit_ns + (now - s->refill_ns);

	if (credit > rate_burst_ns)
		credit = rate_burst_ns;
	s->refill_ns = now;
	if (credit < rate_cost_ns) {
		s->credit_ns = credit;
		return false;
	}
	s->credit_ns = credit - rate_cost_ns;
	return true;
}

#endif /* PS_SAMPLER_BPF_H */
