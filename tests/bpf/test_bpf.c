// SPDX-License-Identifier: GPL-2.0-only
/*
 * The BPF programs under BPF_PROG_TEST_RUN: a packet in, the expected return
 * code and perf record (metadata and appended bytes) out. Needs root.
 */
#define _GNU_SOURCE /* sched_setaffinity */
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <cmocka.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include "cgroupfs.h"
#include "filter.h"
#include "fixture.h"
#include "kfeatures.h"
#include "hooks.h"
#include "kfeatures.h"
#include "loader.h"
#include "source.h"
#include "split.h"

#define MAX_RECORDS 64
#define XDP_LINEAR_MAX 3000 /* fits the test run's page with head- and tailroom */

struct record {
	int cpu;
	uint32_t size;
	uint8_t *data;
};

#define MAX_CPUS 64

struct fixture {
	struct ps_loader loader; /* every hook's program, as the binary loads them */
	struct perf_buffer *pb;
	struct ring_buffer *rb;	   /* --transport ringbuf: every CPU's ring */
	int ring_fd[MAX_CPUS + 1]; /* each CPU's ring, as the ingest makes them */
	int n_rings;
	struct record rec[MAX_RECORDS];
	int n_rec;
	uint64_t lost;
	uint32_t ifaces[4]; /* the interfaces with counters; none: lo alone */
	int n_ifaces;
	bool sflow_pool;	 /* load with --sflow's shared pool counter */
	struct ps_ctx_knobs ctx; /* as the binary: context on, unless ctx_off */
	bool ctx_off;
	bool raw; /* the interfaces have no link-layer header (tun, gre, ipip) */
	const struct ps_filter *filter;
};

static void on_sample(void *ctx, int cpu, void *data, __u32 size)
{
	struct fixture *f = ctx;

	if (f->n_rec == MAX_RECORDS)
		return;
	f->rec[f->n_rec].cpu = cpu;
	f->rec[f->n_rec].size = size;
	f->rec[f->n_rec].data = malloc(size);
	memcpy(f->rec[f->n_rec].data, data, size);
	f->n_rec++;
}

static void on_lost(void *ctx, int cpu, __u64 n)
{
	(void)cpu;
	((struct fixture *)ctx)->lost += n;
}

/* A ring record names its CPU in the metadata; keep the whole record. */
static int on_ring(void *ctx, void *data, size_t size)
{
	on_sample(ctx, (int)((struct ps_meta *)data)->cpu, data, (__u32)size);
	return 0;
}

/* A ring of ring_bytes per possible CPU in the loader's array, as the
 * ingest puts them there (user/ingest/source.c). */
static void make_rings(struct fixture *f, uint32_t ring_bytes)
{
	int n = libbpf_num_possible_cpus();

	assert_true(n > 0 && n <= MAX_CPUS);
	for (int cpu = 0; cpu < n; cpu++) {
		uint32_t key = (uint32_t)cpu;

		f->ring_fd[cpu] = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "ps_ring", 0, 0, ring_bytes,
						 NULL);
		assert_true(f->ring_fd[cpu] >= 0);
		f->n_rings = cpu + 1;
		assert_int_equal(bpf_map_update_elem(ps_loader_rings_fd(&f->loader), &key,
						     &f->ring_fd[cpu], BPF_ANY),
				 0);
	}
}

/* One reader of every CPU's ring. */
static struct ring_buffer *read_rings(struct fixture *f)
{
	struct ring_buffer *rb = ring_buffer__new(f->ring_fd[0], on_ring, f, NULL);

	assert_non_null(rb);
	assert_int_equal(libbpf_get_error(rb), 0);
	for (int cpu = 1; cpu < f->n_rings; cpu++)
		assert_int_equal(ring_buffer__add(rb, f->ring_fd[cpu], on_ring, f), 0);
	return rb;
}

/* ring_bytes: 0 for the perf transport, else each CPU's ring's size. */
static void load_with(struct fixture *f, uint32_t snaplen, bool with_buffer, uint32_t ring_bytes)
{
	struct ps_load_opts o = {
		.hooks = PS_HOOK_BIT(PS_HOOK_XDP) | PS_HOOKS_TC,
		.snaplen = snaplen,
		.max_ifaces = 4,
		.transport = ring_bytes ? PS_TRANSPORT_RINGBUF : PS_TRANSPORT_PERF,
		.ring_bytes = ring_bytes,
		.xdp_native = true, /* 9000-byte frames arrive in frags */
		.sflow_pool = f->sflow_pool,
		.ctx = &f->ctx,
		.filter = f->filter,
	};

	f->ctx.enabled = !f->ctx_off;
	if (!f->n_ifaces)
		f->ifaces[f->n_ifaces++] = LO_IFINDEX;
	assert_int_equal(ps_loader_load(&f->loader, &o), 0);
	for (int i = 0; i < f->n_ifaces; i++)
		assert_int_equal(ps_loader_add_iface(&f->loader, f->ifaces[i], f->raw), 0);
	if (ring_bytes)
		make_rings(f, ring_bytes);
	if (with_buffer && ring_bytes) {
		f->rb = read_rings(f);
	} else if (with_buffer) {
		/* 16 pages = 64 KiB: room for one maximal record */
		f->pb = perf_buffer__new(ps_loader_events_fd(&f->loader), 32, on_sample, on_lost, f,
					 NULL);
		assert_non_null(f->pb);
		assert_int_equal(libbpf_get_error(f->pb), 0);
	}
}

