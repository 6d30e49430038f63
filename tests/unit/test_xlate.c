// SPDX-License-Identifier: GPL-2.0-only
/*
 * The pure parts of the filter path: the libpcap front end, the cBPF
 * translator's refusals and structure, and the splicer's bookkeeping.
 * (Whether the translated code matches libpcap is test_filter_diff's job.)
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <cmocka.h>
#include "filter.h"
#include "splice.h"
#include "xlate.h"

static int build(const char *expr, struct ps_filter *f, char *err, size_t len)
{
	return ps_filter_build(f, strdup(expr), 65535, err, len);
}

/* Expressions refused before anything loads, and what the message says. */
static void bad_expressions_are_refused(void **state)
{
	static const struct {
		const char *expr, *says[2];
	} cases[] = {
		{ "tcp port", { "syntax error", "bad filter expression" } },
		{ "host 999.1.1.1", { "bad filter expression", NULL } },
		{ "tcp and udp", { "rejects", NULL } },
		/* protochain's cBPF loops with a backward jump */
		{ "protochain 6", { "backwards", "protochain" } },
		/* libpcap compiles these to a load of SKF_AD_PKTTYPE; the hook
		 * is the direction, and the message names -Q */
		{ "inbound", { "-Q in or -Q out", NULL } },
		{ "tcp and not outbound", { "'outbound' are not supported", NULL } },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ps_filter f;
		char err[256];

		if (build(cases[i].expr, &f, err, sizeof(err)) != -EINVAL)
			fail_msg("'%s' was accepted", cases[i].expr);
		for (int j = 0; j < 2; j++)
			if (cases[i].says[j] && !strstr(err, cases[i].says[j]))
				fail_msg("'%s': '%s' does not say '%s'", cases[i].expr, err,
					 cases[i].says[j]);
		ps_filter_free(&f);
	}
}

static void malformed_cbpf_is_refused(void **state)
{
	struct sock_filter past_end[] = {
		{ BPF_JMP | BPF_JEQ | BPF_K, 5, 0, 1 },
		{ BPF_RET | BPF_K, 0, 0, 1 },
	};
	struct sock_filter no_ret[] = { { BPF_LD | BPF_W | BPF_LEN, 0, 0, 0 } };
	struct sock_filter bad_mem[] = {
		{ BPF_LD | BPF_MEM, 0, 0, 16 },
		{ BPF_RET | BPF_A, 0, 0, 0 },
	};
	/* A JEQ with junk above the opcode's 8 bits (found by fuzz_xlate). */
	struct sock_filter wide_code[] = {
		{ 0x5f15, 0, 0, 10 },
		{ BPF_RET | BPF_K, 0, 0, 1 },
	};
	struct ps_ebpf out;
	char err[256];

	(void)state;
	assert_int_equal(ps_xlate(past_end, 2, PS_XLATE_XDP, &out, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "past the end"));
	assert_int_equal(ps_xlate(no_ret, 1, PS_XLATE_XDP, &out, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "return"));
	assert_int_equal(ps_xlate(bad_mem, 2, PS_XLATE_TC, &out, err, sizeof(err)), -EINVAL);
	assert_null(out.insns);
	assert_int_equal(ps_xlate(wide_code, 2, PS_XLATE_XDP, &out, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "code 0x5f15"));
}

/* So many loads that the jumps to the shared exit no longer reach. */
static void too_large_is_refused(void **state)
{
	struct sock_filter *p = calloc(4000, sizeof(*p));
	struct ps_ebpf out;
	char err[256];

	(void)state;
	for (int i = 0; i < 3999; i++)
		p[i] = (struct sock_filter){ BPF_LD | BPF_B | BPF_ABS, 0, 0, (__u32)i };
	p[3999] = (struct sock_filter){ BPF_RET | BPF_A, 0, 0, 0 };
	assert_int_equal(ps_xlate(p, 4000, PS_XLATE_XDP, &out, err, sizeof(err)), -E2BIG);
	assert_non_null(strstr(err, "too large"));
	free(p);
}

