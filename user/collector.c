// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <bpf/libbpf.h>
#include "collector.h"
#include "hooks.h"
#include "log.h"
#include "pcapng.h"
#include "split.h"

#define IDLE_DRAIN_NS (100 * 1000000ull)

int ps_collector_init(struct ps_collector *c, struct pcapng_writer *w,
		      struct ps_target *targets, int n_targets, int ncpus,
		      uint32_t snaplen, uint64_t limit)
{
	memset(c, 0, offsetof(struct ps_collector, frame));
	c->cpus = calloc(ncpus, sizeof(*c->cpus));
	if (!c->cpus) {
		pr_err("cannot set up the collector for %d CPUs: %s\n", ncpus, strerror(ENOMEM));
		return -ENOMEM;
	}
	c->w = w;
	c->targets = targets;
	c->n_targets = n_targets;
	c->ncpus = ncpus;
	c->snaplen = snaplen;
	c->limit = limit;
	ps_clock_calibrate(&c->clock, 16, ps_clock_read_ns, NULL);
	return 0;
}

static struct ps_target *find_target(struct ps_collector *c, int ifindex,
				     unsigned int hook)
{
	for (int i = 0; i < c->n_targets; i++)
		if (c->targets[i].ifindex == ifindex && c->targets[i].hook == hook)
			return &c->targets[i];
	return NULL;
}

/*
 * Samples from one CPU arrive in the order that CPU emitted them, so a gap
 * in the sequence is exactly the number lost (buffer full) before this one.
 */
static uint64_t take_drops(struct ps_collector *c, int cpu, uint64_t seq)
{
	struct ps_cpu_state *s = &c->cpus[cpu];
	uint64_t drops;

	if (seq > s->next_seq) {
		c->seq_gaps += seq - s->next_seq;
		s->pending_drops += seq - s->next_seq;
	}
	if (seq >= s->next_seq)
		s->next_seq = seq + 1;
	drops = s->pending_drops;
	s->pending_drops = 0;
	return drops;
}

/* The options every packet like m gets, but its id and drop count. */
static void encode_opts(const struct ps_collector *c, struct ps_cpu_state *cs,
			const struct ps_meta *m)
{
	char comment[160];

	snprintf(comment, sizeof(comment), "hook=%s cpu=%u queue=%u%s%s%s",
		 ps_hook_name(m->hook), m->cpu, m->rx_queue, c->tag[0] ? " " : "",
		 c->tag, m->flags & PS_F_CLOCK_FALLBACK ? " clock=fallback" : "");
	pcapng_epb_opts_encode(&cs->opts, &(struct pcapng_epb){
		.direction = m->hook == PS_HOOK_TC_EGRESS ? PCAPNG_DIR_OUTBOUND :
							    PCAPNG_DIR_INBOUND,
		.has_queue = true,
		.queue = m->rx_queue,
		.has_verdict = true,
		.verdict_type = m->hook == PS_HOOK_XDP ? PCAPNG_VERDICT_XDP :
							 PCAPNG_VERDICT_TC,
		.verdict = m->verdict,
		.comment = comment,
	});
	cs->opts_valid = true;
	cs->opts_hook = m->hook;
	cs->opts_cpu = m->cpu;
	cs->opts_queue = m->rx_queue;
	cs->opts_flags = m->flags;
	cs->opts_verdict = m->verdict;
}

void ps_collector_sample(struct ps_collector *c, int cpu, const void *raw,
			 uint32_t size)
{
	struct pcapng_epb epb = { 0 };
	struct ps_target *t;
	struct ps_meta m;
	const uint8_t *pkt;
	struct ps_cpu_state *cs;
	int err;

	if (c->done)
		return;
	if (ps_split_sample(raw, size, &m, &pkt) || cpu < 0 || cpu >= c->ncpus) {
		c->malformed++;
		return;
	}
	t = find_target(c, m.ifindex, m.hook);
	if (!t) {
		c->unknown++;
		return;
	}

	epb.if_id = t->if_id;
	epb.ts_ns = ps_clock_to_realtime(&c->clock, m.ts_ns);
	epb.data = ps_frame_on_wire(&m, pkt, c->frame, c->snaplen, &epb.cap_len,
				    &epb.wire_len);
	epb.has_packet_id = true;
	epb.packet_id = ((uint64_t)m.cpu << 48) | (m.seq & 0xffffffffffffull);
	epb.drop_count = take_drops(c, cpu, m.seq);
	cs = &c->cpus[cpu];
	if (!cs->opts_valid || cs->opts_hook != m.hook || cs->opts_cpu != m.cpu ||
	    cs->opts_queue != m.rx_queue || cs->opts_flags != m.flags ||
	    cs->opts_verdict != m.verdict)
		encode_opts(c, cs, &m);
	epb.opts = &cs->opts;

	err = pcapng_write_epb(c->w, &epb);
	if (err) {
		c->error = err;
		c->done = true;
		return;
	}
	t->written++;
	c->written++;
	if (c->limit && c->written >= c->limit)
		c->done = true;
}

void ps_collector_lost(struct ps_collector *c, int cpu, uint64_t lost)
{
	if (cpu >= 0 && cpu < c->ncpus)
		c->cpus[cpu].lost += lost;
}

uint64_t ps_collector_lost_total(const struct ps_collector *c)
{
	uint64_t sum = 0;

	for (int i = 0; i < c->ncpus; i++)
		sum += c->cpus[i].lost;
	return sum;
}

