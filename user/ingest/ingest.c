// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "hooks.h"
#include "ingest.h"
#include "log.h"
#include "pathseen.h"
#include "split.h"
#include "threads.h"

/* The final round waits at most this long for samples still in flight. */
#define DRAIN_WAIT_NS 10000000ull

/* The readers stop at this: written here, read by them atomically. */
static void set_done(struct ps_ingest *c)
{
	__atomic_store_n(&c->done, true, __ATOMIC_RELEASE);
}

static struct ps_reader_out merge_output(struct ps_ingest *c); /* below */

int ps_ingest_init(struct ps_ingest *c, struct ps_target *targets, int n_targets, int ncpus,
		   uint32_t snaplen, uint64_t limit)
{
	struct ps_reader_out out;

	memset(c, 0, sizeof(*c));
	c->emit_fd = -1;
	c->epoll_fd = -1;
	out = merge_output(c);
	if (ps_reader_init(&c->r0, ncpus, -1, &c->done, &out) ||
	    ps_order_init(&c->order, ncpus, PS_ORDER_DEFAULT_HELD)) {
		pr_err("cannot set up the ingest for %d CPUs: %s\n", ncpus, strerror(ENOMEM));
		return -ENOMEM;
	}
	/* Its output is the merge: it settles the CPUs as it reads them. */
	c->r0.together = true;
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
 * in runs from one interface), else a scan. In the merge's thread, as the
 * capture's changes to the targets are.
 */
static struct ps_target *find_target(struct ps_ingest *c, int ifindex, unsigned int hook)
{
	int n = c->n_targets, last = c->last_target;

	if (last < n && c->targets[last].ifindex == ifindex && c->targets[last].hook == hook)
		return &c->targets[last];
	for (int i = 0; i < n; i++)
		if (c->targets[i].ifindex == ifindex && c->targets[i].hook == hook) {
			c->last_target = i;
			return &c->targets[i];
		}
	return NULL;
}

