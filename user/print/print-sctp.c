// SPDX-License-Identifier: GPL-2.0-only
/* SCTP, as tcpdump 4.99's print-sctp.c prints it without -vv: the
 * addresses and ports, then each chunk's number, type and header fields.
 * ForCES payloads get no more than the chunk's fields. */
#include "print.h"

#define SCTP_HDR_LEN 12
#define CHUNK_HDR_LEN 4

static const char *chunk_name(uint8_t id, char *buf, size_t n)
{
	static const char *const low[] = {
		"DATA",	       "INIT",	     "INIT ACK", "SACK",	 "HB REQ",
		"HB ACK",      "ABORT",	     "SHUTDOWN", "SHUTDOWN ACK", "OP ERR",
		"COOKIE ECHO", "COOKIE ACK", "ECN ECHO", "ECN CWR",	 "SHUTDOWN COMPLETE",
	};

	if (id < sizeof(low) / sizeof(low[0]))
		return low[id];
	if (id == 0xc0)
		return "FOR CUM TSN";
	if (id == 0xc1)
		return "REL CTRL";
	if (id == 0xc2)
		return "REL CTRL ACK";
	snprintf(buf, n, "Unknown chunk type: 0x%x", id);
	return buf;
}

static const char *ppid_name(uint32_t ppid, char *buf, size_t n)
{
	static const char *const names[] = {
		NULL,	     "ISDN Q.921", "M2UA",	"M3UA",	  "SUA",  "M2PA", "V5.2",
		"H.248",     "BICC",	   "TALI",	"DUA",	  "ASAP", "ENRP", "H.323",
		"Q.IPC",     "SIMCO",	   "DDPSC",	"DDPSSC", "S1AP", "RUA",  "HNBAP",
		"ForCES HP", "ForCES MP",  "ForCES LP", "SBc-AP", "NBAP", NULL,	  "X2AP",
	};

	if (ppid < sizeof(names) / sizeof(names[0]) && names[ppid])
		return names[ppid];
	snprintf(buf, n, "0x%x", ppid);
	return buf;
}

static bool forces_port(uint16_t port)
{
	return port >= 6704 && port <= 6706;
}

