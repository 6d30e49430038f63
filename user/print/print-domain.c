// SPDX-License-Identifier: GPL-2.0-only
/*
 * DNS and mDNS, as tcpdump 4.99's print-domain.c prints them without -v:
 * a query's id, flags and questions; a response's id, rcode, flags,
 * section counts and answers, then the message length. Names are read
 * with compression pointers that must point backwards (tcpdump's rule,
 * which also ends any loop).
 */
#include <string.h>
#include "print.h"

#define MAXCDNAME 255
#define TYPE_MASK 0xc0
#define TYPE_INDIR 0xc0
#define TYPE_RESERVED 0x80
#define TYPE_EDNS0 0x40
#define EDNS0_ELT_BITLABEL 0x01
#define T_OPT 41
#define C_IN 1
#define C_QU 0x8000    /* mDNS: unicast response wanted (queries) */
#define C_FLUSH 0x8000 /* mDNS: cache flush (answers) */

static const char *type_name(unsigned int t, char *buf, size_t n)
{
	static const char *const low[] = {
		NULL,	    "A",     "NS",   "MD",     "MF",	"CNAME",    "SOA", "MB",   "MG",
		"MR",	    "NULL",  "WKS",  "PTR",    "HINFO", "MINFO",    "MX",  "TXT",  "RP",
		"AFSDB",    "X25",   "ISDN", "RT",     "NSAP",	"NSAP_PTR", "SIG", "KEY",  "PX",
		"GPOS",	    "AAAA",  "LOC",  "NXT",    "EID",	"NIMLOC",   "SRV", "ATMA", "NAPTR",
		"KX",	    "CERT",  "A6",   "DNAME",  "SINK",	"OPT",	    "APL", "DS",   "SSHFP",
		"IPSECKEY", "RRSIG", "NSEC", "DNSKEY",
	};
	static const char *const high[] = {
		"SPF", "UINFO", "UID", "GID", "UNSPEC", "UNSPECA", /* 99..104 */
	};
	static const char *const meta[] = {
		"TKEY", "TSIG", "IXFR", "AXFR", "MAILB", "MAILA", "ANY", "URI", /* 249..256 */
	};

	if (t < sizeof(low) / sizeof(low[0]) && low[t])
		return low[t];
	if (t >= 99 && t <= 104)
		return high[t - 99];
	if (t >= 249 && t <= 256)
		return meta[t - 249];
	snprintf(buf, n, "Type%u", t);
	return buf;
}

static const char *class_name(unsigned int cl, char *buf, size_t n)
{
	switch (cl) {
	case 1:
		return "IN";
	case 3:
		return "CHAOS";
	case 4:
		return "HS";
	case 255:
		return "ANY";
	default:
		snprintf(buf, n, "(Class %u)", cl);
		return buf;
	}
}

static const char *rcode_name(unsigned int rcode, char *buf, size_t n)
{
	static const char *const names[] = {
		"",	     " FormErr", " ServFail", " NXDomain", " NotImp",  " Refused",
		" YXDomain", " YXRRSet", " NXRRSet",  " NotAuth",  " NotZone", " Resp11",
		" Resp12",   " Resp13",	 " Resp14",   " NoChange", " BadVers", "Resp17",
		" Resp18",   " Resp19",	 " Resp20",   "Resp21",	   " Resp22",  " BadCookie",
	};

	if (rcode < sizeof(names) / sizeof(names[0]))
		return names[rcode];
	snprintf(buf, n, " Resp%u", rcode & 0xfff);
	return buf;
}

static const char *const ops[] = {
	"",	    " inv_q",	 " stat",     " op3",	  " notify",  " update",
	" op6",	    " op7",	 " op8",      " updateA", " updateD", " updateDA",
	" updateM", " updateMA", " zoneInit", " zoneRef",
};

