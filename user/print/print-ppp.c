// SPDX-License-Identifier: GPL-2.0-only
/* PPP inside PPPoE, GRE and Ethernet, as tcpdump 4.99's print-ppp.c
 * prints it without -v: the network layer it carries, or a control
 * protocol's one line. CHAP, PAP and multilink get their name only. */
#include "print.h"

static const char *ppp_name(uint16_t proto)
{
	switch (proto) {
	case 0x0021:
		return "IP";
	case 0x0023:
		return "OSI";
	case 0x002b:
		return "IPX";
	case 0x002d:
		return "VJC IP";
	case 0x002f:
		return "VJNC IP";
	case 0x0057:
		return "IP6";
	case 0x003d:
		return "MLPPP";
	case 0x00fd:
		return "Compressed";
	case 0x0281:
	case 0x0283:
		return "MPLS";
	case 0x8021:
		return "IPCP";
	case 0x8023:
		return "OSICP";
	case 0x802b:
		return "IPXCP";
	case 0x8057:
		return "IP6CP";
	case 0x8281:
		return "MPLSCP";
	case 0x80fd:
		return "CCP";
	case 0xc021:
		return "LCP";
	case 0xc023:
		return "PAP";
	case 0xc025:
		return "LQM";
	case 0xc223:
		return "CHAP";
	case 0xc227:
		return "EAP";
	case 0xc02b:
		return "BACP";
	case 0xc02d:
		return "BAP";
	case 0xc03d:
		return "MLPPP-CP";
	default:
		return NULL;
	}
}

static const char *cp_code(uint8_t code)
{
	static const char *const names[] = {
		"Vendor-Extension", "Conf-Request", "Conf-Ack",	   "Conf-Nack",	  "Conf-Reject",
		"Term-Request",	    "Term-Ack",	    "Code-Reject", "Prot-Reject", "Echo-Request",
		"Echo-Reply",	    "Disc-Req",	    "Ident",	   "Time-Rem",	  "Reset-Req",
		"Reset-Ack",
	};

	return code < sizeof(names) / sizeof(names[0]) ? names[code] : "Unknown Opcode";
}

/* A control protocol's line: which, the code, the id and the length. */
static void ctrl_print(struct ps_print_ctx *c, uint16_t proto, const uint8_t *p, uint32_t length)
{
	const char *name = ppp_name(proto);

	if (name)
		ps_put(c, "%s, ", name);
	else
		ps_put(c, "unknown ctrl-proto (0x%04x), ", proto);
	if (length < 4 || !have(c, p, 2)) {
		local_trunc(c);
		return;
	}
	ps_put(c, "%s (0x%02x), id %u, length %u", cp_code(p[0]), p[0], p[1], length + 2);
}

static void handle_ppp(struct ps_print_ctx *c, uint16_t proto, const uint8_t *p, uint32_t length)
{
	switch (proto) {
	case 0xc021: /* LCP */
	case 0x8021: /* IPCP */
	case 0x8023: /* OSICP */
	case 0x8281: /* MPLSCP */
	case 0x8057: /* IP6CP */
	case 0x80fd: /* CCP */
	case 0xc02b: /* BACP */
		ctrl_print(c, proto, p, length);
		break;
	case 0x0021:
	case 0x002f:
	case 0x0800:
		ps_ip_print(c, p, length);
		break;
	case 0x0057:
	case 0x86dd:
		ps_ip6_print(c, p, length);
		break;
	case 0x0281:
	case 0x0283:
		ps_mpls_print(c, p, length);
		break;
	case 0x00fd:
		ps_put(c, "compressed PPP data");
		break;
	case 0x003d: /* multilink, CHAP, PAP, IPX, OSI: tcpdump says more */
	case 0xc223:
	case 0xc023:
	case 0xc02d:
	case 0x002b:
	case 0x8137:
	case 0x0023:
		break;
	default: {
		const char *name = ppp_name(proto);

		if (name)
			ps_put(c, "%s ", name);
		else
			ps_put(c, "unknown PPP protocol (0x%04x) ", proto);
		break;
	}
	}
}

uint32_t ps_ppp_print(struct ps_print_ctx *c, const uint8_t *p, uint32_t length)
{
	uint32_t olen = length, hdr_len = 0;
	uint16_t proto;

	c->proto = "ppp";
	if (length < 2 || !need(c, p, 2)) {
		if (!c->jumped)
			local_trunc(c);
		return 0;
	}
	switch (be16(p)) {
	case 0x0003: /* pppd's "in" */
	case 0x0103: /* and "out" */
		if (c->d->link)
			ps_put(c, "%s", p[0] ? "Out " : "In  ");
		/* fall through */
	case 0xff03: /* address and control */
		p += 2;
		length -= 2;
		hdr_len += 2;
		break;
	default:
		break;
	}
	if (length < 2 || !need(c, p, 1)) {
		if (!c->jumped)
			local_trunc(c);
		return 0;
	}
	if (p[0] % 2) { /* protocol field compression */
		proto = p[0];
		p++;
		length--;
		hdr_len++;
	} else {
		if (!need(c, p, 2))
			return 0;
		proto = be16(p);
		p += 2;
		length -= 2;
		hdr_len += 2;
	}
	if (c->d->link) {
		const char *name = ppp_name(proto);

		ps_put(c, "%s (0x%04x), length %u: ", name ? name : "unknown", proto, olen);
	}
	handle_ppp(c, proto, p, length);
	return hdr_len;
}

uint32_t ps_ppp_hdlc_print(struct ps_print_ctx *c, const uint8_t *p, uint32_t length,
			   uint32_t caplen)
{
	uint16_t proto;

	c->proto = "ppp_hdlc";
	if (caplen < 2) {
		local_trunc(c);
		return caplen;
	}
	if (p[0] == 0x0f || p[0] == 0x8f) /* Cisco HDLC: tcpdump prints it; we do not */
		return 0;
	if (caplen < 4) {
		local_trunc(c);
		return caplen;
	}
	if (c->d->link)
		ps_put(c, "%02x %02x %u ", p[0], p[1], length);
	if (p[0] != 0xff) {
		ps_put(c, "unknown addr %02x; ctrl %02x", p[2], p[3]);
		return 2;
	}
	proto = be16(p + 2);
	if (ppp_name(proto))
		ps_put(c, "%s: ", ppp_name(proto));
	else
		ps_put(c, "unknown PPP protocol (0x%04x): ", proto);
	handle_ppp(c, proto, p + 4, length - 4);
	return 4;
}
