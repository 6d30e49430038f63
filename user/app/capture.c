// SPDX-License-Identifier: GPL-2.0-only
/*
 * The capture's steps (capture.h): each calls down into the parts
 * (capture_int.h), handing each the parts it reads; and the callbacks by
 * which a part reaches back up (an interface that comes or goes, the
 * outputs' counters) live here, where every part is at hand.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include "capture_int.h"
#include "filter.h"
#include "kfeatures.h"
#include "log.h"
#include "reload_diff.h"
#include "report.h"
#include "sflowexp.h"

/*
 * What an interface coming or going means to the parts above the
 * interfaces' (struct ps_cap_iface_ops): capture.c holds them all.
 */
static int iface_resolved(void *arg, int i)
{
	struct ps_capture *cap = arg;

	return cap_kern_iface_resolved(&cap->kern, i, &cap->ifaces.ifs[i]);
}

/* One that came while capturing: a kernel slot, targets (and IDBs, sFlow
 * samplers) before its hooks are attached, so its first packets find
 * them. */
static int iface_came(void *arg, int i)
{
	struct ps_capture *cap = arg;
	const struct ps_cap_iface *ifc = &cap->ifaces.ifs[i];
	int err = cap_kern_make_room(&cap->kern, i + 1);

	if (!err)
		err = cap_add_kernel_iface(&cap->kern, ifc, true);
	if (!err)
		err = cap_take_targets(&cap->out, ifc);
	if (!err)
		err = cap_attach_iface(&cap->kern, ifc, cap->cfg.tc_position);
	if (!err)
		err = cap_open_targets(&cap->out, &cap->ifaces, &cap->kern, ifc->ifindex);
	return err;
}

/* What was attached there detached (or gone with it), its kernel slot
 * freed, its last counters kept in its targets (their outputs still
 * answer for it, and the summary counts it). */
static void iface_went(void *arg, int i, bool vanished)
{
	struct ps_capture *cap = arg;
	int ifindex = cap->ifaces.ifs[i].ifindex;
	struct ps_counters final[PS_HOOK_MAX] = { 0 };

	cap_kern_iface_gone(&cap->kern, i, ifindex, vanished, final);
	cap_out_iface_gone(&cap->out, ifindex, final);
}

/* The outputs' counters (ISBs, sFlow): the kernel's, by target. */
static int read_counters(void *arg, uint32_t ifindex, unsigned int hook, struct ps_counters *c)
{
	const struct ps_capture *cap = arg;

	return cap_read_counters(&cap->out, &cap->kern, ifindex, hook, c);
}

void ps_capture_init(struct ps_capture *cap, const struct ps_capture_cfg *cfg,
		     struct ps_filter *filter, struct ps_stop *stop)
{
	const struct ps_cap_iface_ops ops = { iface_resolved, iface_came, iface_went, cap };

	memset(cap, 0, sizeof(*cap));
	cap->cfg = *cfg;
	cap->filter = filter;
	cap->stop = stop;
	cap->smp = cfg->smp;
	/* A fresh seed per run: which flows are chosen varies between runs. */
	if (getrandom(&cap->smp.seed, sizeof(cap->smp.seed), 0) != sizeof(cap->smp.seed))
		cap->smp.seed = (uint32_t)ps_clock_mono_ns();
	cap_ifaces_init(&cap->ifaces, cfg, filter, &ops);
	cap_kern_init(&cap->kern, cfg);
	cap_out_init(&cap->out, cfg);
	cap_stats_init(&cap->stats);
	cap_run_init(&cap->run);
}

int ps_capture_resolve(struct ps_capture *cap)
{
	const struct ps_capture_cfg *cfg = &cap->cfg;
	int err = cap_ifaces_resolve(&cap->ifaces, cfg->ifaces, cfg->n_ifaces);

	if (err)
		return err;
	cap_plan_hooks(&cap->kern, &cap->ifaces, cfg);
	err = cap_ifaces_make_room(&cap->ifaces, cfg->max_ifaces, cfg->reloadable);
	if (!err)
		err = cap_kern_make_room(&cap->kern, cap->ifaces.set.room);
	if (err)
		return err;
	return ps_context_resolve(&cap->ctx, &cfg->context);
}

int ps_capture_open_output(struct ps_capture *cap)
{
	return cap_out_open_file(&cap->out, &cap->cfg, cap->filter, &cap->smp, &cap->stop->abort);
}

/* --trigger drop:REASON: a reason this kernel has (its names differ
 * between versions; before 5.17 there are none). -EINVAL, logged. */
