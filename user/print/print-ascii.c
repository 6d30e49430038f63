// SPDX-License-Identifier: GPL-2.0-only
/* The text and hex helpers tcpdump's printers share (util-print.c,
 * print-ascii.c): characters escaped as fn_print_char() does, counted and
 * NUL-ended strings, and hex_print()'s dump inside a line. */
#include "print.h"

void ps_print_char(struct ps_print_ctx *c, uint8_t ch)
{
	if (ch >= 0x80) {
		ch &= 0x7f;
		ps_put(c, "M-");
	}
	if (ch < 0x20 || ch == 0x7f) {
		ch ^= 0x40;
		ps_put(c, "^");
	}
	ps_put(c, "%c", ch);
}

bool ps_printn(struct ps_print_ctx *c, const uint8_t *s, uint32_t n)
{
	while (n > 0 && s < c->end) {
		n--;
		ps_print_char(c, *s++);
	}
	return n != 0;
}

bool ps_printjnp(struct ps_print_ctx *c, const uint8_t *s, uint32_t n)
{
	for (; n > 0 && need(c, s, 1) && *s; n--, s++)
		ps_print_char(c, *s);
	return !c->jumped;
}

void ps_hex_print(struct ps_print_ctx *c, const char *ident, const uint8_t *cp, uint32_t length)
{
	uint32_t caplen = avail(c, cp), i = 0, oset = 0;
	bool truncated = length > caplen;

	if (truncated)
		length = caplen;
	for (uint32_t nshorts = length / 2; nshorts; nshorts--, cp += 2) {
		if (i++ % 8 == 0) {
			ps_put(c, "%s0x%04x: ", ident, oset);
			oset += 16;
		}
		ps_put(c, " %02x%02x", cp[0], cp[1]);
	}
	if (length & 1) {
		if (i % 8 == 0)
			ps_put(c, "%s0x%04x: ", ident, oset);
		ps_put(c, " %02x", cp[0]);
	}
	if (truncated)
		c->jumped = true;
}

enum ps_line ps_text_line(struct ps_print_ctx *c, const uint8_t *p, uint32_t idx, uint32_t len,
			  bool tab, uint32_t *end)
{
	for (; idx < len; idx++) {
		if (!need(c, p + idx, 1))
			return PS_LINE_NONE;
		if (p[idx] == '\n')
			break;
		if (p[idx] == '\r') {
			/* CR-LF ends the line; a CR at the end or before
			 * anything else is taken for binary. */
			if (idx + 1 >= len || !need(c, p + idx + 1, 1) || p[idx + 1] != '\n')
				return PS_LINE_NONE;
			break;
		}
		if (!ps_isprint(p[idx]) && !(tab && p[idx] == '\t'))
			return PS_LINE_NONE;
	}
	*end = idx;
	return idx < len ? PS_LINE_END : PS_LINE_OPEN;
}
