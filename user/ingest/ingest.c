// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "hooks.h"
#include "ingest.h"
#include "log.h"
#include "reader.h"
#include "split.h"

/*
 * What the in-flight marks cannot cover (user/ingest/order.h): CLOCK_MONOTONIC
 * read on different CPUs, and the mark's store becoming visible before the
 * program reads the clock. Both are well under a microsecond; this margin
 * is a hundred times that. It holds back the last 100 us of a round's
 * samples until the next round, and with them their space in the kernel's
 * buffer (the bytes stay there until written): at 2 GB/s a 1 ms margin held
 * 2 MB, all of a 2 MiB buffer (bench/bulk.sh's search).
 */
#define ORDER_SKEW_NS 100000ull
/* The final round waits at most this long for samples still in flight. */
#define DRAIN_WAIT_NS 10000000ull

/* Counted by reader threads too: rare events, atomic adds. */
static void count(uint64_t *n, uint64_t by)
{
	__atomic_fetch_add(n, by, __ATOMIC_RELAXED);
}

static bool is_done(const struct ps_ingest *c)
{
	return __atomic_load_n(&c->done, __ATOMIC_RELAXED);
}

/* How take() gets the bytes. */
enum take_how {
	TAKE_IN_PLACE, /* they stay in the source until the round ends */
	TAKE_COPY,     /* copied: the caller's buffer */
	TAKE_OWN,      /* raw is malloc'ed, and the ingest's from now on */
};

