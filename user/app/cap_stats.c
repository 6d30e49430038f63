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
static int target_counters(const struct ps_cap_out *o, const struct ps_cap_kern *k, int t,
			   struct ps_counters *c)
{
	const struct ps_target *tg = &o->targets[t];

	if (tg->gone) {
		*c = tg->final;
		return 0;
	}
	return ps_loader_read_counter(&k->loader, (uint32_t)tg->ifindex, tg->hook, c);
}

/* The outputs' counters (ISBs, sFlow): target_counters, by interface. */
int cap_read_counters(const struct ps_cap_out *o, const struct ps_cap_kern *k, uint32_t ifindex,
		      unsigned int hook, struct ps_counters *c)
{
	for (int t = 0; t < o->n_targets; t++)
		if (o->targets[t].ifindex == (int)ifindex && o->targets[t].hook == hook)
			return target_counters(o, k, t, c);
	return -ENOENT;
}

/* Packets of target t (or of all, t < 0) in every file so far; printing
 * only, what was printed. */
static uint64_t written_total(const struct ps_cap_out *o, int t)
{
	uint64_t n = t < 0 ? o->retired_written : 0;

	if (o->file)
		return ps_capfile_written(o->file, t);
	for (int i = 0; i < o->n_targets; i++)
		if (t < 0 || i == t)
			n += o->targets[i].written;
	return n;
}

/*
 * The drop hook's packets by reason, into c (PS_DROP_REASON_SLOTS entries;
 * names: as many buffers for reasons without a name); how many. 0 without
 * the hook.
 */
static size_t drop_counts(const struct ps_cap_kern *k, struct ps_drop_count *c, char (*names)[32])
{
	uint64_t counts[PS_DROP_REASON_SLOTS];
	size_t n = 0;

	if (!(k->hooks & PS_HOOKS_DROP) || ps_loader_read_drop_reasons(&k->loader, counts))
		return 0;
	for (uint32_t r = 0; r < PS_DROP_REASON_SLOTS; r++) {
		if (!counts[r])
			continue;
		/* The last slot holds every reason past it. */
		c[n].reason = r == PS_DROP_REASON_SLOTS - 1 ?
				      "OTHER" :
				      ps_dropnames_reason(&k->drops, r, names[n], sizeof(names[n]));
		c[n++].n = counts[r];
	}
	return n;
}

/* The drop hook's packets by reason, after prefix; "" without the hook. */
static void drop_reasons(const struct ps_cap_kern *k, const char *prefix, char *buf, size_t len)
{
	struct ps_drop_count c[PS_DROP_REASON_SLOTS];
	char names[PS_DROP_REASON_SLOTS][32];

	ps_report_drops(buf, len, prefix, c, drop_counts(k, c, names));
}

/* The packets written without a known owner, by why (ps_who_why): what
 * the file's comments leave unsaid. "" with none, or attribution off. */
static void unowned_reasons(const struct ps_cap_out *o, const char *prefix, char *buf, size_t len)
{
	struct ps_drop_count c[PS_CTX_MAX];
	struct ps_ingest_stats st;
	size_t n = 0;

	ps_ingest_stats(o->in, &st);
	for (unsigned int ctx = 0; ctx < PS_CTX_MAX; ctx++) {
		const char *why = ps_who_why((uint8_t)ctx, false);
		size_t i = 0;

		if (!st.unowned[ctx] || !why)
			continue;
		while (i < n && strcmp(c[i].reason, why))
			i++;
		if (i == n)
			c[n++] = (struct ps_drop_count){ .reason = why };
		c[i].n += st.unowned[ctx];
	}
	ps_report_drops(buf, len, prefix, c, n);
}

/* The busiest processes and containers (user/top/topview.h), where they
 * are counted. */
static void owners(const struct ps_topview *top, struct ps_metrics_view *v,
		   struct ps_metrics_owner *procs, struct ps_metrics_owner *containers)
{
	struct ps_top_series s[PS_TOP_LABELS + 1];
	struct ps_metrics_owner *const to[2] = { procs, containers };
	const enum ps_top_group g[2] = { PS_TOP_PROCESS, PS_TOP_CONTAINER };
	size_t n[2] = { 0, 0 };

