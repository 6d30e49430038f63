// SPDX-License-Identifier: GPL-2.0-only
/* Cisco's UniDirectional Link Detection (SNAP, OUI 00000c, PID 0x0111), as
 * tcpdump 4.99's print-udld.c prints it without -v: version, opcode,
 * flags and length; the rest only checked as captured. */
#include "print.h"

#define UDLD_HEADER_LEN 4

void ps_udld_print(struct ps_print_ctx *c, const uint8_t *p, uint32_t length)
{
	static const char *const codes[] = { "Reserved", "Probe message", "Echo message",
					     "Flush message" };
	static const struct ps_bit flags[] = {
		{ 1u << 0, "RT" },    { 1u << 1, "RSY" },   { 1u << 2, "MBZ-2" },
		{ 1u << 3, "MBZ-3" }, { 1u << 4, "MBZ-4" }, { 1u << 5, "MBZ-5" },
		{ 1u << 6, "MBZ-6" }, { 1u << 7, "MBZ-7" },
	};
	unsigned int code;

	c->proto = "udld";
	if (length < UDLD_HEADER_LEN) {
		ps_put(c, " (invalid)");
		need(c, p, length);
		return;
	}
	if (!need(c, p, 2))
		return;
	code = p[0] & 0x1f;
	ps_put(c, "UDLDv%u, Code %s (%x), Flags [", p[0] >> 5, code < 4 ? codes[code] : "Reserved",
	       code);
	ps_put_bits(c, flags, sizeof(flags) / sizeof(flags[0]), p[1], "none");
	ps_put(c, "] (0x%02x), length %u", p[1], length);
	need(c, p + 2, length - 2);
}
