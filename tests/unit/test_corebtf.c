// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel's BTF cut to what CO-RE reaches (user/kernel/corebtf.h): on a
 * BTF made here, laid out as the kernel's sock_common is (the listener in
 * an anonymous union, the cookie an atomic64_t's typedef), and on the
 * running kernel's own where it has one, against libbpf's whole parse.
 * That libbpf relocates the programs with it is test_bpf's and every
 * capture's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <linux/btf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "corebtf.h"

/* struct sock_common { int skc_family; atomic64_t skc_cookie;
 *	union { unsigned long skc_flags; struct sock *skc_listener; }; }
 * at the offsets given, and a struct of its own name given twice if dup. */
static struct btf *kernel_like(uint32_t cookie_bits, uint32_t union_bits, bool dup)
{
	struct btf *b = btf__new_empty();
	int s64, s64_def, atomic, atomic_def, ulong, sock, ptr, anon, sc, i32;

	assert_non_null(b);
	i32 = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	s64 = btf__add_int(b, "long long int", 8, BTF_INT_SIGNED);
	s64_def = btf__add_typedef(b, "s64", s64);
	atomic = btf__add_struct(b, NULL, 8);
	assert_int_equal(btf__add_field(b, "counter", s64_def, 0, 0), 0);
	atomic_def = btf__add_typedef(b, "atomic64_t", atomic);
	ulong = btf__add_int(b, "long unsigned int", 8, 0);
	sock = btf__add_fwd(b, "sock", BTF_FWD_STRUCT);
	ptr = btf__add_ptr(b, sock);
	anon = btf__add_union(b, NULL, 8);
	assert_int_equal(btf__add_field(b, "skc_flags", ulong, 0, 0), 0);
	assert_int_equal(btf__add_field(b, "skc_listener", ptr, 0, 0), 0);
	sc = btf__add_struct(b, "sock_common", 136);
	assert_int_equal(btf__add_field(b, "skc_family", i32, 0, 0), 0);
	assert_int_equal(btf__add_field(b, "skc_cookie", atomic_def, cookie_bits, 0), 0);
	assert_int_equal(btf__add_field(b, NULL, anon, union_bits, 0), 0);
	if (dup)
		assert_true(btf__add_struct(b, "sock_common", 8) > 0);
	assert_true(sc > 0);
	return b;
}

/* The cut of b's bytes, or NULL with errno. */
static struct btf *cut_of(const struct btf *b, const char *const *paths, size_t n)
{
	__u32 size;
	const void *raw = btf__raw_data(b, &size);

	assert_non_null(raw);
	return ps_corebtf_cut(raw, size, paths, n);
}

/* The byte offset of member name of the struct named sname, or -1. */
static long offset_in(const struct btf *b, const char *sname, const char *name)
{
	int id = btf__find_by_name_kind(b, sname, BTF_KIND_STRUCT);
	const struct btf_type *t = id > 0 ? btf__type_by_id(b, (__u32)id) : NULL;

	for (int i = 0; t && i < btf_vlen(t); i++) {
		const struct btf_member *m = btf_members(t) + i;
		const struct btf_type *mt = btf__type_by_id(b, m->type);

		if (m->name_off && !strcmp(btf__name_by_offset(b, m->name_off), name))
			return (long)(m->offset / 8);
		if (!m->name_off && btf_is_composite(mt)) {
			for (int j = 0; j < btf_vlen(mt); j++) {
				const struct btf_member *u = btf_members(mt) + j;

				if (!strcmp(btf__name_by_offset(b, u->name_off), name))
					return (long)((m->offset + u->offset) / 8);
			}
		}
	}
	return -1;
}

static void members_keep_their_offsets_through_anonymous_unions(void **state)
{
	const char *const paths[] = { "sock_common.skc_cookie", "sock_common.skc_listener" };
	struct btf *b = kernel_like(88 * 8, 96 * 8, false), *c;
	const struct btf_type *t;
	int id;

	(void)state;
	c = cut_of(b, paths, 2);
	assert_non_null(c);
	assert_int_equal(offset_in(c, "sock_common", "skc_cookie"), 88);
	assert_int_equal(offset_in(c, "sock_common", "skc_listener"), 96);
	/* Only what was asked: skc_family and skc_flags are left out. */
	assert_int_equal(offset_in(c, "sock_common", "skc_family"), -1);
	assert_int_equal(offset_in(c, "sock_common", "skc_flags"), -1);
	id = btf__find_by_name_kind(c, "sock_common", BTF_KIND_STRUCT);
	t = btf__type_by_id(c, (__u32)id);
	assert_int_equal(t->size, 136);
	assert_int_equal(btf_vlen(t), 2);
	/* The cookie's type is a struct of its size (typedefs skipped, as
	 * libbpf compares), the listener a pointer. */
	assert_true(btf_is_struct(btf__type_by_id(c, btf_members(t)[0].type)));
	assert_int_equal(btf__type_by_id(c, btf_members(t)[0].type)->size, 8);
	btf__free(c);
	btf__free(b);
}

