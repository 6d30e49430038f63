// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <fnmatch.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <bpf/libbpf.h>
#include "capture_int.h"
#include "guardian.h"
#include "clock.h"
#include "counters.h"
#include "device.h"
#include "filter.h"
#include "guardian.h"
#include "hookplan.h"
#include "privdrop.h"
#include "reload_diff.h"
#include "linkwatch.h"
#include "log.h"
#include "pcapng.h"
#include "printer.h"
#include "sflowexp.h"
#include "promisc.h"
#include "report.h"

static uint64_t read_ns(clockid_t clock)
{
	return (uint64_t)ps_clock_read_ns(clock, NULL);
}

void ps_capture_init(struct ps_capture *cap, const struct ps_capture_cfg *cfg,
		     struct ps_filter *filter, struct ps_stop *stop)
{
	memset(cap, 0, sizeof(*cap));
	cap->link_fd = -1;
	cap->loop.epoll_fd = -1;
	cap->promisc_fd = -1;
	cap->att.guard_fd = -1;
	cap->cfg = *cfg;
	cap->transport = cfg->transport;
	ps_buffer_plan(cfg->buffer_kib, ps_online_cpus(NULL, 0), sysconf(_SC_PAGESIZE), &cap->bufs);
	cap->filter = filter;
	cap->stop = stop;
	cap->smp = cfg->smp;
	cap->drops.consumed = UINT32_MAX; /* no names yet, and no reason to skip */
	cap->metrics_slot[0].fd = cap->metrics_slot[1].fd = -1;
	cap->metrics = &cap->metrics_slot[0];
	/* A fresh seed per run: which flows are chosen varies between runs. */
	if (getrandom(&cap->smp.seed, sizeof(cap->smp.seed), 0) != sizeof(cap->smp.seed))
		cap->smp.seed = (uint32_t)read_ns(CLOCK_MONOTONIC);
}

int ps_capture_open_output(struct ps_capture *cap)
{
	const struct ps_capture_cfg *o = &cap->cfg;

	struct ps_capfile_cfg fc = o->file;

	if (!fc.output)
		return 0; /* printing only */
	cap->file = calloc(1, sizeof(*cap->file));
	if (!cap->file) {
		pr_err("cannot set up the writer for %s: %s\n", fc.output, strerror(ENOMEM));
		return -ENOMEM;
	}
	fc.snaplen = o->snaplen;
	fc.filter = cap->filter ? cap->filter->expr : NULL;
	fc.counts_filter = cap->filter || ps_sampling_active(&cap->smp);
	fc.tag = cap->tag;
	return ps_capfile_open(cap->file, &fc, &cap->stop->abort);
}

int ps_capture_setup(struct ps_capture *cap)
{
	int err;

	if (ps_sampling_active(&cap->smp))
		ps_sampling_describe(&cap->smp, cap->sampling, sizeof(cap->sampling));
	err = cap_choose_transport(cap);
	/* Before anything is loaded: a kernel without the drop tracepoint or
	 * BTF is one line. */
	if (!err && (cap->hooks & PS_HOOKS_DROP))
		err = ps_dropnames_load(&cap->drops);
	if (!err)
		err = cap_plan_targets(cap);
	if (!err)
		err = cap_start_guardian(cap);
	if (!err)
		err = cap_load_programs(cap);
	if (!err)
		err = cap_add_kernel_ifaces(cap);
	if (!err)
		err = cap_open_ingest(cap);
	/* Whom packets belong to: known before the first one is. */
	if (!err)
		err = ps_context_start(&cap->ctx, &cap->loader);
	if (!err) {
		ps_ingest_set_who(cap->in, cap->ctx.who);
		ps_ingest_set_drop_names(cap->in, &cap->drops);
	}
	if (!err)
		err = cap_open_loop(cap);
	/* Before anything is attached: a port that is taken is one line. */
	if (!err && cap->cfg.metrics)
		err = ps_metrics_open(cap->metrics, &cap->cfg.metrics_addr);
	if (!err)
		err = cap_attach_all(cap);
	if (!err)
		cap_set_promiscuous(cap);
	if (!err && cap->smp.mode == PS_SAMPLE_CLOCK)
		err = ps_ticker_start(&cap->ticker, ps_loader_prog(&cap->loader, PS_PROG_TICK),
				      cap->smp.interval_ns);
	if (!err && cap->file) {
		const struct ps_counter_src counters = cap_counter_src(cap);

		cap_describe_targets(cap);
		err = ps_capfile_start(cap->file, cap->targets, cap->file_ifaces, cap->n_targets,
				       cap->loader.ncpus, &counters, read_ns(CLOCK_MONOTONIC));
	}
	if (err == -EINTR)
		pr_err("interrupted during setup\n");
	if (!err) {
		cap->start_time_s = (double)read_ns(CLOCK_REALTIME) / 1e9;
		if (cap->metrics->fd >= 0)
			cap_publish_metrics(cap, read_ns(CLOCK_MONOTONIC));
		ps_report_start(cap->att.xdp_single_prog, cap->sampling);
		for (int i = 0; i < cap->ifset.n; i++)
			ps_report_iface(cap->ifs[i].name, cap->ifs[i].hooks, cap->cfg.snaplen);
		if (cap->follow_line[0])
			pr_warn("%s", cap->follow_line);
		if (!cap->ifset.n)
			pr_warn("capturing on no interface yet: waiting for -i %s\n",
				cap->ifset.follow);
		/* From here on, one that comes is attached at once; those
		 * that came between the listing and the link watch now. */
		cap->started = true;
		if (cap->ifset.follow)
			cap_rescan(cap);
	}
	return err;
}

