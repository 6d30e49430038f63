/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * --top's counts: rows by process, container, flow, interface and hook, or
 * drop reason, each with packets and bytes in, out and dropped, and their
 * rates over the last interval. Every grouping is counted all the time, so
 * that switching between them shows rates at once. Pure: no clock, no
 * I/O; the caller says when an interval ends and how long it was.
 *
 * Memory is bounded: a grouping holds at most PS_TOP_MAX_ROWS rows, and
 * what comes once they are taken is counted in its "other" row; a row idle
 * for PS_TOP_IDLE_TICKS intervals is let go.
 */
#ifndef PS_TOPAGG_H
#define PS_TOPAGG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PS_TOP_MAX_ROWS 4096
#define PS_TOP_IDLE_TICKS 30
#define PS_TOP_NAME_LEN 160 /* a container's name, two IPv6 ends and ports: whole */
/* Rows of a grouping the metrics name (ps_top_series), the rest summed. */
#define PS_TOP_LABELS 20

enum ps_top_group {
	PS_TOP_PROCESS,
	PS_TOP_CONTAINER,
	PS_TOP_FLOW,
	PS_TOP_IFACE,	  /* interface and hook */
	PS_TOP_DROP,	  /* drop reason: the drop hooks' packets alone */
	PS_TOP_POD,	  /* Kubernetes pod, as namespace/name */
	PS_TOP_NAMESPACE, /* Kubernetes namespace */
	PS_TOP_PATH,	  /* a followed packet's step from its hook before to this one */
	PS_TOP_NGROUPS,
};

enum ps_top_sort {
	PS_TOP_BY_BYTES, /* bytes/s, in and out */
	PS_TOP_BY_PACKETS,
	PS_TOP_BY_DROPS,
	PS_TOP_BY_NAME,
	PS_TOP_NSORTS,
};

/* Which way a packet went: the hook says (tc-egress out, drop hooks
 * dropped, every other in). */
enum ps_top_dir {
	PS_TOP_IN,
	PS_TOP_OUT,
	PS_TOP_DROPPED,
	PS_TOP_NDIRS,
};

struct ps_top_row {
	uint64_t key;
	char name[PS_TOP_NAME_LEN];			  /* "" until the caller names it */
	uint64_t pkts[PS_TOP_NDIRS], bytes[PS_TOP_NDIRS]; /* since it came */
	uint64_t snap_pkts[PS_TOP_NDIRS], snap_bytes[PS_TOP_NDIRS];
	double pps[PS_TOP_NDIRS], bps[PS_TOP_NDIRS]; /* over the last interval */
	uint64_t last_pkts;			     /* in it, every way */
	uint32_t idle;				     /* intervals without a packet */
	bool used;
	/* Named in the metrics since its counts were these (ps_top_series). */
	bool labelled;
	uint64_t base_pkts[PS_TOP_NDIRS], base_bytes[PS_TOP_NDIRS];
};

struct ps_top_table {
	struct ps_top_row *rows; /* open addressing by key */
	uint32_t cap, n;
	struct ps_top_row other; /* what came when the table was full */
	uint32_t n_labelled;
	uint64_t gone_pkts[PS_TOP_NDIRS], gone_bytes[PS_TOP_NDIRS]; /* of rows let go */
};

struct ps_top {
	struct ps_top_table g[PS_TOP_NGROUPS];
	uint64_t ticks;
	/* Metrics: at each tick, the busiest rows of the process and container
	 * groupings named, up to this many each; 0: none. */
	uint32_t labels;
	unsigned int groups; /* which groupings count: 1 << enum ps_top_group */
};

/* A series of the metrics: a named row's counts since it was named, or
 * (name "(other)") everything else its grouping counted. Each only grows,
 * as a counter must: a row named later starts from 0, its past staying in
 * "other", and a row let go leaves its counts there. */
struct ps_top_series {
	const char *name;
	uint64_t pkts[PS_TOP_NDIRS], bytes[PS_TOP_NDIRS];
};

/* Totals of a grouping over the last interval (its rows and "other"). */
struct ps_top_totals {
	double pps[PS_TOP_NDIRS], bps[PS_TOP_NDIRS];
	uint64_t last_pkts;
	size_t rows;
};

void ps_top_init(struct ps_top *t);
void ps_top_free(struct ps_top *t);
/* Group g's row for key: found, or made (its name "", for the caller to
 * set), or, the table full or memory short, the group's "other" row. */
struct ps_top_row *ps_top_row(struct ps_top *t, enum ps_top_group g, uint64_t key);
/* What one packet (or, sampled, weight packets) adds to row r. */
static inline void ps_top_count(struct ps_top_row *r, enum ps_top_dir d, uint32_t bytes,
				uint32_t weight)
{
	r->pkts[d] += weight;
	r->bytes[d] += (uint64_t)bytes * weight;
}
/* An interval of elapsed_ns ended: every row's rates over it; rows idle
 * too long let go. */
void ps_top_tick(struct ps_top *t, uint64_t elapsed_ns);
/* Group g's rows, most first by s (ties by name), "other" among them if it
 * has counted anything: up to n into out; how many. */
size_t ps_top_sorted(const struct ps_top *t, enum ps_top_group g, enum ps_top_sort s,
		     const struct ps_top_row **out, size_t n);
void ps_top_totals(const struct ps_top *t, enum ps_top_group g, struct ps_top_totals *tot);
/* Group g's named rows and "other" (last): up to n into out; how many. */
size_t ps_top_series(const struct ps_top *t, enum ps_top_group g, struct ps_top_series *out,
		     size_t n);
/* A rate with a unit, for people: "950", "12.3k", "4.56M", "7.89G". */
void ps_top_units(double x, char *buf, size_t len);
/* Names, for headers and batch tables: "process", "bytes", ... */
const char *ps_top_group_name(enum ps_top_group g);
const char *ps_top_sort_name(enum ps_top_sort s);

#endif
