// SPDX-License-Identifier: GPL-2.0-only
/*
 * Differential test of the in-kernel filter against libpcap's interpreter.
 * Every expression is compiled by libpcap, translated, spliced into the real
 * XDP and TC programs and run under BPF_PROG_TEST_RUN over a corpus of
 * hand-built frames and seeded random mutations of them. A frame must leave
 * the kernel exactly when pcap_offline_filter() keeps it. Needs root.
 *
 * Five views are checked: XDP with the frame linear (up to a page; bigger
 * frames go on in frags), XDP with the frame split at a random point into a
 * linear part and frags (loads straddle the split and go through
 * bpf_xdp_load_bytes), XDP of a program that is not multi-buffer (the
 * generic-mode one, and every one before 5.18) on frames of one buffer,
 * TC with the tag in the bytes, and TC with the tag out
 * of band (the stack's view at ingress), made by the test program
 * tc_vlan_oob. BPF_PROG_TEST_RUN takes the XDP linear length from the
 * context's data_end.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <cmocka.h>
#include "fixture.h"
#include "hooks.h"
#include "loader.h"
#include "filter.h"
#include "log.h"

#define MAX_PKT 9100
#define TC_MAX_LEN 3000	    /* skb test runs are limited to about a page */
#define XDP_LINEAR_MAX 3000 /* the linear part must fit the run's page */
#define N_BASE 240
#define N_MUTANTS 360

static const char *const expressions[] = {
	"host 10.0.0.1",
	"src host 192.0.2.1",
	"dst host 10.0.0.1",
	"net 10.0.0.0/8",
	"src net 192.0.2.0/24 and dst net 10.0.0.0/8",
	"port 443",
	"tcp port 80",
	"udp dst port 53",
	"src port 51000",
	"portrange 1000-2000",
	"tcp portrange 50000-52000",
	"sctp port 9",
	"tcp[tcpflags] & tcp-syn != 0",
	"tcp[tcpflags] & (tcp-syn|tcp-ack) == tcp-syn",
	"tcp[13] = 0x12",
	"tcp[tcpflags] & tcp-push != 0 and tcp port 80",
	"ip[0] & 0xf > 5",
	"ip[2:2] > 100",
	"ip[6:2] & 0x1fff != 0",
	"ip[8] < 64",
	"tcp[((tcp[12:1] & 0xf0) >> 2):4] = 0x47455420",
	"udp[8:2] = 0xabcd",
	"vlan",
	"vlan 100",
	"vlan 100 and udp",
	"vlan and vlan 300",
	"vlan and tcp port 443",
	"ip6",
	"ip6 and tcp",
	"ip6 host 2001:db8::1",
	"icmp6",
	"icmp",
	"ip6 and udp port 53",
	"ip6 and ip6[6] = 17",
	"less 100",
	"greater 1000",
	"len > 8000",
	"ether host 02:00:00:00:00:01",
	"ether src 02:00:00:00:00:02",
	"ether broadcast",
	"ether multicast",
	"ip multicast",
	"arp",
	"ether proto 0x88cc",
	"ip proto 132",
	"not tcp and not udp",
	"ether[8000:4] = 0x1f2f3f4f or ether[5000] = 7",
	"ether[ether[0] & 15] = 2",
	"ether[(ether[1] & 7) + 10:4] != 0x00020000",
	"(ip[2:2] << (ip[8] & 0x3f)) > 1000",
	"ip[2:2] / (ip[8] & 1) = 0",	 /* eBPF would give 0 for x/0 */
	"ip[2:2] % (ip[8] & 3) != 1000", /* eBPF would keep A for x%0 */
	"(ip[0] ^ ip[1]) & 0xff = 0x45",
	"udp and len - 42 = udp[4:2] - 8",
	"host 10.0.0.1 or host 10.0.0.2 or host 10.0.0.3 or host 10.0.0.4 or "
	"host 10.0.0.5 or host 10.0.0.6 or host 10.0.0.7 or host 10.0.0.8 or "
	"host 10.0.0.9 or host 10.0.0.10 or host 10.0.0.11 or host 10.0.0.12 or "
	"host 10.0.0.13 or host 10.0.0.14 or host 10.0.0.15 or host 10.0.0.16 or "
	"host 192.0.2.7 or host 192.0.2.8 or host 192.0.2.9 or host 192.0.2.2",
	"port 1 or port 2 or port 3 or port 4 or port 5 or port 6 or port 7 or "
	"port 8 or port 9 or port 10 or port 11 or port 12 or port 13 or "
	"port 14 or port 15 or port 16 or port 17 or port 18 or port 19 or "
	"port 20 or port 21 or port 22 or port 23 or port 24 or port 25 or "
	"port 26 or port 27 or port 28 or port 29 or port 30 or port 53",
};
#define N_EXPR (sizeof(expressions) / sizeof(expressions[0]))

