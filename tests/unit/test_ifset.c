// SPDX-License-Identifier: GPL-2.0-only
/*
 * The capture's interfaces as a set that follows the links
 * (user/app/ifset.h): the start's replay, a link that comes, goes and
 * comes back, a rename, one refused or without room, a new -i list.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "ifset.h"

/* What the subscriber was told, as one line of words. */
struct seen {
	char log[1024];
	int refuse_ifindex; /* add() refuses this one */
};

static void say(struct seen *v, const char *fmt, ...)
{
	size_t n = strlen(v->log);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v->log + n, sizeof(v->log) - n, fmt, ap);
	va_end(ap);
}

static int on_add(void *arg, int slot, const struct ps_link_event *ev)
{
	struct seen *v = arg;

	if (ev->ifindex == v->refuse_ifindex) {
		say(v, "refuse %s; ", ev->name);
		return -EOPNOTSUPP;
	}
	say(v, "add %s@%d; ", ev->name, slot);
	return 0;
}

static void on_remove(void *arg, int slot, enum ps_ifset_why why)
{
	say(arg, "remove %d %s; ", slot, why == PS_IFSET_VANISHED ? "vanished" : "unwanted");
}

static void on_updown(void *arg, int slot, bool up)
{
	say(arg, "%s %d; ", up ? "up" : "down", slot);
}

static void on_no_room(void *arg, const struct ps_link_event *ev)
{
	say(arg, "no room for %s; ", ev->name);
}

#define LINK(i, n, u)                                  \
	{                                              \
		.ifindex = (i), .name = (n), .up = (u) \
	}
static const struct ps_link_event host[] = {
	{ .ifindex = 1, .name = "lo", .up = true, .loopback = true },
	LINK(2, "eth0", true),
	LINK(3, "veth1", true),
	LINK(4, "veth2", false),
	LINK(5, "br0", false),
};
#define N_HOST ((int)(sizeof(host) / sizeof(host[0])))

static void start(struct ps_ifset *s, struct seen *v, const char *const *want, int n)
{
	const struct ps_ifset_ops ops = { on_add, on_remove, on_updown, on_no_room, v };
	char err[128];

	assert_int_equal(ps_ifset_init(s, want, n, err, sizeof(err)), 0);
	assert_int_equal(ps_ifset_start(s, &ops, host, N_HOST, err, sizeof(err)), 0);
}

/* The named ones first, in -i's order; then every other one wanted: any
 * takes those up (lo only named), a pattern those that match, up or not. */
static void the_start_replays_what_is_there(void **state)
{
	static const char *const any[] = { "any" }, *const named_any[] = { "br0", "any", "lo" },
				 *const pattern[] = { "veth*" };
	struct seen v = { 0 };
	struct ps_ifset s;

	(void)state;
	start(&s, &v, any, 1);
	assert_string_equal(v.log, "add eth0@0; add veth1@1; ");
	assert_string_equal(s.follow, "any");
	ps_ifset_free(&s);
	memset(&v, 0, sizeof(v));
	start(&s, &v, named_any, 3);
	assert_string_equal(v.log, "add br0@0; add lo@1; add eth0@2; add veth1@3; ");
	assert_int_equal(s.n_named, 2);
	ps_ifset_free(&s);
	memset(&v, 0, sizeof(v));
	start(&s, &v, pattern, 1);
	assert_string_equal(v.log, "add veth1@0; add veth2@1; ");
	ps_ifset_free(&s);
}

/* A named interface that is not there, or whose name no interface can
 * have: one line, -ENODEV. A refusal at the start is the start's error. */
static void the_start_refuses(void **state)
{
	static const char *const missing[] = { "eth0", "eth9" },
				 *const too_long[] = { "a-name-too-long-for-linux" },
				 *const two[] = { "eth0", "veth1" };
	struct seen quiet = { 0 }, v = { .refuse_ifindex = 3 };
	const struct ps_ifset_ops ops = { on_add, on_remove, on_updown, on_no_room, &quiet };
	struct ps_ifset_ops refusing = ops;
	struct ps_ifset s;
	char err[128];

	(void)state;
	assert_int_equal(ps_ifset_init(&s, missing, 2, err, sizeof(err)), 0);
	assert_int_equal(ps_ifset_start(&s, &ops, host, N_HOST, err, sizeof(err)), -ENODEV);
	assert_string_equal(err, "unknown interface 'eth9'");
	ps_ifset_free(&s);
	assert_int_equal(ps_ifset_init(&s, too_long, 1, err, sizeof(err)), -ENODEV);
	assert_string_equal(err, "unknown interface 'a-name-too-long-for-linux'");
	refusing.arg = &v;
	assert_int_equal(ps_ifset_init(&s, two, 2, err, sizeof(err)), 0);
	assert_int_equal(ps_ifset_start(&s, &refusing, host, N_HOST, err, sizeof(err)),
			 -EOPNOTSUPP);
	ps_ifset_free(&s);
}

/* Following: a link that comes is added, goes down and up, vanishes (its
 * slot freed), and comes back (into that slot, under a new ifindex). */
