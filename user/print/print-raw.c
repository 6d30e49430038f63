// SPDX-License-Identifier: GPL-2.0-only
/* Raw IP link types (LINKTYPE_RAW, IPV4, IPV6), as tcpdump 4.99's
 * print-raw.c and ipN_print() print them. */
#include "print.h"

void ps_raw_print(struct ps_print_ctx *c, const uint8_t *p, uint32_t length)
{
	c->proto = "raw";
	if (c->d->link)
		ps_put(c, "ip: ");
	c->proto = "ipn";
	if (length < 1) {
		ps_put(c, "truncated-ip %u", length);
		return;
	}
	if (!need(c, p, 1))
		return;
	switch (p[0] & 0xf0) {
	case 0x40:
		ps_ip_print(c, p, length);
		break;
	case 0x60:
		ps_ip6_print(c, p, length);
		break;
	default:
		ps_put(c, "unknown ip %u", p[0] >> 4);
		break;
	}
}