static void a_member_through_a_member_is_found(void **state)
{
	const char *const paths[] = { "sock_common.skc_cookie.counter" };
	struct btf *b = kernel_like(16 * 8, 24 * 8, false), *c;
	const struct btf_type *t, *a;
	int id;

	(void)state;
	c = cut_of(b, paths, 1);
	assert_non_null(c);
	id = btf__find_by_name_kind(c, "sock_common", BTF_KIND_STRUCT);
	t = btf__type_by_id(c, (__u32)id);
	assert_int_equal(btf_vlen(t), 1);
	a = btf__type_by_id(c, btf_members(t)[0].type);
	assert_int_equal(btf_vlen(a), 1);
	assert_string_equal(btf__name_by_offset(c, btf_members(a)[0].name_off), "counter");
	assert_true(btf_is_int(btf__type_by_id(c, btf_members(a)[0].type)));
	btf__free(c);
	btf__free(b);
}

static void what_is_not_there_is_refused(void **state)
{
	const char *const none[] = { "sock_common.skc_nothing" };
	const char *const nostruct[] = { "task_struct.nsproxy" };
	const char *const bare[] = { "sock_common" };
	const char *const deref[] = { "sock_common.skc_listener.skc_family" };
	const char *const paths[] = { "sock_common.skc_cookie" };
	struct btf *b = kernel_like(88 * 8, 96 * 8, false), *d = kernel_like(8, 16, true);

	(void)state;
	assert_null(cut_of(b, none, 1));
	assert_int_equal(errno, ENOENT);
	assert_null(cut_of(b, nostruct, 1));
	assert_int_equal(errno, ENOENT);
	assert_null(cut_of(b, bare, 1));
	assert_int_equal(errno, EINVAL);
	/* A relocation never follows a pointer: neither does a path. */
	assert_null(cut_of(b, deref, 1));
	assert_int_equal(errno, ENOENT);
	/* Two structs of one name: libbpf would weigh both; we do not. */
	assert_null(cut_of(d, paths, 1));
	assert_int_equal(errno, ENOTUNIQ);
	btf__free(b);
	btf__free(d);
}

static void bytes_that_are_not_btf_are_refused(void **state)
{
	const char *const paths[] = { "sock_common.skc_cookie" };
	struct btf *b = kernel_like(88 * 8, 96 * 8, false);
	__u32 size;
	const uint8_t *raw = btf__raw_data(b, &size);
	uint8_t *bad = malloc(size);

	(void)state;
	assert_non_null(bad);
	/* Cut short anywhere: refused, never read past. */
	for (__u32 n = 0; n < size; n++) {
		struct btf *c = ps_corebtf_cut(raw, n, paths, 1);

		assert_null(c);
	}
	/* A type of a kind that does not exist. */
	memcpy(bad, raw, size);
	bad[sizeof(struct btf_header) + 7] = 0x7f;
	assert_null(ps_corebtf_cut(bad, size, paths, 1));
	assert_int_equal(errno, EINVAL);
	free(bad);
	btf__free(b);
}

/* The running kernel's BTF, cut, says what libbpf's whole parse says. */
static void the_kernels_own_agrees_with_libbpf(void **state)
{
	const char *const paths[] = { "sock_common.skc_cookie", "sock_common.skc_listener",
				      "task_struct.nsproxy", "nsproxy.net_ns", "net.ns.inum" };
	struct btf *whole, *cut;
	int fd;

	(void)state;
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		skip();
		return;
	}
	fd = ps_corebtf_kernel_fd(paths, 5);
	assert_true(fd >= 0);
	{
		char path[32];

		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		cut = btf__parse(path, NULL);
	}
	close(fd);
	whole = btf__load_vmlinux_btf();
	assert_false(libbpf_get_error(cut));
	assert_false(libbpf_get_error(whole));
	assert_true(offset_in(cut, "sock_common", "skc_cookie") > 0);
	assert_int_equal(offset_in(cut, "sock_common", "skc_cookie"),
			 offset_in(whole, "sock_common", "skc_cookie"));
	assert_int_equal(offset_in(cut, "sock_common", "skc_listener"),
			 offset_in(whole, "sock_common", "skc_listener"));
	assert_int_equal(offset_in(cut, "task_struct", "nsproxy"),
			 offset_in(whole, "task_struct", "nsproxy"));
	assert_int_equal(offset_in(cut, "nsproxy", "net_ns"),
			 offset_in(whole, "nsproxy", "net_ns"));
	assert_int_equal(offset_in(cut, "net", "ns"), offset_in(whole, "net", "ns"));
	assert_int_equal(offset_in(cut, "ns_common", "inum"),
			 offset_in(whole, "ns_common", "inum"));
	/* A few dozen types, not the kernel's 100,000. */
	assert_true(btf__type_cnt(cut) < 40);
	btf__free(cut);
	btf__free(whole);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(members_keep_their_offsets_through_anonymous_unions),
		cmocka_unit_test(a_member_through_a_member_is_found),
		cmocka_unit_test(what_is_not_there_is_refused),
		cmocka_unit_test(bytes_that_are_not_btf_are_refused),
		cmocka_unit_test(the_kernels_own_agrees_with_libbpf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
