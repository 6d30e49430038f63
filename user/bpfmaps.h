/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The maps both BPF objects share. User space creates them once, so the XDP
 * and TC objects (loaded at different times, XDP's by libxdp) write to the
 * same perf buffer and counters.
 */
#ifndef PS_BPFMAPS_H
#define PS_BPFMAPS_H

#include <stdint.h>
#include "pktsample.h"

struct bpf_object;

struct ps_maps {
	int events_fd;   /* PERF_EVENT_ARRAY, one slot per possible CPU */
	int counters_fd; /* PERCPU_HASH ps_counter_key -> ps_counters */
	int cpu_seq_fd;  /* PERCPU_ARRAY of one u64 */
	int sampler_fd;  /* PERCPU_ARRAY of one struct ps_sampler */
	int ring_fd;     /* RINGBUF: --transport ringbuf (a page otherwise) */
	int ncpus;       /* possible CPUs */
};

/* ring_bytes: the ring buffer's size (a power-of-2 number of pages), or 0
 * for the one-page placeholder the perf transport leaves unused. */
int ps_maps_create(struct ps_maps *m, uint32_t ring_bytes);
void ps_maps_close(struct ps_maps *m);
/* Make an opened (not loaded) object use these maps instead of its own. */
int ps_maps_reuse(const struct ps_maps *m, struct bpf_object *obj);
/* Add a zeroed counter entry, so the BPF side only ever looks up. */
int ps_maps_add_counter(const struct ps_maps *m, uint32_t ifindex,
			unsigned int hook);
/* sum += c, stage by stage: the one place that knows every counter. */
void ps_counters_add(struct ps_counters *sum, const struct ps_counters *c);
/* Sum one entry's counters over all CPUs. */
int ps_maps_read_counter(const struct ps_maps *m, uint32_t ifindex,
			 unsigned int hook, struct ps_counters *sum);

/* The sampler state of every possible CPU (per_cpu has ncpus entries). */
int ps_maps_read_sampler(const struct ps_maps *m, struct ps_sampler *per_cpu);

#endif
