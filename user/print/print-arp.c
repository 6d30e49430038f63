// SPDX-License-Identifier: GPL-2.0-only
#include "print.h"

/* A link address of hln bytes (tcpdump's linkaddr_string): a MAC when it
 * has a MAC's length, else its bytes in hex; all of them are captured. */
static void put_linkaddr(struct ps_print_ctx *c, const uint8_t *p, uint8_t hln)
{
	if (hln == 6) {
		ps_put(c, "%s", mac_str(p).s);
		return;
	}
	for (int i = 0; i < hln; i++)
		ps_put(c, i ? ":%02x" : "%02x", p[i]);
}

/* Not IPv4 over a link address: tcpdump names the types only. */
static void types_only(struct ps_print_ctx *c, uint16_t hrd, uint16_t pro, uint8_t hln, uint8_t pln,
		       uint32_t length)
{
	const char *pname = ps_ethertype_name(pro);

	if (hrd == 1)
		ps_put(c, "Ethernet (len %u), ", hln);
	else
		ps_put(c, "Unknown Hardware (%u) (len %u), ", hrd, hln);
	if (pname)
		ps_put(c, "%s (len %u)", pname, pln);
	else
		ps_put(c, "Unknown Protocol (0x%04x) (len %u)", pro, pln);
	ps_put(c, ", length %u", length);
}

void ps_arp_print(struct ps_print_ctx *c, const uint8_t *ap, uint32_t length)
{
	static const char *const ops[11] = {
		[1] = "Request",       [2] = "Reply",		[3] = "Reverse Request",
		[4] = "Reverse Reply", [8] = "Inverse Request", [9] = "Inverse Reply",
		[10] = "NACK Reply",
	};
	uint16_t hrd, pro, op;
	uint8_t hln, pln;
	const uint8_t *sha, *spa, *tha, *tpa;

	c->proto = "arp";
	if (!need(c, ap, 8))
		return;
	hrd = be16(ap);
	pro = be16(ap + 2);
	hln = ap[4];
	pln = ap[5];
	op = be16(ap + 6);
	sha = ap + 8;
	spa = sha + hln;
	tha = spa + pln;
	tpa = tha + hln;
	if (!need(c, tpa, pln))
		return;
	if (!c->d->link)
		ps_put(c, "ARP, ");
	if ((pro != 0x0800 && pro != 0x1000) || pln != 4 || hln == 0) {
		types_only(c, hrd, pro, hln, pln, length);
		return;
	}
	if (op < 11 && ops[op])
		ps_put(c, "%s ", ops[op]);
	else
		ps_put(c, "Unknown (%u) ", op);
	/* Link addresses of Ethernet length print as MACs, others as hex. */
	switch (op) {
	case 1: {
		bool nonzero = false;

		for (int i = 0; i < hln; i++)
			nonzero |= tha[i] != 0;
		ps_put(c, "who-has %s", ip4_str(tpa).s);
		if (nonzero) {
			ps_put(c, " (");
			put_linkaddr(c, tha, hln);
			ps_put(c, ")");
		}
		ps_put(c, " tell %s", ip4_str(spa).s);
		break;
	}
	case 2:
		ps_put(c, "%s is-at ", ip4_str(spa).s);
		put_linkaddr(c, sha, hln);
		break;
	case 3:
	case 8:
		ps_put(c, "who-is ");
		put_linkaddr(c, tha, hln);
		ps_put(c, " tell ");
		put_linkaddr(c, sha, hln);
		break;
	case 4:
		put_linkaddr(c, tha, hln);
		ps_put(c, " at %s", ip4_str(tpa).s);
		break;
	case 9:
		put_linkaddr(c, sha, hln);
		ps_put(c, " at %s", ip4_str(spa).s);
		break;
	default:
		unknown(c, ap, avail(c, ap), false);
		return;
	}
	ps_put(c, ", length %u", length);
}