/* Past a name; NULL where it cannot be read. */
static const uint8_t *nskip(const struct ps_print_ctx *c, const uint8_t *cp)
{
	uint8_t i;

	if (!have(c, cp, 1))
		return NULL;
	i = *cp++;
	while (i) {
		switch (i & TYPE_MASK) {
		case TYPE_INDIR:
			return cp + 1;
		case TYPE_EDNS0: {
			unsigned int bitlen;

			if ((i & ~TYPE_MASK) != EDNS0_ELT_BITLABEL || !have(c, cp, 1))
				return NULL;
			bitlen = *cp ? *cp : 256;
			cp += 1 + (bitlen + 7) / 8;
			break;
		}
		case TYPE_RESERVED:
			return NULL;
		default:
			cp += i;
			break;
		}
		if (!have(c, cp, 1))
			return NULL;
		i = *cp++;
	}
	return cp;
}

/* An EDNS0 bit-string label (RFC 2673) as \[x...\/bits]. */
static const uint8_t *blabel_print(struct ps_print_ctx *c, const uint8_t *cp)
{
	unsigned int bitlen, b;
	const uint8_t *bitp, *lim;

	if (!have(c, cp, 1))
		return NULL;
	bitlen = *cp ? *cp : 256;
	lim = cp + 1 + (bitlen + 3) / 4;
	ps_put(c, "\\[x");
	for (bitp = cp + 1, b = bitlen; bitp < lim && b > 7; b -= 8, bitp++) {
		if (!need(c, bitp, 1))
			return NULL;
		ps_put(c, "%02x", *bitp);
	}
	if (b > 4) {
		if (!need(c, bitp, 1))
			return NULL;
		ps_put(c, "%02x", *bitp & (0xff << (8 - b)) & 0xff);
	} else if (b > 0) {
		if (!need(c, bitp, 1))
			return NULL;
		ps_put(c, "%1x", ((*bitp >> 4) & 0x0f) & (0x0f << (4 - b)));
	}
	ps_put(c, "/%u]", bitlen);
	return lim;
}

/* The length of the label at cp, or -1 (and tcpdump's words for why). */
static int labellen(struct ps_print_ctx *c, const uint8_t *cp)
{
	uint8_t i;

	if (!have(c, cp, 1))
		return -1;
	i = *cp;
	switch (i & TYPE_MASK) {
	case TYPE_EDNS0:
		if ((i & ~TYPE_MASK) != EDNS0_ELT_BITLABEL) {
			ps_put(c, "<ELT %d>", i & ~TYPE_MASK);
			return -1;
		}
		if (!have(c, cp + 1, 1))
			return -1;
		return (int)(((cp[1] ? cp[1] : 256u) + 7) / 8 + 1);
	case TYPE_INDIR:
	case 0:
		return i;
	default:
		ps_put(c, "<BAD LABEL TYPE>");
		return -1;
	}
}

/* The label at *cp: its first byte in *i, its length in *l, and *cp past
 * that byte; false where it was not captured or is no label. */
static bool next_label(struct ps_print_ctx *c, const uint8_t **cp, unsigned int *i, unsigned int *l)
{
	int len;

	if (!have(c, *cp, 1) || (len = labellen(c, *cp)) < 0)
		return false;
	*i = **cp;
	*l = (unsigned int)len;
	(*cp)++;
	return true;
}

/* tcpdump's fqdn_print(): the name at cp in a message starting at bp;
 * where the name ends in the message, or NULL. */
