// SPDX-License-Identifier: GPL-2.0-only
/* VRRP v2 and v3, as tcpdump 4.99's print-vrrp.c prints it without -v. */
#include "print.h"

void ps_vrrp_print(struct ps_print_ctx *c, const uint8_t *bp, uint32_t len, unsigned int ttl)
{
	unsigned int version, type;

	c->proto = "vrrp";
	ps_put(c, "VRRP");
	if (!need(c, bp, 1))
		return;
	version = bp[0] >> 4;
	type = bp[0] & 0x0f;
	if (type == 1)
		ps_put(c, "v%u, Advertisement", version);
	else
		ps_put(c, "v%u, unknown type (%u)", version, type);
	if (ttl != 255)
		ps_put(c, ", (ttl %u)", ttl);
	if (version < 2 || version > 3 || type != 1)
		return;
	if (!need(c, bp + 1, 2))
		return;
	ps_put(c, ", vrid %u, prio %u", bp[1], bp[2]);
	if (!need(c, bp + 4, 2))
		return;
	if (version == 2) {
		static const char *const auth[] = { "none", "simple", "ah" };

		if (bp[4] < 3)
			ps_put(c, ", authtype %s", auth[bp[4]]);
		else
			ps_put(c, ", authtype #%u", bp[4]);
		ps_put(c, ", intvl %us, length %u", bp[5], len);
	} else {
		ps_put(c, ", intvl %ucs, length %u", (bp[4] & 0x0f) << 8 | bp[5], len);
	}
}
