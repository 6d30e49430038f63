// SPDX-License-Identifier: GPL-2.0-only
/*
 * How the options go together (ps_cli_check, cli.h): pure, as the parser.
 * First what excludes what, then what the options mean settled in place
 * (-Q into hooks, --filter into the filter's words, sFlow's defaults),
 * then what the settled options need of each other; sFlow's, the flight
 * recorder's and --top's checks are theirs (cli_opt.h).
 */
#include <errno.h>
#include <string.h>
#include "cli_opt.h"
#include "errmsg.h"

/* Options that exclude each other, and what one needs of another, where
 * settle() would hide it. */
static int check_given(const struct ps_opts *o, char *err, size_t errlen)
{
	if (o->direction_hooks && o->hooks_given)
		return ps_fail(err, errlen, "-Q and --hook exclude each other: -Q picks the hooks");
	if (o->sample_mode_given && o->sample_mode != PS_SAMPLE_RANDOM)
		return ps_fail(err, errlen, "--sample-mode needs --sample N");
	if (o->filter_file && o->n_filter_words)
		return ps_fail(err, errlen,
			       "give the filter either as arguments or with -F, not both ('%s')",
			       o->filter_words[0]);
	if (o->filter_expr && (o->filter_file || o->n_filter_words))
		return ps_fail(err, errlen,
			       "give the filter once: --filter, -F or the words after the options");
	if (o->metrics_web_config && !o->metrics)
		return ps_fail(err, errlen, "--metrics-web-config needs --metrics ADDR:PORT");
	return 0;
}

/* What the options mean, written once: -Q's hooks, --sample-mode count,
 * --filter as the filter's one word; sFlow's defaults. */
static int settle(struct ps_opts *o, char *err, size_t errlen)
{
	if (o->direction_hooks) {
		o->hooks = o->direction_hooks;
		o->hooks_given = true;
	}
	if (o->sample_mode == PS_SAMPLE_RANDOM && o->sample_count)
		o->sample_mode = PS_SAMPLE_COUNT;
	if (o->filter_expr) {
		/* One word: the expression as given. */
		o->filter_words = &o->filter_expr;
		o->n_filter_words = 1;
	}
	return cli_check_sflow(o, err, errlen);
}

int ps_cli_check(struct ps_opts *o, char *err, size_t errlen)
{
	int ret = check_given(o, err, errlen);

	if (!ret)
		ret = settle(o, err, errlen);
	if (ret)
		return ret;
	if (o->dump_filter) {
		if (!o->filter_file && !o->n_filter_words)
			return ps_fail(err, errlen, "-d needs a filter expression");
		return 0;
	}
	if (o->ts_format > 5)
		return ps_fail(err, errlen, "-t repeats at most five times (-ttttt)");
	if (o->print && o->output && !strcmp(o->output, "-"))
		return ps_fail(err, errlen, "--print and -w - would both write to stdout");
	ret = cli_check_top(o, err, errlen);
	if (ret)
		return ret;
	if (o->read_path && !o->read_file)
		return ps_fail(err, errlen, "--path reads a file: use it with -r FILE");
	if (o->read_path && o->output && !o->print)
		return ps_fail(err, errlen, "--path is a way of printing: with -w, add --print");
	if (o->read_file) {
		if (o->live_opt[0])
			return ps_fail(err, errlen, "%s is for a live capture; -r reads a file",
				       o->live_opt);
		return 0;
	}
	if (!o->n_ifaces)
		return ps_fail(err, errlen, "no interface: use -i IFACE (or -r FILE to read one)");
	if (o->no_context && (o->ctx_pid || o->ctx_comm || o->ctx_cgroup || o->ctx_container ||
			      o->ctx_pod || o->ctx_k8s_ns))
		return ps_fail(err, errlen,
			       "--%s needs --context on: it filters on whom packets "
			       "belong to",
			       o->ctx_pid	? "pid" :
			       o->ctx_comm	? "comm" :
			       o->ctx_cgroup	? "cgroup" :
			       o->ctx_container ? "container" :
			       o->ctx_pod	? "pod" :
						  "k8s-namespace");
	if (!!o->ctx_cgroup + !!o->ctx_container + !!o->ctx_pod + !!o->ctx_k8s_ns > 1)
		return ps_fail(err, errlen,
			       "--cgroup, --container, --pod and --k8s-namespace choose cgroups: "
			       "give one of them");
	if ((o->file_size || o->rotate_seconds) && (!o->output || !strcmp(o->output, "-")))
		return ps_fail(err, errlen, "-C and -G need -w FILE, not stdout");
	ret = cli_check_flight(o, err, errlen);
	if (ret)
		return ret;
	if (o->file_count && !o->file_size && !o->rotate_seconds && !o->flight_ms)
		return ps_fail(err, errlen, "-W needs -C, -G or --flight");
	if (o->postrotate_cmd && !o->file_size && !o->rotate_seconds && !o->flight_ms)
		return ps_fail(err, errlen, "-z needs -C, -G or --flight");
	if (o->user && o->xdp_attach == PS_XDP_VIA_LIBXDP)
		return ps_fail(
			err, errlen,
			"-Z cannot be used with --xdp-attach libxdp: libxdp needs CAP_SYS_ADMIN to detach");
	return 0;
}
