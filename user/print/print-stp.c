// SPDX-License-Identifier: GPL-2.0-only
/* Spanning tree BPDUs (802.1D, 802.1w, 802.1s, 802.1aq), as tcpdump
 * 4.99's print-stp.c prints them without -v. */
#include "print.h"

#define STP_BPDU_LEN 36 /* struct stp_bpdu_, through v1_length */
#define STP_BPDU_MSTP_MIN_LEN 102
#define MST_BPDU_VER3_LEN_OFFSET 36
#define SPB_BPDU_MIN_LEN 87

/* tcpdump's stp_bpdu_flag_values through bittok2str(). */
static void flags_print(struct ps_print_ctx *c, uint8_t flags)
{
	static const struct ps_bit names[] = {
		{ 0x01, "Topology change" }, { 0x02, "Proposal" },  { 0x10, "Learn" },
		{ 0x20, "Forward" },	     { 0x40, "Agreement" }, { 0x80, "Topology change ACK" },
	};

	ps_put_bits(c, names, sizeof(names) / sizeof(names[0]), flags, "none");
}

static bool config_bpdu(struct ps_print_ctx *c, const uint8_t *p, uint32_t length)
{
	const uint8_t *b = p + 17; /* bridge id */

	if (!need(c, p + 4, 1))
		return false;
	ps_put(c, ", Flags [");
	flags_print(c, p[4]);
	ps_put(c, "]");
	if (!need(c, b, 10))
		return false;
	ps_put(c, ", bridge-id %02x%02x.%02x:%02x:%02x:%02x:%02x:%02x.%04x, length %u", b[0], b[1],
	       b[2], b[3], b[4], b[5], b[6], b[7], be16(b + 8), length);
	return true;
}

/* An MSTP (802.1s) or SPB (802.1aq) BPDU: its lengths checked, the CIST
 * flags; false where it is invalid (said by the caller). */
static bool mstp_bpdu(struct ps_print_ctx *c, const uint8_t *p, uint32_t length,
		      unsigned int version)
{
	unsigned int mstp_len, spb_len;

	if (length < STP_BPDU_MSTP_MIN_LEN)
		return false;
	if (!need(c, p + 35, 1))
		return true;
	if (p[35] != 0)
		return false;
	if (!need(c, p + MST_BPDU_VER3_LEN_OFFSET, 2))
		return true;
	mstp_len = be16(p + MST_BPDU_VER3_LEN_OFFSET) + 2u;
	if (length < STP_BPDU_LEN + mstp_len)
		return false;
	if (!need(c, p + 4, 1))
		return true;
	ps_put(c, ", CIST Flags [");
	flags_print(c, p[4]);
	ps_put(c, "], length %u", length);
	if (version != 4)
		return true;
	if (!need(c, p + MST_BPDU_VER3_LEN_OFFSET + mstp_len, 2))
		return true;
	spb_len = be16(p + MST_BPDU_VER3_LEN_OFFSET + mstp_len) + 2u;
	return length >= STP_BPDU_LEN + mstp_len + spb_len && spb_len >= SPB_BPDU_MIN_LEN;
}

void ps_stp_print(struct ps_print_ctx *c, const uint8_t *p, uint32_t length)
{
	unsigned int version, type;

	c->proto = "stp";
	if (length < 4)
		goto invalid;
	if (!need(c, p, 2))
		return;
	if (be16(p)) {
		ps_put(c, "unknown STP version, length %u", length);
		return;
	}
	if (!need(c, p + 2, 1))
		return;
	version = p[2];
	switch (version) {
	case 0:
		ps_put(c, "STP 802.1d");
		break;
	case 2:
		ps_put(c, "STP 802.1w");
		break;
	case 3:
		ps_put(c, "STP 802.1s");
		break;
	case 4:
		ps_put(c, "STP 802.1aq");
		break;
	default:
		ps_put(c, "STP Unknown STP protocol (0x%02x)", version);
		return;
	}
	if (!need(c, p + 3, 1))
		return;
	type = p[3];
	if (type == 0)
		ps_put(c, ", Config");
	else if (type == 2)
		ps_put(c, ", Rapid STP");
	else if (type == 0x80)
		ps_put(c, ", Topology Change");
	else
		ps_put(c, ", Unknown BPDU Type (0x%02x)", type);
	if (type == 0) {
		if (length < STP_BPDU_LEN - 1)
			goto invalid;
		config_bpdu(c, p, length);
	} else if (type == 2 && version == 2) {
		if (length < STP_BPDU_LEN)
			goto invalid;
		config_bpdu(c, p, length);
	} else if (type == 2 && (version == 3 || version == 4)) {
		if (!mstp_bpdu(c, p, length, version))
			goto invalid;
	}
	return;
invalid:
	ps_put(c, " (invalid)");
}
