// SPDX-License-Identifier: GPL-2.0-only
#include <stdlib.h>
#include <string.h>
#include "print.h"

struct ps_tcp_conv {
	struct ps_tcp_conv *next;
	uint8_t ver;
	uint8_t src[16], dst[16];
	uint32_t port; /* sport << 16 | dport, in the collating order */
	uint32_t seq, ack;
};

static const char *const tcp_opt_names[256] = {
	[0] = "eol",	 [1] = "nop",	 [2] = "mss",	    [3] = "wscale", [4] = "sackOK",
	[5] = "sack",	 [6] = "echo",	 [7] = "echoreply", [8] = "TS",	    [11] = "cc",
	[12] = "ccnew",	 [13] = "",	 [19] = "md5",	    [20] = "scps",  [28] = "uto",
	[29] = "tcp-ao", [30] = "mptcp", [34] = "tfo",	    [254] = "exp",
};

#define TH_FIN 0x01
#define TH_SYN 0x02
#define TH_RST 0x04
#define TH_ACK 0x10
#define TH_URG 0x20

void ps_tcp_convs_free(struct ps_decoder *d)
{
	for (int i = 0; i < PS_TCP_CONV_BUCKETS; i++) {
		struct ps_tcp_conv *e = d->bucket[i], *next;

		for (; e; e = next) {
			next = e->next;
			free(e);
		}
		d->bucket[i] = NULL;
	}
	d->n_conv = 0;
}

/*
 * tcpdump's relative sequence numbers: the first segment with ACK set of a
 * conversation (or any SYN) records its seq and ack; later segments print
 * theirs relative to those. Both directions share one entry, keyed in a
 * fixed collating order (lower port first).
 */
static struct ps_tcp_conv *conv_find(struct ps_decoder *d, const struct ps_tcp_conv *key,
				     bool *found)
{
	unsigned int i = key->port % PS_TCP_CONV_BUCKETS;
	struct ps_tcp_conv *e;

	for (e = d->bucket[i]; e; e = e->next)
		if (e->ver == key->ver && e->port == key->port && !memcmp(e->src, key->src, 16) &&
		    !memcmp(e->dst, key->dst, 16)) {
			*found = true;
			return e;
		}
	*found = false;
	if (d->n_conv >= PS_TCP_CONV_MAX)
		ps_tcp_convs_free(d);
	e = malloc(sizeof(*e));
	if (!e)
		return NULL;
	*e = *key;
	e->next = d->bucket[i];
	d->bucket[i] = e;
	d->n_conv++;
	return e;
}

static void tcp_fastopen(struct ps_print_ctx *c, const uint8_t *cp, uint32_t datalen, bool exp)
{
	if (exp)
		ps_put(c, "tfo");
	if (datalen == 0) {
		ps_put(c, " cookiereq");
	} else if (datalen % 2 || datalen < 4 || datalen > 16) {
		ps_put(c, " (invalid)");
	} else {
		ps_put(c, " cookie ");
		for (uint32_t i = 0; i < datalen; i++)
			ps_put(c, "%02x", cp[i]);
	}
}

/* Flags [S.]: tcpdump's letters, in its order. */
static void tcp_flags(struct ps_print_ctx *c, uint8_t flags)
{
	static const char names[] = "FSRP.UEW";
	char f[9];
	int k = 0;

	for (int b = 0; b < 8; b++)
		if (flags & (1u << b))
			f[k++] = names[b];
	f[k] = 0;
	ps_put(c, "Flags [%s]", k ? f : "none");
}

/*
 * tcpdump's relative numbers for a segment with ACK: *seq and *ack become
 * relative to the conversation's first, and *thseq, *thack are its start
 * (for sack blocks); *rev: the segment goes against the collating order.
 */
static void tcp_relative(struct ps_print_ctx *c, const struct l3 *n, uint16_t sport, uint16_t dport,
			 uint8_t flags, uint32_t *seq, uint32_t *ack, bool *rev, uint32_t *thseq,
			 uint32_t *thack)
{
	struct ps_tcp_conv key = { .ver = (uint8_t)n->ver }, *e;
	size_t alen = n->ver == 6 ? 16 : 4;
	const uint8_t *s = n->hdr + (n->ver == 6 ? 8 : 12);
	const uint8_t *d = s + alen;
	bool found;

	*rev = sport > dport || (sport == dport && memcmp(s, d, alen) > 0);
	memcpy(key.src, *rev ? d : s, alen);
	memcpy(key.dst, *rev ? s : d, alen);
	key.port = *rev ? (uint32_t)dport << 16 | sport : (uint32_t)sport << 16 | dport;
	e = conv_find(c->d, &key, &found);
	if (!e)
		return;
	if (!found || (flags & TH_SYN)) {
		if (*rev)
			e->ack = *seq, e->seq = *ack - 1;
		else
			e->seq = *seq, e->ack = *ack - 1;
	} else if (*rev) {
		*seq -= e->ack, *ack -= e->seq;
	} else {
		*seq -= e->seq, *ack -= e->ack;
	}
	*thseq = e->seq;
	*thack = e->ack;
}

