/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * In-kernel sampling, user side: turning the options into the programs'
 * rodata, describing the choice in pcapng annotations, scaling counts back
 * to totals, and the per-CPU software clocks of clock-driven sampling.
 */
#ifndef PS_SAMPLING_H
#define PS_SAMPLING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
struct bpf_program;
struct bpf_link;

struct ps_sampling {
	unsigned int mode;    /* enum ps_sample_mode, as the user chose it */
	uint64_t n;	      /* random, count, flow: 1 in n */
	uint64_t interval_ns; /* clock */
	uint64_t max_rate;    /* packets/s per CPU, 0 = none */
	/* what the BPF programs get */
	unsigned int bpf_mode; /* PS_SAMPLE_ALL when n == 1 */
	uint32_t threshold;    /* 2^32 / n: keep if a 32-bit hash is below */
	uint64_t cost_ns;      /* 1e9 / max_rate */
	uint64_t burst_ns;     /* bucket: max(1, max_rate / 100) packets */
	uint32_t seed;	       /* flow hash seed: which flows are chosen */
};

/* Pure: the user's choice (enum ps_sample_mode; 1 in n; the clock's
 * interval; --max-rate, packets/s per CPU, 0: none), already validated,
 * into what the programs take. The seed stays 0: the capture's own. */
void ps_sampling_init(struct ps_sampling *s, unsigned int mode, uint64_t n, uint64_t interval_ns,
		      uint64_t max_rate);
bool ps_sampling_active(const struct ps_sampling *s);
/* For packet comments: "sample=1/1000 mode=random max-rate=5000/s", or "". */
void ps_sampling_tag(const struct ps_sampling *s, char *buf, size_t len);
/* For interface comments: "1 in 1000 packets at random, per CPU; ...". */
void ps_sampling_describe(const struct ps_sampling *s, char *buf, size_t len);
/*
 * The number of matching packets the samples stand for: emitted * n for
 * the 1-in-n modes. 0 where no fixed factor exists (clock, rate cap).
 */
uint64_t ps_sampling_estimate(const struct ps_sampling *s, uint64_t emitted);

/* One software CPU clock per online CPU, each running the tick program. */
struct ps_ticker {
	int n;
	int *cpu;
	int *fd;
	struct bpf_link **link;
};

int ps_ticker_start(struct ps_ticker *t, struct bpf_program *tick, uint64_t interval_ns);
void ps_ticker_stop(struct ps_ticker *t);

#endif
