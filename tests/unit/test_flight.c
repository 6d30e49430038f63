// SPDX-License-Identifier: GPL-2.0-only
/* The flight recorder: its memory (records kept, read back, given up in
 * order, bounded), its triggers, and its incidents as the file's sink
 * gets them. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <cmocka.h>
#include "flight.h"

#define MS 1000000ull
#define SEC 1000000000ull
#define LT_ETHERNET 1
#define LT_RAW 101

/* An Ethernet + IPv4 + UDP frame to port dport, len bytes (>= 42). */
static size_t udp_frame(uint8_t *f, size_t len, uint16_t dport)
{
	memset(f, 0, len);
	f[12] = 0x08;			    /* IPv4 */
	f[14] = 0x45;			    /* version 4, IHL 5 */
	f[16] = (uint8_t)((len - 14) >> 8); /* total length */
	f[17] = (uint8_t)(len - 14);
	f[22] = 64;
	f[23] = 17; /* UDP */
	memcpy(f + 26, (uint8_t[]){ 192, 0, 2, 1, 192, 0, 2, 2 }, 8);
	f[34] = 0x30, f[35] = 0x39; /* sport 12345 */
	f[36] = (uint8_t)(dport >> 8);
	f[37] = (uint8_t)dport;
	return len;
}

struct pkt {
	struct ps_meta m;
	struct ps_sink_pkt p;
	uint8_t data[1600];
};

static void make(struct pkt *k, uint64_t ts_ns, uint64_t id, uint16_t dport, size_t len)
{
	memset(k, 0, sizeof(*k));
	k->m = (struct ps_meta){ .ts_ns = ts_ns,
				 .cpu = (uint32_t)(id >> 48),
				 .hook = PS_HOOK_XDP,
				 .cap_len = (uint32_t)len,
				 .wire_len = (uint32_t)len };
	udp_frame(k->data, len, dport);
	k->p = (struct ps_sink_pkt){ .target = 0,
				     .m = &k->m,
				     .ts_ns = ts_ns,
				     .data = k->data,
				     .cap_len = (uint32_t)len,
				     .wire_len = (uint32_t)len,
				     .packet_id = id };
}

/* The oldest record into v; false if there is none. */
static bool oldest(const struct ps_flightbuf *b, struct ps_flight_view *v)
{
	struct ps_flightbuf_it it;

	ps_flightbuf_begin(b, &it);
	return ps_flightbuf_next(b, &it, v);
}

/* What was kept is what is read back: metadata, ids, owner, drop words,
 * bytes. */
static void records_read_back_whole(void **state)
{
	struct ps_flightbuf b;
	struct ps_flight_view v;
	struct ps_who who = { .ctx = 3, .known = true, .pid = 42, .tid = 43, .proc = 2 };
	struct ps_drop_words drop = { .reason = "NO_SOCKET", .at = "__udp4_lib_rcv+0x6f2" };
	struct pkt k;

	(void)state;
	snprintf(who.comm, sizeof(who.comm), "ping");
	snprintf(who.container, sizeof(who.container), "web-1");
	snprintf(who.netns, sizeof(who.netns), "host");
	assert_int_equal(ps_flightbuf_init(&b, 1 << 16), 0);
	make(&k, 5 * SEC, 7, 9, 60);
	k.p.who = &who;
	k.p.drop = &drop;
	k.p.drops = 3;
	k.m.verdict = 2;
	assert_int_equal(ps_flightbuf_push(&b, &k.p), 0);
	make(&k, 6 * SEC, 8, 10, 1514);
	assert_int_equal(ps_flightbuf_push(&b, &k.p), 0);
	assert_int_equal(b.count, 2);

	assert_true(oldest(&b, &v));
	assert_int_equal(v.pkt.ts_ns, 5 * SEC);
	assert_int_equal(v.pkt.packet_id, 7);
	assert_int_equal(v.pkt.drops, 3);
	assert_int_equal(v.pkt.cap_len, 60);
	assert_int_equal(v.m.verdict, 2);
	assert_non_null(v.pkt.who);
	assert_string_equal(v.who.comm, "ping");
	assert_string_equal(v.who.container, "web-1");
	assert_string_equal(v.who.cgroup, "");
	assert_string_equal(v.who.netns, "host");
	assert_int_equal(v.who.pid, 42);
	assert_int_equal(v.who.tid, 43);
	assert_int_equal(v.who.proc, 2);
	assert_true(v.who.known);
	assert_non_null(v.pkt.drop);
	assert_string_equal(v.drop.reason, "NO_SOCKET");
	assert_string_equal(v.drop.at, "__udp4_lib_rcv+0x6f2");
	assert_int_equal(v.pkt.data[37], 9);
	ps_flightbuf_pop(&b);

	assert_true(oldest(&b, &v));
	assert_null(v.pkt.who);
	assert_null(v.pkt.drop);
	assert_int_equal(v.pkt.cap_len, 1514);
	make(&k, 6 * SEC, 8, 10, 1514);
	assert_memory_equal(v.pkt.data, k.data, 1514);
	ps_flightbuf_pop(&b);
	assert_false(oldest(&b, &v));
	assert_int_equal(b.bytes, 0);
	ps_flightbuf_free(&b);
}

