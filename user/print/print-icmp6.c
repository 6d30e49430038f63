// SPDX-License-Identifier: GPL-2.0-only
#include <string.h>
#include "print.h"

static const char *icmp6_type_name(uint8_t t)
{
	switch (t) {
	case 1:
		return "destination unreachable";
	case 2:
		return "packet too big";
	case 3:
		return "time exceeded in-transit";
	case 4:
		return "parameter problem";
	case 128:
		return "echo request";
	case 129:
		return "echo reply";
	case 130:
		return "multicast listener query";
	case 131:
		return "multicast listener report";
	case 132:
		return "multicast listener done";
	case 133:
		return "router solicitation";
	case 134:
		return "router advertisement";
	case 135:
		return "neighbor solicitation";
	case 136:
		return "neighbor advertisement";
	case 137:
		return "redirect";
	case 138:
		return "router renumbering";
	case 141:
		return "inverse neighbor solicitation";
	case 142:
		return "inverse neighbor advertisement";
	case 143:
		return "multicast listener report v2";
	case 144:
		return "ha discovery request";
	case 145:
		return "ha discovery reply";
	case 146:
		return "mobile router solicitation";
	case 147:
		return "mobile router advertisement";
	case 139:
		return "node information query";
	case 140:
		return "node information reply";
	case 200:
		return "mtrace response";
	case 201:
		return "mtrace message";
	case 155:
		return "RPL";
	default:
		return NULL;
	}
}

/* The transport header inside an ICMPv6 error's copy of the packet. */
static const uint8_t *icmp6_inner_ports(struct ps_print_ctx *c, const uint8_t *bp,
					unsigned int *prot)
{
	const uint8_t *ep = c->end;
	unsigned int nh;
	uint32_t hlen = 40;

	if (!have(c, bp + 6, 1))
		return NULL;
	nh = bp[6];
	while (bp < ep) {
		bp += hlen;
		switch (nh) {
		case 6:
		case 17:
			if (!have(c, bp + 2, 2))
				return NULL;
			*prot = nh;
			return bp;
		case 0:
		case 60:
		case 43:
			if (!have(c, bp + 1, 1))
				return NULL;
			nh = bp[0];
			hlen = (bp[1] + 1u) << 3;
			break;
		case 44:
			if (!have(c, bp + 2, 2))
				return NULL;
			if (be16(bp + 2) & 0xfff8)
				return NULL;
			nh = bp[0];
			hlen = 8;
			break;
		case 51:
			if (!have(c, bp + 1, 1))
				return NULL;
			nh = bp[0];
			hlen = (bp[1] + 2u) << 2;
			break;
		default:
			return NULL;
		}
	}
	return NULL;
}

