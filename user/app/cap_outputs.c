// SPDX-License-Identifier: GPL-2.0-only
/* The capture's outputs: the targets (one per interface and hook) and
 * what the file says of each, the ingest and its sinks (file, printed
 * lines, sFlow), and one policy for an output's failure; see
 * capture_int.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include "capture_int.h"
#include "filter.h"
#include "log.h"
#include "pcapng.h"
#include "report.h"
#include "sflowexp.h"

/* A free target entry (a gone interface's, whose outputs are told), or a
 * new one at the end; -1 if there is no room. */
static int take_target(struct ps_cap_out *o)
{
	if (o->n_targets < o->targets_room)
		return o->n_targets;
	for (int t = 0; t < o->n_targets; t++) {
		struct ps_target *tg = &o->targets[t];

		if (!tg->gone)
			continue;
		if (o->file)
			ps_capfile_end_target(o->file, t);
		if (o->sflow)
			ps_sflowexp_end_target(o->sflow, t);
		ps_counters_add(&o->retired, &tg->final);
		if (!o->file)
			o->retired_written += tg->written;
		/* The ingest's readers match on ifindex: none while it changes. */
		__atomic_store_n(&tg->ifindex, 0, __ATOMIC_RELEASE);
		return t;
	}
	return -1;
}

/* Interface ifc's targets, taken (first, so that the ingest knows its
 * packets from the moment it is attached); 0 or -E2BIG. */
int cap_take_targets(struct ps_cap_out *o, const struct ps_cap_iface *ifc)
{
	for (unsigned int h = 0; h < PS_HOOK_MAX; h++) {
		struct ps_target *tg;
		int t;

		if (!(ifc->hooks & PS_HOOK_BIT(h)))
			continue;
		t = take_target(o);
		if (t < 0)
			return -E2BIG;
		tg = &o->targets[t];
		snprintf(tg->ifname, sizeof(tg->ifname), "%s", ifc->name);
		tg->hook = h;
		tg->linktype = h == PS_HOOK_DROP_IP ? PS_LINKTYPE_RAW : ifc->linktype;
		tg->written = 0;
		tg->gone = false;
		tg->final = (struct ps_counters){ 0 };
		__atomic_store_n(&tg->ifindex, ifc->ifindex, __ATOMIC_RELEASE);
		if (t == o->n_targets)
			o->n_targets++;
	}
	if (o->in) /* none yet at the start */
		ps_ingest_set_n_targets(o->in, o->n_targets);
	return 0;
}

/* One target per (interface, hook), with room for max_ifaces. */
int cap_plan_targets(struct ps_cap_out *o, const struct ps_cap_ifaces *f)
{
	size_t room = (size_t)f->set.room * PS_HOOK_MAX;

	o->targets = calloc(room, sizeof(*o->targets));
	o->file_ifaces = calloc(room, sizeof(*o->file_ifaces));
	if (!o->targets || !o->file_ifaces) {
		pr_err("cannot plan the capture of %d interfaces: %s\n", f->set.room,
		       strerror(ENOMEM));
		return -ENOMEM;
	}
	o->targets_room = (int)room;
	for (int i = 0; i < f->set.n; i++)
		cap_take_targets(o, &f->ifs[i]); /* room for them all: it cannot fail */
	return 0;
}

static const char *attached_via(const struct ps_attachments *att, const struct ps_target *tg)
{
	/* A traced program is attached once, under the first interface it
	 * runs on: any attachment of the hook says how. */
	for (int i = 0; i < att->n; i++)
		if ((att->list[i].hook == tg->hook &&
		     (att->list[i].ifindex == tg->ifindex || ps_hook_is_xdp_trace(tg->hook))) ||
		    (ps_hook_is_drop(tg->hook) && att->list[i].kind == PS_ATT_RAW_TP))
			return ps_attach_kind_name(&att->list[i]);
	return "?";
}

/*
 * An IDB's if_description: the hook, as -r reads it back (user/capfile/capread.c),
 * and around another XDP program that program, by name and id.
 */
static void describe_target(const struct ps_cap_ifaces *f, const struct ps_cap_kern *k,
			    const struct ps_target *tg, char *buf, size_t len)
{
	int i = ps_ifset_slot_of(&f->set, tg->ifindex);

	if (i >= 0 && i < k->slots_room && ps_hook_is_xdp_trace(tg->hook))
		snprintf(buf, len, "%s of %s (id %u)", ps_hook_description(tg->hook),
			 k->slots[i].xdp_target.name, k->slots[i].xdp_target.id);
	else
		snprintf(buf, len, "%s", ps_hook_description(tg->hook));
}

/* What target t's IDB says: the hook and how it was attached, the
 * sampling. */
