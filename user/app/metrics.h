/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * --metrics ADDR:PORT: the counters --stats prints, as Prometheus' text
 * exposition format (version 0.0.4) on http://ADDR:PORT/metrics.
 *
 * The text is made by a pure function from a view of the counters
 * (ps_metrics_format, unit-tested, checked by promtool). The capture
 * publishes a fresh text once a second (ps_metrics_publish); a thread of
 * the server's own answers the scrapes from the latest one, so a slow or
 * silent client never holds up the capture, and the capture never waits
 * for a scrape.
 */
#ifndef PS_METRICS_H
#define PS_METRICS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "addr.h"
#include "pktsample.h"
#include "report.h"

/* One (interface, hook): the kernel's stages, and what the outputs took. */
struct ps_metrics_target {
	const char *ifname;
	const char *hook;
	struct ps_counters c;
	uint64_t written;
};

/* What the text says. */
struct ps_metrics_view {
	const struct ps_metrics_target *targets;
	size_t n_targets;
	const struct ps_drop_count *drops; /* the drop hook's, by reason */
	size_t n_drops;
	bool sflow; /* --sflow: its samples and datagrams */
	uint64_t sflow_samples, sflow_datagrams, sflow_sent, sflow_failed, sflow_dropped;
	double start_time_s; /* Unix time the capture started */
};

/*
 * Pure: the exposition of v into buf (always terminated). Returns the
 * length the whole text needs, as snprintf does: more than len - 1 means
 * it was cut.
 */
size_t ps_metrics_format(char *buf, size_t len, const struct ps_metrics_view *v);

struct ps_metrics {
	int fd; /* listening; -1 */
	pthread_t thread;
	bool running;
	pthread_mutex_t lock;
	char *body; /* the latest text (malloc'ed), under lock */
	size_t body_len;
	uint64_t scrapes; /* answered, under lock */
};

/* Listen on addr; -errno, logged (the port is taken, say). */
int ps_metrics_open(struct ps_metrics *m, const struct ps_addr *addr);
/* The text scrapes get from now on; m takes body (malloc'ed). */
void ps_metrics_publish(struct ps_metrics *m, char *body, size_t len);
/* Stop answering and let go of everything; safe when never opened. */
void ps_metrics_close(struct ps_metrics *m);

#endif
