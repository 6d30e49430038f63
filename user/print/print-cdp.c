// SPDX-License-Identifier: GPL-2.0-only
/* Cisco Discovery Protocol, as tcpdump 4.99's print-cdp.c prints it
 * without -v: version, TTL, the Device-ID, every other TLV in hex, and
 * the length. Every check there abandons the decode at the capture's end
 * (ND_LONGJMP_FROM_TCHECK). */
#include "print.h"

#define CDP_HEADER_LEN 4
#define CDP_TLV_HEADER_LEN 4
#define T_DEV_ID 0x01
#define T_MAX 0x17

/* The TLVs' names and the lengths tcpdump takes as well formed (0: any). */
static const struct {
	const char *name;
	int min_len, max_len;
} tlvs[T_MAX + 1] = {
	[0x01] = { "Device-ID", -1, -1 },
	[0x02] = { "Address", -1, -1 },
	[0x03] = { "Port-ID", -1, -1 },
	[0x04] = { "Capability", 4, 4 },
	[0x05] = { "Version String", -1, -1 },
	[0x06] = { "Platform", -1, -1 },
	[0x07] = { "Prefixes", -1, -1 },
	[0x08] = { "Protocol-Hello option", -1, -1 },
	[0x09] = { "VTP Management Domain", -1, -1 },
	[0x0a] = { "Native VLAN ID", 2, 2 },
	[0x0b] = { "Duplex", 1, 1 },
	[0x0e] = { "ATA-186 VoIP VLAN assignment", 3, 3 },
	[0x0f] = { "ATA-186 VoIP VLAN request", 2, 3 },
	[0x10] = { "power consumption", 1, 3 },
	[0x11] = { "MTU", 4, 4 },
	[0x12] = { "AVVID trust bitmap", 1, 1 },
	[0x13] = { "AVVID untrusted ports CoS", 1, 1 },
	[0x14] = { "System Name", -1, -1 },
	[0x15] = { "System Object ID (not decoded)", -1, -1 },
	[0x16] = { "Management Addresses", 4, -1 },
	[0x17] = { "Physical Location", 1, -1 },
};

void ps_cdp_print(struct ps_print_ctx *c, const uint8_t *tptr, uint32_t length)
{
	uint32_t orig_length = length;

	c->proto = "cdp";
	if (length < CDP_HEADER_LEN) {
		ps_put(c, " (packet length %u < %u)", length, CDP_HEADER_LEN);
		goto invalid;
	}
	if (!need(c, tptr, 4))
		return;
	ps_put(c, "CDPv%u, ttl: %us", tptr[0], tptr[1]);
	tptr += CDP_HEADER_LEN;
	length -= CDP_HEADER_LEN;
	while (length) {
		unsigned int type, len;
		const char *name = NULL;
		bool covered = false;

		if (length < CDP_TLV_HEADER_LEN) {
			ps_put(c, " (remaining packet length %u < %u)", length, CDP_TLV_HEADER_LEN);
			goto invalid;
		}
		if (!need(c, tptr, 4))
			return;
		type = be16(tptr);
		len = be16(tptr + 2);
		if (type <= T_MAX)
			name = tlvs[type].name;
		if (len < CDP_TLV_HEADER_LEN) {
			ps_put(c, ", %s TLV length %u too short",
			       name ? name : "unknown field type", len);
			goto invalid;
		}
		if (len > length) {
			ps_put(c, " (TLV length %u > %u)", len, length);
			goto invalid;
		}
		tptr += CDP_TLV_HEADER_LEN;
		length -= CDP_TLV_HEADER_LEN;
		len -= CDP_TLV_HEADER_LEN;
		if (type == T_DEV_ID)
			ps_put(c, ", Device-ID ");
		if (type <= T_MAX) {
			int lo = tlvs[type].min_len, hi = tlvs[type].max_len;

			if ((lo > 0 && len < (unsigned int)lo) ||
			    (hi > 0 && len > (unsigned int)hi)) {
				ps_put(c, " (malformed TLV)");
			} else if (type == T_DEV_ID) {
				ps_put(c, "'");
				(void)ps_printn(c, tptr, len);
				ps_put(c, "'");
				covered = true;
			}
		}
		if (!covered) {
			if (!need(c, tptr, len))
				return;
			ps_hex_print(c, "\n\t  ", tptr, len);
		}
		tptr += len;
		length -= len;
	}
	ps_put(c, ", length %u", orig_length);
	return;
invalid:
	ps_put(c, " (invalid)");
	need(c, tptr, length);
}
