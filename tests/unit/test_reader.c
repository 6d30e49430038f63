// SPDX-License-Identifier: GPL-2.0-only
/*
 * The ingest with 1, 2 and 4 reader threads over simulated CPUs: perf
 * buffers in memory, laid out as the kernel lays them out, each CPU's
 * samples in its own time order with gaps in its sequence (the kernel's
 * losses), the CPUs' times interleaved. Whatever the threads, the packets
 * come out in time order, every one once, the gaps land as drop counts
 * on each CPU's next packet, and -c N writes exactly the N earliest. One
 * reader reads the buffers together, and the merge passes nearly every
 * packet straight on. The same from BPF rings that two CPUs share.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include <cmocka.h>
#include "ingest.h"
#include "threads.h"
#include "support/perfbuf.h"

/* The ingest's counts, as the capture's summary reads them. */
static struct ps_ingest_stats stats_of(const struct ps_ingest *c)
{
	struct ps_ingest_stats st;

	ps_ingest_stats(c, &st);
	return st;
}

#define NCPUS 4
#define PER_CPU 3000	      /* samples each CPU emits (gaps included) */
#define DATA_BYTES (1 << 20)  /* each CPU's buffer: holds them all */
#define SMALL_BYTES (1 << 19) /* ... with more than half of it full */
#define PKT_LEN 60

/* What the sink saw. */
struct seen {
	struct ps_sink sink;
	uint64_t n, drops, late, last_ts;
	uint64_t ts[NCPUS * PER_CPU];
};

static int seen_packet(struct ps_sink *s, const struct ps_sink_pkt *p)
{
	struct seen *v = ps_sink_of(s, struct seen, sink);

	if (p->m->ts_ns < v->last_ts)
		v->late++;
	v->last_ts = p->m->ts_ns;
	v->ts[v->n++] = p->m->ts_ns;
	v->drops += p->drops;
	assert_int_equal(p->cap_len, PKT_LEN);
	assert_int_equal(p->data[0], (uint8_t)p->m->cpu);
	return 0;
}

static const struct ps_sink_ops seen_ops = { seen_packet, ps_test_sink_round, ps_test_sink_close };

/* Sample k of cpu: stamped so the CPUs interleave; every 97th is lost in
 * the kernel (its sequence number skipped). */
static uint64_t ts_of(int cpu, int k)
{
	return 1000000ull + (uint64_t)k * 1000 + (uint64_t)cpu * 250 + (k % 7) * 3;
}

static bool lost(int k)
{
	return k % 97 == 50;
}

/* Sample k of cpu's metadata. */
static struct ps_meta meta_of(int cpu, int k)
{
	return (struct ps_meta){
		.ts_ns = ts_of(cpu, k),
		.seq = (uint64_t)k,
		.ifindex = 5,
		.wire_len = PKT_LEN,
		.cap_len = PKT_LEN,
		.cpu = (uint32_t)cpu,
		.version = PS_META_VERSION,
		.hook = PS_HOOK_XDP,
	};
}

