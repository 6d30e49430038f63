// SPDX-License-Identifier: GPL-2.0-only
/* GRE (RFC 1701, 2784, 2890) and PPTP's enhanced GRE (RFC 2637), as
 * tcpdump 4.99's print-gre.c prints them without -v. NVGRE is GRE with a
 * key carrying Ethernet (TEB); ERSPAN's 0x88be has no printer there. */
#include "print.h"

#define GRE_CP 0x8000 /* checksum present */
#define GRE_RP 0x4000 /* routing present */
#define GRE_KP 0x2000 /* key present */
#define GRE_SP 0x1000 /* sequence number present */
#define GRE_AP 0x0080 /* acknowledgment number present (v1) */
#define GRESRE_IP 0x0800
#define GRESRE_ASN 0xfffe

/* A source route entry's addresses; false when it ran past the packet. */
static bool sre_print(struct ps_print_ctx *c, uint16_t af, uint8_t off, uint8_t len,
		      const uint8_t *bp, uint32_t left)
{
	const uint8_t *up = bp;
	unsigned int unit = af == GRESRE_IP ? 4 : 2;

	if (af != GRESRE_IP && af != GRESRE_ASN) {
		ps_put(c, ", (rtaf=0x%x)", af);
		return true;
	}
	ps_put(c, ", (rtaf=%s", af == GRESRE_IP ? "ip" : "asn");
	if (off & (unit - 1))
		ps_put(c, ", badoffset=%u", off);
	else if (len & (unit - 1))
		ps_put(c, ", badlength=%u", len);
	else if (off >= len)
		ps_put(c, ", badoff/len=%u/%u", off, len);
	else
		for (; len; bp += unit, left -= unit, len -= unit) {
			if (!have(c, bp, unit) || left < unit) {
				ps_put(c, ")");
				return false;
			}
			if (unit == 4)
				ps_put(c, " %s%s", bp - up == off ? "*" : "", ip4_str(bp).s);
			else
				ps_put(c, " %s%x", bp - up == off ? "*" : "", be16(bp));
		}
	ps_put(c, ")");
	return true;
}

/* The next n bytes of header, taken: NULL (and " [|gre]") past the packet. */
static const uint8_t *field(struct ps_print_ctx *c, const uint8_t **bp, uint32_t *len, uint32_t n)
{
	const uint8_t *f = *bp;

	if (!have(c, f, n) || *len < n) {
		local_trunc(c);
		return NULL;
	}
	*bp += n;
	*len -= n;
	return f;
}

static void proto_line(struct ps_print_ctx *c, uint16_t prot, uint32_t length)
{
	if (c->d->link) {
		const char *name = ps_ethertype_name(prot);

		ps_put(c, ", proto %s (0x%04x)", name ? name : "unknown", prot);
	}
	ps_put(c, ", length %u", length);
}

/* The 4-byte field that present says is there, its value masked and
 * printed by fmt: false (and " [|gre]") past the packet. */
static bool opt_u32(struct ps_print_ctx *c, const uint8_t **bp, uint32_t *len, bool present,
		    const char *fmt, uint32_t mask)
{
	const uint8_t *f;

	if (!present)
		return true;
	if (!(f = field(c, bp, len, 4)))
		return false;
	ps_put(c, fmt, be32(f) & mask);
	return true;
}

/* Version 0: bp and len past the flags and protocol. */
static void gre0_print(struct ps_print_ctx *c, uint16_t flags, uint16_t prot, const uint8_t *bp,
		       uint32_t len, uint32_t length)
{
	const uint8_t *f;

	/* A checksum or routing: the checksum (shown only with -v) and the offset. */
	if (!opt_u32(c, &bp, &len, flags & (GRE_CP | GRE_RP), ", off 0x%x", 0xffff) ||
	    !opt_u32(c, &bp, &len, flags & GRE_KP, ", key=0x%x", UINT32_MAX) ||
	    !opt_u32(c, &bp, &len, flags & GRE_SP, ", seq %u", UINT32_MAX))
		return;
	while (flags & GRE_RP) {
		uint16_t af;
		uint8_t off, slen;

		if (!(f = field(c, &bp, &len, 4)))
			return;
		af = be16(f);
		off = f[2];
		slen = f[3];
		if (af == 0 && slen == 0)
			break;
		if (!sre_print(c, af, off, slen, bp, len) || len < slen) {
			local_trunc(c);
			return;
		}
		bp += slen;
		len -= slen;
	}
	proto_line(c, prot, length);
	ps_put(c, ": ");
	switch (prot) {
	case 0x0800:
		ps_ip_print(c, bp, len);
		break;
	case 0x86dd:
		ps_ip6_print(c, bp, len);
		break;
	case 0x8847:
		ps_mpls_print(c, bp, len);
		break;
	case 0x6558:
		ps_ether_inner(c, bp, len);
		break;
	case 0x8137: /* IPX, AppleTalk, OSI: tcpdump prints them; we do not */
	case 0x809b:
	case 0x00fe:
		break;
	default:
		ps_put(c, "gre-proto-0x%x", prot);
		break;
	}
}

/* Version 1, PPTP's: bp and len past the flags and protocol. */
static void gre1_print(struct ps_print_ctx *c, uint16_t flags, uint16_t prot, const uint8_t *bp,
		       uint32_t len, uint32_t length)
{
	/* The key is the payload length (high half) and the call id. */
	if (!opt_u32(c, &bp, &len, flags & GRE_KP, ", call %u", 0xffff) ||
	    !opt_u32(c, &bp, &len, flags & GRE_SP, ", seq %u", UINT32_MAX) ||
	    !opt_u32(c, &bp, &len, flags & GRE_AP, ", ack %u", UINT32_MAX))
		return;
	if (!(flags & GRE_SP))
		ps_put(c, ", no-payload");
	proto_line(c, prot, length);
	if (!(flags & GRE_SP))
		return;
	ps_put(c, ": ");
	if (prot == 0x880b)
		ps_ppp_print(c, bp, len);
	else
		ps_put(c, "gre-proto-0x%x", prot);
}

void ps_gre_print(struct ps_print_ctx *c, const uint8_t *bp, uint32_t length)
{
	const uint8_t *p = bp + 2, *f;
	uint16_t flags, prot;
	unsigned int vers;
	uint32_t len;

	c->proto = "gre";
	if (!have(c, bp, 2) || length < 2) {
		local_trunc(c);
		return;
	}
	flags = be16(bp);
	vers = flags & 7;
	ps_put(c, "GREv%u", vers);
	if (vers > 1) {
		ps_put(c, " ERROR: unknown-version");
		return;
	}
	len = length - 2;
	if (!(f = field(c, &p, &len, 2)))
		return;
	prot = be16(f);
	if (vers == 0)
		gre0_print(c, flags, prot, p, len, length);
	else
		gre1_print(c, flags, prot, p, len, length);
}
