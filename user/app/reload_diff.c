// SPDX-License-Identifier: GPL-2.0-only
/* What a new configuration changes; see reload_diff.h. */
#include <string.h>
#include "reload_diff.h"

/* Two strings the same, NULL as "". */
static bool same_str(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

static bool same_file(const struct ps_capfile_cfg *a, const struct ps_capfile_cfg *b)
{
	return same_str(a->output, b->output) && a->file_size == b->file_size &&
	       a->rotate_ns == b->rotate_ns && a->file_count == b->file_count &&
	       same_str(a->postrotate_cmd, b->postrotate_cmd) && a->epb_verdict == b->epb_verdict;
}

static bool same_flight(const struct ps_flight_cfg *a, const struct ps_flight_cfg *b)
{
	if (a->window_ns != b->window_ns || a->size != b->size || a->after_ns != b->after_ns ||
	    a->holdoff_ns != b->holdoff_ns || a->incidents != b->incidents ||
	    a->n_triggers != b->n_triggers)
		return false;
	for (int i = 0; i < a->n_triggers; i++)
		if (!same_str(a->triggers[i], b->triggers[i]))
			return false;
	return true;
}

static bool same_context(const struct ps_context_cfg *a, const struct ps_context_cfg *b)
{
	return a->enabled == b->enabled && a->pid == b->pid && same_str(a->comm, b->comm) &&
	       same_str(a->cgroup, b->cgroup) && same_str(a->container, b->container) &&
	       same_str(a->pod, b->pod) && same_str(a->k8s_ns, b->k8s_ns) &&
	       same_str(a->host_root, b->host_root);
}

/* Are a's and b's hook settings written alike? */
static bool same_hooks(const struct ps_capture_cfg *a, const struct ps_capture_cfg *b)
{
	return a->hooks_given == b->hooks_given && (!a->hooks_given || a->hooks == b->hooks);
}

/* The hooks, their modes and the buffers: what the programs and maps were
 * loaded and attached with. */
static const char *kernel_setting(const struct ps_reload_run *run, const struct ps_capture_cfg *b)
{
	const struct ps_capture_cfg *a = run->cfg;
	const struct ps_hook_opts o = { b->hooks_given, b->hooks, b->xdp_mode };

	if (!same_hooks(a, b) && !ps_hook_plan_keeps(run->have, run->n_have, &o, run->loaded))
		return "hook (or direction)";
	if (a->xdp_mode != b->xdp_mode || a->xdp_attach != b->xdp_attach)
		return "xdp-mode or xdp-attach";
	if (a->tc_mode != b->tc_mode || a->tc_position != b->tc_position)
		return "tc-mode or tc-position";
	if (a->packet_id != b->packet_id)
		return "packet-id";
	if (a->transport != b->transport || a->buffer_kib != b->buffer_kib ||
	    a->threads != b->threads)
		return "transport, buffer-size or threads";
	if (a->snaplen != b->snaplen)
		return "snaplen";
	if (a->max_ifaces != b->max_ifaces)
		return "max-ifaces";
	return NULL;
}

/* The first setting of b that the running capture cannot take from a
 * without new maps, files or outputs; NULL if there is none. */
static const char *needs_restart(const struct ps_reload_run *run, const struct ps_capture_cfg *b)
{
	const struct ps_capture_cfg *a = run->cfg;
	const struct ps_sampling *x = &a->smp, *y = &b->smp;
	const char *what = kernel_setting(run, b);

	if (what)
		return what;
	/* The clock's ticker is the programs' too: no swap for it. */
	if ((x->mode == PS_SAMPLE_CLOCK || y->mode == PS_SAMPLE_CLOCK) &&
	    (x->mode != y->mode || x->interval_ns != y->interval_ns))
		return "sample-interval";
	if (a->count != b->count || a->duration_ms != b->duration_ms)
		return "count or duration";
	if (!same_file(&a->file, &b->file))
		return "the file (write, file-size, rotate-seconds, file-count, postrotate-command, epb-verdict)";
	if (!same_flight(&a->flight, &b->flight))
		return "the flight recorder (flight, flight-size, trigger, after, holdoff, incidents)";
	if (a->print != b->print || a->line_buffered != b->line_buffered ||
	    memcmp(&a->print_opts, &b->print_opts, sizeof(a->print_opts)))
		return "what is printed (print and its flags)";
	if ((a->sflow.n_collectors > 0) != (b->sflow.n_collectors > 0))
		return "whether there is sflow";
	if (!same_context(&a->context, &b->context))
		return "context, pid, comm, cgroup, container, pod, k8s-namespace or host-root";
	if (a->no_promisc != b->no_promisc)
		return "no-promiscuous-mode";
	return NULL;
}

/* Do a and b sample the same way (the seed aside, the capture's own)? */
static bool same_sampling(const struct ps_sampling *a, const struct ps_sampling *b)
{
	return a->mode == b->mode && a->n == b->n && a->interval_ns == b->interval_ns &&
	       a->max_rate == b->max_rate;
}

void ps_reload_diff(const struct ps_reload_run *run, const struct ps_capture_cfg *next,
		    const char *next_filter, struct ps_reload_diff *d)
{
	const struct ps_capture_cfg *a = run->cfg;

	d->restart = needs_restart(run, next);
	d->programs = !same_str(run->filter, next_filter) || !same_sampling(&a->smp, &next->smp);
	d->metrics = a->metrics != next->metrics ||
		     memcmp(&a->metrics_addr, &next->metrics_addr, sizeof(a->metrics_addr));
	d->hooks = !same_hooks(a, next);
}
