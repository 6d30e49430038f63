// SPDX-License-Identifier: GPL-2.0-only
/*
 * A followed packet's records (user/ingest/pathseen.h): each after the first
 * learns where the one before it was written and when; a packet whose slot
 * another took learns nothing false.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <setjmp.h>
#include <cmocka.h>
#include "pathseen.h"
#include "pktsample.h"

#define ID(cpu, seq) ((uint64_t)(cpu) << 48 | (seq))

static void each_record_learns_the_one_before(void **state)
{
	struct ps_pathseen *t = calloc(1, sizeof(*t));
	struct ps_pathseen_slot prev = { 0 };

	(void)state;
	assert_non_null(t);
	assert_false(ps_pathseen_swap(t, ID(1, 7), PS_HOOK_TC_INGRESS, 4, 1000, &prev));
	assert_true(ps_pathseen_swap(t, ID(1, 7), PS_HOOK_TC_EGRESS, 5, 1500, &prev));
	assert_int_equal(prev.hook, PS_HOOK_TC_INGRESS);
	assert_int_equal(prev.ifindex, 4);
	assert_int_equal(prev.ts_ns, 1000);
	/* The third learns of the second, not the first. */
	assert_true(ps_pathseen_swap(t, ID(1, 7), PS_HOOK_DROP, 5, 1900, &prev));
	assert_int_equal(prev.hook, PS_HOOK_TC_EGRESS);
	assert_int_equal(prev.ts_ns, 1500);
	/* Another packet is news, CPU 0's sequence 0 too. */
	assert_false(ps_pathseen_swap(t, ID(0, 0), PS_HOOK_TC_INGRESS, 4, 2000, &prev));
	assert_false(ps_pathseen_swap(t, ID(2, 7), PS_HOOK_TC_INGRESS, 4, 2100, &prev));
	free(t);
}

static void a_slot_taken_says_nothing(void **state)
{
	struct ps_pathseen *t = calloc(1, sizeof(*t));
	struct ps_pathseen_slot prev = { 0 };
	uint64_t other = 0;

	(void)state;
	assert_non_null(t);
	assert_false(ps_pathseen_swap(t, ID(0, 1), PS_HOOK_TC_INGRESS, 4, 10, &prev));
	/* Find an id that falls in the same slot, and write it. */
	for (uint64_t seq = 2; !other && seq < 1000000; seq++) {
		struct ps_pathseen probe = *t;
		struct ps_pathseen_slot p;

		ps_pathseen_swap(&probe, ID(0, seq), PS_HOOK_TC_INGRESS, 4, 20, &p);
		if (!ps_pathseen_swap(&probe, ID(0, 1), PS_HOOK_TC_EGRESS, 5, 30, &p))
			other = ID(0, seq);
	}
	assert_true(other != 0);
	assert_false(ps_pathseen_swap(t, other, PS_HOOK_TC_INGRESS, 4, 20, &prev));
	assert_false(ps_pathseen_swap(t, ID(0, 1), PS_HOOK_TC_EGRESS, 5, 30, &prev));
	/* Ids of one CPU's consecutive packets take slots of their own. */
	for (uint64_t seq = 100; seq < 100 + PS_PATHSEEN_SLOTS; seq++)
		ps_pathseen_swap(t, ID(1, seq), PS_HOOK_TC_INGRESS, 4, seq, &prev);
	for (uint64_t seq = 100; seq < 100 + PS_PATHSEEN_SLOTS; seq++)
		assert_true(ps_pathseen_swap(t, ID(1, seq), PS_HOOK_TC_EGRESS, 5, seq + 1, &prev));
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(each_record_learns_the_one_before),
		cmocka_unit_test(a_slot_taken_says_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
