// SPDX-License-Identifier: GPL-2.0-only
/*
 * Per-packet cost of the datapath, measured with BPF_PROG_TEST_RUN: a bare
 * XDP_PASS program for reference; the XDP and TC programs with no filter;
 * with a handful of filter expressions on a frame that matches and one that
 * does not; and with each sampling mode, where nearly every packet is
 * sampled out (the cost a sampler adds to traffic it does not keep).
 *
 * No perf buffer is open, so bpf_perf_event_output() fails at once: the
 * numbers are the hook, the counters and the filter, without the copy to
 * user space (that is the end-to-end benchmark's business).
 *
 * Contenders are interleaved (A B C ... A B C ...) ROUNDS times and the
 * median and min-max of the kernel's own per-run average are reported.
 * Output: a markdown table on stdout and CSV to the file given with -o.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bpfmaps.h"
#include "filter.h"
#include "log.h"
#include "splice.h"
#include "pktsample_tc.skel.h"
#include "pktsample_xdp.skel.h"
#include "bare_xdp.skel.h"
#include "cli.h"
#include "sampling.h"

#define LO_IFINDEX 1
#define ROUNDS 7
#define REPEAT 200000
#define FRAME 64

enum frame_kind { F_UDP53, F_UDP9, F_TCP443, F_TCP_GET, F_VLAN_UDP, N_FRAMES };

struct bench_case {
	const char *expr;        /* NULL: no filter */
	enum frame_kind match, miss;
	const char *sampling;    /* label; NULL: no sampling */
	struct ps_opts opts;     /* the sampling options */
};

