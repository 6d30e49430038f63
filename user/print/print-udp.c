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
	/* tcpdump would decode the payload of well-known ports here. */
	if (ulen > length && !fragmented)
		ps_put(c, "UDP, bad length %u > %u", ulen, length);
	else
		ps_put(c, "UDP, length %u", ulen);
}
