// SPDX-License-Identifier: GPL-2.0-only
#include "print.h"

const char *ps_ethertype_name(uint16_t t)
{
	switch (t) {
	case 0x0800:
		return "IPv4";
	case 0x8847:
		return "MPLS unicast";
	case 0x8848:
		return "MPLS multicast";
	case 0x86dd:
		return "IPv6";
	case 0x8100:
		return "802.1Q";
	case 0x9100:
		return "802.1Q-9100";
	case 0x88a8:
		return "802.1Q-QinQ";
	case 0x9200:
		return "802.1Q-9200";
	case 0x88e5:
		return "802.1AE MACsec";
	case 0x0806:
		return "ARP";
	case 0x8035:
		return "Reverse ARP";
	case 0x809b:
		return "Appletalk";
	case 0x80f3:
		return "Appletalk ARP";
	case 0x8137:
		return "IPX";
	case 0x880b:
		return "PPP";
	case 0x8808:
		return "MPCP";
	case 0x8809:
		return "Slow Protocols";
	case 0x8863:
		return "PPPoE D";
	case 0x8864:
		return "PPPoE S";
	case 0x888e:
		return "EAPOL";
	case 0x8899:
		return "Realtek protocols";
	case 0x886f:
		return "MS NLB heartbeat";
	case 0x8870:
		return "Jumbo";
	case 0x894f:
		return "NSH";
	case 0x9000:
		return "Loopback";
	case 0x88cc:
		return "LLDP";
	case 0x88ca:
		return "TIPC";
	case 0x88a2:
		return "AoE";
	case 0x88f7:
		return "PTP";
	case 0x8902:
		return "CFM";
	case 0x893a:
		return "IEEE1905.1";
	case 0x6558:
		return "TEB";
	default:
		return NULL;
	}
}

bool ps_ethertype_print(struct ps_print_ctx *c, uint16_t type, const uint8_t *p, uint32_t length)
{
	switch (type) {
	case 0x0800:
		ps_ip_print(c, p, length);
		return true;
	case 0x86dd:
		ps_ip6_print(c, p, length);
		return true;
	case 0x0806:
	case 0x8035:
		ps_arp_print(c, p, length);
		return true;
	case 0x8863: /* PPPoE discovery and session, and their 3Com variants */
	case 0x8864:
	case 0x3c12:
	case 0x3c13:
		ps_pppoe_print(c, p, length);
		return true;
	case 0x880b:
		if (length) {
			ps_put(c, ": ");
			ps_ppp_print(c, p, length);
		}
		return true;
	case 0x8847:
	case 0x8848:
		ps_mpls_print(c, p, length);
		return true;
	case 0x88cc:
		ps_lldp_print(c, p, length);
		return true;
	case 0x888e:
		ps_eapol_print(c, p);
		return true;
	case 0x8809:
		ps_slow_print(c, p, length);
		return true;
	case 0x88a2:
		ps_aoe_print(c, p, length);
		return true;
	case 0x886f:
		ps_msnlb_print(c, p);
		return true;
	case 0x9000:
		ps_loopback_print(c, p, length);
		return true;
	default:
		return false;
	}
}

static void ethertype_print(struct ps_print_ctx *c, uint16_t t)
{
	const char *name = ps_ethertype_name(t);

	if (!c->d->quiet)
		ps_put(c, "ethertype %s (0x%04x)", name ? name : "Unknown", t);
	else if (name)
		ps_put(c, "%s", name);
	else
		ps_put(c, "Unknown Ethertype (0x%04x)", t);
}

static bool is_vlan_tpid(uint16_t t)
{
	return t == 0x8100 || t == 0x9100 || t == 0x9200 || t == 0x88a8;
}

/* An 802.3 length field (type <= 1500): the LLC frame, cut there; the
 * bytes it took after the Ethernet header. */
static uint32_t ieee8023(struct ps_print_ctx *c, const uint8_t *p, uint32_t length, uint32_t caplen,
			 uint16_t type, bool printed_length, const uint8_t *src, const uint8_t *dst)
{
	int llc;

	if (type < length) {
		length = type;
		if (caplen > length)
			caplen = length;
	}
	push_end(c, p, length);
	if (c->d->link) {
		ps_put(c, "802.3");
		if (!printed_length)
			ps_put(c, ", length %u: ", length);
	}
	llc = ps_llc_print(c, p, length, caplen, src, dst);
	if (llc < 0) {
		unknown(c, p, caplen, false);
		llc = -llc;
	}
	return (uint32_t)llc;
}

uint32_t ps_ether_print(struct ps_print_ctx *c, const uint8_t *p, uint32_t length, uint32_t caplen)
{
	const uint8_t *dst = p, *src = p + 6;
	uint32_t orig_length = length, hdrlen = 14;
	bool printed_length = false;
	uint16_t type;

	c->proto = "ether";
	if (length < caplen) {
		ps_put(c, "[length %u < caplen %u] (invalid)", length, caplen);
		return length;
	}
	if (caplen < 14) {
		local_trunc(c);
		return caplen;
	}
	if (c->d->link)
		ps_put(c, "%s > %s, ", mac_str(src).s, mac_str(dst).s);
	type = be16(p + 12);
	p += 14;
	length -= 14;
	caplen -= 14;
	while (is_vlan_tpid(type)) {
		if (caplen < 4 || length < 4) {
			c->proto = "vlan";
			local_trunc(c);
			return hdrlen + (caplen < 4 ? caplen : length);
		}
		if (c->d->link) {
			uint16_t tci = be16(p);

			ethertype_print(c, type);
			if (!printed_length) {
				ps_put(c, ", length %u: ", orig_length);
				printed_length = true;
			} else {
				ps_put(c, ", ");
			}
			ps_put(c, "vlan %u, p %u%s, ", tci & 0xfff, tci >> 13,
			       tci & 0x1000 ? ", DEI" : "");
		}
		type = be16(p + 2);
		p += 4;
		length -= 4;
		caplen -= 4;
		hdrlen += 4;
	}
	if (type > 1500 && c->d->link) {
		ethertype_print(c, type);
		if (!printed_length)
			ps_put(c, ", length %u: ", orig_length);
		else
			ps_put(c, ", ");
	}
	if (type > 1500 && ps_ethertype_print(c, type, p, length))
		return hdrlen;
	if (type <= 1500)
		return hdrlen + ieee8023(c, p, length, caplen, type, printed_length, src, dst);
	/* Anything else: tcpdump's line for a type it does not know, then the
	 * payload in hex. */
	if (!c->d->link) {
		ps_put(c, "%s > %s, ", mac_str(src).s, mac_str(dst).s);
		ethertype_print(c, type);
		ps_put(c, ", length %u: ", orig_length);
	}
	unknown(c, p, caplen, false);
	return hdrlen;
}
