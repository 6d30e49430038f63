// SPDX-License-Identifier: GPL-2.0-only
#include "print.h"

void ps_ip_demux(struct ps_print_ctx *c, const uint8_t *bp, uint32_t length, const struct l3 *n,
		 bool fragmented, uint8_t nh)
{
	switch (nh) {
	case 6:
		ps_tcp_print(c, bp, length, n);
		break;
	case 17:
		ps_udp_print(c, bp, length, n, fragmented);
		break;
	case 1:
		if (n->ver == 4)
			ps_icmp_print(c, bp, length);
		else
			ps_put(c, "[ICMP requires IPv4] (invalid)");
		break;
	case 58:
		if (n->ver == 6)
			ps_icmp6_print(c, bp, length);
		else
			ps_put(c, "[ICMPv6 requires IPv6] (invalid)");
		break;
	case 4:
		ps_ip_print(c, bp, length);
		break;
	case 41:
		ps_ip6_print(c, bp, length);
		break;
	case 47:
		ps_gre_print(c, bp, length);
		break;
	case 132:
		ps_sctp_print(c, bp, length, n);
		break;
	case 89:
		ps_ospf_print(c, bp, length, n->ver);
		break;
	case 2:
		if (n->ver == 4)
			ps_igmp_print(c, bp, length);
		else
			ps_put(c, "[IGMP requires IPv4] (invalid)");
		break;
	case 112:
		ps_vrrp_print(c, bp, length, n->ver == 6 ? n->hdr[7] : n->hdr[8]);
		break;
	case 50:
		ps_esp_print(c, bp, length);
		break;
	case 51: { /* AH, then what it protects, its ports without addresses */
		struct l3 inner = *n;
		uint32_t advance;

		if (!have(c, bp, 1)) {
			c->proto = "ah";
			local_trunc(c);
			break;
		}
		nh = bp[0];
		advance = ps_ah_print(c, bp);
		if (!advance || c->jumped)
			break;
		inner.direct = false;
		ps_ip_demux(c, bp + advance, length - advance, &inner, fragmented, nh);
		break;
	}
	case 59:
		ps_put(c, "no next header");
		break;
	default:
		ps_put(c, " ip-proto-%u %u", nh, length);
		break;
	}
}

void ps_ip_print(struct ps_print_ctx *c, const uint8_t *bp, uint32_t length)
{
	struct l3 n = { .ver = 4, .hdr = bp };
	uint32_t hlen, len;
	uint16_t off;
	uint8_t proto;

	c->proto = "ip";
	if (!need(c, bp, 1))
		return;
	if (bp[0] >> 4 != 4) {
		if (bp[0] >> 4 == 6)
			ps_put(c, "IP6, wrong link-layer encapsulation");
		else
			ps_put(c, "IP%u", bp[0] >> 4);
		ps_put(c, " (invalid)");
		return;
	}
	if (!c->d->link)
		ps_put(c, "IP ");
	if (!have(c, bp, 20)) {
		local_trunc(c);
		return;
	}
	if (length < 20) {
		ps_put(c, "truncated-ip %u", length);
		return;
	}
	hlen = (bp[0] & 15) * 4u;
	if (hlen < 20) {
		ps_put(c, "bad-hlen %u", hlen);
		return;
	}
	len = be16(bp + 2);
	if (length < len)
		ps_put(c, "truncated-ip - %u bytes missing! ", len - length);
	if (len < hlen) {
		ps_put(c, "bad-len %u", len);
		return;
	}
	push_end(c, bp, len);
	len -= hlen;
	off = be16(bp + 6);
	proto = bp[9];
	if ((off & 0x1fff) == 0) {
		n.direct = true;
		if (proto != 6 && proto != 17 && proto != 132)
			ps_put(c, "%s > %s: ", ip4_str(bp + 12).s, ip4_str(bp + 16).s);
		if (!have(c, bp, hlen)) {
			ps_put(c, " [remaining caplen(%u) < header length(%u)]", avail(c, bp),
			       hlen);
			c->jumped = true;
			return;
		}
		ps_ip_demux(c, bp + hlen, len, &n, off & 0x2000, proto);
	} else {
		/* Not the first fragment: no transport header to show. */
		ps_put(c, "%s > %s: ip-proto-%u", ip4_str(bp + 12).s, ip4_str(bp + 16).s, proto);
	}
}
