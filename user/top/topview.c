// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "clock.h"
#include "log.h"
#include "target.h"
#include "topkey.h"
#include "topscreen.h"
#include "topview.h"

#define ONE_SECOND 1000000000ull
/* The rows a batch table or a screen shows at most. */
#define MAX_SHOWN 512

/* The view filter's program for the packets of this link type. */
static const struct ps_cbpf_insn *filter_for(struct ps_topview *v, int linktype)
{
	struct ps_top_filter *f;
	char err[256];

	for (int i = 0; i < v->n_progs; i++)
		if (v->progs[i].linktype == linktype)
			return v->progs[i].insns;
	if (v->n_progs == (int)(sizeof(v->progs) / sizeof(v->progs[0])))
		return NULL;
	f = &v->progs[v->n_progs++];
	f->linktype = linktype;
	if (ps_cbpf_compile(v->filter, linktype, PS_SNAPLEN_MAX, &f->insns, &f->n, err,
			    sizeof(err)))
		f->insns = NULL;
	return f->insns;
}

/* Does p pass the view's filter? A link type it cannot be compiled for
 * (an Ethernet address on raw IP) passes nothing. */
static bool passes(struct ps_topview *v, const struct ps_sink_pkt *p)
{
	const struct ps_cbpf_insn *insns;

	if (!v->filter[0])
		return true;
	insns = filter_for(v, p->t->linktype);
	return insns && ps_cbpf_filter(insns, p->data, p->cap_len, p->wire_len) != 0;
}

static void free_filters(struct ps_topview *v)
{
	for (int i = 0; i < v->n_progs; i++)
		free(v->progs[i].insns);
	v->n_progs = 0;
}

int ps_topview_set_filter(struct ps_topview *v, const char *expr, char *err, size_t len)
{
	struct ps_cbpf_insn *insns = NULL;
	size_t n;
	char why[256];

	if (strlen(expr) >= sizeof(v->filter)) {
		snprintf(err, len, "filter too long");
		return -EINVAL;
	}
	if (*expr &&
	    ps_cbpf_compile(expr, 1 /* Ethernet */, PS_SNAPLEN_MAX, &insns, &n, why, sizeof(why))) {
		snprintf(err, len, "filter '%s': %s", expr, why);
		return -EINVAL;
	}
	free(insns);
	free_filters(v);
	snprintf(v->filter, sizeof(v->filter), "%s", expr);
	return 0;
}

static int top_packet(struct ps_sink *s, const struct ps_sink_pkt *p)
{
	struct ps_topview *v = ps_sink_of(s, struct ps_topview, sink);

	if (passes(v, p)) {
		ps_top_add(&v->agg, p, v->cfg.weight);
	}
	return 0;
}

static int top_round(struct ps_sink *s)
{
	(void)s;
	return 0;
}

static void totals_words(const struct ps_top_totals *t, char *buf, size_t len)
{
	char a[16], b[16], c[16], d[16], e[16];

	ps_top_units(t->pps[PS_TOP_IN], a, sizeof(a));
	ps_top_units(t->bps[PS_TOP_IN], b, sizeof(b));
	ps_top_units(t->pps[PS_TOP_OUT], c, sizeof(c));
	ps_top_units(t->bps[PS_TOP_OUT], d, sizeof(d));
	ps_top_units(t->pps[PS_TOP_DROPPED], e, sizeof(e));
	snprintf(buf, len, "in %s pkt/s %sB/s, out %s pkt/s %sB/s, dropped %s pkt/s", a, b, c, d,
		 e);
}

static double every_way(const double *v)
{
	return v[PS_TOP_IN] + v[PS_TOP_OUT] + v[PS_TOP_DROPPED];
}

/* Why the drop view is empty, where it would be. */
static const char *no_drops(const struct ps_topview *v)
{
	if (v->cfg.drop_hook || v->cfg.group != PS_TOP_DROP)
		return NULL;
	return "no drop hook here: add drop to --hook (--hook tc-ingress,tc-egress,drop)";
}