enum opt_end { OPT_OK, OPT_BAD, OPT_TRUNC };

/* l bytes of the option's data: OPT_BAD if its length leaves fewer,
 * OPT_TRUNC if they were not captured. */
static enum opt_end check(struct ps_print_ctx *c, const uint8_t *cp, uint32_t left, uint32_t l)
{
	if (l > left)
		return OPT_BAD;
	return have(c, cp, l) ? OPT_OK : OPT_TRUNC;
}

/* The options of a fixed length: their numbers. OPT_BAD for a kind that
 * is not one of them. */
static enum opt_end fixed_option(struct ps_print_ctx *c, uint32_t opt, const uint8_t *cp,
				 uint32_t left, uint32_t *datalen)
{
	enum opt_end e;
	uint32_t uto;

	*datalen = opt == 3			      ? 1 :
		   opt == 2 || opt == 20 || opt == 28 ? 2 :
		   opt == 8			      ? 8 :
		   opt == 19			      ? 16 :
							4;
	e = check(c, cp, left, *datalen);
	if (e)
		return e;
	switch (opt) {
	case 2:
		ps_put(c, " %u", be16(cp));
		break;
	case 3:
		ps_put(c, " %u", cp[0]);
		break;
	case 8:
		ps_put(c, " val %u ecr %u", be32(cp), be32(cp + 4));
		break;
	case 19:
		/* tcpdump (with libcrypto, as Debian builds it) cannot check
		 * the signature without -M. */
		ps_put(c, " can't check - ");
		for (uint32_t i = 0; i < 16; i++)
			ps_put(c, "%02x", cp[i]);
		break;
	case 20:
		ps_put(c, " cap %02x id %u", cp[0], cp[1]);
		break;
	case 28:
		uto = be16(cp);
		ps_put(c, " 0x%x", uto);
		uto = uto & 1 ? (uto >> 1) * 60 : uto >> 1;
		ps_put(c, " %u", uto);
		break;
	default: /* 6, 7, 11, 12, 13 */
		ps_put(c, " %u", be32(cp));
		break;
	}
	return OPT_OK;
}

/* SACK's blocks, relative as tcpdump shows them. */
static enum opt_end sack_option(struct ps_print_ctx *c, const uint8_t *cp, uint32_t left,
				uint32_t datalen, uint32_t base)
{
	if (datalen % 8) {
		ps_put(c, " invalid sack");
		return OPT_OK;
	}
	ps_put(c, " %u ", datalen / 8);
	for (uint32_t i = 0; i < datalen; i += 8) {
		enum opt_end e = check(c, cp, left, i + 8);

		if (e)
			return e;
		ps_put(c, "{%u:%u}", be32(cp + i) - base, be32(cp + i + 4) - base);
	}
	return OPT_OK;
}

/* The bytes of an option as hex, after prefix (TCP-AO's MAC, and those
 * not decoded here) from byte `from`. */
static enum opt_end hex_option(struct ps_print_ctx *c, const char *prefix, const uint8_t *cp,
			       uint32_t left, uint32_t from, uint32_t datalen)
{
	if (datalen > from)
		ps_put(c, "%s", prefix);
	for (uint32_t i = from; i < datalen; i++) {
		enum opt_end e = check(c, cp, left, i + 1);

		if (e)
			return e;
		ps_put(c, "%02x", cp[i]);
	}
	return OPT_OK;
}

/* TCP-AO (29): its key ids and MAC. */
static enum opt_end auth_option(struct ps_print_ctx *c, const uint8_t *cp, uint32_t left,
				uint32_t datalen)
{
	enum opt_end e;

	if (datalen < 2) {
		ps_put(c, " (invalid)");
		return OPT_OK;
	}
	e = check(c, cp, left, 2);
	if (e)
		return e;
	ps_put(c, " keyid %u rnextkeyid %u", cp[0], cp[1]);
	return hex_option(c, " mac 0x", cp, left, 2, datalen);
}

