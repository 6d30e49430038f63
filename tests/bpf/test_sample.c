// SPDX-License-Identifier: GPL-2.0-only
/*
 * The in-kernel sampler under BPF_PROG_TEST_RUN: count mode keeps exactly
 * every Nth packet, random mode keeps 1/N within 5 sigma over 1,000,000
 * runs, flow mode decides the same for both directions of a flow at XDP
 * and at TC (tag in the bytes and out of band) and keeps ~1/N of 10,000
 * flows, and the rate cap never lets more through than its bucket allows.
 * Needs root.
 */
#define _GNU_SOURCE
#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <cmocka.h>
#include "cli.h"
#include "fixture.h"
#include "hooks.h"
#include "loader.h"
#include "sampling.h"

#define FRAME PS_FX_UDP_FRAME

struct fixture {
	struct ps_loader loader;   /* XDP and both TC programs, as the binary loads them */
	struct ps_fx_vlan_oob oob; /* TC ingress with the tag out of band */
};

static void load(struct fixture *f, const struct ps_sampling *s)
{
	struct ps_load_opts o = {
		.hooks = PS_HOOK_BIT(PS_HOOK_XDP) | PS_HOOKS_TC,
		.sampling = s,
		.xdp_native = true,
	};

	memset(f, 0, sizeof(*f));
	assert_int_equal(ps_loader_load(&f->loader, &o), 0);
	assert_int_equal(ps_loader_add_iface(&f->loader, LO_IFINDEX, false), 0);
	assert_int_equal(ps_fx_vlan_oob_open(&f->oob,
					     ps_loader_prog_fd(&f->loader, PS_PROG_TC_INGRESS)),
			 0);
}

static void unload(struct fixture *f)
{
	ps_fx_vlan_oob_close(&f->oob);
	ps_loader_close(&f->loader);
}

static struct ps_sampling sampling(unsigned int mode, uint64_t n, uint64_t rate)
{
	struct ps_opts o = { .sample_mode = mode, .sample_n = n, .max_rate = rate };
	struct ps_sampling s;

	ps_cli_sampling(&o, &s);
	s.seed = 0x5eed;
	return s;
}

/* Run prog repeat times on one frame; returns the kernel's ns per run. */
static uint32_t run(int fd, bool xdp, const uint8_t *pkt, uint32_t len, uint32_t repeat)
{
	uint32_t ns;

	assert_int_equal(ps_fx_run(fd, xdp, pkt, len, len, repeat, NULL, &ns), 0);
	return ns;
}

static struct ps_counters counters(struct fixture *f, unsigned int hook)
{
	struct ps_counters c;

	assert_int_equal(ps_loader_read_counter(&f->loader, LO_IFINDEX, hook, &c), 0);
	/* every packet ends in exactly one stage */
	assert_int_equal(c.seen,
			 c.filtered + c.sampled_out + c.rate_limited + c.emitted + c.output_errors);
	return c;
}

/* Chosen = handed to bpf_perf_event_output (no reader here: it fails). */
static uint64_t chosen(const struct ps_counters *c)
{
	return c->emitted + c->output_errors;
}

/* A UDP frame through XDP `repeat` times; the XDP counters after. */
static struct ps_counters xdp_udp_runs(struct fixture *f, uint32_t repeat)
{
	uint8_t pkt[FRAME];

	ps_fx_frame_udp(pkt);
	run(ps_loader_prog_fd(&f->loader, PS_PROG_XDP), true, pkt, FRAME, repeat);
	return counters(f, PS_HOOK_XDP);
}

static void count_mode_keeps_every_nth(void **state)
{
	struct ps_sampling s = sampling(PS_SAMPLE_COUNT, 7, 0);
	struct fixture f;
	struct ps_counters c;

	(void)state;
	load(&f, &s);
	c = xdp_udp_runs(&f, 6);
	assert_int_equal(chosen(&c), 0); /* not yet the 7th */
	c = xdp_udp_runs(&f, 1);
	assert_int_equal(chosen(&c), 1); /* the 7th */
	c = xdp_udp_runs(&f, 7000 - 7);
	assert_int_equal(c.seen, 7000);
	assert_int_equal(chosen(&c), 1000);
	assert_int_equal(c.sampled_out, 6000);
	unload(&f);
}

