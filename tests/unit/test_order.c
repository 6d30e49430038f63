// SPDX-License-Identifier: GPL-2.0-only
/*
 * The merge (user/ingest/order.c) on synthetic per-CPU streams: simulated rounds
 * in which CPUs emit, go silent, burst and are caught in flight, checked
 * for order, completeness and the bounds the header promises.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "order.h"

#define NCPU 4
#define SKEW 1000

static void push(struct ps_order *o, int cpu, uint64_t ts, uint32_t id)
{
	struct ps_order_rec *r = ps_order_reserve(o, cpu, sizeof(id));

	assert_non_null(r);
	r->ts = ts;
	r->drops = 0;
	memcpy(r->data, &id, sizeof(id));
	ps_order_commit(o, r);
}

/* Hand out everything final; returns how many, checks the order. */
static int release(struct ps_order *o, uint64_t limit, uint64_t *last, uint8_t *seen)
{
	const struct ps_order_rec *r;
	int n = 0;

	while ((r = ps_order_peek(o)) && r->ts <= limit) {
		uint32_t id;

		memcpy(&id, r->data, sizeof(id));
		assert_true(r->ts >= *last);
		assert_int_equal(seen[id], 0); /* never twice */
		seen[id] = 1;
		*last = r->ts;
		ps_order_pop(o);
		n++;
	}
	return n;
}

static void merges_sorted_streams(void **state)
{
	struct ps_order o;
	static const uint64_t ts[NCPU][4] = {
		{ 10, 40, 70, 100 },
		{ 20, 50, 80, 110 },
		{ 5, 6, 7, 200 },
		{ 30, 30, 30, 30 },
	};
	uint8_t seen[16] = { 0 };
	uint64_t last = 0;

	(void)state;
	assert_int_equal(ps_order_init(&o, NCPU, 1 << 20), 0);
	/* A CPU at a time, as the perf buffers are read. */
	for (int c = 0; c < NCPU; c++)
		for (int i = 0; i < 4; i++)
			push(&o, c, ts[c][i], c * 4 + i);
	assert_int_equal(o.records, 16);
	/* Floors are the last timestamps: 100, 110, 200, 30. */
	assert_int_equal(ps_order_watermark(&o), 30);
	assert_int_equal(release(&o, ps_order_watermark(&o), &last, seen), 9);
	for (int c = 0; c < NCPU; c++)
		ps_order_settle(&o, c, 150);
	assert_int_equal(ps_order_watermark(&o), 150);
	assert_int_equal(release(&o, ps_order_watermark(&o), &last, seen), 6);
	assert_int_equal(release(&o, UINT64_MAX, &last, seen), 1);
	assert_int_equal(o.records, 0);
	assert_int_equal(o.held, 0);
	assert_int_equal(o.late, 0);
	ps_order_free(&o);
}

/* A CPU that has said nothing holds back everything until it is settled. */
static void silent_cpu_holds_back_until_settled(void **state)
{
	struct ps_order o;
	uint8_t seen[8] = { 0 };
	uint64_t last = 0;

	(void)state;
	assert_int_equal(ps_order_init(&o, 2, 1 << 20), 0);
	push(&o, 0, 1000000000ull, 0);
	push(&o, 0, 3000000000ull, 1);
	assert_int_equal(ps_order_watermark(&o), 0);
	assert_int_equal(release(&o, ps_order_watermark(&o), &last, seen), 0);
	/* Seconds later, the silent CPU is settled: not before. */
	ps_order_settle(&o, 1, 2000000000ull);
	assert_int_equal(release(&o, ps_order_watermark(&o), &last, seen), 1);
	ps_order_settle(&o, 1, 5000000000ull);
	assert_int_equal(release(&o, ps_order_watermark(&o), &last, seen), 1);
	/* Settling never lowers a floor. */
	ps_order_settle(&o, 1, 1);
	assert_int_equal(ps_order_watermark(&o), 3000000000ull);
	ps_order_free(&o);
}

