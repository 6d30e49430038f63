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
	int counters_fd; /* PERCPU_ARRAY of ps_counters, PS_COUNTER_SLOTS */
	int cpu_seq_fd;  /* PERCPU_ARRAY of one u64 */
	int sampler_fd;  /* PERCPU_ARRAY of one struct ps_sampler */
	int ring_fd;     /* RINGBUF: --transport ringbuf (a page otherwise) */
	int ncpus;       /* possible CPUs */
	/* The interfaces with counters; what the objects' rodata must list. */
	uint32_t ifindexes[PS_MAX_IFACES];
	uint32_t iface_count;
};

/* Copy the interface list into an opened skeleton's rodata, before load. */
#define PS_MAPS_SET_RODATA(rodata, m)                                          \
	do {                                                                   \
		(rodata)->iface_count = (m)->iface_count;                      \
		for (uint32_t i_ = 0; i_ < (m)->iface_count; i_++)             \
			(rodata)->ifindexes[i_] = (m)->ifindexes[i_];          \
	} while (0)

/* ring_bytes: the ring buffer's size (a power-of-2 number of pages), or 0
 * for the one-page placeholder the perf transport leaves unused. */
int ps_maps_create(struct ps_maps *m, uint32_t ring_bytes);
void ps_maps_close(struct ps_maps *m);
/* Make an opened (not loaded) object use these maps instead of its own. */
int ps_maps_reuse(const struct ps_maps *m, struct bpf_object *obj);
/* Give an interface counters (idempotent); then set the objects' rodata
 * with PS_MAPS_SET_RODATA. -E2BIG past PS_MAX_IFACES interfaces. */
int ps_maps_add_iface(struct ps_maps *m, uint32_t ifindex);
/* sum += c, stage by stage: the one place that knows every counter. */
void ps_counters_add(struct ps_counters *sum, const struct ps_counters *c);
/* Sum one entry's counters over all CPUs. */
int ps_maps_read_counter(const struct ps_maps *m, uint32_t ifindex,
			 unsigned int hook, struct ps_counters *sum);

/* The sampler state of every possible CPU (per_cpu has ncpus entries). */
int ps_maps_read_sampler(const struct ps_maps *m, struct ps_sampler *per_cpu);

#endif
