// SPDX-License-Identifier: GPL-2.0-only
/* What the capture counts and says: the kernel's counters per target,
 * --stats, --metrics' text, the closing summary; see capture_int.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include "capture_int.h"
#include "topview.h"
#include "log.h"
#include "report.h"
#include "sflowexp.h"

/* Target t's counters: the kernel's, or, its interface gone, as they were
 * then. 0 or -errno. */
int cap_target_counters(const struct ps_capture *cap, int t, struct ps_counters *c)
{
	const struct ps_target *tg = &cap->out.targets[t];

	if (tg->gone) {
		*c = tg->final;
		return 0;
	}
	return ps_loader_read_counter(&cap->kern.loader, (uint32_t)tg->ifindex, tg->hook, c);
}

/* The outputs' counters (ISBs, sFlow): target_counters, by interface. */
static int read_target_counters(void *arg, uint32_t ifindex, unsigned int hook,
				struct ps_counters *c)
{
	const struct ps_capture *cap = arg;

	for (int t = 0; t < cap->out.n_targets; t++)
		if (cap->out.targets[t].ifindex == (int)ifindex && cap->out.targets[t].hook == hook)
			return cap_target_counters(cap, t, c);
	return -ENOENT;
}

struct ps_counter_src cap_counter_src(struct ps_capture *cap)
{
	return (struct ps_counter_src){ .read = read_target_counters, .arg = cap };
}

/* Packets of target t (or of all, t < 0) in every file so far; printing
 * only, what was printed. */
uint64_t cap_written_total(const struct ps_capture *cap, int t)
{
	uint64_t n = t < 0 ? cap->out.retired_written : 0;

	if (cap->out.file)
		return ps_capfile_written(cap->out.file, t);
	for (int i = 0; i < cap->out.n_targets; i++)
		if (t < 0 || i == t)
			n += cap->out.targets[i].written;
	return n;
}

/*
 * The drop hook's packets by reason, into c (PS_DROP_REASON_SLOTS entries;
 * names: as many buffers for reasons without a name); how many. 0 without
 * the hook.
 */
static size_t drop_counts(const struct ps_capture *cap, struct ps_drop_count *c, char (*names)[32])
{
	uint64_t counts[PS_DROP_REASON_SLOTS];
	size_t n = 0;

	if (!(cap->kern.hooks & PS_HOOKS_DROP) ||
	    ps_loader_read_drop_reasons(&cap->kern.loader, counts))
		return 0;
	for (uint32_t r = 0; r < PS_DROP_REASON_SLOTS; r++) {
		if (!counts[r])
			continue;
		/* The last slot holds every reason past it. */
		c[n].reason = r == PS_DROP_REASON_SLOTS - 1 ?
				      "OTHER" :
				      ps_dropnames_reason(&cap->kern.drops, r, names[n],
							  sizeof(names[n]));
		c[n++].n = counts[r];
	}
	return n;
}

/* The drop hook's packets by reason, after prefix; "" without the hook. */
static void drop_reasons(const struct ps_capture *cap, const char *prefix, char *buf, size_t len)
{
	struct ps_drop_count c[PS_DROP_REASON_SLOTS];
	char names[PS_DROP_REASON_SLOTS][32];

	ps_report_drops(buf, len, prefix, c, drop_counts(cap, c, names));
}

/* The text --metrics serves, made anew from every counter. */
/* The busiest processes and containers (user/top/topview.h), where they
 * are counted. */
static void owners(const struct ps_capture *cap, struct ps_metrics_view *v,
		   struct ps_metrics_owner *procs, struct ps_metrics_owner *containers)
{
	struct ps_top_series s[PS_TOP_LABELS + 1];
	struct ps_metrics_owner *const to[2] = { procs, containers };
	const enum ps_top_group g[2] = { PS_TOP_PROCESS, PS_TOP_CONTAINER };
	size_t n[2] = { 0, 0 };

	for (int k = 0; cap->out.top && k < 2; k++) {
		n[k] = ps_top_series(&cap->out.top->agg, g[k], s, PS_TOP_LABELS + 1);
		for (size_t i = 0; i < n[k]; i++) {
			to[k][i].name = s[i].name;
			memcpy(to[k][i].pkts, s[i].pkts, sizeof(s[i].pkts));
			memcpy(to[k][i].bytes, s[i].bytes, sizeof(s[i].bytes));
		}
	}
	v->procs = procs;
	v->n_procs = n[0];
	v->containers = containers;
	v->n_containers = n[1];
}

