// SPDX-License-Identifier: GPL-2.0-only
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "topagg.h"

/* A table starts this small and doubles up to twice PS_TOP_MAX_ROWS
 * slots: never fuller than half, so a probe is short. */
#define FIRST_CAP 64u

static const char *const group_names[PS_TOP_NGROUPS] = {
	[PS_TOP_PROCESS] = "process",	  [PS_TOP_CONTAINER] = "container", [PS_TOP_FLOW] = "flow",
	[PS_TOP_IFACE] = "interface",	  [PS_TOP_DROP] = "drop reason",    [PS_TOP_POD] = "pod",
	[PS_TOP_NAMESPACE] = "namespace", [PS_TOP_PATH] = "path",
};
static const char *const sort_names[PS_TOP_NSORTS] = {
	[PS_TOP_BY_BYTES] = "bytes",
	[PS_TOP_BY_PACKETS] = "packets",
	[PS_TOP_BY_DROPS] = "drops",
	[PS_TOP_BY_NAME] = "name",
};

const char *ps_top_group_name(enum ps_top_group g)
{
	return g < PS_TOP_NGROUPS ? group_names[g] : "?";
}

const char *ps_top_sort_name(enum ps_top_sort s)
{
	return s < PS_TOP_NSORTS ? sort_names[s] : "?";
}

void ps_top_units(double x, char *buf, size_t len)
{
	static const char units[] = " kMGT";
	int u = 0;

	while (x >= 999.5 && u < 4) {
		x /= 1000;
		u++;
	}
	if (!u)
		snprintf(buf, len, "%.0f", x);
	else
		snprintf(buf, len, "%.*f%c", x < 9.995 ? 2 : x < 99.95 ? 1 : 0, x, units[u]);
}

void ps_top_init(struct ps_top *t)
{
	memset(t, 0, sizeof(*t));
	t->groups = (1u << PS_TOP_NGROUPS) - 1;
	for (int g = 0; g < PS_TOP_NGROUPS; g++)
		strcpy(t->g[g].other.name, "(other)");
}

void ps_top_free(struct ps_top *t)
{
	for (int g = 0; g < PS_TOP_NGROUPS; g++)
		free(t->g[g].rows);
	memset(t, 0, sizeof(*t));
}

/* A 64-bit mix, so that keys made of small numbers spread. */
static uint32_t slot_of(uint64_t key, uint32_t cap)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdull;
	key ^= key >> 33;
	return (uint32_t)key & (cap - 1);
}

static struct ps_top_row *probe(struct ps_top_row *rows, uint32_t cap, uint64_t key)
{
	uint32_t i = slot_of(key, cap);

	while (rows[i].used && rows[i].key != key)
		i = (i + 1) & (cap - 1);
	return &rows[i];
}

/* The table's rows moved into cap slots, those idle too long left out. */
static int rehash(struct ps_top_table *tb, uint32_t cap, bool drop_idle)
{
	struct ps_top_row *rows = calloc(cap, sizeof(*rows));

	if (!rows)
		return -1;
	tb->n = 0;
	for (uint32_t i = 0; i < tb->cap; i++) {
		const struct ps_top_row *r = &tb->rows[i];

		if (!r->used)
			continue;
		if (drop_idle && r->idle >= PS_TOP_IDLE_TICKS) {
			for (int d = 0; d < PS_TOP_NDIRS; d++) {
				tb->gone_pkts[d] += r->pkts[d];
				tb->gone_bytes[d] += r->bytes[d];
			}
			tb->n_labelled -= r->labelled;
			continue;
		}
		*probe(rows, cap, r->key) = *r;
		tb->n++;
	}
	free(tb->rows);
	tb->rows = rows;
	tb->cap = cap;
	return 0;
}

struct ps_top_row *ps_top_row(struct ps_top *t, enum ps_top_group g, uint64_t key)
{
	struct ps_top_table *tb = &t->g[g];
	struct ps_top_row *r;