int ps_capture_reload(struct ps_capture *cap, const struct ps_capture_cfg *cfg,
		      struct ps_filter *filter)
{
	/* The other metrics slot: its server thread knows it by address. */
	struct ps_metrics *m = &cap->metrics_slot[cap->metrics == &cap->metrics_slot[0]];
	struct ps_reload_diff diff;
	bool swap, new_metrics;
	int err = 0;

	ps_reload_diff(&cap->cfg, cap->filter ? cap->filter->expr : NULL, cfg,
		       filter ? filter->expr : NULL, &diff);
	if (diff.restart) {
		pr_err("the new configuration changes %s, which needs a restart; keeping the "
		       "running one\n",
		       diff.restart);
		return -EBUSY;
	}
	swap = diff.programs;
	new_metrics = diff.metrics;

	/* What can fail comes first, and leaves everything as it was: the
	 * metrics' new socket (opened, not yet used), then new programs. */
	m->fd = -1;
	if (new_metrics && cfg->metrics) {
		err = ps_metrics_open(m, &cfg->metrics_addr);
		if (err)
			return err;
	}
	if (swap) {
		err = cap_swap_programs(cap, filter, &cfg->smp);
		if (err) {
			ps_metrics_close(m);
			return err;
		}
		cap->cfg.smp = cfg->smp;
	}
	if (new_metrics) {
		ps_metrics_close(cap->metrics);
		cap->metrics = m;
		cap->metrics_at_ns = 0; /* served anew at once */
	}
	/* sFlow's new sockets: a collector that cannot be reached is said,
	 * and sFlow goes on to the ones it had, the rest applied. */
	if (cap->sflow && ps_sflowexp_reconfigure(cap->sflow, &cfg->sflow))
		pr_warn("sFlow keeps its collectors of before\n");
	/* From here on, nothing fails: the new configuration is the one. */
	if (cap->sflow)
		cap->cfg.sflow = cap->sflow->cfg;
	cap->cfg.stats_ms = cfg->stats_ms;
	cap->cfg.metrics = cfg->metrics;
	cap->cfg.metrics_addr = cfg->metrics_addr;
	cap->cfg.context = cfg->context; /* the same, with strings that live on */
	cap->cfg.file.output = cfg->file.output;
	cap->cfg.file.postrotate_cmd = cfg->file.postrotate_cmd;
	cap_ifaces_reload(cap, cfg);
	return 0;
}

/* Detach first so the counters stop moving, then drain, then account. */
int ps_capture_finish(struct ps_capture *cap, int loop_err)
{
	int err = loop_err, detach_err, close_err;

	detach_err = ps_detach_all(&cap->att);
	if (cap->smp.mode == PS_SAMPLE_CLOCK)
		cap_report_clock(cap);
	ps_ticker_stop(&cap->ticker);
	if (!cap->stop->abort && !err && !ps_ingest_error(cap->in, NULL)) {
		err = ps_ingest_drain(cap->in);
		if (err)
			err = cap_output_failed(cap, err);
	}
	/* The last file's ISBs (and -z on it), sFlow's last datagrams. */
	close_err = ps_ingest_close(cap->in, !err);
	if (!err && close_err)
		err = cap_output_failed(cap, close_err);
	cap_summary(cap);
	if (!err && cap_all_gone(cap))
		err = -ENODEV;
	return err ? err : detach_err;
}

void ps_capture_teardown(struct ps_capture *cap)
{
	ps_attach_release(&cap->att);
	if (cap->att.guard_fd >= 0)
		close(cap->att.guard_fd); /* all detached: the guardian leaves */
	cap->att.guard_fd = -1;
	ps_ticker_stop(&cap->ticker);
	if (cap->in)
		ps_ingest_free(cap->in);
	free(cap->in);
	cap->in = NULL;
	ps_context_free(&cap->ctx);
	if (cap->file)
		ps_capfile_free(cap->file);
	free(cap->file);
	cap->file = NULL;
	if (cap->sflow && cap->sflow->samplers)
		ps_sflowexp_close(cap->sflow, false);
	free(cap->sflow);
	cap->sflow = NULL;
	if (cap->printer)
		ps_printer_free(cap->printer);
	free(cap->printer);
	cap->printer = NULL;
	for (int i = 0; i < cap->ifset.n; i++) {
		ps_loader_close(&cap->ifs[i].dev_loader);
		ps_loader_close(&cap->ifs[i].trace_loader);
		ps_xdp_target_close(&cap->ifs[i].xdp_target);
	}
	if (cap->progs && cap->progs != &cap->loader)
		ps_loader_close(cap->progs);
	cap->progs = NULL;
	ps_loader_close(&cap->loader);
	if (cap->own_filter) {
		ps_filter_free(cap->own_filter);
		free(cap->own_filter);
		cap->own_filter = NULL;
	}
	ps_dropnames_free(&cap->drops);
	ps_metrics_close(&cap->metrics_slot[0]);
	ps_metrics_close(&cap->metrics_slot[1]);
	if (cap->link_fd >= 0)
		close(cap->link_fd);
	ps_runloop_free(&cap->loop);
	if (cap->promisc_fd >= 0)
		close(cap->promisc_fd); /* the memberships go with it */
	cap->link_fd = cap->promisc_fd = -1;
	ps_ifset_free(&cap->ifset);
	free(cap->ifs);
	free(cap->targets);
	free(cap->file_ifaces);
	cap->ifs = NULL;
	cap->targets = NULL;
	cap->file_ifaces = NULL;
	cap->ifs_room = cap->n_targets = 0;
}
