// SPDX-License-Identifier: GPL-2.0-only
/* Ethernet's configuration testing protocol, "loopback" (ethertype
 * 0x9000), as tcpdump 4.99's print-loopback.c prints it: the skip count,
 * then the first message past it. Its numbers are little endian. */
#include "print.h"

#define LOOPBACK_REPLY 1
#define LOOPBACK_FWDDATA 2

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

/* The bytes past a check: there to the end, or the decode is cut. */
static void put_invalid(struct ps_print_ctx *c, const uint8_t *p, uint32_t len)
{
	ps_put(c, " (invalid)");
	need(c, p, len);
}

static void message_print(struct ps_print_ctx *c, const uint8_t *p, uint32_t len)
{
	uint16_t function;

	if (len < 2)
		goto invalid;
	if (!need(c, p, 2))
		return;
	function = le16(p);
	p += 2;
	len -= 2;
	if (function == LOOPBACK_REPLY)
		ps_put(c, ", Reply");
	else if (function == LOOPBACK_FWDDATA)
		ps_put(c, ", Forward Data");
	else
		ps_put(c, ",  invalid (%u)", function);
	if (function == LOOPBACK_REPLY) {
		if (len < 2)
			goto invalid;
		if (!need(c, p, 2))
			return;
		ps_put(c, ", receipt number %u", le16(p));
		p += 2;
		len -= 2;
		ps_put(c, ", data (%u octets)", len);
	} else if (function == LOOPBACK_FWDDATA) {
		if (len < 6)
			goto invalid;
		if (!need(c, p, 6))
			return;
		ps_put(c, ", forwarding address %s", mac_str(p).s);
		p += 6;
		len -= 6;
		ps_put(c, ", data (%u octets)", len);
	}
	need(c, p, len);
	return;
invalid:
	put_invalid(c, p, len);
}

void ps_loopback_print(struct ps_print_ctx *c, const uint8_t *p, uint32_t len)
{
	uint16_t skip;

	c->proto = "loopback";
	ps_put(c, "Loopback");
	if (len < 2)
		goto invalid;
	if (!need(c, p, 2))
		return;
	skip = le16(p);
	p += 2;
	len -= 2;
	ps_put(c, ", skipCount %u", skip);
	if (skip % 8)
		ps_put(c, " (bogus)");
	if (skip > len)
		goto invalid;
	if (!need(c, p, skip))
		return;
	message_print(c, p + skip, len - skip);
	return;
invalid:
	put_invalid(c, p, len);
}
