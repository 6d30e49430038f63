/* SPDX-License-Identifier: GPL-2.0-only */
/* How much of the kernel's memory each buffer gets, from -B: pure. */
#ifndef PS_BUFPLAN_H
#define PS_BUFPLAN_H

#include <stdbool.h>
#include <stdint.h>

/*
 * How much buffer the kernel gets (-B): a total, as tcpdump's -B, shared by
 * the per-CPU buffers, perf or ring (each a power of two of pages, so each
 * gets the largest that keeps the total within -B). A TCP flow's packets
 * all land on one CPU, so what one buffer holds is what a burst has.
 *
 * The default is PS_BUFFER_DEFAULT_PER_CPU_KIB per CPU, and at most
 * PS_BUFFER_DEFAULT_MAX_KIB in all: a bulk TCP transfer on a veth is
 * captured whole from less, but a flood of full-size frames loses packets
 * until each CPU has this much (doc/performance.md#buffer-size). Kernel
 * memory, locked; not the RSS, but for the rings: a ring's pages are
 * mapped into the reader and count in its RSS.
 */
#define PS_BUFFER_DEFAULT_PER_CPU_KIB 32768u
#define PS_BUFFER_DEFAULT_MAX_KIB (256u << 10)
/*
 * A BPF ring may serve more than one CPU (a perf buffer cannot): where a
 * CPU's share of -B would be under PS_RING_SHARED_BELOW_KIB, each ring
 * serves a group of CPUs (a power of two of them, the online CPUs in
 * order), as many as it takes for the ring to get that much. One TCP flow
 * then has the whole group's share, as it has all of tcpdump's -B. At
 * tcpdump's -B 4096 on 2 CPUs, fast bulk TCP lost packets more often with
 * a ring per CPU than with tcpdump, and about as often as tcpdump with one
 * ring for both (doc/performance.md#buffer-size). The cost is the ring's
 * lock, taken by the group's CPUs in turn; a group is small wherever -B
 * is not.
 */
#define PS_RING_SHARED_BELOW_KIB 4096u
struct ps_buffer_plan {
	uint32_t per_cpu_kib; /* each CPU's buffer */
	uint64_t total_kib;   /* per_cpu_kib times the CPUs */
	uint32_t ring_cpus;   /* the CPUs one ring serves: a power of two */
	uint32_t ring_kib;    /* each ring: its group's share of -B */
};
/* total_kib 0: the default. ncpus: the CPUs with a buffer (online). Pure. */
void ps_buffer_plan(uint32_t total_kib, int ncpus, long page_size, struct ps_buffer_plan *p);

/*
 * Without --transport (auto): whether p, planned from a -B of total_kib,
 * takes the BPF rings rather than the perf buffers. It does where a -B
 * given leaves a CPU under PS_RING_SHARED_BELOW_KIB, so that a ring
 * serves a group: a shared ring loses less of a bulk transfer than a
 * buffer per CPU (above), and it slows a flood's sender less than the
 * perf buffers for about the same CPU (doc/performance.md#buffer-size).
 * At the default -B the perf buffers stay, groups or not: a ring's pages
 * are charged to the capture's memory cgroup, a perf buffer's are not,
 * and the default is up to 256 MiB. Pure.
 */
bool ps_buffer_rings_by_default(const struct ps_buffer_plan *p, uint32_t total_kib);

/* Perf buffer pages per CPU for a size in KiB: a power of two, >= 1. */
unsigned int ps_buffer_pages(uint32_t buffer_kib, long page_size);

#endif
