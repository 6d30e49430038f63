// SPDX-License-Identifier: GPL-2.0-only
/*
 * The flight recorder's options: its window and memory, the triggers,
 * the time kept after one, the holdoff, how many incidents; and how they
 * go together with the file. Pure, as the rest of the parser (cli_opt.h).
 */
#include <string.h>
#include "cli_opt.h"
#include "errmsg.h"
#include "trigger.h"

static int set_flight(struct ps_opts *o, const char *a, char *err, size_t len)
{
	if (ps_parse_duration_ms(a, &o->flight_ms))
		return ps_fail(err, len, "bad --flight '%s': use a time, e.g. 30s, 5m", a);
	return 0;
}

static int set_flight_size(struct ps_opts *o, const char *a, char *err, size_t len)
{
	if (ps_parse_file_size(a, &o->flight_size) || o->flight_size < 65536)
		return ps_fail(err, len,
			       "bad --flight-size '%s': use 64k or more, with k, m or g (a bare "
			       "number is millions of bytes)",
			       a);
	return 0;
}

static int set_trigger(struct ps_opts *o, const char *a, char *err, size_t len)
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

static int set_after(struct ps_opts *o, const char *a, char *err, size_t len)
{
	o->after_given = true;
	return time_or_zero("--after", a, &o->after_ms, err, len);
}

static int set_holdoff(struct ps_opts *o, const char *a, char *err, size_t len)
{
	return time_or_zero("--holdoff", a, &o->holdoff_ms, err, len);
}

static int set_incidents(struct ps_opts *o, const char *a, char *err, size_t len)
{
	uint64_t v;

	if (ps_parse_u64(a, 1, UINT32_MAX, &v))
		return ps_fail(err, len, "bad --incidents '%s': use 1 or more", a);
	o->incidents = (uint32_t)v;
	return 0;
}

static const struct cli_opt rows[] = {
	{ "flight", 0, required_argument, "TIME",
	  "a flight recorder: keep the last TIME in memory, and write it to -w's file only "
	  "when a --trigger fires (or SIGUSR2)",
	  set_flight, LIVE },
	{ "flight-size", 0, required_argument, "SIZE",
	  "memory for --flight (default 64m; k, m, g); the oldest packets go first",
	  set_flight_size, LIVE },
	{ "trigger", 0, required_argument, "EXPR",
	  "what starts an incident: a packet matching a filter expression at any hook, drop, "
	  "or drop:REASON (repeat for more)",
	  set_trigger, LIVE },
	{ "after", 0, required_argument, "TIME",
	  "with --flight: keep recording TIME after the trigger (default 5s)", set_after, LIVE },
	{ "holdoff", 0, required_argument, "TIME",
	  "with --flight: no new incident until TIME after one (default 0)", set_holdoff, LIVE },
	{ "incidents", 0, required_argument, "N", "with --flight: stop after N incidents written",
	  set_incidents, LIVE },
};
const struct cli_table cli_flight_table = CLI_TABLE(rows);

/* --flight and its options: they go together, and each trigger parses. */
int cli_check_flight(struct ps_opts *o, char *err, size_t errlen)
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