static int check_drop_triggers(const struct ps_flight *flight, const struct ps_dropnames *drops)
{
	const char *reason;

	for (int i = 0; flight && (reason = ps_flight_reason(flight, i)); i++) {
		if (ps_dropnames_has(drops, reason))
			continue;
		if (!ps_kfeature_has(PS_KF_DROP_REASON))
			pr_err("--trigger drop:%s: this kernel's drops have no reasons (Linux 5.17 has "
			       "them); --trigger drop takes any drop\n",
			       reason);
		else
			pr_err("--trigger drop:%s: this kernel has no drop reason %s (its reasons: "
			       "enum skb_drop_reason in its BTF)\n",
			       reason, reason);
		return -EINVAL;
	}
	return 0;
}

/* From the loaded programs to the first packet: whom packets belong to,
 * the loop, --metrics' port, the hooks attached, promiscuous mode, the
 * clock's ticker, the file's headers. */
static int start(struct ps_capture *cap, const struct ps_counter_src *counters)
{
	/* Whom packets belong to: known before the first one is. */
	int err = ps_context_start(&cap->ctx, &cap->kern.loader);

	if (!err)
		cap_out_set_context(&cap->out, cap->ctx.who, &cap->kern.drops);
	if (!err)
		err = cap_open_loop(cap);
	/* Before anything is attached: a port that is taken is one line. */
	if (!err)
		err = cap_stats_open_metrics(&cap->stats, &cap->cfg);
	if (!err)
		err = cap_attach_all(&cap->kern, &cap->ifaces, &cap->cfg, cap->stop);
	if (!err && !cap->cfg.no_promisc)
		cap_set_promiscuous(&cap->kern, &cap->ifaces);
	if (!err)
		err = cap_start_clock(&cap->kern, &cap->smp);
	if (!err)
		err = cap_out_start_file(&cap->out, &cap->ifaces, &cap->kern, counters);
	return err;
}

int ps_capture_setup(struct ps_capture *cap)
{
	/* The kernel's exact counters: sFlow's sample_pool and drops, ISBs. */
	const struct ps_counter_src counters = { .read = read_counters, .arg = cap };
	int err;

	cap_out_describe_sampling(&cap->out, &cap->smp);
	err = cap_choose_transport(&cap->kern, &cap->cfg, &cap->smp);
	/* Before anything is loaded: a kernel without the drop tracepoint or
	 * BTF is one line. */
	if (!err)
		err = cap_load_drop_names(&cap->kern);
	if (!err)
		err = cap_plan_targets(&cap->out, &cap->ifaces);
	if (!err)
		err = cap_start_guardian(&cap->kern, &cap->ifaces, cap->cfg.tc_mode);
	if (!err)
		err = cap_load_programs(&cap->kern, &cap->ifaces, &cap->cfg, &cap->smp, cap->filter,
					&cap->ctx.knobs);
	if (!err)
		err = cap_add_kernel_ifaces(&cap->kern, &cap->ifaces);
	if (!err)
		err = cap_open_ingest(&cap->out, &cap->kern, &cap->cfg, &cap->smp, &counters);
	/* The recorder's drop reasons, against the kernel's: before any
	 * attach. */
	if (!err && (cap->kern.hooks & PS_HOOKS_DROP))
		err = check_drop_triggers(cap->out.flight, &cap->kern.drops);
	if (!err)
		err = start(cap, &counters);
	if (err == -EINTR)
		pr_err("interrupted during setup\n");
	if (!err) {
		const struct ps_hooks_loaded loaded = {
			cap->kern.hooks, { cap->kern.xdp_loaded[0], cap->kern.xdp_loaded[1] }
		};

		cap_stats_start(&cap->stats, &cap->out, &cap->kern, ps_clock_mono_ns());
		ps_report_start(cap->kern.att.xdp_single_prog, cap->out.sampling);
		cap_ifaces_start(&cap->ifaces, &loaded);
	}
	return err;
}

