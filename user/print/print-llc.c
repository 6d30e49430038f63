// SPDX-License-Identifier: GPL-2.0-only
/*
 * IEEE 802.2 LLC and SNAP, as tcpdump 4.99's print-llc.c prints them:
 * what 802.3 frames (STP, CDP, SNAP-encapsulated ethertypes) and Linux
 * cooked 802.2 frames carry, or the LLC header's own line.
 */
#include "print.h"

#define LLC_U_FMT 3
#define LLC_GSAP 1
#define LLC_IG 1
#define LLC_S_FMT 1
#define LLC_U_POLL 0x10
#define LLC_IS_POLL 0x0100
#define LLC_XID_FI 0x81
#define LLC_UI 0x03
#define LLC_XID 0xaf
#define LLCSAP_GLOBAL 0xff
#define LLCSAP_IP 0x06
#define LLCSAP_8021D 0x42
#define LLCSAP_SNAP 0xaa
#define LLCSAP_IPX 0xe0
#define LLCSAP_ISONS 0xfe

static const char *sap_name(uint8_t sap)
{
	switch (sap) {
	case 0x00:
		return "Null";
	case 0xff:
		return "Global";
	case 0x02:
		return "802.1B I";
	case 0x03:
		return "802.1B G";
	case 0x06:
		return "IP";
	case 0x04:
		return "SNA";
	case 0x0e:
		return "ProWay NM";
	case 0x42:
		return "STP";
	case 0x4e:
		return "RS511";
	case 0x7e:
		return "ISO8208";
	case 0x8e:
		return "ProWay";
	case 0xaa:
		return "SNAP";
	case 0xe0:
		return "IPX";
	case 0xf0:
		return "NetBeui";
	case 0xfe:
		return "OSI";
	default:
		return NULL;
	}
}

static const char *cmd_name(uint8_t cmd)
{
	switch (cmd) {
	case 0x03:
		return "ui";
	case 0xe3:
		return "test";
	case 0xaf:
		return "xid";
	case 0x63:
		return "ua";
	case 0x43:
		return "disc";
	case 0x0f:
		return "dm";
	case 0x6f:
		return "sabme";
	case 0x87:
		return "frmr";
	default:
		return NULL;
	}
}

/* tcpdump's llc_flag_values, by (ssap's C/R bit | the poll bit). */
static const char *flag_name(unsigned int v)
{
	switch (v) {
	case 0:
		return "Command";
	case LLC_GSAP:
		return "Response";
	case LLC_U_POLL:
	case LLC_IS_POLL:
		return "Poll";
	case LLC_GSAP | LLC_U_POLL:
	case LLC_GSAP | LLC_IS_POLL:
		return "Final";
	default:
		return "?";
	}
}

static const char *oui_name(uint32_t oui)
{
	switch (oui) {
	case 0x000000:
		return "Ethernet";
	case 0x00000c:
		return "Cisco";
	case 0x00005e:
		return "IANA";
	case 0x000081:
		return "Nortel Networks SONMP";
	case 0x0000f8:
		return "Cisco bridged";
	case 0x0080c2:
		return "Ethernet bridged";
	case 0x00a03e:
		return "ATM Forum";
	case 0x00e02f:
		return "DOCSIS Spanning Tree";
	case 0x080007:
		return "Appletalk";
	case 0x009069:
		return "Juniper";
	case 0x080009:
		return "Hewlett-Packard";
	case 0x00120f:
		return "IEEE 802.3 Private";
	case 0x0012bb:
		return "ANSI/TIA";
	case 0x001b21:
		return "DCBX";
	case 0x002320:
		return "Nicira Networks";
	case 0x5c16c7:
		return "Big Switch Networks";
	case 0xb0d2f5:
		return "Vello Systems";
	case 0x002481:
		return "HP";
	case 0x0004ea:
		return "HP-Labs";
	case 0x748771:
		return "Infoblox Inc";
	case 0xa42305:
		return "Open Networking Lab";
	case 0x00049f:
		return "Freescale";
	case 0x0015ad:
		return "Netronome";
	case 0x001018:
		return "Broadcom";
	case 0x00e004:
		return "PMC-Sierra";
	case 0xd0f0db:
		return "Ericsson";
	default:
		return NULL;
	}
}

/* The name of a SNAP protocol id under its OUI (oui_to_struct_tok()). */
static const char *pid_name(uint32_t oui, uint16_t pid)
{
	if (oui == 0x000000 || oui == 0x0000f8 || oui == 0x080007)
		return ps_ethertype_name(pid);
	if (oui == 0x00000c)
		switch (pid) {
		case 0x2000:
			return "CDP";
		case 0x2003:
			return "VTP";
		case 0x2004:
			return "DTP";
		case 0x0111:
			return "UDLD";
		case 0x010b:
			return "PVST";
		case 0x010c:
			return "VLAN Bridge";
		}
	if (oui == 0x0080c2) {
		static const char *const bridged[] = {
			NULL,
			"Ethernet + FCS",
			"802.4 + FCS",
			"Token Ring + FCS",
			"FDDI + FCS",
			"802.6 + FCS",
			NULL,
			"Ethernet w/o FCS",
			"802.4 w/o FCS",
			"Token Ring w/o FCS",
			"FDDI w/o FCS",
			"802.6 w/o FCS",
			NULL,
			NULL,
			"BPDU",
		};

		if (pid < sizeof(bridged) / sizeof(bridged[0]))
			return bridged[pid];
	}
	return NULL;
}

