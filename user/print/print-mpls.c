// SPDX-License-Identifier: GPL-2.0-only
/* MPLS label stacks (RFC 3032), as tcpdump 4.99's print-mpls.c prints
 * them without -v, and the packet under them where the labels or its
 * first byte say what it is. */
#include "print.h"

void ps_mpls_print(struct ps_print_ctx *c, const uint8_t *bp, uint32_t length)
{
	const uint8_t *p = bp;
	uint32_t entry, label;
	uint8_t first;
	int pt = 0; /* 4, 6, or 0: unknown */

	c->proto = "mpls";
	ps_put(c, "MPLS");
	do {
		if (length < 4) {
			ps_put(c, " (invalid)");
			if (!have(c, p, length))
				c->jumped = true;
			return;
		}
		if (!need(c, p, 4))
			return;
		entry = be32(p);
		ps_put(c, " (label %u, tc %u", entry >> 12, (entry >> 9) & 7);
		if (entry & 0x100)
			ps_put(c, ", [S]");
		ps_put(c, ", ttl %u)", entry & 0xff);
		p += 4;
		length -= 4;
	} while (!(entry & 0x100));
	label = entry >> 12;
	if (label == 0 || label == 3) {
		pt = 4;
	} else if (label == 2) {
		pt = 6;
	} else {
		if (length < 1)
			return;
		if (!need(c, p, 1))
			return;
		first = p[0];
		pt = first >= 0x45 && first <= 0x4f ? 4 : first >= 0x60 && first <= 0x6f ? 6 : 0;
		if (first >= 0x81 && first <= 0x83)
			return; /* OSI: tcpdump prints it, we do not */
	}
	if (pt == 4) {
		ps_put(c, " ");
		ps_ip_print(c, p, length);
	} else if (pt == 6) {
		ps_put(c, " ");
		ps_ip6_print(c, p, length);
	} else {
		unknown(c, p, length, false);
	}
}
