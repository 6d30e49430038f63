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
static int take_target(struct ps_capture *cap)
{
	int room = cap->ifaces.set.room * PS_HOOK_MAX;

	if (cap->out.n_targets < room)
		return cap->out.n_targets;
	for (int t = 0; t < cap->out.n_targets; t++) {
		struct ps_target *tg = &cap->out.targets[t];

		if (!tg->gone)
			continue;
		if (cap->out.file)
			ps_capfile_end_target(cap->out.file, t);
		if (cap->out.sflow)
			ps_sflowexp_end_target(cap->out.sflow, t);
		ps_counters_add(&cap->out.retired, &tg->final);
		if (!cap->out.file)
			cap->out.retired_written += tg->written;
		/* The ingest's readers match on ifindex: none while it changes. */
		__atomic_store_n(&tg->ifindex, 0, __ATOMIC_RELEASE);
		return t;
	}
	return -1;
}

/* Interface i's targets, taken (first, so that the ingest knows its
 * packets from the moment it is attached); 0 or -E2BIG. */
int cap_take_targets(struct ps_capture *cap, int i)
{
	const struct ps_cap_iface *f = &cap->ifaces.ifs[i];

	for (unsigned int h = 0; h < PS_HOOK_MAX; h++) {
		struct ps_target *tg;
		int t;

		if (!(f->hooks & PS_HOOK_BIT(h)))
			continue;
		t = take_target(cap);
		if (t < 0)
			return -E2BIG;
		tg = &cap->out.targets[t];
		snprintf(tg->ifname, sizeof(tg->ifname), "%s", f->name);
		tg->hook = h;
		tg->linktype = h == PS_HOOK_DROP_IP ? PS_LINKTYPE_RAW : f->linktype;
		tg->written = 0;
		tg->gone = false;
		tg->final = (struct ps_counters){ 0 };
		__atomic_store_n(&tg->ifindex, f->ifindex, __ATOMIC_RELEASE);
		if (t == cap->out.n_targets)
			cap->out.n_targets++;
	}
	if (cap->out.in) /* none yet at the start */
		ps_ingest_set_n_targets(cap->out.in, cap->out.n_targets);
	return 0;
}

/* One target per (interface, hook), with room for max_ifaces. */
int cap_plan_targets(struct ps_capture *cap)
{
	size_t room = (size_t)cap->ifaces.set.room * PS_HOOK_MAX;

	cap->out.targets = calloc(room, sizeof(*cap->out.targets));
	cap->out.file_ifaces = calloc(room, sizeof(*cap->out.file_ifaces));
	if (!cap->out.targets || !cap->out.file_ifaces) {
		pr_err("cannot plan the capture of %d interfaces: %s\n", cap->ifaces.set.room,
		       strerror(ENOMEM));
		return -ENOMEM;
	}
	for (int i = 0; i < cap->ifaces.set.n; i++)
		cap_take_targets(cap, i); /* room for them all: it cannot fail */
	return 0;
}

static const char *attached_via(const struct ps_capture *cap, const struct ps_target *tg)
{
	/* A traced program is attached once, under the first interface it
	 * runs on: any attachment of the hook says how. */
	for (int i = 0; i < cap->kern.att.n; i++)
		if ((cap->kern.att.list[i].hook == tg->hook &&
		     (cap->kern.att.list[i].ifindex == tg->ifindex ||
		      ps_hook_is_xdp_trace(tg->hook))) ||
		    (ps_hook_is_drop(tg->hook) && cap->kern.att.list[i].kind == PS_ATT_RAW_TP))
			return ps_attach_kind_name(&cap->kern.att.list[i]);
	return "?";
}

/*
 * An IDB's if_description: the hook, as -r reads it back (user/capfile/capread.c),
 * and around another XDP program that program, by name and id.
 */
