/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The flight recorder's memory: packets kept as the sinks got them, oldest
 * first, in one buffer of a fixed size allocated once, so that what the
 * recorder holds is bounded by --flight-size and costs no allocation per
 * packet. Each packet is one record: a header (the metadata, the ids, the
 * lengths), whom it belongs to and a drop's words packed as strings (only
 * what is there), then its bytes. A record never wraps around the end:
 * where one does not fit, it starts again at the beginning, and the oldest
 * records make room.
 *
 * Pure: no system call, nothing logged; unit-tested (tests/unit/test_flight.c).
 */
#ifndef PS_FLIGHTBUF_H
#define PS_FLIGHTBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "sink.h"
#include "who.h"

struct ps_flightbuf {
	uint8_t *buf;
	size_t size;
	size_t head, tail; /* where the next record goes; the oldest */
	size_t wrap_at;	   /* wrapped: where the records before head end */
	bool wrapped;	   /* the records run from tail to wrap_at, then from 0 */
	uint64_t count;	   /* records held */
	uint64_t bytes;	   /* their records' bytes */
	uint64_t evicted;  /* the oldest given up to make room */
	uint64_t too_big;  /* packets larger than the whole buffer */
};

/* One record as read back: a packet for the sinks, and the storage its
 * pointers use. Valid until the record is dropped. */
struct ps_flight_view {
	struct ps_sink_pkt pkt;
	struct ps_meta m;
	struct ps_who who;
	struct ps_drop_words drop;
};

/* A walk from the oldest record, which leaves them where they are. */
struct ps_flightbuf_it {
	size_t off;
	bool wrapped;
	uint64_t left;
};

/* A buffer of size bytes (at least 4 KiB): 0 or -ENOMEM. */
int ps_flightbuf_init(struct ps_flightbuf *b, size_t size);
void ps_flightbuf_free(struct ps_flightbuf *b);
/* Keep p (its target, metadata, words and bytes), giving up the oldest
 * records for room as needed (counted in evicted). 0, or -E2BIG: a packet
 * larger than the buffer, not kept (counted in too_big). */
int ps_flightbuf_push(struct ps_flightbuf *b, const struct ps_sink_pkt *p);
void ps_flightbuf_begin(const struct ps_flightbuf *b, struct ps_flightbuf_it *it);
/* The next record into v; false past the newest. */
bool ps_flightbuf_next(const struct ps_flightbuf *b, struct ps_flightbuf_it *it,
		       struct ps_flight_view *v);
/* Drop the oldest record. */
void ps_flightbuf_pop(struct ps_flightbuf *b);
/* Drop the records stamped before ts_ns (oldest first, while they are);
 * how many. */
uint64_t ps_flightbuf_expire(struct ps_flightbuf *b, uint64_t ts_ns);

#endif
