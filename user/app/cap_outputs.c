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
#include "log.h"
#include "pcapng.h"
#include "report.h"
#include "sflowexp.h"

/* A free target entry (a gone interface's, whose outputs are told), or a
 * new one at the end; -1 if there is no room. */
static int take_target(struct ps_capture *cap)
{
	int room = cap->ifset.room * PS_HOOK_MAX;

	if (cap->n_targets < room)
		return cap->n_targets;
	for (int t = 0; t < cap->n_targets; t++) {
		struct ps_target *tg = &cap->targets[t];

		if (!tg->gone)
			continue;
		if (cap->file)
			ps_capfile_end_target(cap->file, t);
		if (cap->sflow)
			ps_sflowexp_end_target(cap->sflow, t);
		ps_counters_add(&cap->retired, &tg->final);
		if (!cap->file)
			cap->retired_written += tg->written;
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
	const struct ps_cap_iface *f = &cap->ifs[i];

	for (unsigned int h = 0; h < PS_HOOK_MAX; h++) {
		struct ps_target *tg;
		int t;

		if (!(f->hooks & PS_HOOK_BIT(h)))
			continue;
		t = take_target(cap);
		if (t < 0)
			return -E2BIG;
		tg = &cap->targets[t];
		snprintf(tg->ifname, sizeof(tg->ifname), "%s", f->name);
		tg->hook = h;
		tg->linktype = h == PS_HOOK_DROP_IP ? PS_LINKTYPE_RAW : f->linktype;
		tg->written = 0;
		tg->gone = false;
		tg->final = (struct ps_counters){ 0 };
		__atomic_store_n(&tg->ifindex, f->ifindex, __ATOMIC_RELEASE);
		if (t == cap->n_targets)
			cap->n_targets++;
	}
	if (cap->in) /* none yet at the start */
		ps_ingest_set_n_targets(cap->in, cap->n_targets);
	return 0;
}

/* One target per (interface, hook), with room for max_ifaces. */
int cap_plan_targets(struct ps_capture *cap)
{
	size_t room = (size_t)cap->ifset.room * PS_HOOK_MAX;

	cap->targets = calloc(room, sizeof(*cap->targets));
	cap->file_ifaces = calloc(room, sizeof(*cap->file_ifaces));
	if (!cap->targets || !cap->file_ifaces) {
		pr_err("cannot plan the capture of %d interfaces: %s\n", cap->ifset.room,
		       strerror(ENOMEM));
		return -ENOMEM;
	}
	for (int i = 0; i < cap->ifset.n; i++)
		cap_take_targets(cap, i); /* room for them all: it cannot fail */
	return 0;
}

static const char *attached_via(const struct ps_capture *cap, const struct ps_target *tg)
{
	/* A traced program is attached once, under the first interface it
	 * runs on: any attachment of the hook says how. */
	for (int i = 0; i < cap->att.n; i++)
		if ((cap->att.list[i].hook == tg->hook &&
		     (cap->att.list[i].ifindex == tg->ifindex || ps_hook_is_xdp_trace(tg->hook))) ||
		    (ps_hook_is_drop(tg->hook) && cap->att.list[i].kind == PS_ATT_RAW_TP))
			return ps_attach_kind_name(&cap->att.list[i]);
	return "?";
}

/*
 * An IDB's if_description: the hook, as -r reads it back (user/capfile/capread.c),
 * and around another XDP program that program, by name and id.
 */
static void describe_target(const struct ps_capture *cap, const struct ps_target *tg, char *buf,
			    size_t len)
{
	int i = ps_ifset_slot_of(&cap->ifset, tg->ifindex);

	if (i >= 0 && ps_hook_is_xdp_trace(tg->hook))
		snprintf(buf, len, "%s of %s (id %u)", ps_hook_description(tg->hook),
			 cap->ifs[i].xdp_target.name, cap->ifs[i].xdp_target.id);
	else
		snprintf(buf, len, "%s", ps_hook_description(tg->hook));
}

/* What target t's IDB says: the hook and how it was attached, the
 * sampling. */
void cap_describe_target_idb(struct ps_capture *cap, int t)
{
	struct ps_capfile_iface *fi = &cap->file_ifaces[t];

	ps_report_idb_comment(fi->comment, sizeof(fi->comment), cap->targets[t].hook,
			      attached_via(cap, &cap->targets[t]), cap->sampling);
	describe_target(cap, &cap->targets[t], fi->description, sizeof(fi->description));
}

void cap_describe_targets(struct ps_capture *cap)
{
	for (int t = 0; t < cap->n_targets; t++)
		cap_describe_target_idb(cap, t);
}

int cap_open_ingest(struct ps_capture *cap)
{
	const struct ps_capture_cfg *o = &cap->cfg;
	/* The kernel's exact counters: sFlow's sample_pool and drops. */
	const struct ps_counter_src counters = cap_counter_src(cap);
	int err;

	cap->in = calloc(1, sizeof(*cap->in));
	if (!cap->in) {
		pr_err("cannot set up the ingest: %s\n", strerror(ENOMEM));
		return -ENOMEM;
	}
	err = ps_ingest_init(cap->in, cap->targets, cap->n_targets, cap->loader.ncpus, o->snaplen,
			     o->count);
	if (err)
		return err;
	ps_sampling_tag(&cap->smp, cap->tag, sizeof(cap->tag));
	/* The sinks, in this order: the file, the printed lines, sFlow. */
	if (cap->file)
		err = ps_ingest_add_sink(cap->in, ps_capfile_sink(cap->file));
	if (!err && o->print) {
		cap->printer = malloc(sizeof(*cap->printer));
		if (!cap->printer) {
			pr_err("cannot set up the printer: %s\n", strerror(ENOMEM));
			return -ENOMEM;
		}
		if (o->line_buffered)
			setvbuf(stdout, NULL, _IOLBF, 0);
		ps_printer_init(cap->printer, &o->print_opts, stdout);
		err = ps_ingest_add_sink(cap->in, ps_printer_sink(cap->printer, cap->tag));
	}
	if (!err && o->sflow.n_collectors) {
		cap->sflow = calloc(1, sizeof(*cap->sflow));
		if (!cap->sflow) {
			pr_err("cannot set up sFlow: %s\n", strerror(ENOMEM));
			return -ENOMEM;
		}
		err = ps_sflowexp_open(cap->sflow, &o->sflow, cap->targets, cap->n_targets,
				       &counters);
		if (!err)
			err = ps_ingest_add_sink(cap->in, ps_sflowexp_sink(cap->sflow));
	}
	if (err)
		return err;
	/* After the load (the maps are the object's), before any attach. */
	if (cap->transport == PS_TRANSPORT_RINGBUF)
		return ps_ingest_open_ring(cap->in, ps_loader_ring_fd(&cap->loader),
					   ps_loader_emit_state_fd(&cap->loader),
					   cap->bufs.ring_kib * 1024);
	err = ps_ingest_open(cap->in, ps_loader_events_fd(&cap->loader),
			     ps_loader_emit_state_fd(&cap->loader), cap->bufs.per_cpu_kib,
			     !o->buffer_kib);
	if (err)
		return err;
	return ps_ingest_threads(cap->in,
				 o->threads ?
					 (int)o->threads :
					 ps_ingest_default_threads(cap->in->n_src,
								   (int)sysconf(
									   _SC_NPROCESSORS_ONLN)));
}

/* Interface i attached: its targets' IDBs, and sFlow samplers. */
int cap_open_targets(struct ps_capture *cap, int i)
{
	int err = 0;

	for (int t = 0; t < cap->n_targets && !err; t++) {
		if (cap->targets[t].ifindex != cap->ifs[i].ifindex || cap->targets[t].gone)
			continue;
		cap_describe_target_idb(cap, t);
		if (cap->file)
			err = ps_capfile_add_target(cap->file, t, cap->n_targets);
		if (!err && cap->sflow)
			err = ps_sflowexp_add_target(cap->sflow, t, cap->n_targets);
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
static int write_failed(const struct ps_capture *cap, int err)
{
	if (reader_left(cap, err))
		return 0;
	pr_err("cannot write %s: %s\n", ps_capfile_path(cap->file), pcapng_strerror(err));
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

	ps_ingest_error(cap->in, &failed);
	if (cap->file && failed == &cap->file->sink)
		return write_failed(cap, err);
	if (cap->printer && failed == &cap->printer->sink)
		return print_failed(cap, err);
	pr_err("cannot keep the samples: %s\n", strerror(-err));
	return err;
}
