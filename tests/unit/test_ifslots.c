// SPDX-License-Identifier: GPL-2.0-only
/* Counter slots for the captured interfaces: taken, found, freed, reused. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include "ifslots.h"

static void slots(void **state)
{
	struct ps_ifslots s;

	(void)state;
	assert_int_equal(ps_ifslots_init(&s, 0), -EINVAL);
	assert_int_equal(ps_ifslots_init(&s, 3), 0);
	assert_int_equal(ps_ifslots_take(&s, 0), -EINVAL);
	assert_int_equal(ps_ifslots_take(&s, 10), 0);
	assert_int_equal(ps_ifslots_take(&s, 11), 1);
	assert_int_equal(ps_ifslots_take(&s, 10), 0); /* again: the same */
	assert_int_equal(ps_ifslots_take(&s, 12), 2);
	assert_int_equal(s.used, 3);
	assert_int_equal(ps_ifslots_take(&s, 13), -E2BIG);
	assert_int_equal(ps_ifslots_find(&s, 11), 1);
	assert_int_equal(ps_ifslots_find(&s, 13), -ENOENT);
	assert_int_equal(ps_ifslots_find(&s, 0), -ENOENT); /* free slots are not ifindex 0's */
	/* One goes: its slot is the next one's. */
	assert_int_equal(ps_ifslots_release(&s, 11), 1);
	assert_int_equal(ps_ifslots_release(&s, 11), -ENOENT);
	assert_int_equal(ps_ifslots_find(&s, 11), -ENOENT);
	assert_int_equal(ps_ifslots_take(&s, 13), 1);
	assert_int_equal(s.used, 3);
	ps_ifslots_free(&s);
	assert_int_equal(s.capacity, 0);
	assert_int_equal(ps_ifslots_take(&s, 14), -E2BIG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(slots),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
