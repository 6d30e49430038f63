// SPDX-License-Identifier: GPL-2.0-only
/* ATA over Ethernet, as tcpdump 4.99's print-aoe.c prints it without -v:
 * its length, version and, for version 1, the header's flags. */
#include "print.h"

#define AOEV1_COMMON_HDR_LEN 10 /* up to the command's argument */

void ps_aoe_print(struct ps_print_ctx *c, const uint8_t *cp, uint32_t len)
{
	static const struct ps_bit flags[] = {
		{ 0x08, "Response" },
		{ 0x04, "Error" },
		{ 0x02, "MBZ-1" },
		{ 0x01, "MBZ-0" },
	};
	unsigned int ver;

	c->proto = "aoe";
	ps_put(c, "AoE length %u", len);
	if (len < 1)
		goto invalid;
	if (!need(c, cp, 1))
		return;
	ver = cp[0] >> 4;
	ps_put(c, ", Ver %u", ver);
	if (ver != 1)
		return;
	if (len < AOEV1_COMMON_HDR_LEN)
		goto invalid;
	ps_put(c, ", Flags: [");
	ps_put_bits(c, flags, sizeof(flags) / sizeof(flags[0]), cp[0] & 0x0f, "none");
	ps_put(c, "]");
	return;
invalid:
	ps_put(c, " (invalid)");
	need(c, cp, len);
}