static const char *or_unknown(const char *s)
{
	return s ? s : "Unknown";
}

/* SNAP after an LLC UI header: true when it printed what follows. */
static bool snap_print(struct ps_print_ctx *c, const uint8_t *p, uint32_t length, uint32_t caplen,
		       const uint8_t *src, const uint8_t *dst)
{
	uint32_t oui;
	uint16_t et;

	c->proto = "snap";
	if (!have(c, p, 5) || caplen < 5 || length < 5) {
		local_trunc(c);
		return true;
	}
	oui = be24(p);
	et = be16(p + 3);
	if (c->d->link)
		ps_put(c, "oui %s (0x%06x), %s %s (0x%04x), length %u: ", or_unknown(oui_name(oui)),
		       oui, oui == 0 ? "ethertype" : "pid", or_unknown(pid_name(oui, et)), et,
		       length - 5);
	p += 5;
	length -= 5;
	caplen -= 5;
	switch (oui) {
	case 0x000000:
	case 0x0000f8:
		if (ps_ethertype_print(c, et, p, length))
			return true;
		break;
	case 0x080007:
		if (et == 0x809b && ps_ethertype_print(c, et, p, length))
			return true;
		break;
	case 0x00000c:
		if (et == 0x2000) {
			ps_cdp_print(c, p, length);
			return true;
		}
		if (et == 0x010b || et == 0x010c) {
			ps_stp_print(c, p, length);
			return true;
		}
		if (et == 0x0111) {
			ps_udld_print(c, p, length);
			return true;
		}
		if (et == 0x2004) {
			ps_dtp_print(c, p, length);
			return true;
		}
		break;
	case 0x0080c2:
		if (et == 0x0001 || et == 0x0007) { /* bridged Ethernet, 2 bytes of pad */
			if (!need(c, p, 2))
				return true;
			ps_ether_print(c, p + 2, length - 2, caplen - 2);
			return true;
		}
		if (et == 0x000e) {
			ps_stp_print(c, p, length);
			return true;
		}
		if (et == 0x0003 || et == 0x0009 || et == 0x0004 || et == 0x000a)
			return true; /* Token Ring, FDDI: tcpdump prints them; we do not */
		break;
	}
	if (!c->d->link) {
		if (src && dst)
			ps_put(c, "%s > %s ", mac_str(src).s, mac_str(dst).s);
		if (oui == 0)
			ps_put(c, "SNAP, ethertype %s (0x%04x), length %u: ",
			       or_unknown(ps_ethertype_name(et)), et, length);
		else
			ps_put(c, "SNAP, oui %s (0x%06x), pid %s (0x%04x), length %u: ",
			       or_unknown(oui_name(oui)), oui, or_unknown(pid_name(oui, et)), et,
			       length);
	}
	return false;
}

/* Without -e: the SAPs by name (one where both are the same), after the
 * addresses where there are any. */
static void saps(struct ps_print_ctx *c, uint8_t ssap, uint8_t dsap, const uint8_t *src,
		 const uint8_t *dst)
{
	char sbuf[24], dbuf[24];

	if (sap_name(dsap))
		snprintf(dbuf, sizeof(dbuf), "%s", sap_name(dsap));
	else
		snprintf(dbuf, sizeof(dbuf), "Unknown DSAP 0x%02x", dsap);
	if (ssap == dsap) {
		if (src && dst)
			ps_put(c, "%s > %s %s ", mac_str(src).s, mac_str(dst).s, dbuf);
		else
			ps_put(c, "%s ", dbuf);
		return;
	}
	if (sap_name(ssap))
		snprintf(sbuf, sizeof(sbuf), "%s", sap_name(ssap));
	else
		snprintf(sbuf, sizeof(sbuf), "Unknown SSAP 0x%02x", ssap);
	if (src && dst)
		ps_put(c, "%s %s > %s %s ", mac_str(src).s, sbuf, mac_str(dst).s, dbuf);
	else
		ps_put(c, "%s > %s ", sbuf, dbuf);
}

/* An unnumbered frame's XID information field (p, after the header);
 * true if it was one. */
static bool xid_print(struct ps_print_ctx *c, const uint8_t *p, uint32_t length, uint32_t caplen)
{
	if (length == 0)
		return true;
	if (caplen < 1) {
		local_trunc(c);
		return true;
	}
	if (!need(c, p, 1))
		return true;
	if (p[0] != LLC_XID_FI)
		return false;
	if (caplen < 3 || length < 3) {
		local_trunc(c);
		unknown(c, p, caplen, false);
	} else if (need(c, p, 3)) {
		ps_put(c, ": %02x %02x", p[1], p[2]);
	}
	return true;
}