struct pkt {
	uint32_t len;
	uint8_t b[MAX_PKT];
};

static struct pkt *corpus;
static size_t n_corpus;

/* xorshift64*: a fixed seed makes every run test the same frames. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(uint32_t n)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 0x2545f4914f6cdd1dull) >> 32) % n;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}
static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v & 0xffff);
}

/* One frame from random choices of every header field the filters test. */
static void build_frame(struct pkt *p)
{
	static const uint16_t ports[] = { 443, 51000, 80, 1024, 53, 9, 1500, 40000, 22 };
	static const uint32_t v4[] = { 0x0a000001, 0xc0000201, 0xc0000202,
				       0x0a000010, 0xe0000001, 0xc6336401 };
	static const uint16_t vids[] = { 100, 200, 300 };
	uint8_t *b = p->b, *l3, *l4;
	uint32_t off = 12, l4len, target;
	int vlans = rnd(4) == 0 ? 2 : rnd(3) == 0 ? 1 : 0, l3kind = rnd(10), proto;

	memset(b, 0, MAX_PKT);
	/* dst: unicast, broadcast or multicast; src one of two */
	if (rnd(8) == 0)
		memset(b, 0xff, 6);
	else
		memcpy(b,
		       (uint8_t[]){ rnd(6) == 0 ? 0x01 : 0x02, 0, rnd(6) == 0 ? 0x5e : 0, 0, 0,
				    1 + rnd(2) },
		       6);
	memcpy(b + 6, (uint8_t[]){ 0x02, 0, 0, 0, 0, 1 + rnd(2) }, 6);
	for (int v = 0; v < vlans; v++) {
		put16(b + off, v == 0 && vlans == 2 ? 0x88a8 : 0x8100);
		put16(b + off + 2, (rnd(8) << 13) | vids[rnd(3)]);
		off += 4;
	}
	l3 = b + off + 2;
	proto = (int[]){ 6, 17, 1, 132, 6, 17 }[rnd(6)];
	if (l3kind < 6) { /* IPv4, sometimes with options or fragmented */
		int ihl = rnd(5) == 0 ? 5 + 1 + rnd(3) : 5;

		put16(b + off, 0x0800);
		l3[0] = 0x40 | ihl;
		l3[1] = rnd(4) * 0x20;
		put16(l3 + 6, rnd(6) == 0 ? (rnd(2) ? 0x2000 : 0x00b9) : 0x4000);
		l3[8] = 1 + rnd(128);
		l3[9] = proto;
		put32(l3 + 12, v4[rnd(6)]);
		put32(l3 + 16, v4[rnd(6)]);
		for (int i = 20; i < ihl * 4; i++)
			l3[i] = 1; /* NOP options */
		l4 = l3 + ihl * 4;
	} else if (l3kind < 9) { /* IPv6, sometimes after a hop-by-hop header */
		int hbh = rnd(4) == 0;

		put16(b + off, 0x86dd);
		l3[0] = 0x60;
		if (proto == 1)
			proto = 58;
		l3[6] = hbh ? 0 : proto;
		l3[7] = 64;
		memcpy(l3 + 8, (uint8_t[]){ 0x20, 0x01, 0x0d, 0xb8 }, 4);
		l3[23] = 1 + rnd(2);
		memcpy(l3 + 24, (uint8_t[]){ 0x20, 0x01, 0x0d, 0xb8 }, 4);
		l3[39] = 1 + rnd(2);
		l4 = l3 + 40;
		if (hbh) {
			l4[0] = proto;
			l4[1] = 0;
			l4 += 8;
		}
	} else { /* ARP or LLDP */
		put16(b + off, rnd(2) ? 0x0806 : 0x88cc);
		l4 = l3 + 28;
		proto = -1;
	}
	if (proto == 6) {
		put16(l4, ports[rnd(9)]);
		put16(l4 + 2, ports[rnd(9)]);
		l4[12] = (5 + rnd(3)) << 4;
		l4[13] = rnd(2) ? 0x02 : rnd(2) ? 0x12 : rnd(64);
		l4len = (l4[12] >> 4) * 4;
		if (rnd(4) == 0)
			memcpy(l4 + l4len, "GET ", 4);
	} else if (proto == 17 || proto == 132) {
		put16(l4, ports[rnd(9)]);
		put16(l4 + 2, ports[rnd(9)]);
		l4len = 8;
		if (rnd(4) == 0)
			put16(l4 + 8, 0xabcd);
	} else {
		l4[0] = 8;
		l4len = 8;
	}
	/* Lengths: mostly small, some MTU-sized, a few jumbo. */
	target = (uint32_t)(l4 - b) + l4len +
		 (rnd(3) ? rnd(64) :
		  rnd(6) ? rnd(1500) :
			   8000 + rnd(1000));
	if (target > MAX_PKT)
		target = MAX_PKT;
	for (uint32_t i = (uint32_t)(l4 - b) + l4len + 4; i < target; i++)
		b[i] = (uint8_t)(i * 7 + 3);
	if (target > 8004)
		put32(b + 8000, 0x1f2f3f4f);
	if (target > 5000 && rnd(2))
		b[5000] = 7;
	p->len = target;
	/* Length fields, right most of the time. */
	if (l3kind < 6) {
		put16(l3 + 2, rnd(8) ? (uint16_t)(target - (l3 - b)) : rnd(65536));
		if (proto == 17)
			put16(l4 + 4, (uint16_t)(target - (l4 - b)));
	} else if (l3kind < 9) {
		put16(l3 + 4, (uint16_t)(target - (l3 - b) - 40));
	}
}

