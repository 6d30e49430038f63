// SPDX-License-Identifier: GPL-2.0-only
/*
 * The times of followed packets between hooks (user/ingest/pathtime.h):
 * quantiles within a sixteenth of the truth, each pair apart, the busiest
 * first, and the pairs past the table counted, not mixed in.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>
#include "pathtime.h"
#include "pktsample.h"

static const char *name(void *arg, uint32_t ifindex, uint8_t hook)
{
	(void)arg;
	(void)hook;
	return ifindex == 4 ? "paA" : ifindex == 5 ? "paB" : NULL;
}

static void near(uint64_t got, uint64_t want)
{
	uint64_t d = got > want ? got - want : want - got;

	if (d * 16 > want)
		fail_msg("%llu is not within a sixteenth of %llu", (unsigned long long)got,
			 (unsigned long long)want);
}

static void quantiles_are_near_the_truth(void **state)
{
	struct ps_pathtime *t = calloc(1, sizeof(*t));

	(void)state;
	assert_non_null(t);
	/* 1..1000 us, one each: p50 500 us, p99 990 us. */
	for (uint64_t us = 1; us <= 1000; us++)
		ps_pathtime_add(t, PS_HOOK_TC_INGRESS, 4, PS_HOOK_TC_EGRESS, 5, us * 1000);
	assert_int_equal(t->n, 1);
	assert_int_equal(t->p[0].n, 1000);
	near(ps_pathtime_quantile(&t->p[0], 0.5), 500000);
	near(ps_pathtime_quantile(&t->p[0], 0.99), 990000);
	near(ps_pathtime_quantile(&t->p[0], 1.0), 1000000);
	/* Small times are exact, and a second's as near. */
	memset(t, 0, sizeof(*t));
	ps_pathtime_add(t, PS_HOOK_TC_INGRESS, 4, PS_HOOK_DROP, 4, 3);
	assert_int_equal(ps_pathtime_quantile(&t->p[0], 0.5), 3);
	ps_pathtime_add(t, PS_HOOK_TC_INGRESS, 4, PS_HOOK_DROP, 4, 999999999);
	near(ps_pathtime_quantile(&t->p[0], 1.0), 999999999);
	ps_pathtime_add(t, PS_HOOK_TC_INGRESS, 4, PS_HOOK_DROP, 4, UINT64_MAX);
	assert_true(ps_pathtime_quantile(&t->p[0], 1.0) > UINT64_MAX / 2);
	free(t);
}

static void pairs_apart_busiest_first(void **state)
{
	struct ps_pathtime *t = calloc(1, sizeof(*t));
	char buf[256];

	(void)state;
	assert_non_null(t);
	ps_pathtime_add(t, PS_HOOK_TC_INGRESS, 4, PS_HOOK_TC_EGRESS, 5, 20000);
	for (int i = 0; i < 3; i++)
		ps_pathtime_add(t, PS_HOOK_TC_INGRESS, 5, PS_HOOK_TC_EGRESS, 4, 40000);
	ps_pathtime_add(t, PS_HOOK_TC_INGRESS, 4, PS_HOOK_DROP, 9, 1000);
	assert_int_equal(t->n, 3);
	/* Each the middle of its bucket, not the time itself. */
	ps_pathtime_format(t, " paths ", name, NULL, buf, sizeof(buf));
	assert_string_equal(buf, " paths tc-ingress@paB>tc-egress@paA 3 p50 38.9us p99 38.9us, "
				 "tc-ingress@paA>tc-egress@paB 1 p50 19.5us p99 19.5us, "
				 "tc-ingress@paA>drop@? 1 p50 1.0us p99 1.0us");
	/* Cut short as snprintf cuts, with what it wanted. */
	assert_int_equal(ps_pathtime_format(t, "", name, NULL, buf, 10), (int)strlen(buf) - 7);
	assert_string_equal(buf, "tc-ingres");
	free(t);
}

static void pairs_past_the_table_are_counted(void **state)
{
	struct ps_pathtime *t = calloc(1, sizeof(*t));
	char buf[8];

	(void)state;
	assert_non_null(t);
	ps_pathtime_format(t, "x", name, NULL, buf, sizeof(buf));
	assert_string_equal(buf, "");
	for (uint32_t i = 0; i < PS_PATHTIME_PAIRS + 5; i++)
		ps_pathtime_add(t, PS_HOOK_TC_INGRESS, i, PS_HOOK_TC_EGRESS, i + 1, 100);
	assert_int_equal(t->n, PS_PATHTIME_PAIRS);
	assert_int_equal(t->other, 5);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(quantiles_are_near_the_truth),
		cmocka_unit_test(pairs_apart_busiest_first),
		cmocka_unit_test(pairs_past_the_table_are_counted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
