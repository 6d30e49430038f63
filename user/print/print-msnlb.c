// SPDX-License-Identifier: GPL-2.0-only
/* Microsoft Network Load Balancing's heartbeat (ethertype 0x886f), as
 * tcpdump 4.99's print-msnlb.c prints it: the host's priority (little
 * endian), the cluster's address and the host's. */
#include "print.h"

void ps_msnlb_print(struct ps_print_ctx *c, const uint8_t *p)
{
	c->proto = "msnlb";
	ps_put(c, "MS NLB heartbeat");
	if (!need(c, p + 8, 4))
		return;
	ps_put(c, ", host priority: %u",
	       (uint32_t)p[8] | (uint32_t)p[9] << 8 | (uint32_t)p[10] << 16 |
		       (uint32_t)p[11] << 24);
	if (!need(c, p + 12, 4))
		return;
	ps_put(c, ", cluster IP: %s", ip4_str(p + 12).s);
	if (!need(c, p + 16, 4))
		return;
	ps_put(c, ", host IP: %s", ip4_str(p + 16).s);
}
