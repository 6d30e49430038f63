// SPDX-License-Identifier: GPL-2.0-only
/*
 * The ingest's sample path without the kernel: crafted samples in,
 * through the capture-file sink, pcapng blocks out, checked option by
 * option.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/mman.h>
#include <cmocka.h>
#include "capfile.h"
#include "ingest.h"
#include "pcapng.h"
#include "support/pcapng_walk.h"
#include "support/perfbuf.h"

/* The ingest's counts, as the capture's summary reads them. */
static struct ps_ingest_stats stats_of(const struct ps_ingest *c)
{
	struct ps_ingest_stats st;

	ps_ingest_stats(c, &st);
	return st;
}

struct fixture {
	int fd;
	struct ps_capfile out;
	struct pcapng_writer *w; /* the file's */
	struct ps_ingest *c;
	struct ps_target targets[3];
	struct ps_capfile_iface ifaces[3];
	uint8_t file[1 << 16];
	size_t size;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	char path[64];

	f->fd = memfd_create("ingest", 0);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", f->fd);
	f->c = calloc(1, sizeof(*f->c));
	/* Interface ids 0, 1, 2 in this order. */
	f->targets[0] = (struct ps_target){ .ifname = "veth0", .ifindex = 5, .hook = PS_HOOK_XDP };
	f->targets[1] = (struct ps_target){ .ifname = "veth0",
					    .ifindex = 5,
					    .hook = PS_HOOK_TC_EGRESS };
	f->targets[2] = (struct ps_target){ .ifname = "veth0",
					    .ifindex = 5,
					    .hook = PS_HOOK_TC_INGRESS };
	assert_int_equal(ps_capfile_open(&f->out,
					 &(struct ps_capfile_cfg){ .output = path, .snaplen = 128 },
					 NULL),
			 0);
	assert_int_equal(ps_capfile_start(&f->out, f->targets, f->ifaces, 3, 4, NULL, 0), 0);
	f->w = f->out.w;
	assert_int_equal(ps_ingest_init(f->c, f->targets, 3, 4, 128, 0), 0);
	assert_int_equal(ps_ingest_add_sink(f->c, ps_capfile_sink(&f->out)), 0);
	f->c->clock.offset_ns = 1000; /* deterministic timestamps */
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	ps_ingest_free(f->c);
	free(f->c);
	ps_capfile_free(&f->out);
	close(f->fd);
	free(f);
	return 0;
}

static void feed(struct fixture *f, int cpu, struct ps_meta m, const uint8_t *pkt)
{
	uint8_t raw[512];
	size_t sum = sizeof(m) + m.cap_len;
	size_t size = ((sum + 4 + 7) & ~(size_t)7) - 4;

	m.version = m.version ? m.version : PS_META_VERSION;
	memcpy(raw, &m, sizeof(m));
	memcpy(raw + sizeof(m), pkt, m.cap_len);
	ps_ingest_sample(f->c, cpu, raw, size);
}

/* A 20-byte packet of zeros at XDP on interface 5, from cpu (which the
 * metadata names too), with this sequence number and time. */
static void feed_xdp(struct fixture *f, int cpu, uint64_t seq, uint64_t ts_ns)
{
	static const uint8_t pkt[20];

	feed(f, cpu,
	     (struct ps_meta){ .ts_ns = ts_ns,
			       .seq = seq,
			       .ifindex = 5,
			       .wire_len = 20,
			       .cap_len = 20,
			       .cpu = (uint32_t)cpu,
			       .hook = PS_HOOK_XDP },
	     pkt);
}

/* Write everything held, flush and return the nth EPB. */
static struct pn_block epb(struct fixture *f, int nth)
{
	struct pn_block b;
	size_t off = 0;

	assert_int_equal(ps_ingest_release(f->c, true), 0);
	assert_int_equal(pcapng_flush(f->w), 0);
	f->size = pread(f->fd, f->file, sizeof(f->file), 0);
	while (pn_next(f->file, f->size, &off, &b) == 1)
		if (b.type == 6 && nth-- == 0)
			return b;
	fail_msg("no such EPB");
	return b;
}

