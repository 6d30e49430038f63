// SPDX-License-Identifier: GPL-2.0-only
#include <string.h>
#include "print.h"

/* IPv6 options inside hop-by-hop/destination headers; tcpdump prints only
 * what is wrong with them when not verbose. -1: malformed. */
static int ip6_opts(struct ps_print_ctx *c, const uint8_t *bp, int len, bool hbh, bool *found_jumbo,
		    uint32_t *payload_len)
{
	int optlen = 0;

	for (int i = 0; i < len; i += optlen) {
		if (!need(c, bp + i, 1))
			return -1;
		if (bp[i] == 0) {
			optlen = 1;
		} else {
			if (i + 1 >= len)
				return -1;
			if (!need(c, bp + i + 1, 1))
				return -1;
			optlen = bp[i + 1] + 2;
		}
		if (i + optlen > len)
			return -1;
		switch (bp[i]) {
		case 0:
			break;
		case 1:
			if (len - i < 2) {
				ps_put(c, "(padn: trunc)");
				return -1;
			}
			break;
		case 5:
			if (len - i < 4) {
				ps_put(c, "(rtalert: trunc)");
				return -1;
			}
			if (bp[i + 1] != 2) {
				ps_put(c, "(rtalert: invalid len %u)", bp[i + 1]);
				return -1;
			}
			break;
		case 0xc2:
			if (len - i < 6) {
				ps_put(c, "(jumbo: trunc)");
				return -1;
			}
			if (bp[i + 1] != 4) {
				ps_put(c, "(jumbo: invalid len %u)", bp[i + 1]);
				return -1;
			}
			if (!need(c, bp + i + 2, 4))
				return -1;
			if (hbh && !*found_jumbo && *payload_len == 0 &&
			    be32(bp + i + 2) >= 65536) {
				*found_jumbo = true;
				*payload_len = be32(bp + i + 2);
			}
			break;
		case 0xc9:
			if (len - i < 18) {
				ps_put(c, "(homeaddr: trunc)");
				return -1;
			}
			if (bp[i + 1] < 16) {
				ps_put(c, "(homeaddr: invalid len %u)", bp[i + 1]);
				return -1;
			}
			break;
		default:
			if (len - i < 2) {
				ps_put(c, "(type %u: trunc)", bp[i]);
				return -1;
			}
			break;
		}
	}
	return 0;
}

/* Hop-by-hop (hbh) or destination options header: its length, or -1. */
static int ip6_opt_header(struct ps_print_ctx *c, const uint8_t *cp, bool hbh, bool *found_jumbo,
			  uint32_t *payload_len)
{
	uint32_t hlen;

	c->proto = hbh ? "hbhopt" : "dstopt";
	if (!need(c, cp + 1, 1))
		return -1;
	hlen = (cp[1] + 1u) << 3;
	if (!have(c, cp, hlen)) {
		local_trunc(c);
		return -1;
	}
	ps_put(c, hbh ? "HBH " : "DSTOPT ");
	if (hbh && ip6_opts(c, cp + 2, (int)hlen - 2, true, found_jumbo, payload_len) < 0) {
		if (!c->jumped)
			local_trunc(c);
		return -1;
	}
	return (int)hlen;
}

static int frag6(struct ps_print_ctx *c, const uint8_t *cp, const uint8_t *ip)
{
	c->proto = "frag6";
	if (!need(c, cp + 2, 2) || !need(c, ip + 4, 2))
		return -1;
	ps_put(c, "frag (%u|%u)", be16(cp + 2) & 0xfff8,
	       (unsigned int)(40 + be16(ip + 4) - (cp - ip) - 8));
	if (be16(cp + 2) & 0xfff8)
		return -1;
	ps_put(c, " ");
	return 8;
}

static int rt6(struct ps_print_ctx *c, const uint8_t *cp)
{
	uint32_t len, type;
	const uint8_t *p;

	c->proto = "rt6";
	ps_put(c, "RT6");
	if (!need(c, cp + 1, 1))
		return -1;
	len = cp[1];
	ps_put(c, " (len=%u", len);
	if (!need(c, cp + 2, 1))
		return -1;
	type = cp[2];
	ps_put(c, ", type=%u", type);
	if (type == 0)
		ps_put(c, " [Deprecated]");
	if (!need(c, cp + 3, 1))
		return -1;
	ps_put(c, ", segleft=%u", cp[3]);
	switch (type) {
	case 0:
	case 2:
		if (!need(c, cp + 4, 4))
			return -1;
		if (be32(cp + 4))
			ps_put(c, ", rsv=0x%0x", be32(cp + 4));
		if (len % 2) {
			ps_put(c, " (invalid length %u) (invalid)", len);
			return -1;
		}
		p = cp + 8;
		break;
	case 4:
		if (!need(c, cp + 4, 4))
			return -1;
		ps_put(c, ", last-entry=%u", cp[4]);
		if (cp[5])
			ps_put(c, ", flags=0x%0x", cp[5]);
		ps_put(c, ", tag=%x", be16(cp + 6));
		if (len % 2) {
			ps_put(c, " (invalid length %u) (invalid)", len);
			return -1;
		}
		p = cp + 8;
		break;
	default:
		ps_put(c, " (unknown type) (invalid)");
		return -1;
	}
	for (uint32_t i = 0; i < len / 2; i++, p += 16) {
		if (!need(c, p, 16))
			return -1;
		ps_put(c, ", [%u]%s", i, ip6_str(p).s);
	}
	ps_put(c, ") ");
	return (int)((len + 1) << 3);
}

