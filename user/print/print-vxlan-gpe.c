// SPDX-License-Identifier: GPL-2.0-only
/* VXLAN-GPE (draft-ietf-nvo3-vxlan-gpe), as tcpdump 4.99's
 * print-vxlan-gpe.c prints it without -v. */
#include "print.h"

void ps_vxlan_gpe_print(struct ps_print_ctx *c, const uint8_t *bp, uint32_t len)
{
	static const char bits[] = { 'I', 'P', 'B', 'O' }; /* 0x08, 0x04, 0x02, 0x01 */
	char flags[5];
	size_t n = 0;

	c->proto = "vxlan_gpe";
	ps_put(c, "VXLAN-GPE, ");
	if (len < 8) {
		ps_put(c, " (len %u < 8) (invalid)", len);
		return;
	}
	if (!need(c, bp, 1))
		return;
	for (int k = 0; k < 4; k++)
		if (bp[0] & (0x08 >> k))
			flags[n++] = bits[k];
	flags[n] = 0;
	ps_put(c, "flags [%s], ", n ? flags : "none");
	if (!need(c, bp + 3, 4))
		return;
	if (!need(c, bp + 7, 1)) /* tcpdump's checks there abandon the decode */
		return;
	ps_put(c, "vni %u: ", be24(bp + 4));
	switch (bp[3]) {
	case 1:
		ps_ip_print(c, bp + 8, len - 8);
		break;
	case 2:
		ps_ip6_print(c, bp + 8, len - 8);
		break;
	case 3:
		ps_ether_inner(c, bp + 8, len - 8);
		break;
	case 4: /* NSH: tcpdump prints it, we do not */
		break;
	default:
		ps_put(c, "ERROR: unknown-next-protocol (invalid)");
		break;
	}
}
