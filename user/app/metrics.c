// SPDX-License-Identifier: GPL-2.0-only
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "metrics.h"

#define ULL(x) ((unsigned long long)(x))

/* snprintf that keeps counting past the end, as the result promises. */
static void put(char *buf, size_t len, size_t *at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void put(char *buf, size_t len, size_t *at, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(*at < len ? buf + *at : NULL, *at < len ? len - *at : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		*at += (size_t)n;
}

/* A label value as the format wants it: backslash, quote and newline escaped. */
static void put_label(char *buf, size_t len, size_t *at, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			put(buf, len, at, "\\%c", *s);
		else if (*s == '\n')
			put(buf, len, at, "\\n");
		else
			put(buf, len, at, "%c", *s);
	}
}

static void put_family(char *buf, size_t len, size_t *at, const char *name, const char *type,
		       const char *help)
{
	put(buf, len, at, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* The per-(interface, hook) counters, one family each. */
static const struct {
	const char *name, *help;
} stages[] = {
	{ "pktsample_packets_seen_total", "Packets the hook ran on." },
	{ "pktsample_packets_filtered_out_total",
	  "Packets that did not match the filter expression or the context filters." },
	{ "pktsample_packets_sampled_out_total",
	  "Packets that matched, not chosen by the sampler." },
	{ "pktsample_packets_rate_limited_total", "Packets chosen, over the --max-rate budget." },
	{ "pktsample_packets_emitted_total", "Packets the hook handed to the kernel's buffer." },
	{ "pktsample_packets_lost_total", "Packets lost because the kernel's buffer was full." },
	{ "pktsample_packets_written_total", "Packets every output took." },
};

static uint64_t stage_value(const struct ps_metrics_target *t, size_t i)
{
	const struct ps_counters *c = &t->c;
	const uint64_t v[] = { c->seen,
			       c->filtered,
			       c->sampled_out,
			       c->rate_limited,
			       c->emitted + c->output_errors,
			       c->output_errors,
			       t->written };

	return v[i];
}

/* A process row's name, "comm (pid)", as two labels; a reason's, "(no local
 * socket)", as the process label alone. */
static void put_process(char *buf, size_t len, size_t *at, const char *name)
{
	const char *open = strrchr(name, '(');
	size_t n = strlen(name);
	char comm[96];

	if (open && open > name + 1 && open[-1] == ' ' && name[n - 1] == ')' &&
	    (size_t)(open - name - 1) < sizeof(comm)) {
		snprintf(comm, sizeof(comm), "%.*s", (int)(open - name - 1), name);
		put(buf, len, at, "process=\"");
		put_label(buf, len, at, comm);
		put(buf, len, at, "\",pid=\"%.*s\"", (int)(name + n - 1 - open - 1), open + 1);
		return;
	}
	put(buf, len, at, "process=\"");
	put_label(buf, len, at, name);
	put(buf, len, at, "\",pid=\"\"");
}

/* The owners' four families: packets and bytes, by process and container. */
static void put_owners(char *buf, size_t len, size_t *at, const struct ps_metrics_view *v)
{
	static const char *const ways[3] = { "in", "out", "dropped" };
	const struct {
		const char *group;
		const struct ps_metrics_owner *o;
		size_t n;
	} groups[2] = { { "process", v->procs, v->n_procs },
			{ "container", v->containers, v->n_containers } };

	for (int g = 0; g < 2; g++) {
		for (int bytes = 0; groups[g].n && bytes < 2; bytes++) {
			char name[64];

			snprintf(name, sizeof(name), "pktsample_%s_%s_total", groups[g].group,
				 bytes ? "bytes" : "packets");
			put(buf, len, at,
			    "# HELP %s %s by %s and direction (in, out, dropped): the busiest "
			    "by name, each counted from when it was named, the rest as "
			    "\"(other)\".\n"
			    "# TYPE %s counter\n",
			    name, bytes ? "Bytes" : "Packets", groups[g].group, name);
			for (size_t i = 0; i < groups[g].n; i++) {
				const struct ps_metrics_owner *o = &groups[g].o[i];

				for (int d = 0; d < 3; d++) {
					uint64_t x = bytes ? o->bytes[d] : o->pkts[d];

					if (!x)
						continue;
					put(buf, len, at, "%s{", name);
					if (g == 0) {
						put_process(buf, len, at, o->name);
					} else {
						put(buf, len, at, "container=\"");
						put_label(buf, len, at, o->name);
						put(buf, len, at, "\"");
					}
					put(buf, len, at, ",direction=\"%s\"} %llu\n", ways[d],
					    ULL(x));
				}
			}
		}
	}
}

size_t ps_metrics_format(char *buf, size_t len, const struct ps_metrics_view *v)
{
	/* sFlow's counters (with --sflow), one family each. */
	const struct {
		const char *name, *help;
		uint64_t value;
	} sflow[] = {
		{ "pktsample_sflow_samples_total", "sFlow samples and events made.",
		  v->sflow_samples },
		{ "pktsample_sflow_datagrams_total", "sFlow datagrams made.", v->sflow_datagrams },
		{ "pktsample_sflow_sent_total", "sFlow datagrams sent, once per collector.",
		  v->sflow_sent },
		{ "pktsample_sflow_send_errors_total",
		  "sFlow datagrams that could not be sent to a collector.", v->sflow_failed },
		{ "pktsample_sflow_refused_total",
		  "Port unreachables from a collector's host (nothing listened); each "
		  "datagram they cut short was sent again.",
		  v->sflow_refused },
		{ "pktsample_sflow_dropped_total",
		  "sFlow datagrams dropped: they came faster than --sflow-burst lets them leave.",
		  v->sflow_dropped },
	};
	/* The flight recorder's (with --flight). */
	const struct {
		const char *name, *type, *help;
		uint64_t value;
	} flight[] = {
		{ "pktsample_flight_incidents_total", "counter", "Incidents written.",
		  v->flight_incidents },
		{ "pktsample_flight_triggers_ignored_total", "counter",
		  "Triggers during an incident or its --holdoff: no incident of their own.",
		  v->flight_ignored },
		{ "pktsample_flight_evicted_packets_total", "counter",
		  "Packets given up, the oldest first, for room in --flight-size.",
		  v->flight_evicted },
		{ "pktsample_flight_held_packets", "gauge", "Packets in the flight recorder now.",
		  v->flight_held },
		{ "pktsample_flight_held_bytes", "gauge",
		  "Bytes of --flight-size the packets in the flight recorder take now.",
		  v->flight_held_bytes },
	};
	size_t at = 0;

	if (len)
		buf[0] = '\0';
	put_family(buf, len, &at, "pktsample_start_time_seconds", "gauge",
		   "Unix time the capture started.");
	put(buf, len, &at, "pktsample_start_time_seconds %.3f\n", v->start_time_s);
	for (size_t i = 0; v->n_targets && i < sizeof(stages) / sizeof(stages[0]); i++) {
		put_family(buf, len, &at, stages[i].name, "counter", stages[i].help);
		for (size_t t = 0; t < v->n_targets; t++) {
			put(buf, len, &at, "%s{interface=\"", stages[i].name);
			put_label(buf, len, &at, v->targets[t].ifname);
			put(buf, len, &at, "\",hook=\"%s\"} %llu\n", v->targets[t].hook,
			    ULL(stage_value(&v->targets[t], i)));
		}
	}
	if (v->n_drops) {
		put_family(buf, len, &at, "pktsample_kernel_drops_total", "counter",
			   "Packets the kernel dropped on the captured interfaces, by reason "
			   "(--hook drop).");
		for (size_t i = 0; i < v->n_drops; i++) {
			put(buf, len, &at, "pktsample_kernel_drops_total{reason=\"");
			put_label(buf, len, &at, v->drops[i].reason);
			put(buf, len, &at, "\"} %llu\n", ULL(v->drops[i].n));
		}
	}
	put_owners(buf, len, &at, v);
	for (size_t i = 0; v->sflow && i < sizeof(sflow) / sizeof(sflow[0]); i++) {
		put_family(buf, len, &at, sflow[i].name, "counter", sflow[i].help);
		put(buf, len, &at, "%s %llu\n", sflow[i].name, ULL(sflow[i].value));
	}
	for (size_t i = 0; v->flight && i < sizeof(flight) / sizeof(flight[0]); i++) {
		put_family(buf, len, &at, flight[i].name, flight[i].type, flight[i].help);
		put(buf, len, &at, "%s %llu\n", flight[i].name, ULL(flight[i].value));
	}
	return at;
}