static void load(struct fixture *f, uint32_t snaplen, bool with_buffer)
{
	load_with(f, snaplen, with_buffer, 0);
}

static void unload(struct fixture *f)
{
	for (int i = 0; i < f->n_rec; i++)
		free(f->rec[i].data);
	perf_buffer__free(f->pb);
	ring_buffer__free(f->rb);
	for (int cpu = 0; cpu < f->n_rings; cpu++)
		close(f->ring_fd[cpu]);
	ps_loader_close(&f->loader);
	memset(f, 0, sizeof(*f));
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* An Ethernet/IPv4/UDP frame of len bytes with a recognisable payload. */
static uint8_t *make_packet(uint32_t len)
{
	uint8_t *p = ps_fx_frame_numbered(len);

	assert_non_null(p);
	return p;
}

enum prog { XDP, TC_IN, TC_EG };

static int prog_fd(struct fixture *f, enum prog p)
{
	switch (p) {
	case XDP:
		return ps_loader_prog_fd(&f->loader, PS_PROG_XDP);
	case TC_IN:
		return ps_loader_prog_fd(&f->loader, PS_PROG_TC_INGRESS);
	default:
		return ps_loader_prog_fd(&f->loader, PS_PROG_TC_EGRESS);
	}
}

static uint32_t run(struct fixture *f, enum prog p, const uint8_t *pkt, uint32_t len, int repeat)
{
	uint32_t retval;

	/* the linear part is at most a page; the rest goes into frags */
	assert_int_equal(ps_fx_run(prog_fd(f, p), p == XDP, pkt, len,
				   len < XDP_LINEAR_MAX ? len : XDP_LINEAR_MAX, repeat, &retval,
				   NULL),
			 0);
	if (f->pb)
		assert_true(perf_buffer__consume(f->pb) >= 0);
	if (f->rb)
		assert_true(ring_buffer__consume(f->rb) >= 0);
	return retval;
}

struct fixture_case {
	const char *name;
	enum prog prog;
	uint32_t snaplen;
	uint32_t pkt_len;
	uint32_t expect_retval;
	uint8_t expect_hook;
	int32_t expect_verdict;
};

static const struct fixture_case cases[] = {
	{ "xdp 64B", XDP, PS_SNAPLEN_MAX, 64, 2, PS_HOOK_XDP, 2 },
	{ "xdp 1500B snaplen 128", XDP, 128, 1500, 2, PS_HOOK_XDP, 2 },
	{ "xdp 14B snaplen 1", XDP, 1, 14, 2, PS_HOOK_XDP, 2 },
	{ "xdp 9000B multi-buffer", XDP, PS_SNAPLEN_MAX, 9000, 2, PS_HOOK_XDP, 2 },
	{ "xdp 9000B multi-buffer snaplen 128", XDP, 128, 9000, 2, PS_HOOK_XDP, 2 },
	{ "xdp 66000B: past one perf record", XDP, PS_SNAPLEN_MAX, 66000, 2, PS_HOOK_XDP, 2 },
	{ "tc-ingress 64B", TC_IN, PS_SNAPLEN_MAX, 64, (uint32_t)-1, PS_HOOK_TC_INGRESS, -1 },
	{ "tc-egress 64B", TC_EG, PS_SNAPLEN_MAX, 64, (uint32_t)-1, PS_HOOK_TC_EGRESS, -1 },
	{ "tc-ingress 1500B snaplen 128", TC_IN, 128, 1500, (uint32_t)-1, PS_HOOK_TC_INGRESS, -1 },
	{ "tc-egress 3000B snaplen 2000", TC_EG, 2000, 3000, (uint32_t)-1, PS_HOOK_TC_EGRESS, -1 },
};

/* What a ring record of cap packet bytes takes in the ring: its 8-byte
 * header, ps_meta and the bytes, rounded up to 8 (bpf/output.bpf.h). */
static uint32_t ring_taken(uint32_t cap)
{
	return (8 + (uint32_t)sizeof(struct ps_meta) + cap + 7) & ~7u;
}

/*
 * A perf sample longer than one record: its continuations follow on the
 * same CPU, each PS_F_CONT with the same seq, in order, PS_PERF_CONT
 * bytes but the last. Put together into rec[0], as the ingest does.
 */
static void join_continuations(struct fixture *f, uint32_t cap)
{
	uint32_t conts = (cap - PS_PERF_CHUNK + PS_PERF_CONT - 1) / PS_PERF_CONT, have;
	uint8_t *whole = malloc(sizeof(struct ps_meta) + cap);
	struct ps_meta head, m;

	assert_int_equal(f->n_rec, 1 + (int)conts);
	assert_true(f->rec[0].size >= sizeof(head) + PS_PERF_CHUNK);
	memcpy(whole, f->rec[0].data, sizeof(head) + PS_PERF_CHUNK);
	memcpy(&head, whole, sizeof(head));
	have = PS_PERF_CHUNK;
	for (int i = 1; i < f->n_rec; i++) {
		uint32_t n = cap - have < PS_PERF_CONT ? cap - have : PS_PERF_CONT;

		memcpy(&m, f->rec[i].data, sizeof(m));
		assert_int_equal(m.flags, head.flags | PS_F_CONT);
		assert_int_equal(m.seq, head.seq);
		assert_int_equal(m.chunk_off, have);
		assert_int_equal(f->rec[i].cpu, f->rec[0].cpu);
		assert_true(f->rec[i].size >= sizeof(m) + n);
		memcpy(whole + sizeof(m) + have, f->rec[i].data + sizeof(m), n);
		have += n;
		free(f->rec[i].data);
	}
	free(f->rec[0].data);
	f->rec[0].data = whole;
	f->rec[0].size = sizeof(head) + cap;
	f->n_rec = 1;
}

static void sflow_pool_numbers_each_hooks_packets(void **state);

/* Every case (or, single_buffer, those whose frame is one buffer: a
 * kernel without multi-buffer XDP has no other). */
static void records_for(uint32_t ring_bytes, bool single_buffer)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct fixture_case *c = &cases[i];
		uint32_t cap = c->pkt_len < c->snaplen ? c->pkt_len : c->snaplen;
		struct fixture f = { 0 };
		struct ps_counters cnt;
		struct ps_meta m;
		const uint8_t *bytes;
		uint8_t *pkt;
		uint64_t t0, t1;

		if (single_buffer && c->prog == XDP && c->pkt_len > XDP_LINEAR_MAX)
			continue;
		pkt = make_packet(c->pkt_len);
		print_message("fixture: %s (%s)\n", c->name, ring_bytes ? "ringbuf" : "perf");
		load_with(&f, c->snaplen, true, ring_bytes);
		t0 = mono_ns();
		assert_int_equal(run(&f, c->prog, pkt, c->pkt_len, 1), c->expect_retval);
		t1 = mono_ns();

		if (!ring_bytes && cap > PS_PERF_CHUNK)
			join_continuations(&f, cap);
		assert_int_equal(f.n_rec, 1);
		assert_int_equal(f.lost, 0);
		/* a ring record is the packet's exactly, no room to spare */
		if (ring_bytes)
			assert_int_equal(f.rec[0].size, sizeof(m) + cap);
		assert_int_equal(ps_split_sample(f.rec[0].data, f.rec[0].size, &m, &bytes), 0);
		assert_int_equal(m.version, PS_META_VERSION);
		assert_int_equal(m.hook, c->expect_hook);
		assert_int_equal(m.verdict, c->expect_verdict);
		assert_int_equal(m.ifindex, LO_IFINDEX);
		assert_int_equal(m.rx_queue, 0);
		assert_int_equal(m.wire_len, c->pkt_len);
		assert_int_equal(m.cap_len, cap);
		assert_int_equal(m.cpu, f.rec[0].cpu);
		assert_int_equal(m.seq, 0);
		/* BPF_PROG_TEST_RUN gives a TC program's skb a socket of its
		 * own, no TCP or UDP one: the context says so, XDP has none */
		assert_int_equal(m.flags, m.ctx == PS_CTX_SKB || m.ctx == PS_CTX_SENDER ?
						  PS_F_SOCK_NOT_INET :
						  0);
		assert_true(m.ts_ns >= t0 && m.ts_ns <= t1);
		assert_memory_equal(bytes, pkt, cap);

		assert_int_equal(ps_loader_read_counter(&f.loader, LO_IFINDEX, c->expect_hook,
							&cnt),
				 0);
		assert_int_equal(cnt.seen, 1);
		assert_int_equal(cnt.emitted, 1);
		assert_int_equal(cnt.output_errors, 0);
		free(pkt);
		unload(&f);
	}
}

