// SPDX-License-Identifier: GPL-2.0-only
/* One reader of the kernel's buffers; see reader.h. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include "clock.h"
#include "reader.h"
#include "split.h"

/*
 * What the in-flight marks cannot cover (user/ingest/order.h): CLOCK_MONOTONIC
 * read on different CPUs, and the mark's store becoming visible before the
 * program reads the clock. Both are well under a microsecond; this margin
 * is a hundred times that. It holds back the last 100 us of a round's
 * samples until the next round, and with them their space in the kernel's
 * buffer (the bytes stay there until written), so a wider margin costs
 * buffer: in a fast bulk transfer, ten times this one held all of a small
 * buffer (doc/performance.md#merge).
 */
#define ORDER_SKEW_NS 100000ull

/* Each CPU source s serves (a perf buffer: its own; a ring: its group's)
 * that reader r knows. */
#define for_each_cpu_of(r, s, cpu) \
	for (int cpu = (s)->cpu < 0 ? 0 : (s)->cpu; cpu <= (s)->last_cpu && cpu < (r)->ncpus; cpu++)

/* How take() gets the bytes. */
enum take_how {
	TAKE_IN_PLACE, /* they stay in the source until the round ends */
	TAKE_COPY,     /* copied: the caller's buffer */
	TAKE_OWN,      /* raw is malloc'ed, and the ingest's from now on */
};

int ps_reader_init(struct ps_reader *r, int ncpus, int emit_fd, const bool *stop,
		   const struct ps_reader_out *out)
{
	memset(r, 0, sizeof(*r));
	r->ncpus = ncpus;
	r->emit_fd = emit_fd;
	r->stop = stop;
	r->out = *out;
	r->cpus = calloc(ncpus, sizeof(*r->cpus));
	r->emit = calloc(ncpus, sizeof(*r->emit));
	r->cpu_read = calloc(ncpus, sizeof(*r->cpu_read));
	if (!r->cpus || !r->emit || !r->cpu_read)
		return -ENOMEM;
	return 0;
}

int ps_reader_add_source(struct ps_reader *r, struct ps_source *src, int i)
{
	int *srcs = realloc(r->srcs, (size_t)(r->n_srcs + 1) * sizeof(*srcs));
	struct ps_assembly *a;

	if (!srcs)
		return -ENOMEM;
	r->srcs = srcs;
	a = realloc(r->assembly, (size_t)(r->n_srcs + 1) * sizeof(*a));
	if (!a)
		return -ENOMEM;
	r->assembly = a;
	r->assembly[r->n_srcs] = (struct ps_assembly){ 0 };
	r->src = src;
	r->srcs[r->n_srcs++] = i;
	return 0;
}

void ps_reader_free(struct ps_reader *r)
{
	for (int k = 0; r->assembly && k < r->n_srcs; k++)
		free(r->assembly[k].buf);
	free(r->assembly);
	free(r->srcs);
	free(r->cpus);
	free(r->emit);
	free(r->cpu_read);
	memset(r, 0, sizeof(*r));
}

void ps_reader_add_counts(const struct ps_reader *r, struct ps_reader_counts *n, uint64_t *gaps)
{
	n->malformed += r->n.malformed;
	n->incomplete += r->n.incomplete;
	n->seq_gaps += r->n.seq_gaps;
	for (int cpu = 0; gaps && r->cpus && cpu < r->ncpus; cpu++)
		gaps[cpu] += r->cpus[cpu].gaps;
}

static bool stopped(const struct ps_reader *r)
{
	return r->failed || __atomic_load_n(r->stop, __ATOMIC_ACQUIRE);
}

/* No memory for a copy: said once, and the reader reads no more. */
static void fail(struct ps_reader *r, int err)
{
	if (!r->failed)
		r->out.fail(r->out.arg, err);
	r->failed = true;
}

/*
 * Samples from one CPU arrive in the order that CPU emitted them, so a gap
 * in the sequence is exactly the number lost (buffer full) before this one.
 */
static uint64_t take_drops(struct ps_reader *r, int cpu, uint64_t seq)
{
	struct ps_cpu_state *s = &r->cpus[cpu];
	uint64_t drops;

	if (seq > s->next_seq) {
		r->n.seq_gaps += seq - s->next_seq;
		s->gaps += seq - s->next_seq;
		s->pending_drops += seq - s->next_seq;
	}
	if (seq >= s->next_seq)
		s->next_seq = seq + 1;
	drops = s->pending_drops;
	s->pending_drops = 0;
	return drops;
}