static uint32_t opt_u32(const struct pn_block *b, uint16_t code)
{
	const uint8_t *v;
	uint32_t x;

	assert_int_equal(pn_opt(b, code, 0, &v), 4);
	memcpy(&x, v, 4);
	return x;
}

static uint64_t opt_u64(const struct pn_block *b, uint16_t code)
{
	const uint8_t *v;

	assert_int_equal(pn_opt(b, code, 0, &v), 8);
	return pn_u64(v);
}

static void annotates_xdp_packet(void **state)
{
	struct fixture *f = *state;
	uint8_t pkt[60];
	const uint8_t *v;
	struct pn_block b;
	uint32_t x;
	int64_t verdict;

	for (size_t i = 0; i < sizeof(pkt); i++)
		pkt[i] = i;
	f->out.cfg.epb_verdict = true;
	feed(f, 1,
	     (struct ps_meta){ .ts_ns = 5000,
			       .seq = 0,
			       .ifindex = 5,
			       .rx_queue = 2,
			       .wire_len = 60,
			       .cap_len = 60,
			       .verdict = 2,
			       .cpu = 1,
			       .hook = PS_HOOK_XDP },
	     pkt);
	b = epb(f, 0);
	memcpy(&x, b.data + 8, 4);
	assert_int_equal(x, 0); /* interface id */
	memcpy(&x, b.data + 16, 4);
	assert_int_equal(x, 6000); /* ts low word */
	memcpy(&x, b.data + 20, 4);
	assert_int_equal(x, 60);
	assert_memory_equal(b.data + 28, pkt, 60);
	assert_int_equal(opt_u32(&b, 2), PCAPNG_DIR_INBOUND);
	assert_int_equal(opt_u32(&b, 6), 2);		    /* queue */
	assert_int_equal(opt_u64(&b, 5), (1ull << 48) | 0); /* packet id */
	assert_int_equal(pn_opt(&b, 7, 0, &v), 9);
	assert_int_equal(v[0], PCAPNG_VERDICT_XDP);
	memcpy(&verdict, v + 1, 8);
	assert_int_equal(verdict, 2);
	assert_int_equal(pn_opt(&b, 4, 0, &v), -1); /* no drops */
	/* The interface names the hook, epb_queue the queue, the packet id
	 * the CPU: nothing is left for a comment to say. */
	assert_int_equal(pn_opt(&b, 1, 0, &v), -1);
	assert_int_equal(pcapng_writer_packets(f->w, 0), 1); /* interface 0: xdp */
}

static void tc_egress_is_outbound_with_tc_verdict(void **state)
{
	struct fixture *f = *state;
	uint8_t pkt[40] = { 0 };
	const uint8_t *v;
	struct pn_block b;
	int64_t verdict;

	f->out.cfg.epb_verdict = true;
	feed(f, 0,
	     (struct ps_meta){ .ifindex = 5,
			       .wire_len = 40,
			       .cap_len = 40,
			       .verdict = -1,
			       .hook = PS_HOOK_TC_EGRESS },
	     pkt);
	b = epb(f, 0);
	assert_int_equal(opt_u32(&b, 2), PCAPNG_DIR_OUTBOUND);
	assert_int_equal(pn_opt(&b, 7, 0, &v), 9);
	assert_int_equal(v[0], PCAPNG_VERDICT_TC);
	memcpy(&verdict, v + 1, 8);
	assert_int_equal(verdict, -1);
	assert_int_equal(pcapng_writer_packets(f->w, 1), 1); /* interface 1: tc egress */
}

/*
 * One CPU's options are encoded once and reused: a packet whose hook,
 * queue, verdict or flags differ from the one before must get its own.
 */