void ps_icmp6_print(struct ps_print_ctx *c, const uint8_t *dp, uint32_t length)
{
	const uint8_t *oip = dp + 8;
	const char *name;
	uint8_t type, code;

	c->proto = "icmp6";
	if (length == 0) {
		ps_put(c, "ICMP6, length 0 (invalid)");
		return;
	}
	if (!need(c, dp, 1))
		return;
	type = dp[0];
	name = icmp6_type_name(type);
	if (name)
		ps_put(c, "ICMP6, %s", name);
	else
		ps_put(c, "ICMP6, unknown icmp6 type (%u)", type);
	if (!need(c, dp + 1, 1))
		return;
	code = dp[1];
	switch (type) {
	case 1: {
		static const char *const codes[5] = {
			"unreachable route",   " unreachable prohibited", "beyond scope",
			"unreachable address", "unreachable port",
		};
		const uint8_t *ouh;
		unsigned int prot = 0;

		if (code < 5)
			ps_put(c, ", %s", codes[code]);
		else
			ps_put(c, ", unknown unreach code (%u)", code);
		switch (code) {
		case 0:
		case 1:
		case 3:
			if (!need(c, oip + 24, 16))
				return;
			ps_put(c, " %s", ip6_str(oip + 24).s);
			break;
		case 2:
			if (!need(c, oip + 8, 32))
				return;
			ps_put(c, " %s, source address %s", ip6_str(oip + 24).s,
			       ip6_str(oip + 8).s);
			break;
		case 4:
			ouh = icmp6_inner_ports(c, oip, &prot);
			if (!ouh) {
				local_trunc(c);
				return;
			}
			if (!need(c, oip + 24, 16))
				return;
			if (prot == 6)
				ps_put(c, ", %s tcp port %u", ip6_str(oip + 24).s, be16(ouh + 2));
			else
				ps_put(c, ", %s udp port %u", ip6_str(oip + 24).s, be16(ouh + 2));
			break;
		default:
			unknown(c, dp, length, true);
			return;
		}
		break;
	}
	case 2:
		if (!need(c, dp + 4, 4))
			return;
		ps_put(c, ", mtu %u", be32(dp + 4));
		break;
	case 3:
		if (code == 0) {
			if (!need(c, oip + 24, 16))
				return;
			ps_put(c, " for %s", ip6_str(oip + 24).s);
		} else if (code == 1) {
			ps_put(c, " (reassembly)");
		} else {
			ps_put(c, ", unknown code (%u)", code);
		}
		break;
	case 4: {
		static const char *const what[4] = {
			"erroneous",
			"next header",
			"option",
			"incomplete header chain",
		};

		if (!have(c, oip + 24, 16)) {
			local_trunc(c);
			return;
		}
		if (code < 4)
			ps_put(c, ", %s - octet %u", what[code], be32(dp + 4));
		else
			ps_put(c, ", code-#%u", code);
		break;
	}
	case 128:
	case 129:
		if (!need(c, dp + 4, 4))
			return;
		ps_put(c, ", id %u, seq %u", be16(dp + 4), be16(dp + 6));
		break;
	case 130:
		if (length == 24) {
			if (have(c, dp, 24))
				ps_put(c, "max resp delay: %u addr: %s", be16(dp + 4),
				       ip6_str(dp + 8).s);
		} else if (length >= 28) {
			/* MLDv2 query: tcpdump prints its group and sources. */
			uint16_t nsrcs;

			ps_put(c, " v2");
			if (!need(c, dp + 8, 16))
				return;
			ps_put(c, " [gaddr %s", ip6_str(dp + 8).s);
			if (!need(c, dp + 26, 2))
				return;
			nsrcs = be16(dp + 26);
			if (length < 28 + nsrcs * 16u)
				ps_put(c, " [invalid number of sources]");
			else
				ps_put(c, " %u source(s)]", nsrcs);
		} else {
			ps_put(c, " unknown-version (len %u) ", length);
		}
		break;
	case 131:
	case 132:
		if (have(c, dp, 24))
			ps_put(c, "max resp delay: %u addr: %s", be16(dp + 4), ip6_str(dp + 8).s);
		break;
	case 133:
	case 134:
	case 141:
	case 142:
		break;
	case 135:
		if (!need(c, dp + 8, 16))
			return;
		ps_put(c, ", who has %s", ip6_str(dp + 8).s);
		break;
	case 136:
		if (!need(c, dp + 8, 16))
			return;
		ps_put(c, ", tgt is %s", ip6_str(dp + 8).s);
		break;
	case 137:
		if (!need(c, dp + 24, 16) || !need(c, dp + 8, 16))
			return;
		ps_put(c, ", %s to %s", ip6_str(dp + 24).s, ip6_str(dp + 8).s);
		break;
	case 143:
		if (length < 8) {
			ps_put(c, " [invalid len %u]", length);
			break;
		}
		if (!need(c, dp + 6, 2))
			return;
		ps_put(c, ", %u group record(s)", be16(dp + 6));
		break;
	case 144:
	case 146:
		if (!need(c, dp + 4, 2))
			return;
		ps_put(c, ", id 0x%04x", be16(dp + 4));
		break;
	case 145:
	case 147:
		break;
	default:
		ps_put(c, ", length %u", length);
		unknown(c, dp, length, true);
		return;
	}
	ps_put(c, ", length %u", length);
}