/*
 * Checked and split, handed on: a reference to the packet bytes, the
 * metadata, and the drop count of this CPU's sequence so far (samples of
 * one CPU stay in order, so the count still lands on the next packet
 * written from that CPU).
 */
static void take(struct ps_reader *r, const void *raw, uint32_t size, int src, uint64_t pos,
		 enum take_how how)
{
	struct ps_ref ref; /* every field set below, none zeroed first: once per packet */
	const uint8_t *pkt;

	ref.src = how == TAKE_OWN ? -1 : src;
	ref.pos = pos;
	ref.owned = how == TAKE_OWN ? (void *)raw : NULL;
	if (stopped(r))
		goto drop;
	if (ps_split_sample(raw, size, &ref.m, &pkt) || ref.m.cpu >= (uint32_t)r->ncpus) {
		r->n.malformed++;
		goto drop;
	}
	ref.pkt = pkt;
	if (how == TAKE_COPY) {
		uint8_t *dup = malloc(ref.m.cap_len ? ref.m.cap_len : 1);

		if (!dup) {
			fail(r, -ENOMEM);
			return;
		}
		memcpy(dup, pkt, ref.m.cap_len);
		ref.pkt = dup;
		ref.owned = dup;
		ref.src = -1;
	}
	/* What it took in the buffer: perf's header and size word, or the
	 * ring's header, and the padding; about the same either way. */
	ref.bytes = (size + 12 + 7) & ~7u;
	r->out.sample(r->out.arg, &ref, take_drops(r, (int)ref.m.cpu, ref.m.seq));
	return;
drop:
	free(ref.owned);
}

void ps_reader_take_copy(struct ps_reader *r, const void *raw, uint32_t size)
{
	take(r, raw, size, -1, 0, TAKE_COPY);
}

/* Every CPU's in-flight mark, in one read; false if it failed. */
static bool read_marks(struct ps_reader *r)
{
	uint32_t zero = 0;

	return r->emit_fd >= 0 && !bpf_map_lookup_elem(r->emit_fd, &zero, r->emit);
}

/* A long packet that will not be whole: dropped, and counted on its CPU's
 * next packet like one the buffer had no room for (the kernel counted it
 * as lost when its continuation did not fit). */
static void assembly_abandon(struct ps_reader *r, struct ps_assembly *a)
{
	const struct ps_meta *m = (const struct ps_meta *)a->buf;

	if (m->cpu < (uint32_t)r->ncpus)
		r->cpus[m->cpu].pending_drops++;
	r->n.incomplete++;
	free(a->buf);
	a->buf = NULL;
}

/* The first record of a long packet: its copy started. True if it was one. */
static bool assembly_start(struct ps_reader *r, struct ps_assembly *a, const uint8_t *raw,
			   uint32_t size, const struct ps_meta *m)
{
	if (a->buf) /* its continuations never came */
		assembly_abandon(r, a);
	if (m->cap_len <= PS_PERF_CHUNK || m->cap_len > PS_SNAPLEN_MAX ||
	    size < sizeof(*m) + PS_PERF_CHUNK)
		return false; /* one record, or take() finds it malformed */
	a->buf = malloc(sizeof(*m) + m->cap_len);
	if (!a->buf) {
		fail(r, -ENOMEM);
		return true;
	}
	memcpy(a->buf, raw, sizeof(*m) + PS_PERF_CHUNK);
	a->have = PS_PERF_CHUNK;
	a->want = m->cap_len;
	return true;
}

/*
 * Perf records of a packet longer than PS_PERF_CHUNK: the first has its
 * ps_meta and first bytes, continuations follow on the same CPU. Put
 * together in one copy; handed on once whole. True if the record was one
 * of those (taken or dropped here).
 */