static void reused_options_follow_each_packet(void **state)
{
	static const struct {
		uint8_t hook;
		uint32_t queue;
		int32_t verdict;
		uint8_t flags;
		uint32_t dir;
		const char *comment;
	} want[] = {
		{ PS_HOOK_XDP, 0, 2, 0, PCAPNG_DIR_INBOUND, NULL },
		{ PS_HOOK_XDP, 0, 2, 0, PCAPNG_DIR_INBOUND, NULL },
		{ PS_HOOK_XDP, 7, 2, 0, PCAPNG_DIR_INBOUND, NULL },
		{ PS_HOOK_TC_EGRESS, 7, -1, 0, PCAPNG_DIR_OUTBOUND, NULL },
		{ PS_HOOK_TC_INGRESS, 7, -1, 0, PCAPNG_DIR_INBOUND, NULL },
		{ PS_HOOK_TC_INGRESS, 7, 0, 0, PCAPNG_DIR_INBOUND, NULL },
		{ PS_HOOK_TC_INGRESS, 7, 0, PS_F_CLOCK_FALLBACK, PCAPNG_DIR_INBOUND,
		  "clock=fallback" },
	};
	struct fixture *f = *state;
	uint8_t pkt[20] = { 0 };
	size_t n = sizeof(want) / sizeof(want[0]);

	f->out.cfg.epb_verdict = true;
	for (size_t i = 0; i < n; i++)
		feed(f, 3,
		     (struct ps_meta){ .seq = i,
				       .ifindex = 5,
				       .rx_queue = want[i].queue,
				       .wire_len = 20,
				       .cap_len = 20,
				       .verdict = want[i].verdict,
				       .cpu = 3,
				       .hook = want[i].hook,
				       .flags = want[i].flags },
		     pkt);
	for (size_t i = 0; i < n; i++) {
		struct pn_block b = epb(f, i);
		const uint8_t *v;
		int64_t verdict;

		assert_int_equal(opt_u32(&b, 2), want[i].dir);
		assert_int_equal(opt_u32(&b, 6), want[i].queue);
		assert_int_equal(opt_u64(&b, 5), (3ull << 48) | i);
		assert_int_equal(pn_opt(&b, 7, 0, &v), 9);
		assert_int_equal(v[0], want[i].hook == PS_HOOK_XDP ? PCAPNG_VERDICT_XDP :
								     PCAPNG_VERDICT_TC);
		memcpy(&verdict, v + 1, 8);
		assert_int_equal(verdict, want[i].verdict);
		if (!want[i].comment) {
			assert_int_equal(pn_opt(&b, 1, 0, &v), -1);
			continue;
		}
		assert_int_equal(pn_opt(&b, 1, 0, &v), strlen(want[i].comment));
		assert_memory_equal(v, want[i].comment, strlen(want[i].comment));
	}
}

static void sequence_gaps_become_drop_counts(void **state)
{
	struct fixture *f = *state;
	const uint8_t *v;
	struct pn_block b;

	/* Timestamps in feeding order, so the file keeps it. */
	feed_xdp(f, 2, 0, 1);
	feed_xdp(f, 2, 1, 2);
	feed_xdp(f, 2, 5, 3); /* 2, 3, 4 lost */
	feed_xdp(f, 3, 3, 4); /* first from CPU 3: 0..2 lost */
	feed_xdp(f, 2, 6, 5);

	b = epb(f, 0);
	assert_int_equal(pn_opt(&b, 4, 0, &v), -1);
	b = epb(f, 1);
	assert_int_equal(pn_opt(&b, 4, 0, &v), -1);
	b = epb(f, 2);
	assert_int_equal(opt_u64(&b, 4), 3);
	assert_int_equal(opt_u64(&b, 5), (2ull << 48) | 5);
	b = epb(f, 3);
	assert_int_equal(opt_u64(&b, 4), 3);
	b = epb(f, 4);
	assert_int_equal(pn_opt(&b, 4, 0, &v), -1);
	assert_int_equal(stats_of(f->c).rd.seq_gaps, 6);
}

