// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include "capfile.h"
#include "clock.h"
#include "counters.h"
#include "hooks.h"
#include "log.h"

static uint64_t wall_ns(void)
{
	return (uint64_t)ps_clock_read_ns(CLOCK_REALTIME, NULL);
}

int ps_capfile_open(struct ps_capfile *f, const struct ps_capfile_cfg *cfg,
		    const volatile sig_atomic_t *abort)
{
	int err;

	memset(f, 0, sizeof(*f));
	f->cfg = *cfg;
	f->abort = abort;
	f->out.fd = -1;
	if (cfg->incidents)
		ps_rotate_init_incidents(&f->rot, cfg->output, cfg->file_count);
	else
		ps_rotate_init(&f->rot, cfg->output, cfg->file_size, cfg->rotate_ns,
			       cfg->file_count, 0);
	if (!ps_rotate_active(&f->rot)) {
		snprintf(f->path, sizeof(f->path), "%s", cfg->output);
		return ps_output_open(&f->out, cfg->output);
	}
	err = ps_rotate_name(&f->rot, time(NULL), f->path, sizeof(f->path));
	if (err) {
		pr_err("cannot name a file after '%s': %s\n", cfg->output,
		       err == -EINVAL ? "strftime(3) makes an empty name of it" : strerror(-err));
		return err;
	}
	return ps_output_open(&f->out, f->path);
}

/* The writer for the output file just opened; a second signal makes a
 * blocked write give up. */
static int open_writer(struct ps_capfile *f)
{
	f->w = pcapng_writer_new(f->out.fd, 0);
	/* A packet's bytes stay valid until the round ends, and the round
	 * flushes: the file takes them from the kernel's buffer as they are. */
	if (f->w && pcapng_writer_borrow(f->w)) {
		pcapng_writer_free(f->w);
		f->w = NULL;
	}
	if (!f->w) {
		pr_err("cannot set up the writer for %s: %s\n", f->out.path, strerror(ENOMEM));
		return -ENOMEM;
	}
	if (f->abort)
		pcapng_writer_set_abort(f->w, f->abort);
	return 0;
}

/* Target t's IDB in the current file. */
static int write_idb(struct ps_capfile *f, int t)
{
	int id = pcapng_write_idb(f->w, &(struct pcapng_idb){
						.linktype = (uint16_t)f->targets[t].linktype,
						.snaplen = f->cfg.snaplen,
						.name = f->targets[t].ifname,
						.description = f->ifaces[t].description,
						.filter = f->cfg.filter,
						.comment = f->ifaces[t].comment,
					});

	if (id < 0)
		return id;
	f->if_id[t] = (uint32_t)id;
	return 0;
}

/* A file's first blocks: the section, and one IDB per target (so every
 * file of a rotation has the same interface ids while no interface comes
 * or goes). */
static int write_headers(struct ps_capfile *f)
{
	struct utsname u;
	char os[sizeof(u.sysname) + sizeof(u.release) + 2];
	struct pcapng_shb shb = { .userappl = "pktsample " PKTSAMPLE_VERSION };
	int err;

	if (!uname(&u)) {
		snprintf(os, sizeof(os), "%s %s", u.sysname, u.release);
		shb.os = os;
		shb.hardware = u.machine;
	}
	/* A new file: its processes' PIBs and the options that point at
	 * them are written anew. */
	if (f->pib)
		memset(f->pib, 0, f->n_pib * sizeof(*f->pib));
	for (int c = 0; f->cpus && c < f->ncpus; c++)
		f->cpus[c].valid = false;
	err = pcapng_write_shb(f->w, &shb);
	for (int t = 0; !err && t < f->n_targets; t++)
		err = write_idb(f, t);
	if (err)
		pr_err("cannot write %s: %s\n", f->out.path, pcapng_strerror(err));
	f->file_start_ns = wall_ns();
	return err;
}