static bool assemble(struct ps_reader *r, int k, const uint8_t *raw, uint32_t size)
{
	struct ps_assembly *a = &r->assembly[k];
	struct ps_meta m;
	uint32_t n;

	if (size < sizeof(m))
		return false;
	memcpy(&m, raw, sizeof(m));
	if (!(m.flags & PS_F_CONT))
		return assembly_start(r, a, raw, size, &m);
	n = a->buf ? a->want - a->have : 0;
	if (n > PS_PERF_CONT)
		n = PS_PERF_CONT;
	if (!a->buf || m.seq != ((const struct ps_meta *)a->buf)->seq || m.chunk_off != a->have ||
	    size < sizeof(m) + n) {
		r->n.malformed++; /* a continuation of nothing we hold */
		if (a->buf)
			assembly_abandon(r, a);
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

/* One sample as source k handed it out: on, in place. */
static void take_record(struct ps_reader *r, int k, const struct ps_source_rec *rec)
{
	const struct ps_source *s = &r->src[r->srcs[k]];
	uint32_t size = rec->size;

	if (!rec->raw) {
		r->n.malformed++;
		return;
	}
	if (s->kind == PS_SOURCE_PERF && assemble(r, k, rec->raw, size))
		return;
	if (s->kind == PS_SOURCE_RING) {
		/* The record is ps_meta and cap_len bytes, rounded up; the
		 * packet is cap_len of it. */
		const struct ps_meta *m = (const struct ps_meta *)rec->raw;

		if (size < sizeof(*m) || m->cap_len > size - sizeof(*m)) {
			r->n.malformed++;
			return;
		}
		size = (uint32_t)sizeof(*m) + m->cap_len;
	}
	take(r, rec->raw, size, r->srcs[k], rec->pos, TAKE_IN_PLACE);
}

/* Where a source's reading stops this round (its producer, or its share
 * of the round), with its producer in *head. */
static uint64_t round_end(struct ps_reader *r, const struct ps_source *s, uint64_t *head)
{
	uint64_t most = ps_source_wake_bytes(s->mask + 1);

	*head = ps_source_head(s);
	/* At least the largest record: a round must get past any record. */
	if (most < 0x10000)
		most = 0x10000;
	if (*head - s->read > most) {
		r->more = true;
		return s->read + most;
	}
	return *head;
}

/*
 * Read source k up to where its producer is now, or a wake mark's worth
 * of the buffer (source.h), whichever is less: the space read stays the
 * kernel's until the round has written it, so a round that read all of a
 * full buffer would leave the producer no room until its end. Whether it
 * got to the producer: not when the capture stopped it, a ring record was
 * still being written, or the round's share ended first (the next round
 * goes on at once).
 */
static bool consume(struct ps_reader *r, int k)
{
	struct ps_source *s = &r->src[r->srcs[k]];
	uint64_t head, upto = round_end(r, s, &head);
	struct ps_source_rec rec;
	enum ps_source_next n = PS_SOURCE_END;

	while (!stopped(r) && (n = ps_source_next(s, upto, &rec)) == PS_SOURCE_SAMPLE)
		take_record(r, k, &rec);
	return !stopped(r) && n == PS_SOURCE_END && s->read >= head;
}

/* The next record's timestamp (ps_meta's first field); 0 for one too
 * short to have it (take_record() counts it malformed), or for none. */
static uint64_t rec_ts(enum ps_source_next n, const struct ps_source_rec *rec)
{
	uint64_t ts = 0;

	if (n == PS_SOURCE_SAMPLE && rec->raw && rec->size >= sizeof(struct ps_meta))
		memcpy(&ts, rec->raw, sizeof(ts));
	return ts;
}

/*
 * The sources, each of one CPU, read together: always the earliest of
 * their next records first, a k-way merge over the buffers themselves.
 * Before it, every other CPU with a record waiting is settled at that
 * record's time: a CPU's records come in the order it stamped them, so
 * nothing earlier is still to come from it. The merge can then hand each
 * record straight on (ps_order_pass()) where, read one buffer after the
 * other, it would hold every record of the first until the round's end:
 * with two CPUs busy, most of them. The marks name no source (-1): what
 * was read is said at the round's end, as for consume().
 */
static void consume_together(struct ps_reader *r)
{
	struct {
		struct ps_source_rec rec;
		uint64_t head, upto, ts, said;
		enum ps_source_next n;
	} q[PS_READ_TOGETHER_MAX];
	int n = r->n_srcs;

	for (int k = 0; k < n; k++) {
		struct ps_source *s = &r->src[r->srcs[k]];

		q[k].upto = round_end(r, s, &q[k].head);
		q[k].n = ps_source_next(s, q[k].upto, &q[k].rec);
		q[k].ts = rec_ts(q[k].n, &q[k].rec);
		q[k].said = 0;
	}
	while (!stopped(r)) {
		int best = -1;

		for (int k = 0; k < n; k++)
			if (q[k].n == PS_SOURCE_SAMPLE && (best < 0 || q[k].ts < q[best].ts))
				best = k;
		if (best < 0)
			break;
		for (int k = 0; k < n; k++) {
			if (k == best || q[k].n != PS_SOURCE_SAMPLE || q[k].said == q[k].ts)
				continue;
			q[k].said = q[k].ts;
			r->out.mark(r->out.arg, r->src[r->srcs[k]].cpu, q[k].ts, -1, 0);
		}
		take_record(r, best, &q[best].rec);
		q[best].n = ps_source_next(&r->src[r->srcs[best]], q[best].upto, &q[best].rec);
		q[best].ts = rec_ts(q[best].n, &q[best].rec);
	}
	for (int k = 0; k < n; k++) {
		const struct ps_source *s = &r->src[r->srcs[k]];

		r->cpu_read[s->cpu] = !stopped(r) && q[k].n == PS_SOURCE_END &&
				      s->read >= q[k].head;
	}
}

/* Whether a round reads r's sources together (consume_together()). */
static bool read_together(const struct ps_reader *r)
{
	if (!r->together || r->n_srcs < 2 || r->n_srcs > PS_READ_TOGETHER_MAX)
		return false;
	for (int k = 0; k < r->n_srcs; k++) {
		const struct ps_source *s = &r->src[r->srcs[k]];

		if (s->cpu < 0 || s->last_cpu != s->cpu || s->cpu >= r->ncpus)
			return false;
	}
	return true;
}

/* Source k's CPUs: settled at `settle` where their marks were clear and
 * their buffer was read to its end; a mark each, with how far it was read. */
static void mark_cpus(struct ps_reader *r, int k, bool marks, uint64_t settle_at, bool *in_flight)
{
	const struct ps_source *s = &r->src[r->srcs[k]];

	for_each_cpu_of(r, s, cpu) {
		uint64_t settle = 0;

		if (marks && r->emit[cpu].in_flight)
			*in_flight = true;
		else if (marks && r->cpu_read[cpu])
			settle = settle_at;
		r->out.mark(r->out.arg, cpu, settle, r->srcs[k], s->read);
	}
}

/* A shared ring's scan (settle_idle()): where each CPU's latest record is. */
static void note_cpu(void *arg, uint32_t cpu, uint64_t pos)
{
	struct ps_reader *r = arg;

	if (cpu < (uint32_t)r->ncpus)
		r->cpus[cpu].ring_last = pos + 1;
}

/*
 * Before any buffer is read: the CPUs whose mark is clear and whose buffer
 * holds nothing of theirs to read are settled at once, so that the merge
 * can hand the other CPUs' samples straight on as they are read
 * (ps_order_pass()), where it would hold them for the round's end. The
 * same reasoning as mark_cpus(): the mark was read clear, then the buffer
 * found to hold none of the CPU's records. A buffer of one CPU holds none
 * when it is read to its end. A ring that CPUs share is scanned up to its
 * producer, each record once over the rounds (s->scanned), for whose its
 * records are: in a one-CPU flood the others hold none, and are settled
 * as they would be with rings of their own. A record still being written
 * ends the scan, and nothing is settled: its CPU's may follow it.
 */
static void settle_idle(struct ps_reader *r, uint64_t settle_at)
{
	for (int k = 0; k < r->n_srcs; k++) {
		struct ps_source *s = &r->src[r->srcs[k]];
		uint64_t head = ps_source_head(s);

		if (head != s->read) {
			if (s->kind != PS_SOURCE_RING || s->last_cpu <= s->cpu)
				continue;
			if (s->scanned < s->read)
				s->scanned = s->read;
			s->scanned = ps_source_ring_scan(s, s->scanned, head,
							 offsetof(struct ps_meta, cpu), note_cpu,
							 r);
			if (s->scanned != head)
				continue;
		}
		for_each_cpu_of(r, s, cpu)
			if (!r->emit[cpu].in_flight && r->cpus[cpu].ring_last <= s->read)
				r->out.mark(r->out.arg, cpu, settle_at, r->srcs[k], s->read);
	}
}

/*
 * One round (user/ingest/order.h has the reasoning): the clock first, then
 * the marks, then the buffers. A CPU whose mark was clear had stamped and
 * emitted everything before `now` by the time the mark was read, and its
 * buffer was read after that, so the merge has all it will ever get from
 * that CPU before now - skew.
 */
void ps_reader_round(struct ps_reader *r, bool *in_flight)
{
	uint64_t now = ps_clock_mono_ns();
	bool marks = read_marks(r);
	uint64_t settle_at = now > ORDER_SKEW_NS ? now - ORDER_SKEW_NS : 0;

	*in_flight = !marks;
	if (r->failed)
		return;
	if (marks)
		settle_idle(r, settle_at);
	if (read_together(r))
		consume_together(r);
	else
		for (int k = 0; k < r->n_srcs; k++) {
			const struct ps_source *s = &r->src[r->srcs[k]];
			bool to_end = consume(r, k);

			/* A perf buffer is its CPU's; a ring may be a group's. */
			for_each_cpu_of(r, s, cpu)
				r->cpu_read[cpu] = to_end;
		}
	for (int k = 0; k < r->n_srcs; k++)
		mark_cpus(r, k, marks, settle_at, in_flight);
}
