/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What starts a flight recorder's incident (--trigger): a packet that
 * matches a tcpdump expression, at any hook the capture has, or a kernel
 * drop ("drop"), or one for a reason ("drop:NO_SOCKET"). An expression is
 * compiled by libpcap for each link type the first time a packet of that
 * type is asked about, and run by libpcap's interpreter on the bytes the
 * file gets.
 *
 * Pure but for libpcap's compiler; unit-tested (tests/unit/test_flight.c).
 */
#ifndef PS_TRIGGER_H
#define PS_TRIGGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "cbpf.h"
#include "sink.h"

#define PS_TRIGGER_LINKTYPES 4

enum ps_trigger_kind {
	PS_TRIGGER_FILTER,
	PS_TRIGGER_DROP,
};

struct ps_trigger {
	enum ps_trigger_kind kind;
	const char *text;   /* as given: "udp port 9", "drop:NO_SOCKET" */
	const char *reason; /* drop:REASON's REASON; NULL: any drop */
	uint32_t snaplen;
	/* The expression per link type, compiled when first needed. */
	struct {
		int linktype;
		struct ps_cbpf_insn *insns;
		size_t n;
	} prog[PS_TRIGGER_LINKTYPES];
	int n_prog;
};

/*
 * Parse text (kept, not copied): "drop", "drop:REASON" (REASON as the
 * kernel's enum skb_drop_reason names it, with or without its
 * SKB_DROP_REASON_ prefix), or an expression, compiled once for Ethernet
 * to find its errors now. 0, or -EINVAL with the reason in err.
 */
int ps_trigger_parse(struct ps_trigger *t, const char *text, uint32_t snaplen, char *err,
		     size_t errlen);
/* Does p (a packet of the given link type) start an incident? */
bool ps_trigger_match(struct ps_trigger *t, const struct ps_sink_pkt *p, int linktype);
void ps_trigger_free(struct ps_trigger *t);

#endif