/*
 * One ISB per (interface, hook) for the file being closed: what its hook
 * saw, dropped and let through while this file was the output, and the
 * packets in this file. The counters then start over for the next file.
 */
static int write_isb(struct ps_capfile *f, int t, uint64_t end_ns)
{
	const struct ps_target *tg = &f->targets[t];
	uint64_t written = pcapng_writer_packets(f->w, (int)f->if_id[t]);
	struct ps_counters now, c;
	char line[320], comment[360];
	int rerr = ps_counter_read(&f->counters, (uint32_t)tg->ifindex, tg->hook, &now);

	if (rerr) {
		pr_warn("cannot read the counters of %s %s: %s\n", tg->ifname,
			ps_hook_name(tg->hook), strerror(-rerr));
		return 0;
	}
	ps_counters_sub(&c, &now, &f->file_base[t]);
	f->file_base[t] = now;
	ps_counters_format(line, sizeof(line), &c, written);
	snprintf(comment, sizeof(comment), "%s%s", f->gone[t] ? "interface disappeared; " : "",
		 line);
	return pcapng_write_isb(f->w, &(struct pcapng_isb){
					      .if_id = f->if_id[t],
					      .ts_ns = end_ns,
					      .start_ns = f->file_start_ns,
					      .end_ns = end_ns,
					      .if_recv = c.seen,
					      .if_drop = c.output_errors,
					      .has_filter_accept = f->cfg.counts_filter,
					      .filter_accept = c.seen - c.filtered,
					      .usr_deliv = written,
					      .comment = comment,
				      });
}

static int write_isbs(struct ps_capfile *f)
{
	uint64_t end_ns = wall_ns();
	int err = 0;

	for (int t = 0; t < f->n_targets && !err; t++)
		err = write_isb(f, t, end_ns);
	return err;
}

/* Room for n targets' state; the new entries zeroed. 0 or -ENOMEM. */
static int grow(struct ps_capfile *f, int n)
{
	struct ps_counters *base;
	uint64_t *closed;
	uint32_t *id;
	bool *gone;

	if (n <= f->room)
		return 0;
	base = realloc(f->file_base, (size_t)n * sizeof(*base));
	if (base)
		f->file_base = base;
	closed = realloc(f->closed_written, (size_t)n * sizeof(*closed));
	if (closed)
		f->closed_written = closed;
	id = realloc(f->if_id, (size_t)n * sizeof(*id));
	if (id)
		f->if_id = id;
	gone = realloc(f->gone, (size_t)n * sizeof(*gone));
	if (gone)
		f->gone = gone;
	if (!base || !closed || !id || !gone)
		return -ENOMEM;
	memset(base + f->room, 0, (size_t)(n - f->room) * sizeof(*base));
	memset(closed + f->room, 0, (size_t)(n - f->room) * sizeof(*closed));
	memset(id + f->room, 0, (size_t)(n - f->room) * sizeof(*id));
	memset(gone + f->room, 0, (size_t)(n - f->room) * sizeof(*gone));
	f->room = n;
	return 0;
}

int ps_capfile_start(struct ps_capfile *f, const struct ps_target *targets,
		     const struct ps_capfile_iface *ifaces, int n_targets, int ncpus,
		     const struct ps_counter_src *counters, uint64_t now_ns)
{
	int err;

	f->targets = targets;
	f->ifaces = ifaces;
	f->n_targets = n_targets;
	f->ncpus = ncpus;
	if (counters)
		f->counters = *counters;
	f->cpus = calloc(ncpus > 0 ? ncpus : 1, sizeof(*f->cpus));
	if (grow(f, n_targets ? n_targets : 1) || !f->cpus) {
		pr_err("cannot set up the writer for %s: %s\n", f->out.path, strerror(ENOMEM));
		return f->error = -ENOMEM;
	}
	err = ps_output_start(&f->out);
	if (!err)
		err = open_writer(f);
	if (!err)
		err = write_headers(f);
	/* -G's timer runs from here, not from the first packet. */
	f->rot.next_ns = now_ns + f->rot.interval_ns;
	return f->error = err;
}

