/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Time order across CPUs: a k-way merge over per-CPU queues, in the spirit
 * of perf's ordered events. Pure: no I/O, no clock, no kernel; the ingest
 * feeds it and tells it what it knows about each CPU.
 *
 * Each CPU's samples arrive in the order that CPU stamped them: one program
 * runs at a time per CPU, and it stamps and emits a sample before the next
 * one starts, into that CPU's perf buffer or ring. So each queue is sorted, and the merge only has to know when the
 * head of the earliest queue is final: when no CPU can still deliver a
 * sample stamped earlier. That is each CPU's floor, and the watermark is
 * the lowest floor. A CPU's floor rises in two ways:
 *
 *  - it delivered a sample stamped t: the rest of its stream is >= t;
 *  - the ingest settled it at t: the CPU had no sample in flight when
 *    the ingest looked (user/ingest/ingest.c reads the kernel's per-CPU
 *    in_flight mark, set before the timestamp is taken and cleared once
 *    the output call has returned), after reading the clock at t + skew,
 *    and the ingest then read that CPU's buffer to its end. A sample
 *    stamped before t was therefore already in the buffer, and has been
 *    queued; any later sample is stamped after the mark was seen clear.
 *
 * This covers both gaps the issue of ordering has. The gap between a
 * program's timestamp and its output call is bracketed by in_flight, so it
 * may be of any length (an interrupt, a preempted vCPU): a CPU caught in it
 * is simply not settled this round. A CPU that stays silent is settled at
 * every round, so it holds nothing back for longer than one round. The
 * skew covers what the mark cannot: clock reads on different CPUs and the
 * store of the mark becoming visible, both well under a microsecond.
 *
 * Bounds: the merge holds at most max_held bytes of records (a record is
 * its sample plus a 24-byte header); a push past that is refused, and the
 * caller must write the earliest record first (counted as forced: the only
 * way order can break). A record waits at most until the first round that
 * starts skew after its timestamp with its CPU and every other one settled:
 * one round in practice, the idle interval plus the skew on a quiet capture.
 */
#ifndef PS_ORDER_H
#define PS_ORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ps_order_rec {
	uint64_t ts;	/* the sort key: the kernel's timestamp */
	uint64_t drops; /* samples this CPU lost just before this one */
	uint32_t len;	/* bytes of data */
	uint32_t cpu;
	uint8_t data[]; /* 8-byte aligned */
};

struct ps_order_queue {
	uint8_t *buf; /* records from head to tail, each 8-byte aligned */
	size_t head, tail, size;
	uint64_t floor; /* nothing still to come from this CPU is earlier */
};

struct ps_order {
	struct ps_order_queue *q;
	int nq;
	/* ps_order_pass(): the lowest floor but pass_cpu's, while no floor
	 * has risen since (floors_gen). */
	uint64_t floors_gen, pass_gen, pass_wm;
	int pass_cpu;
	int *heap; /* the non-empty queues, earliest head first */
	int nheap;
	size_t held; /* bytes of records held */
	size_t max_held;
	uint64_t records; /* records held */
	uint64_t peak_held;
	uint64_t last_ts; /* the last record handed out */
	uint64_t late;	  /* records handed out after a later-stamped one */
	uint64_t passed;  /* records ps_order_pass() handed out unheld */
};

/* 0 or -ENOMEM. max_held: the most record bytes held at once. */
int ps_order_init(struct ps_order *o, int ncpus, size_t max_held);
void ps_order_free(struct ps_order *o);

/*
 * Room for a record of len data bytes from cpu. Fill in ts, drops and data,
 * then ps_order_commit(). NULL if holding it would pass max_held or memory
 * runs out (errno ENOBUFS / ENOMEM): write the earliest record and retry.
 */
struct ps_order_rec *ps_order_reserve(struct ps_order *o, int cpu, uint32_t len);
void ps_order_commit(struct ps_order *o, struct ps_order_rec *r);

/* cpu has nothing still to come stamped before t. */
void ps_order_settle(struct ps_order *o, int cpu, uint64_t t);
/* The lowest floor: every held record stamped at or before it is final. */
uint64_t ps_order_watermark(const struct ps_order *o);

/*
 * A record stamped t from cpu, handed out at once instead of held: true
 * when nothing is held and no other CPU can still deliver a record stamped
 * before t (their floors are past it), so that the merge is a copy where
 * one CPU has the data and the others are settled. The record then counts
 * as delivered (cpu's floor rises to t) and as handed out.
 */
bool ps_order_pass(struct ps_order *o, int cpu, uint64_t t);

/* The earliest held record, or NULL. */
const struct ps_order_rec *ps_order_peek(const struct ps_order *o);
/* The earliest record held from cpu, or NULL. */
const struct ps_order_rec *ps_order_head(const struct ps_order *o, int cpu);
/* Drop the record ps_order_peek() returned. */
void ps_order_pop(struct ps_order *o);

/* Record size in a queue for len data bytes. */
static inline size_t ps_order_rec_size(uint32_t len)
{
	return sizeof(struct ps_order_rec) + (((size_t)len + 7) & ~(size_t)7);
}

#endif
