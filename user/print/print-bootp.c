// SPDX-License-Identifier: GPL-2.0-only
/* BOOTP/DHCP and DHCPv6, as tcpdump 4.99's print-bootp.c and
 * print-dhcp6.c print them without -v: the operation, the client's MAC
 * for a request, the message type. */
#include "print.h"

void ps_bootp_print(struct ps_print_ctx *c, const uint8_t *bp, uint32_t length)
{
	c->proto = "bootp";
	if (!need(c, bp, 1))
		return;
	if (bp[0] == 1 || bp[0] == 2)
		ps_put(c, "BOOTP/DHCP, %s", bp[0] == 1 ? "Request" : "Reply");
	else
		ps_put(c, "BOOTP/DHCP, unknown (0x%02x)", bp[0]);
	if (!need(c, bp + 1, 2))
		return;
	if (bp[1] == 1 && bp[2] == 6 && bp[0] == 1) {
		if (!need(c, bp + 28, 6))
			return;
		ps_put(c, " from %s", mac_str(bp + 28).s);
	}
	ps_put(c, ", length %u", length);
}

void ps_dhcp6_print(struct ps_print_ctx *c, const uint8_t *bp, uint32_t length)
{
	static const char *const names[] = {
		NULL,	     "solicit",	    "advertise",   "request",
		"confirm",   "renew",	    "rebind",	   "reply",
		"release",   "decline",	    "reconfigure", "inf-req",
		"relay-fwd", "relay-reply", "leasequery",  "leasequery-reply",
	};

	(void)length;
	c->proto = "dhcp6";
	ps_put(c, "dhcp6");
	if (!have(c, bp, 4)) {
		local_trunc(c);
		return;
	}
	if (bp[0] && bp[0] < sizeof(names) / sizeof(names[0]))
		ps_put(c, " %s", names[bp[0]]);
	else
		ps_put(c, " msgtype-%u", bp[0]);
}
