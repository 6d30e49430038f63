/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * -r FILE --path: a line per packet, not per record. The records of one
 * packet share its epb_packetid (--packet-id path writes them so, as
 * xdpdump does for entry and exit); the line is its first record's, with
 * the places it was written in order and the time between them where the
 * interface and hook go, and a drop's reason where the direction goes:
 *
 *   12:00:00.123456 tc-ingress@paA +23.482us tc-egress@paB IP 192.0.2.2 > ...
 *   12:00:00.223456 tc-ingress@paA +31.004us drop@paA IP_NOROUTE IP 192.0.2.2 > ...
 *
 * A packet is printed once a drop ended it, once the file has gone a
 * second past its last record without another (the programs do not
 * follow a packet across a longer gap: bpf/path.bpf.h), or at the end; in
 * the order of first records, so a packet waits for those before it. At
 * most PS_READPATH_HELD packets wait: past that the oldest is printed as
 * far as it got. A record without an id is a packet of its own.
 */
#ifndef PS_READPATH_H
#define PS_READPATH_H

#include <stdint.h>
#include "capread.h"
#include "printer.h"

#define PS_READPATH_HELD 65536

struct ps_readpath;

/* Print through pr, at most limit packets (0: all). NULL without memory. */
struct ps_readpath *ps_readpath_new(struct ps_printer *pr, uint64_t limit);
/* One packet record, in file order: 0, 1 once limit packets are printed,
 * or -errno of the printer or of memory. */
int ps_readpath_add(struct ps_readpath *p, const struct ps_capread_rec *rec);
/* The end of the file: print what waits. 0, 1 as above, or -errno. */
int ps_readpath_finish(struct ps_readpath *p);
void ps_readpath_free(struct ps_readpath *p);

#endif