/* A refused push leaves nothing behind; the caller writes the earliest. */
static void refuses_past_the_memory_bound(void **state)
{
	size_t rec = ps_order_rec_size(sizeof(uint32_t));
	struct ps_order o;
	uint8_t seen[8] = { 0 };
	uint64_t last = 0;

	(void)state;
	assert_int_equal(ps_order_init(&o, 2, 3 * rec), 0);
	push(&o, 0, 10, 0);
	push(&o, 1, 5, 1);
	push(&o, 0, 20, 2);
	errno = 0;
	assert_null(ps_order_reserve(&o, 1, sizeof(uint32_t)));
	assert_int_equal(errno, ENOBUFS);
	assert_int_equal(o.held, 3 * rec);
	assert_int_equal(release(&o, 5, &last, seen), 1); /* forced: the earliest */
	push(&o, 1, 15, 3);
	assert_int_equal(o.peak_held, 3 * rec);
	assert_int_equal(release(&o, UINT64_MAX, &last, seen), 3);
	assert_int_equal(last, 20);
	ps_order_free(&o);
}

/* A stream that goes backwards (it should not) is still written, counted. */
static void counts_what_comes_late(void **state)
{
	struct ps_order o;

	(void)state;
	assert_int_equal(ps_order_init(&o, 2, 1 << 20), 0);
	push(&o, 0, 100, 0);
	ps_order_pop(&o);
	push(&o, 1, 50, 1);
	assert_int_equal(ps_order_peek(&o)->ts, 50);
	ps_order_pop(&o);
	assert_int_equal(o.late, 1);
	assert_int_equal(o.last_ts, 100);
	ps_order_free(&o);
}

/*
 * Rounds as the ingest runs them, on a simulated kernel: every CPU has a
 * stream of timestamps (bursts, long silences, ties); a sample reaches its
 * buffer some time after its timestamp (the in-flight gap, sometimes long);
 * a round at time `now` reads every sample already in a buffer, then settles
 * each CPU that had nothing in flight at now - SKEW. Every sample comes out
 * once, in order, and the merge never holds more than a few rounds' worth.
 */
struct sim_sample {
	uint64_t ts;	  /* stamped */
	uint64_t arrives; /* in the buffer */
};

static void rounds_on_a_simulated_kernel(void **state)
{
	enum { PER_CPU = 20000, TOTAL = NCPU * PER_CPU };
	struct sim_sample *s = calloc(TOTAL, sizeof(*s));
	uint8_t *seen = calloc(TOTAL, 1);
	size_t next[NCPU] = { 0 };
	uint64_t last = 0, now, written = 0, max_wait = 0;
	struct ps_order o;
	unsigned int seed = 12345;

	(void)state;
	for (int c = 0; c < NCPU; c++) {
		uint64_t t = 1000000, prev_arrival = 0;

		for (int i = 0; i < PER_CPU; i++) {
			struct sim_sample *x = &s[c * PER_CPU + i];
			unsigned int r = rand_r(&seed) % 1000;

			/* CPU 3 is silent for seconds between bursts. */
			if (c == 3 && i % 5000 == 0)
				t += 3000000000ull;
			else if (r < 900)
				t += rand_r(&seed) % 50; /* burst, ties too */
			else if (r < 995)
				t += rand_r(&seed) % 20000;
			else
				t += 50000000; /* 50 ms pause */
			/* One program at a time per CPU: the next sample is
			 * stamped after the previous one is in the buffer. */
			if (t < prev_arrival)
				t = prev_arrival;
			x->ts = t;
			/* Usually sub-microsecond; 1 in 500 stuck in flight for
			 * up to 20 ms (an interrupt, a preempted vCPU). In order
			 * per CPU: one program at a time. */
			x->arrives = t + (rand_r(&seed) % 500 ? rand_r(&seed) % 800 :
								rand_r(&seed) % 20000000);
			prev_arrival = x->arrives;
		}
	}
	assert_int_equal(ps_order_init(&o, NCPU, 64 << 20), 0);
	for (now = 0; written < TOTAL; now += 1 + rand_r(&seed) % 3000000) {
		bool in_flight[NCPU];

		/* In flight: stamped by now, not yet in the buffer. */
		for (int c = 0; c < NCPU; c++) {
			size_t i = next[c];

			while (i < PER_CPU && s[c * PER_CPU + i].arrives <= now)
				i++;
			in_flight[c] = i < PER_CPU && s[c * PER_CPU + i].ts <= now;
		}
		/* Read every buffer: what arrived by now. */
		for (int c = 0; c < NCPU; c++)
			while (next[c] < PER_CPU && s[c * PER_CPU + next[c]].arrives <= now) {
				push(&o, c, s[c * PER_CPU + next[c]].ts, c * PER_CPU + next[c]);
				next[c]++;
			}
		for (int c = 0; c < NCPU; c++)
			if (!in_flight[c] && now > SKEW)
				ps_order_settle(&o, c, now - SKEW);
		while (ps_order_peek(&o) && ps_order_peek(&o)->ts <= ps_order_watermark(&o)) {
			uint64_t wait = now - ps_order_peek(&o)->ts;

			if (wait > max_wait)
				max_wait = wait;
			written += release(&o, ps_order_peek(&o)->ts, &last, seen);
		}
		if (now > 100000000000ull)
			fail_msg("stuck: %llu of %d written", (unsigned long long)written, TOTAL);
	}
	assert_int_equal(written, TOTAL);
	assert_int_equal(o.late, 0);
	for (int i = 0; i < TOTAL; i++)
		assert_int_equal(seen[i], 1);
	/* Nothing waits much longer than its own flight and two rounds. */
	assert_true(max_wait < 20000000ull + 2 * 3000000ull + SKEW);
	ps_order_free(&o);
	free(seen);
	free(s);
}

