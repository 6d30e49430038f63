// SPDX-License-Identifier: GPL-2.0-only
/* IPsec AH and ESP, as tcpdump 4.99's print-ah.c and print-esp.c print
 * them without -v and without keys: the SPI and sequence number. */
#include "print.h"

uint32_t ps_ah_print(struct ps_print_ctx *c, const uint8_t *bp)
{
	uint32_t hdr_len;

	c->proto = "ah";
	ps_put(c, "AH");
	if (!need(c, bp + 1, 1))
		return 0;
	hdr_len = (bp[1] + 2u) * 4;
	ps_put(c, "(");
	if (!need(c, bp + 2, 2))
		return 0;
	if (be16(bp + 2))
		ps_put(c, "reserved=0x%x[MustBeZero],", be16(bp + 2));
	if (!need(c, bp + 4, 4))
		return 0;
	ps_put(c, "spi=0x%08x,", be32(bp + 4));
	if (!need(c, bp + 8, 4))
		return 0;
	ps_put(c, "seq=0x%x,", be32(bp + 8));
	ps_put(c, "icv=0x");
	for (const uint8_t *p = bp + 12; p < bp + hdr_len; p++) {
		if (!need(c, p, 1))
			return 0;
		ps_put(c, "%02x", *p);
	}
	ps_put(c, "): ");
	return hdr_len;
}

void ps_esp_print(struct ps_print_ctx *c, const uint8_t *bp, uint32_t length)
{
	c->proto = "esp";
	if (bp + 8 >= c->end) {
		local_trunc(c);
		return;
	}
	ps_put(c, "ESP(spi=0x%08x,seq=0x%x), length %u", be32(bp), be32(bp + 4), length);
}