/* Truncate, flip header bytes, or both. */
static void mutate(struct pkt *dst, const struct pkt *src)
{
	*dst = *src;
	switch (rnd(3)) {
	case 0:
		dst->len = rnd(src->len < 80 ? src->len + 1 : 80);
		break;
	case 1:
		for (int i = 0, n = 1 + rnd(4); i < n && dst->len; i++)
			dst->b[rnd(dst->len < 64 ? dst->len : 64)] ^= 1u << rnd(8);
		break;
	default:
		dst->b[rnd(dst->len < 64 ? dst->len ? dst->len : 1 : 64)] = rnd(256);
		dst->len = dst->len ? rnd(dst->len) + 1 : 0;
	}
}

static int setup_corpus(void **state)
{
	(void)state;
	corpus = calloc(N_BASE + N_MUTANTS + 2, sizeof(*corpus));
	if (!corpus)
		return -1;
	for (int i = 0; i < N_BASE; i++)
		build_frame(&corpus[n_corpus++]);
	for (int i = 0; i < N_MUTANTS; i++)
		mutate(&corpus[n_corpus++], &corpus[rnd(N_BASE)]);
	/* The smallest frames test_run takes: 14 bytes, and 15. */
	for (int i = 0; i < 2; i++) {
		corpus[n_corpus] = corpus[i];
		corpus[n_corpus++].len = 14 + i;
	}
	return 0;
}

static int teardown_corpus(void **state)
{
	(void)state;
	free(corpus);
	return 0;
}

