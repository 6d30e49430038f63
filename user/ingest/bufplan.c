// SPDX-License-Identifier: GPL-2.0-only
/* How much of the kernel's memory each buffer gets; see bufplan.h. */
#include "bufplan.h"

unsigned int ps_buffer_pages(uint32_t buffer_kib, long page_size)
{
	uint64_t bytes = (uint64_t)buffer_kib * 1024;
	unsigned int pages = 1;

	while ((uint64_t)pages * page_size < bytes)
		pages <<= 1;
	return pages;
}

/* The largest power of two of at least a page that is at most kib. */
static uint32_t pow2_within(uint64_t kib, long page_size)
{
	uint64_t page_kib = page_size >= 1024 ? (uint64_t)page_size / 1024 : 4, v = page_kib;

	while (v * 2 <= kib && v * 2 <= (1u << 20))
		v *= 2;
	return (uint32_t)v;
}

void ps_buffer_plan(uint32_t total_kib, int ncpus, long page_size, struct ps_buffer_plan *p)
{
	uint64_t total = total_kib;

	if (ncpus < 1)
		ncpus = 1;
	if (!total) {
		total = (uint64_t)PS_BUFFER_DEFAULT_PER_CPU_KIB * ncpus;
		if (total > PS_BUFFER_DEFAULT_MAX_KIB)
			total = PS_BUFFER_DEFAULT_MAX_KIB;
	}
	p->per_cpu_kib = pow2_within(total / ncpus, page_size);
	p->total_kib = (uint64_t)p->per_cpu_kib * ncpus;
	/* The fewest CPUs per ring that give each ring its floor, the rings
	 * sharing -B as the per-CPU buffers do (one ring per CPU: the same). */
	for (p->ring_cpus = 1;; p->ring_cpus *= 2) {
		uint32_t rings = ((uint32_t)ncpus + p->ring_cpus - 1) / p->ring_cpus;

		p->ring_kib = pow2_within(total / rings, page_size);
		if (p->ring_kib >= PS_RING_SHARED_BELOW_KIB || p->ring_cpus >= (uint32_t)ncpus)
			break;
	}
}

bool ps_buffer_rings_by_default(const struct ps_buffer_plan *p, uint32_t total_kib)
{
	return total_kib && p->ring_cpus > 1;
}