static void packet_in_record_out(void **state)
{
	(void)state;
	records_for(0, false);
}

/* The same fixtures through the ring buffer transport (1 MiB ring). */
static void packet_in_ring_record_out(void **state)
{
	(void)state;
	records_for(1u << 20, false);
}

/*
 * The programs a kernel without the atomic fetch (5.12), multi-buffer XDP
 * (5.18), kfree_skb's reason (5.17) and TC's task helpers (6.10) gets
 * (user/kernel/kfeatures.h), here: the same records through both
 * transports, and the sFlow pool numbered as before (one CPU: the add
 * and the read then see nothing between them).
 */
static void older_kernels_programs_record_alike(void **state)
{
	(void)state;
	ps_kfeatures_pretend_missing(PS_KF_BIT(PS_KF_ATOMIC_FETCH) | PS_KF_BIT(PS_KF_XDP_FRAGS) |
				     PS_KF_BIT(PS_KF_DROP_REASON) | PS_KF_BIT(PS_KF_TC_TASK));
	records_for(0, true);
	records_for(1u << 20, true);
	sflow_pool_numbers_each_hooks_packets(state);
	ps_kfeatures_pretend_missing(0);
}

/*
 * A one-page ring holds one 1500-byte record (2 KiB class): the next two
 * reservations fail, are counted as output errors, and leave a gap of two
 * in the CPU's sequence, which is how the ingest counts them per packet.
 */
