// SPDX-License-Identifier: GPL-2.0-only
/* Cisco's Dynamic Trunking Protocol (SNAP, OUI 00000c, PID 0x2004), as
 * tcpdump 4.99's print-dtp.c prints it without -v: version and length. */
#include "print.h"

void ps_dtp_print(struct ps_print_ctx *c, const uint8_t *p, uint32_t length)
{
	c->proto = "dtp";
	if (length < 1) {
		ps_put(c, "[zero packet length] (invalid)");
		return;
	}
	if (!need(c, p, 1))
		return;
	ps_put(c, "DTPv%u, length %u", p[0], length);
}
