// SPDX-License-Identifier: GPL-2.0-only
/* RADIUS, as tcpdump 4.99's print-radius.c prints it without -v. */
#include "print.h"

#define MIN_RADIUS_LEN 20

static const char *command(uint8_t code)
{
	static const char *const low[] = {
		NULL,
		"Access-Request",
		"Access-Accept",
		"Access-Reject",
		"Accounting-Request",
		"Accounting-Response",
	};
	static const char *const high[] = {
		"Disconnect-Request", "Disconnect-ACK", "Disconnect-NAK",
		"CoA-Request",	      "CoA-ACK",	"CoA-NAK",
	};

	if (code >= 1 && code <= 5)
		return low[code];
	if (code == 11)
		return "Access-Challenge";
	if (code == 12)
		return "Status-Server";
	if (code == 13)
		return "Status-Client";
	if (code >= 40 && code <= 45)
		return high[code - 40];
	if (code == 255)
		return "Reserved";
	return "Unknown Command";
}

void ps_radius_print(struct ps_print_ctx *c, const uint8_t *dat, uint32_t length)
{
	uint32_t len;

	c->proto = "radius";
	if (!have(c, dat, MIN_RADIUS_LEN)) {
		local_trunc(c);
		return;
	}
	len = be16(dat + 2);
	if (len < MIN_RADIUS_LEN) {
		local_trunc(c);
		return;
	}
	if (len > length)
		len = length;
	ps_put(c, "RADIUS, %s (%u), id: 0x%02x length: %u", command(dat[0]), dat[0], dat[1], len);
}

/* SSH's version line, when a segment starts with one (print-ssh.c). */
void ps_ssh_print(struct ps_print_ctx *c, const uint8_t *p, uint32_t len)
{
	uint32_t idx;

	c->proto = "ssh";
	for (uint32_t k = 0; k < 4; k++) {
		if (!need(c, p + k, 1))
			return;
		if (p[k] != "SSH-"[k])
			return;
	}
	if (ps_text_line(c, p, 4, len, false, &idx) != PS_LINE_END)
		return;
	ps_put(c, ": SSH: %.*s", (int)idx, (const char *)p);
}
