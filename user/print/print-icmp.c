// SPDX-License-Identifier: GPL-2.0-only
#include <string.h>
#include "print.h"

/* An ICMP timestamp, milliseconds since midnight UTC, as hh:mm:ss.mmm. */
static void tstamp(char *buf, size_t n, uint32_t ms)
{
	uint32_t sec = ms / 1000, min = sec / 60, hrs = min / 60;

	snprintf(buf, n, "%02u:%02u:%02u.%03u", hrs, min % 60, sec % 60, ms % 1000);
}

/* Port unreachable (type 3, code 3): the quoted IP header's protocol and
 * destination port. */
static bool port_unreachable(struct ps_print_ctx *c, const uint8_t *oip, char *buf, size_t len)
{
	uint32_t hlen;
	uint16_t port;

	if (!have(c, oip + 9, 1)) {
		local_trunc(c);
		return false;
	}
	if (!need(c, oip, 1))
		return false;
	hlen = (oip[0] & 15) * 4u;
	if (!need(c, oip + hlen + 2, 2) || !need(c, oip + 16, 4))
		return false;
	port = be16(oip + hlen + 2);
	if (oip[9] == 6)
		snprintf(buf, len, "%s tcp port %u unreachable", ip4_str(oip + 16).s, port);
	else if (oip[9] == 17)
		snprintf(buf, len, "%s udp port %u unreachable", ip4_str(oip + 16).s, port);
	else
		snprintf(buf, len, "%s protocol %u port %u unreachable", ip4_str(oip + 16).s,
			 oip[9], port);
	return true;
}

/* Destination unreachable (type 3): the text into buf; false if the
 * packet ended first (said). */
static bool unreachable(struct ps_print_ctx *c, const uint8_t *dp, uint8_t code, char *buf,
			size_t len)
{
	static const char *const unreach[16] = {
		[5] = "%s unreachable - source route failed",
		[6] = "net %s unreachable - unknown",
		[7] = "host %s unreachable - unknown",
		[8] = "%s unreachable - source host isolated",
		[9] = "net %s unreachable - admin prohibited",
		[10] = "host %s unreachable - admin prohibited",
		[11] = "net %s unreachable - tos prohibited",
		[12] = "host %s unreachable - tos prohibited",
		[13] = "host %s unreachable - admin prohibited filter",
		[14] = "host %s unreachable - host precedence violation",
		[15] = "host %s unreachable - precedence cutoff",
	};
	const uint8_t *oip = dp + 8;

	if (code == 3)
		return port_unreachable(c, oip, buf, len);
	if (!need(c, oip + 16, 4))
		return false;
	if (code == 0) {
		snprintf(buf, len, "net %s unreachable", ip4_str(oip + 16).s);
	} else if (code == 1) {
		snprintf(buf, len, "host %s unreachable", ip4_str(oip + 16).s);
	} else if (code == 2) {
		if (!need(c, oip + 9, 1))
			return false;
		snprintf(buf, len, "%s protocol %u unreachable", ip4_str(oip + 16).s, oip[9]);
	} else if (code == 4) {
		uint16_t mtu;

		if (!need(c, dp + 6, 2))
			return false;
		mtu = be16(dp + 6);
		if (mtu)
			snprintf(buf, len, "%s unreachable - need to frag (mtu %u)",
				 ip4_str(oip + 16).s, mtu);
		else
			snprintf(buf, len, "%s unreachable - need to frag", ip4_str(oip + 16).s);
	} else if (code < 16 && unreach[code]) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
		snprintf(buf, len, unreach[code], ip4_str(oip + 16).s);
#pragma GCC diagnostic pop
	} else {
		snprintf(buf, len, "%s unreachable - #%u", ip4_str(oip + 16).s, code);
	}
	return true;
}

/* Router advertisement (type 9, RFC 1256). */
static bool router_advertisement(struct ps_print_ctx *c, const uint8_t *dp, char *buf, size_t len)
{
	unsigned int lifetime, num;
	size_t n;

	if (!have(c, dp + 4, 4)) {
		local_trunc(c);
		return false;
	}
	lifetime = be16(dp + 6);
	num = dp[4];
	if (lifetime < 60)
		n = (size_t)snprintf(buf, len, "router advertisement lifetime %u", lifetime);
	else if (lifetime < 3600)
		n = (size_t)snprintf(buf, len, "router advertisement lifetime %u:%02u",
				     lifetime / 60, lifetime % 60);
	else
		n = (size_t)snprintf(buf, len, "router advertisement lifetime %u:%02u:%02u",
				     lifetime / 3600, lifetime % 3600 / 60, lifetime % 60);
	n += (size_t)snprintf(buf + n, len - n, " %u:", num);
	if (dp[5] != 2) {
		snprintf(buf + n, len - n, " [size %u]", dp[5]);
		return true;
	}
	for (const uint8_t *a = dp + 8; num > 0 && n < len; num--, a += 8) {
		if (!have(c, a, 8)) {
			local_trunc(c);
			return false;
		}
		n += (size_t)snprintf(buf + n, len - n, " {%s %u}", ip4_str(a).s, be32(a + 4));
	}
	return true;
}