static void describe_target(const struct ps_capture *cap, const struct ps_target *tg, char *buf,
			    size_t len)
{
	int i = ps_ifset_slot_of(&cap->ifaces.set, tg->ifindex);

	if (i >= 0 && ps_hook_is_xdp_trace(tg->hook))
		snprintf(buf, len, "%s of %s (id %u)", ps_hook_description(tg->hook),
			 cap->ifaces.ifs[i].xdp_target.name, cap->ifaces.ifs[i].xdp_target.id);
	else
		snprintf(buf, len, "%s", ps_hook_description(tg->hook));
}

/* What target t's IDB says: the hook and how it was attached, the
 * sampling. */
void cap_describe_target_idb(struct ps_capture *cap, int t)
{
	struct ps_capfile_iface *fi = &cap->out.file_ifaces[t];

	ps_report_idb_comment(fi->comment, sizeof(fi->comment), cap->out.targets[t].hook,
			      attached_via(cap, &cap->out.targets[t]), cap->out.sampling);
	describe_target(cap, &cap->out.targets[t], fi->description, sizeof(fi->description));
}

void cap_describe_targets(struct ps_capture *cap)
{
	for (int t = 0; t < cap->out.n_targets; t++)
		cap_describe_target_idb(cap, t);
}

/* --flight's second and later incidents: a file each, where -w is a
 * file (an extcap's FIFO takes them one after another). */
static int flight_next_file(void *arg)
{
	struct ps_capture *cap = arg;

	return ps_capfile_next_incident(cap->out.file);
}

static const char *flight_path(void *arg)
{
	const struct ps_capture *cap = arg;

	return ps_capfile_path(cap->out.file);
}

/* The flight recorder, in front of the file's sink. */
static int open_flight(struct ps_capture *cap)
{
	const struct ps_flight_out out = {
		.file = ps_capfile_sink(cap->out.file),
		.next_file = flight_next_file,
		.path = flight_path,
		.arg = cap,
	};
	char err[320];
	int ret;

	cap->out.flight = calloc(1, sizeof(*cap->out.flight));
	if (!cap->out.flight) {
		pr_err("cannot set up the flight recorder: %s\n", strerror(ENOMEM));
		return -ENOMEM;
	}
	ret = ps_flight_init(cap->out.flight, &cap->cfg.flight, &out, cap->out.targets, err,
			     sizeof(err));
	if (ret) {
		free(cap->out.flight);
		cap->out.flight = NULL;
		pr_err("%s\n", err);
		return ret;
	}
	return ps_ingest_add_sink(cap->out.in, ps_flight_sink(cap->out.flight));
}

/* --top: rows scaled by the sampling's factor where it has one; on a
 * terminal full screen, else plain tables. --metrics: the same counts by
 * process and container, shown nowhere but there. */
static int open_top(struct ps_capture *cap)
{
	struct ps_top_cfg tc = cap->cfg.top;
	uint64_t n = ps_sampling_estimate(&cap->smp, 1);
	int err;

	/* Keys need a terminal as much as the screen does. */
	if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO))
		tc.batch = true;
	tc.metrics = cap->cfg.metrics;
	tc.scale_note[0] = '\0';
	if (ps_sampling_active(&cap->smp) && n > 1)
		snprintf(tc.scale_note, sizeof(tc.scale_note), "sampled 1 in %llu: counts x%llu",
			 (unsigned long long)n, (unsigned long long)n);
	else if (ps_sampling_active(&cap->smp))
		snprintf(tc.scale_note, sizeof(tc.scale_note),
			 "sampled: counts of the samples alone");
	tc.weight = n > 1 && n <= UINT32_MAX ? (uint32_t)n : 1;
	tc.drop_hook = (cap->kern.hooks & PS_HOOKS_DROP) != 0;
	cap->out.top = calloc(1, sizeof(*cap->out.top));
	if (!cap->out.top) {
		pr_err("cannot set up --top: %s\n", strerror(ENOMEM));
		return -ENOMEM;
	}
	err = ps_topview_open(cap->out.top, &tc, stdout);
	return err ? err : ps_ingest_add_sink(cap->out.in, ps_topview_sink(cap->out.top));
}