/* Write cpu's samples as PERF_RECORD_SAMPLEs. */
static void fill(uint8_t *area, size_t data_bytes, int cpu)
{
	struct perf_event_mmap_page *up = (void *)area;
	uint64_t pos = 0;

	for (int k = 0; k < PER_CPU; k++) {
		struct ps_meta m = meta_of(cpu, k);

		if (!lost(k))
			assert_true(ps_test_perf_put((uint8_t *)(up + 1), data_bytes, &pos, &m,
						     (uint8_t)cpu));
	}
	up->data_head = pos;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void run_in(int threads, uint64_t limit, size_t data_bytes)
{
	struct ps_target targets[1] = { { .ifname = "veth0", .ifindex = 5, .hook = PS_HOOK_XDP } };
	struct ps_source src[NCPUS];
	uint8_t *area[NCPUS];
	struct ps_ingest *c = calloc(1, sizeof(*c));
	struct seen *v = calloc(1, sizeof(*v));
	uint64_t all[NCPUS * PER_CPU], total = 0, gaps = 0;

	v->sink.ops = &seen_ops;
	assert_int_equal(ps_ingest_init(c, targets, 1, NCPUS, 262144, limit), 0);
	assert_int_equal(ps_ingest_add_sink(c, &v->sink), 0);
	for (int cpu = 0; cpu < NCPUS; cpu++) {
		area[cpu] = calloc(1, sizeof(struct perf_event_mmap_page) + data_bytes);
		if (!(data_bytes == SMALL_BYTES && cpu == NCPUS - 1))
			fill(area[cpu], data_bytes, cpu);
		assert_int_equal(ps_source_open_memory(&src[cpu], cpu, area[cpu], data_bytes), 0);
	}
	/* Every timestamp that was emitted, sorted: what -c N must write. */
	total = 0;
	for (int cpu = 0; cpu < NCPUS - (data_bytes == SMALL_BYTES); cpu++)
		for (int k = 0; k < PER_CPU; k++)
			if (!lost(k))
				all[total++] = ts_of(cpu, k);
			else if (k < PER_CPU - 1)
				gaps++; /* a gap before a later packet of its CPU */
	qsort(all, total, sizeof(all[0]), cmp_u64);
	assert_int_equal(ps_ingest_open_sources(c, src, NCPUS), 0);
	assert_int_equal(ps_ingest_threads(c, threads), 0);
	assert_int_equal((c->threads ? c->threads->n : 0), threads > 1 ? threads : 0);
	for (int i = 0; i < 5 && !c->done; i++)
		assert_int_equal(ps_ingest_poll(c, 10), 0);
	/* Nothing is settled here (no in-flight marks), and the last CPU is
	 * silent: the merge can place nothing and holds all it read. A buffer
	 * more than half full gets its space back anyway, the held packets
	 * copied out of it. */
	if (data_bytes == SMALL_BYTES && !limit && threads == 1) {
		assert_true(c->unpinned > 0);
		for (int i = 0; i < c->n_src; i++)
			assert_int_equal(c->src[i].released, c->src[i].read);
	}
	assert_int_equal(ps_ingest_drain(c), 0);
	assert_int_equal(ps_ingest_close(c, true), 0);
	/* One reader reads the CPUs' buffers together, the earliest record
	 * first, settling each CPU at its next record's time: the merge hands
	 * nearly every packet straight on (read one buffer after the other,
	 * it held all of them). Not with SMALL_BYTES: there the last CPU is
	 * silent and, never settled, holds every other back. */
	if (threads == 1 && !limit && data_bytes == DATA_BYTES)
		assert_true(c->order.passed * 10 >= total * 9);

	assert_int_equal(v->late, 0);
	assert_int_equal(c->order.late, 0);
	assert_int_equal(stats_of(c).rd.malformed + c->unknown, 0);
	if (limit) {
		assert_int_equal(v->n, limit);
		for (uint64_t i = 0; i < limit; i++)
			assert_int_equal(v->ts[i], all[i]);
	} else {
		assert_int_equal(v->n, total);
		assert_int_equal(c->received, total);
		assert_int_equal(v->drops, gaps);
		assert_int_equal(stats_of(c).rd.seq_gaps, gaps);
		for (uint64_t i = 0; i < total; i++)
			assert_int_equal(v->ts[i], all[i]);
	}
	/* Every buffer's space went back to the kernel, up to what was read. */
	for (int i = 0; !limit && i < c->n_src; i++)
		assert_int_equal(c->src[i].released, c->src[i].read);
	ps_ingest_free(c);
	for (int cpu = 0; cpu < NCPUS; cpu++)
		free(area[cpu]);
	free(c);
	free(v);
}

static void run(int threads, uint64_t limit)
{
	run_in(threads, limit, DATA_BYTES);
}

static void one_reader(void **state)
{
	(void)state;
	run(1, 0);
}

static void two_reader_threads(void **state)
{
	(void)state;
	run(2, 0);
}

static void four_reader_threads(void **state)
{
	(void)state;
	run(4, 0);
}

/* Buffers more than half full, held by a silent CPU: what the merge holds
 * is copied out, and still comes out whole, once, in order. */
static void held_packets_leave_a_full_buffer(void **state)
{
	(void)state;
	for (int t = 1; t <= 4; t *= 2)
		run_in(t, 0, SMALL_BYTES);
}

/*
 * Rings each serving two CPUs (PS_RING_SHARED_BELOW_KIB): a ring holds
 * its CPUs' records in the order they were reserved, which is each CPU's
 * own order but not the time order across them (a CPU stamps before it
 * reserves). Here CPU 1's and 3's records go in up to 400 ns early. With
 * 1, 2 and 4 reader threads (two read), the packets still come out in time
 * order, each once, each CPU's gaps on its next packet, and every ring's
 * space goes back.
 */
static void rings_shared_by_pairs_of_cpus(void **state)
{
	(void)state;
	for (int threads = 1; threads <= 4; threads *= 2) {
		struct ps_target targets[1] = {
			{ .ifname = "veth0", .ifindex = 5, .hook = PS_HOOK_XDP }
		};
		struct ps_source src[NCPUS / 2];
		uint64_t *area[NCPUS / 2];
		struct ps_ingest *c = calloc(1, sizeof(*c));
		struct seen *v = calloc(1, sizeof(*v));
		static uint64_t all[NCPUS * PER_CPU];
		uint64_t total = 0, gaps = 0;

		v->sink.ops = &seen_ops;
		assert_int_equal(ps_ingest_init(c, targets, 1, NCPUS, 262144, 0), 0);
		assert_int_equal(ps_ingest_add_sink(c, &v->sink), 0);
		for (int r = 0; r < NCPUS / 2; r++) {
			uint8_t *data;
			uint64_t pos = 0;
			int k[2] = { 0, 0 };

			area[r] = calloc(1, 2 * sizeof(uint64_t) + DATA_BYTES);
			data = (uint8_t *)(area[r] + 2);
			/* The pair's records, merged by when each was reserved. */
			while (k[0] < PER_CPU || k[1] < PER_CPU) {
				uint64_t at0 = k[0] < PER_CPU ? ts_of(2 * r, k[0]) : UINT64_MAX;
				uint64_t at1 = k[1] < PER_CPU ? ts_of(2 * r + 1, k[1]) - 400 :
								UINT64_MAX;
				int i = at1 < at0;
				int cpu = 2 * r + i;
				struct ps_meta m = meta_of(cpu, k[i]);

				if (!lost(k[i]))
					assert_true(ps_test_ring_put(data, DATA_BYTES, &pos, &m,
								     (uint8_t)cpu));
				k[i]++;
			}
			area[r][1] = pos; /* the producer's position */
			assert_int_equal(ps_source_open_ring_memory(&src[r], 2 * r, area[r],
								    DATA_BYTES),
					 0);
			src[r].last_cpu = 2 * r + 1;
		}
		for (int cpu = 0; cpu < NCPUS; cpu++)
			for (int k = 0; k < PER_CPU; k++)
				if (!lost(k))
					all[total++] = ts_of(cpu, k);
				else if (k < PER_CPU - 1)
					gaps++;
		qsort(all, total, sizeof(all[0]), cmp_u64);
		assert_int_equal(ps_ingest_open_sources(c, src, NCPUS / 2), 0);
		assert_int_equal(ps_ingest_threads(c, threads), 0);
		assert_int_equal((c->threads ? c->threads->n : 0), threads > 1 ? 2 : 0);
		for (int i = 0; i < 5; i++)
			assert_int_equal(ps_ingest_poll(c, 10), 0);
		assert_int_equal(ps_ingest_drain(c), 0);
		assert_int_equal(ps_ingest_close(c, true), 0);

		assert_int_equal(v->late, 0);
		assert_int_equal(stats_of(c).rd.malformed + c->unknown, 0);
		assert_int_equal(v->n, total);
		assert_int_equal(v->drops, gaps);
		assert_int_equal(stats_of(c).rd.seq_gaps, gaps);
		for (uint64_t i = 0; i < total; i++)
			assert_int_equal(v->ts[i], all[i]);
		for (int i = 0; i < c->n_src; i++) {
			assert_int_equal(c->src[i].read, area[i][1]);
			assert_int_equal(c->src[i].released, c->src[i].read);
		}
		ps_ingest_free(c);
		for (int r = 0; r < NCPUS / 2; r++)
			free(area[r]);
		free(c);
		free(v);
	}
}

/* What a ring's scan handed out: each sample's CPU and where it starts. */
struct scanned {
	int n;
	uint32_t cpu[8];
	uint64_t pos[8];
};

static void scanned_one(void *arg, uint32_t v, uint64_t pos)
{
	struct scanned *sc = arg;

	assert_true(sc->n < 8);
	sc->cpu[sc->n] = v;
	sc->pos[sc->n++] = pos;
}

/*
 * A shared ring looked at, not read (the reader's settling of idle CPUs):
 * each sample's CPU and start, discarded records passed over, and the scan
 * ends at a record still being written, where a later scan goes on.
 */
static void ring_scan_stops_at_a_record_being_written(void **state)
{
	uint64_t *area = calloc(1, 2 * sizeof(uint64_t) + 4096), pos = 0, at[5];
	uint8_t *data = (uint8_t *)(area + 2);
	const int cpus[5] = { 0, 1, 0, 1, 1 };
	struct ps_source s;
	struct scanned sc = { 0 };
	uint32_t len;

	(void)state;
	for (int i = 0; i < 5; i++) {
		struct ps_meta m = meta_of(cpus[i], i);

		at[i] = pos;
		assert_true(ps_test_ring_put(data, 4096, &pos, &m, (uint8_t)cpus[i]));
	}
	area[1] = pos;
	memcpy(&len, data + at[1], 4);
	len |= BPF_RINGBUF_DISCARD_BIT; /* record 1: discarded */
	memcpy(data + at[1], &len, 4);
	memcpy(&len, data + at[3], 4);
	len |= BPF_RINGBUF_BUSY_BIT; /* record 3: still being written */
	memcpy(data + at[3], &len, 4);
	assert_int_equal(ps_source_open_ring_memory(&s, 0, area, 4096), 0);

	assert_int_equal(ps_source_ring_scan(&s, 0, pos, offsetof(struct ps_meta, cpu), scanned_one,
					     &sc),
			 at[3]);
	assert_int_equal(sc.n, 2);
	assert_int_equal(sc.cpu[0], 0);
	assert_int_equal(sc.pos[0], at[0]);
	assert_int_equal(sc.cpu[1], 0);
	assert_int_equal(sc.pos[1], at[2]);

	len &= ~BPF_RINGBUF_BUSY_BIT; /* written now */
	memcpy(data + at[3], &len, 4);
	assert_int_equal(ps_source_ring_scan(&s, at[3], pos, offsetof(struct ps_meta, cpu),
					     scanned_one, &sc),
			 pos);
	assert_int_equal(sc.n, 4);
	assert_int_equal(sc.cpu[2], 1);
	assert_int_equal(sc.pos[2], at[3]);
	assert_int_equal(sc.cpu[3], 1);
	assert_int_equal(sc.pos[3], at[4]);
	assert_int_equal(s.read, 0); /* looked at, not read */
	ps_source_close(&s);
	free(area);
}

/*
 * Allocations of exactly this many bytes fail (0: none). The test is
 * linked with -Wl,--wrap=malloc, so every malloc of the ingest comes here;
 * read atomically, as reader threads allocate too.
 */
static size_t fail_size;
void *__real_malloc(size_t n);
void *__wrap_malloc(size_t n);

void *__wrap_malloc(size_t n)
{
	if (n && n == __atomic_load_n(&fail_size, __ATOMIC_RELAXED))
		return NULL;
	return __real_malloc(n);
}

/*
 * A long perf packet's first record (its ps_meta says the whole length,
 * PS_PERF_CHUNK bytes follow), at *pos of a buffer; its continuations
 * never come here, as the copy that would hold them is never made.
 */
static void put_long_start(uint8_t *data, size_t data_bytes, uint64_t *pos, int cpu, uint64_t seq,
			   uint32_t cap_len)
{
	struct ps_meta m = meta_of(cpu, (int)seq);
	uint64_t at = *pos;

	m.ts_ns++;
	m.wire_len = cap_len;
	m.cap_len = PS_PERF_CHUNK;

	assert_true(ps_test_perf_put(data, data_bytes, pos, &m, (uint8_t)cpu));
	m.cap_len = cap_len;
	memcpy(data + at + sizeof(struct perf_event_header) + 4, &m, sizeof(m));
}

/*
 * A reader with no memory for a long packet's copy (in a reader thread
 * with -j 2 and 4) ends the capture with -ENOMEM, as a failed sink does:
 * the error reaches the merge's thread as a message, the capture stops,
 * nothing is written twice and nothing crashes. ThreadSanitizer's build
 * (tests/tsan.sh) runs this too: the error crosses threads race-free.
 */
static void a_reader_out_of_memory_ends_the_capture(void **state)
{
	const uint32_t long_len = PS_PERF_CHUNK + 1000;

	(void)state;
	for (int threads = 1; threads <= 4; threads *= 2) {
		struct ps_target targets[1] = {
			{ .ifname = "veth0", .ifindex = 5, .hook = PS_HOOK_XDP }
		};
		struct ps_source src[NCPUS];
		uint8_t *area[NCPUS];
		struct ps_ingest *c = calloc(1, sizeof(*c));
		struct seen *v = calloc(1, sizeof(*v));
		const struct ps_sink *failed = v ? &v->sink : NULL;
		int err = 0;

		v->sink.ops = &seen_ops;
		assert_int_equal(ps_ingest_init(c, targets, 1, NCPUS, 262144, 0), 0);
		assert_int_equal(ps_ingest_add_sink(c, &v->sink), 0);
		for (int cpu = 0; cpu < NCPUS; cpu++) {
			struct perf_event_mmap_page *up;
			uint64_t pos = 0;

			area[cpu] = calloc(1, sizeof(struct perf_event_mmap_page) + DATA_BYTES);
			up = (void *)area[cpu];
			if (cpu == NCPUS - 1)
				put_long_start((uint8_t *)(up + 1), DATA_BYTES, &pos, cpu, 0,
					       long_len);
			up->data_head = pos;
			assert_int_equal(ps_source_open_memory(&src[cpu], cpu, area[cpu],
							       DATA_BYTES),
					 0);
		}
		/* Before the readers start: a thread reads at once. */
		__atomic_store_n(&fail_size, sizeof(struct ps_meta) + long_len, __ATOMIC_RELAXED);
		assert_int_equal(ps_ingest_open_sources(c, src, NCPUS), 0);
		assert_int_equal(ps_ingest_threads(c, threads), 0);
		for (int i = 0; i < 500 && !err; i++)
			err = ps_ingest_poll(c, 10);
		__atomic_store_n(&fail_size, 0, __ATOMIC_RELAXED);
		assert_int_equal(err, -ENOMEM);
		assert_int_equal(ps_ingest_error(c, &failed), -ENOMEM);
		assert_null(failed); /* no sink failed: the reader did */
		assert_true(ps_ingest_done(c));
		assert_int_equal(v->n, 0);
		assert_int_equal(ps_ingest_close(c, false), 0);
		ps_ingest_free(c);
		for (int cpu = 0; cpu < NCPUS; cpu++)
			free(area[cpu]);
		free(c);
		free(v);
	}
}

static void count_is_exact_with_any_threads(void **state)
{
	(void)state;
	for (int t = 1; t <= 4; t *= 2) {
		run(t, 1);
		run(t, 777);
		run(t, (uint64_t)NCPUS * PER_CPU / 2 + 1);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(one_reader),
		cmocka_unit_test(two_reader_threads),
		cmocka_unit_test(four_reader_threads),
		cmocka_unit_test(held_packets_leave_a_full_buffer),
		cmocka_unit_test(rings_shared_by_pairs_of_cpus),
		cmocka_unit_test(ring_scan_stops_at_a_record_being_written),
		cmocka_unit_test(count_is_exact_with_any_threads),
		cmocka_unit_test(a_reader_out_of_memory_ends_the_capture),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