/* Time stamp reply (type 14). */
static bool timestamp_reply(struct ps_print_ctx *c, const uint8_t *dp, char *buf, size_t len)
{
	char org[16], recv[16], xmit[16];

	if (!have(c, dp + 16, 4)) {
		local_trunc(c);
		return false;
	}
	tstamp(org, sizeof(org), be32(dp + 8));
	tstamp(recv, sizeof(recv), be32(dp + 12));
	tstamp(xmit, sizeof(xmit), be32(dp + 16));
	snprintf(buf, len, "time stamp reply id %u seq %u: org %s, recv %s, xmit %s", be16(dp + 4),
		 be16(dp + 6), org, recv, xmit);
	return true;
}

/* Redirect (5), time exceeded (11), parameter problem (12). */
static bool errors(struct ps_print_ctx *c, const uint8_t *dp, uint8_t type, uint8_t code, char *buf,
		   size_t len)
{
	static const char *const redirect[4] = {
		"redirect %s to net %s",
		"redirect %s to host %s",
		"redirect-tos %s to net %s",
		"redirect-tos %s to host %s",
	};

	if (type == 5) {
		if (!need(c, dp + 24, 4) || !need(c, dp + 4, 4))
			return false;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
		if (code < 4)
			snprintf(buf, len, redirect[code], ip4_str(dp + 24).s, ip4_str(dp + 4).s);
		else
			snprintf(buf, len, "redirect-#%u %s to %s", code, ip4_str(dp + 24).s,
				 ip4_str(dp + 4).s);
#pragma GCC diagnostic pop
	} else if (type == 11) {
		if (!have(c, dp + 24, 4)) {
			local_trunc(c);
			return false;
		}
		if (code == 0)
			snprintf(buf, len, "time exceeded in-transit");
		else if (code == 1)
			snprintf(buf, len, "ip reassembly time exceeded");
		else
			snprintf(buf, len, "time exceeded-#%u", code);
	} else if (code) {
		snprintf(buf, len, "parameter problem - code %u", code);
	} else {
		if (!need(c, dp + 4, 1))
			return false;
		snprintf(buf, len, "parameter problem - octet %u", dp[4]);
	}
	return true;
}

/* The queries and their answers: echo (0, 8), time stamp request (13),
 * address mask reply (18), and the types shown by name or number. */
static bool queries(struct ps_print_ctx *c, const uint8_t *dp, uint8_t type, char *buf, size_t len)
{
	static const char *const names[19] = {
		[0] = "echo reply",
		[4] = "source quench",
		[8] = "echo request",
		[10] = "router solicitation",
		[13] = "time stamp request",
		[14] = "time stamp reply",
		[15] = "information request",
		[16] = "information reply",
		[17] = "address mask request",
	};

	if (type == 0 || type == 8) {
		if (!need(c, dp + 4, 4))
			return false;
		snprintf(buf, len, "echo %s, id %u, seq %u", type == 8 ? "request" : "reply",
			 be16(dp + 4), be16(dp + 6));
	} else if (type == 18) {
		if (!need(c, dp + 8, 4))
			return false;
		snprintf(buf, len, "address mask is 0x%08x", be32(dp + 8));
	} else if (type == 13) {
		if (!need(c, dp + 4, 4))
			return false;
		snprintf(buf, len, "time stamp query id %u seq %u", be16(dp + 4), be16(dp + 6));
	} else if (type < 19 && names[type]) {
		snprintf(buf, len, "%s", names[type]);
	} else {
		snprintf(buf, len, "type-#%u", type);
	}
	return true;
}

void ps_icmp_print(struct ps_print_ctx *c, const uint8_t *dp, uint32_t plen)
{
	char buf[256] = "";
	bool ok;

	c->proto = "icmp";
	if (!need(c, dp, 2))
		return;
	switch (dp[0]) {
	case 3:
		ok = unreachable(c, dp, dp[1], buf, sizeof(buf));
		break;
	case 5:
	case 11:
	case 12:
		ok = errors(c, dp, dp[0], dp[1], buf, sizeof(buf));
		break;
	case 9:
		ok = router_advertisement(c, dp, buf, sizeof(buf));
		break;
	case 14:
		ok = timestamp_reply(c, dp, buf, sizeof(buf));
		break;
	default:
		ok = queries(c, dp, dp[0], buf, sizeof(buf));
		break;
	}
	if (ok)
		ps_put(c, "ICMP %s, length %u", buf, plen);
}
