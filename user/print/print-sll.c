// SPDX-License-Identifier: GPL-2.0-only
/* Linux cooked captures (LINKTYPE_LINUX_SLL: tcpdump -i any before
 * libpcap 1.10), as tcpdump 4.99's print-sll.c prints them. */
#include "print.h"

#define SLL_HDR_LEN 16

static const char *pkttype_name(uint16_t t)
{
	static const char *const names[] = { "In", "B", "M", "P", "Out" };

	return t < 5 ? names[t] : "?";
}

/* -e's words for the header, or tcpdump's line for a protocol it does
 * not know. */
static void sll_hdr_print(struct ps_print_ctx *c, const uint8_t *h, uint32_t length)
{
	uint16_t type = be16(h + 14);

	ps_put(c, "%3s ", pkttype_name(be16(h)));
	if (be16(h + 4) == 6)
		ps_put(c, "%s ", mac_str(h + 6).s);
	if (c->d->quiet)
		return;
	if (type <= 1500) {
		if (type == 1)
			ps_put(c, "802.3");
		else if (type == 4)
			ps_put(c, "802.2");
		else
			ps_put(c, "ethertype Unknown (0x%04x)", type);
	} else {
		const char *name = ps_ethertype_name(type);

		ps_put(c, "ethertype %s (0x%04x)", name ? name : "Unknown", type);
	}
	ps_put(c, ", length %u: ", length);
}

uint32_t ps_sll_print(struct ps_print_ctx *c, const uint8_t *p, uint32_t length, uint32_t caplen)
{
	const uint8_t *h = p;
	uint32_t hdrlen = SLL_HDR_LEN;
	uint16_t type;

	c->proto = "sll";
	if (!need(c, p, SLL_HDR_LEN))
		return 0;
	if (c->d->link)
		sll_hdr_print(c, h, length);
	length -= SLL_HDR_LEN;
	caplen -= SLL_HDR_LEN;
	p += SLL_HDR_LEN;
	if (be16(h + 2) == 803) /* 802.11 radiotap: tcpdump prints it; we do not */
		return hdrlen;
	type = be16(h + 14);
	for (;;) {
		if (type <= 1500) {
			int llc = 0;

			/* 802.2 LLC; raw 802.3 IPX: tcpdump prints it, we do not. */
			if (type == 4)
				llc = ps_llc_print(c, p, length, caplen, NULL, NULL);
			if (llc < 0 || (type != 1 && type != 4))
				unknown(c, p, caplen, false);
			return hdrlen + (uint32_t)(llc < 0 ? -llc : llc);
		}
		if (type != 0x8100)
			break;
		if (caplen < 4) {
			c->proto = "vlan";
			local_trunc(c);
			return hdrlen + caplen;
		}
		if (!need(c, p, 4))
			return hdrlen;
		if (c->d->link) {
			uint16_t tci = be16(p);

			ps_put(c, "vlan %u, p %u%s, ", tci & 0xfff, tci >> 13,
			       tci & 0x1000 ? ", DEI" : "");
		}
		type = be16(p + 2);
		if (type <= 1500)
			type = 4;
		if (!c->d->quiet) {
			const char *name = ps_ethertype_name(type);

			ps_put(c, "ethertype %s, ", name ? name : "Unknown");
		}
		p += 4;
		length -= 4;
		caplen -= 4;
		hdrlen += 4;
	}
	if (!ps_ethertype_print(c, type, p, length)) {
		if (!c->d->link)
			sll_hdr_print(c, h, length + SLL_HDR_LEN);
		unknown(c, p, caplen, false);
	}
	return hdrlen;
}