static const uint8_t *fqdn_print(struct ps_print_ctx *c, const uint8_t *cp, const uint8_t *bp)
{
	const uint8_t *rp = NULL;
	unsigned int i, l, name_chars = 0, offset, max_offset;
	bool compress = false;

	max_offset = (unsigned int)(cp - bp);
	if (!next_label(c, &cp, &i, &l))
		return NULL;
	if ((i & TYPE_MASK) != TYPE_INDIR)
		rp = cp + l;
	if (i == 0) {
		ps_put(c, ".");
		return rp;
	}
	while (i && cp < c->end) {
		switch (i & TYPE_MASK) {
		case TYPE_INDIR:
			if (!compress) {
				rp = cp + 1;
				compress = true;
			}
			if (!have(c, cp, 1))
				return NULL;
			offset = ((i << 8) | *cp) & 0x3fff;
			if (offset >= max_offset) {
				ps_put(c, "<BAD PTR>");
				return NULL;
			}
			max_offset = offset;
			cp = bp + offset;
			if (!next_label(c, &cp, &i, &l))
				return NULL;
			continue;
		case TYPE_EDNS0:
			if ((i & ~TYPE_MASK) != EDNS0_ELT_BITLABEL) {
				ps_put(c, "<ELT %u>", i & ~TYPE_MASK);
				return NULL;
			}
			if (!blabel_print(c, cp))
				return NULL;
			break;
		case TYPE_RESERVED:
			ps_put(c, "<BAD LABEL TYPE>");
			return NULL;
		default:
			if (name_chars + l <= MAXCDNAME) {
				if (ps_printn(c, cp, l))
					return NULL;
			} else if (name_chars < MAXCDNAME) {
				if (ps_printn(c, cp, MAXCDNAME - name_chars))
					return NULL;
			}
			name_chars += l;
			break;
		}
		cp += l;
		if (name_chars <= MAXCDNAME)
			ps_put(c, ".");
		name_chars++;
		if (!next_label(c, &cp, &i, &l))
			return NULL;
		if (!compress)
			rp += l + 1;
	}
	if (name_chars > MAXCDNAME)
		ps_put(c, "<DOMAIN NAME TOO LONG>");
	return rp;
}

/* A question: " TYPE? name". */
static const uint8_t *qprint(struct ps_print_ctx *c, const uint8_t *cp, const uint8_t *bp,
			     bool mdns)
{
	const uint8_t *np = cp;
	unsigned int t, cl, raw;
	char buf[24];

	cp = nskip(c, cp);
	if (!cp || !have(c, cp, 4))
		return NULL;
	t = be16(cp);
	raw = be16(cp + 2);
	cl = mdns ? raw & ~C_QU : raw;
	ps_put(c, " %s", type_name(t, buf, sizeof(buf)));
	if (cl != C_IN)
		ps_put(c, " %s", class_name(cl, buf, sizeof(buf)));
	if (mdns)
		ps_put(c, raw & C_QU ? " (QU)" : " (QM)");
	ps_put(c, "? ");
	cp = fqdn_print(c, np, bp);
	return cp ? cp + 4 : NULL;
}

/* An A6 record: the prefix length, the address's suffix, the prefix's
 * name. */
static bool a6(struct ps_print_ctx *c, const uint8_t *cp, const uint8_t *bp)
{
	unsigned int pbit, pbyte;
	uint8_t a[16] = { 0 };

	if (!have(c, cp, 1))
		return false;
	pbit = cp[0];
	pbyte = (pbit & ~7u) / 8;
	if (pbit > 128) {
		ps_put(c, " %u(bad plen)", pbit);
		return true;
	}
	if (pbit < 128) {
		if (!need(c, cp + 1, 16 - pbyte))
			return false;
		memcpy(a + pbyte, cp + 1, 16 - pbyte);
		ps_put(c, " %u %s", pbit, ip6_str(a).s);
	}
	if (pbit > 0) {
		ps_put(c, " ");
		if (!fqdn_print(c, cp + 1 + 16 - pbyte, bp))
			return false;
	}
	return true;
}

/* A record's data of type t, from cp to rp; false where it ran past the
 * capture. */
