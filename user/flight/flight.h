/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The flight recorder (--flight): a sink in front of the file's. It keeps
 * the packets of the last window in memory (flightbuf.h) and writes
 * nothing until a trigger (trigger.h, or SIGUSR2 by hand) starts an
 * incident; it goes on keeping packets for --after, then hands the
 * incident's window (before and after) to the file's sink, the trigger
 * packet's comment saying "trigger=...", and waits again. The second and
 * later incidents each go to a new file, which the capture opens when
 * told (a callback handed down: the recorder knows no file).
 *
 * Every time is the packets' wall clock: the window is the packets
 * stamped from trigger - window to trigger + after. An incident ends at
 * the first packet past it, or, on a quiet link, once the clock is past
 * it by more than the merge holds a packet back (ps_flight_tick).
 */
#ifndef PS_FLIGHT_H
#define PS_FLIGHT_H

#include <stdbool.h>
#include <stdint.h>
#include "flightbuf.h"
#include "sink.h"
#include "target.h"
#include "trigger.h"

#define PS_FLIGHT_TRIGGERS_MAX 8

/* What the recorder needs of the options. */
struct ps_flight_cfg {
	uint64_t window_ns;  /* --flight: kept before a trigger */
	uint64_t size;	     /* --flight-size: bytes of memory */
	uint64_t after_ns;   /* --after: kept after it */
	uint64_t holdoff_ns; /* --holdoff: no incident this long after one */
	uint32_t incidents;  /* --incidents: the capture ends after so many; 0 */
	const char *triggers[PS_FLIGHT_TRIGGERS_MAX]; /* --trigger, as given */
	int n_triggers;
	uint32_t snaplen;
};

/* Where an incident goes: handed down by the capture. */
struct ps_flight_out {
	struct ps_sink *file; /* the file's sink */
	/* The second and later incidents: on to a new file. 0 or -errno
	 * (logged). */
	int (*next_file)(void *arg);
	/* The file an incident went to, for its line. */
	const char *(*path)(void *arg);
	void *arg;
};

/* What the recorder counts: --stats, the summary, --metrics. */
struct ps_flight_stats {
	uint64_t incidents;	   /* written */
	uint64_t triggers_ignored; /* during an incident or its holdoff */
	uint64_t evicted;	   /* the oldest packets given up for room */
	uint64_t too_big;	   /* packets larger than --flight-size */
	uint64_t held, held_bytes; /* in memory now */
};

enum ps_flight_state {
	PS_FLIGHT_WAITING,
	PS_FLIGHT_INCIDENT,
};

struct ps_flight {
	struct ps_sink sink;
	struct ps_flight_cfg cfg;
	struct ps_flight_out out;
	const struct ps_target *targets; /* the capture's */
	struct ps_trigger trig[PS_FLIGHT_TRIGGERS_MAX];
	struct ps_flightbuf buf;
	enum ps_flight_state state;
	uint64_t trigger_ns;	   /* the incident's trigger (wall clock) */
	uint64_t start_ns, end_ns; /* its window */
	uint64_t trigger_id;	   /* the trigger packet's id; none: by hand */
	bool trigger_packet;
	char trigger_note[160]; /* "trigger=udp port 9" */
	uint64_t holdoff_until_ns;
	struct ps_flight_stats st;
	bool done; /* --incidents reached: the capture ends */
	int error; /* sticky */
};

/*
 * Parse the triggers and take the memory. targets: the capture's (the
 * recorder reads a packet's link type there, and hands it on). 0, or -EINVAL (err says which trigger and
 * why), -ENOMEM.
 */
int ps_flight_init(struct ps_flight *fl, const struct ps_flight_cfg *cfg,
		   const struct ps_flight_out *out, const struct ps_target *targets, char *err,
		   size_t errlen);
void ps_flight_free(struct ps_flight *fl);
/* The sink to register with the ingest, in the file's place. */
struct ps_sink *ps_flight_sink(struct ps_flight *fl);
/* SIGUSR2: an incident now (now_ns on the packets' clock), if none is
 * under way. */
void ps_flight_trigger_now(struct ps_flight *fl, uint64_t now_ns);
/*
 * The clock (now_ns on the packets' clock, which does not step with the
 * wall's): packets older than the window go, and an
 * incident whose window the clock left by more than hold_ns (what the
 * merge may still hold) is written. 0, 1: --incidents reached (the
 * capture ends), or -errno (the file's error, logged).
 */
int ps_flight_tick(struct ps_flight *fl, uint64_t now_ns, uint64_t hold_ns);
/* When the next tick is due (the packets' clock), for the loop's timer: the end
 * of an incident, else 0 (none of its own). */
uint64_t ps_flight_due_ns(const struct ps_flight *fl, uint64_t hold_ns);
void ps_flight_stats(const struct ps_flight *fl, struct ps_flight_stats *st);
/* Drop reasons the triggers name, for the capture to check against the
 * kernel's: the i-th, or NULL past the last. */
const char *ps_flight_reason(const struct ps_flight *fl, int i);

#endif
