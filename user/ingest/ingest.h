/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The ingest: reads the per-CPU perf buffers (or the BPF ring) in rounds,
 * puts the samples in timestamp order across CPUs (user/ingest/order.h), hands
 * each to the sinks the capture registered (user/ingest/sink.h: the file, the
 * printed lines, sFlow), and keeps the per-CPU and per-interface
 * accounting that the closing statistics report. It knows no output by
 * name.
 *
 * A round: read the clock, read every CPU's in-flight mark, read every
 * buffer to its end, settle the CPUs that had nothing in flight, hand every
 * sample the merge can now place to the sinks, end the sinks' round. A round runs on every wakeup (a
 * buffer a quarter full) and at least every poll interval when idle.
 */
#ifndef PS_INGEST_H
#define PS_INGEST_H

#include <stdbool.h>
#include <stdint.h>
#include "clock.h"
#include "order.h"
#include "pktsample.h"
#include "sink.h"
#include "target.h"

struct perf_buffer;
struct ring_buffer;

#define PS_MAX_SINKS 8

struct ps_cpu_state {
	uint64_t next_seq;	/* seq expected next from this CPU */
	uint64_t pending_drops; /* lost since the last packet written */
	uint64_t lost;		/* PERF_RECORD_LOST totals */
};

struct ps_ingest {
	struct ps_order order;		      /* samples waiting for their place in time */
	int emit_fd;			      /* per-CPU in-flight marks; -1: none (tests) */
	struct ps_emit_state *emit;	      /* one round's read of them */
	const volatile uint64_t *ring_pos[2]; /* ringbuf: consumer, producer */
	size_t ring_pos_len;
	uint64_t round_bytes;	/* ringbuf: bytes read this round ... */
	uint64_t round_budget;	/* ... and what the ring held when it began */
	struct perf_buffer *pb; /* --transport perf (the default) */
	struct ring_buffer *rb; /* --transport ringbuf */
	struct ps_clock clock;
	uint32_t snaplen;
	uint64_t limit; /* stop after this many packets; 0 = no limit */
	struct ps_target *targets;
	int n_targets;
	struct ps_cpu_state *cpus;
	int ncpus;
	uint64_t received; /* samples taken from the buffers */
	uint64_t written;  /* packets every sink took (-c counts these) */
	uint64_t forced;   /* written before the merge could place them */
	uint64_t rounds;
	uint64_t malformed; /* samples that did not split */
	uint64_t unknown;   /* samples from an (ifindex, hook) not ours */
	uint64_t seq_gaps;  /* samples missing from a CPU's sequence */
	/* The outputs (user/ingest/sink.h), each packet to each in this order. */
	struct ps_sink *sinks[PS_MAX_SINKS];
	int n_sinks;
	int error;			   /* the first error: a sink's, or -ENOMEM */
	struct ps_sink *failed;		   /* the sink whose error it was; NULL */
	bool done;			   /* limit reached or error */
	uint8_t frame[PS_SNAPLEN_MAX + 4]; /* frame with its VLAN tag restored */
};

/* Set up everything but the perf buffer (tests feed samples directly).
 * The merge may hold PS_ORDER_DEFAULT_HELD bytes until a buffer is opened. */
#define PS_ORDER_DEFAULT_HELD (16u << 20)
int ps_ingest_init(struct ps_ingest *c, struct ps_target *targets, int n_targets, int ncpus,
		   uint32_t snaplen, uint64_t limit);
/* Every packet goes to s as well, after the sinks added before. 0, or
 * -E2BIG past PS_MAX_SINKS. */
int ps_ingest_add_sink(struct ps_ingest *c, struct ps_sink *s);
struct perf_event_attr;
/* The perf event every CPU's buffer gets: raw samples, batched wakeups. */
void ps_perf_attr_init(struct perf_event_attr *attr, unsigned int pages, long page_size);
/* Open the perf buffers on the events map; buffer_kib per CPU. emit_fd:
 * the per-CPU struct ps_emit_state map. The merge may then hold twice what
 * the buffers hold. */
int ps_ingest_open(struct ps_ingest *c, int events_fd, int emit_fd, uint32_t buffer_kib);
/* Or read the BPF ring buffer map instead (--transport ringbuf). */
int ps_ingest_open_ring(struct ps_ingest *c, int ring_fd, int emit_fd, uint32_t ring_bytes);
/* The fd to wait on for a wakeup (libbpf's epoll set of the buffers). */
int ps_ingest_epoll_fd(const struct ps_ingest *c);
/* Wait up to timeout_ms for a wakeup, then run a round. */
int ps_ingest_poll(struct ps_ingest *c, int timeout_ms);
/* The last round, once the hooks are detached: wait (briefly) for samples
 * still in flight, read everything, hand everything on. */
int ps_ingest_drain(struct ps_ingest *c);
/* The capture ended (ok: without an error so far): every sink's close, in
 * order; the first error, which c->failed names. */
int ps_ingest_close(struct ps_ingest *c, bool ok);
void ps_ingest_free(struct ps_ingest *c);

/* Take one PERF_RECORD_SAMPLE seen on cpu into the merge. */
void ps_ingest_sample(struct ps_ingest *c, int cpu, const void *raw, uint32_t size);
/* cpu will deliver nothing stamped before t (kernel monotonic ns). */
void ps_ingest_settle(struct ps_ingest *c, int cpu, uint64_t t);
/* Hand what the merge can place (all: everything held) to the sinks; 0 or
 * the first sink's error. */
int ps_ingest_release(struct ps_ingest *c, bool all);
void ps_ingest_lost(struct ps_ingest *c, int cpu, uint64_t lost);

uint64_t ps_ingest_lost_total(const struct ps_ingest *c);

/* Perf buffer pages per CPU for a size in KiB: a power of two, >= 1. */
unsigned int ps_buffer_pages(uint32_t buffer_kib, long page_size);

#endif
