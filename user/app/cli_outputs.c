// SPDX-License-Identifier: GPL-2.0-only
/*
 * The values of the outputs' options: sFlow's export and the flight
 * recorder's. Pure, as the rest of the parser (cli.c holds the table).
 */
#include <string.h>
#include "addr.h"
#include "cli_int.h"
#include "errmsg.h"

int ps_cli_set_sflow(struct ps_opts *o, const char *a, char *err, size_t len)
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

int ps_cli_set_sflow_agent(struct ps_opts *o, const char *a, char *err, size_t len)
{
	o->sflow_opts = true;
	if (ps_addr_parse(a, false, PS_SFLOW_PORT, &o->sflow.agent))
		return ps_fail(err, len, "bad --sflow-agent '%s': use an IPv4 or IPv6 address", a);
	o->sflow.has_agent = true;
	return 0;
}

int ps_cli_set_sflow_header(struct ps_opts *o, const char *a, char *err, size_t len)
{
	uint64_t v;

	o->sflow_opts = true;
	if (ps_parse_u64(a, 14, PS_SFLOW_HEADER_MAX, &v))
		return ps_fail(err, len, "bad --sflow-header '%s': use 14 to %u bytes", a,
			       PS_SFLOW_HEADER_MAX);
	o->sflow.header_bytes = (uint32_t)v;
	return 0;
}

int ps_cli_set_sflow_counters(struct ps_opts *o, const char *a, char *err, size_t len)
{
	uint64_t v;

	o->sflow_opts = true;
	if (ps_parse_u64(a, 1, 3600, &v))
		return ps_fail(err, len, "bad --sflow-counters '%s': use 1 to 3600 seconds", a);
	o->sflow.counters_s = (uint32_t)v;
	return 0;
}

int ps_cli_set_sflow_burst(struct ps_opts *o, const char *a, char *err, size_t len)
{
	uint64_t v;

	o->sflow_opts = true;
	if (ps_parse_u64(a, 1, PS_SFLOW_BURST_MAX, &v))
		return ps_fail(err, len, "bad --sflow-burst '%s': use 1 to %u datagrams", a,
			       PS_SFLOW_BURST_MAX);
	o->sflow.burst = (uint32_t)v;
	return 0;
}

int ps_cli_set_flight(struct ps_opts *o, const char *a, char *err, size_t len)
{
	if (ps_parse_duration_ms(a, &o->flight_ms))
		return ps_fail(err, len, "bad --flight '%s': use a time, e.g. 30s, 5m", a);
	return 0;
}

int ps_cli_set_flight_size(struct ps_opts *o, const char *a, char *err, size_t len)
{
	if (ps_parse_file_size(a, &o->flight_size) || o->flight_size < 65536)
		return ps_fail(err, len,
			       "bad --flight-size '%s': use 64k or more, with k, m or g (a bare "
			       "number is millions of bytes)",
			       a);
	return 0;
}

int ps_cli_set_trigger(struct ps_opts *o, const char *a, char *err, size_t len)
{
	if (o->n_triggers == PS_CLI_TRIGGERS)
		return ps_fail(err, len, "at most %d --trigger", PS_CLI_TRIGGERS);
	if (!*a)
		return ps_fail(err, len,
			       "bad --trigger '': use an expression, drop or drop:REASON");
	o->triggers[o->n_triggers++] = a;
	return 0;
}

/* A time that may be 0 ("0", "0s"): --after, --holdoff. */
static int time_or_zero(const char *opt, const char *a, uint64_t *ms, char *err, size_t len)
{
	if (!strcmp(a, "0") || !strcmp(a, "0s") || !strcmp(a, "0ms")) {
		*ms = 0;
		return 0;
	}
	if (ps_parse_duration_ms(a, ms))
		return ps_fail(err, len, "bad %s '%s': use a time, e.g. 0, 500ms, 10s, 1m", opt, a);
	return 0;
}

int ps_cli_set_after(struct ps_opts *o, const char *a, char *err, size_t len)
{
	o->after_given = true;
	return time_or_zero("--after", a, &o->after_ms, err, len);
}

int ps_cli_set_holdoff(struct ps_opts *o, const char *a, char *err, size_t len)
{
	return time_or_zero("--holdoff", a, &o->holdoff_ms, err, len);
}

int ps_cli_set_incidents(struct ps_opts *o, const char *a, char *err, size_t len)
{
	uint64_t v;

	if (ps_parse_u64(a, 1, UINT32_MAX, &v))
		return ps_fail(err, len, "bad --incidents '%s': use 1 or more", a);
	o->incidents = (uint32_t)v;
	return 0;
}
