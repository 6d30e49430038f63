// SPDX-License-Identifier: GPL-2.0-only
/*
 * --top's cost per packet, without the kernel: synthetic Ethernet/IPv4/UDP
 * packets of PROCS processes and FLOWS flows (each packet its own process
 * and flow, round robin) through ps_top_add, every grouping counted (what
 * --top does) and the process and container groupings alone (what
 * --metrics without --top does), with a tick each million packets. Reports
 * ns per packet, median and min-max of ROUNDS runs, for a few shapes.
 *
 * Usage: bench_top_cost
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "hooks.h"
#include "target.h"
#include "topkey.h"
#include "who.h"

#define ROUNDS 5
#define PACKETS 4000000

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* ns per packet through ps_top_add, the groupings given counted. */
static double run(unsigned int procs, unsigned int flows, unsigned int groups)
{
	struct ps_target tg = {
		.ifname = "eth0", .ifindex = 2, .hook = PS_HOOK_TC_EGRESS, .linktype = 1
	};
	struct ps_meta m = { .hook = PS_HOOK_TC_EGRESS };
	struct ps_who *who = calloc(procs, sizeof(*who));
	uint8_t frame[64] = { [12] = 0x08, [14] = 0x45, [23] = 17,  [26] = 192, [27] = 0,
			      [28] = 2,	   [29] = 1,	[30] = 192, [31] = 0,	[32] = 2 };
	struct ps_sink_pkt p = { .t = &tg, .m = &m, .data = frame, .cap_len = 64, .wire_len = 64 };
	struct ps_top t;
	double start;

	for (unsigned int i = 0; i < procs; i++) {
		who[i].known = true;
		who[i].pid = 1000 + i;
		snprintf(who[i].comm, sizeof(who[i].comm), "proc%u", i);
	}
	ps_top_init(&t);
	t.groups = groups;
	start = now_s();
	for (unsigned int i = 0; i < PACKETS; i++) {
		unsigned int f = i % flows;

		frame[33] = (uint8_t)(f >> 8 | 1);
		frame[34] = (uint8_t)(f >> 8), frame[35] = (uint8_t)f; /* source port */
		p.who = &who[i % procs];
		m.cgroup_id = 1 + i % procs;
		ps_top_add(&t, &p, 1);
		if (i % 1000000 == 999999)
			ps_top_tick(&t, 1000000000ull);
	}
	start = (now_s() - start) * 1e9 / PACKETS;
	ps_top_free(&t);
	free(who);
	return start;
}

int main(void)
{
	const struct {
		unsigned int procs, flows;
	} shapes[] = { { 1, 1 }, { 10, 100 }, { 100, 4000 } };
	const unsigned int all = (1u << PS_TOP_NGROUPS) - 1,
			   metrics = 1u << PS_TOP_PROCESS | 1u << PS_TOP_CONTAINER;

	printf("| processes | flows | --top (every grouping), ns/packet | --metrics alone (process, "
	       "container), ns/packet |\n|---|---|---|---|\n");
	for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
		double a[ROUNDS], b[ROUNDS];

		for (int r = 0; r < ROUNDS; r++) {
			a[r] = run(shapes[s].procs, shapes[s].flows, all);
			b[r] = run(shapes[s].procs, shapes[s].flows, metrics);
		}
		qsort(a, ROUNDS, sizeof(a[0]), cmp_double);
		qsort(b, ROUNDS, sizeof(b[0]), cmp_double);
		printf("| %u | %u | %.1f (%.1f-%.1f) | %.1f (%.1f-%.1f) |\n", shapes[s].procs,
		       shapes[s].flows, a[ROUNDS / 2], a[0], a[ROUNDS - 1], b[ROUNDS / 2], b[0],
		       b[ROUNDS - 1]);
	}
	return 0;
}