void cap_publish_metrics(struct ps_capture *cap, uint64_t now_ns)
{
	struct ps_metrics_owner procs[PS_TOP_LABELS + 1], containers[PS_TOP_LABELS + 1];
	struct ps_metrics_target *t = calloc((size_t)cap->out.n_targets + 1, sizeof(*t));
	struct ps_drop_count drops[PS_DROP_REASON_SLOTS];
	char names[PS_DROP_REASON_SLOTS][32];
	struct ps_metrics_view v = {
		.targets = t,
		.n_targets = (size_t)cap->out.n_targets,
		.drops = drops,
		.n_drops = drop_counts(cap, drops, names),
		.sflow = cap->out.sflow != NULL,
		.start_time_s = cap->stats.start_time_s,
	};
	size_t len;
	char *body;

	cap->stats.metrics_at_ns = now_ns;
	if (!t)
		return;
	/* The interfaces there are: a gone one's series ends. */
	v.n_targets = 0;
	for (int i = 0; i < cap->out.n_targets; i++) {
		struct ps_metrics_target *m = &t[v.n_targets];

		if (cap->out.targets[i].gone)
			continue;
		m->ifname = cap->out.targets[i].ifname;
		m->hook = ps_hook_name(cap->out.targets[i].hook);
		cap_target_counters(cap, i, &m->c);
		m->written = cap_written_total(cap, i);
		v.n_targets++;
	}
	if (cap->out.sflow) {
		v.sflow_samples = cap->out.sflow->samples;
		v.sflow_datagrams = cap->out.sflow->datagrams;
		v.sflow_sent = cap->out.sflow->sent;
		v.sflow_failed = cap->out.sflow->send_errors;
		v.sflow_refused = cap->out.sflow->refused;
		v.sflow_dropped = cap->out.sflow->paced_out;
	}
	if (cap->out.flight) {
		struct ps_flight_stats fs;

		ps_flight_stats(cap->out.flight, &fs);
		v.flight = true;
		v.flight_incidents = fs.incidents;
		v.flight_ignored = fs.triggers_ignored;
		v.flight_evicted = fs.evicted;
		v.flight_held = fs.held;
		v.flight_held_bytes = fs.held_bytes;
	}
	owners(cap, &v, procs, containers);
	len = ps_metrics_format(NULL, 0, &v);
	body = malloc(len + 1);
	if (body) {
		ps_metrics_format(body, len + 1, &v);
		ps_metrics_publish(cap->stats.metrics, body, len);
	}
	free(t);
}

/* Every (interface, hook)'s counters, summed, those gone included. */
static void sum_counters(const struct ps_capture *cap, struct ps_counters *all)
{
	*all = cap->out.retired;
	for (int i = 0; i < cap->out.n_targets; i++) {
		struct ps_counters c;

		if (!cap_target_counters(cap, i, &c))
			ps_counters_add(all, &c);
	}
}

/* One --stats line: the counters, the packets written (in the files, as
 * the summary and the ISBs count them), sFlow's sends, drops by reason. */
void cap_print_stats(struct ps_capture *cap, uint64_t written, uint64_t prev_written,
		     uint64_t elapsed_ns)
{
	struct ps_counters c;
	char line[320], sflow[96] = "", flight[96] = "", drops[400], text[900];

	sum_counters(cap, &c);
	drop_reasons(cap, " drops ", drops, sizeof(drops));
	ps_report_stats(line, sizeof(line), &c, written, prev_written, elapsed_ns, &cap->smp);
	if (cap->out.sflow)
		snprintf(sflow, sizeof(sflow), " sflow sent %llu failed %llu refused %llu",
			 (unsigned long long)cap->out.sflow->sent,
			 (unsigned long long)cap->out.sflow->send_errors,
			 (unsigned long long)cap->out.sflow->refused);
	if (cap->out.flight) {
		struct ps_flight_stats fs;

		ps_flight_stats(cap->out.flight, &fs);
		snprintf(flight, sizeof(flight), " flight held %llu incidents %llu",
			 (unsigned long long)fs.held, (unsigned long long)fs.incidents);
	}
	snprintf(text, sizeof(text), "%s%s%s%s\n", line, sflow, flight, drops);
	ps_log_text(text);
}

void cap_report_clock(const struct ps_capture *cap)
{
	struct ps_sampler *per_cpu = calloc(cap->kern.loader.ncpus, sizeof(*per_cpu));
	int err = per_cpu ? ps_loader_read_sampler(&cap->kern.loader, per_cpu) : -ENOMEM;

	if (err)
		pr_warn("cannot read the clock sampling statistics: %s\n", strerror(-err));
	else
		ps_report_clock(per_cpu, cap->kern.ticker.cpu, cap->kern.ticker.n);
	free(per_cpu);
}

/* The whole capture's stages, summed into *all; per target with -v. */
static void report_stages(struct ps_capture *cap, struct ps_counters *all)
{
	*all = cap->out.retired;
	for (int t = 0; t < cap->out.n_targets; t++) {
		struct ps_target *tg = &cap->out.targets[t];
		struct ps_counters c;
		char line[320];

		if (cap_target_counters(cap, t, &c))
			continue; /* write_isbs said so */
		ps_counters_add(all, &c);
		ps_counters_format(line, sizeof(line), &c, cap_written_total(cap, t));
		pr_info("%s %s: %s\n", tg->ifname, ps_hook_name(tg->hook), line);
	}
}