/* Every jump lands inside the body, every path ends in exit. */
static void check_structure(const struct ps_ebpf *e)
{
	assert_true(e->n > 0);
	assert_int_equal(e->insns[e->n - 1].code, BPF_JMP | BPF_EXIT);
	for (size_t i = 0; i < e->n; i++) {
		const struct bpf_insn *in = &e->insns[i];
		__u8 cls = BPF_CLASS(in->code), op = BPF_OP(in->code);

		if ((cls == BPF_JMP || cls == BPF_JMP32) && op != BPF_CALL && op != BPF_EXIT) {
			assert_true(in->off >= 0); /* forward only */
			assert_true(i + 1 + in->off < e->n);
		}
		if (cls == BPF_JMP && op == BPF_CALL) /* helpers only */
			assert_true(in->imm == BPF_FUNC_xdp_load_bytes ||
				    in->imm == BPF_FUNC_skb_load_bytes);
	}
}

static void translations_are_well_formed(void **state)
{
	static const char *const exprs[] = {
		"tcp port 443 and host 10.0.0.1",     "vlan 100 and udp",
		"ether[(ether[1] & 7) + 10:4] != 0",  "ip[2:2] / (ip[8] & 1) > 10",
		"(ip[2:2] << (ip[8] & 0x3f)) > 1000", "len > 8000",
	};
	(void)state;
	for (size_t i = 0; i < sizeof(exprs) / sizeof(exprs[0]); i++) {
		struct ps_filter f;
		char err[256];

		assert_int_equal(build(exprs[i], &f, err, sizeof(err)), 0);
		check_structure(&f.eth.xdp);
		check_structure(&f.eth.tc);
		check_structure(&f.eth.xdp_tag);
		/* TC, and XDP with the driver's tag, carry a second,
		 * tag-out-of-band translation; XDP's helpers are XDP's */
		assert_true(f.eth.tc.n > f.eth.xdp.n);
		assert_true(f.eth.xdp_tag.n > f.eth.xdp.n);
		for (size_t k = 0; k < f.eth.xdp_tag.n; k++) {
			const struct bpf_insn *in = &f.eth.xdp_tag.insns[k];

			if (in->code == (BPF_JMP | BPF_CALL))
				assert_int_equal(in->imm, BPF_FUNC_xdp_load_bytes);
		}
		/* TC's helper loads count from the hook's first byte: the
		 * offset the length argument carries above its low half
		 * (ps_meta.net_off) is added to each one's offset (r2). */
		for (size_t k = 0; k < f.eth.tc.n; k++) {
			const struct bpf_insn *in = &f.eth.tc.insns[k];

			if (in->code != (BPF_JMP | BPF_CALL))
				continue;
			assert_true(k >= 9);
			assert_int_equal(in[-9].code, BPF_LDX | BPF_MEM | BPF_W);
			assert_int_equal(in[-9].off, -12);
			assert_int_equal(in[-8].code, BPF_ALU64 | BPF_ADD | BPF_X);
			assert_int_equal(in[-8].dst_reg, BPF_REG_2);
			assert_int_equal(in[-8].src_reg, in[-9].dst_reg);
		}
		ps_filter_free(&f);
	}
}

static void dump_lists_both_languages(void **state)
{
	struct ps_filter f;
	char err[256], *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);

	(void)state;
	assert_int_equal(build("vlan 100 and udp", &f, err, sizeof(err)), 0);
	ps_filter_dump(mem, &f);
	fclose(mem);
	assert_non_null(strstr(text, "(000) ldh      [12]")); /* cBPF, as tcpdump -d */
	assert_non_null(strstr(text, "jeq      #0x8100"));
	assert_non_null(strstr(text, "call bpf_xdp_load_bytes#189"));
	assert_non_null(strstr(text, "call bpf_skb_load_bytes#26"));
	assert_non_null(strstr(text, "r6 = be16 r6"));
	free(text);
	ps_filter_free(&f);
}

