// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "flight.h"
#include "log.h"
#include "words.h"

int ps_flight_init(struct ps_flight *fl, const struct ps_flight_cfg *cfg,
		   const struct ps_flight_out *out, const struct ps_target *targets, char *err,
		   size_t errlen)
{
	char why[256];
	int ret;

	memset(fl, 0, sizeof(*fl));
	fl->cfg = *cfg;
	fl->out = *out;
	fl->targets = targets;
	for (int i = 0; i < cfg->n_triggers; i++) {
		ret = ps_trigger_parse(&fl->trig[i], cfg->triggers[i], cfg->snaplen, why,
				       sizeof(why));
		if (ret) {
			snprintf(err, errlen, "--trigger '%s': %s", cfg->triggers[i], why);
			ps_flight_free(fl);
			return ret;
		}
	}
	if (ps_flightbuf_init(&fl->buf, cfg->size)) {
		snprintf(err, errlen, "cannot keep %llu bytes for --flight-size: %s",
			 (unsigned long long)cfg->size, strerror(ENOMEM));
		ps_flight_free(fl);
		return -ENOMEM;
	}
	return 0;
}

void ps_flight_free(struct ps_flight *fl)
{
	for (int i = 0; i < fl->cfg.n_triggers; i++)
		ps_trigger_free(&fl->trig[i]);
	ps_flightbuf_free(&fl->buf);
}

/* The first trigger p matches, or NULL. */
static const char *matching(struct ps_flight *fl, const struct ps_sink_pkt *p)
{
	int linktype = fl->targets[p->target].linktype;

	for (int i = 0; i < fl->cfg.n_triggers; i++)
		if (ps_trigger_match(&fl->trig[i], p, linktype))
			return fl->trig[i].text;
	return NULL;
}

static void start(struct ps_flight *fl, uint64_t ts_ns, const char *why,
		  const struct ps_sink_pkt *p)
{
	fl->state = PS_FLIGHT_INCIDENT;
	fl->trigger_ns = ts_ns;
	fl->start_ns = ts_ns > fl->cfg.window_ns ? ts_ns - fl->cfg.window_ns : 0;
	fl->end_ns = ts_ns + fl->cfg.after_ns;
	fl->trigger_packet = p != NULL;
	fl->trigger_id = p ? p->packet_id : 0;
	ps_word_put(fl->trigger_note, sizeof(fl->trigger_note), 0, PS_WORD_TRIGGER, "%s", why);
}

/* "12:34:56.789", local time. */
static void clock_words(uint64_t ns, char *buf, size_t len)
{
	time_t s = (time_t)(ns / 1000000000ull);
	struct tm tm;

	if (!localtime_r(&s, &tm) || !strftime(buf, len, "%H:%M:%S", &tm))
		snprintf(buf, len, "?");
	else
		snprintf(buf + strlen(buf), len - strlen(buf), ".%03u",
			 (unsigned int)(ns / 1000000ull % 1000));
}

/*
 * The incident's window to the file: the packets stamped from its start
 * to its end (those after stay, for the next), given to the file's sink,
 * flushed, then dropped from memory (the file's writer borrows their bytes
 * until its round).
 */
static int write_incident(struct ps_flight *fl)
{
	struct ps_sink *file = fl->out.file;
	struct ps_flightbuf_it it;
	struct ps_flight_view v;
	uint64_t n = 0, first = 0, last = 0;
	char from[32], to[32], at[32], line[1024];
	int err = 0;

	if (fl->st.incidents && fl->out.next_file)
		err = fl->out.next_file(fl->out.arg);
	ps_flightbuf_expire(&fl->buf, fl->start_ns);
	ps_flightbuf_begin(&fl->buf, &it);
	while (!err && ps_flightbuf_next(&fl->buf, &it, &v) && v.pkt.ts_ns <= fl->end_ns) {
		v.pkt.t = &fl->targets[v.pkt.target];
		if (fl->trigger_packet && v.pkt.packet_id == fl->trigger_id)
			v.pkt.note = fl->trigger_note;
		err = file->ops->packet(file, &v.pkt);
		if (!n)
			first = v.pkt.ts_ns;
		last = v.pkt.ts_ns;
		n++;
	}
	if (!err)
		err = file->ops->round(file);
	for (uint64_t i = 0; i < n; i++)
		ps_flightbuf_pop(&fl->buf);
	if (err)
		return fl->error = err; /* the capture says what failed */

	fl->st.incidents++;
	fl->state = PS_FLIGHT_WAITING;
	fl->holdoff_until_ns = fl->end_ns + fl->cfg.holdoff_ns;
	if (fl->cfg.incidents && fl->st.incidents >= fl->cfg.incidents)
		fl->done = true;
	clock_words(n ? first : fl->start_ns, from, sizeof(from));
	clock_words(n ? last : fl->end_ns, to, sizeof(to));
	clock_words(fl->trigger_ns, at, sizeof(at));
	snprintf(line, sizeof(line),
		 "incident %llu: %llu packets, %s to %s, %s at %s, written to %s\n",
		 (unsigned long long)fl->st.incidents, (unsigned long long)n, from, to,
		 fl->trigger_note, at, fl->out.path ? fl->out.path(fl->out.arg) : "-w's file");
	ps_log_text(line);
	return 0;
}

