// SPDX-License-Identifier: GPL-2.0-only
/* The options into the modules' configurations; see options.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "log.h"
#include "options.h"

void ps_options_capture_cfg(const struct ps_opts *o, struct ps_capture_cfg *c)
{
	*c = (struct ps_capture_cfg){
		.ifaces = o->ifaces, .n_ifaces = o->n_ifaces, .max_ifaces = (int)o->max_ifaces,
		.reloadable = o->config != NULL,
		.hooks = o->hooks, .hooks_given = o->hooks_given,
		.xdp_mode = o->xdp_mode, .xdp_attach = o->xdp_attach,
		.tc_mode = o->tc_mode, .tc_position = o->tc_position,
		.packet_id = o->packet_id,
		.transport = o->transport == PS_TRANSPORT_AUTO ? PS_TRANSPORT_PERF : o->transport,
		.transport_given = o->transport != PS_TRANSPORT_AUTO,
		.buffer_kib = o->buffer_kib, .threads = o->threads, .snaplen = o->snaplen,
		.count = o->count, .duration_ms = o->duration_ms, .stats_ms = o->stats_ms,
		.metrics = o->metrics, .metrics_addr = o->metrics_addr,
		.metrics_web_config = o->metrics_web_config,
		.no_promisc = o->no_promisc,
		.file = {
			.output = o->output, .file_size = o->file_size,
			.rotate_ns = o->rotate_seconds * 1000000000ull,
			.file_count = o->file_count, .postrotate_cmd = o->postrotate_cmd,
			.epb_verdict = o->epb_verdict,
			.incidents = o->flight_ms != 0,
		},
		.flight = {
			.window_ns = o->flight_ms * 1000000ull, .size = o->flight_size,
			.after_ns = o->after_ms * 1000000ull,
			.holdoff_ns = o->holdoff_ms * 1000000ull, .incidents = o->incidents,
			.n_triggers = o->n_triggers, .snaplen = o->snaplen,
		},
		.sflow = o->sflow,
		/* Without -w the packets are printed, unless they go out as sFlow. */
		.print = ((!o->output && !o->sflow.n_collectors) || o->print) && !o->top,
		.line_buffered = o->line_buffered,
		/* Only a Wireshark capture gets this far with --capture. */
		.reader_may_leave = o->extcap.capture > 0,
		.top = {
			.enabled = o->top, .batch = o->top_batch,
			.group = (enum ps_top_group)o->top_group,
			.sort = (enum ps_top_sort)o->top_sort,
		},
		.context = {
			.enabled = !o->no_context, .pid = o->ctx_pid, .comm = o->ctx_comm,
			.cgroup = o->ctx_cgroup, .container = o->ctx_container,
			.pod = o->ctx_pod, .k8s_ns = o->ctx_k8s_ns,
			.host_root = o->host_root,
			.wait = o->config != NULL, /* an agent waits for its pods */
		},
	};
	for (int i = 0; i < o->n_triggers; i++)
		c->flight.triggers[i] = o->triggers[i];
	ps_cli_sampling(o, &c->smp);
	ps_cli_print_opts(o, &c->print_opts);
}

bool ps_options_have_filter(const struct ps_opts *o)
{
	return o->filter_file || o->n_filter_words;
}

int ps_options_filter_expr(const struct ps_opts *o, char **expr)
{
	char err[512];
	int ret;

	if (o->filter_file) {
		ret = ps_filter_read_file(o->filter_file, expr, err, sizeof(err));
		if (ret)
			pr_err("%s\n", err);
		return ret;
	}
	*expr = ps_filter_join(o->filter_words, o->n_filter_words);
	if (!*expr) {
		pr_err("cannot build the filter expression: %s\n", strerror(ENOMEM));
		return -ENOMEM;
	}
	return 0;
}

int ps_options_build_filter(const struct ps_opts *o, struct ps_filter *f)
{
	char err[512];
	char *expr;
	int ret;

	ret = ps_options_filter_expr(o, &expr);
	if (ret)
		return ret;
	ret = ps_filter_build(f, expr, o->snaplen, err, sizeof(err));
	if (ret)
		pr_err("%s\n", err);
	return ret;
}