static void describe_target_idb(struct ps_cap_out *o, const struct ps_cap_ifaces *f,
				const struct ps_cap_kern *k, int t)
{
	struct ps_capfile_iface *fi = &o->file_ifaces[t];

	ps_report_idb_comment(fi->comment, sizeof(fi->comment), o->targets[t].hook,
			      attached_via(&k->att, &o->targets[t]), o->sampling);
	describe_target(f, k, &o->targets[t], fi->description, sizeof(fi->description));
}

void cap_describe_targets(struct ps_cap_out *o, const struct ps_cap_ifaces *f,
			  const struct ps_cap_kern *k)
{
	for (int t = 0; t < o->n_targets; t++)
		describe_target_idb(o, f, k, t);
}

/* --flight's second and later incidents: a file each, where -w is a
 * file (an extcap's FIFO takes them one after another). */
static int flight_next_file(void *arg)
{
	return ps_capfile_next_incident(arg);
}

static const char *flight_path(void *arg)
{
	return ps_capfile_path(arg);
}

/* The flight recorder, in front of the file's sink. */
static int open_flight(struct ps_cap_out *o, const struct ps_flight_cfg *cfg)
{
	const struct ps_flight_out out = {
		.file = ps_capfile_sink(o->file),
		.next_file = flight_next_file,
		.path = flight_path,
		.arg = o->file,
	};
	char err[320];
	int ret;

	o->flight = calloc(1, sizeof(*o->flight));
	if (!o->flight) {
		pr_err("cannot set up the flight recorder: %s\n", strerror(ENOMEM));
		return -ENOMEM;
	}
	ret = ps_flight_init(o->flight, cfg, &out, o->targets, err, sizeof(err));
	if (ret) {
		free(o->flight);
		o->flight = NULL;
		pr_err("%s\n", err);
		return ret;
	}
	return ps_ingest_add_sink(o->in, ps_flight_sink(o->flight));
}

/* --top: rows scaled by the sampling's factor where it has one; on a
 * terminal full screen, else plain tables. --metrics: the same counts by
 * process and container, shown nowhere but there. */
static int open_top(struct ps_cap_out *o, const struct ps_capture_cfg *cfg,
		    const struct ps_sampling *smp, unsigned int hooks)
{
	struct ps_top_cfg tc = cfg->top;
	uint64_t n = ps_sampling_estimate(smp, 1);
	int err;

	/* Keys need a terminal as much as the screen does. */
	if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO))
		tc.batch = true;
	tc.metrics = cfg->metrics;
	tc.scale_note[0] = '\0';
	if (ps_sampling_active(smp) && n > 1)
		snprintf(tc.scale_note, sizeof(tc.scale_note), "sampled 1 in %llu: counts x%llu",
			 (unsigned long long)n, (unsigned long long)n);
	else if (ps_sampling_active(smp))
		snprintf(tc.scale_note, sizeof(tc.scale_note),
			 "sampled: counts of the samples alone");
	tc.weight = n > 1 && n <= UINT32_MAX ? (uint32_t)n : 1;
	tc.drop_hook = (hooks & PS_HOOKS_DROP) != 0;
	o->top = calloc(1, sizeof(*o->top));
	if (!o->top) {
		pr_err("cannot set up --top: %s\n", strerror(ENOMEM));
		return -ENOMEM;
	}
	err = ps_topview_open(o->top, &tc, stdout);
	return err ? err : ps_ingest_add_sink(o->in, ps_topview_sink(o->top));
}

/* The sinks, in this order: the file (behind the flight recorder, with
 * --flight), the printed lines, sFlow, --top. */
static int open_sinks(struct ps_cap_out *o, const struct ps_capture_cfg *cfg,
		      const struct ps_sampling *smp, unsigned int hooks,
		      const struct ps_counter_src *counters)
{
	int err = 0;

	if (o->file && cfg->flight.window_ns)
		err = open_flight(o, &cfg->flight);
	else if (o->file)
		err = ps_ingest_add_sink(o->in, ps_capfile_sink(o->file));
	if (!err && cfg->print) {
		o->printer = malloc(sizeof(*o->printer));
		if (!o->printer) {
			pr_err("cannot set up the printer: %s\n", strerror(ENOMEM));
			return -ENOMEM;
		}
		if (cfg->line_buffered)
			setvbuf(stdout, NULL, _IOLBF, 0);
		ps_printer_init(o->printer, &cfg->print_opts, stdout);
		err = ps_ingest_add_sink(o->in, ps_printer_sink(o->printer, o->tag));
	}
	if (!err && cfg->sflow.n_collectors) {
		o->sflow = calloc(1, sizeof(*o->sflow));
		if (!o->sflow) {
			pr_err("cannot set up sFlow: %s\n", strerror(ENOMEM));
			return -ENOMEM;
		}
		err = ps_sflowexp_open(o->sflow, &cfg->sflow, o->targets, o->n_targets, counters);
		if (!err)
			err = ps_ingest_add_sink(o->in, ps_sflowexp_sink(o->sflow));
	}
	if (!err && (cfg->top.enabled || cfg->metrics))
		err = open_top(o, cfg, smp, hooks);
	return err;
}