/* What the walk over the extension headers has found so far. */
struct ip6_walk {
	uint32_t payload_len, len, total;
	bool found_ext, found_jumbo, found_hbh, fragmented;
	int ph; /* the header before (255: the IPv6 header) */
};

/* The hop-by-hop options: once, first, and with a jumbo payload where the
 * header says 0. Its length, or -1 where printing ends. */
static int hop_by_hop(struct ps_print_ctx *c, const uint8_t *cp, struct ip6_walk *w)
{
	int advance;

	if (w->found_hbh) {
		ps_put(c, "[The Hop-by-Hop Options header was already found] (invalid)");
		return -1;
	}
	if (w->ph != 255) {
		ps_put(c, "[The Hop-by-Hop Options header don't follow the IPv6 header] (invalid)");
		return -1;
	}
	advance = ip6_opt_header(c, cp, true, &w->found_jumbo, &w->payload_len);
	if (c->jumped)
		return -1;
	if (w->payload_len == 0 && !w->found_jumbo) {
		ps_put(c, "[No valid Jumbo Payload Hop-by-Hop option found] (invalid)");
		return -1;
	}
	w->found_hbh = advance >= 0;
	return advance;
}

/* Extension header nh at cp: its length (the next one follows), or -1
 * where printing ends; 0 for a header that is no extension. */
static int extension(struct ps_print_ctx *c, uint8_t nh, const uint8_t *cp, const uint8_t *bp,
		     struct ip6_walk *w)
{
	int advance;

	switch (nh) {
	case 0:
		advance = hop_by_hop(c, cp, w);
		break;
	case 60:
		advance = ip6_opt_header(c, cp, false, NULL, NULL);
		break;
	case 44:
		advance = frag6(c, cp, bp);
		if (advance >= 0 && c->end <= cp + advance)
			return -1;
		w->fragmented = true;
		break;
	case 43:
		if (!have(c, cp, 1)) {
			local_trunc(c);
			return -1;
		}
		advance = rt6(c, cp);
		break;
	default:
		return 0;
	}
	w->found_ext |= advance >= 0;
	return advance;
}

/* The upper layer at cp: its length from a jumbo payload or the header
 * (where the walk found one), then the protocol's printer. */
static void upper_layer(struct ps_print_ctx *c, const uint8_t *bp, const uint8_t *cp,
			uint32_t length, struct ip6_walk *w, struct l3 *n, uint8_t nh)
{
	if (w->found_jumbo) {
		w->len = w->payload_len + 40;
		if (w->len < w->total) {
			local_trunc(c);
			return;
		}
		if (length < w->len)
			ps_put(c, "truncated-ip6 - %u bytes missing!", w->len - length);
		c->end = bp + w->len < c->end ? bp + w->len : c->end;
		w->len -= w->total;
	} else if (w->payload_len == 0) {
		if (w->found_ext) {
			local_trunc(c);
			return;
		}
		w->len = 0;
		c->end = bp + 40 < c->end ? bp + 40 : c->end;
	}
	ps_ip_demux(c, cp, w->len, n, w->fragmented, nh);
}

/* The fixed header's checks; false where printing ends. */
static bool fixed_header(struct ps_print_ctx *c, const uint8_t *bp, uint32_t length)
{
	if (!have(c, bp, 40)) {
		local_trunc(c);
		return false;
	}
	if (length < 40) {
		ps_put(c, "truncated-ip6 %u", length);
		return false;
	}
	if (!c->d->link)
		ps_put(c, "IP6 ");
	if (bp[0] >> 4 != 6) {
		ps_put(c, "version error: %u != 6", bp[0] >> 4);
		return false;
	}
	return true;
}

void ps_ip6_print(struct ps_print_ctx *c, const uint8_t *bp, uint32_t length)
{
	struct l3 n = { .ver = 6, .hdr = bp };
	struct ip6_walk w = { .ph = 255 };
	const uint8_t *cp = bp;
	int advance = 40;
	uint8_t nh;

	c->proto = "ip6";
	if (!fixed_header(c, bp, length))
		return;
	w.payload_len = be16(bp + 4);
	if (w.payload_len) {
		w.len = w.payload_len + 40;
		if (length < w.len)
			ps_put(c, "truncated-ip6 - %u bytes missing!", w.len - length);
	} else {
		w.len = length + 40;
	}
	nh = bp[6];
	push_end(c, bp, w.len);
	while (cp < c->end && advance > 0) {
		if (w.len < (uint32_t)advance) {
			local_trunc(c);
			return;
		}
		cp += advance;
		w.len -= advance;
		w.total += advance;
		n.direct = cp == bp + 40;
		if (n.direct && nh != 6 && nh != 17 && nh != 132)
			ps_put(c, "%s > %s: ", ip6_str(bp + 8).s, ip6_str(bp + 24).s);
		advance = extension(c, nh, cp, bp, &w);
		if (advance == 0) {
			upper_layer(c, bp, cp, length, &w, &n, nh);
			return;
		}
		if (advance < 0)
			return;
		nh = cp[0];
		w.ph = nh;
		c->proto = "ip6";
	}
}
