// SPDX-License-Identifier: GPL-2.0-only
/*
 * --top's counts (user/top/topagg.h), how a packet is named in each
 * grouping (topkey.h), and the batch table and view filter (topview.h).
 * The full screen, keys and all, is tests/integration/it_top.sh's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "hooks.h"
#include "target.h"
#include "topkey.h"
#include "topview.h"
#include "who.h"

#define SECOND 1000000000ull

static void rows_count_and_rank(void **state)
{
	struct ps_top t;
	const struct ps_top_row *rows[8];
	struct ps_top_totals tot;
	struct ps_top_row *r;

	(void)state;
	ps_top_init(&t);
	r = ps_top_row(&t, PS_TOP_PROCESS, 1);
	strcpy(r->name, "big");
	for (int i = 0; i < 100; i++)
		ps_top_count(ps_top_row(&t, PS_TOP_PROCESS, 1), PS_TOP_OUT, 100, 1);
	r = ps_top_row(&t, PS_TOP_PROCESS, 2);
	strcpy(r->name, "many");
	for (int i = 0; i < 300; i++)
		ps_top_count(ps_top_row(&t, PS_TOP_PROCESS, 2), PS_TOP_IN, 10, 1);
	r = ps_top_row(&t, PS_TOP_PROCESS, 3);
	strcpy(r->name, "dropped");
	ps_top_count(r, PS_TOP_DROPPED, 60, 10); /* sampled: 10 a sample */
	ps_top_tick(&t, 2 * SECOND);

	assert_int_equal(ps_top_sorted(&t, PS_TOP_PROCESS, PS_TOP_BY_BYTES, rows, 8), 3);
	assert_string_equal(rows[0]->name, "big");
	assert_true(rows[0]->pps[PS_TOP_OUT] == 50 && rows[0]->bps[PS_TOP_OUT] == 5000);
	assert_string_equal(rows[1]->name, "many");
	assert_int_equal(ps_top_sorted(&t, PS_TOP_PROCESS, PS_TOP_BY_PACKETS, rows, 8), 3);
	assert_string_equal(rows[0]->name, "many");
	assert_int_equal(rows[0]->last_pkts, 300);
	assert_int_equal(ps_top_sorted(&t, PS_TOP_PROCESS, PS_TOP_BY_DROPS, rows, 1), 1);
	assert_string_equal(rows[0]->name, "dropped");
	assert_true(rows[0]->pps[PS_TOP_DROPPED] == 5);
	assert_int_equal(ps_top_sorted(&t, PS_TOP_PROCESS, PS_TOP_BY_NAME, rows, 8), 3);
	assert_string_equal(rows[0]->name, "big");
	assert_string_equal(rows[2]->name, "many");
	ps_top_totals(&t, PS_TOP_PROCESS, &tot);
	assert_int_equal(tot.rows, 3);
	assert_int_equal(tot.last_pkts, 410);
	assert_true(tot.pps[PS_TOP_IN] == 150 && tot.bps[PS_TOP_OUT] == 5000);
	/* Another grouping is counted apart. */
	assert_int_equal(ps_top_sorted(&t, PS_TOP_FLOW, PS_TOP_BY_BYTES, rows, 8), 0);
	ps_top_free(&t);
}

static void a_full_grouping_counts_the_rest_as_other(void **state)
{
	struct ps_top t;
	const struct ps_top_row **rows = calloc(PS_TOP_MAX_ROWS + 2, sizeof(*rows));
	size_t n;

	(void)state;
	assert_non_null(rows);
	ps_top_init(&t);
	for (uint64_t k = 0; k < PS_TOP_MAX_ROWS + 10; k++)
		ps_top_count(ps_top_row(&t, PS_TOP_FLOW, k * 7919), PS_TOP_IN, 64, 1);
	assert_int_equal(t.g[PS_TOP_FLOW].n, PS_TOP_MAX_ROWS);
	assert_int_equal(t.g[PS_TOP_FLOW].other.pkts[PS_TOP_IN], 10);
	ps_top_tick(&t, SECOND);
	n = ps_top_sorted(&t, PS_TOP_FLOW, PS_TOP_BY_NAME, rows, PS_TOP_MAX_ROWS + 2);
	assert_int_equal(n, PS_TOP_MAX_ROWS + 1);
	/* Its rows unnamed here, "(other)" sorts after them all. */
	assert_string_equal(rows[n - 1]->name, "(other)");
	assert_int_equal(rows[n - 1]->last_pkts, 10);
	ps_top_free(&t);
	free(rows);
}

