// SPDX-License-Identifier: GPL-2.0-only
/* NTP, as tcpdump 4.99's print-ntp.c prints it without -v. */
#include "print.h"

void ps_ntp_print(struct ps_print_ctx *c, const uint8_t *bp, uint32_t length)
{
	static const char *const modes[] = {
		"unspecified", "symmetric active", "symmetric passive", "Client",
		"Server",      "Broadcast",	   "Control Message",	"Reserved",
	};

	c->proto = "ntp";
	if (!need(c, bp, 1))
		return;
	ps_put(c, "NTPv%u, %s, length %u", (bp[0] & 0x38) >> 3, modes[bp[0] & 7], length);
}
