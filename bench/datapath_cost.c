// SPDX-License-Identifier: GPL-2.0-only
/*
 * Per-packet cost of the datapath, measured with BPF_PROG_TEST_RUN: a bare
 * XDP_PASS program for reference; the XDP and TC programs capturing every
 * packet (whole, and at snaplen 128; through the perf buffer and through
 * the BPF ring buffer); with a handful of filter expressions on a frame
 * that matches and one that does not; and with each sampling mode, where
 * nearly every packet is sampled out (the cost a sampler adds to traffic it
 * does not keep). The core rows run at 64 and 1500 bytes.
 *
 * A reader thread on another CPU drains the perf buffers and the ring the
 * whole time, as pktsample's ingest would, so a captured packet pays
 * for the real copy to user space; the lost column says how many outputs
 * found the buffer full anyway (then the row is a lower bound).
 *
 * Contenders are interleaved (A B C ... A B C ...) ROUNDS times and the
 * median and min-max of the kernel's own per-run average are reported.
 * Output: a markdown table on stdout and CSV to the file given with -o.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "ingest.h"
#include "filter.h"
#include "log.h"
#include "hooks.h"
#include "loader.h"
#include "bare_xdp.skel.h"
#include "cli.h"
#include "sampling.h"

#define LO_IFINDEX 1
#define ROUNDS 7
#define REPEAT 200000
#define FRAME_MAX 1500
#define PERF_KIB 4096	      /* per CPU: the size this bench has always used */
#define RING_BYTES (8u << 20) /* the same in all on 2 CPUs */

static const uint32_t sizes[] = { 64, 1500 };
#define N_SIZES (sizeof(sizes) / sizeof(sizes[0]))

enum frame_kind { F_UDP53, F_UDP9, F_TCP443, F_TCP_GET, F_VLAN_UDP, N_FRAMES };

struct bench_case {
	const char *expr; /* NULL: no filter */
	enum frame_kind match, miss;
	const char *sampling;	/* label; NULL: no sampling */
	struct ps_opts opts;	/* the sampling options */
	const char *label;	/* overrides the configuration column */
	uint32_t snaplen;	/* 0: the maximum */
	unsigned int transport; /* enum ps_transport */
	bool all_sizes;		/* run at every size, not just 64 B */
	bool context;		/* --context on: whom each packet belongs to */
	uint32_t pid;		/* --pid (with context) */
};

static const struct bench_case cases[] = {
	{ NULL, F_UDP53, F_UDP53, .all_sizes = true },
	{ NULL, F_UDP53, F_UDP53, .label = "-s 128", .snaplen = 128, .all_sizes = true },
	{ NULL, F_UDP53, F_UDP53, .label = "--context on (UDP: socket lookup)", .context = true,
	  .all_sizes = true },
	{ NULL, F_TCP443, F_TCP443, .label = "--context on (TCP: socket lookup)", .context = true },
	{ NULL, F_UDP53, F_UDP53, .label = "--context on --pid 1 (filtered out)", .context = true,
	  .pid = 1 },
	{ NULL, F_UDP53, F_UDP53, .label = "--transport ringbuf", .transport = PS_TRANSPORT_RINGBUF,
	  .all_sizes = true },
	{ NULL, F_UDP53, F_UDP53, .label = "--transport ringbuf -s 128", .snaplen = 128,
	  .transport = PS_TRANSPORT_RINGBUF, .all_sizes = true },
	{ NULL,
	  F_UDP53,
	  F_UDP53,
	  "--sample 1000",
	  { .sample_mode = PS_SAMPLE_RANDOM, .sample_n = 1000 },
	  .all_sizes = true },
	{ NULL,
	  F_UDP53,
	  F_UDP53,
	  "--sample 1000 --sample-mode count",
	  { .sample_mode = PS_SAMPLE_COUNT, .sample_n = 1000 } },
	{ NULL,
	  F_UDP53,
	  F_UDP53,
	  "--sample-flows 1000",
	  { .sample_mode = PS_SAMPLE_FLOW, .sample_n = 1000 } },
	{ NULL,
	  F_UDP53,
	  F_UDP53,
	  "--sample-interval 1h (clock not armed)",
	  { .sample_mode = PS_SAMPLE_CLOCK, .sample_interval_ms = 3600000 } },
	{ NULL, F_UDP53, F_UDP53, "--max-rate 1 (over the cap)", { .max_rate = 1 } },
	{ "udp port 53",
	  F_UDP53,
	  F_UDP53,
	  "'udp port 53' --sample 1000",
	  { .sample_mode = PS_SAMPLE_RANDOM, .sample_n = 1000 } },
	{ "udp port 53", F_UDP53, F_UDP9, .all_sizes = true },
	{ "tcp port 443 and host 10.0.0.1", F_TCP443, F_UDP9 },
	{ "vlan 100 and udp", F_VLAN_UDP, F_UDP9 },
	{ "tcp[((tcp[12:1] & 0xf0) >> 2):4] = 0x47455420", F_TCP_GET, F_TCP443 },
	{ "host 10.0.0.21 or host 10.0.0.22 or host 10.0.0.23 or host 10.0.0.24 or "
	  "host 10.0.0.25 or host 10.0.0.26 or host 10.0.0.27 or host 10.0.0.28 or "
	  "host 10.0.0.29 or host 10.0.0.30 or host 10.0.0.31 or host 10.0.0.32 or "
	  "host 10.0.0.33 or host 10.0.0.34 or host 10.0.0.35 or host 10.0.0.36 or "
	  "host 10.0.0.37 or host 10.0.0.38 or host 10.0.0.39 or host 10.0.0.1",
	  F_UDP53, F_UDP9 },
};
#define N_CASES (sizeof(cases) / sizeof(cases[0]))

