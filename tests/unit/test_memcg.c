// SPDX-License-Identifier: GPL-2.0-only
/* The memory cgroup's room (user/kernel/memcg.h): /proc/self/cgroup's
 * lines, and a tree of v1's or v2's files made here. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>
#include "memcg.h"

static void path_of_the_memory_controller(void **state)
{
	char p[64];
	bool v1 = false;

	(void)state;
	/* Hybrid: memory is a v1 controller, whatever the v2 line says. */
	assert_int_equal(ps_memcg_path("9:name=systemd:/\n4:memory:/a/b\n0::/\n", p, sizeof(p),
				       &v1),
			 0);
	assert_string_equal(p, "/a/b");
	assert_true(v1);
	assert_int_equal(ps_memcg_path("0::/x\n5:cpu,memory:/c\n", p, sizeof(p), &v1), 0);
	assert_string_equal(p, "/c");
	assert_true(v1);
	/* Unified: the v2 line. */
	assert_int_equal(ps_memcg_path("0::/system.slice/x.service\n", p, sizeof(p), &v1), 0);
	assert_string_equal(p, "/system.slice/x.service");
	assert_false(v1);
	/* "memoryx" is no memory; no line at all is none. */
	assert_int_equal(ps_memcg_path("4:memoryx:/a\n", p, sizeof(p), &v1), -ENOENT);
	assert_int_equal(ps_memcg_path("", p, sizeof(p), &v1), -ENOENT);
	assert_int_equal(ps_memcg_path("0::/a-path-longer-than-the-room\n", p, 8, &v1), -ENOENT);
}

static void put(const char *dir, const char *name, const char *value)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(value, f);
	fclose(f);
}

/* The least room on the way up wins: the cgroup's own, or an
 * ancestor's; "max" and v1's huge number limit nothing. */
static void room_is_the_least_on_the_way_up(void **state)
{
	char root[] = "/tmp/ps-memcg-XXXXXX", a[256], ab[256];
	struct ps_memcg m;

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(a, sizeof(a), "%s/a", root);
	snprintf(ab, sizeof(ab), "%s/a/b", root);
	assert_int_equal(mkdir(a, 0700), 0);
	assert_int_equal(mkdir(ab, 0700), 0);
	/* v2: the root has no files; a limits at 100 MiB with 90 used, b at
	 * 48 MiB with 8 used: a's 10 MiB is the least. */
	put(a, "memory.max", "104857600\n");
	put(a, "memory.current", "94371840\n");
	put(ab, "memory.max", "50331648\n");
	put(ab, "memory.current", "8388608\n");
	assert_int_equal(ps_memcg_read_at(root, "/a/b", false, &m), 0);
	assert_true(m.limited);
	assert_int_equal(m.room, 10u << 20);
	assert_int_equal(m.limit, 100u << 20);
	assert_string_equal(m.path, "/a");
	put(a, "memory.max", "max\n");
	assert_int_equal(ps_memcg_read_at(root, "/a/b", false, &m), 0);
	assert_int_equal(m.room, 40u << 20);
	assert_string_equal(m.path, "/a/b");
	/* Over its limit: no room, not a wrap. */
	put(ab, "memory.current", "60000000\n");
	assert_int_equal(ps_memcg_read_at(root, "/a/b", false, &m), 0);
	assert_int_equal(m.room, 0);
	/* v1: the root's files say "no limit" as a huge number. */
	put(root, "memory.limit_in_bytes", "9223372036854771712\n");
	put(root, "memory.usage_in_bytes", "1000\n");
	put(ab, "memory.limit_in_bytes", "9223372036854771712\n");
	put(ab, "memory.usage_in_bytes", "1000\n");
	assert_int_equal(ps_memcg_read_at(root, "/a/b", true, &m), 0);
	assert_false(m.limited);
	assert_int_equal(m.room, UINT64_MAX);
	assert_true(m.v1);
	assert_int_equal(ps_memcg_read_at(root, "/nosuch", true, &m), -ENOENT);
	{
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		assert_int_equal(system(cmd), 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(path_of_the_memory_controller),
		cmocka_unit_test(room_is_the_least_on_the_way_up),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