/* Against a model queue: records of every size, wrapping around the end
 * many times, come back oldest first; the memory is never overrun; what
 * was given up for room is counted, oldest first. */
static void wraps_in_order_within_bounds(void **state)
{
	enum { N = 20000 };
	static uint64_t model[N];
	size_t lo = 0, hi = 0;
	struct ps_flightbuf b;
	struct ps_flight_view v;
	struct ps_flightbuf_it it;
	struct pkt k;
	uint64_t evicted = 0;

	(void)state;
	srand(7);
	assert_int_equal(ps_flightbuf_init(&b, 32768), 0);
	for (uint64_t i = 0; i < N; i++) {
		size_t len = 42 + (size_t)(rand() % 1400);

		make(&k, i * MS, i, 9, len);
		assert_int_equal(ps_flightbuf_push(&b, &k.p), 0);
		model[hi++] = i;
		assert_true(b.bytes <= b.size);
		/* What went is the oldest of the model. */
		lo += b.evicted - evicted;
		evicted = b.evicted;
		assert_int_equal(b.count, hi - lo);
		if (i % 97 == 0) {
			size_t j = lo;

			ps_flightbuf_begin(&b, &it);
			while (ps_flightbuf_next(&b, &it, &v)) {
				assert_int_equal(v.pkt.packet_id, model[j]);
				assert_int_equal(v.pkt.data[37], 9);
				j++;
			}
			assert_int_equal(j, hi);
		}
	}
	assert_true(b.evicted > N / 2);
	/* Time: those before 19.990 s go. */
	ps_flightbuf_expire(&b, (N - 10) * MS);
	assert_int_equal(b.count, 10);
	assert_true(oldest(&b, &v));
	assert_int_equal(v.pkt.packet_id, N - 10);
	ps_flightbuf_free(&b);
}

static void too_big_is_counted(void **state)
{
	struct ps_flightbuf b;
	struct pkt k;

	(void)state;
	assert_int_equal(ps_flightbuf_init(&b, 1024), 0); /* raised to 4 KiB */
	make(&k, SEC, 1, 9, 1500);
	for (int i = 0; i < 3; i++)
		assert_int_equal(ps_flightbuf_push(&b, &k.p), 0);
	assert_int_equal(b.count, 2);
	assert_int_equal(b.evicted, 1);
	k.p.cap_len = 5000; /* a snaplen larger than the memory */
	assert_int_equal(ps_flightbuf_push(&b, &k.p), -E2BIG);
	assert_int_equal(b.too_big, 1);
	assert_int_equal(b.count, 2);
	ps_flightbuf_free(&b);
}

