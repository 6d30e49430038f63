// SPDX-License-Identifier: GPL-2.0-only
/* Geneve (RFC 8926), as tcpdump 4.99's print-geneve.c prints it without
 * -v: flags, VNI, the options' length, then what it carries. */
#include <string.h>
#include "print.h"

void ps_geneve_print(struct ps_print_ctx *c, const uint8_t *bp, uint32_t len)
{
	static const char *const flag_names[] = { "O", "C", "R1", "R2", "R3", "R4", "R5", "R6" };
	uint32_t opts_len;
	uint16_t prot;
	char flags[24] = "";

	c->proto = "geneve";
	ps_put(c, "Geneve");
	if (len < 8) {
		ps_put(c, " [length %u < 8] (invalid)", len);
		return;
	}
	if (!have(c, bp, 8)) {
		local_trunc(c);
		return;
	}
	if (bp[0] >> 6) {
		ps_put(c, " ERROR: unknown-version %u", bp[0] >> 6);
		return;
	}
	for (int k = 0; k < 8; k++)
		if (bp[1] & (0x80 >> k))
			strcat(flags, flag_names[k]);
	prot = be16(bp + 2);
	ps_put(c, ", Flags [%s]", flags[0] ? flags : "none");
	ps_put(c, ", vni 0x%x", be24(bp + 4));
	if (bp[7])
		ps_put(c, ", rsvd 0x%x", bp[7]);
	if (c->d->link) {
		const char *name = ps_ethertype_name(prot);

		ps_put(c, ", proto %s (0x%04x)", name ? name : "unknown", prot);
	}
	opts_len = (bp[0] & 0x3f) * 4u;
	bp += 8;
	len -= 8;
	if (len < opts_len) {
		ps_put(c, " truncated-geneve - %u bytes missing", opts_len - len);
		return;
	}
	if (!have(c, bp, opts_len)) {
		local_trunc(c);
		return;
	}
	if (opts_len)
		ps_put(c, ", options [%u bytes]", opts_len);
	bp += opts_len;
	len -= opts_len;
	ps_put(c, ": ");
	if (!ps_ethertype_print(c, prot, bp, len)) {
		if (prot == 0x6558)
			ps_ether_inner(c, bp, len);
		else
			ps_put(c, "geneve-proto-0x%x", prot);
	}
}