void ps_sctp_print(struct ps_print_ctx *c, const uint8_t *bp, uint32_t length, const struct l3 *n)
{
	static const char *const channels[] = { "ForCES HP", "ForCES MP", "ForCES LP" };
	uint16_t sport, dport;
	uint32_t remaining = length;
	const char *sep = " (";
	char buf[40];

	c->proto = "sctp";
	if (length < SCTP_HDR_LEN) {
		ps_put(c, "truncated-sctp - %u bytes missing!", SCTP_HDR_LEN - length);
		return;
	}
	if (!have(c, bp, SCTP_HDR_LEN)) {
		local_trunc(c);
		return;
	}
	sport = be16(bp);
	dport = be16(bp + 2);
	ps_put(c, "%s.%u > %s.%u: sctp", l3_src(n).s, sport, l3_dst(n).s, dport);
	if (forces_port(sport))
		ps_put(c, "[%s]", channels[sport - 6704]);
	if (forces_port(dport))
		ps_put(c, "[%s]", channels[dport - 6704]);
	bp += SCTP_HDR_LEN;
	remaining -= SCTP_HDR_LEN;
	for (unsigned int count = 0; remaining != 0; count++) {
		uint16_t clen, cleft, align;
		uint8_t id, flags;

		if (remaining < CHUNK_HDR_LEN) {
			ps_put(c, "%s%u) [chunk descriptor cut off at end of packet]", sep,
			       count + 1);
			break;
		}
		if (!have(c, bp, CHUNK_HDR_LEN))
			goto trunc;
		clen = be16(bp + 2);
		if (clen < CHUNK_HDR_LEN) {
			ps_put(c, "%s%u) [Bad chunk length %u, < size of chunk descriptor]", sep,
			       count + 1, clen);
			break;
		}
		cleft = clen;
		align = clen % 4 ? 4 - clen % 4 : 0;
		if (remaining < align) {
			ps_put(c, "%s%u) [Bad chunk length %u, > remaining data in packet]", sep,
			       count + 1, clen);
			break;
		}
		if (!have(c, bp, clen))
			goto trunc;
		id = bp[0];
		flags = bp[1];
		bp += CHUNK_HDR_LEN;
		remaining -= CHUNK_HDR_LEN;
		cleft -= CHUNK_HDR_LEN;
		ps_put(c, "%s%u) [%s] ", sep, count + 1, chunk_name(id, buf, sizeof(buf)));
		switch (id) {
		case 0: { /* DATA */
			if (flags & 4)
				ps_put(c, "(U)");
			if ((flags & 2) == 2)
				ps_put(c, "(B)");
			if ((flags & 1) == 1)
				ps_put(c, "(E)");
			if (flags & 7)
				ps_put(c, " ");
			if (cleft < 12) {
				ps_put(c, "bogus chunk length %u]", clen);
				return;
			}
			ps_put(c, "[TSN: %u] [SID: %u] [SSEQ %u] [PPID %s] ", be32(bp),
			       be16(bp + 4), be16(bp + 6),
			       ppid_name(be32(bp + 8), buf, sizeof(buf)));
			bp += 12;
			remaining -= 12;
			cleft -= 12;
			if (cleft == 0) {
				ps_put(c, "bogus chunk length %u]", clen);
				return;
			}
			bp += cleft;
			remaining -= cleft;
			cleft = 0;
			break;
		}
		case 1: /* INIT, INIT ACK */
		case 2:
			if (cleft < 16) {
				ps_put(c, "bogus chunk length %u]", clen);
				return;
			}
			ps_put(c, "[init tag: %u] [rwnd: %u] [OS: %u] [MIS: %u] [init TSN: %u] ",
			       be32(bp), be32(bp + 4), be16(bp + 8), be16(bp + 10), be32(bp + 12));
			bp += cleft;
			remaining -= cleft;
			cleft = 0;
			break;
		case 3: { /* SACK */
			uint32_t cum;
			uint16_t ngaps, ndups;

			if (cleft < 12) {
				ps_put(c, "bogus chunk length %u]", clen);
				return;
			}
			cum = be32(bp);
			ngaps = be16(bp + 8);
			ndups = be16(bp + 10);
			ps_put(c, "[cum ack %u] [a_rwnd %u] [#gap acks %u] [#dup tsns %u] ", cum,
			       be32(bp + 4), ngaps, ndups);
			bp += 12;
			remaining -= 12;
			cleft -= 12;
			for (unsigned int k = 0; cleft != 0 && k < ngaps;
			     k++, bp += 4, remaining -= 4, cleft -= 4) {
				if (cleft < 4) {
					ps_put(c, "bogus chunk length %u]", clen);
					return;
				}
				ps_put(c, "\n\t\t[gap ack block #%u: start = %u, end = %u] ", k + 1,
				       cum + be16(bp), cum + be16(bp + 2));
			}
			for (unsigned int k = 0; cleft != 0 && k < ndups;
			     k++, bp += 4, remaining -= 4, cleft -= 4) {
				if (cleft < 4) {
					ps_put(c, "bogus chunk length %u]", clen);
					return;
				}
				ps_put(c, "\n\t\t[dup TSN #%u: %u] ", k + 1, be32(bp));
			}
			break;
		}
		default:
			bp += cleft;
			remaining -= cleft;
			cleft = 0;
			break;
		}
		bp += cleft;
		remaining -= cleft;
		sep = ", (";
		if (align) {
			if (!have(c, bp, align))
				goto trunc;
			bp += align;
			remaining -= align;
		}
	}
	return;
trunc:
	local_trunc(c);
}