/*
 * Close the current file (its ISBs, then -z on it) and go on in the next,
 * which the rotation state already names.
 */
static int rotate(struct ps_capfile *f)
{
	char closed[PATH_MAX];
	int err;

	/* Flushed first: the ISBs count the packets that are in the file. */
	err = pcapng_flush(f->w);
	if (!err)
		err = write_isbs(f);
	if (!err)
		err = pcapng_flush(f->w);
	if (err) {
		pr_err("cannot write %s: %s\n", f->out.path, pcapng_strerror(err));
		return err;
	}
	for (int t = 0; t < f->n_targets; t++)
		f->closed_written[t] += pcapng_writer_packets(f->w, (int)f->if_id[t]);
	pcapng_writer_free(f->w);
	f->w = NULL;
	ps_output_close(&f->out);
	snprintf(closed, sizeof(closed), "%s", f->path);
	if (f->cfg.postrotate_cmd)
		ps_rotate_run_cmd(f->cfg.postrotate_cmd, closed);

	err = ps_rotate_name(&f->rot, time(NULL), f->path, sizeof(f->path));
	if (err) {
		pr_err("cannot name the file after %s: %s\n", closed, strerror(-err));
		return err;
	}
	/* Opened as the first file was; emptied at once (a ring reuses names). */
	err = ps_output_open(&f->out, f->path);
	if (!err)
		err = ps_output_start(&f->out);
	if (!err)
		err = open_writer(f);
	if (err)
		return err;
	pr_info("now writing %s\n", f->path);
	return write_headers(f);
}

/* The process information block of w's process in this file: written
 * before its first packet. Its index, or -1 (none: the writer's error is
 * sticky and shows at the packet). */
static int64_t pib_of(struct ps_capfile *f, const struct ps_who *w)
{
	char exe[64], path[PATH_MAX];
	ssize_t n;
	int idx;

	if (!w || !w->known || !w->proc)
		return -1;
	if (w->proc >= f->n_pib) {
		uint32_t cap = w->proc + 64;
		uint32_t *v = realloc(f->pib, cap * sizeof(*v));

		if (!v)
			return -1;
		memset(v + f->n_pib, 0, (cap - f->n_pib) * sizeof(*v));
		f->pib = v;
		f->n_pib = cap;
	}
	if (f->pib[w->proc])
		return f->pib[w->proc] - 1;
	/* The executable's path while the process lives; its name alone
	 * after. */
	snprintf(exe, sizeof(exe), "/proc/%u/exe", w->pid);
	n = readlink(exe, path, sizeof(path) - 1);
	path[n > 0 ? n : 0] = '\0';
	idx = pcapng_write_pib(f->w, w->pid, w->comm, n > 0 ? path : NULL);
	if (idx < 0)
		return -1;
	f->pib[w->proc] = (uint32_t)idx + 1;
	return idx;
}

/* epb_flags' direction: a drop may be on the way in or out. */
static uint32_t direction_of(unsigned int hook)
{
	if (ps_hook_is_drop(hook))
		return PCAPNG_DIR_UNKNOWN;
	return hook == PS_HOOK_TC_EGRESS ? PCAPNG_DIR_OUTBOUND : PCAPNG_DIR_INBOUND;
}

/* The options every packet of p's annotation gets, but its id and drop
 * count: from the annotation, which is the cache's key. */