	for (int k = 0; top && k < 2; k++) {
		n[k] = ps_top_series(&top->agg, g[k], s, PS_TOP_LABELS + 1);
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

/* What the outputs say of themselves: sFlow's sends, the flight
 * recorder's incidents. */
static void output_metrics(const struct ps_cap_out *o, struct ps_metrics_view *v)
{
	if (o->sflow) {
		v->sflow_samples = o->sflow->samples;
		v->sflow_datagrams = o->sflow->datagrams;
		v->sflow_sent = o->sflow->sent;
		v->sflow_failed = o->sflow->send_errors;
		v->sflow_refused = o->sflow->refused;
		v->sflow_dropped = o->sflow->paced_out;
	}
	if (o->flight) {
		struct ps_flight_stats fs;

		ps_flight_stats(o->flight, &fs);
		v->flight = true;
		v->flight_incidents = fs.incidents;
		v->flight_ignored = fs.triggers_ignored;
		v->flight_evicted = fs.evicted;
		v->flight_held = fs.held;
		v->flight_held_bytes = fs.held_bytes;
	}
}

/* The text --metrics serves, made anew from every counter. */
static void cap_publish_metrics(struct ps_cap_stats *st, const struct ps_cap_out *o,
				const struct ps_cap_kern *k, uint64_t now_ns)
{
	struct ps_metrics_owner procs[PS_TOP_LABELS + 1], containers[PS_TOP_LABELS + 1];
	struct ps_metrics_target *t = calloc((size_t)o->n_targets + 1, sizeof(*t));
	struct ps_drop_count drops[PS_DROP_REASON_SLOTS];
	char names[PS_DROP_REASON_SLOTS][32];
	struct ps_metrics_view v = {
		.targets = t,
		.n_targets = (size_t)o->n_targets,
		.drops = drops,
		.n_drops = drop_counts(k, drops, names),
		.sflow = o->sflow != NULL,
		.start_time_s = st->start_time_s,
	};
	size_t len;
	char *body;

	st->metrics_at_ns = now_ns;
	if (!t)
		return;
	/* The interfaces there are: a gone one's series ends. */
	v.n_targets = 0;
	for (int i = 0; i < o->n_targets; i++) {
		struct ps_metrics_target *m = &t[v.n_targets];

		if (o->targets[i].gone)
			continue;
		m->ifname = o->targets[i].ifname;
		m->hook = ps_hook_name(o->targets[i].hook);
		target_counters(o, k, i, &m->c);
		m->written = written_total(o, i);
		v.n_targets++;
	}
	output_metrics(o, &v);
	owners(o->top, &v, procs, containers);
	len = ps_metrics_format(NULL, 0, &v);
	body = malloc(len + 1);
	if (body) {
		ps_metrics_format(body, len + 1, &v);
		ps_metrics_publish(st->metrics, body, len);
	}
	free(t);
}

/* Every (interface, hook)'s counters, summed, those gone included. */
static void sum_counters(const struct ps_cap_out *o, const struct ps_cap_kern *k,
			 struct ps_counters *all)
{
	*all = o->retired;
	for (int i = 0; i < o->n_targets; i++) {
		struct ps_counters c;

		if (!target_counters(o, k, i, &c))
			ps_counters_add(all, &c);
	}
}

/* One --stats line: the counters, the packets written (in the files, as
 * the summary and the ISBs count them), sFlow's sends, drops by reason,
 * the packets without a known owner by why, the times of followed packets
 * between hooks. */
static void print_stats(const struct ps_cap_out *o, const struct ps_cap_kern *k,
			const struct ps_sampling *smp, uint64_t written, uint64_t prev_written,
			uint64_t elapsed_ns)
{
	struct ps_counters c;
	char line[320], sflow[96] = "", flight[96] = "", drops[400], unowned[200], paths[600];
	char text[1700];

	sum_counters(o, k, &c);
	drop_reasons(k, " drops ", drops, sizeof(drops));
	unowned_reasons(o, " unowned ", unowned, sizeof(unowned));
	ps_ingest_path_times(o->in, " paths ", paths, sizeof(paths));
	ps_report_stats(line, sizeof(line), &c, written, prev_written, elapsed_ns, smp);
	if (o->sflow)
		snprintf(sflow, sizeof(sflow), " sflow sent %llu failed %llu refused %llu",
			 (unsigned long long)o->sflow->sent,
			 (unsigned long long)o->sflow->send_errors,
			 (unsigned long long)o->sflow->refused);
	if (o->flight) {
		struct ps_flight_stats fs;

		ps_flight_stats(o->flight, &fs);
		snprintf(flight, sizeof(flight), " flight held %llu incidents %llu",
			 (unsigned long long)fs.held, (unsigned long long)fs.incidents);
	}
	snprintf(text, sizeof(text), "%s%s%s%s%s%s\n", line, sflow, flight, drops, unowned, paths);
	ps_log_text(text);
}

void cap_report_clock(const struct ps_cap_kern *k)
{
	struct ps_sampler *per_cpu = calloc(k->loader.ncpus, sizeof(*per_cpu));
	int err = per_cpu ? ps_loader_read_sampler(&k->loader, per_cpu) : -ENOMEM;

	if (err)
		pr_warn("cannot read the clock sampling statistics: %s\n", strerror(-err));
	else
		ps_report_clock(per_cpu, k->ticker.cpu, k->ticker.n);
	free(per_cpu);
}

/* The whole capture's stages, summed into *all; per target with -v. */
static void report_stages(const struct ps_cap_out *o, const struct ps_cap_kern *k,
			  struct ps_counters *all)
{
	*all = o->retired;
	for (int t = 0; t < o->n_targets; t++) {
		const struct ps_target *tg = &o->targets[t];
		struct ps_counters c;
		char line[320];

		if (target_counters(o, k, t, &c))
			continue; /* write_isbs said so */
		ps_counters_add(all, &c);
		ps_counters_format(line, sizeof(line), &c, written_total(o, t));
		pr_info("%s %s: %s\n", tg->ifname, ps_hook_name(tg->hook), line);
	}
}

/* The flight recorder's closing line. */
static void flight_summary(const struct ps_flight *flight)
{
	struct ps_flight_stats fs;
	char line[400], more[240] = "";

	ps_flight_stats(flight, &fs);
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
/* sFlow's closing line, made before the rest is said (strdup'ed; NULL
 * without sFlow). */
static char *sflow_summary(const struct ps_sflow_exp *sf)
{
	char line[320], paced[120] = "", refused[120] = "";

	if (!sf)
		return NULL;
	/* Each refusal's datagram was sent again: a collector that is not
	 * (yet) listening, not a loss of ours. */
	if (sf->refused)
		snprintf(refused, sizeof(refused),
			 ", %llu refused by the collector's host (nothing listened)",
			 (unsigned long long)sf->refused);
	if (sf->paced_out)
		snprintf(paced, sizeof(paced),
			 ", %llu dropped (they came faster than --sflow-burst lets them leave)",
			 (unsigned long long)sf->paced_out);
	snprintf(line, sizeof(line),
		 "%llu sFlow samples in %llu datagrams: %llu sent, %llu failed%s%s\n",
		 (unsigned long long)sf->samples, (unsigned long long)sf->datagrams,
		 (unsigned long long)sf->sent, (unsigned long long)sf->send_errors, refused, paced);
	return strdup(line);
}

void cap_summary(const struct ps_cap_out *o, const struct ps_cap_kern *k,
		 const struct ps_sampling *smp, bool filtered)
{
	struct ps_summary sum = {
		.written = 0,
		.filter = filtered,
		.smp = smp,
		.transport = k->transport,
	};
	char text[512], *sflow_line = sflow_summary(o->sflow);

	report_stages(o, k, &sum.all);

	ps_ingest_report(o->in, k->transport == PS_TRANSPORT_RINGBUF);
	/* Only what is whole in the files counts as captured. */
	sum.written = written_total(o, -1);
	if (o->file && ps_capfile_failed(o->file)) {
		sum.write_error = true;
		sum.lost_to_write = sum.all.emitted > sum.written ? sum.all.emitted - sum.written :
								    0;
	}
	sum.buffer_hint_kib = ps_ingest_buffer_hint(o->in, &k->bufs, sum.all.output_errors);
	sum.n_buffers = ps_ingest_n_sources(o->in);
	if (k->transport == PS_TRANSPORT_RINGBUF)
		sum.buffer_cpus = (int)k->bufs.ring_cpus;
	ps_report_summary(text, sizeof(text), &sum);
	ps_log_text(text);
	drop_reasons(k, "kernel drops by reason: ", text, sizeof(text) - 1);
	if (text[0])
		ps_log_text(strcat(text, "\n")); /* room kept for it */
	/* With -v: the file's comments leave them unsaid, or tell them one
	 * at a time. */
	unowned_reasons(o, "", text, sizeof(text));
	if (text[0])
		pr_info("packets without a known owner, by why: %s\n", text);
	ps_ingest_path_times(o->in, "", text, sizeof(text));
	if (text[0])
		pr_info("followed packets between hooks: %s\n", text);
	if (sflow_line)
		ps_log_text(sflow_line);
	free(sflow_line);
	if (o->flight)
		flight_summary(o->flight);
}

/* cfg's --metrics-web-config into web (none: zero). -errno, logged with
 * tail after the reason. */
static int read_web_config(const struct ps_capture_cfg *cfg, struct ps_webcfg *web,
			   const char *tail)
{
	char why[400];
	int err;

	if (!cfg->metrics_web_config)
		return 0;
	err = ps_webcfg_load(cfg->metrics_web_config, web, why, sizeof(why));
	if (err) {
		pr_err("bad --metrics-web-config %s%s\n", why, tail);
		return err;
	}
	err = ps_metrics_check_web(web, tail);
	if (err)
		ps_webcfg_free(web);
	return err;
}

/* --metrics' server for cfg: its web configuration read, then its port.
 * -errno, logged with why's tail. */
static int open_metrics(struct ps_metrics *m, const struct ps_capture_cfg *cfg, const char *why)
{
	struct ps_webcfg web = { 0 };
	int err = read_web_config(cfg, &web, why);

	return err ? err : ps_metrics_open(m, &cfg->metrics_addr, &web);
}

void cap_serve_metrics(struct ps_cap_stats *st, const struct ps_cap_out *o,
		       const struct ps_cap_kern *k, uint64_t now_ns)
{
	cap_publish_metrics(st, o, k, now_ns);
	ps_metrics_enforce_deadlines(st->metrics);
}

int cap_stats_open_metrics(struct ps_cap_stats *st, const struct ps_capture_cfg *cfg)
{
	return cfg->metrics ? open_metrics(st->metrics, cfg, "") : 0;
}

int cap_stats_reload_prepare(struct ps_cap_stats *st, const struct ps_capture_cfg *cfg, bool moved,
			     const char *tail)
{
	/* The other slot: its server thread knows it by address. */
	struct ps_metrics *m = &st->metrics_slot[st->metrics == &st->metrics_slot[0]];

	st->next_web = (struct ps_webcfg){ 0 };
	m->fd = -1;
	if (moved && cfg->metrics)
		return open_metrics(m, cfg, tail);
	if (cfg->metrics) /* read at every reload: a renewed certificate is taken */
		return read_web_config(cfg, &st->next_web, tail);
	return 0;
}

void cap_stats_reload_drop(struct ps_cap_stats *st)
{
	ps_metrics_close(&st->metrics_slot[st->metrics == &st->metrics_slot[0]]);
	ps_webcfg_free(&st->next_web);
}

void cap_stats_reload_apply(struct ps_cap_stats *st, const struct ps_capture_cfg *cfg, bool moved)
{
	if (moved) {
		ps_metrics_close(st->metrics);
		st->metrics = &st->metrics_slot[st->metrics == &st->metrics_slot[0]];
		st->metrics_at_ns = 0; /* served anew at once */
	} else if (cfg->metrics && ps_metrics_reconfigure(st->metrics, &st->next_web)) {
		pr_warn("metrics keep their TLS and users of before\n");
	}
}

void cap_stats_init(struct ps_cap_stats *st)
{
	st->metrics_slot[0].fd = st->metrics_slot[1].fd = -1;
	st->metrics = &st->metrics_slot[0];
}

void cap_stats_start(struct ps_cap_stats *st, const struct ps_cap_out *o,
		     const struct ps_cap_kern *k, uint64_t now_ns)
{
	st->start_time_s = (double)ps_clock_read_ns(CLOCK_REALTIME, NULL) / 1e9;
	st->stats_at_ns = now_ns;
	if (st->metrics->fd >= 0)
		cap_publish_metrics(st, o, k, now_ns);
}

void cap_stats_line(struct ps_cap_stats *st, const struct ps_cap_out *o,
		    const struct ps_cap_kern *k, const struct ps_sampling *smp, uint64_t now_ns)
{
	uint64_t written = written_total(o, -1);

	print_stats(o, k, smp, written, st->stats_written, now_ns - st->stats_at_ns);
	st->stats_written = written;
	st->stats_at_ns = now_ns;
}

void cap_stats_free(struct ps_cap_stats *st)
{
	ps_metrics_close(&st->metrics_slot[0]);
	ps_metrics_close(&st->metrics_slot[1]);
}