/* --batch: one table, as top -b prints one (numbers whole, for a script). */
static int print_table(struct ps_topview *v, double secs)
{
	const struct ps_top_row *rows[MAX_SHOWN];
	struct ps_top_totals tot;
	size_t n = ps_top_sorted(&v->agg, v->cfg.group, v->cfg.sort, rows, MAX_SHOWN);
	char when[32], words[160];
	time_t now = time(NULL);
	struct tm tm;
	FILE *o = v->out;

	ps_top_totals(&v->agg, v->cfg.group, &tot);
	totals_words(&tot, words, sizeof(words));
	strftime(when, sizeof(when), "%H:%M:%S", localtime_r(&now, &tm));
	fprintf(o, "pktsample top %s, by %s, most %s first, %.2f s%s%s\n", when,
		ps_top_group_name(v->cfg.group), ps_top_sort_name(v->cfg.sort), secs,
		v->cfg.scale_note[0] ? "; " : "", v->cfg.scale_note);
	if (no_drops(v))
		fprintf(o, "%s\n", no_drops(v));
	fprintf(o, "total: %llu packets; %s\n", (unsigned long long)tot.last_pkts, words);
	fprintf(o, "%9s %11s %9s %11s %8s %6s %8s  %s\n", "IN_PKT/S", "IN_B/S", "OUT_PKT/S",
		"OUT_B/S", "DROP/S", "SHARE", "PACKETS", "NAME");
	for (size_t i = 0; i < n; i++) {
		const struct ps_top_row *r = rows[i];
		double all = every_way(tot.bps);

		if (!r->last_pkts)
			continue;
		fprintf(o, "%9.0f %11.0f %9.0f %11.0f %8.0f %5.1f%% %8llu  %s\n", r->pps[PS_TOP_IN],
			r->bps[PS_TOP_IN], r->pps[PS_TOP_OUT], r->bps[PS_TOP_OUT],
			r->pps[PS_TOP_DROPPED], all > 0 ? 100 * every_way(r->bps) / all : 0.0,
			(unsigned long long)r->last_pkts, r->name);
	}
	fputc('\n', o);
	if (fflush(o) || ferror(o))
		return errno ? -errno : -EIO;
	return 0;
}

/* How long a message stays on the status line. */
#define STATUS_NS (5 * ONE_SECOND)

static void draw(struct ps_topview *v)
{
	const char *status = ps_clock_mono_ns() < v->status_until_ns ? v->status : "";
	const struct ps_top_row *rows[MAX_SHOWN];
	struct ps_top_totals tot;
	size_t fit = ps_topscreen_rows(v->screen);
	char title[512], words[200]; /* the filter and the sampling words whole */
	struct ps_topframe f = { .title = title, .totals = words, .status = status, .rows = rows };

	if (fit > MAX_SHOWN)
		fit = MAX_SHOWN;
	f.n_rows = fit ? ps_top_sorted(&v->agg, v->cfg.group, v->cfg.sort, rows, fit) : 0;
	ps_top_totals(&v->agg, v->cfg.group, &tot);
	f.total_bps = every_way(tot.bps);
	totals_words(&tot, words, sizeof(words));
	snprintf(title, sizeof(title), "pktsample top: by %s, most %s first%s%s%s%s%s",
		 ps_top_group_name(v->cfg.group), ps_top_sort_name(v->cfg.sort),
		 v->paused ? " [paused]" : "", v->filter[0] ? "; filter: " : "", v->filter,
		 v->cfg.scale_note[0] ? "; " : "", v->cfg.scale_note);
	if (!*status && no_drops(v))
		f.status = no_drops(v);
	ps_topscreen_draw(v->screen, &f);
}

/* One command from the keys. */
static void apply(struct ps_topview *v, const struct ps_topcmd *c)
{
	switch (c->kind) {
	case PS_TOPCMD_QUIT:
		v->quit = true;
		break;
	case PS_TOPCMD_GROUP:
		if (c->arg >= 0 && c->arg < PS_TOP_NGROUPS)
			v->cfg.group = (enum ps_top_group)c->arg;
		break;
	case PS_TOPCMD_NEXT_GROUP:
		v->cfg.group = (enum ps_top_group)((v->cfg.group + 1) % PS_TOP_NGROUPS);
		break;
	case PS_TOPCMD_NEXT_SORT:
		v->cfg.sort = (enum ps_top_sort)((v->cfg.sort + 1) % PS_TOP_NSORTS);
		break;
	case PS_TOPCMD_PAUSE:
		v->paused = !v->paused;
		break;
	case PS_TOPCMD_FILTER:
		if (ps_topview_set_filter(v, c->text, v->status, sizeof(v->status)))
			v->status_until_ns = ps_clock_mono_ns() + STATUS_NS;
		break;
	case PS_TOPCMD_REDRAW:
		break;
	}
}

