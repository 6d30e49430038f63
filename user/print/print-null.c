// SPDX-License-Identifier: GPL-2.0-only
/* BSD loopback encapsulation (LINKTYPE_NULL, LINKTYPE_LOOP), as tcpdump
 * 4.99's print-null.c prints it: a 4-byte address family, in the
 * writer's byte order for NULL and in network order for LOOP. */
#include <string.h>
#include "print.h"

#define NULL_HDRLEN 4

static const char *af_name(uint32_t family)
{
	switch (family) {
	case 2:
		return "IPv4";
	case 7:
		return "OSI";
	case 16:
		return "Appletalk";
	case 23:
		return "IPX";
	case 24:
	case 28:
	case 30:
		return "IPv6";
	default:
		return NULL;
	}
}

static void hdr_print(struct ps_print_ctx *c, uint32_t family, uint32_t length)
{
	const char *name = af_name(family);

	if (!c->d->quiet)
		ps_put(c, "AF %s (%u)", name ? name : "Unknown", family);
	else if (name)
		ps_put(c, "%s", name);
	else
		ps_put(c, "Unknown AF %u", family);
	ps_put(c, ", length %u: ", length);
}

uint32_t ps_null_print(struct ps_print_ctx *c, const uint8_t *p, uint32_t length, uint32_t caplen)
{
	uint32_t family;

	c->proto = "null";
	if (!need(c, p, NULL_HDRLEN))
		return 0;
	/* As tcpdump: the reader's byte order, swapped if that cannot be it. */
	memcpy(&family, p, sizeof(family));
	if (family & 0xffff0000)
		family = __builtin_bswap32(family);
	if (c->d->link)
		hdr_print(c, family, length);
	length -= NULL_HDRLEN;
	caplen -= NULL_HDRLEN;
	p += NULL_HDRLEN;
	switch (family) {
	case 2:
		ps_ip_print(c, p, length);
		break;
	case 24:
	case 28:
	case 30:
		ps_ip6_print(c, p, length);
		break;
	case 7: /* OSI, AppleTalk, IPX: tcpdump prints them; we do not */
	case 16:
	case 23:
		break;
	default:
		if (!c->d->link)
			hdr_print(c, family, length + NULL_HDRLEN);
		unknown(c, p, caplen, false);
		break;
	}
	return NULL_HDRLEN;
}