static int flight_packet(struct ps_sink *s, const struct ps_sink_pkt *p)
{
	struct ps_flight *fl = ps_sink_of(s, struct ps_flight, sink);
	const char *why;

	if (fl->error)
		return fl->error;
	/* The first packet past the incident: every one before it is here
	 * (the merge gives them in time order). */
	if (fl->state == PS_FLIGHT_INCIDENT && p->ts_ns > fl->end_ns && write_incident(fl))
		return fl->error;
	if (fl->state == PS_FLIGHT_WAITING && p->ts_ns > fl->cfg.window_ns)
		ps_flightbuf_expire(&fl->buf, p->ts_ns - fl->cfg.window_ns);
	ps_flightbuf_push(&fl->buf, p); /* one larger than it all: counted */
	why = fl->cfg.n_triggers ? matching(fl, p) : NULL;
	if (!why)
		return 0;
	if (fl->state == PS_FLIGHT_WAITING && !fl->done && p->ts_ns >= fl->holdoff_until_ns)
		start(fl, p->ts_ns, why, p);
	else
		fl->st.triggers_ignored++;
	return 0;
}

/* Each packet's bytes were copied: nothing is held past the round. */
static int flight_round(struct ps_sink *s)
{
	struct ps_flight *fl = ps_sink_of(s, struct ps_flight, sink);

	return fl->error;
}

/* An incident under way when the capture ends is written, as far as it
 * got. */
static int flight_close(struct ps_sink *s, bool ok)
{
	struct ps_flight *fl = ps_sink_of(s, struct ps_flight, sink);

	if (ok && !fl->error && fl->state == PS_FLIGHT_INCIDENT)
		write_incident(fl);
	return fl->out.file->ops->close(fl->out.file, ok && !fl->error);
}

static const struct ps_sink_ops flight_ops = {
	.packet = flight_packet,
	.round = flight_round,
	.close = flight_close,
};

struct ps_sink *ps_flight_sink(struct ps_flight *fl)
{
	fl->sink.ops = &flight_ops;
	return &fl->sink;
}

void ps_flight_trigger_now(struct ps_flight *fl, uint64_t now_ns)
{
	if (fl->state == PS_FLIGHT_WAITING && !fl->done && now_ns >= fl->holdoff_until_ns)
		start(fl, now_ns, "SIGUSR2", NULL);
	else
		fl->st.triggers_ignored++;
}

int ps_flight_tick(struct ps_flight *fl, uint64_t now_ns, uint64_t hold_ns)
{
	if (fl->error)
		return fl->error;
	if (fl->state == PS_FLIGHT_WAITING && now_ns > fl->cfg.window_ns)
		ps_flightbuf_expire(&fl->buf, now_ns - fl->cfg.window_ns);
	if (fl->state == PS_FLIGHT_INCIDENT && now_ns > fl->end_ns + hold_ns && write_incident(fl))
		return fl->error;
	return fl->done ? 1 : 0;
}

uint64_t ps_flight_due_ns(const struct ps_flight *fl, uint64_t hold_ns)
{
	return fl->state == PS_FLIGHT_INCIDENT ? fl->end_ns + hold_ns + 1 : 0;
}

void ps_flight_stats(const struct ps_flight *fl, struct ps_flight_stats *st)
{
	*st = fl->st;
	st->evicted = fl->buf.evicted;
	st->too_big = fl->buf.too_big;
	st->held = fl->buf.count;
	st->held_bytes = fl->buf.bytes;
}

const char *ps_flight_reason(const struct ps_flight *fl, int i)
{
	for (int k = 0; k < fl->cfg.n_triggers; k++)
		if (fl->trig[k].kind == PS_TRIGGER_DROP && fl->trig[k].reason && !i--)
			return fl->trig[k].reason;
	return NULL;
}
