// SPDX-License-Identifier: GPL-2.0-only
/*
 * The clock of --sample-interval: the loader loads this program only then,
 * and the ticker (ps_ticker_start, user/kernel/sampling.c) attaches it to a
 * software CPU-clock perf event on every CPU; each tick arms the token that
 * the next packet on that CPU takes (bpf/sampler.bpf.h).
 */
#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>
#include <bpf/bpf_helpers.h>
#include "maps.bpf.h"

/*
 * Clock-driven sampling: a software CPU-clock perf event per CPU runs this
 * every interval; it arms a token that the next packet on that CPU takes.
 * The event's enabled/running times are kept so a multiplexed or stalled
 * clock shows up in the statistics instead of silently thinning samples.
 */
SEC("perf_event")
int pktsample_tick(struct bpf_perf_event_data *ctx)
{
	struct bpf_perf_event_value v;
	struct ps_sampler *s;
	__u32 zero = 0;
	__u64 now;

	s = bpf_map_lookup_elem(&sampler, &zero);
	if (!s)
		return 0;
	now = bpf_ktime_get_ns();
	s->ticks++;
	s->last_tick_ns = now;
	/* A tick whose interval the fallback already sampled arms nothing. */
	if (now - s->slot_ns >= sample_interval_ns / 2) {
		s->armed = 1;
		s->slot_ns = now;
	}
	if (!bpf_perf_prog_read_value(ctx, &v, sizeof(v))) {
		s->enabled_ns = v.enabled;
		s->running_ns = v.running;
	}
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
