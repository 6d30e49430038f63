// SPDX-License-Identifier: GPL-2.0-only
/* 802.1X EAPOL and the slow protocols (LACP, marker, OAM), as tcpdump
 * 4.99's print-eap.c and print-slow.c print them without -v. */
#include "print.h"

void ps_eapol_print(struct ps_print_ctx *c, const uint8_t *p)
{
	static const char *const types[] = {
		"EAP packet", "EAPOL start", "EAPOL logoff", "EAPOL key", "Encapsulated ASF alert",
	};

	c->proto = "eap";
	if (!have(c, p, 4)) {
		local_trunc(c);
		return;
	}
	ps_put(c, "%s (%u) v%u, len %u", p[1] < 5 ? types[p[1]] : "unknown", p[1], p[0],
	       be16(p + 2));
}

void ps_slow_print(struct ps_print_ctx *c, const uint8_t *p, uint32_t len)
{
	static const char *const names[] = { NULL, "LACP", "MARKER", "OAMPDU" };
	int print_version = -1;
	char buf[24];
	const char *name;

	c->proto = "slow";
	if (len < 1)
		goto tooshort;
	if (!need(c, p, 1))
		return;
	if (p[0] == 1 || p[0] == 2) {
		if (len < 2)
			goto tooshort;
		if (!need(c, p + 1, 1))
			return;
		if (p[1] != 1) {
			ps_put(c, "%s version %u packet not supported",
			       p[0] == 1 ? "LACP" : "MARKER", p[1]);
			return;
		}
		print_version = 1;
	} else if (p[0] == 3) {
		print_version = 0;
	}
	if (p[0] >= 1 && p[0] <= 3) {
		name = names[p[0]];
	} else {
		snprintf(buf, sizeof(buf), "unknown (%u)", p[0]);
		name = buf;
	}
	if (print_version == 1)
		ps_put(c, "%sv%u, length %u", name, p[1], len);
	else
		ps_put(c, "%s, length %u", name, len);
	if (print_version == -1)
		ps_hex_print(c, "\n\t", p, len);
	return;
tooshort:
	ps_put(c, " (packet is too short)");
}
