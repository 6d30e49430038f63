// SPDX-License-Identifier: GPL-2.0-only
/*
 * How the options go together (ps_cli_check, cli.h): pure, as the parser.
 * First what excludes what, then what the options mean settled in place
 * (-Q into hooks, --filter into the filter's words, sFlow's defaults),
 * then what the settled options need of each other.
 */
#include <errno.h>
#include <string.h>
#include "cli.h"
#include "errmsg.h"
#include "trigger.h"

/*
 * sFlow carries a 1-in-N sampling rate, and collectors multiply by it:
 * random (--sample N) and count (every Nth per CPU) are 1 in N, no
 * sampling is 1 in 1. Whole flows, a clock, or a rate cap have no such N.
 */
static int check_sflow(struct ps_opts *o, char *err, size_t errlen)
{
	struct ps_sflow_config *c = &o->sflow;

	if (!c->n_collectors) {
		if (o->sflow_opts)
			return ps_fail(
				err, errlen,
				"--sflow-agent, --sflow-header and --sflow-counters need --sflow");
		return 0;
	}
	if (o->sample_mode == PS_SAMPLE_FLOW || o->sample_mode == PS_SAMPLE_CLOCK)
		return ps_fail(err, errlen, "--sflow needs a 1-in-N rate: use --sample N, not %s",
			       o->sample_mode == PS_SAMPLE_FLOW ? "--sample-flows" :
								  "--sample-interval");
	if (o->max_rate)
		return ps_fail(err, errlen,
			       "--sflow needs a 1-in-N rate, which --max-rate would break");
	if (o->sample_n > UINT32_MAX)
		return ps_fail(err, errlen, "--sflow carries a rate of at most %u", UINT32_MAX);
	c->rate = o->sample_mode == PS_SAMPLE_ALL ? 1 : (uint32_t)o->sample_n;
	if (!c->header_bytes)
		c->header_bytes = 128;
	if (!c->counters_s)
		c->counters_s = 20;
	if (!c->burst)
		c->burst = PS_SFLOW_BURST_DEFAULT;
	return 0;
}

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
	return check_sflow(o, err, errlen);
}

/* --flight and its options: they go together, and each trigger parses. */
static int check_flight(struct ps_opts *o, char *err, size_t errlen)
{
	const char *alone = o->n_triggers  ? "--trigger" :
			    o->flight_size ? "--flight-size" :
			    o->after_given ? "--after" :
			    o->holdoff_ms  ? "--holdoff" :
			    o->incidents   ? "--incidents" :
					     NULL;
	char why[256];

	if (!o->flight_ms) {
		if (alone)
			return ps_fail(err, errlen, "%s needs --flight TIME", alone);
		return 0;
	}
	if (!o->output || !strcmp(o->output, "-"))
		return ps_fail(err, errlen, "--flight writes its incidents to -w FILE");
	if (o->file_size || o->rotate_seconds)
		return ps_fail(err, errlen,
			       "--flight writes a file per incident: -C and -G do not apply "
			       "(-W N keeps a ring of N)");
	if (o->count)
		return ps_fail(err, errlen,
			       "-c counts packets; --flight ends after --incidents N instead");
	for (int i = 0; i < o->n_triggers; i++) {
		struct ps_trigger t;

		if (ps_trigger_parse(&t, o->triggers[i], o->snaplen, why, sizeof(why)))
			return ps_fail(err, errlen, "bad --trigger '%s': %s", o->triggers[i], why);
		ps_trigger_free(&t);
		if (t.kind == PS_TRIGGER_DROP && !(o->hooks_given && (o->hooks & PS_HOOKS_DROP)))
			return ps_fail(err, errlen,
				       "--trigger %s needs the drop hook: add drop to --hook "
				       "(e.g. --hook tc-ingress,tc-egress,drop)",
				       o->triggers[i]);
	}
	if (!o->flight_size)
		o->flight_size = PS_FLIGHT_SIZE_DEFAULT;
	if (!o->after_given)
		o->after_ms = PS_FLIGHT_AFTER_DEFAULT_MS;
	return 0;
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
	if (o->top_opts && !o->top)
		return ps_fail(err, errlen, "--batch, --top-group and --top-sort go with --top");
	if (o->top && (o->print || (o->output && !strcmp(o->output, "-"))))
		return ps_fail(err, errlen, "--top and %s would both write to stdout",
			       o->print ? "--print" : "-w -");
	if (o->read_file) {
		if (o->live_opt[0])
			return ps_fail(err, errlen, "%s is for a live capture; -r reads a file",
				       o->live_opt);
		return 0;
	}
	if (!o->n_ifaces)
		return ps_fail(err, errlen, "no interface: use -i IFACE (or -r FILE to read one)");
	if (o->no_context && (o->ctx_pid || o->ctx_comm || o->ctx_cgroup || o->ctx_container))
		return ps_fail(err, errlen,
			       "--%s needs --context on: it filters on whom packets "
			       "belong to",
			       o->ctx_pid    ? "pid" :
			       o->ctx_comm   ? "comm" :
			       o->ctx_cgroup ? "cgroup" :
					       "container");
	if ((o->file_size || o->rotate_seconds) && (!o->output || !strcmp(o->output, "-")))
		return ps_fail(err, errlen, "-C and -G need -w FILE, not stdout");
	ret = check_flight(o, err, errlen);
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