static void make_frame(enum frame_kind k, uint8_t *b, uint32_t len)
{
	uint32_t ip_len = len - 14 - (k == F_VLAN_UDP ? 4 : 0);
	uint8_t *ip;

	memset(b, 0, len);
	memcpy(b, "\x02\0\0\0\0\x02\x02\0\0\0\0\x01", 12);
	if (k == F_VLAN_UDP) {
		memcpy(b + 12, "\x81\x00\x00\x64", 4);
		b += 4;
	}
	memcpy(b + 12, "\x08\x00", 2);
	ip = b + 14;
	ip[0] = 0x45;
	ip[2] = (uint8_t)(ip_len >> 8);
	ip[3] = (uint8_t)ip_len;
	ip[8] = 64;
	ip[9] = k == F_TCP443 || k == F_TCP_GET ? 6 : 17;
	memcpy(ip + 12, k == F_UDP9 ? "\xc0\x00\x02\x09" : "\x0a\x00\x00\x01", 4);
	memcpy(ip + 16, "\xc0\x00\x02\x02", 4);
	if (ip[9] == 17) {
		ip[20] = 0xc3, ip[21] = 0x50; /* 50000 */
		ip[23] = k == F_UDP9 ? 9 : 53;
	} else {
		ip[20] = 0xc3, ip[21] = 0x50;
		ip[22] = 0x01, ip[23] = 0xbb; /* 443 */
		ip[32] = 0x50;		      /* data offset 5 */
		if (k == F_TCP_GET)
			memcpy(ip + 40, "GET ", 4);
	}
}

struct contender {
	const char *hook;
	const char *expr;
	const char *frame;
	int fd;
	enum frame_kind kind;
	uint32_t size;
	double ns[ROUNDS];
	uint64_t emitted, lost; /* over all rounds */
};

/* The reader: drains every buffer until told to stop. */
static atomic_bool reader_stop;

static enum bpf_perf_event_ret on_perf(void *ctx, int cpu, struct perf_event_header *ev)
{
	(void)ctx, (void)cpu, (void)ev;
	return LIBBPF_PERF_EVENT_CONT;
}

static int on_ring(void *ctx, void *data, size_t size)
{
	(void)ctx, (void)data, (void)size;
	return 0;
}