int cap_open_ingest(struct ps_cap_out *o, const struct ps_cap_kern *k,
		    const struct ps_capture_cfg *cfg, const struct ps_sampling *smp,
		    const struct ps_counter_src *counters)
{
	int err;

	o->in = calloc(1, sizeof(*o->in));
	if (!o->in) {
		pr_err("cannot set up the ingest: %s\n", strerror(ENOMEM));
		return -ENOMEM;
	}
	err = ps_ingest_init(o->in, o->targets, o->n_targets, k->loader.ncpus, cfg->snaplen,
			     cfg->count);
	if (!err)
		err = open_sinks(o, cfg, smp, k->hooks, counters);
	if (err)
		return err;
	/* After the load (the maps are the object's), before any attach. */
	if (k->transport == PS_TRANSPORT_RINGBUF)
		err = ps_ingest_open_ring(o->in, ps_loader_rings_fd(&k->loader),
					  ps_loader_emit_state_fd(&k->loader),
					  k->bufs.ring_kib * 1024, (int)k->bufs.ring_cpus);
	else
		err = ps_ingest_open(o->in, ps_loader_events_fd(&k->loader),
				     ps_loader_emit_state_fd(&k->loader), k->bufs.per_cpu_kib,
				     !cfg->buffer_kib);
	if (err)
		return err;
	return ps_ingest_threads(o->in,
				 cfg->threads ?
					 (int)cfg->threads :
					 ps_ingest_default_threads(o->in->n_src,
								   (int)sysconf(
									   _SC_NPROCESSORS_ONLN)));
}

/* Interface ifindex attached: its targets' IDBs, and sFlow samplers. */
int cap_open_targets(struct ps_cap_out *o, const struct ps_cap_ifaces *f,
		     const struct ps_cap_kern *k, int ifindex)
{
	int err = 0;

	for (int t = 0; t < o->n_targets && !err; t++) {
		if (o->targets[t].ifindex != ifindex || o->targets[t].gone)
			continue;
		describe_target_idb(o, f, k, t);
		if (o->file)
			err = ps_capfile_add_target(o->file, t, o->n_targets);
		if (!err && o->sflow)
			err = ps_sflowexp_add_target(o->sflow, t, o->n_targets);
	}
	return err;
}

void cap_out_set_context(struct ps_cap_out *o, struct ps_who_table *who,
			 const struct ps_dropnames *drops)
{
	ps_ingest_set_who(o->in, who);
	ps_ingest_set_drop_names(o->in, drops);
}

int cap_out_start_file(struct ps_cap_out *o, const struct ps_cap_ifaces *f,
		       const struct ps_cap_kern *k, const struct ps_counter_src *counters)
{
	if (!o->file)
		return 0;
	cap_describe_targets(o, f, k);
	return ps_capfile_start(o->file, o->targets, o->file_ifaces, o->n_targets, k->loader.ncpus,
				counters, ps_clock_mono_ns());
}

/*
 * As a Wireshark extcap, the FIFO closing is how Wireshark ends a capture
 * (it also sends SIGTERM, and stops reading soon after): not an error.
 */
static bool reader_left(const struct ps_cap_out *o, int err, bool stopping)
{
	return o->reader_may_leave &&
	       (err == -EPIPE ||
		(stopping && (err == -ETIMEDOUT || err == -EAGAIN || err == -EINTR)));
}

/* The file could not be written: one line, unless the reader left. */
int cap_write_failed(const struct ps_cap_out *o, int err, bool stopping)
{
	if (reader_left(o, err, stopping))
		return 0;
	pr_err("cannot write %s: %s\n", ps_capfile_path(o->file), pcapng_strerror(err));
	return err;
}

/*
 * The printed lines could not be written. A reader that left (| head) or,
 * after a stop, one that takes nothing more, ends the capture as tcpdump's
 * does, without an error; anything else is one line and exit 1.
 */
static int print_failed(int err, bool stopping)
{
	if (err == -EPIPE || (stopping && (err == -EAGAIN || err == -EINTR)))
		return 0;
	pr_err("cannot print to stdout: %s\n", strerror(-err));
	return err;
}

