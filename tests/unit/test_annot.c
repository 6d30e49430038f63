// SPDX-License-Identifier: GPL-2.0-only
/*
 * A packet's annotation: filled whole from what the kernel and the owner
 * table say, compared whole as the capture file's cache key, and said in
 * words whose keys the writer and the reader share.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "capfile.h"
#include "sink.h"
#include "words.h"

static const struct ps_meta base_meta = {
	.hook = PS_HOOK_TC_EGRESS,
	.flags = 0,
	.ctx = PS_CTX_SKB,
	.cpu = 3,
	.rx_queue = 2,
	.verdict = -1,
	.location = 0xffffffff81000000ull,
	.sock_cookie = 4242,
	.cgroup_id = 77,
};
static const struct ps_who base_who = {
	.ctx = PS_CTX_SKB, .known = true, .pid = 100, .tid = 101, .proc = 1, .comm = "curl"
};

/* What the compare leaves out of the kernel's part, as the test expects
 * it: what differs from packet to packet and no word says. */
#define SKIPPED(f)                                                            \
	{                                                                     \
		offsetof(struct ps_meta, f), sizeof(((struct ps_meta *)0)->f) \
	}
static const struct {
	size_t off, len;
} skipped[] = {
	SKIPPED(ts_ns),	  SKIPPED(seq),	      SKIPPED(ifindex),	 SKIPPED(wire_len),
	SKIPPED(cap_len), SKIPPED(net_off),   SKIPPED(vlan_tci), SKIPPED(vlan_proto),
	SKIPPED(pool),	  SKIPPED(chunk_off), SKIPPED(pad1),	 SKIPPED(pkt_id),
};

static bool is_skipped(size_t b)
{
	for (size_t i = 0; i < sizeof(skipped) / sizeof(skipped[0]); i++)
		if (b >= skipped[i].off && b < skipped[i].off + skipped[i].len)
			return true;
	return false;
}

/* The owner table's inputs, each changed in every bit. */
static void w_known(struct ps_who *w)
{
	w->known = !w->known;
}
static void w_pid(struct ps_who *w)
{
	w->pid = ~w->pid;
}
static void w_tid(struct ps_who *w)
{
	w->tid = ~w->tid;
}
static void w_proc(struct ps_who *w)
{
	w->proc = ~w->proc;
}

static void (*const who_change[])(struct ps_who *) = { w_known, w_pid, w_tid, w_proc };

/* Every byte of the kernel's ps_meta counts in the annotation but those
 * left out, whatever fields ps_meta has: a field added to it is compared
 * with no input to write here; each of the owner's inputs counts, and
 * every byte of the annotation is one of those or left out or padding. */
static void every_field_is_filled(void **state)
{
	struct ps_annot base = ps_annot_of(&base_meta, &base_who), a;
	uint8_t reached[sizeof(struct ps_annot)] = { 0 };

	(void)state;
	for (size_t b = 0; b < sizeof(struct ps_meta); b++) {
		struct ps_meta m = base_meta;
		bool same;

		((uint8_t *)&m)[b] ^= 0xff;
		a = ps_annot_of(&m, &base_who);
		same = ps_annot_same(&base, &a);
		if (same != is_skipped(b))
			fail_msg("byte %zu of ps_meta %s", b,
				 same ? "is left out of the compare" :
					"is compared but should not be");
		if (ps_annot_skipped(offsetof(struct ps_annot, k) + b) != is_skipped(b))
			fail_msg("byte %zu of ps_meta: ps_annot_skipped disagrees", b);
		for (size_t i = 0; i < sizeof(a); i++)
			if (((uint8_t *)&a)[i] != ((uint8_t *)&base)[i])
				reached[i] = 1;
	}
	for (size_t i = 0; i < sizeof(who_change) / sizeof(who_change[0]); i++) {
		struct ps_who w = base_who;

		who_change[i](&w);
		a = ps_annot_of(&base_meta, &w);
		if (ps_annot_same(&base, &a))
			fail_msg("owner change %zu does not reach the annotation", i);
		for (size_t b = 0; b < sizeof(a); b++)
			if (((uint8_t *)&a)[b] != ((uint8_t *)&base)[b])
				reached[b] = 1;
	}
	for (size_t b = 0; b < sizeof(reached); b++)
		if (!reached[b] && (b < offsetof(struct ps_annot, pad) ||
				    b >= offsetof(struct ps_annot, pad) + sizeof(base.pad)))
			fail_msg("byte %zu of the annotation is reached by no input", b);
	/* Without an owner: none of the owner's fields. */
	a = ps_annot_of(&base_meta, NULL);
	assert_false(a.known);
	assert_int_equal(a.pid, 0);
	assert_int_equal(a.tid, 0);
	assert_int_equal(a.proc, 0);
}

/* The cache serves a packet only for the same annotation, every byte
 * compared but those left out, and never one with a note of its own. */
static void cache_key_is_compared_whole(void **state)
{
	struct ps_epb_cache cs = { .valid = true };
	struct ps_sink_pkt p = { 0 };

	(void)state;
	cs.key = ps_annot_of(&base_meta, &base_who);
	p.a = cs.key;
	assert_true(ps_epb_cache_fits(&cs, &p));
	for (size_t b = 0; b < sizeof(p.a); b++) {
		p.a = cs.key;
		((uint8_t *)&p.a)[b] ^= 0x01;
		if (ps_epb_cache_fits(&cs, &p) != ps_annot_skipped(b))
			fail_msg("a packet differing in byte %zu of its annotation %s", b,
				 ps_annot_skipped(b) ? "misses" : "fits");
	}
	p.a = cs.key;
	p.note = "trigger=tcp";
	assert_false(ps_epb_cache_fits(&cs, &p));
	p.note = NULL;
	cs.valid = false;
	assert_false(ps_epb_cache_fits(&cs, &p));
}