static bool rdata(struct ps_print_ctx *c, unsigned int t, const uint8_t *cp, const uint8_t *rp,
		  const uint8_t *bp)
{
	unsigned int len = (unsigned int)(rp - cp);

	switch (t) {
	case 1: /* A */
		if (!have(c, cp, 4))
			return false;
		ps_put(c, " %s", ip4_str(cp).s);
		break;
	case 2: /* NS, CNAME, PTR, DNAME */
	case 5:
	case 12:
	case 39:
		ps_put(c, " ");
		if (!fqdn_print(c, cp, bp))
			return false;
		break;
	case 15: /* MX */
		ps_put(c, " ");
		if (!have(c, cp, 2) || !fqdn_print(c, cp + 2, bp))
			return false;
		ps_put(c, " %u", be16(cp));
		break;
	case 16: /* TXT */
		while (cp < rp) {
			ps_put(c, " \"");
			if (!have(c, cp, 1) || ps_printn(c, cp + 1, cp[0]))
				return false;
			cp += 1 + cp[0];
			ps_put(c, "\"");
		}
		break;
	case 33: /* SRV */
		ps_put(c, " ");
		if (!have(c, cp, 6) || !fqdn_print(c, cp + 6, bp))
			return false;
		ps_put(c, ":%u %u %u", be16(cp + 4), be16(cp), be16(cp + 2));
		break;
	case 28: /* AAAA */
		if (!have(c, cp, 16))
			return false;
		ps_put(c, " %s", ip6_str(cp).s);
		break;
	case 38: /* A6 */
		return a6(c, cp, bp);
	case 256: /* URI */
		if (!have(c, cp, len) || !need(c, cp, 4))
			return false;
		ps_put(c, " %u %u ", be16(cp), be16(cp + 2));
		if (ps_printn(c, cp + 4, len - 4)) /* below 4, as tcpdump: to the end */
			return false;
		break;
	case 104: /* UNSPECA */
		if (!have(c, cp, len) || ps_printn(c, cp, len))
			return false;
		break;
	default:
		break;
	}
	return true;
}

/* A record's type and data (tcpdump's ns_rprint() without -v); the
 * record's end, or NULL where it ran past the capture. */
static const uint8_t *rprint(struct ps_print_ctx *c, const uint8_t *cp, const uint8_t *bp,
			     bool mdns)
{
	unsigned int t, cl, raw, len;
	bool dnssec_ok = false;
	const uint8_t *rp;
	char buf[24];

	cp = nskip(c, cp);
	if (!cp || !have(c, cp, 10))
		return c->end;
	t = be16(cp);
	raw = be16(cp + 2);
	cl = mdns ? raw & ~C_FLUSH : raw;
	if (cl != C_IN && t != T_OPT)
		ps_put(c, " %s", class_name(cl, buf, sizeof(buf)));
	if (mdns && raw & C_FLUSH)
		ps_put(c, " (Cache flush)");
	if (t == T_OPT)
		dnssec_ok = be16(cp + 6) & 0x8000;
	len = be16(cp + 8);
	cp += 10;
	rp = cp + len;
	ps_put(c, " %s", type_name(t, buf, sizeof(buf)));
	if (rp > c->end)
		return NULL;
	if (t == T_OPT) {
		ps_put(c, " UDPsize=%u", cl);
		if (dnssec_ok)
			ps_put(c, " DO");
		/* tcpdump goes on with the options, " [NAME value,...]";
		 * the line ends before them. */
		return rp;
	}
	return rdata(c, t, cp, rp, bp) ? rp : NULL;
}

/* A section's n answers (or questions), as tcpdump walks them: the first
 * always, the rest while the capture lasts; false, after " [|domain]",
 * where one could not be read or some were left. */
static bool section(struct ps_print_ctx *c, const uint8_t **cp, const uint8_t *np, bool mdns,
		    unsigned int n, bool answers)
{
	unsigned int i;

	for (i = 0; i < n && (i == 0 || *cp < c->end); i++) {
		if (i && answers)
			ps_put(c, ",");
		*cp = answers ? rprint(c, *cp, np, mdns) : qprint(c, *cp, np, mdns);
		if (!*cp)
			break;
	}
	if (i < n) {
		local_trunc(c);
		return false;
	}
	return true;
}

/* The message's counts: questions, answers, authority, additional. */
struct dns_counts {
	unsigned int qd, an, ns, ar;
};

/* The response code, extended by the OPT record among the additional
 * ones, as far as the capture goes. */
static unsigned int rcode_of(struct ps_print_ctx *c, const uint8_t *np, unsigned int flags,
			     const struct dns_counts *n)
{
	unsigned int rcode = flags & 0xf;
	const uint8_t *cp = np + 12;

	for (unsigned int i = 0; i < n->qd; i++)
		if (!(cp = nskip(c, cp)) || (cp += 4) >= c->end)
			return rcode;
	for (unsigned int i = 0; i < n->an + n->ns; i++) {
		if (!(cp = nskip(c, cp)) || (cp += 8) + 2 > c->end)
			return rcode;
		cp += 2 + be16(cp);
		if (cp >= c->end)
			return rcode;
	}
	for (unsigned int i = 0; i < n->ar; i++) {
		unsigned int type;

		if (!(cp = nskip(c, cp)) || cp + 2 > c->end)
			return rcode;
		type = be16(cp);
		cp += 4;
		if (cp + 1 > c->end)
			return rcode;
		if (type == T_OPT)
			return rcode | (unsigned int)cp[0] << 4;
		cp += 4;
		if (cp + 2 > c->end)
			return rcode;
		cp += 2 + be16(cp);
		if (cp >= c->end)
			return rcode;
	}
	return rcode;
}

