// SPDX-License-Identifier: GPL-2.0-only
/*
 * Ingest + capture file (pcapng writer) throughput on one core, without the kernel: a
 * synthetic producer hands perf samples (ps_meta + packet bytes, as
 * bpf_perf_event_output lays them out) to ps_ingest_sample(), which
 * splits them into the time-order merge; rounds of ROUND_SAMPLES settle
 * every CPU and write what the merge places, annotated, as pcapng to a
 * file (use tmpfs). Samples come from one CPU, or from two with their
 * timestamps interleaved (every round is a real merge). Reports samples/s,
 * MB/s of pcapng and CPU seconds per million samples, median and min-max
 * of ROUNDS runs per frame size.
 *
 * Usage: bench_writer_throughput FILE [CSV]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/resource.h>
#include <time.h>
#include "capfile.h"
#include "ingest.h"
#include "pcapng.h"

#define ROUNDS 5
#define SAMPLES 2000000
#define ROUND_SAMPLES 8192 /* about what a perf wakeup brings at 64 B */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec +
	       ru.ru_stime.tv_usec / 1e6;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	static const uint32_t sizes[] = { 64, 1500 };
	FILE *csv = argc > 2 ? fopen(argv[2], "w") : NULL;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE [CSV]\n", argv[0]);
		return 2;
	}
	if (csv)
		fprintf(csv, "frame_bytes,cpus,samples_per_s,mb_per_s,cpu_s_per_million\n");
	printf("| frame | CPUs | samples/s | MB/s of pcapng | CPU s per M samples |\n"
	       "|---|---|---|---|---|\n");
	for (size_t z = 0; z < 2 * sizeof(sizes) / sizeof(sizes[0]); z++) {
		uint32_t size = sizes[z / 2];
		int ncpus = 1 + (int)(z % 2);
		double rate[ROUNDS], mbs[ROUNDS], cpm[ROUNDS];
		/* raw sample: 4-byte perf size word is not part of it; meta + bytes,
		 * padded so the record is a multiple of 8, as the kernel does */
		size_t raw_len = (sizeof(struct ps_meta) + size + 4 + 7) / 8 * 8 - 4;
		uint8_t *raw = calloc(1, raw_len);
		struct ps_meta *m = (struct ps_meta *)raw;

		for (uint32_t i = 0; i < size; i++)
			raw[sizeof(*m) + i] = (uint8_t)i;
		m->ifindex = 1;
		m->wire_len = m->cap_len = size;
		m->verdict = 2;
		m->version = PS_META_VERSION;
		m->hook = PS_HOOK_XDP;
		for (int r = 0; r < ROUNDS; r++) {
			struct ps_target t = {
				.ifname = "bench0", .ifindex = 1, .hook = PS_HOOK_XDP, .linktype = 1
			};
			struct ps_capfile_iface idb = { .description = "bench" };
			struct ps_capfile *file = calloc(1, sizeof(*file));
			struct ps_ingest *c = calloc(1, sizeof(*c));
			struct pcapng_writer *w;
			uint64_t seq[2] = { 0, 0 };
			double t0, c0;

			if (!c || !file ||
			    ps_capfile_open(file,
					    &(struct ps_capfile_cfg){ .output = argv[1],
								      .snaplen = 65535 },
					    NULL) ||
			    ps_capfile_start(file, &t, &idb, 1, ncpus, NULL, 0) ||
			    ps_ingest_init(c, &t, 1, ncpus, 65535, 0) ||
			    ps_ingest_add_sink(c, ps_capfile_sink(file))) {
				perror(argv[1]);
				return 1;
			}
			w = file->w;
			t0 = now_s();
			c0 = cpu_s();
			for (uint64_t i = 0; i < SAMPLES; i++) {
				/* Two CPUs: alternate, timestamps interleaved. */
				m->cpu = (uint32_t)(i % ncpus);
				m->seq = seq[m->cpu]++;
				m->ts_ns = i * 1000;
				ps_ingest_sample(c, (int)m->cpu, raw, raw_len);
				if ((i + 1) % ROUND_SAMPLES == 0) {
					/* A round: every CPU settled up to the last sample
					 * but the final millisecond, as the ingest does. */
					for (int cpu = 0; cpu < ncpus; cpu++)
						ps_ingest_settle(c, cpu, i * 1000 - 1000000);
					ps_ingest_release(c, false);
					pcapng_flush(w);
				}
			}
			ps_ingest_release(c, true);
			pcapng_flush(w);
			rate[r] = SAMPLES / (now_s() - t0);
			mbs[r] = pcapng_bytes(w) / 1e6 / (now_s() - t0);
			cpm[r] = (cpu_s() - c0) / (SAMPLES / 1e6);
			if (c->written != SAMPLES || c->order.late || c->forced) {
				fprintf(stderr, "wrote %llu of %d, %llu late, %llu forced\n",
					(unsigned long long)c->written, SAMPLES,
					(unsigned long long)c->order.late,
					(unsigned long long)c->forced);
				return 1;
			}
			ps_ingest_free(c);
			free(c);
			ps_capfile_free(file);
			free(file);
		}
		qsort(rate, ROUNDS, sizeof(double), cmp);
		qsort(mbs, ROUNDS, sizeof(double), cmp);
		qsort(cpm, ROUNDS, sizeof(double), cmp);
		printf("| %u B | %d | %.0f (%.0f-%.0f) | %.0f (%.0f-%.0f) | %.3f (%.3f-%.3f) |\n",
		       size, ncpus, rate[ROUNDS / 2], rate[0], rate[ROUNDS - 1], mbs[ROUNDS / 2],
		       mbs[0], mbs[ROUNDS - 1], cpm[ROUNDS / 2], cpm[0], cpm[ROUNDS - 1]);
		if (csv)
			fprintf(csv, "%u,%d,%.0f,%.0f,%.3f\n", size, ncpus, rate[ROUNDS / 2],
				mbs[ROUNDS / 2], cpm[ROUNDS / 2]);
		free(raw);
	}
	if (csv)
		fclose(csv);
	unlink(argv[1]);
	return 0;
}
