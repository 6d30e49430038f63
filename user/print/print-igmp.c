// SPDX-License-Identifier: GPL-2.0-only
/* IGMP v1, v2 and v3, as tcpdump 4.99's print-igmp.c prints it without
 * -v. DVMRP and PIMv1 get their first words only. */
#include "print.h"

/* tcpdump's unsigned_relts_print(): 1w2d3h4m5s. */
static void relts_print(struct ps_print_ctx *c, uint32_t secs)
{
	static const char units[] = { 'y', 'w', 'd', 'h', 'm', 's' };
	static const uint32_t seconds[] = { 31536000, 604800, 86400, 3600, 60, 1 };

	if (!secs) {
		ps_put(c, "0s");
		return;
	}
	for (int k = 0; secs; k++)
		if (secs >= seconds[k]) {
			ps_put(c, "%u%c", secs / seconds[k], units[k]);
			secs %= seconds[k];
		}
}

static void v3_query(struct ps_print_ctx *c, const uint8_t *bp, uint32_t len)
{
	uint32_t mrc, mrt, nsrcs;

	ps_put(c, " v3");
	if (len < 12 || len & 3) {
		ps_put(c, " [invalid len %u]", len);
		return;
	}
	if (!need(c, bp + 1, 1))
		return;
	mrc = bp[1];
	mrt = mrc < 128 ? mrc : ((mrc & 0x0f) | 0x10) << (((mrc & 0x70) >> 4) + 3);
	if (mrc != 100) {
		ps_put(c, " [max resp time ");
		if (mrt < 600)
			ps_put(c, "%.1fs", mrt * 0.1);
		else
			relts_print(c, mrt / 10);
		ps_put(c, "]");
	}
	if (!need(c, bp + 4, 4) || !be32(bp + 4))
		return;
	ps_put(c, " [gaddr %s", ip4_str(bp + 4).s);
	if (!need(c, bp + 10, 2))
		return;
	nsrcs = be16(bp + 10);
	if (nsrcs > 0) {
		if (len < 12 + (nsrcs << 2))
			ps_put(c, " [invalid number of sources]");
		else
			ps_put(c, ", %u source(s)", nsrcs);
	}
	ps_put(c, "]");
}

/* A membership query: v3 by its length, else v1 or v2 by its max
 * response time. */
static void query(struct ps_print_ctx *c, const uint8_t *bp, uint32_t len)
{
	ps_put(c, "igmp query");
	if (len >= 12) {
		v3_query(c, bp, len);
		return;
	}
	if (!need(c, bp + 1, 1))
		return;
	if (bp[1]) {
		ps_put(c, " v2");
		if (bp[1] != 100)
			ps_put(c, " [max resp time %u]", bp[1]);
	} else {
		ps_put(c, " v1");
	}
	if (!need(c, bp + 4, 4))
		return;
	if (be32(bp + 4))
		ps_put(c, " [gaddr %s]", ip4_str(bp + 4).s);
	if (len != 8)
		ps_put(c, " [len %u]", len);
}

/* mtrace and its response: the query after 8 bytes. */
static void mtrace(struct ps_print_ctx *c, const uint8_t *bp, uint32_t len)
{
	const uint8_t *tr = bp + 8;

	if (len < 8 + 16) {
		ps_put(c, " [invalid len %u]", len);
		return;
	}
	if (!need(c, tr, 16))
		return;
	ps_put(c, "%s %u: %s to %s reply-to %s", bp[0] == 0x1e ? "mresp" : "mtrace", be24(tr + 13),
	       ip4_str(tr).s, ip4_str(tr + 4).s, ip4_str(tr + 8).s);
	if ((tr[8] & 0xf0) == 0xe0)
		ps_put(c, " with-ttl %u", tr[12]);
}

void ps_igmp_print(struct ps_print_ctx *c, const uint8_t *bp, uint32_t len)
{
	c->proto = "igmp";
	if (c->d->quiet) {
		ps_put(c, "igmp");
		return;
	}
	if (!need(c, bp, 1))
		return;
	switch (bp[0]) {
	case 0x11:
		query(c, bp, len);
		break;
	case 0x12:
	case 0x16:
	case 0x17:
		if (!need(c, bp + 4, 4))
			return;
		ps_put(c, "igmp %s %s",
		       bp[0] == 0x12 ? "v1 report" :
		       bp[0] == 0x16 ? "v2 report" :
				       "leave",
		       ip4_str(bp + 4).s);
		if (bp[0] == 0x12 && len != 8)
			ps_put(c, " [len %u]", len);
		break;
	case 0x22:
		ps_put(c, "igmp v3 report");
		if (len < 16 || len & 3) {
			ps_put(c, " [invalid len %u]", len);
			break;
		}
		if (!need(c, bp + 6, 2))
			return;
		ps_put(c, ", %u group record(s)", be16(bp + 6));
		break;
	case 0x13:
		ps_put(c, "igmp dvmrp");
		if (len < 8)
			ps_put(c, " [len %u]", len);
		break;
	case 0x14:
		ps_put(c, "igmp pimv1");
		break;
	case 0x1e:
	case 0x1f:
		mtrace(c, bp, len);
		break;
	default:
		ps_put(c, "igmp-%u", bp[0]);
		break;
	}
}