/* Rows idle long enough go; the metrics' series only ever grow. */
static void idle_rows_go_and_series_only_grow(void **state)
{
	struct ps_top t;
	struct ps_top_series s[4], before[4];
	size_t n;

	(void)state;
	ps_top_init(&t);
	t.labels = 2;
	for (uint64_t k = 1; k <= 3; k++) {
		struct ps_top_row *r = ps_top_row(&t, PS_TOP_PROCESS, k);

		snprintf(r->name, sizeof(r->name), "p%llu", (unsigned long long)k);
		ps_top_count(r, PS_TOP_OUT, 100, (uint32_t)(10 * k)); /* p3 busiest */
	}
	ps_top_tick(&t, SECOND);
	n = ps_top_series(&t, PS_TOP_PROCESS, s, 4);
	assert_int_equal(n, 3); /* p3, p2, (other) */
	assert_string_equal(s[n - 1].name, "(other)");
	/* Named after their first interval: it stays in "other". */
	assert_int_equal(s[n - 1].pkts[PS_TOP_OUT], 60);
	memcpy(before, s, sizeof(s));
	ps_top_count(ps_top_row(&t, PS_TOP_PROCESS, 3), PS_TOP_OUT, 100, 5);
	ps_top_count(ps_top_row(&t, PS_TOP_PROCESS, 1), PS_TOP_OUT, 100, 1);
	n = ps_top_series(&t, PS_TOP_PROCESS, s, 4);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(s[i].name, "p3"))
			assert_int_equal(s[i].pkts[PS_TOP_OUT], 5);
	assert_int_equal(s[n - 1].pkts[PS_TOP_OUT], 61);
	/* p2 and p3 fall idle, p1 goes on: they go, their counts to "other". */
	for (int i = 0; i < PS_TOP_IDLE_TICKS + 1; i++) {
		ps_top_count(ps_top_row(&t, PS_TOP_PROCESS, 1), PS_TOP_OUT, 100, 1);
		ps_top_tick(&t, SECOND);
	}
	assert_int_equal(t.g[PS_TOP_PROCESS].n, 1);
	n = ps_top_series(&t, PS_TOP_PROCESS, s, 4);
	assert_int_equal(n, 2); /* p1, named once room was made, and "other" */
	assert_string_equal(s[0].name, "p1");
	assert_true(s[1].pkts[PS_TOP_OUT] >= before[2].pkts[PS_TOP_OUT] + 5 + 20);
	ps_top_free(&t);
}

/* An Ethernet frame: IPv4 (or IPv6) and UDP/TCP from src to dst. */
static size_t frame(uint8_t *b, int v6, uint8_t proto, uint16_t sport, uint16_t dport)
{
	size_t l3 = 14, l4;

	memset(b, 0, 128);
	b[12] = v6 ? 0x86 : 0x08;
	b[13] = v6 ? 0xdd : 0x00;
	if (v6) {
		b[l3] = 0x60;
		b[l3 + 6] = proto;
		b[l3 + 8] = 0x20, b[l3 + 9] = 0x01, b[l3 + 10] = 0x0d, b[l3 + 11] = 0xb8;
		b[l3 + 23] = 1; /* 2001:db8::1 */
		b[l3 + 24] = 0x20, b[l3 + 25] = 0x01, b[l3 + 26] = 0x0d, b[l3 + 27] = 0xb8;
		b[l3 + 39] = 2; /* 2001:db8::2 */
		l4 = l3 + 40;
	} else {
		const uint8_t a[8] = { 192, 0, 2, 1, 192, 0, 2, 2 };

		b[l3] = 0x45;
		b[l3 + 9] = proto;
		memcpy(b + l3 + 12, a, 8);
		l4 = l3 + 20;
	}
	b[l4] = (uint8_t)(sport >> 8), b[l4 + 1] = (uint8_t)sport;
	b[l4 + 2] = (uint8_t)(dport >> 8), b[l4 + 3] = (uint8_t)dport;
	return l4 + 8;
}