int cap_open_ingest(struct ps_capture *cap)
{
	const struct ps_capture_cfg *o = &cap->cfg;
	/* The kernel's exact counters: sFlow's sample_pool and drops. */
	const struct ps_counter_src counters = cap_counter_src(cap);
	int err;

	cap->out.in = calloc(1, sizeof(*cap->out.in));
	if (!cap->out.in) {
		pr_err("cannot set up the ingest: %s\n", strerror(ENOMEM));
		return -ENOMEM;
	}
	err = ps_ingest_init(cap->out.in, cap->out.targets, cap->out.n_targets,
			     cap->kern.loader.ncpus, o->snaplen, o->count);
	if (err)
		return err;
	/* The sinks, in this order: the file (behind the flight recorder,
	 * with --flight), the printed lines, sFlow, --top. */
	if (cap->out.file && o->flight.window_ns)
		err = open_flight(cap);
	else if (cap->out.file)
		err = ps_ingest_add_sink(cap->out.in, ps_capfile_sink(cap->out.file));
	if (!err && o->print) {
		cap->out.printer = malloc(sizeof(*cap->out.printer));
		if (!cap->out.printer) {
			pr_err("cannot set up the printer: %s\n", strerror(ENOMEM));
			return -ENOMEM;
		}
		if (o->line_buffered)
			setvbuf(stdout, NULL, _IOLBF, 0);
		ps_printer_init(cap->out.printer, &o->print_opts, stdout);
		err = ps_ingest_add_sink(cap->out.in,
					 ps_printer_sink(cap->out.printer, cap->out.tag));
	}
	if (!err && o->sflow.n_collectors) {
		cap->out.sflow = calloc(1, sizeof(*cap->out.sflow));
		if (!cap->out.sflow) {
			pr_err("cannot set up sFlow: %s\n", strerror(ENOMEM));
			return -ENOMEM;
		}
		err = ps_sflowexp_open(cap->out.sflow, &o->sflow, cap->out.targets,
				       cap->out.n_targets, &counters);
		if (!err)
			err = ps_ingest_add_sink(cap->out.in, ps_sflowexp_sink(cap->out.sflow));
	}
	if (!err && (o->top.enabled || o->metrics))
		err = open_top(cap);
	if (err)
		return err;
	/* After the load (the maps are the object's), before any attach. */
	if (cap->kern.transport == PS_TRANSPORT_RINGBUF)
		err = ps_ingest_open_ring(cap->out.in, ps_loader_rings_fd(&cap->kern.loader),
					  ps_loader_emit_state_fd(&cap->kern.loader),
					  cap->kern.bufs.ring_kib * 1024,
					  (int)cap->kern.bufs.ring_cpus);
	else
		err = ps_ingest_open(cap->out.in, ps_loader_events_fd(&cap->kern.loader),
				     ps_loader_emit_state_fd(&cap->kern.loader),
				     cap->kern.bufs.per_cpu_kib, !o->buffer_kib);
	if (err)
		return err;
	return ps_ingest_threads(cap->out.in,
				 o->threads ?
					 (int)o->threads :
					 ps_ingest_default_threads(cap->out.in->n_src,
								   (int)sysconf(
									   _SC_NPROCESSORS_ONLN)));
}

/* Interface i attached: its targets' IDBs, and sFlow samplers. */
int cap_open_targets(struct ps_capture *cap, int i)
{
	int err = 0;

	for (int t = 0; t < cap->out.n_targets && !err; t++) {
		if (cap->out.targets[t].ifindex != cap->ifaces.ifs[i].ifindex ||
		    cap->out.targets[t].gone)
			continue;
		cap_describe_target_idb(cap, t);
		if (cap->out.file)
			err = ps_capfile_add_target(cap->out.file, t, cap->out.n_targets);
		if (!err && cap->out.sflow)
			err = ps_sflowexp_add_target(cap->out.sflow, t, cap->out.n_targets);
	}
	return err;
}