static int pin_to_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static void pin_to_cpu0(void)
{
	assert_int_equal(pin_to_cpu(0), 0);
}

static void unpin(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	for (int c = 0; c < CPU_SETSIZE; c++)
		CPU_SET(c, &set);
	sched_setaffinity(0, sizeof(set), &set); /* best effort: the offline ones fail */
}

static void ring_full_is_counted(void **state)
{
	/* Two 1500-byte packets fit in 4 KiB, each its header, ps_meta and
	 * bytes. */
	const uint32_t fits = 4096 / ring_taken(1500);
	struct fixture f = { 0 };
	uint8_t *pkt = make_packet(1500);
	struct ps_counters cnt;
	struct ps_meta m0, m1;
	const uint8_t *b;

	(void)state;
	assert_int_equal(fits, 2);
	/* The sequence is per CPU: all runs on one CPU, or the gap
	 * compared below would be between two CPUs' numbers. */
	pin_to_cpu0();
	load_with(&f, PS_SNAPLEN_MAX, false, 4096);
	assert_int_equal(run(&f, XDP, pkt, 1500, fits + 2), 2);
	assert_int_equal(ps_loader_read_counter(&f.loader, LO_IFINDEX, PS_HOOK_XDP, &cnt), 0);
	assert_int_equal(cnt.seen, fits + 2);
	assert_int_equal(cnt.emitted, fits);
	assert_int_equal(cnt.output_errors, 2);
	f.rb = read_rings(&f);
	assert_int_equal(ring_buffer__consume(f.rb), fits);
	assert_int_equal(run(&f, XDP, pkt, 1500, 1), 2); /* room again */
	assert_int_equal(f.n_rec, fits + 1);
	assert_int_equal(ps_split_sample(f.rec[fits - 1].data, sizeof(m0) + 1500, &m0, &b), 0);
	assert_memory_equal(b, pkt, 1500);
	assert_int_equal(ps_split_sample(f.rec[fits].data, sizeof(m1) + 1500, &m1, &b), 0);
	assert_memory_equal(b, pkt, 1500);
	assert_int_equal(m1.seq - m0.seq, 3); /* the two that found it full */
	free(pkt);
	unload(&f);
	unpin();
}

static void sequence_numbers_count_per_cpu(void **state)
{
	struct fixture f = { 0 };
	uint8_t *pkt = make_packet(64);
	struct ps_counters cnt;
	int64_t next[1024];

	(void)state;
	memset(next, -1, sizeof(next));
	load(&f, PS_SNAPLEN_MAX, true);
	run(&f, XDP, pkt, 64, 10);
	run(&f, TC_EG, pkt, 64, 5); /* one per-CPU sequence across hooks */
	assert_int_equal(f.n_rec, 15);
	for (int i = 0; i < f.n_rec; i++) {
		struct ps_meta m;
		const uint8_t *b;
		int cpu = f.rec[i].cpu;

		assert_int_equal(ps_split_sample(f.rec[i].data, f.rec[i].size, &m, &b), 0);
		assert_true(cpu >= 0 && cpu < 1024);
		assert_int_equal(m.cpu, cpu);
		/* each CPU's records arrive in order, numbered without gaps */
		if (next[cpu] >= 0)
			assert_int_equal(m.seq, next[cpu]);
		next[cpu] = m.seq + 1;
	}
	assert_int_equal(ps_loader_read_counter(&f.loader, LO_IFINDEX, PS_HOOK_XDP, &cnt), 0);
	assert_int_equal(cnt.seen, 10);
	assert_int_equal(cnt.emitted, 10);
	assert_int_equal(ps_loader_read_counter(&f.loader, LO_IFINDEX, PS_HOOK_TC_EGRESS, &cnt), 0);
	assert_int_equal(cnt.seen, 5);
	assert_int_equal(cnt.emitted, 5);
	free(pkt);
	unload(&f);
}

/*
 * The ring wakes its reader each time the producer passes a wake mark,
 * and only then: neither per record, nor never again while the reader holds
 * what it read (the ingest keeps records until they are written). Nothing
 * is consumed here, as a reader in the middle of a long round consumes
 * nothing; the wakeups must come all the same. Watched as the ingest
 * watches the ring: edge-triggered.
 */