static void filter_file_drops_comments(void **state)
{
	char path[] = "/tmp/ps_filter_XXXXXX", err[256], *expr;
	int fd = mkstemp(path);
	const char text[] = "# web traffic\ntcp port 443   # TLS\nand host 10.0.0.1\n";

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, sizeof(text) - 1), (ssize_t)sizeof(text) - 1);
	close(fd);
	assert_int_equal(ps_filter_read_file(path, &expr, err, sizeof(err)), 0);
	assert_string_equal(expr, "tcp port 443 and host 10.0.0.1");
	free(expr);
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_int_equal(write(fd, "# nothing\n", 10), 10);
	close(fd);
	assert_int_equal(ps_filter_read_file(path, &expr, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "no expression"));
	unlink(path);
	assert_int_equal(ps_filter_read_file(path, &expr, err, sizeof(err)), -ENOENT);
}

/*
 * main: 0-4 calls f1 (5-8) and f2 (9-11); f2 calls f1. Replacing f1 with
 * a 6-insn body moves f2 by +2 and must fix all three calls.
 */
static void splice_fixes_calls_and_infos(void **state)
{
	struct bpf_insn in[12] = { 0 }, body[6] = { 0 };
	struct bpf_func_info fi[3] = { { 0, 10 }, { 5, 11 }, { 9, 12 } };
	struct bpf_line_info li[6] = {
		{ .insn_off = 0 }, { .insn_off = 2 }, { .insn_off = 5 },
		{ .insn_off = 7 }, { .insn_off = 9 }, { .insn_off = 10 },
	};
	struct ps_prog_image img = {
		.insns = in, .n = 12, .func_info = fi, .func_info_cnt = 3,
		.func_info_rec_size = sizeof(fi[0]), .line_info = li,
		.line_info_cnt = 6, .line_info_rec_size = sizeof(li[0]),
	}, out;
	const struct bpf_line_info *ol;
	const struct bpf_func_info *of;

	(void)state;
	in[1] = (struct bpf_insn){ .code = BPF_JMP | BPF_CALL,
				   .src_reg = BPF_PSEUDO_CALL,
				   .imm = 3 }; /* -> 5 */
	in[2] = (struct bpf_insn){ .code = BPF_JMP | BPF_CALL,
				   .src_reg = BPF_PSEUDO_CALL,
				   .imm = 6 };				    /* -> 9 */
	in[3] = (struct bpf_insn){ .code = BPF_JMP | BPF_CALL, .imm = 26 }; /* helper */
	in[10] = (struct bpf_insn){ .code = BPF_JMP | BPF_CALL,
				    .src_reg = BPF_PSEUDO_CALL,
				    .imm = -6 }; /* -> 5 */
	for (int i = 0; i < 6; i++)
		body[i] = (struct bpf_insn){ .code = BPF_ALU | BPF_MOV | BPF_K, .imm = 100 + i };

	assert_int_equal(ps_splice_func(&img, 1, body, 6, &out), 0);
	assert_int_equal(out.n, 14);
	assert_int_equal(out.insns[1].imm, 3);	 /* f1 still starts at 5 */
	assert_int_equal(out.insns[2].imm, 8);	 /* f2 now at 11 */
	assert_int_equal(out.insns[3].imm, 26);	 /* helper ids untouched */
	assert_int_equal(out.insns[12].imm, -8); /* f2's call back to 5 */
	assert_int_equal(out.insns[5].imm, 100);
	assert_int_equal(out.insns[10].imm, 105);
	of = out.func_info;
	assert_int_equal(of[0].insn_off, 0);
	assert_int_equal(of[1].insn_off, 5);
	assert_int_equal(of[2].insn_off, 11);
	assert_int_equal(of[2].type_id, 12);
	ol = out.line_info;
	assert_int_equal(out.line_info_cnt, 5); /* line 7 was inside f1 */
	assert_int_equal(ol[2].insn_off, 5);
	assert_int_equal(ol[3].insn_off, 11);
	assert_int_equal(ol[4].insn_off, 12);
	ps_prog_image_free(&out);

	/* A call into the middle of the replaced function is an error. */
	in[1].imm = 4;
	assert_int_equal(ps_splice_func(&img, 1, body, 6, &out), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bad_expressions_are_refused),
		cmocka_unit_test(malformed_cbpf_is_refused),
		cmocka_unit_test(too_large_is_refused),
		cmocka_unit_test(translations_are_well_formed),
		cmocka_unit_test(dump_lists_both_languages),
		cmocka_unit_test(filter_file_drops_comments),
		cmocka_unit_test(splice_fixes_calls_and_infos),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
