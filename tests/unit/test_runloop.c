// SPDX-License-Identifier: GPL-2.0-only
/*
 * The run loop (user/util/runloop.h): sources run in the order they
 * registered, one with an fd when it is readable, a timer at its time and
 * never before, every-round ones each round; a source's value ends the
 * loop, and so does the stop flag. Timing is only ever asserted as "not
 * before", so a loaded machine cannot fail it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <cmocka.h>
#include "runloop.h"

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct probe {
	char order[64]; /* a letter per run, in order */
	char letter;
	int runs, end_after; /* end_after runs: return 7 */
	int fd;		     /* read it empty when run */
	uint64_t due, ran_at;
	volatile sig_atomic_t *stop_after; /* set it at its first run */
	struct probe *log;		   /* where order goes */
};

static int probe_run(void *arg, uint64_t now)
{
	struct probe *p = arg;
	uint64_t v;
	size_t n = strlen(p->log->order);

	if (p->fd >= 0)
		(void)!read(p->fd, &v, sizeof(v));
	if (n + 1 < sizeof(p->log->order))
		p->log->order[n] = p->letter;
	p->ran_at = now;
	p->runs++;
	if (p->stop_after)
		*p->stop_after = 1;
	return p->end_after && p->runs >= p->end_after ? 7 : 0;
}

static uint64_t probe_due(void *arg, uint64_t now)
{
	struct probe *p = arg;

	(void)now;
	return p->runs ? 0 : p->due;
}

/* An fd source runs when readable, in registration order with the
 * every-round ones; a timer runs at its time, not before; 7 ends it. */
static void fds_timers_and_order(void **state)
{
	struct probe log = { 0 }, a = { .letter = 'a', .log = &log },
		     b = { .letter = 'b', .log = &log, .end_after = 3, .fd = -1 },
		     t = { .letter = 't', .log = &log, .fd = -1 };
	volatile sig_atomic_t stop = 0;
	struct ps_runloop l;
	uint64_t one = 1, start;

	(void)state;
	a.fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	assert_true(a.fd >= 0);
	assert_int_equal(ps_runloop_init(&l, 50), 0);
	assert_int_equal(ps_runloop_add(&l,
					&(struct ps_run_src){ a.fd, false, probe_run, NULL, &a }),
			 0);
	assert_int_equal(ps_runloop_add(&l, &(struct ps_run_src){ -1, false, probe_run, probe_due,
								  &t }),
			 0);
	assert_int_equal(ps_runloop_add(&l, &(struct ps_run_src){ -1, true, probe_run, NULL, &b }),
			 0);
	assert_int_equal(write(a.fd, &one, sizeof(one)), sizeof(one));
	start = mono_ns();
	t.due = start + 20000000ull; /* 20 ms on */
	assert_int_equal(ps_runloop_run(&l, &stop), 7);
	/* Round 1: a (ready) and b; round 2, once the timer is due (the
	 * loop sleeps until then): t, then b; round 3: b, its third, ends. */
	assert_string_equal(log.order, "abtbb");
	assert_int_equal(a.runs, 1);
	assert_int_equal(t.runs, 1);
	assert_true(t.ran_at >= t.due);
	ps_runloop_free(&l);
	close(a.fd);
}

/* Nothing ready and no timer: the loop sleeps its idle time, then runs
 * the every-round ones; the stop flag ends it with 0, the round whole. */
static void idle_and_stop(void **state)
{
	struct probe log = { 0 }, s = { .letter = 's', .log = &log, .fd = -1 },
		     after = { .letter = 'z', .log = &log, .fd = -1 };
	volatile sig_atomic_t stop = 0;
	struct ps_runloop l;
	uint64_t start;

	(void)state;
	s.stop_after = &stop;
	assert_int_equal(ps_runloop_init(&l, 30), 0);
	assert_int_equal(ps_runloop_add(&l, &(struct ps_run_src){ -1, true, probe_run, NULL, &s }),
			 0);
	assert_int_equal(ps_runloop_add(&l,
					&(struct ps_run_src){ -1, true, probe_run, NULL, &after }),
			 0);
	start = mono_ns();
	assert_int_equal(ps_runloop_run(&l, &stop), 0);
	assert_true(mono_ns() - start >= 30000000ull); /* it slept first */
	assert_string_equal(log.order, "sz");
	ps_runloop_free(&l);
}

/* At most PS_RUNLOOP_MAX sources; a bad fd is the loop's error. */
static void limits(void **state)
{
	struct probe log = { 0 }, p = { .letter = 'p', .log = &log, .fd = -1 };
	struct ps_runloop l;

	(void)state;
	assert_int_equal(ps_runloop_init(&l, 10), 0);
	assert_int_equal(ps_runloop_add(&l,
					&(struct ps_run_src){ 12345, false, probe_run, NULL, &p }),
			 -EBADF);
	for (int i = 0; i < PS_RUNLOOP_MAX; i++)
		assert_int_equal(ps_runloop_add(&l, &(struct ps_run_src){ -1, true, probe_run, NULL,
									  &p }),
				 0);
	assert_int_equal(ps_runloop_add(&l, &(struct ps_run_src){ -1, true, probe_run, NULL, &p }),
			 -E2BIG);
	ps_runloop_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fds_timers_and_order),
		cmocka_unit_test(idle_and_stop),
		cmocka_unit_test(limits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
