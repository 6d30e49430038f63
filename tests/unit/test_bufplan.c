// SPDX-License-Identifier: GPL-2.0-only
/* The kernel's buffers from -B (user/ingest/bufplan.h): pure arithmetic. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "bufplan.h"

static void buffer_pages_are_powers_of_two(void **state)
{
	(void)state;
	assert_int_equal(ps_buffer_pages(4, 4096), 1);
	assert_int_equal(ps_buffer_pages(5, 4096), 2);
	assert_int_equal(ps_buffer_pages(4096, 4096), 1024);
	assert_int_equal(ps_buffer_pages(3000, 4096), 1024);
}

/* -B is the total, as tcpdump's: the per-CPU buffers (perf or ring)
 * share it, each a power of two within its share. */
static void buffer_plan_shares_the_total(void **state)
{
	struct ps_buffer_plan p;

	(void)state;
	ps_buffer_plan(16384, 2, 4096, &p);
	assert_int_equal(p.per_cpu_kib, 8192);
	assert_int_equal(p.total_kib, 16384);
	ps_buffer_plan(16384, 3, 4096, &p); /* 5461 each: 4096 */
	assert_int_equal(p.per_cpu_kib, 4096);
	assert_int_equal(p.total_kib, 12288);
	ps_buffer_plan(10000, 1, 4096, &p);
	assert_int_equal(p.per_cpu_kib, 8192);
	ps_buffer_plan(4, 64, 4096, &p); /* never below a page */
	assert_int_equal(p.per_cpu_kib, 4);
	/* The default: 32 MiB per CPU, at most 256 MiB in all. */
	ps_buffer_plan(0, 2, 4096, &p);
	assert_int_equal(p.per_cpu_kib, 32768);
	ps_buffer_plan(0, 128, 4096, &p);
	assert_int_equal(p.per_cpu_kib, 2048);
	assert_int_equal(p.total_kib, 256 << 10);
}

/* A ring serves as few CPUs as give it 4 MiB, within -B; a ring a CPU
 * wherever each gets that much. */
static void buffer_plan_groups_cpus_per_ring(void **state)
{
	struct ps_buffer_plan p;

	(void)state;
	ps_buffer_plan(0, 2, 4096, &p); /* the default: a ring each */
	assert_int_equal(p.ring_cpus, 1);
	assert_int_equal(p.ring_kib, 32768);
	ps_buffer_plan(8192, 2, 4096, &p);
	assert_int_equal(p.ring_cpus, 1);
	assert_int_equal(p.ring_kib, 4096);
	ps_buffer_plan(4096, 2, 4096, &p); /* tcpdump's -B: one ring, all of it */
	assert_int_equal(p.ring_cpus, 2);
	assert_int_equal(p.ring_kib, 4096);
	assert_int_equal(p.per_cpu_kib, 2048); /* the perf buffers: each its half */
	ps_buffer_plan(6144, 3, 4096, &p);     /* two rings of 2048 would not do */
	assert_int_equal(p.ring_cpus, 4);
	assert_int_equal(p.ring_kib, 4096);
	ps_buffer_plan(65536, 64, 4096, &p); /* 16 rings of 4 MiB */
	assert_int_equal(p.ring_cpus, 4);
	assert_int_equal(p.ring_kib, 4096);
	ps_buffer_plan(0, 128, 4096, &p); /* 2 MiB a CPU by default: pairs */
	assert_int_equal(p.ring_cpus, 2);
	assert_int_equal(p.ring_kib, 4096);
	ps_buffer_plan(8, 2, 4096, &p); /* never past the CPUs */
	assert_int_equal(p.ring_cpus, 2);
	assert_int_equal(p.ring_kib, 8);
}

/* --transport auto: the rings where a -B given has CPUs share them; the
 * perf buffers at the default, however many CPUs share a ring there. */
static void rings_by_default_where_a_small_b_shares_them(void **state)
{
	struct ps_buffer_plan p;

	(void)state;
	ps_buffer_plan(4096, 2, 4096, &p);
	assert_true(ps_buffer_rings_by_default(&p, 4096));
	ps_buffer_plan(8192, 2, 4096, &p); /* 4 MiB a CPU: no sharing */
	assert_false(ps_buffer_rings_by_default(&p, 8192));
	ps_buffer_plan(2048, 1, 4096, &p); /* one CPU: a ring has no one to share with */
	assert_false(ps_buffer_rings_by_default(&p, 2048));
	ps_buffer_plan(65536, 64, 4096, &p);
	assert_true(ps_buffer_rings_by_default(&p, 65536));
	ps_buffer_plan(0, 128, 4096, &p); /* the default shares pairs, and stays perf */
	assert_int_equal(p.ring_cpus, 2);
	assert_false(ps_buffer_rings_by_default(&p, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(buffer_pages_are_powers_of_two),
		cmocka_unit_test(buffer_plan_shares_the_total),
		cmocka_unit_test(buffer_plan_groups_cpus_per_ring),
		cmocka_unit_test(rings_by_default_where_a_small_b_shares_them),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