static void random_mode_is_one_in_n(void **state)
{
	const uint64_t runs = 1000000, n = 100;
	struct ps_sampling s = sampling(PS_SAMPLE_RANDOM, n, 0);
	double mean = (double)runs / n, sigma = sqrt(runs * (1.0 / n) * (1 - 1.0 / n));
	struct fixture f;
	struct ps_counters c;

	(void)state;
	load(&f, &s);
	c = xdp_udp_runs(&f, runs);
	printf("random 1/%llu over %llu runs: %llu chosen (expected %.0f, sigma %.1f, %+.2f sigma)\n",
	       (unsigned long long)n, (unsigned long long)runs, (unsigned long long)chosen(&c),
	       mean, sigma, (chosen(&c) - mean) / sigma);
	assert_int_equal(c.seen, runs);
	assert_true(fabs(chosen(&c) - mean) <= 5 * sigma);
	unload(&f);
}

/*
 * Random mode's generator, seen from outside: the gaps between chosen
 * packets must be geometric with p = 1/n. A short period or a pattern
 * fails the chi-square test (df 20; 60 is past its 99.999th percentile).
 */
static void random_mode_gaps_are_geometric(void **state)
{
	const uint32_t n = 8, runs = 80000, buckets = 21; /* gaps 1..20, >20 */
	struct ps_sampling s = sampling(PS_SAMPLE_RANDOM, n, 0);
	uint64_t seen_gap[21] = { 0 }, gaps = 0, prev = 0, gap = 0;
	const double p = 1.0 / n;
	double chi2 = 0, tail = 1;
	uint8_t pkt[FRAME];
	struct fixture f;

	(void)state;
	load(&f, &s);
	ps_fx_frame_udp(pkt);
	for (uint32_t i = 0; i < runs; i++) {
		struct ps_counters c;

		run(ps_loader_prog_fd(&f.loader, PS_PROG_XDP), true, pkt, FRAME, 1);
		c = counters(&f, PS_HOOK_XDP);
		gap++;
		if (chosen(&c) != prev) {
			seen_gap[gap > 20 ? 20 : gap - 1]++;
			gaps++;
			gap = 0;
			prev = chosen(&c);
		}
	}
	for (uint32_t k = 0; k < buckets; k++) {
		double pk = k < buckets - 1 ? p * pow(1 - p, k) : tail;
		double expect = gaps * pk;

		tail -= pk;
		chi2 += (seen_gap[k] - expect) * (seen_gap[k] - expect) / expect;
	}
	printf("random 1/%u: %llu gaps, chi-square %.1f over %u buckets\n", n,
	       (unsigned long long)gaps, chi2, buckets);
	assert_true(fabs((double)gaps - runs * p) <= 5 * sqrt(runs * p * (1 - p)));
	assert_true(chi2 < 60);
	unload(&f);
}

/* One TCP/UDP frame of a flow, src -> dst, optionally VLAN-tagged or IPv6. */
static uint32_t flow_frame(uint8_t *b, uint32_t flow, bool reverse, int kind)
{
	uint32_t a = 0x0a000000 | (flow & 0xffff), z = 0xc0000000 | (flow >> 4);
	uint16_t pa = 1024 + (flow % 50000), pz = kind == 1 ? 53 : 443;
	uint8_t *l3, *l4;
	uint32_t off = 12;

	memset(b, 0, 128);
	memcpy(b, reverse ? "\x02\0\0\0\0\x01\x02\0\0\0\0\x02" : "\x02\0\0\0\0\x02\x02\0\0\0\0\x01",
	       12);
	if (kind == 2) { /* VLAN 100 */
		memcpy(b + 12, "\x81\x00\x00\x64", 4);
		off = 16;
	}
	l3 = b + off + 2;
	if (kind == 3) { /* IPv6 TCP */
		memcpy(b + off, "\x86\xdd", 2);
		l3[0] = 0x60;
		l3[6] = 6;
		l3[7] = 64;
		memcpy(l3 + (reverse ? 24 : 8), "\x20\x01\x0d\xb8", 4);
		memcpy(l3 + (reverse ? 8 : 24), "\x20\x01\x0d\xb8", 4);
		memcpy(l3 + (reverse ? 24 : 8) + 12, &a, 4);
		memcpy(l3 + (reverse ? 8 : 24) + 12, &z, 4);
		l4 = l3 + 40;
	} else {
		memcpy(b + off, "\x08\x00", 2);
		l3[0] = 0x45;
		l3[8] = 64;
		l3[9] = kind == 1 ? 17 : 6;
		for (int i = 0; i < 4; i++) {
			l3[12 + i] = (reverse ? z : a) >> (24 - 8 * i);
			l3[16 + i] = (reverse ? a : z) >> (24 - 8 * i);
		}
		l4 = l3 + 20;
	}
	l4[0] = (reverse ? pz : pa) >> 8;
	l4[1] = (reverse ? pz : pa) & 0xff;
	l4[2] = (reverse ? pa : pz) >> 8;
	l4[3] = (reverse ? pa : pz) & 0xff;
	l4[12] = 0x50;
	return 100;
}