static void triggers_parse_and_match(void **state)
{
	struct ps_trigger t;
	struct ps_drop_words drop = { .reason = "NO_SOCKET", .at = "x" };
	char err[256];
	struct pkt k;

	(void)state;
	assert_int_equal(ps_trigger_parse(&t, "drop", 262144, err, sizeof(err)), 0);
	assert_int_equal(t.kind, PS_TRIGGER_DROP);
	assert_null(t.reason);
	make(&k, SEC, 1, 9, 60);
	assert_false(ps_trigger_match(&t, &k.p, LT_ETHERNET));
	k.p.drop = &drop;
	assert_true(ps_trigger_match(&t, &k.p, LT_RAW));

	assert_int_equal(ps_trigger_parse(&t, "drop:SKB_DROP_REASON_NO_SOCKET", 262144, err,
					  sizeof(err)),
			 0);
	assert_string_equal(t.reason, "NO_SOCKET");
	assert_true(ps_trigger_match(&t, &k.p, LT_RAW));
	drop.reason = "TCP_CSUM";
	assert_false(ps_trigger_match(&t, &k.p, LT_RAW));
	assert_int_equal(ps_trigger_parse(&t, "drop:no socket", 262144, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "no drop reason"));
	assert_int_equal(ps_trigger_parse(&t, "drop:", 262144, err, sizeof(err)), -EINVAL);

	assert_int_equal(ps_trigger_parse(&t, "udp port", 262144, err, sizeof(err)), -EINVAL);
	assert_int_equal(ps_trigger_parse(&t, "udp dst port 9", 262144, err, sizeof(err)), 0);
	assert_int_equal(t.kind, PS_TRIGGER_FILTER);
	make(&k, SEC, 1, 9, 60);
	assert_true(ps_trigger_match(&t, &k.p, LT_ETHERNET));
	make(&k, SEC, 1, 10, 60);
	assert_false(ps_trigger_match(&t, &k.p, LT_ETHERNET));
	/* Raw IP (a drop hook's, a tun's): compiled for it when first met. */
	make(&k, SEC, 1, 9, 60);
	k.p.data += 14, k.p.cap_len -= 14, k.p.wire_len -= 14;
	assert_true(ps_trigger_match(&t, &k.p, LT_RAW));
	ps_trigger_free(&t);
	/* An Ethernet address cannot apply to raw IP: never there. */
	assert_int_equal(ps_trigger_parse(&t, "ether src 0:0:0:0:0:0", 262144, err, sizeof(err)),
			 0);
	assert_false(ps_trigger_match(&t, &k.p, LT_RAW));
	ps_trigger_free(&t);
}

/* The file's sink, as the recorder sees it: what it was given. */
struct fake_file {
	struct ps_sink sink;
	uint64_t ids[4096];
	uint64_t ts[4096];
	char notes[8][64];
	uint64_t note_ids[8];
	int n, n_notes, rounds, files, closed;
};

static int fake_packet(struct ps_sink *s, const struct ps_sink_pkt *p)
{
	struct fake_file *f = ps_sink_of(s, struct fake_file, sink);

	assert_non_null(p->t);
	f->ids[f->n] = p->packet_id;
	f->ts[f->n++] = p->ts_ns;
	if (p->note) {
		snprintf(f->notes[f->n_notes], sizeof(f->notes[0]), "%s", p->note);
		f->note_ids[f->n_notes++] = p->packet_id;
	}
	return 0;
}

static int fake_round(struct ps_sink *s)
{
	ps_sink_of(s, struct fake_file, sink)->rounds++;
	return 0;
}

static int fake_close(struct ps_sink *s, bool ok)
{
	(void)ok;
	ps_sink_of(s, struct fake_file, sink)->closed++;
	return 0;
}

static const struct ps_sink_ops fake_ops = { fake_packet, fake_round, fake_close };

static int fake_next(void *arg)
{
	((struct fake_file *)arg)->files++;
	return 0;
}

static struct fake_file file;
static struct ps_target targets[1] = { { .linktype = LT_ETHERNET } };

static void start_flight(struct ps_flight *fl, uint64_t holdoff_ns, uint32_t incidents)
{
	const struct ps_flight_cfg cfg = {
		.window_ns = 3 * SEC,
		.size = 1 << 20,
		.after_ns = 1 * SEC,
		.holdoff_ns = holdoff_ns,
		.incidents = incidents,
		.triggers = { "udp dst port 9" },
		.n_triggers = 1,
		.snaplen = 262144,
	};
	const struct ps_flight_out out = { &file.sink, fake_next, NULL, &file };
	char err[256];

	memset(&file, 0, sizeof(file));
	file.sink.ops = &fake_ops;
	assert_int_equal(ps_flight_init(fl, &cfg, &out, targets, err, sizeof(err)), 0);
}

/* Packets every 100 ms from 0 s; dport 9 at the given times (ms). */
static void feed(struct ps_flight *fl, uint64_t from_ms, uint64_t to_ms, const uint64_t *trig,
		 int n_trig)
{
	struct ps_sink *s = ps_flight_sink(fl);
	struct pkt k;

	for (uint64_t t = from_ms; t < to_ms; t += 100) {
		uint16_t port = 10;

		for (int i = 0; i < n_trig; i++)
			if (trig[i] == t)
				port = 9;
		make(&k, 100 * SEC + t * MS, t, port, 60);
		assert_int_equal(s->ops->packet(s, &k.p), 0);
		assert_int_equal(s->ops->round(s), 0);
	}
}

/* One incident: nothing before the trigger; then 3 s before it and 1 s
 * after, the trigger packet marked, in one file. */
