// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "ingest.h"
#include "log.h"
#include "split.h"

/*
 * What the in-flight marks cannot cover (user/ingest/order.h): CLOCK_MONOTONIC
 * read on different CPUs, and the mark's store becoming visible before the
 * program reads the clock. Both are well under a microsecond; this margin
 * is a thousand times that and holds back only the last millisecond of a
 * round's samples until the next round.
 */
#define ORDER_SKEW_NS 1000000ull
/* The final round waits at most this long for samples still in flight. */
#define DRAIN_WAIT_NS 10000000ull

int ps_ingest_init(struct ps_ingest *c, struct ps_target *targets, int n_targets, int ncpus,
		   uint32_t snaplen, uint64_t limit)
{
	memset(c, 0, offsetof(struct ps_ingest, frame));
	c->emit_fd = -1;
	c->cpus = calloc(ncpus, sizeof(*c->cpus));
	c->emit = calloc(ncpus, sizeof(*c->emit));
	if (!c->cpus || !c->emit || ps_order_init(&c->order, ncpus, PS_ORDER_DEFAULT_HELD)) {
		pr_err("cannot set up the ingest for %d CPUs: %s\n", ncpus, strerror(ENOMEM));
		return -ENOMEM;
	}
	c->targets = targets;
	c->n_targets = n_targets;
	c->ncpus = ncpus;
	c->snaplen = snaplen;
	c->limit = limit;
	ps_clock_calibrate(&c->clock, 16, ps_clock_read_ns, NULL);
	return 0;
}

int ps_ingest_add_sink(struct ps_ingest *c, struct ps_sink *s)
{
	if (c->n_sinks == PS_MAX_SINKS) {
		pr_err("cannot add an output: at most %d\n", PS_MAX_SINKS);
		return -E2BIG;
	}
	c->sinks[c->n_sinks++] = s;
	return 0;
}

static struct ps_target *find_target(struct ps_ingest *c, int ifindex, unsigned int hook)
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
static uint64_t take_drops(struct ps_ingest *c, int cpu, uint64_t seq)
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

static void sink_failed(struct ps_ingest *c, struct ps_sink *s, int err)
{
	c->error = err;
	c->failed = s;
	c->done = true;
}

/* One placed sample out to every sink: meta and packet as the merge held
 * them. A sink's error ends the capture; the sinks after it do not get the
 * packet, and it does not count as written. */
static void write_record(struct ps_ingest *c, const struct ps_order_rec *r)
{
	const struct ps_meta *m = (const struct ps_meta *)r->data;
	struct ps_target *t = find_target(c, m->ifindex, m->hook);
	struct ps_sink_pkt p = {
		.target = (int)(t - c->targets),
		.t = t,
		.m = m,
		.ts_ns = ps_clock_to_realtime(&c->clock, m->ts_ns),
		.packet_id = ((uint64_t)m->cpu << 48) | (m->seq & 0xffffffffffffull),
		.drops = r->drops,
	};

	p.data = ps_frame_on_wire(m, r->data + sizeof(*m), c->frame, c->snaplen, &p.cap_len,
				  &p.wire_len);
	for (int i = 0; i < c->n_sinks; i++) {
		int err = c->sinks[i]->ops->packet(c->sinks[i], &p);

		if (err) {
			sink_failed(c, c->sinks[i], err);
			return;
		}
	}
	t->written++;
	c->written++;
	if (c->limit && c->written >= c->limit)
		c->done = true;
}

/* Write the earliest held sample, placed or not: the merge is full. */
static void force_one(struct ps_ingest *c)
{
	const struct ps_order_rec *r = ps_order_peek(&c->order);

	if (!r)
		return;
	write_record(c, r);
	ps_order_pop(&c->order);
	c->forced++;
}

int ps_ingest_release(struct ps_ingest *c, bool all)
{
	uint64_t wm = all ? UINT64_MAX : ps_order_watermark(&c->order);
	const struct ps_order_rec *r;

	while (!c->done && (r = ps_order_peek(&c->order)) && r->ts <= wm) {
		write_record(c, r);
		ps_order_pop(&c->order);
	}
	return c->error;
}

void ps_ingest_settle(struct ps_ingest *c, int cpu, uint64_t t)
{
	ps_order_settle(&c->order, cpu, t);
}

/*
 * Into the merge, checked and split: the record holds the metadata and the
 * packet bytes, and the drop count of this CPU's sequence so far (samples
 * of one CPU stay in order, so the count still lands on the next packet
 * written from that CPU).
 */
