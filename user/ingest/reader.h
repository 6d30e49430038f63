/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The reading side of the ingest (private to user/ingest/): the sources a
 * reader owns are read in rounds, each record checked, split and (for a
 * long perf packet) put back together, and handed on as a reference with
 * its CPU's drop count; after the buffers, the reader says which of its
 * CPUs are settled and how far it read each source.
 *
 * -j 1: one reader, run by the capture's own thread, hands straight to
 * the merge. -j N: N reader threads, each owning some CPUs' perf buffers;
 * each hands what it reads to its CPUs' mailboxes (one single-producer,
 * single-consumer queue per CPU, in that CPU's order), and the merge,
 * in the capture's thread, empties them. A CPU's mailbox has one writer
 * and one reader, and a settle mark follows the records it vouches for in
 * the same queue, so the merge's reasoning (user/ingest/order.h) holds as
 * with one reader. The space a record holds in its buffer goes back to
 * the kernel only from the merge's thread, after the record is written.
 */
#ifndef PS_READER_H
#define PS_READER_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include "pktsample.h"

struct ps_ingest;

/* What the merge holds for a sample: its metadata and where its bytes are.
 * The bytes stay in the kernel's buffer (pos in source src) until the
 * round that writes them ends, or are a copy the ingest owns. */
struct ps_ref {
	struct ps_meta m;
	const uint8_t *pkt; /* m.cap_len bytes */
	uint64_t pos;	    /* where its record starts in its source */
	int32_t src;	    /* its source; -1: none (a copy) */
	uint32_t bytes;	    /* what the record took in its buffer */
	void *owned;	    /* the copy pkt is in, to free once written; NULL */
};

/* One entry of a CPU's mailbox: a sample, or the reader's round mark. */
struct ps_mail {
	struct ps_ref ref; /* PS_MAIL_SAMPLE */
	uint64_t drops;	   /* PS_MAIL_SAMPLE: lost on the CPU just before it */
	uint64_t settle;   /* PS_MAIL_MARK: the CPU is settled at this; 0: not */
	uint64_t read;	   /* PS_MAIL_MARK: the CPU's source is read up to here */
	uint32_t kind;
	int32_t src; /* PS_MAIL_MARK: that source */
};
#define PS_MAIL_SAMPLE 0
#define PS_MAIL_MARK 1

struct ps_mailbox {
	struct ps_mail *slot;
	uint64_t mask;
	uint64_t tail __attribute__((aligned(64))); /* the reader's */
	uint64_t head __attribute__((aligned(64))); /* the merge's */
};

struct ps_reader {
	struct ps_ingest *c;
	int *srcs; /* the sources it reads */
	int n_srcs;
	struct ps_emit_state *emit; /* its read of every CPU's in-flight mark */
	bool *cpu_read;		    /* per CPU: its source was read to its end */
	bool more;		    /* a round left more than its share unread */
	bool threaded;		    /* hands to the mailboxes, not the merge */
	int epoll_fd;		    /* threaded: its sources', the stop's, the poke's */
	int poke_fd;		    /* threaded: the merge asks for a round */
	pthread_t thread;
	int finished; /* threaded: its last round is in the mailboxes */
};

/* The merge's side, in ingest.c: one sample into the merge (false if it
 * was not taken; ref->owned is then freed). */
bool ps_ingest_commit(struct ps_ingest *c, const struct ps_ref *ref, uint64_t drops);
/* A reader thread's side: m into its CPU's mailbox (m->ref.m.cpu),
 * waiting while the mailbox is full; false if the capture ended first. */
bool ps_mailbox_put(struct ps_ingest *c, const struct ps_mail *m);

/* One round of r: the clock, the marks, its sources (a sixteenth of each
 * at most: r->more says one had more), then its CPUs settled. *in_flight: a
 * CPU may still be between its timestamp and its output. */
void ps_reader_round(struct ps_reader *r, bool *in_flight);
/* Take one sample (raw: ps_meta and the packet, copied) as reader r. */
void ps_reader_take_copy(struct ps_reader *r, const void *raw, uint32_t size);

/*
 * -j N (N > 1, perf buffers): start N reader threads over the sources
 * (CPU i to thread i mod N), their mailboxes, and the merge's wakeup. 0 or
 * -errno, logged. The merge then waits on the wakeup instead of the
 * sources.
 */
int ps_readers_start(struct ps_ingest *c, int n);
/* Into the merge, what the mailboxes hold: samples, settles, how far each
 * source was read (c->src_seen). */
void ps_readers_collect(struct ps_ingest *c);
/* The merge holds packets it cannot place yet: every reader runs a round
 * now, so a CPU whose reader sleeps (nothing to read) is settled at once,
 * not at that reader's next idle wakeup. */
void ps_readers_poke(struct ps_ingest *c);
/* The last rounds: every reader reads what is left, hands it on, ends. */
int ps_readers_drain(struct ps_ingest *c, bool *in_flight);
/* Stop and join the threads (if any), and take what they handed on. */
void ps_readers_stop(struct ps_ingest *c);
/* ... and free the mailboxes, the readers, the wakeups. */
void ps_readers_free(struct ps_ingest *c);

#endif