/* A response: id, opcode, rcode and flags, the questions skipped, the
 * counts, the answers. False where printing ended. */
static bool response(struct ps_print_ctx *c, const uint8_t *np, unsigned int flags,
		     const struct dns_counts *n, bool mdns)
{
	const uint8_t *cp = np + 12;
	char buf[24];

	ps_put(c, "%u%s%s%s%s%s%s", be16(np), ops[(flags >> 11) & 0xf],
	       rcode_name(rcode_of(c, np, flags, n), buf, sizeof(buf)), flags & 0x0400 ? "*" : "",
	       flags & 0x0080 ? "" : "-", flags & 0x0200 ? "|" : "", flags & 0x0020 ? "$" : "");
	if (n->qd != 1)
		ps_put(c, " [%uq]", n->qd);
	for (unsigned int i = 0; i < n->qd; i++) {
		if (i)
			ps_put(c, ",");
		if (!(cp = nskip(c, cp))) {
			local_trunc(c);
			return false;
		}
		cp += 4;
	}
	ps_put(c, " %u/%u/%u", n->an, n->ns, n->ar);
	return section(c, &cp, np, mdns, n->an, true);
}

/* A query: id, opcode and flags, the counts that are not the usual, the
 * questions. False where printing ended. */
static bool query(struct ps_print_ctx *c, const uint8_t *np, unsigned int flags,
		  const struct dns_counts *n, bool mdns)
{
	unsigned int opcode = (flags >> 11) & 0xf;
	const uint8_t *cp = np + 12;

	ps_put(c, "%u%s%s%s", be16(np), ops[opcode], flags & 0x0100 ? "+" : "",
	       flags & 0x0010 ? "%" : "");
	if (flags & 0x6cf)
		ps_put(c, " [b2&3=0x%x]", flags);
	if (opcode == 1) { /* inverse query */
		if (n->qd)
			ps_put(c, " [%uq]", n->qd);
		if (n->an != 1)
			ps_put(c, " [%ua]", n->an);
	} else {
		if (n->an)
			ps_put(c, " [%ua]", n->an);
		if (n->qd != 1)
			ps_put(c, " [%uq]", n->qd);
	}
	if (n->ns)
		ps_put(c, " [%un]", n->ns);
	if (n->ar)
		ps_put(c, " [%uau]", n->ar);
	return section(c, &cp, np, mdns, n->qd, false);
}

void ps_domain_print(struct ps_print_ctx *c, const uint8_t *bp, uint32_t length, bool over_tcp,
		     bool mdns)
{
	struct dns_counts n;
	unsigned int flags;

	c->proto = "domain";
	if (over_tcp) {
		if (length < 2) {
			ps_put(c, " [DNS over TCP: length %u < 2] (invalid)", length);
			return;
		}
		length -= 2;
		if (!need(c, bp, 2))
			return;
		if (be16(bp) != length) {
			ps_put(c, " [prefix length(%u) != length(%u)] (invalid)", be16(bp), length);
			return;
		}
		bp += 2;
		ps_put(c, " ");
	}
	if (length < 12) {
		ps_put(c, "domain [length %u < 12] (invalid)", length);
		return;
	}
	if (!have(c, bp, 12)) {
		local_trunc(c);
		return;
	}
	flags = be16(bp + 2);
	n = (struct dns_counts){ be16(bp + 4), be16(bp + 6), be16(bp + 8), be16(bp + 10) };
	if (flags & 0x8000 ? response(c, bp, flags, &n, mdns) : query(c, bp, flags, &n, mdns))
		ps_put(c, " (%u)", length);
}
