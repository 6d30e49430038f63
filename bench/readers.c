// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reader scaling without the kernel: NCPUS simulated CPUs, each a perf
 * buffer (or with -r a BPF ring) in memory laid out as the kernel's and
 * full of PER_CPU samples of SIZE bytes, their times interleaved; the
 * ingest reads them with 1..T reader threads into a sink that takes each
 * packet's bytes (sums them, so nothing is optimised away). Reports
 * records per second, and the process's CPU seconds per million records,
 * per thread count.
 *
 *   bench_readers [-r] [-c NCPUS] [-n PER_CPU] [-s SIZE] [-t MAX_THREADS] [-o CSV]
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include "ingest.h"
#include "support/perfbuf.h"

/* The samples' times: a minute ago, so every round can settle them. */
static uint64_t base_ns;

struct sum_sink {
	struct ps_sink sink;
	uint64_t n, bytes, x;
};

static int sum_packet(struct ps_sink *s, const struct ps_sink_pkt *p)
{
	struct sum_sink *v = ps_sink_of(s, struct sum_sink, sink);

	v->n++;
	v->bytes += p->cap_len;
	v->x += p->data[0] + p->data[p->cap_len - 1];
	return 0;
}

static const struct ps_sink_ops sum_ops = { sum_packet, ps_test_sink_round, ps_test_sink_close };

/* Fill one CPU's buffer, perf's or a ring's (as much of n as fits). */
static void fill(uint8_t *area, size_t data_bytes, int cpu, int n, uint32_t size, bool ring)
{
	struct perf_event_mmap_page *up = (void *)area;
	uint64_t *ring_pos = (void *)area, pos = 0;
	uint8_t *data = ring ? (uint8_t *)(ring_pos + 2) : (uint8_t *)(up + 1);

	for (int k = 0; k < n; k++) {
		struct ps_meta m = {
			.ts_ns = base_ns + (uint64_t)k * 1000 + (uint64_t)cpu,
			.seq = (uint64_t)k,
			.ifindex = 5,
			.wire_len = size,
			.cap_len = size,
			.cpu = (uint32_t)cpu,
			.version = PS_META_VERSION,
			.hook = PS_HOOK_XDP,
		};

		if (ring ? !ps_test_ring_put(data, data_bytes, &pos, &m, (uint8_t)k) :
			   !ps_test_perf_put(data, data_bytes, &pos, &m, (uint8_t)k))
			break;
	}
	if (ring) {
		ring_pos[0] = 0;
		ring_pos[1] = pos;
	} else {
		up->data_head = pos;
		up->data_tail = 0;
	}
}

static double now_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static double cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec +
	       ru.ru_stime.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
	int ncpus = 16, per_cpu = 20000, max_threads = 2, opt;
	uint32_t size = 64;
	const char *csv = NULL;
	FILE *out = NULL;
	bool ring = false;

	while ((opt = getopt(argc, argv, "rc:n:s:t:o:")) != -1) {
		switch (opt) {
		case 'r':
			ring = true;
			break;
		case 'c':
			ncpus = atoi(optarg);
			break;
		case 'n':
			per_cpu = atoi(optarg);
			break;
		case 's':
			size = (uint32_t)atoi(optarg);
			break;
		case 't':
			max_threads = atoi(optarg);
			break;
		case 'o':
			csv = optarg;
			break;
		default:
			fprintf(stderr,
				"usage: %s [-r] [-c NCPUS] [-n PER_CPU] [-s SIZE] [-t MAX_THREADS] [-o "
				"CSV]\n",
				argv[0]);
			return 2;
		}
	}
	if (csv && !(out = fopen(csv, "a")))
		return perror(csv), 1;
	base_ns = (uint64_t)(now_s(CLOCK_MONOTONIC) * 1e9) - 60000000000ull;
	printf("| transport | simulated CPUs | bytes | reader threads | records/s | CPU s per M records | records/s per CPU second |\n");
	printf("|---|---|---|---|---|---|---|\n");
	for (int t = 1; t <= max_threads; t *= 2) {
		size_t data_bytes = 1;
		struct ps_target target = { .ifname = "sim", .ifindex = 5, .hook = PS_HOOK_XDP };
		struct ps_source *src = calloc(ncpus, sizeof(*src));
		uint8_t **area = calloc(ncpus, sizeof(*area));
		struct ps_ingest *c = calloc(1, sizeof(*c));
		struct sum_sink v = { .sink.ops = &sum_ops };
		double w0, c0, wall, cpu;

		while (data_bytes < (size_t)per_cpu * ((sizeof(struct ps_meta) + size + 19) & ~7u))
			data_bytes <<= 1;
		if (ps_ingest_init(c, &target, 1, ncpus, 262144, 0) ||
		    ps_ingest_add_sink(c, &v.sink))
			return 1;
		for (int cpu = 0; cpu < ncpus; cpu++) {
			area[cpu] = calloc(1, sizeof(struct perf_event_mmap_page) + data_bytes);
			fill(area[cpu], data_bytes, cpu, per_cpu, size, ring);
			if (ring ? ps_source_open_ring_memory(&src[cpu], cpu, area[cpu],
							      data_bytes) :
				   ps_source_open_memory(&src[cpu], cpu, area[cpu], data_bytes))
				return 1;
		}
		if (ps_ingest_open_sources(c, src, ncpus))
			return 1;
		/* In-flight marks as the programs keep them: a per-CPU map,
		 * here never set, so the merge places packets as they come. */
		c->emit_fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "bench_emit", 4,
					    sizeof(struct ps_emit_state), 1, NULL);
		if (c->emit_fd < 0)
			return perror("bpf_map_create (needs root)"), 1;
		w0 = now_s(CLOCK_MONOTONIC);
		if (ps_ingest_threads(c, t))
			return 1;
		c0 = cpu_s();
		if (ps_ingest_drain(c))
			return 1;
		wall = now_s(CLOCK_MONOTONIC) - w0;
		cpu = cpu_s() - c0;
		if (v.n != (uint64_t)ncpus * per_cpu || c->order.late || c->forced) {
			fprintf(stderr, "bench_readers: %llu of %llu records, %llu late\n",
				(unsigned long long)v.n, (unsigned long long)ncpus * per_cpu,
				(unsigned long long)c->order.late);
			return 1;
		}
		printf("| %s | %d | %u | %d | %.0f | %.3f | %.0f |\n", ring ? "ring" : "perf",
		       ncpus, size, t, v.n / wall, cpu / (v.n / 1e6), v.n / cpu);
		if (out)
			fprintf(out, "%s,%d,%u,%d,%.0f,%.4f\n", ring ? "ring" : "perf", ncpus, size,
				t, v.n / wall, cpu);
		ps_ingest_close(c, true);
		close(c->emit_fd);
		ps_ingest_free(c);
		for (int cpu = 0; cpu < ncpus; cpu++)
			free(area[cpu]);
		free(area);
		free(src);
		free(c);
	}
	if (out)
		fclose(out);
	return 0;
}
