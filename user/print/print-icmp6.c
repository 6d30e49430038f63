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

/* Destination unreachable (type 1); false where printing stopped. */
static bool unreachable6(struct ps_print_ctx *c, const uint8_t *dp, uint32_t length, uint8_t code)
{
	static const char *const codes[5] = {
		"unreachable route",   " unreachable prohibited", "beyond scope",
		"unreachable address", "unreachable port",
	};
	const uint8_t *oip = dp + 8, *ouh;
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
			return false;
		ps_put(c, " %s", ip6_str(oip + 24).s);
		return true;
	case 2:
		if (!need(c, oip + 8, 32))
			return false;
		ps_put(c, " %s, source address %s", ip6_str(oip + 24).s, ip6_str(oip + 8).s);
		return true;
	case 4:
		ouh = icmp6_inner_ports(c, oip, &prot);
		if (!ouh) {
			local_trunc(c);
			return false;
		}
		if (!need(c, oip + 24, 16))
			return false;
		ps_put(c, ", %s %s port %u", ip6_str(oip + 24).s, prot == 6 ? "tcp" : "udp",
		       be16(ouh + 2));
		return true;
	default:
		unknown(c, dp, length, true);
		return false;
	}
}

/* Packet too big (2), time exceeded (3), parameter problem (4). */
static bool errors6(struct ps_print_ctx *c, const uint8_t *dp, uint8_t type, uint8_t code)
{
	static const char *const what[4] = {
		"erroneous",
		"next header",
		"option",
		"incomplete header chain",
	};
	const uint8_t *oip = dp + 8;

	if (type == 2) {
		if (!need(c, dp + 4, 4))
			return false;
		ps_put(c, ", mtu %u", be32(dp + 4));
	} else if (type == 3 && code == 0) {
		if (!need(c, oip + 24, 16))
			return false;
		ps_put(c, " for %s", ip6_str(oip + 24).s);
	} else if (type == 3 && code == 1) {
		ps_put(c, " (reassembly)");
	} else if (type == 3) {
		ps_put(c, ", unknown code (%u)", code);
	} else if (!have(c, oip + 24, 16)) {
		local_trunc(c);
		return false;
	} else if (code < 4) {
		ps_put(c, ", %s - octet %u", what[code], be32(dp + 4));
	} else {
		ps_put(c, ", code-#%u", code);
	}
	return true;
}

/* Multicast listener query (130): v1 by its length, v2 with its group
 * and how many sources. */
static bool mld_query(struct ps_print_ctx *c, const uint8_t *dp, uint32_t length)
{
	uint16_t nsrcs;

	if (length == 24) {
		if (have(c, dp, 24))
			ps_put(c, "max resp delay: %u addr: %s", be16(dp + 4), ip6_str(dp + 8).s);
		return true;
	}
	if (length < 28) {
		ps_put(c, " unknown-version (len %u) ", length);
		return true;
	}
	/* MLDv2: tcpdump prints its group and sources. */
	ps_put(c, " v2");
	if (!need(c, dp + 8, 16))
		return false;
	ps_put(c, " [gaddr %s", ip6_str(dp + 8).s);
	if (!need(c, dp + 26, 2))
		return false;
	nsrcs = be16(dp + 26);
	if (length < 28 + nsrcs * 16u)
		ps_put(c, " [invalid number of sources]");
	else
		ps_put(c, " %u source(s)]", nsrcs);
	return true;
}

/* Neighbour discovery (135-137) and the rest of the informational types
 * that say more than their name; false where printing stopped. */
static bool informational(struct ps_print_ctx *c, const uint8_t *dp, uint32_t length, uint8_t type)
{
	switch (type) {
	case 131:
	case 132:
		if (have(c, dp, 24))
			ps_put(c, "max resp delay: %u addr: %s", be16(dp + 4), ip6_str(dp + 8).s);
		return true;
	case 135:
	case 136:
		if (!need(c, dp + 8, 16))
			return false;
		ps_put(c, type == 135 ? ", who has %s" : ", tgt is %s", ip6_str(dp + 8).s);
		return true;
	case 137:
		if (!need(c, dp + 24, 16) || !need(c, dp + 8, 16))
			return false;
		ps_put(c, ", %s to %s", ip6_str(dp + 24).s, ip6_str(dp + 8).s);
		return true;
	case 143:
		if (length < 8) {
			ps_put(c, " [invalid len %u]", length);
			return true;
		}
		if (!need(c, dp + 6, 2))
			return false;
		ps_put(c, ", %u group record(s)", be16(dp + 6));
		return true;
	default: /* 144, 146 */
		if (!need(c, dp + 4, 2))
			return false;
		ps_put(c, ", id 0x%04x", be16(dp + 4));
		return true;
	}
}

void ps_icmp6_print(struct ps_print_ctx *c, const uint8_t *dp, uint32_t length)
{
	const char *name;
	bool ok = true;
	uint8_t type;

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
	switch (type) {
	case 1:
		ok = unreachable6(c, dp, length, dp[1]);
		break;
	case 2:
	case 3:
	case 4:
		ok = errors6(c, dp, type, dp[1]);
		break;
	case 128:
	case 129:
		ok = need(c, dp + 4, 4);
		if (ok)
			ps_put(c, ", id %u, seq %u", be16(dp + 4), be16(dp + 6));
		break;
	case 130:
		ok = mld_query(c, dp, length);
		break;
	case 131:
	case 132:
	case 135:
	case 136:
	case 137:
	case 143:
	case 144:
	case 146:
		ok = informational(c, dp, length, type);
		break;
	case 133:
	case 134:
	case 141:
	case 142:
	case 145:
	case 147:
		break;
	default:
		ps_put(c, ", length %u", length);
		unknown(c, dp, length, true);
		return;
	}
	if (ok)
		ps_put(c, ", length %u", length);
}
