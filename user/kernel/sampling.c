// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include <bpf/libbpf.h>
#include "log.h"
#include "pktsample.h"
#include "sampling.h"

static const char *const mode_names[] = {
	[PS_SAMPLE_ALL] = "all",   [PS_SAMPLE_RANDOM] = "random", [PS_SAMPLE_COUNT] = "count",
	[PS_SAMPLE_FLOW] = "flow", [PS_SAMPLE_CLOCK] = "clock",
};

void ps_sampling_init(struct ps_sampling *s, unsigned int mode, uint64_t n, uint64_t interval_ns,
		      uint64_t max_rate)
{
	memset(s, 0, sizeof(*s));
	s->mode = mode;
	s->n = n;
	s->interval_ns = interval_ns;
	s->max_rate = max_rate;
	s->bpf_mode = s->mode;
	if (s->mode == PS_SAMPLE_RANDOM || s->mode == PS_SAMPLE_COUNT ||
	    s->mode == PS_SAMPLE_FLOW) {
		if (s->n <= 1)
			s->bpf_mode = PS_SAMPLE_ALL; /* 1 in 1: everything */
		else /* no modulo: a uniform 32-bit value below 2^32/n */
			s->threshold = (uint32_t)((1ull << 32) / s->n);
	}
	if (s->max_rate) {
		uint64_t burst = s->max_rate / 100 ? s->max_rate / 100 : 1;

		s->cost_ns = 1000000000ull / s->max_rate;
		s->burst_ns = s->cost_ns * burst;
	}
}

bool ps_sampling_active(const struct ps_sampling *s)
{
	return s->mode != PS_SAMPLE_ALL || s->max_rate;
}

void ps_sampling_tag(const struct ps_sampling *s, char *buf, size_t len)
{
	int n = 0;

	buf[0] = '\0';
	if (s->mode == PS_SAMPLE_CLOCK)
		n = snprintf(buf, len, "sample=%llums mode=clock",
			     (unsigned long long)(s->interval_ns / 1000000));
	else if (s->mode != PS_SAMPLE_ALL)
		n = snprintf(buf, len, "sample=1/%llu mode=%s", (unsigned long long)s->n,
			     mode_names[s->mode]);
	if (s->max_rate && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - n, "%smax-rate=%llu/s", n ? " " : "",
			 (unsigned long long)s->max_rate);
}

/* "st", "nd", "rd" or "th": 1st, 2nd, 3rd, 11th, 22nd, 100th. */
static const char *ordinal_suffix(uint64_t n)
{
	if (n % 100 >= 11 && n % 100 <= 13)
		return "th";
	switch (n % 10) {
	case 1:
		return "st";
	case 2:
		return "nd";
	case 3:
		return "rd";
	default:
		return "th";
	}
}

void ps_sampling_describe(const struct ps_sampling *s, char *buf, size_t len)
{
	int n = 0;

	switch (s->mode) {
	case PS_SAMPLE_RANDOM:
		n = snprintf(buf, len, "sampling 1 in %llu matching packets at random",
			     (unsigned long long)s->n);
		break;
	case PS_SAMPLE_COUNT:
		n = snprintf(buf, len, "sampling every %llu%s matching packet per CPU",
			     (unsigned long long)s->n, ordinal_suffix(s->n));
		break;
	case PS_SAMPLE_FLOW:
		n = snprintf(buf, len,
			     "sampling every packet of 1 in %llu flows (symmetric 5-tuple hash)",
			     (unsigned long long)s->n);
		break;
	case PS_SAMPLE_CLOCK:
		n = snprintf(buf, len,
			     "sampling the first matching packet after each %llu ms CPU-clock tick, per CPU",
			     (unsigned long long)(s->interval_ns / 1000000));
		break;
	default:
		n = snprintf(buf, len, "every matching packet");
	}
	if (s->max_rate && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - n, "; at most %llu packets/s per CPU",
			 (unsigned long long)s->max_rate);
}

uint64_t ps_sampling_estimate(const struct ps_sampling *s, uint64_t emitted)
{
	if (s->max_rate)
		return 0;
	switch (s->mode) {
	case PS_SAMPLE_ALL:
		return emitted;
	case PS_SAMPLE_RANDOM:
	case PS_SAMPLE_COUNT:
	case PS_SAMPLE_FLOW:
		return emitted * s->n;
	default:
		return 0;
	}
}

void ps_ticker_stop(struct ps_ticker *t)
{
	for (int i = 0; i < t->n; i++) {
		bpf_link__destroy(t->link[i]);
		if (t->fd[i] >= 0)
			close(t->fd[i]);
	}
	free(t->cpu);
	free(t->fd);
	free(t->link);
	memset(t, 0, sizeof(*t));
}

int ps_ticker_start(struct ps_ticker *t, struct bpf_program *tick, uint64_t interval_ns)
{
	int ncpus = libbpf_num_possible_cpus(), err = 0;

	memset(t, 0, sizeof(*t));
	if (ncpus <= 0) {
		err = ncpus ? ncpus : -EINVAL;
		pr_err("clock sampling: cannot count possible CPUs: %s\n", strerror(-err));
		return err;
	}
	t->cpu = calloc(ncpus, sizeof(*t->cpu));
	t->fd = calloc(ncpus, sizeof(*t->fd));
	t->link = calloc(ncpus, sizeof(*t->link));
	if (!t->cpu || !t->fd || !t->link) {
		ps_ticker_stop(t);
		pr_err("clock sampling: cannot set up the CPU clocks: %s\n", strerror(ENOMEM));
		return -ENOMEM;
	}
	for (int cpu = 0; cpu < ncpus; cpu++) {
		struct perf_event_attr attr = {
			.type = PERF_TYPE_SOFTWARE,
			.size = sizeof(attr),
			.config = PERF_COUNT_SW_CPU_CLOCK,
			.sample_period = interval_ns, /* cpu-clock counts ns */
		};
		int fd = syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
		struct bpf_link *link;

		if (fd < 0) {
			err = -errno;
			if (err == -ENODEV) { /* offline: nothing runs there */
				pr_info("clock sampling: CPU %d is offline\n", cpu);
				err = 0;
				continue;
			}
			pr_err("cannot open a CPU clock on CPU %d: %s\n", cpu, strerror(-err));
			break;
		}
		t->cpu[t->n] = cpu;
		t->fd[t->n] = fd;
		t->n++;
		link = bpf_program__attach_perf_event(tick, fd);
		err = libbpf_get_error(link);
		if (err) {
			pr_err("cannot attach the clock program on CPU %d: %s\n", cpu,
			       strerror(-err));
			break;
		}
		t->link[t->n - 1] = link;
	}
	if (!err && !t->n) {
		err = -ENODEV;
		pr_err("clock sampling: no CPU is online\n");
	}
	if (err)
		ps_ticker_stop(t);
	return err;
}