	if (!tb->cap && rehash(tb, FIRST_CAP, false))
		return &tb->other;
	r = probe(tb->rows, tb->cap, key);
	if (r->used)
		return r;
	if (tb->n >= PS_TOP_MAX_ROWS)
		return &tb->other;
	if (2 * (tb->n + 1) > tb->cap) {
		if (rehash(tb, 2 * tb->cap, false))
			return &tb->other;
		r = probe(tb->rows, tb->cap, key);
	}
	memset(r, 0, sizeof(*r));
	r->used = true;
	r->key = key;
	tb->n++;
	return r;
}

/* Row r's rates over elapsed_ns; whether it counted anything. */
static bool rates(struct ps_top_row *r, uint64_t elapsed_ns)
{
	double per_s = elapsed_ns ? 1e9 / (double)elapsed_ns : 0;
	bool any = false;

	r->last_pkts = 0;
	for (int d = 0; d < PS_TOP_NDIRS; d++) {
		uint64_t p = r->pkts[d] - r->snap_pkts[d], b = r->bytes[d] - r->snap_bytes[d];

		any |= p != 0;
		r->last_pkts += p;
		r->pps[d] = (double)p * per_s;
		r->bps[d] = (double)b * per_s;
		r->snap_pkts[d] = r->pkts[d];
		r->snap_bytes[d] = r->bytes[d];
	}
	r->idle = any ? 0 : r->idle + 1;
	return any;
}

/* The busiest rows of tb not yet named, named while there is room. */
static void label(struct ps_top_table *tb, uint32_t max)
{
	while (tb->n_labelled < max) {
		struct ps_top_row *best = NULL;

		for (uint32_t i = 0; i < tb->cap; i++) {
			struct ps_top_row *r = &tb->rows[i];

			if (r->used && !r->labelled && r->last_pkts &&
			    (!best || r->last_pkts > best->last_pkts))
				best = r;
		}
		if (!best)
			return;
		best->labelled = true;
		memcpy(best->base_pkts, best->pkts, sizeof(best->pkts));
		memcpy(best->base_bytes, best->bytes, sizeof(best->bytes));
		tb->n_labelled++;
	}
}

size_t ps_top_series(const struct ps_top *t, enum ps_top_group g, struct ps_top_series *out,
		     size_t n)
{
	const struct ps_top_table *tb = &t->g[g];
	struct ps_top_series all = { .name = "(other)" };
	size_t k = 0;

	for (int d = 0; d < PS_TOP_NDIRS; d++) {
		all.pkts[d] = tb->other.pkts[d] + tb->gone_pkts[d];
		all.bytes[d] = tb->other.bytes[d] + tb->gone_bytes[d];
	}
	for (uint32_t i = 0; i < tb->cap; i++) {
		const struct ps_top_row *r = &tb->rows[i];

		if (!r->used)
			continue;
		for (int d = 0; d < PS_TOP_NDIRS; d++) {
			all.pkts[d] += r->pkts[d];
			all.bytes[d] += r->bytes[d];
		}
		if (!r->labelled || k + 1 >= n)
			continue;
		out[k].name = r->name;
		for (int d = 0; d < PS_TOP_NDIRS; d++) {
			out[k].pkts[d] = r->pkts[d] - r->base_pkts[d];
			out[k].bytes[d] = r->bytes[d] - r->base_bytes[d];
			all.pkts[d] -= out[k].pkts[d];
			all.bytes[d] -= out[k].bytes[d];
		}
		k++;
	}
	if (k < n)
		out[k++] = all;
	return k;
}

void ps_top_tick(struct ps_top *t, uint64_t elapsed_ns)
{
	t->ticks++;
	for (int g = 0; g < PS_TOP_NGROUPS; g++) {
		struct ps_top_table *tb = &t->g[g];
		uint32_t idle = 0;

		rates(&tb->other, elapsed_ns);
		for (uint32_t i = 0; i < tb->cap; i++)
			if (tb->rows[i].used && !rates(&tb->rows[i], elapsed_ns) &&
			    tb->rows[i].idle >= PS_TOP_IDLE_TICKS)
				idle++;
		/* Let the idle go (best effort: short of memory, they stay). */
		if (idle)
			(void)rehash(tb, tb->cap, true);
		if (t->labels && (g == PS_TOP_PROCESS || g == PS_TOP_CONTAINER))
			label(tb, t->labels);
	}
}