void ps_ingest_sample(struct ps_ingest *c, int cpu, const void *raw, uint32_t size)
{
	struct ps_order_rec *r;
	struct ps_meta m;
	const uint8_t *pkt;

	(void)cpu; /* the sample names its CPU; the ring has no other */
	if (c->done)
		return;
	if (ps_split_sample(raw, size, &m, &pkt) || m.cpu >= (uint32_t)c->ncpus) {
		c->malformed++;
		return;
	}
	if (!find_target(c, m.ifindex, m.hook)) {
		c->unknown++;
		return;
	}
	while (!(r = ps_order_reserve(&c->order, (int)m.cpu, sizeof(m) + m.cap_len))) {
		if (!ps_order_peek(&c->order)) { /* out of memory, nothing held */
			sink_failed(c, NULL, -ENOMEM);
			return;
		}
		force_one(c);
		if (c->done)
			return;
	}
	r->ts = m.ts_ns;
	r->drops = take_drops(c, (int)m.cpu, m.seq);
	memcpy(r->data, &m, sizeof(m));
	memcpy(r->data + sizeof(m), pkt, m.cap_len);
	ps_order_commit(&c->order, r);
	c->received++;
}

void ps_ingest_lost(struct ps_ingest *c, int cpu, uint64_t lost)
{
	if (cpu >= 0 && cpu < c->ncpus)
		c->cpus[cpu].lost += lost;
}

uint64_t ps_ingest_lost_total(const struct ps_ingest *c)
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

static enum bpf_perf_event_ret on_event(void *ctx, int cpu, struct perf_event_header *ev)
{
	struct ps_ingest *c = ctx;