static void ring_wakes_at_each_mark(void **state)
{
	const uint32_t ring = 64 * 1024, mark = (uint32_t)ps_source_wake_bytes(ring),
		       rec = ring_taken(1500);
	struct epoll_event ev = { .events = EPOLLIN | EPOLLET };
	struct fixture f = { 0 };
	uint8_t *pkt = make_packet(1500);
	int ep = epoll_create1(EPOLL_CLOEXEC), wakeups = 0;
	uint32_t i;

	(void)state;
	assert_true(ep >= 0);
	pin_to_cpu0();
	load_with(&f, PS_SNAPLEN_MAX, false, ring);
	assert_int_equal(epoll_ctl(ep, EPOLL_CTL_ADD, f.ring_fd[0], &ev), 0);
	for (i = 0; (i + 1) * rec < ring; i++) {
		bool crosses = ((i * rec) ^ ((i + 1) * rec)) >= mark;

		assert_int_equal(run(&f, XDP, pkt, 1500, 1), 2);
		/* The wakeup is the kernel's irq_work, raised before the run
		 * returns: one that is due is waited for, one that is not
		 * must not be there. */
		if (crosses) {
			assert_int_equal(epoll_wait(ep, &ev, 1, 5000), 1);
			wakeups++;
		} else {
			assert_int_equal(epoll_wait(ep, &ev, 1, 0), 0);
		}
	}
	assert_true(wakeups >= 3);
	assert_int_equal(wakeups, i * rec / mark); /* one per mark passed */
	close(ep);
	unpin();
	free(pkt);
	unload(&f);
}

/* Count what one ring holds. */
static int count_rec(void *ctx, void *data, size_t size)
{
	(void)data;
	(void)size;
	++*(int *)ctx;
	return 0;
}

/*
 * --transport ringbuf: each CPU's programs write into that CPU's ring and
 * no other (the rings scale as the perf buffers do, with no lock shared
 * between CPUs). Run on each online CPU in turn, k + 1 packets on CPU k.
 */
static void each_cpu_writes_its_own_ring(void **state)
{
	struct fixture f = { 0 };
	uint8_t *pkt = make_packet(64);
	int ran[MAX_CPUS] = { 0 }, tried = 0;

	(void)state;
	load_with(&f, PS_SNAPLEN_MAX, false, 64 * 1024);
	for (int cpu = 0; cpu < f.n_rings; cpu++) {
		if (pin_to_cpu(cpu))
			continue; /* offline */
		assert_int_equal(run(&f, XDP, pkt, 64, cpu + 1), 2);
		ran[cpu] = cpu + 1;
		tried++;
	}
	unpin();
	assert_true(tried >= 1);
	for (int cpu = 0; cpu < f.n_rings; cpu++) {
		int got = 0;
		struct ring_buffer *rb = ring_buffer__new(f.ring_fd[cpu], count_rec, &got, NULL);

		assert_non_null(rb);
		assert_true(ring_buffer__consume(rb) >= 0);
		ring_buffer__free(rb);
		assert_int_equal(got, ran[cpu]);
	}
	free(pkt);
	unload(&f);
}

/* --sflow: every packet a hook lets through takes the next place in that
 * hook's pool, across CPUs; the sample carries it. Without --sflow, 0. */
static void sflow_pool_numbers_each_hooks_packets(void **state)
{
	struct fixture f = { .sflow_pool = true };
	uint8_t *pkt = make_packet(64);
	uint32_t want[PS_HOOK_MAX] = { 0 };

	(void)state;
	load(&f, PS_SNAPLEN_MAX, true);
	run(&f, XDP, pkt, 64, 10);
	run(&f, TC_EG, pkt, 64, 5);
	run(&f, XDP, pkt, 64, 3);
	assert_int_equal(f.n_rec, 18);
	for (int i = 0; i < f.n_rec; i++) {
		struct ps_meta m;
		const uint8_t *b;

		assert_int_equal(ps_split_sample(f.rec[i].data, f.rec[i].size, &m, &b), 0);
		assert_int_equal(m.pool, ++want[m.hook]);
	}
	assert_int_equal(want[PS_HOOK_XDP], 13);
	assert_int_equal(want[PS_HOOK_TC_EGRESS], 5);
	unload(&f);

	load(&f, PS_SNAPLEN_MAX, true);
	run(&f, XDP, pkt, 64, 2);
	for (int i = 0; i < f.n_rec; i++) {
		struct ps_meta m;
		const uint8_t *b;

		assert_int_equal(ps_split_sample(f.rec[i].data, f.rec[i].size, &m, &b), 0);
		assert_int_equal(m.pool, 0);
	}
	free(pkt);
	unload(&f);
}