/* TCP Fast Open (34) or the experimental option (254) carrying it. */
static enum opt_end fastopen_option(struct ps_print_ctx *c, uint32_t opt, const uint8_t *cp,
				    uint32_t left, uint32_t datalen)
{
	enum opt_end e = check(c, cp, left, datalen);

	if (e)
		return e;
	if (opt == 34) {
		ps_put(c, " ");
		tcp_fastopen(c, cp, datalen, false);
		return OPT_OK;
	}
	if (datalen < 2)
		return OPT_BAD;
	ps_put(c, "-");
	if (be16(cp) == 0xf989)
		tcp_fastopen(c, cp + 2, datalen - 2, true);
	else
		ps_put(c, "%04x", be16(cp));
	return OPT_OK;
}

/*
 * One option's value, after its name: *datalen is how many bytes of it
 * follow the kind and length. OPT_BAD: tcpdump's "[bad opt]" (a length
 * that cannot be), OPT_TRUNC: its bytes were not captured.
 */
static enum opt_end tcp_option(struct ps_print_ctx *c, uint32_t opt, uint32_t len,
			       const uint8_t *cp, uint32_t left, bool rev, uint32_t thseq,
			       uint32_t thack, uint32_t *datalen)
{
	*datalen = 0;
	switch (opt) {
	case 0:
	case 1:
	case 4:
		return OPT_OK;
	case 2:
	case 3:
	case 6:
	case 7:
	case 8:
	case 11:
	case 12:
	case 13:
	case 19:
	case 20:
	case 28:
		return fixed_option(c, opt, cp, left, datalen);
	}
	*datalen = len - 2;
	switch (opt) {
	case 5:
		return sack_option(c, cp, left, *datalen, rev ? thseq : thack);
	case 29:
		return auth_option(c, cp, left, *datalen);
	case 34:
	case 254:
		return fastopen_option(c, opt, cp, left, *datalen);
	default: /* also MPTCP: its subtypes are not decoded here */
		return hex_option(c, " 0x", cp, left, 0, *datalen);
	}
}

/*
 * The options after the fixed header, as tcpdump lists them; sack blocks
 * relative to the conversation's start (thseq, thack) as seq and ack are.
 * False when the decode ends here (a read past the captured bytes, a bad or
 * truncated option: then tcpdump's words for it are printed).
 */
static bool tcp_options(struct ps_print_ctx *c, const uint8_t *cp, uint32_t left, bool rev,
			uint32_t thseq, uint32_t thack)
{
	char ch = 0;

	ps_put(c, ", options [");
	while (left > 0) {
		uint32_t opt, len, datalen = 0;

		if (ch)
			ps_put(c, "%c", ch);
		if (!need(c, cp, 1))
			return false;
		opt = *cp++;
		if (opt == 0 || opt == 1) {
			len = 1;
		} else {
			if (!need(c, cp, 1))
				return false;
			len = *cp++;
			if (len < 2 || len > left)
				goto bad;
			--left;
		}
		--left;
		if (tcp_opt_names[opt])
			ps_put(c, "%s", tcp_opt_names[opt]);
		else
			ps_put(c, "unknown-%u", opt);
		switch (tcp_option(c, opt, len, cp, left, rev, thseq, thack, &datalen)) {
		case OPT_BAD:
			goto bad;
		case OPT_TRUNC:
			goto trunc;
		case OPT_OK:
			break;
		}
		cp += datalen;
		left -= datalen;
		datalen += opt == 0 || opt == 1 ? 1 : 2;
		if (datalen != len)
			ps_put(c, "[len %u]", len);
		ch = ',';
		if (opt == 0)
			break;
	}
	ps_put(c, "]");
	return true;
bad:
	ps_put(c, "[bad opt]");
	if (ch)
		ps_put(c, "]");
	return false;
trunc:
	local_trunc(c);
	if (ch)
		ps_put(c, ">");
	return false;
}

/*
 * tcpdump's choice of a payload printer by port, in its order (print-tcp.c):
 * the first entry that matches decides. Where tcpdump has a printer we do
 * not (print == NULL), the line ends at the transport. `colon`: tcpdump
 * puts ": " before that printer's words.
 */
static void dns_tcp_print(struct ps_print_ctx *c, const uint8_t *bp, uint32_t length)
{
	ps_domain_print(c, bp, length, true, false);
}