	if (ev->type == PERF_RECORD_SAMPLE) {
		struct perf_sample_raw *s = (struct perf_sample_raw *)ev;

		if (ev->size < sizeof(*s) || s->size > ev->size - sizeof(*s))
			c->malformed++;
		else
			ps_ingest_sample(c, cpu, s->data, s->size);
	} else if (ev->type == PERF_RECORD_LOST) {
		ps_ingest_lost(c, cpu, ((struct perf_lost *)ev)->lost);
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

void ps_perf_attr_init(struct perf_event_attr *attr, unsigned int pages, long page_size)
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

int ps_ingest_open(struct ps_ingest *c, int events_fd, int emit_fd, uint32_t buffer_kib)
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
	c->emit_fd = emit_fd;
	/* A round reads at most every buffer once; the rest is slack for
	 * what the last round held back. */
	c->order.max_held = 2 * (size_t)c->ncpus * pages * page_size;
	pr_info("perf buffer: %u KiB per CPU, wakeup at %u KiB; merge holds at most %zu MiB\n",
		(unsigned int)(pages * page_size / 1024), attr.wakeup_watermark / 1024,
		c->order.max_held >> 20);
	return 0;
}

/* A ring record is one sample; it says itself which CPU emitted it. */
static int on_ring_record(void *ctx, void *data, size_t size)
{
	struct ps_ingest *c = ctx;
	const struct ps_meta *m = data;

	/* The record has its size class's room; the packet is cap_len of it. */
	if (size < sizeof(*m) || m->cap_len > size - sizeof(*m))
		c->malformed++;
	else
		ps_ingest_sample(c, (int)m->cpu, data, (uint32_t)sizeof(*m) + m->cap_len);
	c->round_bytes += (size + 8 + 7) & ~(size_t)7; /* header, 8-byte aligned */
	/*
	 * A negative return stops ring_buffer__consume() once done, or once
	 * the round has read what the ring held when it began: under a flood
	 * the ring never runs dry, and the merge can only place what a
	 * finished round vouches for. libbpf has already consumed this
	 * record; it is in the merge.
	 */
	if (c->done)
		return -ECANCELED;
	return c->round_bytes >= c->round_budget ? -EAGAIN : 0;
}

int ps_ingest_open_ring(struct ps_ingest *c, int ring_fd, int emit_fd, uint32_t ring_bytes)
{
	long page_size = sysconf(_SC_PAGESIZE);
	void *pos;
	int err;

	c->rb = ring_buffer__new(ring_fd, on_ring_record, c, NULL);
	err = libbpf_get_error(c->rb);
	if (err) {
		c->rb = NULL;
		pr_err("cannot open the BPF ring buffer: %s\n", strerror(-err));
		return err;
	}
	/* The consumer and producer positions, read-only: a round settles
	 * CPUs only if it read past where the producer was when it began. */
	pos = mmap(NULL, 2 * page_size, PROT_READ, MAP_SHARED, ring_fd, 0);
	if (pos == MAP_FAILED) {
		err = -errno;
		pr_err("cannot map the BPF ring buffer's positions: %s\n", strerror(-err));
		return err;
	}
	c->ring_pos[0] = pos;
	c->ring_pos[1] = (const volatile uint64_t *)((uint8_t *)pos + page_size);
	c->ring_pos_len = 2 * page_size;
	c->emit_fd = emit_fd;
	c->order.max_held = 2 * (size_t)ring_bytes;
	return 0;
}

static uint64_t now_ns(void)
{
	return (uint64_t)ps_clock_read_ns(CLOCK_MONOTONIC, NULL);
}

/* Every CPU's in-flight mark, in one read; false if it failed. */
static bool read_marks(struct ps_ingest *c)
{
	uint32_t zero = 0;

	return c->emit_fd >= 0 && !bpf_map_lookup_elem(c->emit_fd, &zero, c->emit);
}

/* Read every buffer to where its producer was when the round began; *to_end
 * says whether it got there (not when -c stopped it, or the ring could not
 * be read past a record still being written). */
static int consume_all(struct ps_ingest *c, bool *to_end)
{
	int err = 0;

	*to_end = false;
	if (c->pb) {
		err = perf_buffer__consume(c->pb);
		*to_end = !err && !c->done;
	}
	if (c->rb) {
		uint64_t start = __atomic_load_n(c->ring_pos[1], __ATOMIC_ACQUIRE);
		uint64_t from = __atomic_load_n(c->ring_pos[0], __ATOMIC_ACQUIRE);

		/* Up to where the producer was (discarded records, which the
		 * callback does not see, may take it a little further). */
		c->round_bytes = 0;
		c->round_budget = start > from ? start - from : 0;
		if (!c->round_budget) {
			*to_end = !c->done;
			return 0;
		}
		err = ring_buffer__consume(c->rb);
		if (err == -ECANCELED || err == -EAGAIN)
			err = 0;
		*to_end = !err && !c->done &&
			  __atomic_load_n(c->ring_pos[0], __ATOMIC_ACQUIRE) >= start;
	}
	return err < 0 ? err : 0;
}

/*
 * One round (user/ingest/order.h has the reasoning): the clock first, then the
 * marks, then the buffers. A CPU whose mark was clear had stamped and
 * emitted everything before `now` by the time the mark was read, and the
 * buffers were read after that, so the merge has all it will ever get from
 * that CPU before now - skew.
 */
static int round_once(struct ps_ingest *c, bool all, bool *in_flight)
{
	uint64_t now = now_ns();
	bool marks = read_marks(c), to_end = false;
	int err;

	*in_flight = !marks;
	err = c->done ? 0 : consume_all(c, &to_end);
	if (err)
		return err;
	c->rounds++;
	for (int cpu = 0; marks && cpu < c->ncpus; cpu++) {
		if (c->emit[cpu].in_flight)
			*in_flight = true;
		else if (to_end && now > ORDER_SKEW_NS)
			ps_order_settle(&c->order, cpu, now - ORDER_SKEW_NS);
	}
	if (!c->error)
		ps_ingest_release(c, all);
	/* The file's blocks, printed lines and sFlow datagrams leave once a
	 * round. */
	for (int i = 0; i < c->n_sinks && !c->error; i++) {
		err = c->sinks[i]->ops->round(c->sinks[i]);
		if (err)
			sink_failed(c, c->sinks[i], err);
	}
	return c->error;
}

int ps_ingest_drain(struct ps_ingest *c)
{
	uint64_t until = now_ns() + DRAIN_WAIT_NS;
	bool in_flight;
	int err;

	/* The hooks are detached, but a program that started before may still
	 * be between its timestamp and its output. */
	while (!(err = round_once(c, false, &in_flight)) && in_flight && c->emit_fd >= 0 &&
	       now_ns() < until)
		usleep(1000);
	return err ? err : round_once(c, true, &in_flight);
}

int ps_ingest_epoll_fd(const struct ps_ingest *c)
{
	return c->rb ? ring_buffer__epoll_fd(c->rb) : perf_buffer__epoll_fd(c->pb);
}

int ps_ingest_poll(struct ps_ingest *c, int timeout_ms)
{
	int fd = ps_ingest_epoll_fd(c);
	struct epoll_event ev[16];
	bool in_flight;

	/* Woken by a buffer at its watermark, or idle: either way every
	 * buffer is read, so a quiet CPU's samples are not held back. */
	if (epoll_wait(fd, ev, 16, timeout_ms) < 0 && errno != EINTR)
		return -errno;
	return round_once(c, false, &in_flight);
}

int ps_ingest_close(struct ps_ingest *c, bool ok)
{
	int first = 0;

	for (int i = 0; i < c->n_sinks; i++) {
		int err = c->sinks[i]->ops->close(c->sinks[i], ok && !first);

		if (err && !first) {
			first = err;
			c->failed = c->sinks[i];
		}
	}
	return first;
}

void ps_ingest_free(struct ps_ingest *c)
{
	perf_buffer__free(c->pb);
	c->pb = NULL;
	ring_buffer__free(c->rb);
	c->rb = NULL;
	if (c->ring_pos_len)
		munmap((void *)c->ring_pos[0], c->ring_pos_len);
	c->ring_pos_len = 0;
	ps_order_free(&c->order);
	free(c->emit);
	c->emit = NULL;
	free(c->cpus);
	c->cpus = NULL;
}