static void encode_opts(struct ps_capfile *f, struct ps_epb_cache *cs, const struct ps_sink_pkt *p)
{
	const struct ps_annot *a = &p->a;
	const struct ps_meta *k = &a->k;
	int64_t pib = pib_of(f, p->who);
	char comment[400];
	struct pcapng_epb epb = {
		.direction = direction_of(k->hook),
		.has_queue = true,
		.queue = k->rx_queue,
		/* A drop's reason is no XDP or TC verdict: it is in the
		 * comment. */
		.has_verdict = f->cfg.epb_verdict && k->hook != PS_HOOK_XDP_ENTRY &&
			       !ps_hook_is_drop(k->hook),
		.verdict_type = ps_hook_is_tc(k->hook) ? PCAPNG_VERDICT_TC : PCAPNG_VERDICT_XDP,
		.verdict = k->verdict,
		.has_process = a->known,
		.pid = a->pid,
		.tid = a->tid,
		.has_pib = pib >= 0,
		.pib = pib >= 0 ? (uint32_t)pib : 0,
		.comment = comment,
	};

	ps_sink_comment(comment, sizeof(comment), p, f->cfg.tag, PS_COMMENT_BLOCK);
	pcapng_epb_opts_encode(&cs->opts, &epb);
	cs->valid = true;
	cs->key = *a;
}

static int capfile_packet(struct ps_sink *s, const struct ps_sink_pkt *p)
{
	struct ps_capfile *f = ps_sink_of(s, struct ps_capfile, sink);
	const struct ps_meta *m = p->m;
	struct ps_epb_cache *cs = &f->cpus[m->cpu < (uint32_t)f->ncpus ? m->cpu : 0];
	int err;

	if (f->error)
		return f->error;
	/* -C: a full file is closed before the packet that would overfill it. */
	err = 0;
	if (f->rot.size_limit && ps_rotate_size_due(&f->rot, pcapng_bytes(f->w))) {
		ps_rotate_next_size(&f->rot);
		err = rotate(f);
	}
	/* After a rotation: the new file has none of the PIBs it points at. */
	if (!err && !ps_epb_cache_fits(cs, p))
		encode_opts(f, cs, p);
	/* A packet's own note is no other's. */
	if (p->note)
		cs->valid = false;
	if (!err)
		err = pcapng_write_packet(f->w, &(struct pcapng_packet){
							.if_id = f->if_id[p->target],
							.cap_len = p->cap_len,
							.wire_len = p->wire_len,
							.has_packet_id = true,
							.ts_ns = p->ts_ns,
							.data = p->data,
							.packet_id = p->packet_id,
							.drop_count = p->drops,
							.opts = &cs->opts,
						});
	return f->error = err;
}

static int capfile_round(struct ps_sink *s)
{
	struct ps_capfile *f = ps_sink_of(s, struct ps_capfile, sink);

	if (!f->error)
		f->error = pcapng_flush(f->w);
	return f->error;
}

/* The last file's ISBs, and -z on it, when all went well. */
static int capfile_close(struct ps_sink *s, bool ok)
{
	struct ps_capfile *f = ps_sink_of(s, struct ps_capfile, sink);
	int err;

	if (!ok || f->error || !f->w || pcapng_writer_error(f->w))
		return 0;
	err = write_isbs(f);
	if (!err)
		err = pcapng_flush(f->w);
	if (err)
		return f->error = err;
	if (f->cfg.postrotate_cmd)
		ps_rotate_run_cmd(f->cfg.postrotate_cmd, f->path);
	return 0;
}

static const struct ps_sink_ops capfile_ops = {
	.packet = capfile_packet,
	.round = capfile_round,
	.close = capfile_close,
};

struct ps_sink *ps_capfile_sink(struct ps_capfile *f)
{
	f->sink.ops = &capfile_ops;
	return &f->sink;
}

int ps_capfile_tick(struct ps_capfile *f, uint64_t now_ns)
{
	if (f->error)
		return f->error;
	switch (ps_rotate_time_due(&f->rot, now_ns)) {
	case 1:
		return f->error = rotate(f);
	case -1:
		pr_warn("maximum file limit reached: %u\n", f->rot.max_files);
		return 1;
	}
	return 0;
}

int ps_capfile_next_incident(struct ps_capfile *f)
{
	struct stat st;

	if (f->error)
		return f->error;
	/* A FIFO (an extcap's) or a pipe has no next file: one stream. */
	if (fstat(f->out.fd, &st) || !S_ISREG(st.st_mode))
		return 0;
	ps_rotate_next_size(&f->rot);
	return f->error = rotate(f);
}

