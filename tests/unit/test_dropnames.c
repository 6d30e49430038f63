// SPDX-License-Identifier: GPL-2.0-only
/*
 * The drop hook's words: reasons from a BTF enum skb_drop_reason (made
 * here, as two kernel versions number them), places from kallsyms text.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <bpf/btf.h>
#include "dropnames.h"
#include "pktsample.h"

/* An enum skb_drop_reason as a kernel's BTF has it. */
static struct btf *btf_with(const char *const *names, const int *values, int n)
{
	struct btf *b = btf__new_empty();
	int id;

	assert_non_null(b);
	id = btf__add_enum(b, "skb_drop_reason", 4);
	assert_true(id > 0);
	for (int i = 0; i < n; i++)
		assert_int_equal(btf__add_enum_value(b, names[i], values[i]), 0);
	return b;
}

static void reasons_by_the_kernels_numbers(void **state)
{
	/* 6.1 has no SKB_CONSUMED; a later kernel numbers NO_SOCKET anew. */
	static const char *const v61[] = { "SKB_NOT_DROPPED_YET", "SKB_DROP_REASON_NOT_SPECIFIED",
					   "SKB_DROP_REASON_NO_SOCKET", "SKB_DROP_REASON_MAX" };
	static const int n61[] = { 0, 1, 2, 3 };
	static const char *const v618[] = {
		"SKB_NOT_DROPPED_YET",		 "SKB_CONSUMED",
		"SKB_DROP_REASON_NOT_SPECIFIED", "SKB_DROP_REASON_NO_SOCKET",
		"SKB_DROP_REASON_SUBSYS_MASK",	 "SKB_DROP_REASON_MAX"
	};
	static const int n618[] = { 0, 1, 2, 3, (int)0xffff0000, 4 };
	struct ps_dropnames d = { 0 };
	struct btf *b = btf_with(v61, n61, 4);
	char buf[32];

	(void)state;
	assert_int_equal(ps_dropnames_add_btf(&d, b), 0);
	assert_string_equal(ps_dropnames_reason(&d, 2, buf, sizeof(buf)), "NO_SOCKET");
	assert_string_equal(ps_dropnames_reason(&d, 1, buf, sizeof(buf)), "NOT_SPECIFIED");
	assert_int_equal(d.consumed, UINT32_MAX);
	/* The marker past the last is no reason; an unnamed one is a number. */
	assert_string_equal(ps_dropnames_reason(&d, 3, buf, sizeof(buf)), "REASON_3");
	assert_string_equal(ps_dropnames_reason(&d, 99, buf, sizeof(buf)), "REASON_99");
	assert_string_equal(ps_dropnames_reason(&d, 0x30002, buf, sizeof(buf)), "SUBSYS_3_0x2");
	ps_dropnames_free(&d);
	btf__free(b);

	b = btf_with(v618, n618, 6);
	assert_int_equal(ps_dropnames_add_btf(&d, b), 0);
	assert_string_equal(ps_dropnames_reason(&d, 3, buf, sizeof(buf)), "NO_SOCKET");
	assert_string_equal(ps_dropnames_reason(&d, 1, buf, sizeof(buf)), "CONSUMED");
	assert_int_equal(d.consumed, 1);
	ps_dropnames_free(&d);
	btf__free(b);
}

static void btf_without_the_enum(void **state)
{
	struct ps_dropnames d = { 0 };
	struct btf *b = btf__new_empty();

	(void)state;
	assert_int_equal(ps_dropnames_add_btf(&d, b), -ENOENT);
	ps_dropnames_free(&d);
	btf__free(b);
}

/* Before 5.17: every drop has the one reason the drop hook gives it. */
static void a_kernel_without_reasons(void **state)
{
	struct ps_dropnames d = { 0 };
	char buf[32];

	(void)state;
	assert_int_equal(ps_dropnames_add_unexplained(&d), 0);
	assert_string_equal(ps_dropnames_reason(&d, PS_DROP_REASON_NOT_SPECIFIED, buf, sizeof(buf)),
			    "NOT_SPECIFIED");
	assert_int_equal(d.consumed, UINT32_MAX);
	ps_dropnames_free(&d);
}

static void places_from_kallsyms(void **state)
{
	static const char text[] = "ffffffff81000000 T _stext\n"
				   "ffffffff81a00000 t __udp4_lib_rcv\n"
				   "ffffffff81a00800 T udp_rcv\n"
				   "ffffffff81a00900 d some_data\n"
				   "ffffffffc0001000 t nft_do_chain\t[nf_tables]\n"
				   "not a line\n"
				   "0000000000000000 T hidden\n"
				   "ffffffff81b00000 T tcp_v4_rcv"; /* no newline at the end */
	struct ps_dropnames d = { 0 };
	char buf[128];

	(void)state;
	assert_int_equal(ps_dropnames_add_kallsyms(&d, text, strlen(text)), 0);
	assert_int_equal(d.n_syms, 5); /* text symbols with an address */
	ps_dropnames_at(&d, 0xffffffff81a004bcull, buf, sizeof(buf));
	assert_string_equal(buf, "__udp4_lib_rcv+0x4bc");
	ps_dropnames_at(&d, 0xffffffff81a00800ull, buf, sizeof(buf));
	assert_string_equal(buf, "udp_rcv+0x0");
	ps_dropnames_at(&d, 0xffffffffc00010a0ull, buf, sizeof(buf));
	assert_string_equal(buf, "nft_do_chain+0xa0");
	ps_dropnames_at(&d, 0xffffffff81b00091ull, buf, sizeof(buf));
	assert_string_equal(buf, "tcp_v4_rcv+0x91");
	/* Below every symbol: the address. */
	ps_dropnames_at(&d, 0x1000, buf, sizeof(buf));
	assert_string_equal(buf, "0x1000");
	ps_dropnames_free(&d);
	/* No symbols at all (kallsyms hidden): addresses. */
	ps_dropnames_at(&d, 0xffffffff81a004bcull, buf, sizeof(buf));
	assert_string_equal(buf, "0xffffffff81a004bc");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reasons_by_the_kernels_numbers),
		cmocka_unit_test(btf_without_the_enum),
		cmocka_unit_test(a_kernel_without_reasons),
		cmocka_unit_test(places_from_kallsyms),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
