// SPDX-License-Identifier: GPL-2.0-only
/* PPPoE (RFC 2516), as tcpdump 4.99's print-pppoe.c prints it: discovery
 * packets with their tags, session packets with the PPP frame inside.
 * Every check there abandons the decode (ND_LONGJMP_FROM_TCHECK). */
#include "print.h"

#define PPPOE_HDRLEN 6
#define MAXTAGPRINT 80

static const char *code_name(uint8_t code, char *buf, size_t n)
{
	switch (code) {
	case 0x09:
		return "PADI";
	case 0x07:
		return "PADO";
	case 0x19:
		return "PADR";
	case 0x65:
		return "PADS";
	case 0xa7:
		return "PADT";
	case 0:
		return ""; /* session data */
	default:
		snprintf(buf, n, "PAD-%x", code);
		return buf;
	}
}

static const char *tag_name(uint16_t tag, char *buf, size_t n)
{
	switch (tag) {
	case 0x0000:
		return "EOL";
	case 0x0101:
		return "Service-Name";
	case 0x0102:
		return "AC-Name";
	case 0x0103:
		return "Host-Uniq";
	case 0x0104:
		return "AC-Cookie";
	case 0x0105:
		return "Vendor-Specific";
	case 0x0110:
		return "Relay-Session-ID";
	case 0x0120:
		return "PPP-Max-Payload";
	case 0x0201:
		return "Service-Name-Error";
	case 0x0202:
		return "AC-System-Error";
	case 0x0203:
		return "Generic-Error";
	default:
		snprintf(buf, n, "TAG-0x%x", tag);
		return buf;
	}
}

/* One tag's value: as text when most of it prints, else in hex. */
static bool tag_print(struct ps_print_ctx *c, const char *name, const uint8_t *v, uint16_t len)
{
	char text[MAXTAGPRINT];
	unsigned int n = 0, ascii = 0, garbage = 0;

	if (!need(c, v, len))
		return false;
	for (const uint8_t *q = v; q < v + len && n < MAXTAGPRINT - 1; q++) {
		bool printable = ps_isprint(*q);

		text[n++] = printable ? (char)*q : '.';
		printable ? ascii++ : garbage++;
	}
	text[n] = 0;
	if (ascii > garbage) {
		ps_put(c, " [%s \"%s\"]", name, text);
	} else {
		ps_put(c, " [%s 0x", name);
		for (uint16_t k = 0; k < len; k++)
			ps_put(c, "%02X", v[k]);
		ps_put(c, "]");
	}
	return true;
}

void ps_pppoe_print(struct ps_print_ctx *c, const uint8_t *bp, uint32_t length)
{
	uint32_t plen;
	uint16_t ses;
	uint8_t ver, type, code;
	char buf[16];

	c->proto = "pppoe";
	if (length < PPPOE_HDRLEN) {
		ps_put(c, " (length %u < %u) (invalid)", length, PPPOE_HDRLEN);
		return;
	}
	length -= PPPOE_HDRLEN;
	if (!need(c, bp, PPPOE_HDRLEN))
		return;
	ver = bp[0] >> 4;
	type = bp[0] & 15;
	code = bp[1];
	ses = be16(bp + 2);
	plen = be16(bp + 4);
	if (ver != 1)
		ps_put(c, " [ver %u]", ver);
	if (type != 1)
		ps_put(c, " [type %u]", type);
	ps_put(c, "PPPoE %s", code_name(code, buf, sizeof(buf)));
	if (code == 0x09 && plen > 1484 - PPPOE_HDRLEN)
		ps_put(c, " [len %u!]", plen);
	if (plen > length) {
		ps_put(c, " [len %u > %u!]", plen, length);
		plen = length;
	}
	if (ses)
		ps_put(c, " [ses 0x%x]", ses);
	bp += PPPOE_HDRLEN;
	if (code) {
		const uint8_t *p = bp;
		uint16_t tag = 0xffff;

		/* Discovery: tags, up to an end-of-list tag. */
		while (tag && p < bp + plen) {
			uint16_t tlen;

			if (!need(c, p, 4))
				return;
			tag = be16(p);
			tlen = be16(p + 2);
			p += 4;
			if (tlen) {
				if (!tag_print(c, tag_name(tag, buf, sizeof(buf)), p, tlen))
					return;
			} else {
				ps_put(c, " [%s]", tag_name(tag, buf, sizeof(buf)));
			}
			p += tlen;
		}
		return;
	}
	ps_put(c, " ");
	ps_ppp_print(c, bp, plen);
}
