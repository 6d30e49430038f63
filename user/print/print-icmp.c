// SPDX-License-Identifier: GPL-2.0-only
#include <string.h>
#include "print.h"

/* An ICMP timestamp, milliseconds since midnight UTC, as hh:mm:ss.mmm. */
static void tstamp(char *buf, size_t n, uint32_t ms)
{
	uint32_t sec = ms / 1000, min = sec / 60, hrs = min / 60;

	snprintf(buf, n, "%02u:%02u:%02u.%03u", hrs, min % 60, sec % 60, ms % 1000);
}

void ps_icmp_print(struct ps_print_ctx *c, const uint8_t *dp, uint32_t plen)
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
	static const char *const redirect[4] = {
		"redirect %s to net %s",
		"redirect %s to host %s",
		"redirect-tos %s to net %s",
		"redirect-tos %s to host %s",
	};
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
	char buf[256];
	uint8_t type, code;

	c->proto = "icmp";
	if (!need(c, dp, 2))
		return;
	type = dp[0];
	code = dp[1];
	buf[0] = 0;
	switch (type) {
	case 0:
	case 8:
		if (!need(c, dp + 4, 4))
			return;
		snprintf(buf, sizeof(buf), "echo %s, id %u, seq %u",
			 type == 8 ? "request" : "reply", be16(dp + 4), be16(dp + 6));
		break;
	case 3: {
		const uint8_t *oip = dp + 8;

		if (code == 3) {
			uint32_t hlen;
			uint16_t port;

			if (!have(c, oip + 9, 1)) {
				local_trunc(c);
				return;
			}
			if (!need(c, oip, 1))
				return;
			hlen = (oip[0] & 15) * 4u;
			if (!need(c, oip + hlen + 2, 2) || !need(c, oip + 16, 4))
				return;
			port = be16(oip + hlen + 2);
			if (oip[9] == 6)
				snprintf(buf, sizeof(buf), "%s tcp port %u unreachable",
					 ip4_str(oip + 16).s, port);
			else if (oip[9] == 17)
				snprintf(buf, sizeof(buf), "%s udp port %u unreachable",
					 ip4_str(oip + 16).s, port);
			else
				snprintf(buf, sizeof(buf), "%s protocol %u port %u unreachable",
					 ip4_str(oip + 16).s, oip[9], port);
			break;
		}
		if (!need(c, oip + 16, 4))
			return;
		if (code == 0) {
			snprintf(buf, sizeof(buf), "net %s unreachable", ip4_str(oip + 16).s);
		} else if (code == 1) {
			snprintf(buf, sizeof(buf), "host %s unreachable", ip4_str(oip + 16).s);
		} else if (code == 2) {
			if (!need(c, oip + 9, 1))
				return;
			snprintf(buf, sizeof(buf), "%s protocol %u unreachable",
				 ip4_str(oip + 16).s, oip[9]);
		} else if (code == 4) {
			uint16_t mtu;

			if (!need(c, dp + 6, 2))
				return;
			mtu = be16(dp + 6);
			if (mtu)
				snprintf(buf, sizeof(buf), "%s unreachable - need to frag (mtu %u)",
					 ip4_str(oip + 16).s, mtu);
			else
				snprintf(buf, sizeof(buf), "%s unreachable - need to frag",
					 ip4_str(oip + 16).s);
		} else if (code < 16 && unreach[code]) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
			snprintf(buf, sizeof(buf), unreach[code], ip4_str(oip + 16).s);
#pragma GCC diagnostic pop
		} else {
			snprintf(buf, sizeof(buf), "%s unreachable - #%u", ip4_str(oip + 16).s,
				 code);
		}
		break;
	}
	case 5:
		if (!need(c, dp + 24, 4) || !need(c, dp + 4, 4))
			return;
		if (code < 4) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
			snprintf(buf, sizeof(buf), redirect[code], ip4_str(dp + 24).s,
				 ip4_str(dp + 4).s);
#pragma GCC diagnostic pop
		} else {
			snprintf(buf, sizeof(buf), "redirect-#%u %s to %s", code,
				 ip4_str(dp + 24).s, ip4_str(dp + 4).s);
		}
		break;
	case 11:
		if (!have(c, dp + 24, 4)) {
			local_trunc(c);
			return;
		}
		if (code == 0)
			snprintf(buf, sizeof(buf), "time exceeded in-transit");
		else if (code == 1)
			snprintf(buf, sizeof(buf), "ip reassembly time exceeded");
		else
			snprintf(buf, sizeof(buf), "time exceeded-#%u", code);
		break;
	case 12:
		if (code) {
			snprintf(buf, sizeof(buf), "parameter problem - code %u", code);
		} else {
			if (!need(c, dp + 4, 1))
				return;
			snprintf(buf, sizeof(buf), "parameter problem - octet %u", dp[4]);
		}
		break;
	case 18:
		if (!need(c, dp + 8, 4))
			return;
		snprintf(buf, sizeof(buf), "address mask is 0x%08x", be32(dp + 8));
		break;
	case 13:
		if (!need(c, dp + 4, 4))
			return;
		snprintf(buf, sizeof(buf), "time stamp query id %u seq %u", be16(dp + 4),
			 be16(dp + 6));
		break;
	case 14: {
		char org[16], recv[16], xmit[16];

		if (!have(c, dp + 16, 4)) {
			local_trunc(c);
			return;
		}
		tstamp(org, sizeof(org), be32(dp + 8));
		tstamp(recv, sizeof(recv), be32(dp + 12));
		tstamp(xmit, sizeof(xmit), be32(dp + 16));
		snprintf(buf, sizeof(buf),
			 "time stamp reply id %u seq %u: org %s, recv %s, xmit %s", be16(dp + 4),
			 be16(dp + 6), org, recv, xmit);
		break;
	}
	case 9: { /* router advertisement (RFC 1256) */
		unsigned int lifetime, num;
		size_t n;

		if (!have(c, dp + 4, 4)) {
			local_trunc(c);
			return;
		}
		lifetime = be16(dp + 6);
		num = dp[4];
		if (lifetime < 60)
			n = (size_t)snprintf(buf, sizeof(buf), "router advertisement lifetime %u",
					     lifetime);
		else if (lifetime < 3600)
			n = (size_t)snprintf(buf, sizeof(buf),
					     "router advertisement lifetime %u:%02u", lifetime / 60,
					     lifetime % 60);
		else
			n = (size_t)snprintf(buf, sizeof(buf),
					     "router advertisement lifetime %u:%02u:%02u",
					     lifetime / 3600, lifetime % 3600 / 60, lifetime % 60);
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, " %u:", num);
		if (dp[5] != 2) {
			snprintf(buf + n, sizeof(buf) - n, " [size %u]", dp[5]);
			break;
		}
		for (const uint8_t *a = dp + 8; num > 0 && n < sizeof(buf); num--, a += 8) {
			if (!have(c, a, 8)) {
				local_trunc(c);
				return;
			}
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, " {%s %u}", ip4_str(a).s,
					      be32(a + 4));
		}
		break;
	}
	default:
		if (type < 19 && names[type])
			snprintf(buf, sizeof(buf), "%s", names[type]);
		else
			snprintf(buf, sizeof(buf), "type-#%u", type);
		break;
	}
	ps_put(c, "ICMP %s, length %u", buf, plen);
}
