// SPDX-License-Identifier: GPL-2.0-only
/*
 * sFlow's options: the collectors, the agent address, the header bytes,
 * the counters' interval and the burst; and how they go together with the
 * sampling. Pure, as the rest of the parser (cli_opt.h).
 */
#include "addr.h"
#include "cli_opt.h"
#include "errmsg.h"

static int set_sflow(struct ps_opts *o, const char *a, char *err, size_t len)
{
	struct ps_sflow_config *c = &o->sflow;

	if (c->n_collectors == PS_SFLOW_MAX_COLLECTORS)
		return ps_fail(err, len, "at most %d --sflow collectors", PS_SFLOW_MAX_COLLECTORS);
	if (ps_addr_parse(a, true, PS_SFLOW_PORT, &c->collectors[c->n_collectors]))
		return ps_fail(err, len,
			       "bad --sflow '%s': use an IPv4 or IPv6 address, with :PORT if not %u "
			       "([ADDR]:PORT for IPv6)",
			       a, PS_SFLOW_PORT);
	c->n_collectors++;
	return 0;
}

static int set_sflow_agent(struct ps_opts *o, const char *a, char *err, size_t len)
{
	o->sflow_opts = true;
	if (ps_addr_parse(a, false, PS_SFLOW_PORT, &o->sflow.agent))
		return ps_fail(err, len, "bad --sflow-agent '%s': use an IPv4 or IPv6 address", a);
	o->sflow.has_agent = true;
	return 0;
}

static int set_sflow_header(struct ps_opts *o, const char *a, char *err, size_t len)
{
	uint64_t v;

	o->sflow_opts = true;
	if (ps_parse_u64(a, 14, PS_SFLOW_HEADER_MAX, &v))
		return ps_fail(err, len, "bad --sflow-header '%s': use 14 to %u bytes", a,
			       PS_SFLOW_HEADER_MAX);
	o->sflow.header_bytes = (uint32_t)v;
	return 0;
}

static int set_sflow_counters(struct ps_opts *o, const char *a, char *err, size_t len)
{
	uint64_t v;

	o->sflow_opts = true;
	if (ps_parse_u64(a, 1, 3600, &v))
		return ps_fail(err, len, "bad --sflow-counters '%s': use 1 to 3600 seconds", a);
	o->sflow.counters_s = (uint32_t)v;
	return 0;
}

static int set_sflow_burst(struct ps_opts *o, const char *a, char *err, size_t len)
{
	uint64_t v;

	o->sflow_opts = true;
	if (ps_parse_u64(a, 1, PS_SFLOW_BURST_MAX, &v))
		return ps_fail(err, len, "bad --sflow-burst '%s': use 1 to %u datagrams", a,
			       PS_SFLOW_BURST_MAX);
	o->sflow.burst = (uint32_t)v;
	return 0;
}

static const struct cli_opt rows[] = {
	{ "sflow", 0, required_argument, "ADDR[:PORT]",
	  "export the samples as sFlow v5 to a collector (repeat for more; port 6343)", set_sflow,
	  LIVE },
	{ "sflow-agent", 0, required_argument, "ADDR",
	  "the agent address in the datagrams (default: the source towards the collector)",
	  set_sflow_agent, LIVE },
	{ "sflow-header", 0, required_argument, "BYTES",
	  "bytes of each sampled packet sent (default 128)", set_sflow_header, LIVE },
	{ "sflow-counters", 0, required_argument, "SECONDS",
	  "send interface counters every SECONDS (default 20)", set_sflow_counters, LIVE },
	{ "sflow-burst", 0, required_argument, "N",
	  "send at most N datagrams back to back, a burst a millisecond (default 8)",
	  set_sflow_burst, LIVE },
};
const struct cli_table cli_sflow_table = CLI_TABLE(rows);

/*
 * sFlow carries a 1-in-N sampling rate, and collectors multiply by it:
 * random (--sample N) and count (every Nth per CPU) are 1 in N, no
 * sampling is 1 in 1. Whole flows, a clock, or a rate cap have no such N.
 */
int cli_check_sflow(struct ps_opts *o, char *err, size_t errlen)
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
