/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * How long followed packets took from one hook to the next, per pair of
 * places (a hook of an interface): --stats' p50 and p99 of each. A
 * log-linear histogram a pair, eight buckets to each doubling, so a
 * quantile is within a sixteenth of its value; the first PS_PATHTIME_PAIRS
 * pairs met are kept, the times of any other counted alone. Pure.
 */
#ifndef PS_PATHTIME_H
#define PS_PATHTIME_H

#include <stddef.h>
#include <stdint.h>

#define PS_PATHTIME_PAIRS 32
#define PS_PATHTIME_BUCKETS (8 + 61 * 8) /* under 8 exact, then 8 a doubling to 2^64 */

struct ps_pathtime_pair {
	uint32_t from_if, to_if;
	uint8_t from_hook, to_hook;
	uint64_t n;
	uint32_t count[PS_PATHTIME_BUCKETS];
};

struct ps_pathtime {
	size_t n;
	uint64_t other; /* times of pairs past the first PS_PATHTIME_PAIRS */
	struct ps_pathtime_pair p[PS_PATHTIME_PAIRS];
};

/* A packet went from (from_hook, from_if) to (to_hook, to_if) in ns. */
void ps_pathtime_add(struct ps_pathtime *t, uint8_t from_hook, uint32_t from_if, uint8_t to_hook,
		     uint32_t to_if, uint64_t ns);

/* The q-quantile (0 < q <= 1) of a pair's times, in ns: the middle of its
 * bucket; 0 for a pair without any. */
uint64_t ps_pathtime_quantile(const struct ps_pathtime_pair *p, double q);

/*
 * Each pair's count, p50 and p99 into buf after prefix, most packets first
 * ("tc-ingress@paA>tc-egress@paB 12 p50 23.4us p99 80.1us, ..."), ifname
 * naming the interface of an (ifindex, hook) or NULL; "" for none. The
 * length it wanted, as snprintf.
 */
int ps_pathtime_format(const struct ps_pathtime *t, const char *prefix,
		       const char *(*ifname)(void *arg, uint32_t ifindex, uint8_t hook), void *arg,
		       char *buf, size_t len);

#endif