/* A hook counts into its interface's slot. */
static void counters_follow_the_interface_list(void **state)
{
	struct fixture f = { .ifaces = { 9999, LO_IFINDEX }, .n_ifaces = 2 };
	uint8_t *pkt = make_packet(64);
	struct ps_counters cnt;

	(void)state;
	load(&f, PS_SNAPLEN_MAX, true);
	run(&f, XDP, pkt, 64, 4);
	run(&f, TC_EG, pkt, 64, 2);
	assert_int_equal(ps_loader_read_counter(&f.loader, LO_IFINDEX, PS_HOOK_XDP, &cnt), 0);
	assert_int_equal(cnt.seen, 4);
	assert_int_equal(cnt.emitted, 4);
	assert_int_equal(ps_loader_read_counter(&f.loader, LO_IFINDEX, PS_HOOK_TC_EGRESS, &cnt), 0);
	assert_int_equal(cnt.seen, 2);
	assert_int_equal(ps_loader_read_counter(&f.loader, LO_IFINDEX, PS_HOOK_TC_INGRESS, &cnt),
			 0);
	assert_int_equal(cnt.seen, 0);
	for (unsigned int h = 0; h < PS_HOOK_MAX; h++) {
		assert_int_equal(ps_loader_read_counter(&f.loader, 9999, h, &cnt), 0);
		assert_int_equal(cnt.seen, 0);
	}
	unload(&f);

	/* Not among the interfaces: still captured, never counted. */
	f = (struct fixture){ .ifaces = { 9999 }, .n_ifaces = 1 };
	load(&f, PS_SNAPLEN_MAX, true);
	run(&f, XDP, pkt, 64, 3);
	assert_int_equal(f.n_rec, 3);
	assert_int_equal(ps_loader_read_counter(&f.loader, LO_IFINDEX, PS_HOOK_XDP, &cnt), -ENOENT);
	assert_int_equal(ps_loader_read_counter(&f.loader, 9999, PS_HOOK_XDP, &cnt), 0);
	assert_int_equal(cnt.seen, 0);
	free(pkt);
	unload(&f);
}

/* The maps hold max_ifaces interfaces at once; one that goes keeps its
 * counters and frees its slot, whose next interface starts from zero. */
static void interfaces_come_and_go(void **state)
{
	struct fixture f = { .ifaces = { 9999, LO_IFINDEX }, .n_ifaces = 2 };
	uint8_t *pkt = make_packet(64);
	struct ps_counters cnt, final[PS_HOOK_MAX];

	(void)state;
	load(&f, PS_SNAPLEN_MAX, true);
	assert_int_equal(ps_loader_add_iface(&f.loader, 9999, false), 0); /* again: the same */
	assert_int_equal(ps_loader_add_iface(&f.loader, 7, false), 0);
	assert_int_equal(ps_loader_add_iface(&f.loader, 8, false), 0);
	assert_int_equal(ps_loader_add_iface(&f.loader, 9, false), -E2BIG);
	run(&f, XDP, pkt, 64, 3);
	assert_int_equal(ps_loader_remove_iface(&f.loader, LO_IFINDEX, final), 0);
	assert_int_equal(final[PS_HOOK_XDP].seen, 3);
	assert_int_equal(final[PS_HOOK_XDP].emitted, 3);
	assert_int_equal(final[PS_HOOK_TC_INGRESS].seen, 0);
	assert_int_equal(ps_loader_remove_iface(&f.loader, LO_IFINDEX, final), -ENOENT);
	run(&f, XDP, pkt, 64, 2); /* not counted: lo is no longer captured */
	assert_int_equal(ps_loader_read_counter(&f.loader, LO_IFINDEX, PS_HOOK_XDP, &cnt), -ENOENT);
	/* lo's slot, taken again, counts from zero. */
	assert_int_equal(ps_loader_add_iface(&f.loader, 9, false), 0);
	assert_int_equal(ps_loader_read_counter(&f.loader, 9, PS_HOOK_XDP, &cnt), 0);
	assert_int_equal(cnt.seen, 0);
	assert_int_equal(ps_loader_add_iface(&f.loader, LO_IFINDEX, false), -E2BIG);
	free(pkt);
	unload(&f);
}

static void output_errors_are_counted(void **state)
{
	struct fixture f = { 0 };
	uint8_t *pkt = make_packet(64);
	struct ps_counters cnt;

	(void)state;
	/* No perf buffer open: the output helper fails, the packet passes. */
	load(&f, PS_SNAPLEN_MAX, false);
	assert_int_equal(run(&f, XDP, pkt, 64, 3), 2);
	assert_int_equal(ps_loader_read_counter(&f.loader, LO_IFINDEX, PS_HOOK_XDP, &cnt), 0);
	assert_int_equal(cnt.seen, 3);
	assert_int_equal(cnt.emitted, 0);
	assert_int_equal(cnt.output_errors, 3);
	free(pkt);
	unload(&f);
}

/* A frame to a local socket: Ethernet, IPv4 or IPv6, UDP or a TCP SYN,
 * from the loopback address's port 40000 to dport. */
