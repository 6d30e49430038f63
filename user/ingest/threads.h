/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Reader threads (-j N, private to user/ingest/): N readers
 * (user/ingest/reader.h), each in its own thread over some CPUs' perf
 * buffers, and the mailboxes that carry what they read to the merge's
 * thread. This layer only moves: a reader's output (sample, mark, fail)
 * goes into its CPU's mailbox (one single-producer, single-consumer queue
 * per CPU, in that CPU's order), and ps_readers_collect() hands every
 * mail, in order, to the output the ingest gave (the merge's). A settle
 * mark follows the records it vouches for in the same queue, so the
 * merge's reasoning (user/ingest/order.h) holds as with one reader. The
 * space a record holds in its buffer goes back to the kernel only from the
 * merge's thread, after the record is written.
 */
#ifndef PS_THREADS_H
#define PS_THREADS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include "reader.h"

/* One entry of a CPU's mailbox: what a reader's output was called with. */
struct ps_mail {
	struct ps_ref ref; /* PS_MAIL_SAMPLE */
	uint64_t drops;	   /* PS_MAIL_SAMPLE: lost on the CPU just before it */
	uint64_t settle;   /* PS_MAIL_MARK: the CPU is settled at this; 0: not */
	uint64_t read;	   /* PS_MAIL_MARK: the CPU's source is read up to here */
	uint32_t kind;
	int32_t src; /* PS_MAIL_MARK: that source */
	int32_t cpu; /* the mailbox */
	int32_t err; /* PS_MAIL_FAIL */
};
#define PS_MAIL_SAMPLE 0
#define PS_MAIL_MARK 1
#define PS_MAIL_FAIL 2

struct ps_mailbox {
	struct ps_mail *slot;
	uint64_t mask;
	uint64_t tail __attribute__((aligned(64))); /* the reader's */
	uint64_t head __attribute__((aligned(64))); /* the merge's */
};

struct ps_readers;

/* One reader thread: its reader, its wakeups, its mailboxes' writer. */
struct ps_reader_thread {
	struct ps_reader r;
	struct ps_readers *all;
	int epoll_fd;  /* its sources', the stop's, the poke's */
	int poke_fd;   /* the merge asks for a round */
	int first_cpu; /* its FAIL mail goes to this CPU's mailbox */
	pthread_t thread;
	bool started;
	int finished; /* its last round is in the mailboxes (atomic) */
};

struct ps_readers {
	struct ps_reader_thread *t;
	int n; /* threads running */
	int n_alloc;
	struct ps_mailbox *mail; /* per CPU */
	int ncpus;
	const bool *stop;	 /* the capture ended: read atomically */
	struct ps_reader_out to; /* where collected mail goes: the merge */
	int wake_fd;		 /* readers -> merge: mail */
	int stop_fd;		 /* merge -> readers: the last rounds */
	uint64_t last_poke_ns;	 /* merge -> readers: a round now, at this time */
};

/*
 * n reader threads over the sources src[0..n_src) (source i to thread
 * i mod n), moved out of epoll_fd (the merge's) into their own; the
 * merge's epoll_fd watches the readers' wakeup instead. to: where
 * ps_readers_collect() hands what they read. 0 or -errno, logged.
 */
int ps_readers_start(struct ps_readers *t, int n, struct ps_source *src, int n_src, int ncpus,
		     int emit_fd, int epoll_fd, const bool *stop, const struct ps_reader_out *to);
/* In the merge's thread: every mail, in each CPU's order, to t->to. */
void ps_readers_collect(struct ps_readers *t);
/* The merge holds packets it cannot place yet: every reader runs a round
 * now, so a CPU whose reader sleeps is settled at once. */
void ps_readers_poke(struct ps_readers *t);
/* The last rounds: ask every reader for them. */
void ps_readers_finish(struct ps_readers *t);
/* Has every reader's last round reached the mailboxes? */
bool ps_readers_finished(const struct ps_readers *t);
/* Join the threads (after ps_readers_finish, or on an error: a reader
 * waiting on a full mailbox gives up once the capture's stop is set). */
void ps_readers_join(struct ps_readers *t);
/* The readers' counts and CPUs' gaps added into *n and gaps[ncpus];
 * after ps_readers_join. */
void ps_readers_counts(const struct ps_readers *t, struct ps_reader_counts *n, uint64_t *gaps);
/* Join, then free the mailboxes (and the copies still in them), the
 * readers, the wakeups. */
void ps_readers_free(struct ps_readers *t);

#endif