static void flow_mode_is_symmetric_and_one_in_n(void **state)
{
	const uint32_t flows = 10000, n = 16;
	struct ps_sampling s = sampling(PS_SAMPLE_FLOW, n, 0);
	double mean = (double)flows / n, sigma = sqrt(flows * (1.0 / n) * (1 - 1.0 / n));
	struct fixture f;
	uint64_t picked = 0, prev[3] = { 0 };
	uint8_t pkt[128];

	(void)state;
	load(&f, &s);
	for (uint32_t fl = 0; fl < flows; fl++) {
		int kind = fl % 4; /* TCP, UDP, VLAN-tagged TCP, IPv6 TCP */
		int decisions = 0, yes = 0;

		for (int dir = 0; dir < 2; dir++) {
			uint32_t len = flow_frame(pkt, fl, dir, kind);
			/* XDP; TC ingress with the tag in the bytes; TC with the
			 * tag moved out of band (tc_vlan_oob, tagged flows only) */
			struct {
				int fd;
				bool xdp;
				unsigned int hook;
			} hooks[3] = {
				{ ps_loader_prog_fd(&f.loader, PS_PROG_XDP), true, PS_HOOK_XDP },
				{ ps_loader_prog_fd(&f.loader, PS_PROG_TC_EGRESS), false,
				  PS_HOOK_TC_EGRESS },
				{ f.oob.fd, false, PS_HOOK_TC_INGRESS },
			};

			for (int h = 0; h < 3; h++) {
				struct ps_counters c;

				run(hooks[h].fd, hooks[h].xdp, pkt, len, 1);
				c = counters(&f, hooks[h].hook);
				decisions++;
				yes += chosen(&c) != prev[h];
				prev[h] = chosen(&c);
			}
		}
		if (yes != 0 && yes != decisions)
			fail_msg("flow %u (kind %d): chosen in %d of %d directions and hooks", fl,
				 kind, yes, decisions);
		picked += yes != 0;
	}
	printf("flow 1/%u over %u flows, 6 decisions each (2 directions x 3 hooks): "
	       "%llu picked (expected %.0f, sigma %.1f, %+.2f sigma)\n",
	       n, flows, (unsigned long long)picked, mean, sigma, (picked - mean) / sigma);
	assert_true(fabs(picked - mean) <= 5 * sigma);
	unload(&f);
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void rate_cap_never_exceeds_its_bucket(void **state)
{
	const uint64_t rate = 20000, runs = 2000000;
	struct ps_sampling s = sampling(PS_SAMPLE_ALL, 0, rate);
	struct fixture f;
	struct ps_counters c;
	double elapsed, allowed;
	uint64_t bucket = s.burst_ns / s.cost_ns;

	(void)state;
	load(&f, &s);
	/* The bucket refills on bpf_ktime_get_ns() (CLOCK_MONOTONIC), so the
	 * wall time around the syscall bounds the credit it can have earned
	 * (the kernel's own duration leaves out time spent rescheduling). */
	elapsed = mono_s();
	c = xdp_udp_runs(&f, runs);
	elapsed = mono_s() - elapsed;
	allowed = rate * elapsed + bucket;
	printf("rate cap %llu/s, bucket %llu: %llu of %llu passed in %.3f s (at most %.0f allowed)\n",
	       (unsigned long long)rate, (unsigned long long)bucket, (unsigned long long)chosen(&c),
	       (unsigned long long)runs, elapsed, allowed);
	assert_int_equal(c.seen, runs);
	assert_true(chosen(&c) <= allowed);
	assert_true(chosen(&c) >= bucket);	       /* the bucket was used */
	assert_true(chosen(&c) >= rate * elapsed / 2); /* and it refilled */
	assert_int_equal(c.rate_limited, runs - chosen(&c));
	unload(&f);
}

int main(void)
{
	cpu_set_t one;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(count_mode_keeps_every_nth),
		cmocka_unit_test(random_mode_is_one_in_n),
		cmocka_unit_test(random_mode_gaps_are_geometric),
		cmocka_unit_test(flow_mode_is_symmetric_and_one_in_n),
		cmocka_unit_test(rate_cap_never_exceeds_its_bucket),
	};

	int skip = ps_fx_require_bpf("bpf_sample");

	if (skip)
		return skip;
	/* Sampler state is per CPU: keep every test run on the same one. */
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	if (sched_setaffinity(0, sizeof(one), &one))
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
