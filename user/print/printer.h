/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The live view and -r: one line per packet, as `tcpdump -n` prints it,
 * after what only pktsample knows: the interface, the hook and the
 * direction. The same printer serves the capture (packets from the
 * ingest) and -r (packets from a file), so both read alike.
 *
 *   12:00:00.123456 eth0 xdp In IP 10.0.0.1.443 > 10.0.0.2.51234: Flags ...
 *
 * Writes to a FILE and nothing else (tests print into a memory stream).
 * In a capture it is one of the sinks (user/ingest/sink.h).
 */
#ifndef PS_PRINTER_H
#define PS_PRINTER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "decode.h"
#include "sink.h"

/* Timestamps as tcpdump's -t options count them. */
enum ps_ts_format {
	PS_TS_DEFAULT = 0,     /* local time of day, microseconds */
	PS_TS_NONE = 1,	       /* -t */
	PS_TS_UNIX = 2,	       /* -tt: seconds since the epoch */
	PS_TS_DELTA = 3,       /* -ttt: since the previous packet */
	PS_TS_DATE = 4,	       /* -tttt: date and local time */
	PS_TS_SINCE_FIRST = 5, /* -ttttt: since the first packet */
};

struct ps_print_opts {
	unsigned int ts;	/* enum ps_ts_format */
	unsigned int hex;	/* -x: 1 after the link header, 2 (-xx) all */
	unsigned int hex_ascii; /* -X, -XX */
	unsigned int ascii;	/* -A */
	bool link;		/* -e */
	bool quiet;		/* -q */
	bool annotate;		/* -v: queue, CPU, packet id, drops, sampling */
};

/* One packet and what is known about it; NULL/false for what is not. */
struct ps_print_pkt {
	uint64_t ts_ns; /* wall clock */
	int linktype;	/* PS_LINKTYPE_* */
	const uint8_t *data;
	uint32_t cap_len, wire_len;
	const char *ifname;
	const char *hook; /* "xdp", "tc-ingress", "tc-egress", ... */
	int direction;	  /* 0 unknown, 1 in, 2 out (pcapng epb_flags) */
	/* xdp-exit: the traced program's verdict ("drop"); drop hooks: the
	 * reason ("NO_SOCKET"); printed where
	 * the direction goes; NULL elsewhere. */
	const char *verdict;
	const char *comment; /* our EPB comment: hook=... cpu=... queue=... */
	bool has_id;
	uint64_t id;
	bool has_drops;
	uint64_t drops;
};

struct ps_printer {
	struct ps_sink sink; /* as the capture's live view (ps_printer_sink) */
	const char *tag;     /* its packets' sampling tag, for -v */
	struct ps_print_opts o;
	struct ps_decoder dec;
	FILE *f;
	bool have_ref;
	uint64_t ref_us; /* -ttt: previous packet; -ttttt: first */
	char text[16384];
};

void ps_printer_init(struct ps_printer *p, const struct ps_print_opts *o, FILE *f);
void ps_printer_free(struct ps_printer *p);
/* Print one packet's line (and dumps); 0 or -errno of the write. */
int ps_print_packet(struct ps_printer *p, const struct ps_print_pkt *pkt);
/* Flush what is buffered; 0 or -errno. */
int ps_printer_flush(struct ps_printer *p);
/* The printer as a capture's sink (user/ingest/sink.h): a line per packet, out
 * once a round; tag: the sampling's, for -v's annotation. */
struct ps_sink *ps_printer_sink(struct ps_printer *p, const char *tag);

#endif
