/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * --metrics ADDR:PORT: the counters --stats prints, as Prometheus' text
 * exposition format (version 0.0.4) on http://ADDR:PORT/metrics.
 *
 * The text is made by a pure function from a view of the counters
 * (ps_metrics_format, unit-tested, checked by promtool); the capture
 * publishes a fresh one once a second, and metrics_http.h serves it.
 */
#ifndef PS_METRICS_H
#define PS_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "pktsample.h"
#include "report.h"

/* One (interface, hook): the kernel's stages, and what the outputs took. */
struct ps_metrics_target {
	const char *ifname;
	const char *hook;
	struct ps_counters c;
	uint64_t written;
};

/* Counts of one process or container (or of "(other)": the rest), by way
 * (user/top/topagg.h: ps_top_series). */
struct ps_metrics_owner {
	const char *name;	    /* "curl (4242)", a container's name, "(other)" */
	uint64_t pkts[3], bytes[3]; /* in, out, dropped */
};

/* What the text says. */
struct ps_metrics_view {
	const struct ps_metrics_target *targets;
	size_t n_targets;
	const struct ps_drop_count *drops; /* the drop hook's, by reason */
	size_t n_drops;
	bool sflow; /* --sflow: its samples and datagrams */
	uint64_t sflow_samples, sflow_datagrams, sflow_sent, sflow_failed, sflow_refused,
		sflow_dropped;
	bool flight; /* --flight: its incidents and memory */
	uint64_t flight_incidents, flight_ignored, flight_evicted, flight_held, flight_held_bytes;
	double start_time_s; /* Unix time the capture started */
	/* The busiest processes and containers, each with "(other)" last. */
	const struct ps_metrics_owner *procs, *containers;
	size_t n_procs, n_containers;
};

/*
 * Pure: the exposition of v into buf (always terminated). Returns the
 * length the whole text needs, as snprintf does: more than len - 1 means
 * it was cut.
 */
size_t ps_metrics_format(char *buf, size_t len, const struct ps_metrics_view *v);

#endif
