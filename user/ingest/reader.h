/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One reader of the kernel's buffers (private to user/ingest/): the
 * sources it owns are read in rounds, each record checked, split and (for
 * a long perf packet) put back together, its CPU's sequence checked for
 * gaps, and handed on through its output (struct ps_reader_out) as a
 * reference with that CPU's drop count; after the buffers, a mark per CPU
 * says whether the CPU is settled and how far its source was read.
 *
 * A reader knows nothing of what takes its output: with one reader it is
 * the merge itself (user/ingest/ingest.c), with reader threads the CPUs'
 * mailboxes (user/ingest/threads.h), which hand the same calls on to the
 * merge in its thread. Everything a reader writes is its own: its
 * counters, its CPUs' sequences, the long packets it is putting together.
 * What it shares it only reads: the sources' data, and the capture's end
 * (`stop`, read atomically).
 */
#ifndef PS_READER_H
#define PS_READER_H

#include <stdbool.h>
#include <stdint.h>
#include "pktsample.h"
#include "source.h"

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

/* Where a reader's output goes: the merge, or the mailboxes. */
struct ps_reader_out {
	/* One sample, with the samples its CPU lost just before it. The
	 * callee owns ref->owned from here on, taken or not. */
	void (*sample)(void *arg, const struct ps_ref *ref, uint64_t drops);
	/* After a round's reading: cpu is settled at `settle` (0: not), and
	 * source src was read up to `read`. Also while sources are read
	 * together, with src -1 (no source: nothing said of what was read). */
	void (*mark)(void *arg, int cpu, uint64_t settle, int src, uint64_t read);
	/* The reader cannot go on (-ENOMEM): the capture ends with err. */
	void (*fail)(void *arg, int err);
	void *arg;
};

/* Per CPU, as its reader sees its sequence. */
struct ps_cpu_state {
	uint64_t next_seq;	/* seq expected next from this CPU */
	uint64_t pending_drops; /* lost since the last packet handed on */
	uint64_t gaps;		/* samples missing from its sequence */
	uint64_t ring_last;	/* a shared ring: where its latest record scanned
				 * starts, plus 1 (0: none scanned) */
};

/* A perf source's packet longer than one record, being put together from
 * its continuations (include/pktsample.h, PS_PERF_CHUNK). */
struct ps_assembly {
	uint8_t *buf;	     /* ps_meta and the packet, as one sample; NULL: none */
	uint32_t have, want; /* bytes of the packet so far, of cap_len */
};

/* A reader's counts: exact once it has stopped (written by its thread). */
struct ps_reader_counts {
	uint64_t malformed;  /* samples that did not split */
	uint64_t incomplete; /* long packets whose continuations were lost */
	uint64_t seq_gaps;   /* samples missing from its CPUs' sequences */
};

struct ps_reader {
	struct ps_source *src;	      /* the ingest's sources (all of them) */
	int *srcs;		      /* those this reader reads */
	struct ps_assembly *assembly; /* per source it reads (as srcs) */
	int n_srcs;
	int ncpus;
	int emit_fd;		    /* per-CPU in-flight marks; -1: none (tests) */
	const bool *stop;	    /* the capture ended: read atomically */
	struct ps_reader_out out;   /* where what it reads goes */
	struct ps_cpu_state *cpus;  /* per CPU (only its own CPUs move) */
	struct ps_emit_state *emit; /* its read of every CPU's in-flight mark */
	bool *cpu_read;		    /* per CPU: its source was read to its end */
	bool more;		    /* a round left more than its share unread */
	bool together;		    /* its output is the merge: read its sources
				     * together (reader.c, consume_together()) */
	bool failed;		    /* it said fail once: it reads no more */
	struct ps_reader_counts n;
};

/* The most sources of one CPU each that a round reads together, the
 * earliest record first: one comparison per source per record. A reader
 * with more, or with a ring that CPUs share, reads one after the other. */
#define PS_READ_TOGETHER_MAX 16

/* A reader for ncpus CPUs, with no source yet; 0 or -ENOMEM. emit_fd:
 * the in-flight marks' map (-1: none). */
int ps_reader_init(struct ps_reader *r, int ncpus, int emit_fd, const bool *stop,
		   const struct ps_reader_out *out);
/* src[i] is this reader's from now on (src: the ingest's sources, all of
 * them); 0 or -ENOMEM. */
int ps_reader_add_source(struct ps_reader *r, struct ps_source *src, int i);
/* One round: the clock, the marks, its sources (a wake mark's worth of
 * each at most: r->more says one had more), then a mark per CPU.
 * *in_flight: a CPU may still be between its timestamp and its output. */
void ps_reader_round(struct ps_reader *r, bool *in_flight);
/* One sample (raw: ps_meta and the packet) as r would read it, copied:
 * the caller's buffer is free when this returns (tests, the fuzzer). */
void ps_reader_take_copy(struct ps_reader *r, const void *raw, uint32_t size);
/* r's counts added into *n, its CPUs' gaps into gaps[ncpus] (NULL: not
 * wanted); once r has stopped. */
void ps_reader_add_counts(const struct ps_reader *r, struct ps_reader_counts *n, uint64_t *gaps);
void ps_reader_free(struct ps_reader *r);

#endif