static void sink_failed(struct ps_ingest *c, struct ps_sink *s, int err)
{
	c->error = err;
	c->failed = s;
	set_done(c);
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

const char *ps_ingest_target_name(void *arg, uint32_t ifindex, uint8_t hook)
{
	const struct ps_target *t = find_target(arg, (int)ifindex, hook);

	return t ? t->ifname : NULL;
}

/* One placed sample (and its CPU's losses before it) out to every sink, t its
 * target now (or NULL). A sink's error ends the capture: the later sinks miss it. */
static void write_ref(struct ps_ingest *c, struct ps_target *t, const struct ps_ref *ref,
		      uint64_t drops)
{
	const struct ps_meta *m = &ref->m;
	const struct ps_who *who;
	const uint8_t *data;
	uint32_t cap_len, wire_len;
	struct ps_sink_pkt p;
	struct ps_drop_words drop;
	char path[96];

	/* Its interface went, and a new one took its target over meanwhile
	 * (the capture follows interfaces): no output knows it any more. */
	if (!t) {
		c->unknown++;
		free(ref->owned); /* ours: a written record's copy is */
		return;
	}
	if (ref->owned && keep_for_round(c, ref->owned)) {
		free(ref->owned);
		sink_failed(c, NULL, -ENOMEM);
		return;
	}
	who = c->who && m->ctx != PS_CTX_OFF ? ps_who_resolve(c->who, m) : NULL;
	data = frame_on_wire(c, m, ref->pkt, &cap_len, &wire_len);
	if (!data)
		return;
	/* Every field named: nothing left for the compiler to zero, a packet at
	 * a time. */
	p = (struct ps_sink_pkt){
		.target = (int)(t - c->targets),
		.t = t,
		.m = m,
		.a = ps_annot_of(m, who),
		.ts_ns = ps_clock_to_realtime(&c->clock, m->ts_ns),
		.data = data,
		.cap_len = cap_len,
		.wire_len = wire_len,
		.packet_id = m->flags & PS_F_PATH ? m->pkt_id : ps_packet_id(m->cpu, m->seq),
		.drops = drops,
		.who = who,
		.drop = NULL,
		.note = m->flags & PS_F_PATH &&
					(c->paths || (c->paths = calloc(1, sizeof(*c->paths)))) ?
				ps_pathseen_note(c->paths, m, ps_ingest_target_name, c, path,
						 sizeof(path)) :
				NULL,
	};
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
	if (who && ps_who_why(who->ctx, who->known))
		c->unowned[who->ctx]++;
	if (c->limit && c->written >= c->limit)
		set_done(c);
}

/* Write the earliest held record, or free a copy nobody will write; pop it. */
static void pop(struct ps_ingest *c, bool write)
{
	const struct ps_order_rec *r = ps_order_peek(&c->order);
	const struct ps_ref *ref = (const struct ps_ref *)r->data;

	if (write)
		write_ref(c, find_target(c, ref->m.ifindex, ref->m.hook), ref, r->drops);
	else
		free(ref->owned);
	ps_order_pop(&c->order);
}

/* Write the earliest held sample, placed or not: the merge is full. */
static void force_one(struct ps_ingest *c)
{
	if (!ps_order_peek(&c->order))
		return;
	pop(c, true);
	c->forced++;
}

int ps_ingest_release(struct ps_ingest *c, bool all)
{
	uint64_t wm = all ? UINT64_MAX : ps_order_watermark(&c->order);
	const struct ps_order_rec *r;

	while (!c->done && (r = ps_order_peek(&c->order)) && r->ts <= wm)
		pop(c, true);
	return c->error;
}

void ps_ingest_settle(struct ps_ingest *c, int cpu, uint64_t t)
{
	ps_order_settle(&c->order, cpu, t);
}

/*
 * The merge's side of a reader's output (user/ingest/reader.h), in the
 * merge's thread: with one reader straight from it, with reader threads
 * from their mailboxes. A sample of no target of ours, or one that comes
 * after the end, is let go.
 */
static void merge_sample(void *arg, const struct ps_ref *ref, uint64_t drops)
{
	struct ps_ingest *c = arg;
	struct ps_target *t = find_target(c, ref->m.ifindex, ref->m.hook);
	struct ps_order_rec *r;

	/* What marks made final goes first, once: this one may then pass. */
	if (c->settled) {
		c->settled = false;
		if (ps_order_peek(&c->order))
			ps_ingest_release(c, false);
	}
	if (c->done || !t) {
		c->unknown += !c->done;
		free(ref->owned);
		return;
	}
	c->received++;
	c->received_bytes += ref->bytes;
	/* Nothing held, no other CPU can deliver an earlier one: out now. */
	if (ps_order_pass(&c->order, (int)ref->m.cpu, ref->m.ts_ns)) {
		write_ref(c, t, ref, drops);
		return;
	}
	while (!(r = ps_order_reserve(&c->order, (int)ref->m.cpu, sizeof(*ref)))) {
		if (!ps_order_peek(&c->order) || c->done) { /* out of memory, nothing held */
			if (!c->done)
				sink_failed(c, NULL, -ENOMEM);
			free(ref->owned);
			return;
		}
		force_one(c);
	}
	r->ts = ref->m.ts_ns;
	r->drops = drops;
	memcpy(r->data, ref, sizeof(*ref));
	ps_order_commit(&c->order, r);
}

static void merge_mark(void *arg, int cpu, uint64_t settle, int src, uint64_t read)
{
	struct ps_ingest *c = arg;

	if (settle) {
		ps_order_settle(&c->order, cpu, settle);
		c->settled = true;
	}
	if (src >= 0 && src < c->n_src)
		c->src_seen[src] = read;
}

/* A reader had no memory for a packet: the capture ends, as for a sink. */
static void merge_fail(void *arg, int err)
{
	struct ps_ingest *c = arg;

	if (!c->error)
		sink_failed(c, NULL, err);
}

/* Where a reader's output goes when it is the merge. */
static struct ps_reader_out merge_output(struct ps_ingest *c)
{
	return (struct ps_reader_out){ merge_sample, merge_mark, merge_fail, c };
}

void ps_ingest_sample(struct ps_ingest *c, int cpu, const void *raw, uint32_t size)
{
	(void)cpu; /* the sample names its CPU */
	ps_reader_take_copy(&c->r0, raw, size);
}

uint64_t ps_ingest_lost_total(const struct ps_ingest *c)
{
	uint64_t sum = 0;

	for (int i = 0; i < c->n_src; i++)
		sum += c->src[i].lost;
	return sum;
}

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

/*
 * Give the kernel back what every output has taken: in each source, up to
 * the earliest record the merge still holds from it, or all its reader
 * said it read (a source's read position is its reader's, in its thread).
 * Each CPU's queue is in its source's order, so its head is the earliest
 * it holds.
 */
static void give_back(struct ps_ingest *c)
{
	uint64_t *upto = c->give_back_upto;

	for (int i = 0; i < c->n_src; i++)
		upto[i] = c->src_seen[i];
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

/* Every reader's counts, and its CPUs' gaps added into gaps[ncpus]. */
static void reader_counts(const struct ps_ingest *c, struct ps_reader_counts *n, uint64_t *gaps)
{
	ps_reader_add_counts(&c->r0, n, gaps);
	if (c->threads)
		ps_readers_counts(c->threads, n, gaps);
}

static uint64_t pow2_at_least(uint64_t v)
{
	uint64_t p = 4;

	while (p < v)
		p *= 2;
	return p;
}

uint64_t ps_ingest_buffer_hint(const struct ps_ingest *c, const struct ps_buffer_plan *p,
			       uint64_t lost)
{
	uint64_t avg = c->received ? c->received_bytes / c->received : 1024, worst = 0, gaps = 0;
	uint64_t ncpus = p->per_cpu_kib ? p->total_kib / p->per_cpu_kib : 1;
	/* What the CPU that lost had: its buffer, or its group's ring. */
	uint32_t had = c->n_src && c->src[0].kind == PS_SOURCE_RING ? p->ring_kib : p->per_cpu_kib;
	uint64_t *cpu_gaps;
	struct ps_reader_counts n = { 0 };

	if (!lost)
		return 0;
	/* The CPU that lost most sets what each buffer needs: its share of
	 * the loss (the gaps in its sequence; all of it if none was seen). */
	cpu_gaps = calloc(c->ncpus, sizeof(*cpu_gaps));
	if (!cpu_gaps)
		return 0;
	reader_counts(c, &n, cpu_gaps);
	for (int i = 0; i < c->ncpus; i++) {
		gaps += cpu_gaps[i];
		if (cpu_gaps[i] > worst)
			worst = cpu_gaps[i];
	}
	free(cpu_gaps);
	worst = gaps ? (lost * worst + gaps - 1) / gaps : lost;
	/* Each CPU that much: enough whether a -B that size gives each CPU
	 * its own buffer or CPUs a shared ring (bufplan.h). */
	return pow2_at_least(had + (worst * avg + 1023) / 1024) * ncpus;
}

void ps_perf_attr_init(struct perf_event_attr *attr, unsigned int pages, long page_size)
{
	*attr = (struct perf_event_attr){
		.size = sizeof(*attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_BPF_OUTPUT,
		.sample_type = PERF_SAMPLE_RAW,
		.sample_period = 1,
		/* Per-sample wakeups cost the sender most of its rate on a
		 * veth flood (doc/performance.md#wakeups); the idle drain
		 * picks up the tail. */
		.watermark = 1,
		.wakeup_watermark = (uint32_t)ps_source_wake_bytes((uint64_t)pages * page_size),
	};
}

static int add_sources(struct ps_ingest *c, int n)
{
	c->src = calloc(n, sizeof(*c->src));
	c->give_back_upto = calloc(n, sizeof(*c->give_back_upto));
	c->src_seen = calloc(n, sizeof(*c->src_seen));
	c->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	if (!c->src || !c->give_back_upto || !c->src_seen || c->epoll_fd < 0) {
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
	 * the reader would spin through its rounds, several for each
	 * packet. Edge-triggered it wakes when the programs wake it. A
	 * perf buffer polls ready once per wakeup already. */
	if (c->src[i].kind == PS_SOURCE_RING)
		ev.events |= EPOLLET;
	/* A source in memory has no fd: it is read every round. */
	if (c->src[i].fd >= 0 && epoll_ctl(c->epoll_fd, EPOLL_CTL_ADD, c->src[i].fd, &ev)) {
		int err = -errno;

		pr_err("cannot watch buffer %d: %s\n", i, strerror(-err));
		return err;
	}
	c->src_seen[i] = c->src[i].read;
	return ps_reader_add_source(&c->r0, c->src, i);
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
	c->emit_fd = c->r0.emit_fd = emit_fd;
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

int ps_ingest_open_ring(struct ps_ingest *c, int rings_fd, int emit_fd, uint32_t ring_bytes,
			int ring_cpus)
{
	bool *online = calloc(c->ncpus, sizeof(*online));
	int err = online ? add_sources(c, c->ncpus) : -ENOMEM, nth = 0;

	if (online)
		ps_online_cpus(online, c->ncpus);
	/* The online CPUs in order, ring_cpus to a ring. */
	for (int cpu = 0; !err && cpu < c->ncpus; cpu++) {
		if (!online[cpu]) { /* no ring, no program: it holds nothing back */
			ps_order_settle(&c->order, cpu, UINT64_MAX);
			continue;
		}
		if (nth++ % ring_cpus) { /* the group's ring serves this one too */
			c->src[c->n_src - 1].last_cpu = cpu;
			continue;
		}
		err = ps_source_open_ring(&c->src[c->n_src], cpu, ring_bytes);
		if (!err)
			err = watch_source(c, c->n_src++);
	}
	if (!err) /* last: the CPUs' programs write into them from now on */
		err = ps_source_publish_rings(rings_fd, c->src, c->n_src, online);
	free(online);
	if (err)
		return err;
	c->emit_fd = c->r0.emit_fd = emit_fd;
	/* As for the perf buffers: a round reads each ring once at most. */
	c->order.max_held = 2 * (size_t)c->n_src * ring_bytes;
	pr_info("ring buffers: %d of %u KiB, one per %d CPU%s, wakeup at %u KiB\n", c->n_src,
		ring_bytes / 1024, ring_cpus, ring_cpus > 1 ? "s" : "",
		(unsigned int)(ps_source_wake_bytes(ring_bytes) / 1024));
	return 0;
}

/*
 * One round of the merge: with one reader, it reads first; with reader
 * threads, the merge takes what their mailboxes hold. Then every packet
 * that can be placed goes to the sinks, and the round ends.
 */
static int round_once(struct ps_ingest *c, bool all, bool *in_flight)
{
	*in_flight = false;
	if (c->threads)
		ps_readers_collect(c->threads);
	else if (!c->done)
		ps_reader_round(&c->r0, in_flight);
	c->rounds++;
	if (!c->error)
		ps_ingest_release(c, all);
	if (c->threads && ps_order_peek(&c->order))
		ps_readers_poke(c->threads);
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

/*
 * The reader threads' last rounds, the merge taking what they hand on
 * meanwhile (a full mailbox would keep its reader waiting); then they are
 * joined. A reader that has not finished when the capture ends for an
 * error gives up at `done`.
 */
static void stop_threads(struct ps_ingest *c, bool drain)
{
	bool finished;

	ps_readers_finish(c->threads);
	do {
		finished = ps_readers_finished(c->threads);
		if (!drain)
			break;
		ps_readers_collect(c->threads);
		if (!c->error)
			ps_ingest_release(c, false);
		if (ps_ingest_round_end(c))
			break;
		if (!finished)
			usleep(200);
	} while (!finished);
	if (!ps_readers_finished(c->threads))
		set_done(c);
	ps_readers_join(c->threads);
	ps_readers_collect(c->threads); /* what the last rounds handed on */
}

int ps_ingest_drain(struct ps_ingest *c)
{
	uint64_t until = ps_clock_mono_ns() + DRAIN_WAIT_NS;
	bool in_flight;
	int err;

	if (c->threads) {
		stop_threads(c, true);
		return c->error ? c->error : rounds(c, true, &in_flight);
	}
	/* The hooks are detached, but a program that started before may still
	 * be between its timestamp and its output. */
	while (!(err = rounds(c, false, &in_flight)) && in_flight && c->emit_fd >= 0 &&
	       ps_clock_mono_ns() < until)
		usleep(1000);
	return err ? err : rounds(c, true, &in_flight);
}

int ps_ingest_default_threads(int buffer_cpus, int cores)
{
	int n = buffer_cpus / 8, most = cores / 2;

	if (n > most)
		n = most;
	return n < 1 ? 1 : n;
}

int ps_ingest_threads(struct ps_ingest *c, int n)
{
	const struct ps_reader_out out = merge_output(c);
	int err;

	if (n > c->n_src)
		n = c->n_src;
	if (n <= 1)
		return 0;
	c->threads = calloc(1, sizeof(*c->threads));
	if (!c->threads) {
		pr_err("cannot start %d reader threads: %s\n", n, strerror(ENOMEM));
		return -ENOMEM;
	}
	err = ps_readers_start(c->threads, n, c->src, c->n_src, c->ncpus, c->emit_fd, c->epoll_fd,
			       &c->done, &out);
	if (err) {
		ps_readers_free(c->threads);
		free(c->threads);
		c->threads = NULL;
	}
	return err;
}

int ps_ingest_epoll_fd(const struct ps_ingest *c)
{
	return c->epoll_fd;
}

int ps_ingest_wait_ms(const struct ps_ingest *c, int idle_ms)
{
	return ps_order_peek(&c->order) ? PS_INGEST_HOLD_MS : idle_ms;
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

	/* Not drained (an error, a second signal): the readers stop here, so
	 * that their counts are final. */
	if (c->threads)
		stop_threads(c, false);

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
	if (c->threads) {
		stop_threads(c, false);
		ps_readers_free(c->threads);
		free(c->threads);
		c->threads = NULL;
	}
	while (ps_order_peek(&c->order))
		pop(c, false);
	for (size_t i = 0; i < c->n_round_copies; i++)
		free(c->round_copies[i]);
	free(c->round_copies);
	c->round_copies = NULL;
	c->n_round_copies = 0;
	for (int i = 0; i < c->n_src; i++)
		ps_source_close(&c->src[i]);
	free(c->src);
	c->src = NULL;
	c->n_src = 0;
	free(c->give_back_upto);
	c->give_back_upto = NULL;
	free(c->paths);
	c->paths = NULL;
	free(c->src_seen);
	c->src_seen = NULL;
	if (c->epoll_fd >= 0)
		close(c->epoll_fd);
	c->epoll_fd = -1;
	ps_order_free(&c->order);
	ps_reader_free(&c->r0);
}

void ps_ingest_stats(const struct ps_ingest *c, struct ps_ingest_stats *st)
{
	*st = (struct ps_ingest_stats){
		.received = c->received,
		.written = c->written,
		.forced = c->forced,
		.unpinned = c->unpinned,
		.rounds = c->rounds,
		.unknown = c->unknown,
		.lost = ps_ingest_lost_total(c),
		.peak_held = c->order.peak_held,
		.late = c->order.late,
		.passed = c->order.passed,
		.n_src = c->n_src,
	};
	memcpy(st->unowned, c->unowned, sizeof(st->unowned));
	reader_counts(c, &st->rd, NULL);
}

int ps_ingest_error(const struct ps_ingest *c, const struct ps_sink **failed)
{
	if (failed)
		*failed = c->failed;
	return c->error;
}

int ps_ingest_n_sources(const struct ps_ingest *c)
{
	return c->n_src;
}

bool ps_ingest_done(const struct ps_ingest *c)
{
	return c->done;
}
