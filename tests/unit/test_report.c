// SPDX-License-Identifier: GPL-2.0-only
/*
 * The report's arithmetic: counters in, the summary, --stats line and ISB
 * stages out, for every combination that changes what is printed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "cli.h"
#include "counters.h"
#include "report.h"
#include "sampling.h"

static struct ps_sampling sampling(unsigned int mode, uint64_t n, uint64_t rate)
{
	struct ps_opts o = { .sample_mode = mode,
			     .sample_n = n,
			     .max_rate = rate,
			     .sample_interval_ms = mode == PS_SAMPLE_CLOCK ? 10 : 0 };
	struct ps_sampling s;

	ps_cli_sampling(&o, &s);
	return s;
}

static const struct ps_counters every_stage = {
	.seen = 1000,
	.filtered = 600,
	.sampled_out = 300,
	.rate_limited = 20,
	.emitted = 75,
	.output_errors = 5,
};

/* The summary of sum is want, to the letter. */
static void summary_is(const struct ps_summary *sum, const char *want)
{
	char buf[512];

	ps_report_summary(buf, sizeof(buf), sum);
	assert_string_equal(buf, want);
}

/* The summary for each combination of counters and sampling that changes
 * what it says, to the letter. */
static void summaries_to_the_letter(void **state)
{
	const struct {
		struct {
			unsigned int mode;
			uint64_t n, rate;
		} smp; /* sampling(mode, n, rate) */
		struct ps_summary sum;
		const char *want;
	} cases[] = {
		/* No filter, no sampling. */
		{ { PS_SAMPLE_ALL, 0, 0 },
		  { .all = { .seen = 20430, .emitted = 20430 }, .written = 20430 },
		  "20430 packets captured\n"
		  "20430 packets seen by hooks\n"
		  "0 packets lost in perf buffer\n" },
		/* A filter, sampling and a rate cap. A rate cap has no fixed
		 * scale-back factor: no estimate. */
		{ { PS_SAMPLE_RANDOM, 10, 500 },
		  { .all = every_stage,
		    .written = 70,
		    .filter = true,
		    .transport = PS_TRANSPORT_RINGBUF,
		    .buffer_hint_kib = 32768 },
		  "70 packets captured\n"
		  "1000 packets seen by hooks\n"
		  "400 packets matched the filter\n"
		  "300 packets sampled out\n"
		  "20 packets over --max-rate\n"
		  "5 packets lost in ring buffer\n"
		  "the buffer was too small: about -B 32768 (KiB, all CPUs together) "
		  "would have held them\n" },
		/* 1 in N: the estimate. */
		{ { PS_SAMPLE_COUNT, 100, 0 },
		  { .all = { .seen = 10000, .sampled_out = 9900, .emitted = 98, .output_errors = 2 },
		    .written = 98 },
		  "98 packets captured\n"
		  "10000 packets seen by hooks\n"
		  "9900 packets sampled out\n"
		  "2 packets lost in perf buffer\n"
		  "~10000 matching packets estimated from the samples (x100)\n" },
		/* --sample 1 keeps everything: the kernel does not sample at
		 * all, and there is no estimate. */
		{ { PS_SAMPLE_RANDOM, 1, 0 },
		  { .all = { .seen = 5, .emitted = 5 }, .written = 5 },
		  "5 packets captured\n5 packets seen by hooks\n"
		  "0 packets sampled out\n0 packets lost in perf buffer\n" },
		/* tcpdump's grammar: "1 packet captured", on every line. */
		{ { PS_SAMPLE_RANDOM, 1, 0 },
		  { .all = { .seen = 1, .emitted = 1, .output_errors = 1 },
		    .written = 1,
		    .filter = true },
		  "1 packet captured\n"
		  "1 packet seen by hooks\n"
		  "1 packet matched the filter\n"
		  "0 packets sampled out\n"
		  "1 packet lost in perf buffer\n" },
		/* After a write error the first line is what the file holds,
		 * the second what never reached it. */
		{ { PS_SAMPLE_ALL, 0, 0 },
		  { .all = { .seen = 908, .emitted = 908 },
		    .written = 56,
		    .write_error = true,
		    .lost_to_write = 852 },
		  "56 packets captured\n"
		  "852 packets lost to the write error\n"
		  "908 packets seen by hooks\n"
		  "0 packets lost in perf buffer\n" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ps_sampling s = sampling(cases[i].smp.mode, cases[i].smp.n,
						cases[i].smp.rate);
		struct ps_summary sum = cases[i].sum;

		sum.smp = &s;
		summary_is(&sum, cases[i].want);
	}
}

/* Per-CPU buffers that lost: the summary says each CPU had its share of
 * -B only, and which transport shares all of it. Not for one CPU, nor
 * for the ring. */
static void summary_points_to_the_ring_after_per_cpu_loss(void **state)
{
	struct ps_sampling s = sampling(PS_SAMPLE_ALL, 0, 0);
	struct ps_summary sum = { .all = { .seen = 10, .emitted = 10, .output_errors = 4 },
				  .written = 6,
				  .smp = &s,
				  .buffer_hint_kib = 8192,
				  .n_buffers = 2 };
	const char *head = "6 packets captured\n"
			   "10 packets seen by hooks\n"
			   "4 packets lost in perf buffer\n"
			   "the buffer was too small: about -B 8192 (KiB, all CPUs together) "
			   "would have held them\n";
	char buf[512], want[512];

	(void)state;
	snprintf(want, sizeof(want), "%s%s", head,
		 "each CPU had 1/2 of it, and a flow's packets all land on one CPU\n");
	summary_is(&sum, want);
	sum.n_buffers = 1;
	summary_is(&sum, head);
	sum.n_buffers = 2;
	sum.transport = PS_TRANSPORT_RINGBUF;
	ps_report_summary(buf, sizeof(buf), &sum);
	assert_non_null(strstr(buf, "lost in ring buffer\n"));
	assert_non_null(strstr(buf, "each CPU had 1/2 of it"));
	/* Rings shared by pairs of CPUs: each ring had its share. */
	sum.n_buffers = 4;
	sum.buffer_cpus = 2;
	ps_report_summary(buf, sizeof(buf), &sum);
	assert_non_null(strstr(buf, "each ring, for 2 CPUs, had 1/4 of it, and a flow's packets "
				    "all land on one CPU\n"));
	/* One ring for every CPU: the whole -B was the flow's, as tcpdump's. */
	sum.n_buffers = 1;
	ps_report_summary(buf, sizeof(buf), &sum);
	assert_null(strstr(buf, "each "));
}

static void summary_is_cut_safely(void **state)
{
	struct ps_sampling s = sampling(PS_SAMPLE_ALL, 0, 0);
	struct ps_summary sum = { .all = { .seen = 7 }, .written = 7, .smp = &s };
	char buf[16];
	int n;

	(void)state;
	n = ps_report_summary(buf, sizeof(buf), &sum);
	assert_int_equal(strlen(buf), sizeof(buf) - 1);
	assert_true(n > (int)sizeof(buf)); /* what it would have taken */
	assert_memory_equal(buf, "7 packets captu", 16);
}

static void stats_line(void **state)
{
	struct ps_sampling all = sampling(PS_SAMPLE_ALL, 0, 0);
	struct ps_sampling s = sampling(PS_SAMPLE_RANDOM, 10, 0);
	char buf[256];

	(void)state;
	/* 60 written over half a second since 10: 100/s */
	ps_report_stats(buf, sizeof(buf), &every_stage, 60, 10, 500000000ull, &all);
	assert_string_equal(buf, "stats: seen 1000 matched 400 sampled 80 written 60 lost 5 "
				 "rate 100/s");
	ps_report_stats(buf, sizeof(buf), &every_stage, 60, 10, 500000000ull, &s);
	assert_string_equal(buf, "stats: seen 1000 matched 400 sampled 80 written 60 lost 5 "
				 "rate 100/s est-total 800");
	ps_report_stats(buf, sizeof(buf), &every_stage, 60, 60, 0, &s);
	assert_string_equal(buf, "stats: seen 1000 matched 400 sampled 80 written 60 lost 5 "
				 "rate 0/s est-total 800");
}

static void isb_stages_add_up(void **state)
{
	char buf[320];

	(void)state;
	ps_counters_format(buf, sizeof(buf), &every_stage, 70);
	assert_string_equal(buf, "seen=1000 filtered-out=600 sampled-out=300 rate-limited=20 "
				 "emitted=80 written=70 lost=5");
}

static void idb_comment(void **state)
{
	struct ps_sampling s = sampling(PS_SAMPLE_RANDOM, 1000, 0);
	char buf[320], how[200];

	(void)state;
	ps_sampling_describe(&s, how, sizeof(how));
	ps_report_idb_comment(buf, sizeof(buf), PS_HOOK_TC_EGRESS, "tcx", "");
	assert_string_equal(buf, "pktsample tc-egress hook, attached via tcx");
	ps_report_idb_comment(buf, sizeof(buf), PS_HOOK_XDP, "skb", how);
	assert_string_equal(buf, "pktsample xdp hook, attached via skb; "
				 "sampling 1 in 1000 matching packets at random");
}

static void drops_by_reason_most_first(void **state)
{
	struct ps_drop_count c[] = {
		{ "IP_CSUM", 3 },
		{ "NO_SOCKET", 120 },
		{ "OTHER", 0 },
		{ "NETFILTER_DROP", 3 },
	};
	char buf[200];

	(void)state;
	ps_report_drops(buf, sizeof(buf), "drops: ", c, 4);
	assert_string_equal(buf, "drops: NO_SOCKET 120, IP_CSUM 3, NETFILTER_DROP 3");
	ps_report_drops(buf, sizeof(buf), "drops: ", c, 0);
	assert_string_equal(buf, "");
	/* Cut safely. */
	ps_report_drops(buf, 12, "drops: ", c, 4);
	assert_int_equal(strlen(buf), 11);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(summaries_to_the_letter),
		cmocka_unit_test(summary_points_to_the_ring_after_per_cpu_loss),
		cmocka_unit_test(summary_is_cut_safely),
		cmocka_unit_test(stats_line),
		cmocka_unit_test(isb_stages_add_up),
		cmocka_unit_test(idb_comment),
		cmocka_unit_test(drops_by_reason_most_first),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