/* The keys waiting: each applied, the screen redrawn if one was read. */
static int keys(struct ps_topview *v)
{
	struct ps_topcmd c;
	bool any = false;
	int r;

	while ((r = ps_topscreen_read(v->screen, &c)) == 1) {
		apply(v, &c);
		any = true;
	}
	if (r < 0)
		return r;
	if (v->quit)
		return 1;
	if (any)
		draw(v);
	return 0;
}

int ps_topview_run(struct ps_topview *v, uint64_t now_ns)
{
	int err;

	if (v->err)
		return v->err;
	if (!v->cfg.enabled) {
		if (now_ns >= v->next_ns) {
			ps_top_tick(&v->agg, now_ns - v->last_ns);
			v->last_ns = now_ns;
			v->next_ns = now_ns + v->cfg.interval_ns;
		}
		return 0;
	}
	if (!v->cfg.batch && !v->screen) {
		v->screen = ps_topscreen_start();
		if (!v->screen) {
			/* A terminal curses does not know ($TERM): the tables. */
			pr_warn("--top: no full screen on this terminal (%s): plain tables instead\n",
				strerror(errno));
			v->cfg.batch = true;
		} else {
			draw(v);
		}
	}
	if (v->screen) {
		err = keys(v);
		if (err)
			return err;
	}
	if (now_ns < v->next_ns)
		return 0;
	ps_top_tick(&v->agg, now_ns - v->last_ns);
	if (v->cfg.batch)
		v->err = print_table(v, (double)(now_ns - v->last_ns) / 1e9);
	else if (!v->paused)
		draw(v);
	v->last_ns = now_ns;
	v->next_ns = now_ns + v->cfg.interval_ns;
	return v->err;
}

int ps_topview_fd(const struct ps_topview *v)
{
	return v->cfg.enabled && !v->cfg.batch ? STDIN_FILENO : -1;
}

uint64_t ps_topview_due(const struct ps_topview *v)
{
	return v->next_ns;
}

/* The capture ends: the partial interval's table, so that the tables
 * together count every packet; the terminal given back. */
static int top_close(struct ps_sink *s, bool ok)
{
	struct ps_topview *v = ps_sink_of(s, struct ps_topview, sink);
	uint64_t now = ps_clock_mono_ns();

	if (v->cfg.enabled && v->cfg.batch && ok && !v->err) {
		ps_top_tick(&v->agg, now - v->last_ns);
		v->err = print_table(v, (double)(now - v->last_ns) / 1e9);
		v->last_ns = v->next_ns = now;
	}
	if (v->screen) {
		ps_topscreen_end(v->screen);
		v->screen = NULL;
	}
	return v->err;
}

static const struct ps_sink_ops top_ops = {
	.packet = top_packet,
	.round = top_round,
	.close = top_close,
};

int ps_topview_open(struct ps_topview *v, const struct ps_top_cfg *cfg, FILE *out)
{
	memset(v, 0, sizeof(*v));
	v->sink.ops = &top_ops;
	v->cfg = *cfg;
	if (!v->cfg.interval_ns)
		v->cfg.interval_ns = ONE_SECOND;
	if (!v->cfg.weight)
		v->cfg.weight = 1;
	v->out = out;
	ps_top_init(&v->agg);
	if (cfg->metrics)
		v->agg.labels = PS_TOP_LABELS;
	if (!cfg->enabled)
		v->agg.groups = 1u << PS_TOP_PROCESS | 1u << PS_TOP_CONTAINER;
	v->last_ns = ps_clock_mono_ns();
	v->next_ns = v->last_ns + v->cfg.interval_ns;
	return 0;
}

struct ps_sink *ps_topview_sink(struct ps_topview *v)
{
	return &v->sink;
}

void ps_topview_free(struct ps_topview *v)
{
	if (v->screen)
		ps_topscreen_end(v->screen);
	v->screen = NULL;
	free_filters(v);
	ps_top_free(&v->agg);
}