static void restores_vlan_and_truncates_to_snaplen(void **state)
{
	struct fixture *f = *state;
	uint8_t pkt[128];
	struct pn_block b;
	uint32_t cap, wire;

	for (size_t i = 0; i < sizeof(pkt); i++)
		pkt[i] = i;
	feed(f, 0,
	     (struct ps_meta){ .ifindex = 5,
			       .wire_len = 300,
			       .cap_len = 128,
			       .hook = PS_HOOK_TC_INGRESS,
			       .flags = PS_F_VLAN_OOB,
			       .vlan_proto = htons(0x8100),
			       .vlan_tci = 42 },
	     pkt);
	b = epb(f, 0);
	memcpy(&cap, b.data + 20, 4);
	memcpy(&wire, b.data + 24, 4);
	assert_int_equal(cap, 128); /* snaplen of the fixture */
	assert_int_equal(wire, 304);
	assert_memory_equal(b.data + 28, pkt, 12);
	assert_int_equal(b.data[28 + 12], 0x81);
	assert_int_equal(b.data[28 + 15], 42);
	assert_memory_equal(b.data + 28 + 16, pkt + 12, 112);
}

static void counts_what_it_cannot_write(void **state)
{
	struct fixture *f = *state;
	uint8_t pkt[20] = { 0 };

	feed(f, 0,
	     (struct ps_meta){ .ifindex = 99, .wire_len = 20, .cap_len = 20, .hook = PS_HOOK_XDP },
	     pkt);
	feed(f, 0,
	     (struct ps_meta){ .ifindex = 5,
			       .wire_len = 20,
			       .cap_len = 20,
			       .hook = PS_HOOK_XDP,
			       .version = 9 },
	     pkt);
	feed_xdp(f, 7, 0, 0); /* no CPU 7 */
	ps_ingest_sample(f->c, 0, pkt, 3);
	assert_int_equal(f->c->unknown, 1);
	assert_int_equal(stats_of(f->c).rd.malformed, 3);
	assert_int_equal(ps_ingest_release(f->c, true), 0);
	assert_int_equal(f->c->written, 0);
}

static void stops_at_the_limit(void **state)
{
	struct fixture *f = *state;
	uint64_t received;

	f->c->limit = 2;
	for (int i = 0; i < 5; i++)
		feed_xdp(f, 0, i, 0);
	assert_int_equal(ps_ingest_release(f->c, true), 0);
	assert_int_equal(f->c->written, 2);
	assert_true(f->c->done);
	received = f->c->received;
	feed_xdp(f, 0, 5, 0);
	assert_int_equal(f->c->received, received); /* nothing taken once done */
}

/* -c N lands exactly on the last sample a round can place: that round
 * writes N, the next writes nothing, and nothing more is taken in. */
static void limit_at_a_round_boundary(void **state)
{
	struct fixture *f = *state;

	f->c->limit = 3;
	for (int i = 0; i < 3; i++)
		feed_xdp(f, 0, i, 10 + i);
	feed_xdp(f, 1, 0, 100);
	for (int cpu = 0; cpu < 4; cpu++)
		ps_ingest_settle(f->c, cpu, 12);
	assert_int_equal(ps_ingest_release(f->c, false), 0);
	assert_int_equal(f->c->written, 3);
	assert_true(f->c->done);
	assert_int_equal(ps_ingest_release(f->c, true), 0);
	assert_int_equal(f->c->written, 3);
	assert_int_equal(pcapng_flush(f->w), 0);
	assert_int_equal(pcapng_writer_packets(f->w, -1), 3);
}

/* Drops of interleaved CPUs stay with their CPU's next written packet. */
static void interleaved_drops_follow_their_cpu(void **state)
{
	static const struct {
		int cpu;
		uint64_t ts, seq, drops;
	} in[] = {
		{ 0, 10, 0, 0 }, { 0, 30, 1, 0 }, { 0, 50, 4, 2 },
		{ 1, 20, 0, 0 }, { 1, 40, 3, 2 }, { 1, 60, 4, 0 },
	};
	static const int out[] = { 0, 3, 1, 4, 2, 5 }; /* by timestamp */
	struct fixture *f = *state;
	const uint8_t *v;

	for (int i = 0; i < 6; i++)
		feed_xdp(f, in[i].cpu, in[i].seq, in[i].ts);
	for (int i = 0; i < 6; i++) {
		struct pn_block b = epb(f, i);
		uint64_t id = ((uint64_t)in[out[i]].cpu << 48) | in[out[i]].seq;

		assert_int_equal(opt_u64(&b, 5), id);
		if (in[out[i]].drops)
			assert_int_equal(opt_u64(&b, 4), in[out[i]].drops);
		else
			assert_int_equal(pn_opt(&b, 4, 0, &v), -1);
	}
	assert_int_equal(stats_of(f->c).rd.seq_gaps, 4);
}