static uint32_t frame_to(uint8_t *b, bool v6, bool tcp, uint16_t dport)
{
	uint32_t l4 = tcp ? 20 : 8, ip = v6 ? 40 : 20, len = 14 + ip + l4 + 4;
	uint8_t *h = b + 14, *t = h + ip;

	memset(b, 0, len);
	b[12] = v6 ? 0x86 : 0x08, b[13] = v6 ? 0xdd : 0x00;
	if (v6) {
		h[0] = 0x60;
		h[5] = (uint8_t)(l4 + 4);
		h[6] = tcp ? 6 : 17;
		h[7] = 64;
		h[23] = 1; /* ::1 */
		h[39] = 1;
	} else {
		h[0] = 0x45;
		h[3] = (uint8_t)(ip + l4 + 4);
		h[8] = 64;
		h[9] = tcp ? 6 : 17;
		memcpy(h + 12, "\x7f\0\0\x01\x7f\0\0\x01", 8);
	}
	t[0] = 40000 >> 8, t[1] = 40000 & 0xff;
	t[2] = dport >> 8, t[3] = dport & 0xff;
	if (tcp) {
		t[12] = 0x50;
		t[13] = 0x02; /* SYN */
	} else {
		t[5] = 12;
	}
	return len;
}

/* A socket of ours on the loopback address: its port and cookie. */
static int local_socket(bool v6, bool tcp, uint16_t *port, uint64_t *cookie)
{
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	struct sockaddr_in a4 = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr *a = v6 ? (struct sockaddr *)&a6 : (struct sockaddr *)&a4;
	socklen_t alen = v6 ? sizeof(a6) : sizeof(a4), clen = sizeof(*cookie);
	int fd = socket(v6 ? AF_INET6 : AF_INET, tcp ? SOCK_STREAM : SOCK_DGRAM, 0);

	assert_true(fd >= 0);
	assert_int_equal(bind(fd, a, alen), 0);
	if (tcp)
		assert_int_equal(listen(fd, 1), 0);
	assert_int_equal(getsockname(fd, a, &alen), 0);
	*port = ntohs(v6 ? a6.sin6_port : a4.sin_port);
	assert_int_equal(getsockopt(fd, SOL_SOCKET, SO_COOKIE, cookie, &clen), 0);
	return fd;
}

/*
 * A raw-IP device's tc-ingress given bytes in front of the IP header, as
 * 5.10's gre and ipip give it the outer headers (tc/ctx_skb.bpf.h).
 * BPF_PROG_TEST_RUN's skb makes the same view: its network header follows
 * an Ethernet header. The record says where the IP header starts; the
 * filter compiled for raw IP, and the socket lookup, start there; the
 * ingest strips the rest. A packet with bytes past its IP length is given
 * whole, as on tun.
 */
static void raw_ingress_starts_at_the_network_header(void **state)
{
	static const bool v6s[] = { false, true };
	uint8_t b[128], tail[128 + 5] = { 0 }, out[128];
	char expr[64], err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(v6s) / sizeof(v6s[0]); i++) {
		struct fixture f = { .raw = true };
		struct ps_filter flt;
		struct ps_counters cnt;
		struct ps_meta m;
		const uint8_t *bytes, *frame;
		uint16_t port;
		uint64_t cookie;
		uint32_t len, cap, wire;
		int fd = local_socket(v6s[i], false, &port, &cookie);

		snprintf(expr, sizeof(expr), "udp dst port %u", port);
		assert_int_equal(ps_filter_build(&flt, strdup(expr), PS_SNAPLEN_MAX, err,
						 sizeof(err)),
				 0);
		assert_int_equal(ps_filter_build_raw(&flt, err, sizeof(err)), 0);
		f.filter = &flt;
		load(&f, PS_SNAPLEN_MAX, true);
		len = frame_to(b, v6s[i], false, port);
		run(&f, TC_IN, b, len, 1);
		run(&f, TC_IN, b, frame_to(b, v6s[i], false, port + 1), 1); /* filtered out */
		assert_int_equal(f.n_rec, 1);
		assert_int_equal(ps_split_sample(f.rec[0].data, f.rec[0].size, &m, &bytes), 0);
		assert_int_equal(m.net_off, 14);
		assert_int_equal(m.cap_len, len);
		assert_int_equal(m.wire_len, len);
		assert_int_equal(m.ctx, PS_CTX_LOOKUP);
		assert_int_equal(m.sock_cookie, cookie);
		frame = ps_frame_on_wire(&m, bytes, out, PS_SNAPLEN_MAX, &cap, &wire);
		assert_int_equal(cap, len - 14);
		assert_int_equal(wire, len - 14);
		frame_to(b, v6s[i], false, port);
		assert_memory_equal(frame, b + 14, cap);
		assert_int_equal(ps_loader_read_counter(&f.loader, LO_IFINDEX, PS_HOOK_TC_INGRESS,
							&cnt),
				 0);
		assert_int_equal(cnt.filtered, 1);
		unload(&f);
		ps_filter_free(&flt);

		/* Five bytes past the IP length: nothing is taken off. */
		f = (struct fixture){ .raw = true };
		load(&f, PS_SNAPLEN_MAX, true);
		memcpy(tail, b, len);
		run(&f, TC_IN, tail, len + 5, 1);
		assert_int_equal(f.n_rec, 1);
		assert_int_equal(ps_split_sample(f.rec[0].data, f.rec[0].size, &m, &bytes), 0);
		assert_int_equal(m.net_off, 0);
		assert_int_equal(m.cap_len, len + 5);
		unload(&f);
		close(fd);
	}
}