static void an_incident_is_its_window(void **state)
{
	struct ps_flight fl;
	struct ps_flight_stats st;
	const uint64_t trig[] = { 8000 };

	(void)state;
	start_flight(&fl, 0, 0);
	feed(&fl, 0, 8000, trig, 1);
	assert_int_equal(file.n, 0);
	assert_int_equal(fl.buf.count, 31); /* the last 3 s: 5.0 .. 7.9 */
	feed(&fl, 8000, 9100, trig, 1);
	assert_int_equal(file.n, 0); /* 9.0 s: still inside */
	feed(&fl, 9100, 9200, trig, 1);
	/* 5.0 s .. 9.0 s: 41 packets. */
	assert_int_equal(file.n, 41);
	assert_int_equal(file.ts[0], 105 * SEC);
	assert_int_equal(file.ts[40], 109 * SEC);
	for (int i = 1; i < file.n; i++)
		assert_true(file.ts[i] > file.ts[i - 1]);
	assert_int_equal(file.n_notes, 1);
	assert_string_equal(file.notes[0], "trigger=udp dst port 9");
	assert_int_equal(file.note_ids[0], 8000);
	assert_int_equal(file.files, 0); /* the first incident: -w's own file */
	assert_true(file.rounds >= 1);
	ps_flight_stats(&fl, &st);
	assert_int_equal(st.incidents, 1);
	assert_int_equal(st.held, 1); /* 9.1 s, for the next */
	ps_flight_sink(&fl)->ops->close(ps_flight_sink(&fl), true);
	assert_int_equal(file.closed, 1);
	ps_flight_free(&fl);
}

/* A trigger during an incident or its holdoff starts none and is counted;
 * after the holdoff one does, in a new file; --incidents ends it. */
static void holdoff_and_incidents(void **state)
{
	struct ps_flight fl;
	struct ps_flight_stats st;
	const uint64_t trig[] = { 4000, 4500, 6000, 12000 };

	(void)state;
	start_flight(&fl, 5 * SEC, 2);
	feed(&fl, 0, 20000, trig, 4);
	ps_flight_stats(&fl, &st);
	/* 4.0 s: the first; 4.5 during it, 6.0 in its holdoff (to 10.0). */
	assert_int_equal(st.incidents, 2);
	assert_int_equal(st.triggers_ignored, 2);
	assert_int_equal(file.files, 1);
	assert_int_equal(file.n_notes, 2);
	assert_int_equal(file.note_ids[1], 12000);
	/* The second is 9.0 .. 13.0 s. */
	assert_int_equal(file.ts[file.n - 1], 113 * SEC);
	assert_int_equal(ps_flight_tick(&fl, 120 * SEC, SEC), 1); /* --incidents 2 */
	ps_flight_free(&fl);
}

/* SIGUSR2: an incident at the clock's time; a quiet link's incident ends
 * on the clock, once the merge can hold nothing more of it. */
static void by_hand_on_a_quiet_link(void **state)
{
	struct ps_flight fl;

	(void)state;
	start_flight(&fl, 0, 0);
	feed(&fl, 0, 2000, NULL, 0);
	ps_flight_trigger_now(&fl, 102 * SEC);
	ps_flight_trigger_now(&fl, 102 * SEC + 1); /* during it: counted */
	assert_int_equal(ps_flight_due_ns(&fl, SEC), 104 * SEC + 1);
	assert_int_equal(ps_flight_tick(&fl, 103 * SEC + 500 * MS, SEC), 0);
	assert_int_equal(file.n, 0);
	assert_int_equal(ps_flight_tick(&fl, 104 * SEC + 1, SEC), 0);
	assert_int_equal(file.n, 20); /* 0.0 .. 1.9 s */
	assert_int_equal(file.n_notes, 0);
	assert_int_equal(fl.st.triggers_ignored, 1);
	assert_int_equal(ps_flight_due_ns(&fl, SEC), 0);
	/* Waiting, the clock lets old packets go. */
	feed(&fl, 2000, 2500, NULL, 0);
	ps_flight_tick(&fl, 110 * SEC, SEC);
	assert_int_equal(fl.buf.count, 0);
	ps_flight_free(&fl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(records_read_back_whole),
		cmocka_unit_test(wraps_in_order_within_bounds),
		cmocka_unit_test(too_big_is_counted),
		cmocka_unit_test(triggers_parse_and_match),
		cmocka_unit_test(an_incident_is_its_window),
		cmocka_unit_test(holdoff_and_incidents),
		cmocka_unit_test(by_hand_on_a_quiet_link),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
