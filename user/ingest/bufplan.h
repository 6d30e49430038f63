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
 * PS_BUFFER_DEFAULT_MAX_KIB in all: on a veth, a 64 KiB-write bulk
 * transfer was captured whole from 8 MiB per CPU, but a million 1500-byte
 * frames at 480 MB/s lost 3-5 % there, 0-1 % from 16 MiB, none from 32 MiB
 * (bench/bulk.sh, bench/e2e.sh). Kernel memory, locked; not the RSS, but
 * for the rings: a ring's pages are mapped into the reader and count in
 * its RSS.
 */
#define PS_BUFFER_DEFAULT_PER_CPU_KIB 32768u
#define PS_BUFFER_DEFAULT_MAX_KIB (256u << 10)
/*
 * A BPF ring may serve more than one CPU (a perf buffer cannot): where a
 * CPU's share of -B would be under PS_RING_SHARED_BELOW_KIB, each ring
 * serves a group of CPUs (a power of two of them, the online CPUs in
 * order), as many as it takes for the ring to get that much. One TCP flow
 * then has the whole group's share, as it has all of tcpdump's -B. At -B
 * 4096 on 2 CPUs, bulk TCP from 1,000 to 1,800 MB/s lost packets in 9
 * runs of 30 with 2 MiB rings per CPU and in 3 with tcpdump; one 4 MiB
 * ring for both lost about as often as tcpdump (bench/bulk.sh,
 * doc/performance.md). The cost is the ring's lock, taken by the group's
 * CPUs in turn; a group is small wherever -B is not.
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
 * serves a group: at tcpdump's -B 4096 on 2 CPUs, one shared ring lost
 * packets of a bulk transfer about as often as tcpdump, the perf buffers
 * (2 MiB a CPU) more often, and the ring slowed a flood's sender less
 * (0.95 of its rate under tcpdump, the perf buffers 0.86) for about the
 * same CPU (doc/performance.md). At the default -B the
 * perf buffers stay, groups or not: a ring's pages are charged to the
 * capture's memory cgroup, a perf buffer's are not, and the default is
 * up to 256 MiB. Pure.
 */
bool ps_buffer_rings_by_default(const struct ps_buffer_plan *p, uint32_t total_kib);

/* Perf buffer pages per CPU for a size in KiB: a power of two, >= 1. */
unsigned int ps_buffer_pages(uint32_t buffer_kib, long page_size);

#endif