/*
 * Whom a packet belongs to: at XDP and TC ingress the local socket it is
 * for (UDP and TCP, IPv4 and IPv6), named by its cookie, and its owner
 * (this process, as the socket-owner program saw it make the socket);
 * none where nothing listens; nothing to look up for ARP. And --pid keeps
 * this process's packets only.
 */
static void context_names_local_sockets(void **state)
{
	struct ps_cgroup_index cg;
	struct fixture f = { 0 };
	uint8_t b[128], arp[64] = { [12] = 0x08, [13] = 0x06 };
	int fds[4];
	uint16_t port[4];
	uint64_t cookie[4];
	struct ps_counters cnt;

	(void)state;
	load(&f, PS_SNAPLEN_MAX, true);
	assert_int_equal(ps_cgroup_index_open(&cg), 0);
	assert_int_equal(ps_loader_attach_owner(&f.loader, cg.root), 0);
	ps_cgroup_index_free(&cg);
	for (int i = 0; i < 4; i++) /* udp4, tcp4, udp6, tcp6 */
		fds[i] = local_socket(i >= 2, i & 1, &port[i], &cookie[i]);
	for (int i = 0; i < 4; i++) {
		uint32_t len = frame_to(b, i >= 2, i & 1, port[i]);

		for (int hook = XDP; hook <= TC_IN; hook++) {
			struct ps_meta m;
			const uint8_t *bytes;

			f.n_rec = 0;
			run(&f, hook, b, len, 1);
			assert_int_equal(f.n_rec, 1);
			assert_int_equal(ps_split_sample(f.rec[0].data, f.rec[0].size, &m, &bytes),
					 0);
			print_message("%s %s to port %u: ctx %u cookie %llu pid %u\n",
				      i & 1 ? "tcp" : "udp", i >= 2 ? "v6" : "v4", port[i], m.ctx,
				      (unsigned long long)m.sock_cookie, m.pid);
			assert_int_equal(m.ctx, PS_CTX_LOOKUP);
			assert_int_equal(m.sock_cookie, cookie[i]);
			assert_int_equal(m.pid, getpid());
			free(f.rec[0].data);
		}
	}
	f.n_rec = 0;
	run(&f, XDP, b, frame_to(b, false, false, 9), 1); /* nothing on port 9 */
	run(&f, XDP, arp, sizeof(arp), 1);
	assert_int_equal(f.n_rec, 2);
	for (int i = 0; i < 2; i++) {
		struct ps_meta m;
		const uint8_t *bytes;

		assert_int_equal(ps_split_sample(f.rec[i].data, f.rec[i].size, &m, &bytes), 0);
		assert_int_equal(m.ctx, i ? PS_CTX_NOT_L4 : PS_CTX_NO_SOCKET);
		assert_int_equal(m.sock_cookie, 0);
		assert_int_equal(m.pid, 0);
	}
	unload(&f);

	/* --pid: this process's packets, not another's (a socket made
	 * since this loader's socket-owner program came). */
	for (int other = 0; other < 2; other++) {
		uint16_t p;
		uint64_t c;
		int fd;

		f = (struct fixture){ .ctx = { .filter = PS_CTXF_PID,
					       .pid = (uint32_t)getpid() + (uint32_t)other } };
		load(&f, PS_SNAPLEN_MAX, true);
		assert_int_equal(ps_cgroup_index_open(&cg), 0);
		assert_int_equal(ps_loader_attach_owner(&f.loader, cg.root), 0);
		ps_cgroup_index_free(&cg);
		fd = local_socket(false, true, &p, &c);
		run(&f, XDP, b, frame_to(b, false, true, p), 1);
		close(fd);
		assert_int_equal(ps_loader_read_counter(&f.loader, LO_IFINDEX, PS_HOOK_XDP, &cnt),
				 0);
		assert_int_equal(cnt.seen, 1);
		assert_int_equal(cnt.emitted, other ? 0 : 1);
		assert_int_equal(cnt.filtered, other ? 1 : 0);
		unload(&f);
	}
	for (int i = 0; i < 4; i++)
		close(fds[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(context_names_local_sockets),
		cmocka_unit_test(raw_ingress_starts_at_the_network_header),
		cmocka_unit_test(packet_in_record_out),
		cmocka_unit_test(packet_in_ring_record_out),
		cmocka_unit_test(older_kernels_programs_record_alike),
		cmocka_unit_test(ring_full_is_counted),
		cmocka_unit_test(ring_wakes_at_each_mark),
		cmocka_unit_test(each_cpu_writes_its_own_ring),
		cmocka_unit_test(sequence_numbers_count_per_cpu),
		cmocka_unit_test(output_errors_are_counted),
		cmocka_unit_test(sflow_pool_numbers_each_hooks_packets),
		cmocka_unit_test(counters_follow_the_interface_list),
		cmocka_unit_test(interfaces_come_and_go),
	};
	int skip = ps_fx_require_bpf("bpf_programs");

	if (skip)
		return skip;
	libbpf_set_print(NULL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