static const struct bench_case cases[] = {
	{ NULL, F_UDP53, F_UDP53 },
	{ NULL, F_UDP53, F_UDP53, "--sample 1000", { .sample_mode = PS_SAMPLE_RANDOM, .sample_n = 1000 } },
	{ NULL, F_UDP53, F_UDP53, "--sample 1000 --sample-mode count",
	  { .sample_mode = PS_SAMPLE_COUNT, .sample_n = 1000 } },
	{ NULL, F_UDP53, F_UDP53, "--sample-flows 1000", { .sample_mode = PS_SAMPLE_FLOW, .sample_n = 1000 } },
	{ NULL, F_UDP53, F_UDP53, "--sample-interval 1h (clock not armed)",
	  { .sample_mode = PS_SAMPLE_CLOCK, .sample_interval_ms = 3600000 } },
	{ NULL, F_UDP53, F_UDP53, "--max-rate 1 (over the cap)", { .max_rate = 1 } },
	{ "udp port 53", F_UDP53, F_UDP53, "'udp port 53' --sample 1000",
	  { .sample_mode = PS_SAMPLE_RANDOM, .sample_n = 1000 } },
	{ "udp port 53", F_UDP53, F_UDP9 },
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

static void make_frame(enum frame_kind k, uint8_t *b)
{
	uint8_t *ip;

	memset(b, 0, FRAME);
	memcpy(b, "\x02\0\0\0\0\x02\x02\0\0\0\0\x01", 12);
	if (k == F_VLAN_UDP) {
		memcpy(b + 12, "\x81\x00\x00\x64", 4);
		b += 4;
	}
	memcpy(b + 12, "\x08\x00", 2);
	ip = b + 14;
	ip[0] = 0x45;
	ip[2] = 0;
	ip[3] = 46;
	ip[8] = 64;
	ip[9] = k == F_TCP443 || k == F_TCP_GET ? 6 : 17;
	memcpy(ip + 12, k == F_UDP9 ? "\xc0\x00\x02\x09" : "\x0a\x00\x00\x01", 4);
	memcpy(ip + 16, "\xc0\x00\x02\x02", 4);
	if (ip[9] == 17) {
		ip[20] = 0xc3, ip[21] = 0x50;           /* 50000 */
		ip[23] = k == F_UDP9 ? 9 : 53;
	} else {
		ip[20] = 0xc3, ip[21] = 0x50;
		ip[22] = 0x01, ip[23] = 0xbb;           /* 443 */
		ip[32] = 0x50;                          /* data offset 5 */
		if (k == F_TCP_GET)
			memcpy(ip + 40, "GET ", 4);
	}
}

struct contender {
	char name[96];
	const char *hook;
	const char *expr;
	const char *frame;
	int fd;
	enum frame_kind kind;
	double ns[ROUNDS];
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	struct ps_maps maps = { .events_fd = -1, .counters_fd = -1, .cpu_seq_fd = -1, .sampler_fd = -1 };
	struct contender c[N_CASES * 2 * 2 + 1];
	struct bare_xdp *bare = NULL;
	struct pktsample_xdp *xdp[N_CASES] = { 0 };
	struct pktsample_tc *tc[N_CASES] = { 0 };
	struct ps_filter filters[N_CASES] = { 0 };
	uint8_t frames[N_FRAMES][FRAME];
	const char *csv_path = argc == 3 && !strcmp(argv[1], "-o") ? argv[2] : NULL;
	int n = 0, err = 1;
	FILE *csv = NULL;

	ps_log_set_verbosity(0);
	ps_log_hook_libs();
	for (int k = 0; k < N_FRAMES; k++)
		make_frame(k, frames[k]);
	if (ps_splice_register() || ps_maps_create(&maps, 0))
		return 1;
	for (int h = 0; h < PS_HOOK_MAX; h++)
		if (ps_maps_add_counter(&maps, LO_IFINDEX, h))
			goto out;

	bare = bare_xdp__open_and_load();
	if (!bare)
		goto out;
	c[n++] = (struct contender){ .hook = "xdp", .expr = "bare XDP_PASS program (reference)",
				     .frame = "any", .kind = F_UDP53,
				     .fd = bpf_program__fd(bare->progs.bare_xdp_pass) };

	for (size_t i = 0; i < N_CASES; i++) {
		struct ps_sampling smp;
		char why[512];

		xdp[i] = pktsample_xdp__open();
		tc[i] = pktsample_tc__open();
		if (!xdp[i] || !tc[i] || ps_maps_reuse(&maps, xdp[i]->obj) ||
		    ps_maps_reuse(&maps, tc[i]->obj))
			goto out;
		ps_sampling_from_opts(&cases[i].opts, &smp);
PS_SAMPLING_SET_RODATA(xdp[i]->rodata, &smp);
		PS_SAMPLING_SET_RODATA(tc[i]->rodata, &smp);
		if (cases[i].expr) {
			if (ps_filter_build(&filters[i], strdup(cases[i].expr), PS_SNAPLEN_MAX,
					    why, sizeof(why))) {
				fprintf(stderr, "%s: %s\n", cases[i].expr, why);
				goto out;
			}
			xdp[i]->rodata->filter_enabled = 1;
			tc[i]->rodata->filter_enabled = 1;
			if (ps_splice_set(xdp[i]->obj, &filters[i].xdp) ||
			    ps_splice_set(tc[i]->obj, &filters[i].tc)) {
				fprintf(stderr, "cannot prepare the filter of case %zu\n", i);
				goto out;
			}
		}
		err = pktsample_xdp__load(xdp[i]) || pktsample_tc__load(tc[i]);
		/* loaded: the splice entries are no longer needed */
		ps_splice_forget(xdp[i]->obj);
		ps_splice_forget(tc[i]->obj);
		if (err) {
			fprintf(stderr, "cannot load case %zu\n", i);
			err = 1;
			goto out;
		}
		for (int hook = 0; hook < 2; hook++)
			for (int m = 0; m < (cases[i].expr && !cases[i].sampling ? 2 : 1); m++) {
				struct contender *x = &c[n++];

				x->hook = hook ? "tc" : "xdp";
				x->expr = cases[i].sampling ? cases[i].sampling :
					  cases[i].expr ? cases[i].expr : "(no filter)";
				x->frame = cases[i].sampling ? "sampled out (999 of 1000)" :
					   !cases[i].expr ? "captured" : m ? "no match" : "match";
				if (cases[i].sampling && cases[i].opts.max_rate)
					x->frame = "rate-limited";
				if (cases[i].sampling && cases[i].opts.sample_mode == PS_SAMPLE_CLOCK)
					x->frame = "sampled out";
				x->kind = m ? cases[i].miss : cases[i].match;
				x->fd = bpf_program__fd(hook ? tc[i]->progs.pktsample_tc_ingress :
							     xdp[i]->progs.pktsample_xdp);
			}
	}

	for (int r = 0; r < ROUNDS; r++)
		for (int i = 0; i < n; i++) {
			/* data_end: the linear part (the whole frame, as on veth) */
			struct xdp_md xctx = { .ingress_ifindex = LO_IFINDEX,
					       .data_end = FRAME };
			LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = frames[c[i].kind],
				    .data_size_in = FRAME, .repeat = REPEAT);

			if (!strcmp(c[i].hook, "xdp")) {
				o.ctx_in = &xctx;
				o.ctx_size_in = sizeof(xctx);
			}
			struct ps_counters before, after;
			unsigned int hook = strcmp(c[i].hook, "xdp") ? PS_HOOK_TC_INGRESS : PS_HOOK_XDP;

			ps_maps_read_counter(&maps, LO_IFINDEX, hook, &before);
			if (bpf_prog_test_run_opts(c[i].fd, &o)) {
				perror("BPF_PROG_TEST_RUN");
				goto out;
			}
			c[i].ns[r] = o.duration; /* the kernel's mean ns per run */
			ps_maps_read_counter(&maps, LO_IFINDEX, hook, &after);
			/* A bench that measures the wrong path measures nothing:
			 * check the frame took the path its row names. */
			if (!strcmp(c[i].frame, "match") || !strcmp(c[i].frame, "no match")) {
				bool filtered = after.filtered != before.filtered;

				if (filtered != !strcmp(c[i].frame, "no match")) {
					fprintf(stderr, "%s '%s': the frame did not take the %s path\n",
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
		fprintf(csv, "hook,configuration,frame,median_ns,min_ns,max_ns,rounds,repeat\n");
	printf("| hook | configuration | frame | ns/packet median | min-max |\n|---|---|---|---|---|\n");
	for (int i = 0; i < n; i++) {
		qsort(c[i].ns, ROUNDS, sizeof(double), cmp_double);
		printf("| %s | `%.60s%s` | %s | %.0f | %.0f-%.0f |\n", c[i].hook, c[i].expr,
		       strlen(c[i].expr) > 60 ? "..." : "", c[i].frame, c[i].ns[ROUNDS / 2],
		       c[i].ns[0], c[i].ns[ROUNDS - 1]);
		if (csv)
			fprintf(csv, "%s,\"%s\",%s,%.0f,%.0f,%.0f,%d,%d\n", c[i].hook,
				c[i].expr, c[i].frame, c[i].ns[ROUNDS / 2], c[i].ns[0],
				c[i].ns[ROUNDS - 1], ROUNDS, REPEAT);
	}
	err = 0;
out:
	if (csv)
		fclose(csv);
	for (size_t i = 0; i < N_CASES; i++) {
		if (xdp[i])
			ps_splice_forget(xdp[i]->obj);
		if (tc[i])
			ps_splice_forget(tc[i]->obj);
		pktsample_xdp__destroy(xdp[i]);
		pktsample_tc__destroy(tc[i]);
		ps_filter_free(&filters[i]);
	}
	bare_xdp__destroy(bare);
	ps_maps_close(&maps);
	return err;
}