static void a_link_comes_goes_and_comes_back(void **state)
{
	static const char *const pattern[] = { "veth*" };
	const struct ps_link_event v9 = LINK(9, "veth9", true), v9_down = LINK(9, "veth9", false),
				   v9_gone = { .ifindex = 9, .gone = true },
				   v10 = LINK(10, "veth9", true), other = LINK(11, "eth1", true);
	struct seen v = { 0 };
	struct ps_ifset s;

	(void)state;
	start(&s, &v, pattern, 1);
	v.log[0] = '\0';
	ps_ifset_event(&s, &other);
	ps_ifset_event(&s, &v9);
	ps_ifset_event(&s, &v9); /* news of no change */
	ps_ifset_event(&s, &v9_down);
	ps_ifset_event(&s, &v9);
	ps_ifset_event(&s, &v9_gone);
	assert_int_equal(ps_ifset_slot_of(&s, 9), -1);
	ps_ifset_event(&s, &v10);
	assert_string_equal(v.log, "add veth9@2; down 2; up 2; remove 2 vanished; add veth9@2; ");
	assert_int_equal(ps_ifset_count(&s), 3);
	ps_ifset_free(&s);
}

/* Renamed: a member keeps its place (followed by ifindex), under its new
 * name; one renamed into a pattern comes in. */
static void a_rename(void **state)
{
	static const char *const pattern[] = { "veth*" };
	const struct ps_link_event renamed = LINK(3, "uplink", true),
				   into = LINK(2, "veth-eth0", true);
	struct seen v = { 0 };
	struct ps_ifset s;

	(void)state;
	start(&s, &v, pattern, 1);
	v.log[0] = '\0';
	ps_ifset_event(&s, &renamed);
	assert_string_equal(v.log, "");
	assert_int_equal(ps_ifset_slot_named(&s, "uplink"), 0);
	assert_int_equal(ps_ifset_slot_named(&s, "veth1"), -1);
	ps_ifset_event(&s, &into);
	assert_string_equal(v.log, "add veth-eth0@2; ");
	ps_ifset_free(&s);
}

/* A names-only set takes no newcomer, and ends when its names are gone;
 * a replay finds what vanished while news were lost. */
static void names_only_and_replay(void **state)
{
	static const char *const named[] = { "eth0", "veth1" };
	const struct ps_link_event back = LINK(2, "eth0", true);
	struct seen v = { 0 };
	struct ps_ifset s;

	(void)state;
	start(&s, &v, named, 2);
	assert_null(s.follow);
	v.log[0] = '\0';
	ps_ifset_replay(&s, host + 2, N_HOST - 2); /* eth0 vanished, veth1 there */
	assert_string_equal(v.log, "remove 0 vanished; ");
	ps_ifset_event(&s, &back);
	assert_string_equal(v.log, "remove 0 vanished; ");
	assert_int_equal(ps_ifset_count(&s), 1);
	ps_ifset_free(&s);
}

/* Refused, or no room: said once, not offered again at its next news; a
 * member leaving makes a retry due, and after it the news are offered. */
static void refused_until_a_retry(void **state)
{
	static const char *const pattern[] = { "veth*" };
	const struct ps_link_event v9 = LINK(9, "veth9", true), v8 = LINK(8, "veth8", true),
				   v7 = LINK(7, "veth7", true),
				   v1_gone = { .ifindex = 3, .gone = true };
	struct seen v = { .refuse_ifindex = 8 };
	struct ps_ifset s;

	(void)state;
	start(&s, &v, pattern, 1);
	assert_int_equal(ps_ifset_set_room(&s, 3), 0);
	v.log[0] = '\0';
	ps_ifset_event(&s, &v8);
	ps_ifset_event(&s, &v8);
	ps_ifset_event(&s, &v9);
	ps_ifset_event(&s, &v7);
	ps_ifset_event(&s, &v7);
	assert_string_equal(v.log, "refuse veth8; add veth9@2; no room for veth7; ");
	assert_false(s.retry_due);
	ps_ifset_event(&s, &v1_gone);
	assert_true(s.retry_due);
	v.log[0] = '\0';
	ps_ifset_forget_refused(&s);
	ps_ifset_event(&s, &v7);
	ps_ifset_event(&s, &v8);
	assert_string_equal(v.log, "add veth7@0; no room for veth8; "); /* offered again */
	ps_ifset_free(&s);
}

/* A new -i list: members it leaves out go; a replay brings the new ones,
 * and those refused before are offered again. */
static void a_new_list(void **state)
{
	static const char *const first[] = { "veth*" }, *const next[] = { "eth0", "veth2" };
	struct seen v = { 0 };
	struct ps_ifset s;

	(void)state;
	start(&s, &v, first, 1);
	v.log[0] = '\0';
	ps_ifset_want(&s, next, 2);
	assert_null(s.follow);
	assert_string_equal(v.log, "remove 0 unwanted; ");
	/* Names only now: as following ones, a names-only set takes no
	 * newcomer, at a replay or at its news. */
	ps_ifset_replay(&s, host, N_HOST);
	assert_string_equal(v.log, "remove 0 unwanted; ");
	ps_ifset_want(&s, (const char *const[]){ "any", "veth2" }, 2);
	ps_ifset_replay(&s, host, N_HOST);
	assert_string_equal(v.log, "remove 0 unwanted; add eth0@0; add veth1@2; ");
	ps_ifset_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_start_replays_what_is_there),
		cmocka_unit_test(the_start_refuses),
		cmocka_unit_test(a_link_comes_goes_and_comes_back),
		cmocka_unit_test(a_rename),
		cmocka_unit_test(names_only_and_replay),
		cmocka_unit_test(refused_until_a_retry),
		cmocka_unit_test(a_new_list),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