/*
 * A record passes the queue only when nothing is held and every other CPU
 * is settled past it; then it counts as its CPU's delivery, so another
 * CPU's later pass or push still lands in order.
 */
static void passes_only_what_is_final(void **state)
{
	struct ps_order o;
	const struct ps_order_rec *r;

	(void)state;
	assert_int_equal(ps_order_init(&o, NCPU, 1 << 20), 0);
	/* The others settled at 100: CPU 0's 50 and 100 pass, 101 does not. */
	for (int cpu = 1; cpu < NCPU; cpu++)
		ps_order_settle(&o, cpu, 100);
	assert_true(ps_order_pass(&o, 0, 50));
	assert_true(ps_order_pass(&o, 0, 100));
	assert_false(ps_order_pass(&o, 0, 101));
	/* Its floor rose with what passed: CPU 1 cannot pass 80 past it. */
	assert_false(ps_order_pass(&o, 1, 80 + 100));
	assert_true(ps_order_pass(&o, 1, 100));
	/* One held record: nothing passes until it is handed out. */
	push(&o, 2, 150, 1);
	for (int cpu = 1; cpu < NCPU; cpu++)
		ps_order_settle(&o, cpu, 1000);
	ps_order_settle(&o, 0, 1000);
	assert_false(ps_order_pass(&o, 3, 200));
	r = ps_order_peek(&o);
	assert_non_null(r);
	assert_int_equal(r->ts, 150);
	ps_order_pop(&o);
	/* A floor that rose is seen: 900 passes now. */
	assert_true(ps_order_pass(&o, 3, 900));
	assert_int_equal(o.late, 0);
	/* Passed after a later one: counted late, as a pop would be. */
	ps_order_settle(&o, 3, 5000);
	for (int cpu = 0; cpu < NCPU; cpu++)
		ps_order_settle(&o, cpu, 5000);
	assert_true(ps_order_pass(&o, 2, 800));
	assert_int_equal(o.late, 1);
	ps_order_free(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(merges_sorted_streams),
		cmocka_unit_test(silent_cpu_holds_back_until_settled),
		cmocka_unit_test(refuses_past_the_memory_bound),
		cmocka_unit_test(counts_what_comes_late),
		cmocka_unit_test(rounds_on_a_simulated_kernel),
		cmocka_unit_test(passes_only_what_is_final),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
