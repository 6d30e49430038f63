// SPDX-License-Identifier: GPL-2.0-only
/* Linux cooked captures (LINKTYPE_LINUX_SLL: tcpdump -i any before
 * libpcap 1.10; LINKTYPE_LINUX_SLL2 after), as tcpdump 4.99's print-sll.c
 * prints them. Both carry the same payloads after different headers. */
#include "print.h"

#define SLL_HDR_LEN 16

static const char *pkttype_name(uint16_t t)
{
	static const char *const names[] = { "In", "B", "M", "P", "Out" };

	return t < 5 ? names[t] : "?";
}

#define SLL2_HDR_LEN 20

/* Where the two headers keep what the body needs. */
struct sll_hdr {
	const uint8_t *h;
	bool v2;
	uint32_t len;
	uint16_t type, hatype;
};

/* -e's words for the header, or tcpdump's line for a protocol it does
 * not know. */
static void sll_hdr_print(struct ps_print_ctx *c, const struct sll_hdr *s, uint32_t length)
{
	const uint8_t *h = s->h;
	uint16_t type = s->type;

	if (s->v2) {
		ps_put(c, "ifindex %u ", be32(h + 4));
		if (h[11] == 6)
			ps_put(c, "%s ", mac_str(h + 12).s);
	} else {
		ps_put(c, "%3s ", pkttype_name(be16(h)));
		if (be16(h + 4) == 6)
			ps_put(c, "%s ", mac_str(h + 6).s);
	}
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

static uint32_t sll_body(struct ps_print_ctx *c, const struct sll_hdr *s, const uint8_t *p,
			 uint32_t length, uint32_t caplen)
{
	uint32_t hdrlen = s->len;
	uint16_t type = s->type;

	if (c->d->link)
		sll_hdr_print(c, s, length);
	length -= s->len;
	caplen -= s->len;
	p += s->len;
	if (s->hatype == 803) /* 802.11 radiotap: tcpdump prints it; we do not */
		return hdrlen;
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
			sll_hdr_print(c, s, length + s->len);
		unknown(c, p, caplen, false);
	}
	return hdrlen;
}

uint32_t ps_sll_print(struct ps_print_ctx *c, const uint8_t *p, uint32_t length, uint32_t caplen)
{
	c->proto = "sll";
	if (!need(c, p, SLL_HDR_LEN))
		return 0;
	return sll_body(c,
			&(struct sll_hdr){ .h = p,
					   .len = SLL_HDR_LEN,
					   .type = be16(p + 14),
					   .hatype = be16(p + 2) },
			p, length, caplen);
}

uint32_t ps_sll2_print(struct ps_print_ctx *c, const uint8_t *p, uint32_t length, uint32_t caplen)
{
	char name[64];

	c->proto = "sll2";
	if (!need(c, p, SLL2_HDR_LEN))
		return 0;
	/* As tcpdump: the interface's name on the machine that reads the
	 * file, "?" where it has none by that index. */
	ps_put(c, "%-5s ",
	       c->d->ifname && c->d->ifname(be32(p + 4), name, sizeof(name)) ? name : "?");
	ps_put(c, "%-3s ", pkttype_name(p[10]));
	return sll_body(c,
			&(struct sll_hdr){ .h = p,
					   .v2 = true,
					   .len = SLL2_HDR_LEN,
					   .type = be16(p),
					   .hatype = be16(p + 8) },
			p, length, caplen);
}