static const struct tcp_port {
	uint16_t a, b; /* either port is a or b */
	bool colon;
	void (*print)(struct ps_print_ctx *c, const uint8_t *bp, uint32_t length);
} tcp_ports[] = {
	{ 23, 23, false, NULL },	 /* telnet */
	{ 25, 25, true, ps_smtp_print }, /* SMTP */
	{ 43, 43, true, ps_whois_print },
	{ 179, 179, false, ps_bgp_print },
	{ 1723, 1723, false, NULL }, /* PPTP */
	{ 6379, 6379, false, NULL }, /* Redis */
	{ 22, 22, false, ps_ssh_print },
	{ 10288, 10288, false, NULL },	    /* BEEP */
	{ 6633, 6653, false, NULL },	    /* OpenFlow */
	{ 21, 21, true, ps_ftp_print },	    /* FTP */
	{ 80, 8080, true, ps_http_print },  /* HTTP */
	{ 554, 8554, true, ps_rtsp_print }, /* RTSP */
	{ 53, 53, false, dns_tcp_print },
	{ 639, 639, false, NULL },   /* MSDP */
	{ 323, 323, false, NULL },   /* RPKI-RTR */
	{ 646, 646, false, NULL },   /* LDP */
	{ 2049, 2049, false, NULL }, /* NFS */
};

static void payload_print(struct ps_print_ctx *c, const uint8_t *p, uint32_t length, uint16_t sport,
			  uint16_t dport)
{
	for (size_t i = 0; i < sizeof(tcp_ports) / sizeof(tcp_ports[0]); i++) {
		const struct tcp_port *t = &tcp_ports[i];

		if (sport != t->a && sport != t->b && dport != t->a && dport != t->b)
			continue;
		if (t->print) {
			if (t->colon)
				ps_put(c, ": ");
			t->print(c, p, length);
		}
		return;
	}
}

void ps_tcp_print(struct ps_print_ctx *c, const uint8_t *bp, uint32_t length, const struct l3 *n)
{
	struct addr src = l3_src(n), dst = l3_dst(n);
	uint32_t hlen, seq, ack, thseq = 0, thack = 0;
	uint16_t sport, dport, win, urp;
	bool rev = false;
	uint8_t flags;

	c->proto = "tcp";
	if (!have(c, bp + 2, 2)) {
		ps_put(c, "%s > %s:", src.s, dst.s);
		local_trunc(c);
		return;
	}
	sport = be16(bp);
	dport = be16(bp + 2);
	if (n->direct)
		ps_put(c, "%s.%u > %s.%u: ", src.s, sport, dst.s, dport);
	else
		ps_put(c, "%u > %u: ", sport, dport);
	if (!have(c, bp, 20)) {
		local_trunc(c);
		return;
	}
	hlen = (bp[12] >> 4) * 4u;
	if (hlen < 20) {
		ps_put(c, " tcp %u [bad hdr length %u - too short, < 20]", length - hlen, hlen);
		return;
	}
	seq = be32(bp + 4);
	ack = be32(bp + 8);
	win = be16(bp + 14);
	urp = be16(bp + 18);
	if (c->d->quiet) {
		ps_put(c, "tcp %u", length - hlen);
		if (hlen > length)
			ps_put(c, " [bad hdr length %u - too long, > %u]", hlen, length);
		return;
	}
	flags = bp[13];
	tcp_flags(c, flags);
	if (flags & TH_ACK)
		tcp_relative(c, n, sport, dport, flags, &seq, &ack, &rev, &thseq, &thack);
	if (hlen > length) {
		ps_put(c, " [bad hdr length %u - too long, > %u]", hlen, length);
		return;
	}
	length -= hlen;
	if (length > 0 || flags & (TH_SYN | TH_FIN | TH_RST)) {
		ps_put(c, ", seq %u", seq);
		if (length > 0)
			ps_put(c, ":%u", seq + length);
	}
	if (flags & TH_ACK)
		ps_put(c, ", ack %u", ack);
	ps_put(c, ", win %u", win);
	if (flags & TH_URG)
		ps_put(c, ", urg %u", urp);
	if (hlen > 20 && !tcp_options(c, bp + 20, hlen - 20, rev, thseq, thack))
		return;
	ps_put(c, ", length %u", length);
	if (length == 0)
		return;
	if (!have(c, bp, hlen)) {
		ps_put(c, " [remaining caplen(%u) < header length(%u)]", avail(c, bp), hlen);
		c->jumped = true;
		return;
	}
	payload_print(c, bp + hlen, length, sport, dport);
}