struct perf_sample_raw {
	struct perf_event_header header;
	uint32_t size;
	uint8_t data[];
};

struct perf_lost {
	struct perf_event_header header;
	uint64_t id;
	uint64_t lost;
};

static enum bpf_perf_event_ret on_event(void *ctx, int cpu,
					struct perf_event_header *ev)
{
	struct ps_collector *c = ctx;

	if (ev->type == PERF_RECORD_SAMPLE) {
		struct perf_sample_raw *s = (struct perf_sample_raw *)ev;

		if (ev->size < sizeof(*s) || s->size > ev->size - sizeof(*s))
			c->malformed++;
		else
			ps_collector_sample(c, cpu, s->data, s->size);
	} else if (ev->type == PERF_RECORD_LOST) {
		ps_collector_lost(c, cpu, ((struct perf_lost *)ev)->lost);
	}
	/* Stop consuming once done; what is left is counted as unread. */
	return c->done ? LIBBPF_PERF_EVENT_DONE : LIBBPF_PERF_EVENT_CONT;
}

unsigned int ps_buffer_pages(uint32_t buffer_kib, long page_size)
{
	uint64_t bytes = (uint64_t)buffer_kib * 1024;
	unsigned int pages = 1;

	while ((uint64_t)pages * page_size < bytes)
		pages <<= 1;
	return pages;
}

void ps_perf_attr_init(struct perf_event_attr *attr, unsigned int pages,
		       long page_size)
{
	*attr = (struct perf_event_attr){
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_BPF_OUTPUT,
		.sample_type = PERF_SAMPLE_RAW,
		.sample_period = 1,
		/*
		 * Wake the reader when a quarter of the buffer is full, not
		 * per sample: per-sample wakeups cost the sender ~80% of its
		 * rate on a veth flood. The idle drain picks up the tail.
		 */
		.watermark = 1,
		.wakeup_watermark = (uint32_t)((uint64_t)pages * page_size / 4),
	};
}

int ps_collector_open(struct ps_collector *c, int events_fd,
		      uint32_t buffer_kib)
{
	long page_size = sysconf(_SC_PAGESIZE);
	unsigned int pages = ps_buffer_pages(buffer_kib, page_size);
	struct perf_event_attr attr;
	int err;

	ps_perf_attr_init(&attr, pages, page_size);
	c->pb = perf_buffer__new_raw(events_fd, pages, &attr, on_event, c, NULL);
	err = libbpf_get_error(c->pb);
	if (err) {
		c->pb = NULL;
		pr_err("cannot open perf buffers (%u KiB per CPU): %s\n",
		       (unsigned int)(pages * page_size / 1024), strerror(-err));
		return err;
	}
	pr_info("perf buffer: %u KiB per CPU, wakeup at %u KiB\n",
		(unsigned int)(pages * page_size / 1024),
		attr.wakeup_watermark / 1024);
	return 0;
}

/* A ring record is one sample; it says itself which CPU emitted it. */
static int on_ring_record(void *ctx, void *data, size_t size)
{
	struct ps_collector *c = ctx;
	const struct ps_meta *m = data;

	/* The record has its size class's room; the packet is cap_len of it. */
	if (size < sizeof(*m) || m->cap_len > size - sizeof(*m))
		c->malformed++;
	else
		ps_collector_sample(c, (int)m->cpu, data,
				    (uint32_t)sizeof(*m) + m->cap_len);
	/* A negative return stops ring_buffer__consume() once done. */
	return c->done ? -ECANCELED : 0;
}

int ps_collector_open_ring(struct ps_collector *c, int ring_fd)
{
	int err;

	c->rb = ring_buffer__new(ring_fd, on_ring_record, c, NULL);
	err = libbpf_get_error(c->rb);
	if (err) {
		c->rb = NULL;
		pr_err("cannot open the BPF ring buffer: %s\n", strerror(-err));
		return err;
	}
	return 0;
}

static uint64_t now_ns(void)
{
	return (uint64_t)ps_clock_read_ns(CLOCK_MONOTONIC, NULL);
}

int ps_collector_drain(struct ps_collector *c)
{
	int err = 0;

	c->last_drain_ns = now_ns();
	if (c->pb && !c->done)
		err = perf_buffer__consume(c->pb);
	if (c->rb && !c->done) {
		err = ring_buffer__consume(c->rb);
		if (err == -ECANCELED)
			err = 0;
	}
	if (!c->error)
		c->error = pcapng_flush(c->w);
	return err < 0 ? err : c->error;
}

int ps_collector_poll(struct ps_collector *c, int timeout_ms)
{
	int n = c->rb ? ring_buffer__poll(c->rb, timeout_ms) :
			perf_buffer__poll(c->pb, timeout_ms);

	if (n == -ECANCELED)
		n = 1;
	if (n < 0 && n != -EINTR)
		return n;
	/*
	 * Buffers below their watermark never wake us: drain all of them
	 * when nothing woke us, and at least every IDLE_DRAIN_NS anyway, so
	 * a quiet CPU's samples are not stuck behind a busy one.
	 */
	if (n == 0 || now_ns() - c->last_drain_ns >= IDLE_DRAIN_NS)
		return ps_collector_drain(c);
	return c->error;
}

void ps_collector_free(struct ps_collector *c)
{
	perf_buffer__free(c->pb);
	c->pb = NULL;
	ring_buffer__free(c->rb);
	c->rb = NULL;
	free(c->cpus);
	c->cpus = NULL;
}
