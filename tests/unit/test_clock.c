// SPDX-License-Identifier: GPL-2.0-only
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <time.h>
#include <cmocka.h>
#include "clock.h"

/* A scripted clock: each read returns the next value. */
struct script {
	const int64_t *v;
	int i;
};

static int64_t scripted(int clock_id, void *ctx)
{
	struct script *s = ctx;

	(void)clock_id;
	return s->v[s->i++];
}

static void picks_tightest_bracket(void **state)
{
	/* (mono, real, mono) triples; the second has the narrowest bracket. */
	const int64_t reads[] = {
		1000, 501000, 1400, /* width 400 */
		2000, 502050, 2100, /* width 100: offset 502050 - 2050 = 500000 */
		3000, 503900, 3800, /* width 800 */
	};
	struct script s = { reads, 0 };
	struct ps_clock c;

	(void)state;
	ps_clock_calibrate(&c, 3, scripted, &s);
	assert_int_equal(s.i, 9);
	assert_int_equal(c.offset_ns, 500000);
	assert_int_equal(c.error_ns, 50);
}

static void converts(void **state)
{
	struct ps_clock c = { .offset_ns = 1700000000000000000LL };

	(void)state;
	assert_int_equal(ps_clock_to_realtime(&c, 5), 1700000000000000005ULL);
	c.offset_ns = -10;
	assert_int_equal(ps_clock_to_realtime(&c, 15), 5);
}

static void real_clocks_agree_within_1ms(void **state)
{
	struct ps_clock c;
	struct timespec m, r;
	int64_t mono, real, err;

	(void)state;
	ps_clock_calibrate(&c, 16, ps_clock_read_ns, NULL);
	assert_true(c.error_ns < 1000000);
	clock_gettime(CLOCK_MONOTONIC, &m);
	clock_gettime(CLOCK_REALTIME, &r);
	mono = m.tv_sec * 1000000000LL + m.tv_nsec;
	real = r.tv_sec * 1000000000LL + r.tv_nsec;
	err = (int64_t)ps_clock_to_realtime(&c, mono) - real;
	assert_true(err > -1000000 && err < 1000000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(picks_tightest_bracket),
		cmocka_unit_test(converts),
		cmocka_unit_test(real_clocks_agree_within_1ms),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