int ps_ingest_init(struct ps_ingest *c, struct ps_target *targets, int n_targets, int ncpus,
		   uint32_t snaplen, uint64_t limit)
{
	memset(c, 0, sizeof(*c));
	c->emit_fd = -1;
	c->epoll_fd = -1;
	c->wake_fd = -1;
	c->stop_fd = -1;
	c->r0.c = c;
	c->r0.epoll_fd = -1;
	c->cpus = calloc(ncpus, sizeof(*c->cpus));
	c->r0.emit = calloc(ncpus, sizeof(*c->r0.emit));
	c->r0.cpu_read = calloc(ncpus, sizeof(*c->r0.cpu_read));
	if (!c->cpus || !c->r0.emit || !c->r0.cpu_read ||
	    ps_order_init(&c->order, ncpus, PS_ORDER_DEFAULT_HELD)) {
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

void ps_ingest_set_who(struct ps_ingest *c, struct ps_who_table *t)
{
	c->who = t;
}

void ps_ingest_set_drop_names(struct ps_ingest *c, const struct ps_dropnames *n)
{
	c->drop_names = n;
}

void ps_ingest_set_n_targets(struct ps_ingest *c, int n)
{
	__atomic_store_n(&c->n_targets, n, __ATOMIC_RELEASE);
}

/*
 * The target of (ifindex, hook): the last one found first (packets come
 * in runs from one interface), else a scan. Reader threads call this
 * while the capture adds targets: n_targets is published after the entry,
 * and an entry taken over by another interface changes its ifindex last
 * (ps_target's comment), so a scan sees an entry whole or not at all.
 */
static struct ps_target *find_target(struct ps_ingest *c, int ifindex, unsigned int hook)
{
	int n = __atomic_load_n(&c->n_targets, __ATOMIC_ACQUIRE);
	int last = __atomic_load_n(&c->last_target, __ATOMIC_RELAXED);

	if (last < n && __atomic_load_n(&c->targets[last].ifindex, __ATOMIC_ACQUIRE) == ifindex &&
	    c->targets[last].hook == hook)
		return &c->targets[last];
	for (int i = 0; i < n; i++)
		if (__atomic_load_n(&c->targets[i].ifindex, __ATOMIC_ACQUIRE) == ifindex &&
		    c->targets[i].hook == hook) {
			__atomic_store_n(&c->last_target, i, __ATOMIC_RELAXED);
			return &c->targets[i];
		}
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
		count(&c->seq_gaps, seq - s->next_seq);
		s->gaps += seq - s->next_seq;
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

/* p stays valid until the round ends, then is freed. */
static int keep_for_round(struct ps_ingest *c, void *p)
{
	if (c->n_round_copies == c->round_copies_cap) {
		size_t cap = c->round_copies_cap ? 2 * c->round_copies_cap : 256;
		void **n = realloc(c->round_copies, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		c->round_copies = n;
		c->round_copies_cap = cap;
	}
	c->round_copies[c->n_round_copies++] = p;
	return 0;
}

/*
 * The frame as it was on the wire: the packet itself, or with TC's
 * out-of-band VLAN tag put back, in a copy that lives until the round ends
 * (a sink may point into it until then).
 */
static const uint8_t *frame_on_wire(struct ps_ingest *c, const struct ps_meta *m,
				    const uint8_t *pkt, uint32_t *cap_len, uint32_t *wire_len)
{
	uint8_t *frame = NULL;

	if (m->flags & PS_F_VLAN_OOB) {
		frame = malloc((size_t)m->cap_len + PS_VLAN_HLEN);
		if (!frame || keep_for_round(c, frame)) {
			free(frame);
			sink_failed(c, NULL, -ENOMEM);
			return NULL;
		}
	}
	return ps_frame_on_wire(m, pkt, frame, c->snaplen, cap_len, wire_len);
}

/* One placed sample out to every sink. A sink's error ends the capture;
 * the sinks after it do not get the packet, and it does not count as
 * written. */
static void write_record(struct ps_ingest *c, const struct ps_order_rec *r)
{
	const struct ps_ref *ref = (const struct ps_ref *)r->data;
	const struct ps_meta *m = &ref->m;
	struct ps_target *t = find_target(c, m->ifindex, m->hook);
	struct ps_sink_pkt p = {
		.target = (int)(t - c->targets),
		.t = t,
		.m = m,
		.ts_ns = ps_clock_to_realtime(&c->clock, m->ts_ns),
		.packet_id = ((uint64_t)m->cpu << 48) | (m->seq & 0xffffffffffffull),
		.drops = r->drops,
	};
	struct ps_who who;
	struct ps_drop_words drop;

	/* Its interface went, and a new one took its target over meanwhile
	 * (the capture follows interfaces): no output knows it any more. */
	if (!t) {
		count(&c->unknown, 1);
		free(ref->owned); /* ours: a written record's copy is */
		return;
	}
	if (ref->owned && keep_for_round(c, ref->owned)) {
		free(ref->owned);
		sink_failed(c, NULL, -ENOMEM);
		return;
	}
	p.data = frame_on_wire(c, m, ref->pkt, &p.cap_len, &p.wire_len);
	if (!p.data)
		return;
	if (c->who && m->ctx != PS_CTX_OFF) {
		ps_who_resolve(c->who, m, &who);
		p.who = &who;
	}
	if (c->drop_names && ps_hook_is_drop(m->hook)) {
		drop.reason = ps_dropnames_reason(c->drop_names, (uint32_t)m->verdict, drop.buf,
						  sizeof(drop.buf));
		ps_dropnames_at(c->drop_names, m->location, drop.at, sizeof(drop.at));
		p.drop = &drop;
	}
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

/* Drop the earliest held reference, freeing a copy nobody will write. */
static void pop(struct ps_ingest *c, bool written)
{
	const struct ps_order_rec *r = ps_order_peek(&c->order);
	const struct ps_ref *ref = (const struct ps_ref *)r->data;

	if (!written)
		free(ref->owned);
	ps_order_pop(&c->order);
}

/* Write the earliest held sample, placed or not: the merge is full. */
static void force_one(struct ps_ingest *c)
{
	const struct ps_order_rec *r = ps_order_peek(&c->order);

	if (!r)
		return;
	write_record(c, r);
	pop(c, true);
	c->forced++;
}

int ps_ingest_release(struct ps_ingest *c, bool all)
{
	uint64_t wm = all ? UINT64_MAX : ps_order_watermark(&c->order);
	const struct ps_order_rec *r;

	while (!c->done && (r = ps_order_peek(&c->order)) && r->ts <= wm) {
		write_record(c, r);
		pop(c, true);
	}
	return c->error;
}

void ps_ingest_settle(struct ps_ingest *c, int cpu, uint64_t t)
{
	ps_order_settle(&c->order, cpu, t);
}

bool ps_ingest_commit(struct ps_ingest *c, const struct ps_ref *ref, uint64_t drops)
{
	struct ps_order_rec *r;

	while (!(r = ps_order_reserve(&c->order, (int)ref->m.cpu, sizeof(*ref)))) {
		if (!ps_order_peek(&c->order) || c->done) { /* out of memory, nothing held */
			if (!c->done)
				sink_failed(c, NULL, -ENOMEM);
			free(ref->owned);
			return false;
		}
		force_one(c);
	}
	r->ts = ref->m.ts_ns;
	r->drops = drops;
	memcpy(r->data, ref, sizeof(*ref));
	ps_order_commit(&c->order, r);
	c->received++;
	c->received_bytes += ref->bytes;
	return true;
}

/*
 * Checked and split, into the merge (or r's mailboxes): a reference to the
 * packet bytes, the metadata, and the drop count of this CPU's sequence so
 * far (samples of one CPU stay in order, so the count still lands on the
 * next packet written from that CPU). False if the sample was not taken.
 */
static bool take(struct ps_reader *r, const void *raw, uint32_t size, int src, uint64_t pos,
		 enum take_how how)
{
	struct ps_ingest *c = r->c;
	struct ps_ref ref = { .src = src, .pos = pos };
	const uint8_t *pkt;
	uint64_t drops;

	if (how == TAKE_OWN) {
		ref.owned = (void *)raw;
		ref.src = -1;
	}
	if (is_done(c))
		goto drop;
	if (ps_split_sample(raw, size, &ref.m, &pkt) || ref.m.cpu >= (uint32_t)c->ncpus) {
		count(&c->malformed, 1);
		goto drop;
	}
	if (!find_target(c, ref.m.ifindex, ref.m.hook)) {
		count(&c->unknown, 1);
		goto drop;
	}
	ref.pkt = pkt;
	if (how == TAKE_COPY) {
		uint8_t *dup = malloc(ref.m.cap_len ? ref.m.cap_len : 1);

		if (!dup) {
			sink_failed(c, NULL, -ENOMEM);
			return false;
		}
		memcpy(dup, pkt, ref.m.cap_len);
		ref.pkt = dup;
		ref.owned = dup;
		ref.src = -1;
	}
	/* What it took in the buffer: perf's header and size word, or the
	 * ring's header, and the padding; about the same either way. */
	ref.bytes = (size + 12 + 7) & ~7u;
	drops = take_drops(c, (int)ref.m.cpu, ref.m.seq);
	if (r->threaded)
		return ps_mailbox_put(c, &(struct ps_mail){ .ref = ref, .drops = drops });
	return ps_ingest_commit(c, &ref, drops);
drop:
	free(ref.owned);
	return false;
}

void ps_reader_take_copy(struct ps_reader *r, const void *raw, uint32_t size)
{
	take(r, raw, size, -1, 0, TAKE_COPY);
}

void ps_ingest_sample(struct ps_ingest *c, int cpu, const void *raw, uint32_t size)
{
	(void)cpu; /* the sample names its CPU */
	take(&c->r0, raw, size, -1, 0, TAKE_COPY);
}

uint64_t ps_ingest_lost_total(const struct ps_ingest *c)
{
	uint64_t sum = 0;

	for (int i = 0; i < c->n_src; i++)
		sum += c->src[i].lost;
	return sum;
}

/*
 * Give the kernel back what every output has taken: in each source, up to
 * the earliest record the merge still holds from it, or all it has read.
 * Each CPU's queue is in its source's order, so its head is the earliest
 * it holds.
 */
/*
 * Source i is more than half full, and the merge holds packets read from
 * it that it cannot place yet (they wait for another CPU): copy them out,
 * so that their space goes back now. The one copy the time order costs,
 * and only under pressure. False if a copy failed (no memory): the rest
 * then stays where it is.
 */
static bool unpin(struct ps_ingest *c, int i)
{
	for (int q = 0; q < c->order.nq; q++) {
		struct ps_order_queue *oq = &c->order.q[q];

		for (size_t at = oq->head; at < oq->tail;) {
			struct ps_order_rec *r = (struct ps_order_rec *)(oq->buf + at);
			struct ps_ref *ref = (struct ps_ref *)r->data;

			at += ps_order_rec_size(r->len);
			if (ref->src != i)
				continue;
			ref->owned = malloc(ref->m.cap_len ? ref->m.cap_len : 1);
			if (!ref->owned)
				return false;
			memcpy(ref->owned, ref->pkt, ref->m.cap_len);
			ref->pkt = ref->owned;
			ref->src = -1;
			c->unpinned++;
		}
	}
	return true;
}

static void give_back(struct ps_ingest *c)
{
	uint64_t *upto = c->give_back_upto;

	/* With reader threads, what the merge has seen of each: a source's
	 * read position moves on in its reader's thread. */
	for (int i = 0; i < c->n_src; i++)
		upto[i] = c->readers ? c->src_seen[i] : c->src[i].read;
	for (int i = 0; i < c->n_src; i++) {
		const struct ps_source *s = &c->src[i];
		uint64_t seen = upto[i];

		if (seen - s->released > (s->mask + 1) / 2 && unpin(c, i))
			ps_source_release(&c->src[i], seen);
	}
	for (int q = 0; q < c->order.nq; q++) {
		const struct ps_order_rec *r = ps_order_head(&c->order, q);
		const struct ps_ref *ref;

		if (!r)
			continue;
		ref = (const struct ps_ref *)r->data;
		if (ref->src >= 0 && ref->pos < upto[ref->src])
			upto[ref->src] = ref->pos;
	}
	for (int i = 0; i < c->n_src; i++)
		ps_source_release(&c->src[i], upto[i]);
}

int ps_ingest_round_end(struct ps_ingest *c)
{
	/* The file's blocks, printed lines and sFlow datagrams leave once a
	 * round. */
	for (int i = 0; i < c->n_sinks && !c->error; i++) {
		int err = c->sinks[i]->ops->round(c->sinks[i]);

		if (err)
			sink_failed(c, c->sinks[i], err);
	}
	/* Nothing points into the copies or the buffers any more, unless a
	 * sink failed: then its round may not have run, and what it holds
	 * stays valid until the capture ends. */
	if (c->error)
		return c->error;
	for (size_t i = 0; i < c->n_round_copies; i++)
		free(c->round_copies[i]);
	c->n_round_copies = 0;
	give_back(c);
	return 0;
}

/* The largest power of two of at least a page that is at most kib. */
static uint32_t pow2_within(uint64_t kib, long page_size)
{
	uint64_t page_kib = page_size >= 1024 ? (uint64_t)page_size / 1024 : 4, v = page_kib;

	while (v * 2 <= kib && v * 2 <= (1u << 20))
		v *= 2;
	return (uint32_t)v;
}

void ps_buffer_plan(uint32_t total_kib, int ncpus, long page_size, struct ps_buffer_plan *p)
{
	uint64_t total = total_kib;

	if (ncpus < 1)
		ncpus = 1;
	if (!total) {
		total = (uint64_t)PS_BUFFER_DEFAULT_PER_CPU_KIB * ncpus;
		if (total > PS_BUFFER_DEFAULT_MAX_KIB)
			total = PS_BUFFER_DEFAULT_MAX_KIB;
	}
	p->per_cpu_kib = pow2_within(total / ncpus, page_size);
	p->total_kib = (uint64_t)p->per_cpu_kib * ncpus;
	p->ring_kib = pow2_within(total_kib ? total : PS_BUFFER_DEFAULT_RING_KIB, page_size);
}

static uint64_t pow2_at_least(uint64_t v)
{
	uint64_t p = 4;

	while (p < v)
		p *= 2;
	return p;
}

uint64_t ps_ingest_buffer_hint(const struct ps_ingest *c, const struct ps_buffer_plan *p, bool ring,
			       uint64_t lost)
{
	uint64_t avg = c->received ? c->received_bytes / c->received : 1024, worst = 0, gaps = 0;
	uint64_t ncpus = p->per_cpu_kib ? p->total_kib / p->per_cpu_kib : 1;

	if (!lost)
		return 0;
	if (ring)
		return pow2_at_least(p->ring_kib + (lost * avg + 1023) / 1024);
	/* The CPU that lost most sets what each buffer needs: its share of
	 * the loss (the gaps in its sequence; all of it if none was seen). */
	for (int i = 0; i < c->ncpus; i++) {
		gaps += c->cpus[i].gaps;
		if (c->cpus[i].gaps > worst)
			worst = c->cpus[i].gaps;
	}
	worst = gaps ? (lost * worst + gaps - 1) / gaps : lost;
	return pow2_at_least(p->per_cpu_kib + (worst * avg + 1023) / 1024) * ncpus;
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
		.size = sizeof(*attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_BPF_OUTPUT,
		.sample_type = PERF_SAMPLE_RAW,
		.sample_period = 1,
		/* Per-sample wakeups cost the sender ~80% of its rate on a
		 * veth flood; the idle drain picks up the tail. */
		.watermark = 1,
		.wakeup_watermark = (uint32_t)ps_source_wake_bytes((uint64_t)pages * page_size),
	};
}

static int add_sources(struct ps_ingest *c, int n)
{
	c->src = calloc(n, sizeof(*c->src));
	c->give_back_upto = calloc(n, sizeof(*c->give_back_upto));
	c->assembly = calloc(n, sizeof(*c->assembly));
	c->r0.srcs = calloc(n, sizeof(*c->r0.srcs));
	c->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	if (!c->src || !c->give_back_upto || !c->assembly || !c->r0.srcs || c->epoll_fd < 0) {
		int err = c->epoll_fd < 0 ? -errno : -ENOMEM;

		pr_err("cannot set up the buffers' reader: %s\n", strerror(-err));
		return err;
	}
	return 0;
}

static int watch_source(struct ps_ingest *c, int i)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = (uint32_t)i };

	/* The BPF ring polls ready while any data is unconsumed, and the
	 * ingest keeps what it read until it is written: level-triggered,
	 * the reader would spin through its rounds (42,715 for 7,932
	 * packets). Edge-triggered it wakes when the programs wake it. A
	 * perf buffer polls ready once per wakeup already. */
	if (c->src[i].kind == PS_SOURCE_RING)
		ev.events |= EPOLLET;
	/* A source in memory has no fd: it is read every round. */
	if (c->src[i].fd >= 0 && epoll_ctl(c->epoll_fd, EPOLL_CTL_ADD, c->src[i].fd, &ev)) {
		int err = -errno;

		pr_err("cannot watch buffer %d: %s\n", i, strerror(-err));
		return err;
	}
	c->r0.srcs[c->r0.n_srcs++] = i;
	return 0;
}

/* Every online CPU's perf buffer of `pages`; 0 or -errno, and then none. */
static int open_perf_sources(struct ps_ingest *c, int events_fd, const bool *online,
			     unsigned int pages, struct perf_event_attr *attr, int *failed_cpu)
{
	long page_size = sysconf(_SC_PAGESIZE);
	int err = 0;

	ps_perf_attr_init(attr, pages, page_size);
	for (int cpu = 0; !err && cpu < c->ncpus; cpu++) {
		if (!online[cpu])
			continue;
		err = ps_source_open_perf(&c->src[c->n_src], cpu, attr, pages, events_fd);
		if (err)
			*failed_cpu = cpu;
		else
			err = watch_source(c, c->n_src++);
	}
	if (err) {
		while (c->n_src)
			ps_source_close(&c->src[--c->n_src]);
		c->r0.n_srcs = 0;
	}
	return err;
}

int ps_ingest_open(struct ps_ingest *c, int events_fd, int emit_fd, uint32_t per_cpu_kib,
		   bool shrink)
{
	long page_size = sysconf(_SC_PAGESIZE);
	unsigned int pages = ps_buffer_pages(per_cpu_kib, page_size);
	struct perf_event_attr attr;
	bool *online = calloc(c->ncpus, sizeof(*online));
	int err, cpu = 0;

	if (!online)
		return -ENOMEM;
	ps_online_cpus(online, c->ncpus); /* a buffer each: no other CPU runs a program */
	err = add_sources(c, c->ncpus);
	while (!err) {
		err = open_perf_sources(c, events_fd, online, pages, &attr, &cpu);
		/*
		 * Without CAP_IPC_LOCK, perf buffers count against the locked
		 * memory a user may have (ulimit -l, plus
		 * kernel.perf_event_mlock_kb per CPU): the default halves
		 * until it fits; a -B that does not fit is an error.
		 */
		if (err != -EPERM || !shrink || pages <= 16)
			break;
		pages /= 2;
		err = 0;
		pr_info("perf buffers: trying %u KiB per CPU, within the locked-memory limit\n",
			(unsigned int)(pages * page_size / 1024));
	}
	/* A CPU that is not online has no buffer and runs no program: it
	 * holds nothing back. */
	for (int i = 0; !err && i < c->ncpus; i++)
		if (!online[i])
			ps_order_settle(&c->order, i, UINT64_MAX);
	free(online);
	if (err == -EPERM)
		pr_err("cannot open the perf buffer of CPU %d (%u KiB): %s (without CAP_IPC_LOCK the "
		       "buffers must fit ulimit -l and kernel.perf_event_mlock_kb: a smaller -B)\n",
		       cpu, (unsigned int)(pages * page_size / 1024), strerror(-err));
	else if (err)
		pr_err("cannot open the perf buffer of CPU %d (%u KiB): %s\n", cpu,
		       (unsigned int)(pages * page_size / 1024), strerror(-err));
	if (err)
		return err;
	c->emit_fd = emit_fd;
	/* A round reads at most every buffer once; the rest is slack for
	 * what the last round held back. */
	c->order.max_held = 2 * (size_t)c->ncpus * pages * page_size;
	pr_info("perf buffer: %u KiB per CPU on %d CPUs, wakeup at %u KiB\n",
		(unsigned int)(pages * page_size / 1024), c->n_src, attr.wakeup_watermark / 1024);
	return 0;
}

int ps_ingest_open_sources(struct ps_ingest *c, struct ps_source *src, int n)
{
	int err = add_sources(c, n);

	c->order.max_held = 0;
	for (int i = 0; !err && i < n; i++) {
		c->src[c->n_src] = src[i];
		c->order.max_held += 2 * (src[i].mask + 1); /* as ps_ingest_open() */
		err = watch_source(c, c->n_src++);
	}
	return err;
}

int ps_ingest_open_ring(struct ps_ingest *c, int ring_fd, int emit_fd, uint32_t ring_bytes)
{
	int err = add_sources(c, 1);

	if (!err) {
		err = ps_source_open_ring(&c->src[0], ring_fd, ring_bytes);
		if (err)
			pr_err("cannot map the BPF ring buffer: %s\n", strerror(-err));
	}
	if (err)
		return err;
	c->n_src = 1;
	err = watch_source(c, 0);
	if (err)
		return err;
	c->emit_fd = emit_fd;
	c->order.max_held = 2 * (size_t)ring_bytes;
	return 0;
}

static uint64_t now_ns(void)
{
	return (uint64_t)ps_clock_read_ns(CLOCK_MONOTONIC, NULL);
}

/* Every CPU's in-flight mark, in one read; false if it failed. */
static bool read_marks(struct ps_reader *r)
{
	uint32_t zero = 0;

	return r->c->emit_fd >= 0 && !bpf_map_lookup_elem(r->c->emit_fd, &zero, r->emit);
}

/* A long packet that will not be whole: dropped, and counted on its CPU's
 * next packet like one the buffer had no room for (the kernel counted it
 * as lost when its continuation did not fit). */
static void assembly_abandon(struct ps_ingest *c, struct ps_assembly *a)
{
	const struct ps_meta *m = (const struct ps_meta *)a->buf;

	if (m->cpu < (uint32_t)c->ncpus)
		c->cpus[m->cpu].pending_drops++;
	count(&c->incomplete, 1);
	free(a->buf);
	a->buf = NULL;
}

/*
 * Perf records of a packet longer than PS_PERF_CHUNK: the first has its
 * ps_meta and first bytes, continuations follow on the same CPU. Put
 * together in one copy; into the merge once whole. True if the record was
 * one of those (taken or dropped here).
 */
static bool assemble(struct ps_reader *r, int i, const uint8_t *raw, uint32_t size)
{
	struct ps_ingest *c = r->c;
	struct ps_assembly *a = &c->assembly[i];
	struct ps_meta m;
	uint32_t n;

	if (size < sizeof(m))
		return false;
	memcpy(&m, raw, sizeof(m));
	if (!(m.flags & PS_F_CONT)) {
		if (a->buf) /* its continuations never came */
			assembly_abandon(c, a);
		if (m.cap_len <= PS_PERF_CHUNK || m.cap_len > PS_SNAPLEN_MAX ||
		    size < sizeof(m) + PS_PERF_CHUNK)
			return false; /* one record, or take() finds it malformed */
		a->buf = malloc(sizeof(m) + m.cap_len);
		if (!a->buf) {
			sink_failed(c, NULL, -ENOMEM);
			return true;
		}
		memcpy(a->buf, raw, sizeof(m) + PS_PERF_CHUNK);
		a->have = PS_PERF_CHUNK;
		a->want = m.cap_len;
		return true;
	}
	n = a->buf ? a->want - a->have : 0;
	if (n > PS_PERF_CONT)
		n = PS_PERF_CONT;
	if (!a->buf || m.seq != ((const struct ps_meta *)a->buf)->seq || m.chunk_off != a->have ||
	    size < sizeof(m) + n) {
		count(&c->malformed, 1); /* a continuation of nothing we hold */
		if (a->buf)
			assembly_abandon(c, a);
		return true;
	}
	memcpy(a->buf + sizeof(m) + a->have, raw + sizeof(m), n);
	a->have += n;
	if (a->have == a->want) {
		uint8_t *whole = a->buf;

		a->buf = NULL;
		take(r, whole, (uint32_t)sizeof(m) + a->want, -1, 0, TAKE_OWN);
	}
	return true;
}

/* One sample as a source handed it out: into the merge, in place. */
static void take_record(struct ps_reader *r, int i, const struct ps_source_rec *rec)
{
	struct ps_ingest *c = r->c;
	uint32_t size = rec->size;

	if (!rec->raw) {
		count(&c->malformed, 1);
		return;
	}
	if (c->src[i].kind == PS_SOURCE_PERF && assemble(r, i, rec->raw, size))
		return;
	if (c->src[i].kind == PS_SOURCE_RING) {
		/* The record has its size class's room; the packet is cap_len
		 * of it. */
		const struct ps_meta *m = (const struct ps_meta *)rec->raw;

		if (size < sizeof(*m) || m->cap_len > size - sizeof(*m)) {
			count(&c->malformed, 1);
			return;
		}
		size = (uint32_t)sizeof(*m) + m->cap_len;
	}
	take(r, rec->raw, size, i, rec->pos, TAKE_IN_PLACE);
}

/*
 * Read source i up to where its producer is now, or a wake mark's worth
 * of the buffer (source.h), whichever is less: the space read stays the
 * kernel's until the round has written it, so a round that read all of a
 * full buffer would leave the producer no room until its end. Whether it
 * got to the producer: not when -c stopped it, a ring record was still
 * being written, or the round's share ended first (the next round goes on
 * at once).
 */
static bool consume(struct ps_reader *r, int i)
{
	struct ps_source *s = &r->c->src[i];
	uint64_t head = ps_source_head(s), upto = head, most = ps_source_wake_bytes(s->mask + 1);
	struct ps_source_rec rec;
	enum ps_source_next n = PS_SOURCE_END;

	/* At least the largest record: a round must get past any record. */
	if (most < 0x10000)
		most = 0x10000;
	if (upto - s->read > most) {
		upto = s->read + most;
		r->more = true;
	}
	while (!is_done(r->c) && (n = ps_source_next(s, upto, &rec)) == PS_SOURCE_SAMPLE)
		take_record(r, i, &rec);
	return !is_done(r->c) && n == PS_SOURCE_END && s->read >= head;
}

/*
 * One round of a reader (user/ingest/order.h has the reasoning): the clock
 * first, then the marks, then its buffers. A CPU whose mark was clear had
 * stamped and emitted everything before `now` by the time the mark was
 * read, and its buffer was read after that, so the merge has all it will
 * ever get from that CPU before now - skew.
 */
void ps_reader_round(struct ps_reader *r, bool *in_flight)
{
	struct ps_ingest *c = r->c;
	uint64_t now = now_ns();
	bool marks = read_marks(r);

	*in_flight = !marks;
	for (int k = 0; k < r->n_srcs; k++) {
		int i = r->srcs[k];
		bool to_end = consume(r, i);

		/* A perf buffer is its CPU's; the ring is every CPU's. */
		for (int cpu = 0; cpu < c->ncpus; cpu++)
			if (c->src[i].cpu < 0 || c->src[i].cpu == cpu)
				r->cpu_read[cpu] = to_end;
	}
	for (int k = 0; k < r->n_srcs; k++) {
		const struct ps_source *s = &c->src[r->srcs[k]];

		for (int cpu = 0; cpu < c->ncpus; cpu++) {
			uint64_t settle = 0;

			if (s->cpu >= 0 && s->cpu != cpu)
				continue;
			if (marks && r->emit[cpu].in_flight)
				*in_flight = true;
			else if (marks && r->cpu_read[cpu] && now > ORDER_SKEW_NS)
				settle = now - ORDER_SKEW_NS;
			if (r->threaded)
				ps_mailbox_put(c, &(struct ps_mail){ .kind = PS_MAIL_MARK,
								     .ref.m.cpu = (uint32_t)cpu,
								     .settle = settle,
								     .read = s->read,
								     .src = r->srcs[k] });
			else if (settle)
				ps_order_settle(&c->order, cpu, settle);
		}
	}
}

/*
 * One round of the merge: with one reader, it reads first; with reader
 * threads, the merge takes what their mailboxes hold. Then every packet
 * that can be placed goes to the sinks, and the round ends.
 */
static int round_once(struct ps_ingest *c, bool all, bool *in_flight)
{
	*in_flight = false;
	if (c->readers)
		ps_readers_collect(c);
	else if (!c->done)
		ps_reader_round(&c->r0, in_flight);
	c->rounds++;
	if (!c->error)
		ps_ingest_release(c, all);
	if (c->n_readers && ps_order_peek(&c->order))
		ps_readers_poke(c);
	return ps_ingest_round_end(c);
}

/* Rounds until no buffer had more than a round reads in one go. */
static int rounds(struct ps_ingest *c, bool all, bool *in_flight)
{
	int err;

	do {
		c->r0.more = false;
		err = round_once(c, all, in_flight);
	} while (!err && c->r0.more && !c->done);
	return err;
}

int ps_ingest_drain(struct ps_ingest *c)
{
	uint64_t until = now_ns() + DRAIN_WAIT_NS;
	bool in_flight;
	int err;

	if (c->readers) {
		/* Each reader's last rounds, the merge taking what they hand
		 * on meanwhile; then everything held. */
		err = ps_readers_drain(c, &in_flight);
		return err ? err : rounds(c, true, &in_flight);
	}
	/* The hooks are detached, but a program that started before may still
	 * be between its timestamp and its output. */
	while (!(err = rounds(c, false, &in_flight)) && in_flight && c->emit_fd >= 0 &&
	       now_ns() < until)
		usleep(1000);
	return err ? err : rounds(c, true, &in_flight);
}

int ps_ingest_threads(struct ps_ingest *c, int n)
{
	if (n > c->n_src)
		n = c->n_src;
	if (n <= 1) {
		if (c->n_src == 1 && c->src[0].kind == PS_SOURCE_RING)
			pr_info("one BPF ring: one reader\n");
		return 0;
	}
	return ps_readers_start(c, n);
}

int ps_ingest_epoll_fd(const struct ps_ingest *c)
{
	return c->epoll_fd;
}

int ps_ingest_wait_ms(const struct ps_ingest *c, int idle_ms)
{
	return ps_order_peek(&c->order) ? 1 : idle_ms;
}

int ps_ingest_poll(struct ps_ingest *c, int timeout_ms)
{
	struct epoll_event ev[16];
	bool in_flight;

	/* Woken by a buffer at its watermark, or idle: either way every
	 * buffer is read, so a quiet CPU's samples are not held back. */
	if (epoll_wait(c->epoll_fd, ev, 16, timeout_ms) < 0 && errno != EINTR)
		return -errno;
	return rounds(c, false, &in_flight);
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
	ps_readers_free(c);
	while (ps_order_peek(&c->order))
		pop(c, false);
	for (size_t i = 0; i < c->n_round_copies; i++)
		free(c->round_copies[i]);
	free(c->round_copies);
	c->round_copies = NULL;
	c->n_round_copies = 0;
	for (int i = 0; i < c->n_src; i++) {
		free(c->assembly[i].buf);
		ps_source_close(&c->src[i]);
	}
	free(c->src);
	c->src = NULL;
	c->n_src = 0;
	free(c->give_back_upto);
	c->give_back_upto = NULL;
	free(c->assembly);
	c->assembly = NULL;
	if (c->epoll_fd >= 0)
		close(c->epoll_fd);
	c->epoll_fd = -1;
	ps_order_free(&c->order);
	free(c->r0.cpu_read);
	c->r0.cpu_read = NULL;
	free(c->r0.emit);
	c->r0.emit = NULL;
	free(c->r0.srcs);
	c->r0.srcs = NULL;
	free(c->cpus);
	c->cpus = NULL;
}