/* What cfg changes against the running capture and its interfaces. */
static int reload_diff(const struct ps_capture *cap, const struct ps_capture_cfg *cfg,
		       const struct ps_filter *filter, struct ps_reload_diff *diff)
{
	const struct ps_hooks_loaded loaded = {
		cap->kern.hooks, { cap->kern.xdp_loaded[0], cap->kern.xdp_loaded[1] }
	};
	struct ps_hook_have *have = calloc((size_t)cap->ifaces.ifs_room + 1, sizeof(*have));
	struct ps_reload_run run = { &cap->cfg, cap->filter ? cap->filter->expr : NULL, have, 0,
				     &loaded };

	if (!have)
		return -ENOMEM;
	for (int i = 0; i < cap->ifaces.ifs_room; i++)
		if (cap->ifaces.ifs[i].ifindex)
			have[run.n_have++] = (struct ps_hook_have){ &cap->ifaces.ifs[i].dev,
								    cap->ifaces.ifs[i].hooks,
								    cap->ifaces.ifs[i].later };
	ps_reload_diff(&run, cfg, filter ? filter->expr : NULL, diff);
	free(have);
	return 0;
}

int ps_capture_reload(struct ps_capture *cap, const struct ps_capture_cfg *cfg,
		      struct ps_filter *filter)
{
	struct ps_sampling smp = cfg->smp;
	struct ps_reload_diff diff;
	static const char keep[] = "; keeping the running configuration";
	int err;

	if (reload_diff(cap, cfg, filter, &diff))
		return -ENOMEM;
	if (diff.restart) {
		pr_err("the new configuration changes %s, which needs a restart; keeping the "
		       "running one\n",
		       diff.restart);
		return -EBUSY;
	}
	/* What can fail comes first, and leaves everything as it was: the
	 * metrics' new socket (opened, not yet used), then new programs. */
	err = cap_stats_reload_prepare(&cap->stats, cfg, diff.metrics, keep);
	if (err)
		return err;
	if (diff.programs) {
		smp.seed = cap->smp.seed; /* which flows are chosen stays the same */
		err = cap_swap_programs(&cap->kern, &cap->ifaces, &cap->cfg, &cap->ctx.knobs,
					filter, &smp);
		if (!err) {
			/* What the outputs say of the sampling and the filter,
			 * from here on. */
			cap->filter = filter;
			cap->smp = smp;
			cap->cfg.smp = cfg->smp;
			err = cap_out_renew(&cap->out, &cap->ifaces, &cap->kern, filter, &smp);
		}
		if (err) {
			cap_stats_reload_drop(&cap->stats);
			return err;
		}
	}
	cap_stats_reload_apply(&cap->stats, cfg, diff.metrics);
	cap_out_reload_sflow(&cap->out, &cfg->sflow);
	/* From here on, nothing fails: the new configuration is the one. */
	if (cap->out.sflow)
		cap->cfg.sflow = cap->out.sflow->cfg;
	cap->cfg.stats_ms = cfg->stats_ms;
	cap->cfg.metrics = cfg->metrics;
	cap->cfg.metrics_addr = cfg->metrics_addr;
	cap->cfg.metrics_web_config = cfg->metrics_web_config;
	if (diff.hooks) { /* written otherwise, meaning the same here */
		cap->cfg.hooks = cfg->hooks;
		cap->cfg.hooks_given = cfg->hooks_given;
	}
	cap->cfg.context = cfg->context; /* the same, with strings that live on */
	cap->cfg.file.output = cfg->file.output;
	cap->cfg.file.postrotate_cmd = cfg->file.postrotate_cmd;
	cap->cfg.ifaces = cfg->ifaces;
	cap->cfg.n_ifaces = cfg->n_ifaces;
	cap_ifaces_reload(&cap->ifaces, &cap->cfg, cap->filter);
	return 0;
}

/* Detach first so the counters stop moving, then drain, then account. */
int ps_capture_finish(struct ps_capture *cap, int loop_err)
{
	int err, detach_err;

	detach_err = cap_detach_all(&cap->kern);
	if (cap->smp.mode == PS_SAMPLE_CLOCK)
		cap_report_clock(&cap->kern);
	cap_stop_clock(&cap->kern);
	err = cap_out_finish(&cap->out, loop_err, cap->stop->abort, cap->stop->requested);
	cap_summary(&cap->out, &cap->kern, &cap->smp, cap->filter != NULL);
	if (!err && cap_all_gone(&cap->ifaces))
		err = -ENODEV;
	return err ? err : detach_err;
}

void ps_capture_teardown(struct ps_capture *cap)
{
	/* Detached first; the buffers before the maps they read. */
	cap_kern_release(&cap->kern);
	cap_out_free(&cap->out);
	ps_context_free(&cap->ctx);
	cap_kern_free(&cap->kern);
	cap_stats_free(&cap->stats);
	cap_run_free(&cap->run);
	cap_ifaces_free(&cap->ifaces);
}
