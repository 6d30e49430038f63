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

/* A DATA chunk's fields (cleft bytes after its header at bp); false
 * after "bogus chunk length" (the printing ends there). */
static bool data_chunk(struct ps_print_ctx *c, uint8_t flags, const uint8_t *bp, uint16_t cleft,
		       uint16_t clen)
{
	char buf[40];

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
		return false;
	}
	ps_put(c, "[TSN: %u] [SID: %u] [SSEQ %u] [PPID %s] ", be32(bp), be16(bp + 4), be16(bp + 6),
	       ppid_name(be32(bp + 8), buf, sizeof(buf)));
	if (cleft == 12) {
		ps_put(c, "bogus chunk length %u]", clen);
		return false;
	}
	return true;
}

/* A SACK's cumulative ack, window, gap blocks and duplicates. */
static bool sack_chunk(struct ps_print_ctx *c, const uint8_t *bp, uint16_t cleft, uint16_t clen)
{
	uint32_t cum;
	uint16_t ngaps, ndups;

	if (cleft < 12) {
		ps_put(c, "bogus chunk length %u]", clen);
		return false;
	}
	cum = be32(bp);
	ngaps = be16(bp + 8);
	ndups = be16(bp + 10);
	ps_put(c, "[cum ack %u] [a_rwnd %u] [#gap acks %u] [#dup tsns %u] ", cum, be32(bp + 4),
	       ngaps, ndups);
	bp += 12;
	cleft -= 12;
	for (unsigned int k = 0; cleft != 0 && k < ngaps; k++, bp += 4, cleft -= 4) {
		if (cleft < 4) {
			ps_put(c, "bogus chunk length %u]", clen);
			return false;
		}
		ps_put(c, "\n\t\t[gap ack block #%u: start = %u, end = %u] ", k + 1, cum + be16(bp),
		       cum + be16(bp + 2));
	}
	for (unsigned int k = 0; cleft != 0 && k < ndups; k++, bp += 4, cleft -= 4) {
		if (cleft < 4) {
			ps_put(c, "bogus chunk length %u]", clen);
			return false;
		}
		ps_put(c, "\n\t\t[dup TSN #%u: %u] ", k + 1, be32(bp));
	}
	return true;
}

/* A chunk's fields after its header (cleft bytes at bp): DATA, INIT and
 * INIT ACK, SACK; the others have none here. False after "bogus". */
static bool chunk_fields(struct ps_print_ctx *c, uint8_t id, uint8_t flags, const uint8_t *bp,
			 uint16_t cleft, uint16_t clen)
{
	switch (id) {
	case 0:
		return data_chunk(c, flags, bp, cleft, clen);
	case 1:
	case 2:
		if (cleft < 16) {
			ps_put(c, "bogus chunk length %u]", clen);
			return false;
		}
		ps_put(c, "[init tag: %u] [rwnd: %u] [OS: %u] [MIS: %u] [init TSN: %u] ", be32(bp),
		       be32(bp + 4), be16(bp + 8), be16(bp + 10), be32(bp + 12));
		return true;
	case 3:
		return sack_chunk(c, bp, cleft, clen);
	default:
		return true;
	}
}

/* The common header: ports, and ForCES's channels by port. */
static bool common_header(struct ps_print_ctx *c, const uint8_t *bp, uint32_t length,
			  const struct l3 *n)
{
	static const char *const channels[] = { "ForCES HP", "ForCES MP", "ForCES LP" };
	uint16_t sport, dport;

	if (length < SCTP_HDR_LEN) {
		ps_put(c, "truncated-sctp - %u bytes missing!", SCTP_HDR_LEN - length);
		return false;
	}
	if (!have(c, bp, SCTP_HDR_LEN)) {
		local_trunc(c);
		return false;
	}
	sport = be16(bp);
	dport = be16(bp + 2);
	ps_put(c, "%s.%u > %s.%u: sctp", l3_src(n).s, sport, l3_dst(n).s, dport);
	if (forces_port(sport))
		ps_put(c, "[%s]", channels[sport - 6704]);
	if (forces_port(dport))
		ps_put(c, "[%s]", channels[dport - 6704]);
	return true;
}

void ps_sctp_print(struct ps_print_ctx *c, const uint8_t *bp, uint32_t length, const struct l3 *n)
{
	uint32_t remaining = length - SCTP_HDR_LEN;
	const char *sep = " (";
	char buf[40];

	c->proto = "sctp";
	if (!common_header(c, bp, length, n))
		return;
	bp += SCTP_HDR_LEN;
	for (unsigned int count = 1; remaining != 0; count++, sep = ", (") {
		uint16_t clen, align;

		if (remaining < CHUNK_HDR_LEN) {
			ps_put(c, "%s%u) [chunk descriptor cut off at end of packet]", sep, count);
			return;
		}
		if (!have(c, bp, CHUNK_HDR_LEN))
			goto trunc;
		clen = be16(bp + 2);
		if (clen < CHUNK_HDR_LEN) {
			ps_put(c, "%s%u) [Bad chunk length %u, < size of chunk descriptor]", sep,
			       count, clen);
			return;
		}
		align = clen % 4 ? 4 - clen % 4 : 0;
		if (remaining < align) {
			ps_put(c, "%s%u) [Bad chunk length %u, > remaining data in packet]", sep,
			       count, clen);
			return;
		}
		if (!have(c, bp, clen))
			goto trunc;
		ps_put(c, "%s%u) [%s] ", sep, count, chunk_name(bp[0], buf, sizeof(buf)));
		if (!chunk_fields(c, bp[0], bp[1], bp + CHUNK_HDR_LEN, clen - CHUNK_HDR_LEN, clen))
			return;
		bp += clen;
		remaining -= clen;
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
