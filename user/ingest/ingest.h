/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The ingest: reads the per-CPU perf buffers (or BPF rings) in rounds,
 * puts the samples in timestamp order across CPUs (user/ingest/order.h), hands
 * each to the sinks the capture registered (user/ingest/sink.h: the file, the
 * printed lines, sFlow), and keeps the per-CPU and per-interface
 * accounting that the closing statistics report. It knows no output by
 * name.
 *
 * A round: read the clock, read every CPU's in-flight mark, read every
 * buffer to its end, settle the CPUs that had nothing in flight, hand every
 * sample the merge can now place to the sinks, end the sinks' round, and
 * only then give the buffers' space back to the kernel. A round runs on
 * every wakeup (each sixteenth of a buffer written) and at least every
 * poll interval when idle.
 *
 * The bytes of a packet are not copied on the way: the buffers are read in
 * place (user/ingest/source.h), the merge orders references to them, and a
 * sink gets a pointer into the kernel's buffer that stays valid until its
 * round ends. A copy is made only for a perf record that wraps around the
 * end of its buffer (one per lap), a packet whose VLAN tag goes back in
 * (TC's out-of-band tag), and samples fed by ps_ingest_sample() (tests).
 */
#ifndef PS_INGEST_H
#define PS_INGEST_H

#include <stdbool.h>
#include <stdint.h>
#include "bufplan.h"
#include "clock.h"
#include "dropnames.h"
#include "order.h"
#include "pktsample.h"
#include "reader.h"
#include "sink.h"
#include "source.h"
#include "target.h"

#define PS_MAX_SINKS 8

struct ps_readers;

struct ps_ingest {
	struct ps_order order; /* samples waiting for their place in time */
	int emit_fd;	       /* per-CPU in-flight marks; -1: none (tests) */
	struct ps_source *src; /* one per online CPU */
	int n_src;
	int epoll_fd;		  /* the sources' wakeups, or the readers' */
	uint64_t *give_back_upto; /* per source: what a round gives back */
	uint64_t *src_seen;	  /* per source: read up to here, as the merge knows */
	/* The reading (user/ingest/reader.h): r0 in this thread, or reader
	 * threads (user/ingest/threads.h) whose mail the merge collects. */
	struct ps_reader r0;
	struct ps_readers *threads; /* NULL: r0 reads */
	/* Copies that sinks may still point into: freed when the round ends. */
	void **round_copies;
	size_t n_round_copies, round_copies_cap;
	struct ps_clock clock;
	uint32_t snaplen;
	uint64_t limit;		   /* stop after this many packets; 0 = no limit */
	struct ps_target *targets; /* room for every target there will be */
	int n_targets;		   /* ps_ingest_set_n_targets */
	int last_target;	   /* the one found last */
	int ncpus;
	uint64_t received;	 /* samples taken into the merge */
	uint64_t received_bytes; /* their records' bytes, as the buffers held them */
	uint64_t written;	 /* packets every sink took (-c counts these) */
	uint64_t forced;	 /* written before the merge could place them */
	uint64_t unpinned;	 /* copied out of a buffer more than half full */
	uint64_t rounds;
	uint64_t unknown; /* samples from an (ifindex, hook) not ours */
	/* Packets written whose owner is not known, by the hook's context
	 * (enum ps_ctx; ps_who_why says why): the file's comments do not. */
	uint64_t unowned[PS_CTX_MAX];
	bool settled; /* a CPU was settled since the last sample came */
	/* The outputs (user/ingest/sink.h), each packet to each in this order. */
	struct ps_sink *sinks[PS_MAX_SINKS];
	int n_sinks;
	struct ps_who_table *who;  /* whom packets belong to; NULL: not asked */
	struct ps_pathseen *paths; /* followed packets' last places; made at the first */
	const struct ps_dropnames *drop_names; /* drop hooks' words; NULL: none */
	int error;			       /* the first error: a sink's, or -ENOMEM */
	struct ps_sink *failed;		       /* the sink whose error it was; NULL */
	/* Limit reached or error: written by the merge's thread only, read
	 * by the readers (atomically). */
	bool done;
};

/* What the ingest has done so far: exact once it is drained (the readers'
 * counts are their threads' until then). */
struct ps_ingest_stats {
	uint64_t received, written, forced, unpinned, rounds, unknown;
	uint64_t lost; /* perf: what the kernel reported lost (PERF_RECORD_LOST) */
	struct ps_reader_counts rd;
	uint64_t peak_held, late;     /* the merge: bytes held at most, out of order */
	uint64_t passed;	      /* the merge: handed on without being held */
	uint64_t unowned[PS_CTX_MAX]; /* written without a known owner, by context */
	int n_src;
};

/* Set up everything but the perf buffer (tests feed samples directly).
 * The merge may hold PS_ORDER_DEFAULT_HELD bytes of references until a
 * buffer is opened. */
#define PS_ORDER_DEFAULT_HELD (16u << 20)
int ps_ingest_init(struct ps_ingest *c, struct ps_target *targets, int n_targets, int ncpus,
		   uint32_t snaplen, uint64_t limit);
/* The capture's targets grew to n (the array has room: it never moves). */
void ps_ingest_set_n_targets(struct ps_ingest *c, int n);
/* Every packet goes to s as well, after the sinks added before. 0, or
 * -E2BIG past PS_MAX_SINKS. */
int ps_ingest_add_sink(struct ps_ingest *c, struct ps_sink *s);
/* The sinks get each packet's owner in words (ps_sink_pkt.who) from t. */
void ps_ingest_set_who(struct ps_ingest *c, struct ps_who_table *t);
/* The sinks get each drop's reason and place in words (ps_sink_pkt.drop)
 * from n (user/kernel/dropnames.h). */
void ps_ingest_set_drop_names(struct ps_ingest *c, const struct ps_dropnames *n);
struct perf_event_attr;
/* The perf event every CPU's buffer gets: raw samples, batched wakeups. */
void ps_perf_attr_init(struct perf_event_attr *attr, unsigned int pages, long page_size);
/* Open the perf buffers on the events map; per_cpu_kib each (shrink: or
 * less, halving, where the locked-memory limit allows no more). emit_fd:
 * the per-CPU struct ps_emit_state map. The merge may then hold twice what
 * the buffers hold. */
int ps_ingest_open(struct ps_ingest *c, int events_fd, int emit_fd, uint32_t per_cpu_kib,
		   bool shrink);
/* Or read these (tests: ps_source_open_memory()); the ingest owns them
 * from now on. 0 or -errno. */
int ps_ingest_open_sources(struct ps_ingest *c, struct ps_source *src, int n);
/* Or make and read a BPF ring buffer of ring_bytes per group of ring_cpus
 * CPUs (ps_buffer_plan()) that has one online, put in the ARRAY_OF_MAPS
 * rings_fd at each online CPU of the group (--transport ringbuf). */
int ps_ingest_open_ring(struct ps_ingest *c, int rings_fd, int emit_fd, uint32_t ring_bytes,
			int ring_cpus);
/* The fd to wait on for a wakeup (libbpf's epoll set of the buffers). */
int ps_ingest_epoll_fd(const struct ps_ingest *c);
/*
 * How long the capture may sleep before the next round: idle_ms, or
 * PS_INGEST_HOLD_MS while the merge holds packets it could not place yet.
 * Those hold their space in the kernel's buffers, and no wakeup may come
 * for them: the buffers wake the reader as their data cross a mark, and
 * they may be above it already. While data flow, the marks wake the reader
 * sooner anyway. 10 ms, not 1: a one-CPU flood holds a packet now and
 * then, and each wakeup costs more than the packets it reads, so the
 * longer hold means fewer wakeups and less CPU in a flood of small
 * packets (doc/performance.md#wakeups). tcpdump -w holds packets up to a
 * second.
 */
#define PS_INGEST_HOLD_MS 10
int ps_ingest_wait_ms(const struct ps_ingest *c, int idle_ms);
/* Wait up to timeout_ms for a wakeup, then run a round. */
int ps_ingest_poll(struct ps_ingest *c, int timeout_ms);
/* The last round, once the hooks are detached: wait (briefly) for samples
 * still in flight, read everything, hand everything on. */
int ps_ingest_drain(struct ps_ingest *c);
/* The capture ended (ok: without an error so far): every sink's close, in
 * order; the first error, which c->failed names. */
int ps_ingest_close(struct ps_ingest *c, bool ok);
void ps_ingest_free(struct ps_ingest *c);

/* -j: read the buffers with n threads (n > 1; 1: in this thread, the
 * default before). After ps_ingest_open() or ps_ingest_open_ring(). 0 or
 * -errno, logged. */
int ps_ingest_threads(struct ps_ingest *c, int n);
/* The -j a capture gets by default: one reader per 8 CPUs with a buffer,
 * at most half the cores (and at least one). Pure. */
int ps_ingest_default_threads(int buffer_cpus, int cores);

/* Take one sample (ps_meta and packet bytes, as a perf record's raw data)
 * into the merge, copied: the caller's buffer is free when this returns. */
void ps_ingest_sample(struct ps_ingest *c, int cpu, const void *raw, uint32_t size);
/* cpu will deliver nothing stamped before t (kernel monotonic ns). */
void ps_ingest_settle(struct ps_ingest *c, int cpu, uint64_t t);
/* Hand what the merge can place (all: everything held) to the sinks; 0 or
 * the first sink's error. */
int ps_ingest_release(struct ps_ingest *c, bool all);
/* End the round: every sink's round (what was given leaves now), then the
 * copies made this round are freed and the buffers' space that held
 * written samples goes back to the kernel. 0 or the first sink's error. */
int ps_ingest_round_end(struct ps_ingest *c);

uint64_t ps_ingest_lost_total(const struct ps_ingest *c);
/* A snapshot of the counts (struct ps_ingest_stats). */
void ps_ingest_stats(const struct ps_ingest *c, struct ps_ingest_stats *st);
/* The interface of the target of (ifindex, hook), or NULL; arg the
 * ingest. For the words of a followed packet (pathseen.h). */
const char *ps_ingest_target_name(void *arg, uint32_t ifindex, uint8_t hook);
/* How long followed packets took between each pair of hooks (pathtime.h),
 * after prefix; "" where none was followed. */
void ps_ingest_path_times(struct ps_ingest *c, const char *prefix, char *buf, size_t len);
/* With -v, what the ingest did, and a warning for what went wrong on the
 * way (records that were none, samples that did not split, packets
 * written before their place in time was certain); once drained. */
void ps_ingest_report(const struct ps_ingest *c, bool ring);
/* The capture ended for a sink's error (the sink: *failed) or for want
 * of memory (*failed NULL); 0 while it runs. */
int ps_ingest_error(const struct ps_ingest *c, const struct ps_sink **failed);
/* The buffers read: one per online CPU (a ring: or per group of them). */
int ps_ingest_n_sources(const struct ps_ingest *c);
/* -c's count reached, or an error: the loop ends. */
bool ps_ingest_done(const struct ps_ingest *c);

/*
 * After a capture that lost `lost` samples to full buffers: a -B (KiB, all
 * CPUs together) that would have held them, from the average record and
 * the CPU that lost most (its sequence gaps); 0 when nothing was lost. An
 * estimate: the losses of one burst, not what a longer one needs.
 */
uint64_t ps_ingest_buffer_hint(const struct ps_ingest *c, const struct ps_buffer_plan *p,
			       uint64_t lost);

#endif
