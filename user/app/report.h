/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What pktsample tells the user about a capture: the closing summary, the
 * --stats lines, the ISB and IDB annotations, and the notes at start and
 * for clock-driven sampling. The text is built by pure functions (counters
 * in, text out, unit-tested in tests/unit/test_report.c); the few
 * functions that print say so.
 */
#ifndef PS_REPORT_H
#define PS_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "pktsample.h"

struct ps_sampling;

/* What the closing summary is made of. */
struct ps_summary {
	struct ps_counters all; /* summed over every (interface, hook) */
	uint64_t written;	/* packets in the file, whole */
	bool write_error;	/* the file ended early: ... */
	uint64_t lost_to_write; /* ... packets that reached user space or the
				 * buffers but not the file */
	bool filter;		/* a filter expression was given */
	const struct ps_sampling *smp;
	unsigned int transport;	  /* enum ps_transport */
	uint64_t buffer_hint_kib; /* the -B that would have held what was lost; 0 */
	int n_buffers;		  /* the buffers -B was split into (perf: a CPU each) */
	int buffer_cpus;	  /* the CPUs one buffer serves (a shared ring's group); 0: 1 */
};

/*
 * The tcpdump-style summary, a line each ("1 packet", "2 packets"):
 * captured, lost to a write error if there was one, seen by hooks, then
 * matched the filter, sampled out, over --max-rate when those apply, lost
 * in the buffer, and the estimated total for the 1-in-N modes. Returns what
 * snprintf returns.
 */
int ps_report_summary(char *buf, size_t len, const struct ps_summary *s);

/*
 * One --stats line (no newline): the counters now, and the rate of writes
 * since the previous line, elapsed_ns ago.
 */
int ps_report_stats(char *buf, size_t len, const struct ps_counters *c, uint64_t written,
		    uint64_t prev_written, uint64_t elapsed_ns, const struct ps_sampling *smp);

/*
 * The IDB comment: how the hook was attached, and the sampling. sampling is
 * ps_sampling_describe()'s text, or "" when every packet is kept: built
 * once by the caller, it is the same for every interface.
 */
int ps_report_idb_comment(char *buf, size_t len, unsigned int hook, const char *attached_via,
			  const char *sampling);

/* One reason's count of packets: the kernel dropped them (the drop
 * hook), or they have no known owner (ps_who_why). */
struct ps_drop_count {
	const char *reason;
	uint64_t n;
};

/*
 * Packets by reason, most first (c is sorted here):
 * "REASON N, REASON N" after prefix; "" for none. Returns what snprintf
 * returns.
 */
int ps_report_drops(char *buf, size_t len, const char *prefix, struct ps_drop_count *c, size_t n);

/* Prints: the lines at start (stderr, always shown); sampling as above;
 * then one line per interface, as it starts to be captured. */
void ps_report_start(bool xdp_single_prog, const char *sampling);
void ps_report_iface(const char *name, unsigned int hooks, uint32_t snaplen);

/*
 * Prints: clock-driven sampling's health, per CPU (cpus[i] indexes
 * per_cpu): a warning for a multiplexed clock or one that missed ticks,
 * the tick counts with -v.
 */
void ps_report_clock(const struct ps_sampler *per_cpu, const int *cpus, int n);

#endif