struct reader {
	struct perf_buffer *pb;
	struct ring_buffer *rb;
};

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(1, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	while (!atomic_load(&reader_stop)) {
		perf_buffer__consume(r->pb);
		ring_buffer__consume(r->rb);
	}
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	struct contender c[(N_CASES * 2 * 2 + 1) * N_SIZES];
	struct reader rd = { 0 };
	pthread_t reader_thread;
	bool reader_started = false;
	struct perf_event_attr attr;
	long page_size = sysconf(_SC_PAGESIZE);
	cpu_set_t set;
	struct bare_xdp *bare = NULL;
	struct ps_loader loader[N_CASES] = { 0 };
	struct ps_filter filters[N_CASES] = { 0 };
	static uint8_t frames[N_SIZES][N_FRAMES][FRAME_MAX];
	const char *csv_path = argc == 3 && !strcmp(argv[1], "-o") ? argv[2] : NULL;
	int n = 0, err = 1;
	FILE *csv = NULL;

	ps_log_set_verbosity(0);
	ps_log_hook_libs();
	for (size_t z = 0; z < N_SIZES; z++)
		for (int k = 0; k < N_FRAMES; k++)
			make_frame(k, frames[z][k], sizes[z]);
	/* The programs run here, on CPU 0; the reader drains on CPU 1. */
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
	/* Case 0 owns the maps; every other case shares them and so the one
	 * reader, as the binary's reader serves every hook. */
	for (size_t i = 0; i < N_CASES; i++) {
		struct ps_ctx_knobs ctx = { .enabled = cases[i].context,
					    .filter = cases[i].pid ? PS_CTXF_PID : 0,
					    .pid = cases[i].pid };
		struct ps_sampling smp;
		char why[512];

		ps_cli_sampling(&cases[i].opts, &smp);
		if (cases[i].expr && ps_filter_build(&filters[i], strdup(cases[i].expr),
						     PS_SNAPLEN_MAX, why, sizeof(why))) {
			fprintf(stderr, "%s: %s\n", cases[i].expr, why);
			goto out;
		}
		if (ps_loader_load(&loader[i], &(struct ps_load_opts){
						       .hooks = PS_HOOK_BIT(PS_HOOK_XDP) |
								PS_HOOK_BIT(PS_HOOK_TC_INGRESS),
						       .snaplen = cases[i].snaplen,
						       .max_ifaces = 1,
						       .sampling = &smp,
						       .filter = cases[i].expr ? &filters[i] : NULL,
						       .transport = cases[i].transport,
						       .ring_bytes = RING_BYTES,
						       .xdp_native = true,
						       .ctx = &ctx,
						       .maps_from = i ? &loader[0] : NULL })) {
			fprintf(stderr, "cannot load case %zu\n", i);
			goto out;
		}
	}
	if (ps_loader_add_iface(&loader[0], LO_IFINDEX, false))
		goto out;
	ps_perf_attr_init(&attr, ps_buffer_pages(PERF_KIB, page_size), page_size);
	rd.pb = perf_buffer__new_raw(ps_loader_events_fd(&loader[0]),
				     ps_buffer_pages(PERF_KIB, page_size), &attr, on_perf, NULL,
				     NULL);
	/* A ring per CPU, as the ingest makes them (user/ingest/source.c). */
	for (int cpu = 0, ok = 1; ok && cpu < libbpf_num_possible_cpus(); cpu++) {
		uint32_t key = (uint32_t)cpu;
		int fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "ps_ring", 0, 0, RING_BYTES, NULL);

		ok = fd >= 0 && !bpf_map_update_elem(ps_loader_rings_fd(&loader[0]), &key, &fd, 0);
		if (ok && !rd.rb)
			rd.rb = ring_buffer__new(fd, on_ring, NULL, NULL);
		else if (ok)
			ok = !ring_buffer__add(rd.rb, fd, on_ring, NULL);
		if (!ok && !libbpf_get_error(rd.rb)) {
			ring_buffer__free(rd.rb);
			rd.rb = NULL;
		}
		ok = ok && !libbpf_get_error(rd.rb);
	}
	if (libbpf_get_error(rd.pb) || !rd.rb || libbpf_get_error(rd.rb)) {
		fprintf(stderr, "cannot open the perf buffers or the ring\n");
		rd.pb = NULL, rd.rb = NULL;
		goto out;
	}
	if (pthread_create(&reader_thread, NULL, reader_main, &rd))
		goto out;
	reader_started = true;

	bare = bare_xdp__open_and_load();
	if (!bare)
		goto out;
	for (size_t z = 0; z < N_SIZES; z++)
		c[n++] = (struct contender){ .hook = "xdp",
					     .expr = "bare XDP_PASS program (reference)",
					     .frame = "any",
					     .kind = F_UDP53,
					     .size = sizes[z],
					     .fd = bpf_program__fd(bare->progs.bare_xdp_pass) };

	for (size_t i = 0; i < N_CASES; i++) {
		for (size_t z = 0; z < (cases[i].all_sizes ? N_SIZES : 1); z++)
			for (int hook = 0; hook < 2; hook++)
				for (int m = 0; m < (cases[i].expr && !cases[i].sampling ? 2 : 1);
				     m++) {
					struct contender *x = &c[n++];

					x->size = sizes[z];
					x->hook = hook ? "tc" : "xdp";
					x->expr = cases[i].label    ? cases[i].label :
						  cases[i].sampling ? cases[i].sampling :
						  cases[i].expr	    ? cases[i].expr :
								      "(no filter)";
					x->frame = cases[i].sampling ? "sampled out (999 of 1000)" :
						   !cases[i].expr    ? "captured" :
						   m		     ? "no match" :
								       "match";
					if (cases[i].sampling && cases[i].opts.max_rate)
						x->frame = "rate-limited";
					if (cases[i].sampling &&
					    cases[i].opts.sample_mode == PS_SAMPLE_CLOCK)
						x->frame = "sampled out";
					x->kind = m ? cases[i].miss : cases[i].match;
					x->fd = ps_loader_prog_fd(&loader[i],
								  hook ? PS_PROG_TC_INGRESS :
									 PS_PROG_XDP);
				}
	}

	for (int r = 0; r < ROUNDS; r++)
		for (int i = 0; i < n; i++) {
			size_t z = c[i].size == sizes[0] ? 0 : 1;
			/* data_end: the linear part (the whole frame, as on veth) */
			struct xdp_md xctx = { .ingress_ifindex = LO_IFINDEX,
					       .data_end = c[i].size };
			LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = frames[z][c[i].kind],
				    .data_size_in = c[i].size, .repeat = REPEAT);

			if (!strcmp(c[i].hook, "xdp")) {
				o.ctx_in = &xctx;
				o.ctx_size_in = sizeof(xctx);
			}
			struct ps_counters before, after;
			unsigned int hook = strcmp(c[i].hook, "xdp") ? PS_HOOK_TC_INGRESS :
								       PS_HOOK_XDP;

			ps_loader_read_counter(&loader[0], LO_IFINDEX, hook, &before);
			if (bpf_prog_test_run_opts(c[i].fd, &o)) {
				perror("BPF_PROG_TEST_RUN");
				goto out;
			}
			c[i].ns[r] = o.duration; /* the kernel's mean ns per run */
			ps_loader_read_counter(&loader[0], LO_IFINDEX, hook, &after);
			c[i].emitted += after.emitted - before.emitted;
			c[i].lost += after.output_errors - before.output_errors;
			/* A bench that measures the wrong path measures nothing:
			 * check the frame took the path its row names. */
			if (!strcmp(c[i].frame, "match") || !strcmp(c[i].frame, "no match")) {
				bool filtered = after.filtered != before.filtered;

				if (filtered != !strcmp(c[i].frame, "no match")) {
					fprintf(stderr,
						"%s '%s': the frame did not take the %s path\n",
						c[i].hook, c[i].expr, c[i].frame);
					goto out;
				}
			}
		}

	if (csv_path && !(csv = fopen(csv_path, "w"))) {
		perror(csv_path);
		goto out;
	}
	if (csv)
		fprintf(csv,
			"size,hook,configuration,frame,median_ns,min_ns,max_ns,lost_pct,rounds,repeat\n");
	printf("| size | hook | configuration | frame | ns/packet median | min-max | outputs lost |\n"
	       "|---|---|---|---|---|---|---|\n");
	for (int i = 0; i < n; i++) {
		uint64_t out = c[i].emitted + c[i].lost;
		double lost_pct = out ? 100.0 * (double)c[i].lost / (double)out : 0;
		char lost[32] = "-";

		if (out)
			snprintf(lost, sizeof(lost), "%.1f%%", lost_pct);
		qsort(c[i].ns, ROUNDS, sizeof(double), cmp_double);
		printf("| %u | %s | `%.60s%s` | %s | %.0f | %.0f-%.0f | %s |\n", c[i].size,
		       c[i].hook, c[i].expr, strlen(c[i].expr) > 60 ? "..." : "", c[i].frame,
		       c[i].ns[ROUNDS / 2], c[i].ns[0], c[i].ns[ROUNDS - 1], lost);
		if (csv)
			fprintf(csv, "%u,%s,\"%s\",%s,%.0f,%.0f,%.0f,%.1f,%d,%d\n", c[i].size,
				c[i].hook, c[i].expr, c[i].frame, c[i].ns[ROUNDS / 2], c[i].ns[0],
				c[i].ns[ROUNDS - 1], lost_pct, ROUNDS, REPEAT);
	}
	err = 0;
out:
	if (reader_started) {
		atomic_store(&reader_stop, true);
		pthread_join(reader_thread, NULL);
	}
	perf_buffer__free(rd.pb);
	ring_buffer__free(rd.rb);
	if (csv)
		fclose(csv);
	for (size_t i = N_CASES; i-- > 0;) {
		ps_loader_close(&loader[i]);
		ps_filter_free(&filters[i]);
	}
	bare_xdp__destroy(bare);
	return err;
}