/* The frame's kind from its control field: unnumbered (and XID's field),
 * supervisory, information. ps_llc_print's return value. */
static int control_print(struct ps_print_ctx *c, const uint8_t *p, uint32_t length, uint32_t caplen,
			 int hdrlen, bool is_u, uint16_t control, uint8_t ssap_field)
{
	static const char *const sup[] = { "Receiver Ready", "Receiver not Ready", "Reject", "?" };
	uint32_t wire = length + (uint32_t)hdrlen;

	if (is_u) {
		const char *cmd = cmd_name(control & 0xef);

		if (cmd)
			ps_put(c, "Unnumbered, %s", cmd);
		else
			ps_put(c, "Unnumbered, %02x", control & 0xef);
		ps_put(c, ", Flags [%s], length %u",
		       flag_name((ssap_field & LLC_GSAP) | (control & LLC_U_POLL)), wire);
		if ((control & ~LLC_U_POLL) == LLC_XID && xid_print(c, p, length, caplen))
			return hdrlen;
	} else if ((control & LLC_S_FMT) == LLC_S_FMT) {
		ps_put(c, "Supervisory, %s, rcv seq %u, Flags [%s], length %u",
		       sup[(control >> 2) & 3], (control >> 9) & 0x7f,
		       flag_name((ssap_field & LLC_GSAP) | (control & LLC_IS_POLL)), wire);
		return hdrlen;
	} else {
		ps_put(c, "Information, send seq %u, rcv seq %u, Flags [%s], length %u",
		       (control >> 1) & 0x7f, (control >> 9) & 0x7f,
		       flag_name((ssap_field & LLC_GSAP) | (control & LLC_IS_POLL)), wire);
	}
	return -hdrlen;
}

int ps_llc_print(struct ps_print_ctx *c, const uint8_t *p, uint32_t length, uint32_t caplen,
		 const uint8_t *src, const uint8_t *dst)
{
	uint8_t dsap_field, ssap_field, dsap, ssap;
	uint16_t control;
	int hdrlen;
	bool is_u;

	c->proto = "llc";
	if (caplen < 3 || length < 3) {
		local_trunc(c);
		unknown(c, p, caplen, false);
		return (int)(caplen < 3 ? caplen : length);
	}
	if (!need(c, p, 3))
		return 0;
	dsap_field = p[0];
	ssap_field = p[1];
	control = p[2];
	if ((control & LLC_U_FMT) == LLC_U_FMT) {
		is_u = true;
		hdrlen = 3;
	} else {
		if (caplen < 4 || length < 4) {
			local_trunc(c);
			unknown(c, p, caplen, false);
			return (int)(caplen < 4 ? caplen : length);
		}
		if (!need(c, p, 4))
			return 0;
		control = (uint16_t)(p[2] | p[3] << 8);
		is_u = false;
		hdrlen = 4;
	}
	if (ssap_field == LLCSAP_GLOBAL && dsap_field == LLCSAP_GLOBAL) {
		/* Novell's raw 802.3 IPX: tcpdump prints it; we do not. */
		if (c->d->link)
			ps_put(c, "IPX 802.3: ");
		return 0;
	}
	dsap = dsap_field & ~LLC_IG;
	ssap = ssap_field & ~LLC_GSAP;
	if (c->d->link) {
		ps_put(c, "LLC, dsap %s (0x%02x) %s, ssap %s (0x%02x) %s",
		       or_unknown(sap_name(dsap)), dsap,
		       dsap_field & LLC_IG ? "Group" : "Individual", or_unknown(sap_name(ssap)),
		       ssap, ssap_field & LLC_GSAP ? "Response" : "Command");
		ps_put(c, is_u ? ", ctrl 0x%02x: " : ", ctrl 0x%04x: ", control);
	}
	p += hdrlen;
	length -= (uint32_t)hdrlen;
	caplen -= (uint32_t)hdrlen;
	if (ssap == LLCSAP_SNAP && dsap == LLCSAP_SNAP && control == LLC_UI)
		return snap_print(c, p, length, caplen, src, dst) ? hdrlen + 5 : -(hdrlen + 5);
	if (ssap == LLCSAP_8021D && dsap == LLCSAP_8021D && control == LLC_UI) {
		ps_stp_print(c, p, length);
		return hdrlen;
	}
	if (ssap == LLCSAP_IP && dsap == LLCSAP_IP && control == LLC_UI) {
		ps_ip_print(c, p, length);
		return hdrlen;
	}
	if ((ssap == LLCSAP_IPX && dsap == LLCSAP_IPX && control == LLC_UI) ||
	    (ssap == LLCSAP_ISONS && dsap == LLCSAP_ISONS && control == LLC_UI)) {
		/* IPX, OSI: tcpdump prints them; we do not. */
		if (c->d->link && ssap == LLCSAP_IPX)
			ps_put(c, "IPX 802.2: ");
		return hdrlen;
	}
	if (!c->d->link)
		saps(c, ssap, dsap, src, dst);
	return control_print(c, p, length, caplen, hdrlen, is_u, control, ssap_field);
}