static void words_are_put_and_got(void **state)
{
	char buf[64], v[16];
	int n = 0;

	(void)state;
	for (int w = 0; w < PS_WORD_N; w++) {
		n = ps_word_put(buf, sizeof(buf), 0, (enum ps_word)w, "%d", w + 10);
		assert_int_equal(n, (int)strlen(ps_word_key((enum ps_word)w)) + 3);
		assert_non_null(ps_word_get(buf, (enum ps_word)w, v, sizeof(v)));
		assert_int_equal(atoi(v), w + 10);
	}
	n = ps_word_put(buf, sizeof(buf), 0, PS_WORD_COMM, "cat");
	n = ps_word_put(buf, sizeof(buf), n, PS_WORD_AT, "ip_rcv+0x1");
	assert_string_equal(buf, "comm=cat at=ip_rcv+0x1");
	assert_int_equal(n, (int)strlen(buf));
	/* "at" inside "cat" is no word: the one after the space is. */
	assert_string_equal(ps_word_get(buf, PS_WORD_AT, v, sizeof(v)), "ip_rcv+0x1");
	assert_null(ps_word_get(buf, PS_WORD_PID, v, sizeof(v)));
	assert_null(ps_word_get(buf, PS_WORD_AT, v, 5)); /* too long for buf */
	assert_null(ps_word_get("pid= comm=x", PS_WORD_PID, v, sizeof(v)));
	/* Full: the length snprintf would say, the text cut. */
	n = ps_word_put(buf, 8, 0, PS_WORD_CONTAINER, "%s", "docker:abc");
	assert_int_equal(n, (int)strlen("container=docker:abc"));
	assert_string_equal(buf, "contain");
	assert_int_equal(ps_word_put(buf, 8, n, PS_WORD_PID, "1"), n);
}

/* What the writer says, the reader reads: an xdp-exit's verdict and a
 * drop's reason, as -r takes them back. */
static void comment_reads_back(void **state)
{
	struct ps_meta m = base_meta;
	struct ps_drop_words drop = { .reason = "NO_SOCKET", .at = "__udp4_lib_rcv+0x6f2" };
	struct ps_sink_pkt p = { .m = &m, .who = &base_who };
	char c[400], v[32];

	(void)state;
	m.hook = PS_HOOK_XDP_EXIT;
	m.verdict = 1; /* XDP_DROP */
	p.a = ps_annot_of(&m, p.who);
	ps_sink_comment(c, sizeof(c), &p, "sample=1/10", PS_COMMENT_LINE);
	assert_string_equal(c, "hook=xdp-exit cpu=3 queue=2 sample=1/10 verdict=drop pid=100 "
			       "tid=101 comm=curl");
	assert_string_equal(ps_word_get(c, PS_WORD_VERDICT, v, sizeof(v)), "drop");
	m.hook = PS_HOOK_DROP;
	m.flags = PS_F_CLOCK_FALLBACK;
	p.drop = &drop;
	p.note = "trigger=udp";
	p.a = ps_annot_of(&m, p.who);
	ps_sink_comment(c, sizeof(c), &p, NULL, PS_COMMENT_BLOCK);
	assert_string_equal(c, "clock=fallback drop=NO_SOCKET at=__udp4_lib_rcv+0x6f2 "
			       "pid=100 tid=101 comm=curl trigger=udp");
	assert_string_equal(ps_word_get(c, PS_WORD_DROP, v, sizeof(v)), "NO_SOCKET");
	assert_string_equal(ps_word_get(c, PS_WORD_TRIGGER, v, sizeof(v)), "udp");
	/* An owner not known: a line says why, a block nothing (its CPU is
	 * in the packet id), so a plain packet's block has no comment. */
	struct ps_who unknown = { .ctx = PS_CTX_LOOKUP };

	m.hook = PS_HOOK_TC_INGRESS;
	m.flags = 0;
	p = (struct ps_sink_pkt){ .m = &m, .who = &unknown };
	p.a = ps_annot_of(&m, p.who);
	ps_sink_comment(c, sizeof(c), &p, NULL, PS_COMMENT_LINE);
	assert_string_equal(c, "hook=tc-ingress cpu=3 queue=2 owner=unknown:socket-not-found");
	assert_int_equal(ps_sink_comment(c, sizeof(c), &p, NULL, PS_COMMENT_BLOCK), 0);
	assert_string_equal(c, "");
	ps_sink_comment(c, sizeof(c), &p, "sample=1/10", PS_COMMENT_BLOCK);
	assert_string_equal(c, "sample=1/10");
	p.note = "trigger=udp";
	ps_sink_comment(c, sizeof(c), &p, NULL, PS_COMMENT_BLOCK);
	assert_string_equal(c, "trigger=udp");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_field_is_filled),
		cmocka_unit_test(cache_key_is_compared_whole),
		cmocka_unit_test(words_are_put_and_got),
		cmocka_unit_test(comment_reads_back),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