/* An output's error ended the capture: which one says what to tell. */
int cap_output_failed(const struct ps_cap_out *o, int err, bool stopping)
{
	const struct ps_sink *failed;

	ps_ingest_error(o->in, &failed);
	if ((o->file && failed == &o->file->sink) || (o->flight && failed == &o->flight->sink))
		return cap_write_failed(o, err, stopping);
	if ((o->printer && failed == &o->printer->sink) || (o->top && failed == &o->top->sink))
		return print_failed(err, stopping);
	pr_err("cannot keep the samples: %s\n", strerror(-err));
	return err;
}

int cap_out_finish(struct ps_cap_out *o, int err, bool abort, bool stopping)
{
	int close_err;

	if (!abort && !err && !ps_ingest_error(o->in, NULL)) {
		err = ps_ingest_drain(o->in);
		if (err)
			err = cap_output_failed(o, err, stopping);
	}
	/* The last file's ISBs (and -z on it), sFlow's last datagrams. */
	close_err = ps_ingest_close(o->in, !err);
	if (!err && close_err)
		err = cap_output_failed(o, close_err, stopping);
	return err;
}

void cap_out_reload_sflow(struct ps_cap_out *o, const struct ps_sflow_config *cfg)
{
	/* sFlow's new sockets: a collector that cannot be reached is said,
	 * and sFlow goes on to the ones it had, the rest applied. */
	if (o->sflow && ps_sflowexp_reconfigure(o->sflow, cfg))
		pr_warn("sFlow keeps its collectors of before\n");
}

void cap_out_iface_gone(struct ps_cap_out *o, int ifindex,
			const struct ps_counters final[PS_HOOK_MAX])
{
	if (o->file)
		ps_capfile_mark_gone(o->file, ifindex);
	for (int t = 0; t < o->n_targets; t++)
		if (o->targets[t].ifindex == ifindex && !o->targets[t].gone) {
			o->targets[t].final = final[o->targets[t].hook];
			o->targets[t].gone = true;
		}
}

void cap_out_init(struct ps_cap_out *o, const struct ps_capture_cfg *cfg)
{
	o->reader_may_leave = cfg->reader_may_leave;
}

int cap_out_open_file(struct ps_cap_out *o, const struct ps_capture_cfg *cfg,
		      const struct ps_filter *filter, const struct ps_sampling *smp,
		      volatile sig_atomic_t *abort)
{
	struct ps_capfile_cfg fc = cfg->file;

	if (!fc.output)
		return 0; /* printing only */
	o->file = calloc(1, sizeof(*o->file));
	if (!o->file) {
		pr_err("cannot set up the writer for %s: %s\n", fc.output, strerror(ENOMEM));
		return -ENOMEM;
	}
	fc.snaplen = cfg->snaplen;
	fc.filter = filter ? filter->expr : NULL;
	fc.counts_filter = filter || ps_sampling_active(smp);
	fc.tag = o->tag;
	return ps_capfile_open(o->file, &fc, abort);
}

void cap_out_describe_sampling(struct ps_cap_out *o, const struct ps_sampling *smp)
{
	o->sampling[0] = '\0';
	if (ps_sampling_active(smp))
		ps_sampling_describe(smp, o->sampling, sizeof(o->sampling));
	ps_sampling_tag(smp, o->tag, sizeof(o->tag));
}

int cap_out_renew(struct ps_cap_out *o, const struct ps_cap_ifaces *f, const struct ps_cap_kern *k,
		  const struct ps_filter *filter, const struct ps_sampling *smp)
{
	cap_out_describe_sampling(o, smp);
	cap_describe_targets(o, f, k);
	if (!o->file)
		return 0;
	return ps_capfile_renew(o->file, filter ? filter->expr : NULL,
				filter || ps_sampling_active(smp));
}

void cap_out_free(struct ps_cap_out *o)
{
	if (o->in)
		ps_ingest_free(o->in);
	free(o->in);
	o->in = NULL;
	if (o->flight)
		ps_flight_free(o->flight);
	free(o->flight);
	o->flight = NULL;
	if (o->file)
		ps_capfile_free(o->file);
	free(o->file);
	o->file = NULL;
	if (o->sflow && o->sflow->samplers)
		ps_sflowexp_close(o->sflow, false);
	free(o->sflow);
	o->sflow = NULL;
	if (o->top)
		ps_topview_free(o->top);
	free(o->top);
	o->top = NULL;
	if (o->printer)
		ps_printer_free(o->printer);
	free(o->printer);
	o->printer = NULL;
	free(o->targets);
	free(o->file_ifaces);
	o->targets = NULL;
	o->file_ifaces = NULL;
	o->n_targets = 0;
}
