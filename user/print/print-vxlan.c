// SPDX-License-Identifier: GPL-2.0-only
/* VXLAN (RFC 7348), as tcpdump 4.99's print-vxlan.c prints it: the
 * header's line, then the Ethernet frame it carries on a line of its own. */
#include "print.h"

void ps_vxlan_print(struct ps_print_ctx *c, const uint8_t *bp, uint32_t len)
{
	c->proto = "vxlan";
	ps_put(c, "VXLAN");
	if (len < 8) {
		ps_put(c, " (invalid)");
		return;
	}
	if (!need(c, bp, 1))
		return;
	ps_put(c, ", flags [%s] (0x%02x), ", bp[0] & 0x08 ? "I" : "invalid", bp[0]);
	if (!need(c, bp + 4, 3))
		return;
	ps_put(c, "vni %u\n", be24(bp + 4));
	if (!need(c, bp + 7, 1)) /* tcpdump's checks there abandon the decode */
		return;
	ps_ether_inner(c, bp + 8, len - 8);
}