/* The flight recorder's closing line. */
static void flight_summary(const struct ps_capture *cap)
{
	struct ps_flight_stats fs;
	char line[400], more[240] = "";

	ps_flight_stats(cap->out.flight, &fs);
	if (fs.evicted || fs.too_big)
		snprintf(more, sizeof(more),
			 "; %llu packets given up for room, the oldest first (--flight-size), "
			 "%llu larger than it",
			 (unsigned long long)fs.evicted, (unsigned long long)fs.too_big);
	snprintf(line, sizeof(line),
		 "%llu incident%s written, %llu trigger%s ignored (during an "
		 "incident or its holdoff)%s\n",
		 (unsigned long long)fs.incidents, fs.incidents == 1 ? "" : "s",
		 (unsigned long long)fs.triggers_ignored, fs.triggers_ignored == 1 ? "" : "s",
		 more);
	ps_log_text(line);
}

/* The closing lines: every (interface, hook)'s stages with -v, the
 * ingest's, the summary, drops by reason, sFlow's, the flight recorder's. */
void cap_summary(struct ps_capture *cap)
{
	struct ps_summary sum = {
		.written = 0,
		.filter = cap->filter != NULL,
		.smp = &cap->smp,
		.transport = cap->kern.transport,
	};
	char text[512], *sflow_line = NULL;

	if (cap->out.sflow) {
		char line[320], paced[120] = "", refused[120] = "";

		/* Each refusal's datagram was sent again: a collector that is
		 * not (yet) listening, not a loss of ours. */
		if (cap->out.sflow->refused)
			snprintf(refused, sizeof(refused),
				 ", %llu refused by the collector's host (nothing listened)",
				 (unsigned long long)cap->out.sflow->refused);
		if (cap->out.sflow->paced_out)
			snprintf(paced, sizeof(paced),
				 ", %llu dropped (they came faster than --sflow-burst lets them leave)",
				 (unsigned long long)cap->out.sflow->paced_out);
		snprintf(line, sizeof(line),
			 "%llu sFlow samples in %llu datagrams: %llu sent, %llu failed%s%s\n",
			 (unsigned long long)cap->out.sflow->samples,
			 (unsigned long long)cap->out.sflow->datagrams,
			 (unsigned long long)cap->out.sflow->sent,
			 (unsigned long long)cap->out.sflow->send_errors, refused, paced);
		sflow_line = strdup(line);
	}
	report_stages(cap, &sum.all);

	ps_ingest_report(cap->out.in, cap->kern.transport == PS_TRANSPORT_RINGBUF);
	/* Only what is whole in the files counts as captured. */
	sum.written = cap_written_total(cap, -1);
	if (cap->out.file && ps_capfile_failed(cap->out.file)) {
		sum.write_error = true;
		sum.lost_to_write = sum.all.emitted > sum.written ? sum.all.emitted - sum.written :
								    0;
	}
	sum.buffer_hint_kib = ps_ingest_buffer_hint(cap->out.in, &cap->kern.bufs,
						    sum.all.output_errors);
	sum.n_buffers = ps_ingest_n_sources(cap->out.in);
	if (cap->kern.transport == PS_TRANSPORT_RINGBUF)
		sum.buffer_cpus = (int)cap->kern.bufs.ring_cpus;
	ps_report_summary(text, sizeof(text), &sum);
	ps_log_text(text);
	drop_reasons(cap, "kernel drops by reason: ", text, sizeof(text) - 1);
	if (text[0])
		ps_log_text(strcat(text, "\n")); /* room kept for it */
	if (sflow_line)
		ps_log_text(sflow_line);
	free(sflow_line);
	if (cap->out.flight)
		flight_summary(cap);
}

void cap_stats_init(struct ps_cap_stats *st)
{
	st->metrics_slot[0].fd = st->metrics_slot[1].fd = -1;
	st->metrics = &st->metrics_slot[0];
}

void cap_stats_start(struct ps_capture *cap, uint64_t now_ns)
{
	cap->stats.start_time_s = (double)ps_clock_read_ns(CLOCK_REALTIME, NULL) / 1e9;
	cap->stats.stats_at_ns = now_ns;
	if (cap->stats.metrics->fd >= 0)
		cap_publish_metrics(cap, now_ns);
}

void cap_stats_line(struct ps_capture *cap, uint64_t now_ns)
{
	uint64_t written = cap_written_total(cap, -1);

	cap_print_stats(cap, written, cap->stats.stats_written, now_ns - cap->stats.stats_at_ns);
	cap->stats.stats_written = written;
	cap->stats.stats_at_ns = now_ns;
}

struct ps_metrics *cap_stats_spare_metrics(struct ps_cap_stats *st)
{
	return &st->metrics_slot[st->metrics == &st->metrics_slot[0]];
}

void cap_stats_serve_from(struct ps_cap_stats *st, struct ps_metrics *m)
{
	ps_metrics_close(st->metrics);
	st->metrics = m;
	st->metrics_at_ns = 0; /* served anew at once */
}

void cap_stats_free(struct ps_cap_stats *st)
{
	ps_metrics_close(&st->metrics_slot[0]);
	ps_metrics_close(&st->metrics_slot[1]);
}