struct records {
	int n;
	uint32_t cap_len, wire_len;
};

static void on_sample(void *ctx, int cpu, void *data, __u32 size)
{
	struct records *r = ctx;
	struct ps_meta m;

	(void)cpu;
	/* A perf record's data is only 4-byte aligned: copy, do not cast. */
	if (size >= sizeof(m)) {
		memcpy(&m, data, sizeof(m));
		r->cap_len = m.cap_len;
		r->wire_len = m.wire_len;
	}
	r->n++;
}

enum view { V_XDP, V_XDP_SPLIT, V_XDP_ONE, V_TC, V_TC_OOB, N_VIEWS };
static const char *const view_names[N_VIEWS] = { "xdp", "xdp-split", "xdp-one-buffer", "tc",
						 "tc-vlan-oob" };

static bool has_outer_tag(const struct pkt *p)
{
	/* 22: the harness pops an inner tag too, as the stack would */
	return p->len >= 22 &&
	       ((p->b[12] == 0x81 && p->b[13] == 0x00) || (p->b[12] == 0x88 && p->b[13] == 0xa8));
}

static void dump_packet(const struct pkt *p)
{
	fprintf(stderr, "packet (%u bytes):", p->len);
	for (uint32_t i = 0; i < p->len && i < 80; i++)
		fprintf(stderr, "%s%02x", i % 16 ? " " : "\n  ", p->b[i]);
	fprintf(stderr, "\n");
}

