// SPDX-License-Identifier: GPL-2.0-only
/* LLDP, as tcpdump 4.99's print-lldp.c prints it without -v: the length
 * and the system name. */
#include "print.h"

void ps_lldp_print(struct ps_print_ctx *c, const uint8_t *tptr, uint32_t len)
{
	uint32_t tlen = len;

	c->proto = "lldp";
	ps_put(c, "LLDP, length %u", len);
	while (tlen >= 2) {
		unsigned int tlv_type, tlv_len;

		if (!have(c, tptr, 2))
			goto trunc;
		tlv_type = tptr[0] >> 1;
		tlv_len = be16(tptr) & 0x1ff;
		tlen -= 2;
		tptr += 2;
		if (!tlv_type || !tlv_len)
			break;
		if (!have(c, tptr, tlv_len) || tlen < tlv_len)
			goto trunc;
		if (tlv_type == 5) { /* system name */
			ps_put(c, ": ");
			if (!ps_printjnp(c, tptr, tlv_len))
				return;
		}
		tlen -= tlv_len;
		tptr += tlv_len;
	}
	return;
trunc:
	local_trunc(c);
}