/*
 * As a Wireshark extcap, the FIFO closing is how Wireshark ends a capture
 * (it also sends SIGTERM, and stops reading soon after): not an error.
 */
static bool reader_left(const struct ps_capture *cap, int err)
{
	return cap->cfg.reader_may_leave &&
	       (err == -EPIPE ||
		(cap->stop->requested && (err == -ETIMEDOUT || err == -EAGAIN || err == -EINTR)));
}

/* The file could not be written: one line, unless the reader left. */
int cap_write_failed(const struct ps_capture *cap, int err)
{
	if (reader_left(cap, err))
		return 0;
	pr_err("cannot write %s: %s\n", ps_capfile_path(cap->out.file), pcapng_strerror(err));
	return err;
}

/*
 * The printed lines could not be written. A reader that left (| head) or,
 * after a stop, one that takes nothing more, ends the capture as tcpdump's
 * does, without an error; anything else is one line and exit 1.
 */
static int print_failed(struct ps_capture *cap, int err)
{
	if (err == -EPIPE || (cap->stop->requested && (err == -EAGAIN || err == -EINTR)))
		return 0;
	pr_err("cannot print to stdout: %s\n", strerror(-err));
	return err;
}

/* An output's error ended the capture: which one says what to tell. */
int cap_output_failed(struct ps_capture *cap, int err)
{
	const struct ps_sink *failed;

	ps_ingest_error(cap->out.in, &failed);
	if ((cap->out.file && failed == &cap->out.file->sink) ||
	    (cap->out.flight && failed == &cap->out.flight->sink))
		return cap_write_failed(cap, err);
	if ((cap->out.printer && failed == &cap->out.printer->sink) ||
	    (cap->out.top && failed == &cap->out.top->sink))
		return print_failed(cap, err);
	pr_err("cannot keep the samples: %s\n", strerror(-err));
	return err;
}

void cap_out_iface_gone(struct ps_capture *cap, int ifindex,
			const struct ps_counters final[PS_HOOK_MAX])
{
	if (cap->out.file)
		ps_capfile_mark_gone(cap->out.file, ifindex);
	for (int t = 0; t < cap->out.n_targets; t++)
		if (cap->out.targets[t].ifindex == ifindex && !cap->out.targets[t].gone) {
			cap->out.targets[t].final = final[cap->out.targets[t].hook];
			cap->out.targets[t].gone = true;
		}
}

int ps_capture_open_output(struct ps_capture *cap)
{
	const struct ps_capture_cfg *o = &cap->cfg;
	struct ps_capfile_cfg fc = o->file;

	if (!fc.output)
		return 0; /* printing only */
	cap->out.file = calloc(1, sizeof(*cap->out.file));
	if (!cap->out.file) {
		pr_err("cannot set up the writer for %s: %s\n", fc.output, strerror(ENOMEM));
		return -ENOMEM;
	}
	fc.snaplen = o->snaplen;
	fc.filter = cap->filter ? cap->filter->expr : NULL;
	fc.counts_filter = cap->filter || ps_sampling_active(&cap->smp);
	fc.tag = cap->out.tag;
	return ps_capfile_open(cap->out.file, &fc, &cap->stop->abort);
}

void cap_out_describe_sampling(struct ps_capture *cap)
{
	cap->out.sampling[0] = '\0';
	if (ps_sampling_active(&cap->smp))
		ps_sampling_describe(&cap->smp, cap->out.sampling, sizeof(cap->out.sampling));
	ps_sampling_tag(&cap->smp, cap->out.tag, sizeof(cap->out.tag));
}

int cap_out_renew(struct ps_capture *cap)
{
	cap_out_describe_sampling(cap);
	cap_describe_targets(cap);
	if (!cap->out.file)
		return 0;
	return ps_capfile_renew(cap->out.file, cap->filter ? cap->filter->expr : NULL,
				cap->filter || ps_sampling_active(&cap->smp));
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