/* epb_verdict is a constant of our programs, and Wireshark 4.0's editors
 * write it back under epb_queue's code: off unless asked for. */
static void no_verdict_by_default(void **state)
{
	struct fixture *f = *state;
	uint8_t pkt[20] = { 0 };
	const uint8_t *v;
	struct pn_block b;

	feed(f, 0,
	     (struct ps_meta){ .ifindex = 5,
			       .wire_len = 20,
			       .cap_len = 20,
			       .verdict = 2,
			       .hook = PS_HOOK_XDP },
	     pkt);
	b = epb(f, 0);
	assert_int_equal(pn_opt(&b, 7, 0, &v), -1);
	assert_int_equal(opt_u32(&b, 6), 0); /* the queue is still there */
}

/*
 * Samples of two CPUs, fed a CPU at a time as the perf buffers give them,
 * come out in timestamp order once each CPU is settled past them; a CPU
 * not yet settled holds back everything after its last sample.
 */
static void writes_in_timestamp_order_across_cpus(void **state)
{
	struct fixture *f = *state;
	static const uint64_t cpu0[] = { 100, 300, 500, 900 }, cpu1[] = { 200, 250, 600 };
	static const uint64_t want[] = { 100, 200, 250, 300, 500, 600, 900 };
	uint32_t lo;

	for (int i = 0; i < 4; i++)
		feed_xdp(f, 0, i, cpu0[i]);
	for (int i = 0; i < 3; i++)
		feed_xdp(f, 1, i, cpu1[i]);
	/* CPUs 2 and 3 have said nothing: nothing is final yet. */
	assert_int_equal(ps_ingest_release(f->c, false), 0);
	assert_int_equal(f->c->written, 0);
	ps_ingest_settle(f->c, 2, 1000);
	ps_ingest_settle(f->c, 3, 1000);
	/* CPU 1 may still send something after 600, CPU 0 after 900. */
	assert_int_equal(ps_ingest_release(f->c, false), 0);
	assert_int_equal(f->c->written, 6);
	ps_ingest_settle(f->c, 1, 1000);
	assert_int_equal(ps_ingest_release(f->c, false), 0);
	assert_int_equal(f->c->written, 7);
	for (int i = 0; i < 7; i++) {
		struct pn_block b = epb(f, i);

		memcpy(&lo, b.data + 16, 4);
		assert_int_equal(lo, want[i] + 1000); /* the fixture's clock offset */
	}
}

/* The kernel's PERF_RECORD_LOSTs, as the reader finds them in each
 * CPU's buffer, summed over the buffers. */
static void lost_records_are_summed(void **state)
{
	struct fixture *f = *state;
	static const uint64_t lost[2][2] = { { 3, 2 }, { 2, 0 } };
	struct ps_source src[2];
	uint8_t *area[2];

	for (int i = 0; i < 2; i++) {
		struct perf_event_mmap_page *up;
		uint64_t pos = 0;

		area[i] = calloc(1, sizeof(*up) + 4096);
		up = (void *)area[i];
		for (int k = 0; k < 2; k++)
			if (lost[i][k])
				assert_true(ps_test_perf_put_lost((uint8_t *)(up + 1), 4096, &pos,
								  lost[i][k]));
		up->data_head = pos;
		assert_int_equal(ps_source_open_memory(&src[i], i * 3, area[i], 4096), 0);
	}
	assert_int_equal(ps_ingest_open_sources(f->c, src, 2), 0);
	assert_int_equal(ps_ingest_drain(f->c), 0);
	assert_int_equal(ps_ingest_lost_total(f->c), 7);
	/* Closing a source in memory does not touch its memory. */
	for (int i = 0; i < 2; i++)
		free(area[i]);
}

