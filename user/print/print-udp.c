// SPDX-License-Identifier: GPL-2.0-only
#include "print.h"

static void udp_addrs(struct ps_print_ctx *c, const struct l3 *n, int sport, int dport)
{
	struct addr src = l3_src(n), dst = l3_dst(n);

	if (n->direct) {
		if (sport == -1)
			ps_put(c, "%s > %s: ", src.s, dst.s);
		else
			ps_put(c, "%s.%d > %s.%d: ", src.s, sport, dst.s, dport);
	} else if (sport != -1) {
		ps_put(c, "%d > %d: ", sport, dport);
	}
}

static void dns_print(struct ps_print_ctx *c, const uint8_t *bp, uint32_t length)
{
	ps_domain_print(c, bp, length, false, false);
}

static void mdns_print(struct ps_print_ctx *c, const uint8_t *bp, uint32_t length)
{
	ps_domain_print(c, bp, length, false, true);
}

/*
 * tcpdump's choice of a printer by port, in its order (print-udp.c, not
 * verbose): the first entry that matches decides. Where tcpdump has a
 * printer we do not (print == NULL), the line ends as for any UDP
 * payload: less than tcpdump says, never another protocol's words.
 */
enum port_side { EITHER, DST, SRC };

static const struct udp_port {
	uint16_t lo, hi;
	uint8_t side;
	void (*print)(struct ps_print_ctx *c, const uint8_t *bp, uint32_t length);
} udp_ports[] = {
	{ 53, 53, EITHER, dns_print },
	{ 5353, 5353, EITHER, mdns_print },
	{ 525, 525, EITHER, NULL }, /* timed */
	{ 69, 69, EITHER, NULL },   /* TFTP */
	{ 67, 68, EITHER, ps_bootp_print },
	{ 520, 520, EITHER, ps_rip_print },
	{ 654, 654, EITHER, NULL },   /* AODV */
	{ 500, 500, EITHER, NULL },   /* ISAKMP */
	{ 4500, 4500, EITHER, NULL }, /* ISAKMP NAT-T */
	{ 7500, 7500, EITHER, NULL }, /* ISAKMP, non-standard */
	{ 8500, 8500, EITHER, NULL }, /* ISAKMP, non-standard */
	{ 161, 162, EITHER, ps_snmp_print },
	{ 123, 123, EITHER, ps_ntp_print },
	{ 88, 88, EITHER, NULL },     /* Kerberos */
	{ 750, 750, EITHER, NULL },   /* Kerberos v4 */
	{ 1701, 1701, EITHER, NULL }, /* L2TP */
	{ 3456, 3456, DST, NULL },    /* VAT */
	{ 2103, 2104, EITHER, NULL }, /* Zephyr */
	{ 7000, 7009, EITHER, NULL }, /* AFS RX */
	{ 521, 521, EITHER, NULL },   /* RIPng */
	{ 546, 547, EITHER, ps_dhcp6_print },
	{ 5359, 5359, EITHER, NULL }, /* AHCP */
	{ 6696, 6697, EITHER, NULL }, /* Babel */
	{ 8231, 8231, EITHER, NULL }, /* HNCP */
	{ 4567, 4567, DST, NULL },    /* whiteboard */
	{ 496, 496, EITHER, NULL },   /* Cisco auto-RP */
	{ 1645, 1646, EITHER, ps_radius_print },
	{ 1700, 1700, EITHER, ps_radius_print },
	{ 1812, 1813, EITHER, ps_radius_print },
	{ 3799, 3799, EITHER, ps_radius_print },
	{ 1985, 1985, DST, NULL },	/* HSRP */
	{ 921, 921, EITHER, NULL },	/* lwres */
	{ 646, 646, EITHER, NULL },	/* LDP */
	{ 698, 698, EITHER, NULL },	/* OLSR */
	{ 3503, 3503, EITHER, NULL },	/* MPLS LSP ping */
	{ 49152, 49152, SRC, NULL },	/* Broadcom LI */
	{ 3784, 3785, DST, NULL },	/* BFD */
	{ 4784, 4784, DST, NULL },	/* BFD multihop */
	{ 6784, 6784, DST, NULL },	/* BFD on LAGs */
	{ 701, 701, EITHER, NULL },	/* LMP */
	{ 1589, 1589, EITHER, NULL },	/* VQP */
	{ 6343, 6343, EITHER, NULL },	/* sFlow */
	{ 12223, 12223, EITHER, NULL }, /* LWAPP control */
	{ 12222, 12222, EITHER, NULL }, /* LWAPP data */
	{ 5060, 5060, EITHER, ps_sip_print },
	{ 514, 514, EITHER, ps_syslog_print },
	{ 8472, 8472, EITHER, NULL }, /* OTV */
	{ 4789, 4789, EITHER, ps_vxlan_print },
	{ 6081, 6081, EITHER, ps_geneve_print },
	{ 4342, 4342, EITHER, NULL }, /* LISP control */
	{ 4790, 4790, EITHER, ps_vxlan_gpe_print },
	{ 17754, 17754, EITHER, NULL }, /* ZEP */
	{ 6635, 6635, EITHER, ps_mpls_print },
	{ 319, 320, EITHER, NULL },	/* PTP (after AppleTalk's check) */
	{ 30490, 30490, EITHER, NULL }, /* SOME/IP */
};

static const struct udp_port *udp_port_of(uint16_t sport, uint16_t dport)
{
	for (size_t i = 0; i < sizeof(udp_ports) / sizeof(udp_ports[0]); i++) {
		const struct udp_port *u = &udp_ports[i];
		bool s = sport >= u->lo && sport <= u->hi, d = dport >= u->lo && dport <= u->hi;

		if (u->side == EITHER ? s || d : u->side == DST ? d : s)
			return u;
	}
	return NULL;
}

void ps_udp_print(struct ps_print_ctx *c, const uint8_t *bp, uint32_t length, const struct l3 *n,
		  bool fragmented)
{
	uint16_t sport, dport;
	uint32_t ulen;

	c->proto = "udp";
	if (!have(c, bp + 2, 2)) {
		udp_addrs(c, n, -1, -1);
		local_trunc(c);
		return;
	}
	sport = be16(bp);
	dport = be16(bp + 2);
	if (length < 8) {
		udp_addrs(c, n, sport, dport);
		ps_put(c, "truncated-udp %u", length);
		return;
	}
	if (!have(c, bp + 4, 2)) {
		udp_addrs(c, n, sport, dport);
		local_trunc(c);
		return;
	}
	ulen = be16(bp + 4);
	if (ulen == 0 && length > 65535)
		ulen = length;
	if (ulen < 8) {
		udp_addrs(c, n, sport, dport);
		ps_put(c, "truncated-udplength %u", ulen);
		return;
	}
	ulen -= 8;
	length -= 8;
	if (ulen < length)
		length = ulen;
	if (bp + 8 > c->end) {
		udp_addrs(c, n, sport, dport);
		local_trunc(c);
		return;
	}
	udp_addrs(c, n, sport, dport);
	if (!c->d->quiet) {
		const struct udp_port *u = udp_port_of(sport, dport);

		if (u && u->print) {
			u->print(c, bp + 8, length);
			return;
		}
	}
	if (ulen > length && !fragmented)
		ps_put(c, "UDP, bad length %u > %u", ulen, length);
	else
		ps_put(c, "UDP, length %u", ulen);
}
