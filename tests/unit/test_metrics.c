// SPDX-License-Identifier: GPL-2.0-only
/*
 * --metrics' text, as Prometheus' exposition format (0.0.4) has it: a HELP
 * and TYPE line per family, a sample per (interface, hook), label values
 * escaped, the length it needs reported when cut. (promtool checks the
 * real thing in tests/integration/it_metrics.sh.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "metrics.h"

static const struct ps_metrics_target targets[] = {
	{ "eth0",
	  "tc-ingress",
	  { .seen = 10,
	    .filtered = 1,
	    .sampled_out = 2,
	    .rate_limited = 3,
	    .emitted = 3,
	    .output_errors = 1 },
	  3 },
	{ "we\"ird\\", "drop", { .seen = 5, .emitted = 5 }, 5 },
};

static int count_of(const char *s, const char *needle)
{
	int n = 0;

	for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

/* Each of want (up to a NULL) is somewhere in buf. */
static void has_each(const char *buf, const char *const *want)
{
	for (; *want; want++)
		if (!strstr(buf, *want))
			fail_msg("no \"%s\" in\n%s", *want, buf);
}

static void families_and_samples(void **state)
{
	struct ps_drop_count drops[] = { { "NO_SOCKET", 4 }, { "IP_CSUM", 1 } };
	struct ps_metrics_view v = {
		.targets = targets,
		.n_targets = 2,
		.drops = drops,
		.n_drops = 2,
		.sflow = true,
		.sflow_samples = 7,
		.sflow_datagrams = 2,
		.sflow_sent = 2,
		.sflow_refused = 3,
		.flight = true,
		.flight_incidents = 2,
		.flight_held = 1000,
		.start_time_s = 1700000000.5,
	};
	char buf[8192];
	size_t n;

	(void)state;
	n = ps_metrics_format(buf, sizeof(buf), &v);
	assert_int_equal(n, strlen(buf));
	has_each(buf, (const char *const[]){
			      "# HELP pktsample_packets_seen_total Packets the hook ran on.\n"
			      "# TYPE pktsample_packets_seen_total counter\n"
			      "pktsample_packets_seen_total{interface=\"eth0\","
			      "hook=\"tc-ingress\"} 10\n"
			      "pktsample_packets_seen_total{interface=\"we\\\"ird\\\\\","
			      "hook=\"drop\"} 5\n",
			      /* emitted: handed to the buffer, the lost among them. */
			      "pktsample_packets_emitted_total{interface=\"eth0\","
			      "hook=\"tc-ingress\"} 4\n",
			      "pktsample_packets_lost_total{interface=\"eth0\","
			      "hook=\"tc-ingress\"} 1\n",
			      "pktsample_packets_written_total{interface=\"eth0\","
			      "hook=\"tc-ingress\"} 3\n",
			      "pktsample_kernel_drops_total{reason=\"NO_SOCKET\"} 4\n",
			      "pktsample_sflow_send_errors_total 0\n",
			      "# TYPE pktsample_sflow_refused_total counter\n"
			      "pktsample_sflow_refused_total 3\n",
			      "pktsample_start_time_seconds 1700000000.500\n",
			      "# TYPE pktsample_flight_incidents_total counter\n"
			      "pktsample_flight_incidents_total 2\n",
			      "# TYPE pktsample_flight_held_packets gauge\n"
			      "pktsample_flight_held_packets 1000\n",
			      NULL });
	/* Every family once, each of its samples under it. */
	assert_int_equal(count_of(buf, "# TYPE "), 7 + 1 + 1 + 6 + 5);
	assert_int_equal(count_of(buf, "# TYPE pktsample_packets_lost_total counter\n"), 1);
	assert_int_equal(count_of(buf, "pktsample_packets_lost_total{"), 2);
}

static void nothing_but_what_there_is(void **state)
{
	struct ps_metrics_view v = { 0 };
	char buf[1024];

	(void)state;
	ps_metrics_format(buf, sizeof(buf), &v);
	assert_null(strstr(buf, "pktsample_packets_"));
	assert_null(strstr(buf, "kernel_drops"));
	assert_null(strstr(buf, "sflow"));
	assert_null(strstr(buf, "flight"));
	assert_non_null(strstr(buf, "pktsample_start_time_seconds 0.000\n"));
}

static void cut_safely(void **state)
{
	struct ps_metrics_view v = { .targets = targets, .n_targets = 2 };
	char whole[8192], cut[100];
	size_t n;

	(void)state;
	n = ps_metrics_format(whole, sizeof(whole), &v);
	assert_int_equal(ps_metrics_format(cut, sizeof(cut), &v), n);
	assert_int_equal(strlen(cut), sizeof(cut) - 1);
	assert_memory_equal(cut, whole, sizeof(cut) - 1);
	assert_int_equal(ps_metrics_format(NULL, 0, &v), n);
}

/* The busiest processes and containers: a process row's "comm (pid)" as
 * two labels, a reason's as the process alone, each way with counts. */
static void owners_by_process_and_container(void **state)
{
	const struct ps_metrics_owner procs[] = {
		{ "fastsend (4242)", { 0, 200, 0 }, { 0, 28000, 0 } },
		{ "(no local socket)", { 3, 0, 5 }, { 180, 0, 300 } },
		{ "we\"ird (x) (7)", { 1, 0, 0 }, { 60, 0, 0 } },
		{ "(other)", { 0, 9, 0 }, { 0, 900, 0 } },
	};
	const struct ps_metrics_owner containers[] = {
		{ "docker:3f4e5a6b7c8d", { 2, 0, 0 }, { 120, 0, 0 } },
	};
	struct ps_metrics_view v = {
		.procs = procs, .n_procs = 4, .containers = containers, .n_containers = 1
	};
	char buf[8192];

	(void)state;
	ps_metrics_format(buf, sizeof(buf), &v);
	has_each(buf, (const char *const[]){
			      "# TYPE pktsample_process_packets_total counter\n",
			      "pktsample_process_packets_total{process=\"fastsend\","
			      "pid=\"4242\",direction=\"out\"} 200\n",
			      "pktsample_process_bytes_total{process=\"fastsend\","
			      "pid=\"4242\",direction=\"out\"} 28000\n",
			      "pktsample_process_packets_total{process=\"(no local "
			      "socket)\",pid=\"\",direction=\"dropped\"} 5\n",
			      "{process=\"we\\\"ird (x)\",pid=\"7\",direction=\"in\"} 1\n",
			      "{process=\"(other)\",pid=\"\",direction=\"out\"} 9\n",
			      "pktsample_container_packets_total{container=\"docker:"
			      "3f4e5a6b7c8d\",direction=\"in\"} 2\n",
			      NULL });
	/* A way with nothing has no sample. */
	assert_null(strstr(buf, "process=\"fastsend\",pid=\"4242\",direction=\"in\""));
	assert_int_equal(count_of(buf, "# TYPE "), 1 + 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(owners_by_process_and_container),
		cmocka_unit_test(families_and_samples),
		cmocka_unit_test(nothing_but_what_there_is),
		cmocka_unit_test(cut_safely),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
