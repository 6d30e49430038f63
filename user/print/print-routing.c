// SPDX-License-Identifier: GPL-2.0-only
/* Routing protocols as tcpdump 4.99 prints them without -v: OSPFv2 and
 * v3 (print-ospf.c, print-ospf6.c), RIP (print-rip.c) and BGP
 * (print-bgp.c, which names itself and says more only with -v). */
#include "print.h"

static const char *ospf_type(uint8_t type)
{
	static const char *const names[] = {
		NULL, "Hello", "Database Description", "LS-Request", "LS-Update", "LS-Ack",
	};

	return type >= 1 && type <= 5 ? names[type] : NULL;
}

void ps_ospf_print(struct ps_print_ctx *c, const uint8_t *bp, uint32_t length, int ver)
{
	const char *name;

	c->proto = ver == 6 ? "ospf3" : "ospf2";
	if (ver != 6) {
		if (!need(c, bp + 14, 2))
			return;
		if (be16(bp + 14) == 2) /* MD5: its digest is past the length */
			length -= 16;
	}
	if (!need(c, bp, 2))
		return;
	name = ospf_type(bp[1]);
	if (name)
		ps_put(c, "OSPFv%u, %s, length %u", bp[0], name, length);
	else if (ver == 6)
		ps_put(c, "OSPFv%u, unknown packet type (%u), length %u", bp[0], bp[1], length);
	else
		ps_put(c, "OSPFv%u, unknown LS-type %u, length %u", bp[0], bp[1], length);
}

void ps_rip_print(struct ps_print_ctx *c, const uint8_t *dat, uint32_t length)
{
	static const char *const cmds[] = {
		NULL, "Request", "Response", "Trace on", "Trace off", "Poll", "Poll Entry",
	};
	uint32_t len = avail(c, dat);

	c->proto = "rip";
	if (len > length)
		len = length;
	if (len < 4) {
		local_trunc(c);
		return;
	}
	ps_put(c, "RIPv%u", dat[1]);
	if (dat[1] == 0) {
		ps_hex_print(c, "\n\t", dat, length);
		return;
	}
	if (dat[0] >= 1 && dat[0] <= 6)
		ps_put(c, ", %s, length: %u", cmds[dat[0]], length);
	else
		ps_put(c, ", unknown command (%u), length: %u", dat[0], length);
}

void ps_bgp_print(struct ps_print_ctx *c, const uint8_t *dat, uint32_t length)
{
	(void)dat;
	(void)length;
	c->proto = "bgp";
	ps_put(c, ": BGP");
}
