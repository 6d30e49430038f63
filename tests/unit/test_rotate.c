// SPDX-License-Identifier: GPL-2.0-only
/* Rotation's names and bookkeeping, checked against what tcpdump does. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdlib.h>
#include <cmocka.h>
#include "rotate.h"

#define SEC 1000000000ull

static const char *name_of(struct ps_rotate *r, time_t t)
{
	static char buf[256];

	assert_int_equal(ps_rotate_name(r, t, buf, sizeof(buf)), 0);
	return buf;
}

static void widths_as_tcpdump(void **state)
{
	(void)state;
	/* tcpdump's getWflagChars: the digits of N-1 */
	assert_int_equal(ps_rotate_width(0), 0);
	assert_int_equal(ps_rotate_width(1), 0);
	assert_int_equal(ps_rotate_width(3), 1);
	assert_int_equal(ps_rotate_width(10), 1);
	assert_int_equal(ps_rotate_width(11), 2);
	assert_int_equal(ps_rotate_width(101), 3);
}

/* -C alone: out, out1, out2, ... never wrapping. */
static void size_names(void **state)
{
	struct ps_rotate r;

	(void)state;
	ps_rotate_init(&r, "out", 1000000, 0, 0, 0);
	assert_true(ps_rotate_active(&r));
	assert_string_equal(name_of(&r, 0), "out");
	assert_false(ps_rotate_size_due(&r, 1000000)); /* tcpdump: more than -C */
	assert_true(ps_rotate_size_due(&r, 1000001));
	ps_rotate_next_size(&r);
	assert_string_equal(name_of(&r, 0), "out1");
	for (int i = 0; i < 10; i++)
		ps_rotate_next_size(&r);
	assert_string_equal(name_of(&r, 0), "out11");
}

/* -C with -W 3: a ring of out0, out1, out2. */
static void size_ring(void **state)
{
	const char *want[] = { "out0", "out1", "out2", "out0", "out1" };
	struct ps_rotate r;

	(void)state;
	ps_rotate_init(&r, "out", 1000000, 0, 3, 0);
	for (int i = 0; i < 5; i++) {
		assert_string_equal(name_of(&r, 0), want[i]);
		ps_rotate_next_size(&r);
	}
	ps_rotate_init(&r, "cap.pcapng", 1, 0, 12, 0);
	assert_string_equal(name_of(&r, 0), "cap.pcapng00");
}

/* -G: strftime names, the timer from the start, missed intervals skipped. */
static void time_names_and_timer(void **state)
{
	struct ps_rotate r;
	time_t t = 86400 + 3723; /* 1970-01-02 01:02:03 UTC */

	(void)state;
	setenv("TZ", "UTC", 1);
	ps_rotate_init(&r, "cap-%Y%m%d-%H%M%S.pcapng", 0, 60 * SEC, 0, 5 * SEC);
	assert_string_equal(name_of(&r, t), "cap-19700102-010203.pcapng");
	assert_int_equal(ps_rotate_time_due(&r, 64 * SEC), 0);
	assert_int_equal(ps_rotate_time_due(&r, 65 * SEC), 1);
	assert_int_equal(ps_rotate_time_due(&r, 66 * SEC), 0);
	/* asleep for three intervals: one rotation, the next boundary ahead */
	assert_int_equal(ps_rotate_time_due(&r, 300 * SEC), 1);
	assert_int_equal(ps_rotate_time_due(&r, 304 * SEC), 0);
	assert_int_equal(ps_rotate_time_due(&r, 305 * SEC), 1);
}

/* An strftime result that is empty is an error, not a file named "". */
static void empty_name(void **state)
{
	struct ps_rotate r;
	char buf[64];

	(void)state;
	ps_rotate_init(&r, "", 0, SEC, 0, 0);
	assert_int_equal(ps_rotate_name(&r, 0, buf, sizeof(buf)), -EINVAL);
}

/* -G with -W and no -C: stop once N files are complete. */
static void time_file_limit(void **state)
{
	struct ps_rotate r;

	(void)state;
	ps_rotate_init(&r, "out", 0, SEC, 3, 0);
	assert_int_equal(ps_rotate_time_due(&r, 1 * SEC), 1);
	assert_int_equal(ps_rotate_time_due(&r, 2 * SEC), 1);
	assert_int_equal(ps_rotate_time_due(&r, 3 * SEC), -1);
	/* -G and -C: the count restarts each interval, names numbered */
	ps_rotate_init(&r, "out", 100, SEC, 3, 0);
	ps_rotate_next_size(&r);
	assert_string_equal(name_of(&r, 0), "out1");
	assert_int_equal(ps_rotate_time_due(&r, SEC), 1);
	assert_string_equal(name_of(&r, 0), "out0");
	assert_int_equal(ps_rotate_time_due(&r, 5 * SEC), 1); /* -W is the ring */
}

static void too_long(void **state)
{
	struct ps_rotate r;
	char buf[8];

	(void)state;
	ps_rotate_init(&r, "abcdefgh", 1, 0, 0, 0);
	assert_int_equal(ps_rotate_name(&r, 0, buf, sizeof(buf)), -ENAMETOOLONG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(widths_as_tcpdump), cmocka_unit_test(size_names),
		cmocka_unit_test(size_ring),	     cmocka_unit_test(time_names_and_timer),
		cmocka_unit_test(empty_name),	     cmocka_unit_test(time_file_limit),
		cmocka_unit_test(too_long),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