/* The same packet as seen coming back: addresses and ports swapped. */
static void swap(uint8_t *b)
{
	uint8_t t[4];

	memcpy(t, b + 26, 4), memcpy(b + 26, b + 30, 4), memcpy(b + 30, t, 4);
	memcpy(t, b + 34, 2), memcpy(b + 34, b + 36, 2), memcpy(b + 36, t, 2);
}

static const struct ps_top_row *only(struct ps_top *t, enum ps_top_group g)
{
	static const struct ps_top_row *rows[4];

	ps_top_tick(t, SECOND);
	assert_int_equal(ps_top_sorted(t, g, PS_TOP_BY_NAME, rows, 4), 1);
	return rows[0];
}

static void packets_are_named_in_every_grouping(void **state)
{
	struct ps_target tg = {
		.ifname = "eth0", .ifindex = 2, .hook = PS_HOOK_TC_EGRESS, .linktype = 1
	};
	struct ps_who who = { .ctx = PS_CTX_SKB,
			      .known = true,
			      .pid = 4242,
			      .comm = "curl",
			      .container = "docker:3f4e5a6b7c8d",
			      .container_key = 7 };
	struct ps_meta m = { .hook = PS_HOOK_TC_EGRESS, .cgroup_id = 77 };
	struct ps_drop_words dw = { .reason = "NO_SOCKET" };
	uint8_t b[128];
	struct ps_sink_pkt p = { .t = &tg, .m = &m, .data = b, .who = &who };
	const struct ps_top_row *r;
	struct ps_top t;

	(void)state;
	ps_top_init(&t);
	p.cap_len = p.wire_len = (uint32_t)frame(b, 0, 17, 40000, 53);
	ps_top_add(&t, &p, 1);
	/* The reply, in at tc-ingress: the same flow, the same process. */
	swap(b);
	m.hook = tg.hook = PS_HOOK_TC_INGRESS;
	ps_top_add(&t, &p, 1);
	r = only(&t, PS_TOP_FLOW);
	assert_string_equal(r->name, "192.0.2.1:40000 <> 192.0.2.2:53 udp");
	assert_true(r->pkts[PS_TOP_IN] == 1 && r->pkts[PS_TOP_OUT] == 1);
	assert_string_equal(only(&t, PS_TOP_PROCESS)->name, "curl (4242)");
	assert_string_equal(only(&t, PS_TOP_CONTAINER)->name, "docker:3f4e5a6b7c8d");
	assert_int_equal(t.g[PS_TOP_IFACE].n, 2); /* eth0 tc-egress, eth0 tc-ingress */
	assert_string_equal(only(&t, PS_TOP_POD)->name, "(none)");
	ps_top_free(&t);

	/* A Kubernetes container: by its pod's names; and packets of no
	 * container, from two cgroups, are one row of none. */
	ps_top_init(&t);
	who.names = (struct ps_ctr_names){
		.pod = "cart-7d9f", .pod_ns = "shop", .k8s_container = "cart", .image = "bb:1"
	};
	who.container_key = 8, who.pod_key = 9, who.k8s_ns_key = 10;
	ps_top_add(&t, &p, 1);
	assert_string_equal(only(&t, PS_TOP_CONTAINER)->name, "shop/cart-7d9f/cart");
	assert_string_equal(only(&t, PS_TOP_POD)->name, "shop/cart-7d9f");
	assert_string_equal(only(&t, PS_TOP_NAMESPACE)->name, "shop");
	ps_top_free(&t);
	/* A pod its records give no namespace: its name alone, as the
	 * words say it. */
	ps_top_init(&t);
	who.names.pod_ns[0] = '\0';
	who.k8s_ns_key = 0;
	ps_top_add(&t, &p, 1);
	assert_string_equal(only(&t, PS_TOP_CONTAINER)->name, "cart-7d9f/cart");
	assert_string_equal(only(&t, PS_TOP_POD)->name, "cart-7d9f");
	assert_string_equal(only(&t, PS_TOP_NAMESPACE)->name, "(none)");
	ps_top_free(&t);
	ps_top_init(&t);
	who = (struct ps_who){ .ctx = PS_CTX_SKB, .known = true, .pid = 1, .comm = "a" };
	ps_top_add(&t, &p, 1);
	m.cgroup_id = 78;
	who.pid = 2;
	ps_top_add(&t, &p, 1);
	assert_string_equal(only(&t, PS_TOP_CONTAINER)->name, "(none)");
	assert_string_equal(only(&t, PS_TOP_NAMESPACE)->name, "(none)");
	ps_top_free(&t);

	/* IPv6 TCP; nobody's; dropped, with its reason. */
	ps_top_init(&t);
	who = (struct ps_who){ .ctx = PS_CTX_NO_SOCKET };
	m.hook = tg.hook = PS_HOOK_DROP;
	m.verdict = 2;
	p.drop = &dw;
	p.cap_len = p.wire_len = (uint32_t)frame(b, 1, 6, 5555, 443);
	ps_top_add(&t, &p, 1);
	assert_string_equal(only(&t, PS_TOP_FLOW)->name,
			    "[2001:db8::2]:443 <> [2001:db8::1]:5555 tcp");
	assert_string_equal(only(&t, PS_TOP_PROCESS)->name, "(no local socket)");
	assert_string_equal(only(&t, PS_TOP_DROP)->name, "NO_SOCKET");
	assert_string_equal(only(&t, PS_TOP_IFACE)->name, "eth0 drop");
	assert_int_equal(only(&t, PS_TOP_PROCESS)->pkts[PS_TOP_DROPPED], 1);
	ps_top_free(&t);

	/* Followed packets: a row by where each came from; a first record by
	 * its own place, where packets came in. */
	ps_top_init(&t);
	p.drop = NULL;
	m.hook = tg.hook = PS_HOOK_TC_INGRESS;
	ps_top_add(&t, &p, 1);
	assert_string_equal(only(&t, PS_TOP_PATH)->name, "tc-ingress@eth0");
	ps_top_free(&t);
	ps_top_init(&t);
	tg = (struct ps_target){
		.ifname = "eth1", .ifindex = 3, .hook = PS_HOOK_TC_EGRESS, .linktype = 1
	};
	m.hook = PS_HOOK_TC_EGRESS;
	p.note = "prev=tc-ingress@eth0 after=23.417us";
	ps_top_add(&t, &p, 1);
	p.note = "prev=tc-ingress@eth0 after=31.002us";
	ps_top_add(&t, &p, 1);
	r = only(&t, PS_TOP_PATH);
	assert_string_equal(r->name, "tc-ingress@eth0 > tc-egress@eth1");
	assert_int_equal(r->pkts[PS_TOP_OUT], 2);
	p.note = "prev=tc-ingress@eth2 after=1.000us";
	ps_top_add(&t, &p, 1);
	p.note = NULL;
	ps_top_add(&t, &p, 1);
	ps_top_tick(&t, SECOND);
	assert_int_equal(t.g[PS_TOP_PATH].n, 3);
	ps_top_free(&t);
	tg = (struct ps_target){
		.ifname = "eth0", .ifindex = 2, .hook = PS_HOOK_TC_EGRESS, .linktype = 1
	};

	/* ARP, with attribution off. */
	ps_top_init(&t);
	p.who = NULL;
	p.drop = NULL;
	m.hook = tg.hook = PS_HOOK_XDP;
	memset(b, 0, 60);
	b[12] = 0x08, b[13] = 0x06;
	p.cap_len = p.wire_len = 60;
	ps_top_add(&t, &p, 1);
	assert_string_equal(only(&t, PS_TOP_FLOW)->name, "arp");
	assert_string_equal(only(&t, PS_TOP_PROCESS)->name, "(context off)");
	assert_int_equal(t.g[PS_TOP_DROP].n, 0); /* not dropped */
	ps_top_free(&t);
}

