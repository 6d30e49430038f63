// SPDX-License-Identifier: GPL-2.0-only
#include <stdio.h>
#include <stdlib.h>
#include "hooks.h"
#include "pathtime.h"

static unsigned int bucket_of(uint64_t ns)
{
	unsigned int e;

	if (ns < 8)
		return (unsigned int)ns;
	e = 63u - (unsigned int)__builtin_clzll(ns); /* 3..63 */
	return 8 + (e - 3) * 8 + (unsigned int)((ns >> (e - 3)) & 7);
}

/* The middle of bucket b. */
static uint64_t bucket_middle(unsigned int b)
{
	unsigned int e, sub;

	if (b < 8)
		return b;
	e = (b - 8) / 8 + 3;
	sub = (b - 8) % 8;
	return ((uint64_t)(8 + sub) << (e - 3)) + ((1ull << (e - 3)) >> 1);
}

void ps_pathtime_add(struct ps_pathtime *t, uint8_t from_hook, uint32_t from_if, uint8_t to_hook,
		     uint32_t to_if, uint64_t ns)
{
	struct ps_pathtime_pair *p = NULL;

	for (size_t i = 0; i < t->n && !p; i++)
		if (t->p[i].from_if == from_if && t->p[i].to_if == to_if &&
		    t->p[i].from_hook == from_hook && t->p[i].to_hook == to_hook)
			p = &t->p[i];
	if (!p) {
		if (t->n == PS_PATHTIME_PAIRS) {
			t->other++;
			return;
		}
		p = &t->p[t->n++];
		*p = (struct ps_pathtime_pair){ .from_if = from_if,
						.to_if = to_if,
						.from_hook = from_hook,
						.to_hook = to_hook };
	}
	p->n++;
	p->count[bucket_of(ns)]++;
}

uint64_t ps_pathtime_quantile(const struct ps_pathtime_pair *p, double q)
{
	double want = q * (double)p->n;
	uint64_t rank = (uint64_t)want, seen = 0;

	if (!p->n)
		return 0;
	if ((double)rank < want || !rank)
		rank++;
	for (unsigned int b = 0; b < PS_PATHTIME_BUCKETS; b++) {
		seen += p->count[b];
		if (seen >= rank)
			return bucket_middle(b);
	}
	return bucket_middle(PS_PATHTIME_BUCKETS - 1);
}

static int most_first(const void *a, const void *b)
{
	const struct ps_pathtime_pair *const *x = a, *const *y = b;

	if ((*x)->n != (*y)->n)
		return (*x)->n > (*y)->n ? -1 : 1;
	return *x < *y ? -1 : *x > *y;
}

/* ns as microseconds, a tenth's precision: the buckets' is a sixteenth. */
static double us(uint64_t ns)
{
	return (double)ns / 1000.0;
}

int ps_pathtime_format(const struct ps_pathtime *t, const char *prefix,
		       const char *(*ifname)(void *arg, uint32_t ifindex, uint8_t hook), void *arg,
		       char *buf, size_t len)
{
	const struct ps_pathtime_pair *order[PS_PATHTIME_PAIRS];
	int w = 0;

	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < t->n; i++)
		order[i] = &t->p[i];
	qsort(order, t->n, sizeof(order[0]), most_first);
	for (size_t i = 0; i < t->n; i++) {
		const struct ps_pathtime_pair *p = order[i];
		const char *from = ifname(arg, p->from_if, p->from_hook);
		const char *to = ifname(arg, p->to_if, p->to_hook);
		int n = snprintf(buf + (w < (int)len ? w : (int)len),
				 (size_t)w < len ? len - (size_t)w : 0,
				 "%s%s@%s>%s@%s %llu p50 %.1fus p99 %.1fus", i ? ", " : prefix,
				 ps_hook_name(p->from_hook), from ? from : "?",
				 ps_hook_name(p->to_hook), to ? to : "?", (unsigned long long)p->n,
				 us(ps_pathtime_quantile(p, 0.5)),
				 us(ps_pathtime_quantile(p, 0.99)));

		if (n < 0)
			return n;
		w += n;
	}
	return w;
}