static double in_out(const double *v)
{
	return v[PS_TOP_IN] + v[PS_TOP_OUT];
}

/* qsort's order for each way: most first, then by name. */
static int by_name(const void *a, const void *b)
{
	return strcmp((*(const struct ps_top_row *const *)a)->name,
		      (*(const struct ps_top_row *const *)b)->name);
}

static int most_first(double x, double y, const void *a, const void *b)
{
	return x > y ? -1 : x < y ? 1 : by_name(a, b);
}

static int by_bytes(const void *a, const void *b)
{
	const struct ps_top_row *x = *(const struct ps_top_row *const *)a;
	const struct ps_top_row *y = *(const struct ps_top_row *const *)b;

	return most_first(in_out(x->bps) + x->bps[PS_TOP_DROPPED],
			  in_out(y->bps) + y->bps[PS_TOP_DROPPED], a, b);
}

static int by_packets(const void *a, const void *b)
{
	const struct ps_top_row *x = *(const struct ps_top_row *const *)a;
	const struct ps_top_row *y = *(const struct ps_top_row *const *)b;

	return most_first(in_out(x->pps) + x->pps[PS_TOP_DROPPED],
			  in_out(y->pps) + y->pps[PS_TOP_DROPPED], a, b);
}

static int by_drops(const void *a, const void *b)
{
	const struct ps_top_row *x = *(const struct ps_top_row *const *)a;
	const struct ps_top_row *y = *(const struct ps_top_row *const *)b;

	return most_first(x->pps[PS_TOP_DROPPED], y->pps[PS_TOP_DROPPED], a, b);
}

size_t ps_top_sorted(const struct ps_top *t, enum ps_top_group g, enum ps_top_sort s,
		     const struct ps_top_row **out, size_t n)
{
	int (*const cmp[PS_TOP_NSORTS])(const void *, const void *) = {
		[PS_TOP_BY_BYTES] = by_bytes,
		[PS_TOP_BY_PACKETS] = by_packets,
		[PS_TOP_BY_DROPS] = by_drops,
		[PS_TOP_BY_NAME] = by_name,
	};
	const struct ps_top_table *tb = &t->g[g];
	const struct ps_top_row **all;
	size_t k = 0;

	all = malloc((tb->n + 1) * sizeof(*all));
	if (!all)
		return 0;
	for (uint32_t i = 0; i < tb->cap; i++)
		if (tb->rows[i].used)
			all[k++] = &tb->rows[i];
	for (int d = 0; d < PS_TOP_NDIRS; d++)
		if (tb->other.pkts[d]) {
			all[k++] = &tb->other;
			break;
		}
	qsort(all, k, sizeof(*all), cmp[s < PS_TOP_NSORTS ? s : PS_TOP_BY_BYTES]);
	if (k > n)
		k = n;
	memcpy(out, all, k * sizeof(*out));
	free(all);
	return k;
}

void ps_top_totals(const struct ps_top *t, enum ps_top_group g, struct ps_top_totals *tot)
{
	const struct ps_top_table *tb = &t->g[g];

	memset(tot, 0, sizeof(*tot));
	tot->last_pkts = tb->other.last_pkts;
	for (int d = 0; d < PS_TOP_NDIRS; d++) {
		tot->pps[d] = tb->other.pps[d];
		tot->bps[d] = tb->other.bps[d];
	}
	for (uint32_t i = 0; i < tb->cap; i++) {
		if (!tb->rows[i].used)
			continue;
		tot->rows++;
		tot->last_pkts += tb->rows[i].last_pkts;
		for (int d = 0; d < PS_TOP_NDIRS; d++) {
			tot->pps[d] += tb->rows[i].pps[d];
			tot->bps[d] += tb->rows[i].bps[d];
		}
	}
}