/* The hint: the CPU that lost most, its share of the loss at the average
 * record size, on top of what each buffer had. */
static void buffer_hint_from_the_worst_cpu(void **state)
{
	struct fixture *f = *state;
	struct ps_buffer_plan p;

	ps_buffer_plan(8192, 2, 4096, &p); /* 4096 KiB each */
	f->c->received = 1000;
	f->c->received_bytes = 1000 * 1024; /* 1 KiB a record */
	assert_int_equal(ps_ingest_buffer_hint(f->c, &p, 0), 0);
	/* No gaps seen: all 3000 on one CPU, 4096 + 3000 KiB -> 8192 each. */
	assert_int_equal(ps_ingest_buffer_hint(f->c, &p, 3000), 2 * 8192);
	/* CPU 1 lost 3 of 4: 15000 of 20000, 4096 + 15000 KiB -> 32768. */
	f->c->r0.cpus[0].gaps = 100;
	f->c->r0.cpus[1].gaps = 300;
	assert_int_equal(ps_ingest_buffer_hint(f->c, &p, 20000), 2 * 32768);
}

/* Through one ring for two CPUs (-B 4096), the CPU that lost had the
 * whole ring, not half of -B: 4096 + 1000 KiB -> 8192 each, as a -B that
 * size gives each CPU its own buffer (from half: 2048 + 1000 -> 4096, a
 * -B that would lose again). */
static void buffer_hint_from_a_shared_ring(void **state)
{
	struct fixture *f = *state;
	uint64_t area[2 + 512] = { 0 };
	struct ps_source src;
	struct ps_buffer_plan p;

	ps_buffer_plan(4096, 2, 4096, &p);
	assert_int_equal(ps_source_open_ring_memory(&src, 0, area, 4096), 0);
	src.last_cpu = 1;
	assert_int_equal(ps_ingest_open_sources(f->c, &src, 1), 0);
	f->c->received = 1000;
	f->c->received_bytes = 1000 * 1024;
	assert_int_equal(ps_ingest_buffer_hint(f->c, &p, 1000), 2 * 8192);
}

static void cpu_lists_parse(void **state)
{
	bool on[8];

	(void)state;
	assert_int_equal(ps_cpu_list_parse("0-3,6\n", on, 8), 5);
	assert_true(on[0] && on[3] && !on[4] && !on[5] && on[6] && !on[7]);
	assert_int_equal(ps_cpu_list_parse("0", on, 8), 1);
	assert_true(on[0] && !on[1]);
	assert_int_equal(ps_cpu_list_parse("2-9", on, 4), 8); /* counted past n */
	assert_true(!on[1] && on[2] && on[3]);
	assert_int_equal(ps_cpu_list_parse("0-3", NULL, 0), 4);
	assert_int_equal(ps_cpu_list_parse("x", on, 8), -EINVAL);
	assert_int_equal(ps_cpu_list_parse("3-1", on, 8), -EINVAL);
	assert_int_equal(ps_cpu_list_parse("1;2", on, 8), -EINVAL);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(annotates_xdp_packet),
		T(tc_egress_is_outbound_with_tc_verdict),
		T(reused_options_follow_each_packet),
		T(sequence_gaps_become_drop_counts),
		T(restores_vlan_and_truncates_to_snaplen),
		T(counts_what_it_cannot_write),
		T(stops_at_the_limit),
		T(no_verdict_by_default),
		T(limit_at_a_round_boundary),
		T(interleaved_drops_follow_their_cpu),
		T(writes_in_timestamp_order_across_cpus),
		T(lost_records_are_summed),
		cmocka_unit_test(cpu_lists_parse),
		T(buffer_hint_from_the_worst_cpu),
		T(buffer_hint_from_a_shared_ring),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