static void the_batch_table_adds_up_and_the_filter_picks(void **state)
{
	struct ps_top_cfg cfg = { .enabled = true, .batch = true };
	struct ps_target tg = {
		.ifname = "eth0", .ifindex = 2, .hook = PS_HOOK_TC_EGRESS, .linktype = 1
	};
	struct ps_meta m = { .hook = PS_HOOK_TC_EGRESS };
	uint8_t b[128];
	struct ps_sink_pkt p = { .t = &tg, .m = &m, .data = b };
	struct ps_topview v;
	struct ps_sink *s;
	char *text = NULL, err[256];
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	(void)state;
	assert_non_null(out);
	assert_int_equal(ps_topview_open(&v, &cfg, out), 0);
	s = ps_topview_sink(&v);
	assert_int_equal(ps_topview_set_filter(&v, "udp port 53", err, sizeof(err)), 0);
	assert_int_equal(ps_topview_set_filter(&v, "udp port", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "filter 'udp port': "));
	p.cap_len = p.wire_len = (uint32_t)frame(b, 0, 17, 40000, 53);
	for (int i = 0; i < 3; i++)
		s->ops->packet(s, &p);
	p.cap_len = p.wire_len = (uint32_t)frame(b, 0, 17, 40000, 54); /* filtered out */
	s->ops->packet(s, &p);
	assert_int_equal(ps_topview_run(&v, ps_topview_due(&v)), 0);
	fflush(out);
	assert_non_null(strstr(text, ", by process, most bytes first, "));
	assert_non_null(strstr(text, "\ntotal: 3 packets; in 0 pkt/s 0B/s, out "));
	assert_non_null(strstr(text, " 3  (context off)\n"));
	/* Another interval, nothing in it: no row, total 0. */
	assert_int_equal(ps_topview_run(&v, ps_topview_due(&v)), 0);
	fflush(out);
	assert_non_null(strstr(strstr(text, "(context off)"), "total: 0 packets"));
	s->ops->close(s, true);
	ps_topview_free(&v);
	fclose(out);
	free(text);
}

static void rates_in_units_people_read(void **state)
{
	char b[16];

	(void)state;
	ps_top_units(950, b, sizeof(b));
	assert_string_equal(b, "950");
	ps_top_units(999.6, b, sizeof(b));
	assert_string_equal(b, "1.00k");
	ps_top_units(12345, b, sizeof(b));
	assert_string_equal(b, "12.3k");
	ps_top_units(4.56e6, b, sizeof(b));
	assert_string_equal(b, "4.56M");
	ps_top_units(789e9, b, sizeof(b));
	assert_string_equal(b, "789G");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rows_count_and_rank),
		cmocka_unit_test(rates_in_units_people_read),
		cmocka_unit_test(a_full_grouping_counts_the_rest_as_other),
		cmocka_unit_test(idle_rows_go_and_series_only_grow),
		cmocka_unit_test(packets_are_named_in_every_grouping),
		cmocka_unit_test(the_batch_table_adds_up_and_the_filter_picks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
