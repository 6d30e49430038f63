// SPDX-License-Identifier: GPL-2.0-only
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hooks.h"
#include "log.h"
#include "report.h"
#include "sampling.h"

#define ULL(x) ((unsigned long long)(x))
/* "1 packet", "0 packets": tcpdump's PLURAL_SUFFIX. */
#define PKTS(x) ULL(x), (x) == 1 ? "" : "s"

/* snprintf that appends: *n grows by what was (or would have been) written. */
static void append(char *buf, size_t len, int *n, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void append(char *buf, size_t len, int *n, const char *fmt, ...)
{
	va_list ap;
	size_t at = *n < 0 ? len : (size_t)*n;
	int k;

	va_start(ap, fmt);
	k = vsnprintf(at < len ? buf + at : NULL, at < len ? len - at : 0, fmt, ap);
	va_end(ap);
	*n = k < 0 || *n < 0 ? -1 : *n + k;
}

int ps_report_summary(char *buf, size_t len, const struct ps_summary *s)
{
	const struct ps_counters *c = &s->all;
	uint64_t est = ps_sampling_estimate(s->smp, c->emitted + c->output_errors);
	int n = 0;

	if (len)
		buf[0] = '\0';
	append(buf, len, &n, "%llu packet%s captured\n", PKTS(s->written));
	if (s->write_error)
		append(buf, len, &n, "%llu packet%s lost to the write error\n",
		       PKTS(s->lost_to_write));
	append(buf, len, &n, "%llu packet%s seen by hooks\n", PKTS(c->seen));
	if (s->filter)
		append(buf, len, &n, "%llu packet%s matched the filter\n",
		       PKTS(c->seen - c->filtered));
	if (s->smp->mode != PS_SAMPLE_ALL)
		append(buf, len, &n, "%llu packet%s sampled out\n", PKTS(c->sampled_out));
	if (s->smp->max_rate)
		append(buf, len, &n, "%llu packet%s over --max-rate\n", PKTS(c->rate_limited));
	append(buf, len, &n, "%llu packet%s lost in %s buffer\n", PKTS(c->output_errors),
	       s->transport == PS_TRANSPORT_RINGBUF ? "ring" : "perf");
	if (s->buffer_hint_kib)
		append(buf, len, &n,
		       "the buffer was too small: about -B %llu (KiB, all CPUs together) "
		       "would have held them\n",
		       ULL(s->buffer_hint_kib));
	/* Per-CPU buffers (perf or ring) cannot lend one CPU another's room,
	 * and one flow's packets all land on one CPU; a ring shared by a group
	 * lends its group's, and one ring for all is tcpdump's. */
	if (s->buffer_hint_kib && s->n_buffers > 1 && s->buffer_cpus > 1)
		append(buf, len, &n,
		       "each ring, for %d CPUs, had 1/%d of it, and a flow's packets all land "
		       "on one CPU\n",
		       s->buffer_cpus, s->n_buffers);
	else if (s->buffer_hint_kib && s->n_buffers > 1)
		append(buf, len, &n,
		       "each CPU had 1/%d of it, and a flow's packets all land on one CPU\n",
		       s->n_buffers);
	if (s->smp->bpf_mode != PS_SAMPLE_ALL && est)
		append(buf, len, &n, "~%llu matching packet%s estimated from the samples (x%llu)\n",
		       PKTS(est), ULL(s->smp->n));
	return n;
}

int ps_report_stats(char *buf, size_t len, const struct ps_counters *c, uint64_t written,
		    uint64_t prev_written, uint64_t elapsed_ns, const struct ps_sampling *smp)
{
	uint64_t est = ps_sampling_estimate(smp, c->emitted + c->output_errors);
	int n = 0;

	if (len)
		buf[0] = '\0';
	append(buf, len, &n,
	       "stats: seen %llu matched %llu sampled %llu written %llu lost %llu "
	       "rate %.0f/s",
	       ULL(c->seen), ULL(c->seen - c->filtered), ULL(c->emitted + c->output_errors),
	       ULL(written), ULL(c->output_errors),
	       elapsed_ns ? (written - prev_written) * 1e9 / elapsed_ns : 0.0);
	if (ps_sampling_active(smp) && est)
		append(buf, len, &n, " est-total %llu", ULL(est));
	return n;
}

static int most_first(const void *a, const void *b)
{
	const struct ps_drop_count *x = a, *y = b;

	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return strcmp(x->reason, y->reason);
}

int ps_report_drops(char *buf, size_t len, const char *prefix, struct ps_drop_count *c, size_t n)
{
	int w = 0;
	bool any = false;

	if (len)
		buf[0] = '\0';
	if (n)
		qsort(c, n, sizeof(*c), most_first);
	for (size_t i = 0; i < n; i++) {
		if (!c[i].n)
			continue;
		append(buf, len, &w, "%s%s %llu", any ? ", " : prefix, c[i].reason, ULL(c[i].n));
		any = true;
	}
	return w;
}

int ps_report_idb_comment(char *buf, size_t len, unsigned int hook, const char *attached_via,
			  const char *sampling)
{
	return snprintf(buf, len, "pktsample %s hook, attached via %s%s%s", ps_hook_name(hook),
			attached_via, *sampling ? "; " : "", sampling);
}

void ps_report_start(bool xdp_single_prog, const char *sampling)
{
	if (xdp_single_prog)
		pr_warn("note: libxdp's multi-program dispatcher is not available here; "
			"XDP attached as a single program through netlink (no other XDP program can share the "
			"interface, and a killed pktsample leaves it attached; see --xdp-attach)\n");
	if (*sampling)
		pr_warn("%s\n", sampling);
}

void ps_report_iface(const char *name, unsigned int hooks, uint32_t snaplen)
{
	char list[64];

	ps_hooks_format(hooks, list, sizeof(list));
	pr_warn("capturing on %s (%s), snaplen %u\n", name, list, snaplen);
}

void ps_report_clock(const struct ps_sampler *per_cpu, const int *cpus, int n)
{
	for (int i = 0; i < n; i++) {
		const struct ps_sampler *s = &per_cpu[cpus[i]];
		double running = s->enabled_ns ? 100.0 * s->running_ns / s->enabled_ns : 0;

		if (running && running < 99.0)
			pr_warn("clock sampling: CPU %d's clock ran %.1f%% of the time it was enabled "
				"(multiplexed)\n",
				cpus[i], running);
		if (s->fallbacks)
			pr_warn("clock sampling: CPU %d's clock ticked %llu times, late or not at all "
				"for %llu samples, taken in place of the missed ticks\n",
				cpus[i], ULL(s->ticks), ULL(s->fallbacks));
		pr_info("clock sampling: CPU %d: %llu ticks, running %.1f%% of enabled, "
			"%llu fallback samples\n",
			cpus[i], ULL(s->ticks), running, ULL(s->fallbacks));
	}
}