static void differential(void **state)
{
	struct records rec = { 0 };
	uint64_t runs[N_VIEWS] = { 0 }, matches = 0, mismatches = 0, refused = 0;

	(void)state;

	for (size_t e = 0; e < N_EXPR; e++) {
		struct ps_filter f;
		struct ps_loader loader;
		struct ps_fx_vlan_oob oob;
		struct perf_buffer *pb;
		char err[512];
		int fds[N_VIEWS];

		if (ps_filter_build(&f, strdup(expressions[e]), PS_SNAPLEN_MAX, err, sizeof(err)))
			fail_msg("'%s': %s", expressions[e], err);
		/* The XDP program and TC ingress with the filter spliced in, as
		 * the binary loads them. */
		/* With the context filter too (--pid, --comm): it runs before
		 * the sampler, on the stack the filter shares. */
		if (ps_loader_load(&loader, &(struct ps_load_opts){
						    .hooks = PS_HOOK_BIT(PS_HOOK_XDP) |
							     PS_HOOK_BIT(PS_HOOK_TC_INGRESS) |
							     PS_HOOK_BIT(PS_HOOK_TC_EGRESS),
						    .max_ifaces = 1,
						    .filter = &f,
						    .xdp_native = true,
						    .ctx = &(struct ps_ctx_knobs){
							    .enabled = true,
							    .filter = PS_CTXF_PID | PS_CTXF_COMM,
							    .pid = 1 } }))
			fail_msg("'%s' with --pid and --comm does not load (run with "
				 "PS_VERBOSE=2 for the verifier log)",
				 expressions[e]);
		ps_loader_close(&loader);
		if (ps_loader_load(&loader,
				   &(struct ps_load_opts){
					   .hooks = PS_HOOK_BIT(PS_HOOK_XDP) |
						    PS_HOOK_BIT(PS_HOOK_TC_INGRESS),
					   .max_ifaces = 1,
					   .filter = &f,
					   .xdp_native = true,
					   .xdp_skb = true,
					   .ctx = &(struct ps_ctx_knobs){ .enabled = true } }))
			fail_msg("'%s' does not load (run with PS_VERBOSE=2 for the verifier log)",
				 expressions[e]);
		assert_int_equal(ps_fx_vlan_oob_open(&oob, ps_loader_prog_fd(&loader,
									     PS_PROG_TC_INGRESS)),
				 0);
		pb = perf_buffer__new(ps_loader_events_fd(&loader), 64, on_sample, NULL, &rec,
				      NULL);
		assert_true(pb && !libbpf_get_error(pb));
		fds[V_XDP] = fds[V_XDP_SPLIT] = ps_loader_prog_fd(&loader, PS_PROG_XDP);
		/* Not multi-buffer: the filter translated for one buffer
		 * (PS_XLATE_XDP_LINEAR), as every XDP program before 5.18. */
		fds[V_XDP_ONE] = ps_loader_prog_fd(&loader, PS_PROG_XDP_SKB);
		fds[V_TC] = ps_loader_prog_fd(&loader, PS_PROG_TC_INGRESS);
		fds[V_TC_OOB] = oob.fd;

		for (size_t i = 0; i < n_corpus; i++) {
			const struct pkt *p = &corpus[i];
			uint32_t want = ps_cbpf_run(f.eth.cbpf, f.eth.n_cbpf, p->b, p->len);

			if (p->len < 14)
				continue; /* test_run wants an Ethernet header */
			matches += want != 0;
			for (int v = 0; v < N_VIEWS; v++) {
				uint32_t linear = p->len < XDP_LINEAR_MAX ? p->len : XDP_LINEAR_MAX;
				uint32_t skb_len = p->len;
				int rc;

				if (v >= V_TC && p->len > TC_MAX_LEN)
					continue;
				if (v == V_XDP_ONE && p->len > XDP_LINEAR_MAX)
					continue;
				if (v == V_TC_OOB) {
					if (!has_outer_tag(p))
						continue;
					skb_len -= 4;
				}
				/* split: a seeded point inside the frame */
				if (v == V_XDP_SPLIT)
					linear = (uint32_t)((i * 2654435761u) % (linear + 1));
				rec.n = 0;
				rc = ps_fx_run(fds[v], v < V_TC, p->b, p->len, linear, 1, NULL,
					       NULL);
				if (rc) {
					/* The kernel's skb test harness refuses frames
					 * whose IP header is cut short; XDP still runs them. */
					if (v >= V_TC && rc == -EINVAL && p->len < 64) {
						refused++;
						continue;
					}
					dump_packet(p);
					fail_msg("test run failed at %s: %s", view_names[v],
						 strerror(-rc));
				}
				perf_buffer__consume(pb);
				runs[v]++;
				if (rec.n == (want != 0) &&
				    (!rec.n || rec.cap_len == (want < skb_len ? want : skb_len)))
					continue;
				mismatches++;
				fprintf(stderr,
					"MISMATCH '%s' at %s: libpcap %u, kernel %d record(s), cap %u\n",
					expressions[e], view_names[v], want, rec.n, rec.cap_len);
				dump_packet(p);
			}
		}
		perf_buffer__free(pb);
		ps_fx_vlan_oob_close(&oob);
		ps_loader_close(&loader);
		ps_filter_free(&f);
	}
	printf("filter differential: %zu expressions x %zu frames; runs: xdp linear %llu, "
	       "xdp split into frags %llu, xdp of one buffer %llu, tc %llu, "
	       "tc with tag out of band %llu (%llu truncated frames refused by the skb test harness); "
	       "%llu expected matches; %llu mismatches\n",
	       N_EXPR, n_corpus, (unsigned long long)runs[V_XDP],
	       (unsigned long long)runs[V_XDP_SPLIT], (unsigned long long)runs[V_XDP_ONE],
	       (unsigned long long)runs[V_TC], (unsigned long long)runs[V_TC_OOB],
	       (unsigned long long)refused, (unsigned long long)matches,
	       (unsigned long long)mismatches);
	assert_true(N_EXPR >= 40);
	assert_true(matches > 0);
	assert_int_equal(mismatches, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(differential),
	};
	const char *v = getenv("PS_VERBOSE");
	int skip = ps_fx_require_bpf("bpf_filter_diff");

	if (skip)
		return skip;
	ps_log_set_verbosity(v ? atoi(v) : 0);
	ps_log_hook_libs();
	return cmocka_run_group_tests(tests, setup_corpus, teardown_corpus);
}