void ps_capfile_mark_gone(struct ps_capfile *f, int ifindex)
{
	for (int t = 0; f->gone && t < f->n_targets; t++)
		if (f->targets[t].ifindex == ifindex)
			f->gone[t] = true;
}

int ps_capfile_renew(struct ps_capfile *f, const char *filter, bool counts_filter)
{
	uint64_t now = wall_ns();
	int err = 0;

	if (f->error || !f->w)
		return f->error;
	/* The old interfaces' statistics up to now, then the new ones. */
	for (int t = 0; t < f->n_targets && !err; t++)
		err = write_isb(f, t, now);
	f->cfg.filter = filter;
	f->cfg.counts_filter = counts_filter;
	/* The packets' comments carry the sampling's tag: encoded anew. */
	for (int c = 0; f->cpus && c < f->ncpus; c++)
		f->cpus[c].valid = false;
	for (int t = 0; t < f->n_targets && !err; t++) {
		f->closed_written[t] += pcapng_writer_packets(f->w, (int)f->if_id[t]);
		err = write_idb(f, t);
	}
	f->file_start_ns = now;
	if (err)
		pr_err("cannot write %s: %s\n", f->out.path, pcapng_strerror(err));
	return f->error = err;
}

void ps_capfile_end_target(struct ps_capfile *f, int t)
{
	if (f->error || t >= f->n_targets || !f->w)
		return;
	/* What its hook saw until the interface went, in its last ISB. */
	f->gone[t] = true;
	f->error = write_isb(f, t, wall_ns());
	if (f->error)
		pr_err("cannot write %s: %s\n", f->out.path, pcapng_strerror(f->error));
	f->retired_written += f->closed_written[t] + pcapng_writer_packets(f->w, (int)f->if_id[t]);
	f->closed_written[t] = 0;
}

int ps_capfile_add_target(struct ps_capfile *f, int t, int n_targets)
{
	int err;

	if (f->error)
		return f->error;
	err = grow(f, n_targets);
	if (err) {
		pr_err("cannot write %s: %s\n", f->out.path, strerror(-err));
		return f->error = err;
	}
	if (n_targets > f->n_targets)
		f->n_targets = n_targets;
	f->file_base[t] = (struct ps_counters){ 0 };
	f->closed_written[t] = 0;
	f->gone[t] = false;
	/* pcapng lets an IDB come after packets: the new interface's. */
	err = f->w ? write_idb(f, t) : 0;
	if (err)
		pr_err("cannot write %s: %s\n", f->out.path, pcapng_strerror(err));
	return f->error = err;
}

uint64_t ps_capfile_written(const struct ps_capfile *f, int t)
{
	uint64_t n = t < 0 ? f->retired_written : 0;

	for (int i = 0; f->if_id && i < f->n_targets; i++)
		if (t < 0 || i == t)
			n += f->closed_written[i] +
			     (f->w ? pcapng_writer_packets(f->w, (int)f->if_id[i]) : 0);
	return n;
}

bool ps_capfile_failed(const struct ps_capfile *f)
{
	return !f->w || pcapng_writer_error(f->w);
}

const char *ps_capfile_path(const struct ps_capfile *f)
{
	return f->out.path ? f->out.path : f->cfg.output;
}

void ps_capfile_free(struct ps_capfile *f)
{
	if (f->w)
		pcapng_writer_free(f->w);
	f->w = NULL;
	ps_output_close(&f->out);
	free(f->file_base);
	free(f->closed_written);
	free(f->if_id);
	free(f->gone);
	free(f->cpus);
	free(f->pib);
	f->pib = NULL;
	f->n_pib = 0;
	f->file_base = NULL;
	f->closed_written = NULL;
	f->if_id = NULL;
	f->gone = NULL;
	f->cpus = NULL;
}
