// SPDX-License-Identifier: GPL-2.0-only
/*
 * The decoder follows tcpdump 4.99's printers (print-ether.c, print-ip.c,
 * print-ip6.c, print-tcp.c, print-udp.c, print-icmp.c, print-icmp6.c,
 * print-arp.c) in what they print without -v, including how they give up
 * on a truncated frame. tcpdump gives up in two ways, and they differ in
 * what -x dumps afterwards:
 * - a printer's own length check prints " [|proto]" and returns normally
 *   (local_trunc() here);
 * - a field read past the captured bytes abandons the whole decode, the
 *   top level prints " [|proto]" and the hex dump covers the whole frame
 *   (c->jumped here).
 */
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "decode.h"

struct ps_tcp_conv {
	struct ps_tcp_conv *next;
	uint8_t ver;
	uint8_t src[16], dst[16];
	uint32_t port;   /* sport << 16 | dport, in the collating order */
	uint32_t seq, ack;
};

struct ctx {
	struct ps_decoder *d;
	char *buf;
	size_t size, len;
	const uint8_t *end;  /* end of what may be read (tcpdump's snapend) */
	const char *proto;   /* for " [|proto]" */
	bool jumped;         /* a read past the end abandoned the decode */
	struct ps_decoded *out;
};

__attribute__((format(printf, 2, 3)))
static void put(struct ctx *c, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (c->len + 1 >= c->size)
		return;
	va_start(ap, fmt);
	n = vsnprintf(c->buf + c->len, c->size - c->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		c->len = c->len + n < c->size ? c->len + n : c->size - 1;
}

static void local_trunc(struct ctx *c)
{
	put(c, " [|%s]", c->proto);
}

/* Are n bytes at p captured? */
static bool have(const struct ctx *c, const uint8_t *p, size_t n)
{
	return p <= c->end && (size_t)(c->end - p) >= n;
}

/* A field read: past the end, the decode is abandoned (tcpdump's GET_*). */
static bool need(struct ctx *c, const uint8_t *p, size_t n)
{
	if (!have(c, p, n))
		c->jumped = true;
	return !c->jumped;
}

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint32_t avail(const struct ctx *c, const uint8_t *p)
{
	return p < c->end ? (uint32_t)(c->end - p) : 0;
}

/* Reading stops at the end of this datagram (tcpdump's nd_push_snaplen). */
static void push_end(struct ctx *c, const uint8_t *p, uint32_t len)
{
	if (p + len < c->end)
		c->end = p + len;
}

/* Bytes tcpdump dumps after the line, as far as they were captured. */
static void unknown(struct ctx *c, const uint8_t *p, uint32_t len, bool hex_only)
{
	c->out->unknown = p;
	c->out->unknown_len = len < avail(c, p) ? len : avail(c, p);
	c->out->hex_only = hex_only;
}

struct addr {
	char s[INET6_ADDRSTRLEN];
};

static struct addr ip4_str(const uint8_t *a)
{
	struct addr r;

	snprintf(r.s, sizeof(r.s), "%u.%u.%u.%u", a[0], a[1], a[2], a[3]);
	return r;
}

static struct addr ip6_str(const uint8_t *a)
{
	struct addr r;

	if (!inet_ntop(AF_INET6, a, r.s, sizeof(r.s)))
		snprintf(r.s, sizeof(r.s), "?");
	return r;
}

static struct addr mac_str(const uint8_t *a)
{
	struct addr r;

	snprintf(r.s, sizeof(r.s), "%02x:%02x:%02x:%02x:%02x:%02x",
		 a[0], a[1], a[2], a[3], a[4], a[5]);
	return r;
}

/* The network header a transport header sits in: addresses and version. */
struct l3 {
	int ver;
	const uint8_t *hdr;
	bool direct; /* the transport header follows the IP header itself */
};

static struct addr l3_src(const struct l3 *n)
{
	return n->ver == 6 ? ip6_str(n->hdr + 8) : ip4_str(n->hdr + 12);
}

static struct addr l3_dst(const struct l3 *n)
{
	return n->ver == 6 ? ip6_str(n->hdr + 24) : ip4_str(n->hdr + 16);
}

static void ip4(struct ctx *c, const uint8_t *bp, uint32_t length);
static const char *ethertype_name(uint16_t t);
static void ip6(struct ctx *c, const uint8_t *bp, uint32_t length);

/* ---- TCP ---------------------------------------------------------------- */

static const char *const tcp_opt_names[256] = {
	[0] = "eol", [1] = "nop", [2] = "mss", [3] = "wscale", [4] = "sackOK",
	[5] = "sack", [6] = "echo", [7] = "echoreply", [8] = "TS", [11] = "cc",
	[12] = "ccnew", [13] = "", [19] = "md5", [20] = "scps", [28] = "uto",
	[29] = "tcp-ao", [30] = "mptcp", [34] = "tfo", [254] = "exp",
};

#define TH_FIN 0x01
#define TH_SYN 0x02
#define TH_RST 0x04
#define TH_ACK 0x10
#define TH_URG 0x20

static void free_convs(struct ps_decoder *d)
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
		if (e->ver == key->ver && e->port == key->port &&
		    !memcmp(e->src, key->src, 16) && !memcmp(e->dst, key->dst, 16)) {
			*found = true;
			return e;
		}
	*found = false;
	if (d->n_conv >= PS_TCP_CONV_MAX)
		free_convs(d);
	e = malloc(sizeof(*e));
	if (!e)
		return NULL;
	*e = *key;
	e->next = d->bucket[i];
	d->bucket[i] = e;
	d->n_conv++;
	return e;
}

static void tcp_fastopen(struct ctx *c, const uint8_t *cp, uint32_t datalen, bool exp)
{
	if (exp)
		put(c, "tfo");
	if (datalen == 0) {
		put(c, " cookiereq");
	} else if (datalen % 2 || datalen < 4 || datalen > 16) {
		put(c, " (invalid)");
	} else {
		put(c, " cookie ");
		for (uint32_t i = 0; i < datalen; i++)
			put(c, "%02x", cp[i]);
	}
}

static void tcp(struct ctx *c, const uint8_t *bp, uint32_t length, const struct l3 *n)
{
	struct addr src = l3_src(n), dst = l3_dst(n);
	uint32_t hlen, seq, ack, thseq = 0, thack = 0;
	uint16_t sport, dport, win, urp;
	bool rev = false;
	uint8_t flags;
	char ch = 0;

	c->proto = "tcp";
	if (!have(c, bp + 2, 2)) {
		put(c, "%s > %s:", src.s, dst.s);
		local_trunc(c);
		return;
	}
	sport = be16(bp);
	dport = be16(bp + 2);
	if (n->direct)
		put(c, "%s.%u > %s.%u: ", src.s, sport, dst.s, dport);
	else
		put(c, "%u > %u: ", sport, dport);
	if (!have(c, bp, 20)) {
		local_trunc(c);
		return;
	}
	hlen = (bp[12] >> 4) * 4u;
	if (hlen < 20) {
		put(c, " tcp %u [bad hdr length %u - too short, < 20]", length - hlen, hlen);
		return;
	}
	seq = be32(bp + 4);
	ack = be32(bp + 8);
	win = be16(bp + 14);
	urp = be16(bp + 18);
	if (c->d->quiet) {
		put(c, "tcp %u", length - hlen);
		if (hlen > length)
			put(c, " [bad hdr length %u - too long, > %u]", hlen, length);
		return;
	}
	flags = bp[13];
	{
		static const char names[] = "FSRP.UEW";
		char f[9];
		int k = 0;

		for (int b = 0; b < 8; b++)
			if (flags & (1u << b))
				f[k++] = names[b];
		f[k] = 0;
		put(c, "Flags [%s]", k ? f : "none");
	}
	if (flags & TH_ACK) {
		struct ps_tcp_conv key = { .ver = (uint8_t)n->ver }, *e;
		size_t alen = n->ver == 6 ? 16 : 4;
		const uint8_t *s = n->hdr + (n->ver == 6 ? 8 : 12);
		const uint8_t *d = s + alen;
		bool found;

		if (sport > dport)
			rev = true;
		else if (sport == dport && memcmp(s, d, alen) > 0)
			rev = true;
		memcpy(key.src, rev ? d : s, alen);
		memcpy(key.dst, rev ? s : d, alen);
		key.port = rev ? (uint32_t)dport << 16 | sport : (uint32_t)sport << 16 | dport;
		e = conv_find(c->d, &key, &found);
		if (e) {
			if (!found || (flags & TH_SYN)) {
				if (rev)
					e->ack = seq, e->seq = ack - 1;
				else
					e->seq = seq, e->ack = ack - 1;
			} else if (rev) {
				seq -= e->ack, ack -= e->seq;
			} else {
				seq -= e->seq, ack -= e->ack;
			}
			thseq = e->seq;
			thack = e->ack;
		}
	}
	if (hlen > length) {
		put(c, " [bad hdr length %u - too long, > %u]", hlen, length);
		return;
	}
	length -= hlen;
	if (length > 0 || flags & (TH_SYN | TH_FIN | TH_RST)) {
		put(c, ", seq %u", seq);
		if (length > 0)
			put(c, ":%u", seq + length);
	}
	if (flags & TH_ACK)
		put(c, ", ack %u", ack);
	put(c, ", win %u", win);
	if (flags & TH_URG)
		put(c, ", urg %u", urp);

	if (hlen > 20) {
		const uint8_t *cp = bp + 20;
		uint32_t left = hlen - 20;

		put(c, ", options [");
		while (left > 0) {
			uint32_t opt, len, datalen = 0;

			if (ch)
				put(c, "%c", ch);
			if (!need(c, cp, 1))
				return;
			opt = *cp++;
			if (opt == 0 || opt == 1) {
				len = 1;
			} else {
				if (!need(c, cp, 1))
					return;
				len = *cp++;
				if (len < 2 || len > left)
					goto bad;
				--left;
			}
			--left;
			if (tcp_opt_names[opt])
				put(c, "%s", tcp_opt_names[opt]);
			else
				put(c, "unknown-%u", opt);
/* Bail if l bytes of data are not left or were not captured. */
#define LENCHECK(l) do { if ((l) > left) goto bad; if (!have(c, cp, (l))) goto trunc; } while (0)
			switch (opt) {
			case 2:
				datalen = 2;
				LENCHECK(datalen);
				put(c, " %u", be16(cp));
				break;
			case 3:
				datalen = 1;
				LENCHECK(datalen);
				put(c, " %u", cp[0]);
				break;
			case 5:
				datalen = len - 2;
				if (datalen % 8) {
					put(c, " invalid sack");
				} else {
					put(c, " %u ", datalen / 8);
					for (uint32_t i = 0; i < datalen; i += 8) {
						uint32_t s, e;

						LENCHECK(i + 8);
						s = be32(cp + i) - (rev ? thseq : thack);
						e = be32(cp + i + 4) - (rev ? thseq : thack);
						put(c, "{%u:%u}", s, e);
					}
				}
				break;
			case 6: case 7: case 11: case 12: case 13:
				datalen = 4;
				LENCHECK(datalen);
				put(c, " %u", be32(cp));
				break;
			case 8:
				datalen = 8;
				LENCHECK(datalen);
				put(c, " val %u ecr %u", be32(cp), be32(cp + 4));
				break;
			case 19:
				/* tcpdump (with libcrypto, as Debian builds it)
				 * cannot check the signature without -M. */
				datalen = 16;
				LENCHECK(datalen);
				put(c, " can't check - ");
				for (uint32_t i = 0; i < 16; i++)
					put(c, "%02x", cp[i]);
				break;
			case 20:
				datalen = 2;
				LENCHECK(datalen);
				put(c, " cap %02x id %u", cp[0], cp[1]);
				break;
			case 29:
				datalen = len - 2;
				if (datalen < 2) {
					put(c, " (invalid)");
				} else {
					LENCHECK(2);
					put(c, " keyid %u rnextkeyid %u", cp[0], cp[1]);
					if (datalen > 2) {
						put(c, " mac 0x");
						for (uint32_t i = 2; i < datalen; i++) {
							LENCHECK(i + 1);
							put(c, "%02x", cp[i]);
						}
					}
				}
				break;
			case 0: case 1: case 4:
				break;
			case 28: {
				uint32_t uto;

				datalen = 2;
				LENCHECK(datalen);
				uto = be16(cp);
				put(c, " 0x%x", uto);
				uto = uto & 1 ? (uto >> 1) * 60 : uto >> 1;
				put(c, " %u", uto);
				break;
			}
			case 34:
				datalen = len - 2;
				LENCHECK(datalen);
				put(c, " ");
				tcp_fastopen(c, cp, datalen, false);
				break;
			case 254:
				datalen = len - 2;
				LENCHECK(datalen);
				if (datalen < 2)
					goto bad;
				put(c, "-");
				if (be16(cp) == 0xf989)
					tcp_fastopen(c, cp + 2, datalen - 2, true);
				else
					put(c, "%04x", be16(cp));
				break;
			default: /* also MPTCP: its subtypes are not decoded here */
				datalen = len - 2;
				if (datalen)
					put(c, " 0x");
				for (uint32_t i = 0; i < datalen; i++) {
					LENCHECK(i + 1);
					put(c, "%02x", cp[i]);
				}
				break;
			}
#undef LENCHECK
			cp += datalen;
			left -= datalen;
			datalen += opt == 0 || opt == 1 ? 1 : 2;
			if (datalen != len)
				put(c, "[len %u]", len);
			ch = ',';
			if (opt == 0)
				break;
		}
		put(c, "]");
	}
	put(c, ", length %u", length);
	if (length == 0)
		return;
	if (!have(c, bp, hlen)) {
		put(c, " [remaining caplen(%u) < header length(%u)]", avail(c, bp), hlen);
		c->jumped = true;
	}
	/* tcpdump would now decode the payload by port; the line ends here. */
	return;
bad:
	put(c, "[bad opt]");
	if (ch)
		put(c, "]");
	return;
trunc:
	local_trunc(c);
	if (ch)
		put(c, ">");
}

/* ---- UDP ---------------------------------------------------------------- */

static void udp_addrs(struct ctx *c, const struct l3 *n, int sport, int dport)
{
	struct addr src = l3_src(n), dst = l3_dst(n);

	if (n->direct) {
		if (sport == -1)
			put(c, "%s > %s: ", src.s, dst.s);
		else
			put(c, "%s.%d > %s.%d: ", src.s, sport, dst.s, dport);
	} else if (sport != -1) {
		put(c, "%d > %d: ", sport, dport);
	}
}

static void udp(struct ctx *c, const uint8_t *bp, uint32_t length, const struct l3 *n,
		bool fragmented)
{
	uint16_t sport, dport;
	uint32_t ulen;

	c->proto = "udp";
	if (!have(c, bp + 2, 2)) {
		udp_addrs(c, n, -1, -1);
		local_trunc(c);
		return;
	}
	sport = be16(bp);
	dport = be16(bp + 2);
	if (length < 8) {
		udp_addrs(c, n, sport, dport);
		put(c, "truncated-udp %u", length);
		return;
	}
	if (!have(c, bp + 4, 2)) {
		udp_addrs(c, n, sport, dport);
		local_trunc(c);
		return;
	}
	ulen = be16(bp + 4);
	if (ulen == 0 && length > 65535)
		ulen = length;
	if (ulen < 8) {
		udp_addrs(c, n, sport, dport);
		put(c, "truncated-udplength %u", ulen);
		return;
	}
	ulen -= 8;
	length -= 8;
	if (ulen < length)
		length = ulen;
	if (bp + 8 > c->end) {
		udp_addrs(c, n, sport, dport);
		local_trunc(c);
		return;
	}
	udp_addrs(c, n, sport, dport);
	/* tcpdump would decode the payload of well-known ports here. */
	if (ulen > length && !fragmented)
		put(c, "UDP, bad length %u > %u", ulen, length);
	else
		put(c, "UDP, length %u", ulen);
}

/* ---- ICMP --------------------------------------------------------------- */

static void icmp(struct ctx *c, const uint8_t *dp, uint32_t plen)
{
	static const char *const unreach[16] = {
		[5] = "%s unreachable - source route failed",
		[6] = "net %s unreachable - unknown",
		[7] = "host %s unreachable - unknown",
		[8] = "%s unreachable - source host isolated",
		[9] = "net %s unreachable - admin prohibited",
		[10] = "host %s unreachable - admin prohibited",
		[11] = "net %s unreachable - tos prohibited",
		[12] = "host %s unreachable - tos prohibited",
		[13] = "host %s unreachable - admin prohibited filter",
		[14] = "host %s unreachable - host precedence violation",
		[15] = "host %s unreachable - precedence cutoff",
	};
	static const char *const redirect[4] = {
		"redirect %s to net %s", "redirect %s to host %s",
		"redirect-tos %s to net %s", "redirect-tos %s to host %s",
	};
	static const char *const names[19] = {
		[0] = "echo reply", [4] = "source quench", [8] = "echo request",
		[10] = "router solicitation", [13] = "time stamp request",
		[14] = "time stamp reply", [15] = "information request",
		[16] = "information reply", [17] = "address mask request",
	};
	char buf[256];
	uint8_t type, code;

	c->proto = "icmp";
	if (!need(c, dp, 2))
		return;
	type = dp[0];
	code = dp[1];
	buf[0] = 0;
	switch (type) {
	case 0:
	case 8:
		if (!need(c, dp + 4, 4))
			return;
		snprintf(buf, sizeof(buf), "echo %s, id %u, seq %u",
			 type == 8 ? "request" : "reply", be16(dp + 4), be16(dp + 6));
		break;
	case 3: {
		const uint8_t *oip = dp + 8;

		if (code == 3) {
			uint32_t hlen;
			uint16_t port;

			if (!have(c, oip + 9, 1)) {
				local_trunc(c);
				return;
			}
			if (!need(c, oip, 1))
				return;
			hlen = (oip[0] & 15) * 4u;
			if (!need(c, oip + hlen + 2, 2) || !need(c, oip + 16, 4))
				return;
			port = be16(oip + hlen + 2);
			if (oip[9] == 6)
				snprintf(buf, sizeof(buf), "%s tcp port %u unreachable",
					 ip4_str(oip + 16).s, port);
			else if (oip[9] == 17)
				snprintf(buf, sizeof(buf), "%s udp port %u unreachable",
					 ip4_str(oip + 16).s, port);
			else
				snprintf(buf, sizeof(buf), "%s protocol %u port %u unreachable",
					 ip4_str(oip + 16).s, oip[9], port);
			break;
		}
		if (!need(c, oip + 16, 4))
			return;
		if (code == 0) {
			snprintf(buf, sizeof(buf), "net %s unreachable", ip4_str(oip + 16).s);
		} else if (code == 1) {
			snprintf(buf, sizeof(buf), "host %s unreachable", ip4_str(oip + 16).s);
		} else if (code == 2) {
			if (!need(c, oip + 9, 1))
				return;
			snprintf(buf, sizeof(buf), "%s protocol %u unreachable",
				 ip4_str(oip + 16).s, oip[9]);
		} else if (code == 4) {
			uint16_t mtu;

			if (!need(c, dp + 6, 2))
				return;
			mtu = be16(dp + 6);
			if (mtu)
				snprintf(buf, sizeof(buf), "%s unreachable - need to frag (mtu %u)",
					 ip4_str(oip + 16).s, mtu);
			else
				snprintf(buf, sizeof(buf), "%s unreachable - need to frag",
					 ip4_str(oip + 16).s);
		} else if (code < 16 && unreach[code]) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
			snprintf(buf, sizeof(buf), unreach[code], ip4_str(oip + 16).s);
#pragma GCC diagnostic pop
		} else {
			snprintf(buf, sizeof(buf), "%s unreachable - #%u", ip4_str(oip + 16).s, code);
		}
		break;
	}
	case 5:
		if (!need(c, dp + 24, 4) || !need(c, dp + 4, 4))
			return;
		if (code < 4) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
			snprintf(buf, sizeof(buf), redirect[code], ip4_str(dp + 24).s,
				 ip4_str(dp + 4).s);
#pragma GCC diagnostic pop
		} else {
			snprintf(buf, sizeof(buf), "redirect-#%u %s to %s", code,
				 ip4_str(dp + 24).s, ip4_str(dp + 4).s);
		}
		break;
	case 11:
		if (!have(c, dp + 24, 4)) {
			local_trunc(c);
			return;
		}
		if (code == 0)
			snprintf(buf, sizeof(buf), "time exceeded in-transit");
		else if (code == 1)
			snprintf(buf, sizeof(buf), "ip reassembly time exceeded");
		else
			snprintf(buf, sizeof(buf), "time exceeded-#%u", code);
		break;
	case 12:
		if (code) {
			snprintf(buf, sizeof(buf), "parameter problem - code %u", code);
		} else {
			if (!need(c, dp + 4, 1))
				return;
			snprintf(buf, sizeof(buf), "parameter problem - octet %u", dp[4]);
		}
		break;
	case 18:
		if (!need(c, dp + 8, 4))
			return;
		snprintf(buf, sizeof(buf), "address mask is 0x%08x", be32(dp + 8));
		break;
	case 13:
		if (!need(c, dp + 4, 4))
			return;
		snprintf(buf, sizeof(buf), "time stamp query id %u seq %u",
			 be16(dp + 4), be16(dp + 6));
		break;
	default:
		if (type < 19 && names[type])
			snprintf(buf, sizeof(buf), "%s", names[type]);
		else
			snprintf(buf, sizeof(buf), "type-#%u", type);
		break;
	}
	put(c, "ICMP %s, length %u", buf, plen);
}

/* ---- ICMPv6 ------------------------------------------------------------- */

static const char *icmp6_type_name(uint8_t t)
{
	switch (t) {
	case 1: return "destination unreachable";
	case 2: return "packet too big";
	case 3: return "time exceeded in-transit";
	case 4: return "parameter problem";
	case 128: return "echo request";
	case 129: return "echo reply";
	case 130: return "multicast listener query";
	case 131: return "multicast listener report";
	case 132: return "multicast listener done";
	case 133: return "router solicitation";
	case 134: return "router advertisement";
	case 135: return "neighbor solicitation";
	case 136: return "neighbor advertisement";
	case 137: return "redirect";
	case 138: return "router renumbering";
	case 141: return "inverse neighbor solicitation";
	case 142: return "inverse neighbor advertisement";
	case 143: return "multicast listener report v2";
	case 144: return "ha discovery request";
	case 145: return "ha discovery reply";
	case 146: return "mobile router solicitation";
	case 147: return "mobile router advertisement";
	case 139: return "node information query";
	case 140: return "node information reply";
	case 200: return "mtrace response";
	case 201: return "mtrace message";
	case 155: return "RPL";
	default: return NULL;
	}
}

/* The transport header inside an ICMPv6 error's copy of the packet. */
static const uint8_t *icmp6_inner_ports(struct ctx *c, const uint8_t *bp, unsigned int *prot)
{
	const uint8_t *ep = c->end;
	unsigned int nh;
	uint32_t hlen = 40;

	if (!have(c, bp + 6, 1))
		return NULL;
	nh = bp[6];
	while (bp < ep) {
		bp += hlen;
		switch (nh) {
		case 6:
		case 17:
			if (!have(c, bp + 2, 2))
				return NULL;
			*prot = nh;
			return bp;
		case 0:
		case 60:
		case 43:
			if (!have(c, bp + 1, 1))
				return NULL;
			nh = bp[0];
			hlen = (bp[1] + 1u) << 3;
			break;
		case 44:
			if (!have(c, bp + 2, 2))
				return NULL;
			if (be16(bp + 2) & 0xfff8)
				return NULL;
			nh = bp[0];
			hlen = 8;
			break;
		case 51:
			if (!have(c, bp + 1, 1))
				return NULL;
			nh = bp[0];
			hlen = (bp[1] + 2u) << 2;
			break;
		default:
			return NULL;
		}
	}
	return NULL;
}

static void icmp6(struct ctx *c, const uint8_t *dp, uint32_t length)
{
	const uint8_t *oip = dp + 8;
	const char *name;
	uint8_t type, code;

	c->proto = "icmp6";
	if (length == 0) {
		put(c, "ICMP6, length 0 (invalid)");
		return;
	}
	if (!need(c, dp, 1))
		return;
	type = dp[0];
	name = icmp6_type_name(type);
	if (name)
		put(c, "ICMP6, %s", name);
	else
		put(c, "ICMP6, unknown icmp6 type (%u)", type);
	if (!need(c, dp + 1, 1))
		return;
	code = dp[1];
	switch (type) {
	case 1: {
		static const char *const codes[5] = {
			"unreachable route", " unreachable prohibited", "beyond scope",
			"unreachable address", "unreachable port",
		};
		const uint8_t *ouh;
		unsigned int prot = 0;

		if (code < 5)
			put(c, ", %s", codes[code]);
		else
			put(c, ", unknown unreach code (%u)", code);
		switch (code) {
		case 0: case 1: case 3:
			if (!need(c, oip + 24, 16))
				return;
			put(c, " %s", ip6_str(oip + 24).s);
			break;
		case 2:
			if (!need(c, oip + 8, 32))
				return;
			put(c, " %s, source address %s", ip6_str(oip + 24).s, ip6_str(oip + 8).s);
			break;
		case 4:
			ouh = icmp6_inner_ports(c, oip, &prot);
			if (!ouh) {
				local_trunc(c);
				return;
			}
			if (!need(c, oip + 24, 16))
				return;
			if (prot == 6)
				put(c, ", %s tcp port %u", ip6_str(oip + 24).s, be16(ouh + 2));
			else
				put(c, ", %s udp port %u", ip6_str(oip + 24).s, be16(ouh + 2));
			break;
		default:
			unknown(c, dp, length, true);
			return;
		}
		break;
	}
	case 2:
		if (!need(c, dp + 4, 4))
			return;
		put(c, ", mtu %u", be32(dp + 4));
		break;
	case 3:
		if (code == 0) {
			if (!need(c, oip + 24, 16))
				return;
			put(c, " for %s", ip6_str(oip + 24).s);
		} else if (code == 1) {
			put(c, " (reassembly)");
		} else {
			put(c, ", unknown code (%u)", code);
		}
		break;
	case 4: {
		static const char *const what[4] = {
			"erroneous", "next header", "option", "incomplete header chain",
		};

		if (!have(c, oip + 24, 16)) {
			local_trunc(c);
			return;
		}
		if (code < 4)
			put(c, ", %s - octet %u", what[code], be32(dp + 4));
		else
			put(c, ", code-#%u", code);
		break;
	}
	case 128:
	case 129:
		if (!need(c, dp + 4, 4))
			return;
		put(c, ", id %u, seq %u", be16(dp + 4), be16(dp + 6));
		break;
	case 130:
		if (length == 24) {
			if (have(c, dp, 24))
				put(c, "max resp delay: %u addr: %s", be16(dp + 4),
				    ip6_str(dp + 8).s);
		} else if (length >= 28) {
			/* MLDv2 query: tcpdump prints its group and sources. */
			uint16_t nsrcs;

			put(c, " v2");
			if (!need(c, dp + 8, 16))
				return;
			put(c, " [gaddr %s", ip6_str(dp + 8).s);
			if (!need(c, dp + 26, 2))
				return;
			nsrcs = be16(dp + 26);
			if (length < 28 + nsrcs * 16u)
				put(c, " [invalid number of sources]");
			else
				put(c, " %u source(s)]", nsrcs);
		} else {
			put(c, " unknown-version (len %u) ", length);
		}
		break;
	case 131:
	case 132:
		if (have(c, dp, 24))
			put(c, "max resp delay: %u addr: %s", be16(dp + 4), ip6_str(dp + 8).s);
		break;
	case 133:
	case 134:
	case 141:
	case 142:
		break;
	case 135:
		if (!need(c, dp + 8, 16))
			return;
		put(c, ", who has %s", ip6_str(dp + 8).s);
		break;
	case 136:
		if (!need(c, dp + 8, 16))
			return;
		put(c, ", tgt is %s", ip6_str(dp + 8).s);
		break;
	case 137:
		if (!need(c, dp + 24, 16) || !need(c, dp + 8, 16))
			return;
		put(c, ", %s to %s", ip6_str(dp + 24).s, ip6_str(dp + 8).s);
		break;
	case 143:
		if (length < 8) {
			put(c, " [invalid len %u]", length);
			break;
		}
		if (!need(c, dp + 6, 2))
			return;
		put(c, ", %u group record(s)", be16(dp + 6));
		break;
	case 144:
	case 146:
		if (!need(c, dp + 4, 2))
			return;
		put(c, ", id 0x%04x", be16(dp + 4));
		break;
	case 145:
	case 147:
		break;
	default:
		put(c, ", length %u", length);
		unknown(c, dp, length, true);
		return;
	}
	put(c, ", length %u", length);
}

/* ---- IP ----------------------------------------------------------------- */

static void demux(struct ctx *c, const uint8_t *bp, uint32_t length, const struct l3 *n,
		  bool fragmented, uint8_t nh)
{
	switch (nh) {
	case 6:
		tcp(c, bp, length, n);
		break;
	case 17:
		udp(c, bp, length, n, fragmented);
		break;
	case 1:
		if (n->ver == 4)
			icmp(c, bp, length);
		else
			put(c, "[ICMP requires IPv4] (invalid)");
		break;
	case 58:
		if (n->ver == 6)
			icmp6(c, bp, length);
		else
			put(c, "[ICMPv6 requires IPv6] (invalid)");
		break;
	case 4:
		ip4(c, bp, length);
		break;
	case 41:
		ip6(c, bp, length);
		break;
	case 59:
		put(c, "no next header");
		break;
	default:
		put(c, " ip-proto-%u %u", nh, length);
		break;
	}
}

static void ip4(struct ctx *c, const uint8_t *bp, uint32_t length)
{
	struct l3 n = { .ver = 4, .hdr = bp };
	uint32_t hlen, len;
	uint16_t off;
	uint8_t proto;

	c->proto = "ip";
	if (!need(c, bp, 1))
		return;
	if (bp[0] >> 4 != 4) {
		if (bp[0] >> 4 == 6)
			put(c, "IP6, wrong link-layer encapsulation");
		else
			put(c, "IP%u", bp[0] >> 4);
		put(c, " (invalid)");
		return;
	}
	if (!c->d->link)
		put(c, "IP ");
	if (!have(c, bp, 20)) {
		local_trunc(c);
		return;
	}
	if (length < 20) {
		put(c, "truncated-ip %u", length);
		return;
	}
	hlen = (bp[0] & 15) * 4u;
	if (hlen < 20) {
		put(c, "bad-hlen %u", hlen);
		return;
	}
	len = be16(bp + 2);
	if (length < len)
		put(c, "truncated-ip - %u bytes missing! ", len - length);
	if (len < hlen) {
		put(c, "bad-len %u", len);
		return;
	}
	push_end(c, bp, len);
	len -= hlen;
	off = be16(bp + 6);
	proto = bp[9];
	if ((off & 0x1fff) == 0) {
		n.direct = true;
		if (proto != 6 && proto != 17)
			put(c, "%s > %s: ", ip4_str(bp + 12).s, ip4_str(bp + 16).s);
		if (!have(c, bp, hlen)) {
			put(c, " [remaining caplen(%u) < header length(%u)]", avail(c, bp), hlen);
			c->jumped = true;
			return;
		}
		demux(c, bp + hlen, len, &n, off & 0x2000, proto);
	} else {
		/* Not the first fragment: no transport header to show. */
		put(c, "%s > %s: ip-proto-%u", ip4_str(bp + 12).s, ip4_str(bp + 16).s, proto);
	}
}

/* IPv6 options inside hop-by-hop/destination headers; tcpdump prints only
 * what is wrong with them when not verbose. -1: malformed. */
static int ip6_opts(struct ctx *c, const uint8_t *bp, int len, bool hbh, bool *found_jumbo,
		    uint32_t *payload_len)
{
	int optlen = 0;

	for (int i = 0; i < len; i += optlen) {
		if (!need(c, bp + i, 1))
			return -1;
		if (bp[i] == 0) {
			optlen = 1;
		} else {
			if (i + 1 >= len)
				return -1;
			if (!need(c, bp + i + 1, 1))
				return -1;
			optlen = bp[i + 1] + 2;
		}
		if (i + optlen > len)
			return -1;
		switch (bp[i]) {
		case 0:
			break;
		case 1:
			if (len - i < 2) {
				put(c, "(padn: trunc)");
				return -1;
			}
			break;
		case 5:
			if (len - i < 4) {
				put(c, "(rtalert: trunc)");
				return -1;
			}
			if (bp[i + 1] != 2) {
				put(c, "(rtalert: invalid len %u)", bp[i + 1]);
				return -1;
			}
			break;
		case 0xc2:
			if (len - i < 6) {
				put(c, "(jumbo: trunc)");
				return -1;
			}
			if (bp[i + 1] != 4) {
				put(c, "(jumbo: invalid len %u)", bp[i + 1]);
				return -1;
			}
			if (!need(c, bp + i + 2, 4))
				return -1;
			if (hbh && !*found_jumbo && *payload_len == 0 && be32(bp + i + 2) >= 65536) {
				*found_jumbo = true;
				*payload_len = be32(bp + i + 2);
			}
			break;
		case 0xc9:
			if (len - i < 18) {
				put(c, "(homeaddr: trunc)");
				return -1;
			}
			if (bp[i + 1] < 16) {
				put(c, "(homeaddr: invalid len %u)", bp[i + 1]);
				return -1;
			}
			break;
		default:
			if (len - i < 2) {
				put(c, "(type %u: trunc)", bp[i]);
				return -1;
			}
			break;
		}
	}
	return 0;
}

/* Hop-by-hop (hbh) or destination options header: its length, or -1. */
static int ip6_opt_header(struct ctx *c, const uint8_t *cp, bool hbh, bool *found_jumbo,
			  uint32_t *payload_len)
{
	uint32_t hlen;

	c->proto = hbh ? "hbhopt" : "dstopt";
	if (!need(c, cp + 1, 1))
		return -1;
	hlen = (cp[1] + 1u) << 3;
	if (!have(c, cp, hlen)) {
		local_trunc(c);
		return -1;
	}
	put(c, hbh ? "HBH " : "DSTOPT ");
	if (hbh && ip6_opts(c, cp + 2, (int)hlen - 2, true, found_jumbo, payload_len) < 0) {
		if (!c->jumped)
			local_trunc(c);
		return -1;
	}
	return (int)hlen;
}

static int frag6(struct ctx *c, const uint8_t *cp, const uint8_t *ip)
{
	c->proto = "frag6";
	if (!need(c, cp + 2, 2) || !need(c, ip + 4, 2))
		return -1;
	put(c, "frag (%u|%u)", be16(cp + 2) & 0xfff8,
	    (unsigned int)(40 + be16(ip + 4) - (cp - ip) - 8));
	if (be16(cp + 2) & 0xfff8)
		return -1;
	put(c, " ");
	return 8;
}

static int rt6(struct ctx *c, const uint8_t *cp)
{
	uint32_t len, type;
	const uint8_t *p;

	c->proto = "rt6";
	put(c, "RT6");
	if (!need(c, cp + 1, 1))
		return -1;
	len = cp[1];
	put(c, " (len=%u", len);
	if (!need(c, cp + 2, 1))
		return -1;
	type = cp[2];
	put(c, ", type=%u", type);
	if (type == 0)
		put(c, " [Deprecated]");
	if (!need(c, cp + 3, 1))
		return -1;
	put(c, ", segleft=%u", cp[3]);
	switch (type) {
	case 0:
	case 2:
		if (!need(c, cp + 4, 4))
			return -1;
		if (be32(cp + 4))
			put(c, ", rsv=0x%0x", be32(cp + 4));
		if (len % 2) {
			put(c, " (invalid length %u) (invalid)", len);
			return -1;
		}
		p = cp + 8;
		break;
	case 4:
		if (!need(c, cp + 4, 4))
			return -1;
		put(c, ", last-entry=%u", cp[4]);
		if (cp[5])
			put(c, ", flags=0x%0x", cp[5]);
		put(c, ", tag=%x", be16(cp + 6));
		if (len % 2) {
			put(c, " (invalid length %u) (invalid)", len);
			return -1;
		}
		p = cp + 8;
		break;
	default:
		put(c, " (unknown type) (invalid)");
		return -1;
	}
	for (uint32_t i = 0; i < len / 2; i++, p += 16) {
		if (!need(c, p, 16))
			return -1;
		put(c, ", [%u]%s", i, ip6_str(p).s);
	}
	put(c, ") ");
	return (int)((len + 1) << 3);
}

static void ip6(struct ctx *c, const uint8_t *bp, uint32_t length)
{
	struct l3 n = { .ver = 6, .hdr = bp };
	const uint8_t *cp = bp;
	uint32_t payload_len, len, total = 0;
	bool found_ext = false, found_jumbo = false, found_hbh = false, fragmented = false;
	int advance = 40, ph = 255;
	uint8_t nh;

	c->proto = "ip6";
	if (!have(c, bp, 40)) {
		local_trunc(c);
		return;
	}
	if (length < 40) {
		put(c, "truncated-ip6 %u", length);
		return;
	}
	if (!c->d->link)
		put(c, "IP6 ");
	if (bp[0] >> 4 != 6) {
		put(c, "version error: %u != 6", bp[0] >> 4);
		return;
	}
	payload_len = be16(bp + 4);
	if (payload_len) {
		len = payload_len + 40;
		if (length < len)
			put(c, "truncated-ip6 - %u bytes missing!", len - length);
	} else {
		len = length + 40;
	}
	nh = bp[6];
	push_end(c, bp, len);
	while (cp < c->end && advance > 0) {
		if (len < (uint32_t)advance) {
			local_trunc(c);
			return;
		}
		cp += advance;
		len -= advance;
		total += advance;
		n.direct = cp == bp + 40;
		if (n.direct && nh != 6 && nh != 17)
			put(c, "%s > %s: ", ip6_str(bp + 8).s, ip6_str(bp + 24).s);
		switch (nh) {
		case 0:
			if (found_hbh) {
				put(c, "[The Hop-by-Hop Options header was already found] (invalid)");
				return;
			}
			if (ph != 255) {
				put(c, "[The Hop-by-Hop Options header don't follow the IPv6 header] (invalid)");
				return;
			}
			advance = ip6_opt_header(c, cp, true, &found_jumbo, &payload_len);
			if (c->jumped)
				return;
			if (payload_len == 0 && !found_jumbo) {
				put(c, "[No valid Jumbo Payload Hop-by-Hop option found] (invalid)");
				return;
			}
			if (advance < 0)
				return;
			found_ext = found_hbh = true;
			nh = cp[0];
			break;
		case 60:
			advance = ip6_opt_header(c, cp, false, NULL, NULL);
			if (advance < 0)
				return;
			found_ext = true;
			nh = cp[0];
			break;
		case 44:
			advance = frag6(c, cp, bp);
			if (advance < 0 || c->end <= cp + advance)
				return;
			found_ext = true;
			nh = cp[0];
			fragmented = true;
			break;
		case 43:
			if (!have(c, cp, 1)) {
				local_trunc(c);
				return;
			}
			advance = rt6(c, cp);
			if (advance < 0)
				return;
			found_ext = true;
			nh = cp[0];
			break;
		default:
			if (found_jumbo) {
				len = payload_len + 40;
				if (len < total) {
					local_trunc(c);
					return;
				}
				if (length < len)
					put(c, "truncated-ip6 - %u bytes missing!", len - length);
				c->end = bp + len < c->end ? bp + len : c->end;
				len -= total;
			} else if (payload_len == 0) {
				if (found_ext) {
					local_trunc(c);
					return;
				}
				len = 0;
				c->end = bp + 40 < c->end ? bp + 40 : c->end;
			}
			demux(c, cp, len, &n, fragmented, nh);
			return;
		}
		ph = nh;
		c->proto = "ip6";
	}
}

/* ---- ARP ---------------------------------------------------------------- */

static void arp(struct ctx *c, const uint8_t *ap, uint32_t length)
{
	static const char *const ops[11] = {
		[1] = "Request", [2] = "Reply", [3] = "Reverse Request",
		[4] = "Reverse Reply", [8] = "Inverse Request", [9] = "Inverse Reply",
		[10] = "NACK Reply",
	};
	uint16_t hrd, pro, op;
	uint8_t hln, pln;
	const uint8_t *sha, *spa, *tha, *tpa;

	c->proto = "arp";
	if (!need(c, ap, 8))
		return;
	hrd = be16(ap);
	pro = be16(ap + 2);
	hln = ap[4];
	pln = ap[5];
	op = be16(ap + 6);
	sha = ap + 8;
	spa = sha + hln;
	tha = spa + pln;
	tpa = tha + hln;
	if (!need(c, tpa, pln))
		return;
	if (!c->d->link)
		put(c, "ARP, ");
	if ((pro != 0x0800 && pro != 0x1000) || pln != 4 || hln == 0) {
		/* Not IPv4 over a link address: tcpdump names the types only. */
		const char *pname = ethertype_name(pro);

		if (hrd == 1)
			put(c, "Ethernet (len %u), ", hln);
		else
			put(c, "Unknown Hardware (%u) (len %u), ", hrd, hln);
		if (pname)
			put(c, "%s (len %u)", pname, pln);
		else
			put(c, "Unknown Protocol (0x%04x) (len %u)", pro, pln);
		put(c, ", length %u", length);
		return;
	}
	if (op < 11 && ops[op])
		put(c, "%s ", ops[op]);
	else
		put(c, "Unknown (%u) ", op);
	/* Link addresses of Ethernet length print as MACs, others as hex. */
	switch (op) {
	case 1: {
		bool nonzero = false;

		for (int i = 0; i < hln; i++)
			nonzero |= tha[i] != 0;
		put(c, "who-has %s", ip4_str(tpa).s);
		if (nonzero && hln == 6)
			put(c, " (%s)", mac_str(tha).s);
		put(c, " tell %s", ip4_str(spa).s);
		break;
	}
	case 2:
		put(c, "%s is-at ", ip4_str(spa).s);
		if (hln == 6)
			put(c, "%s", mac_str(sha).s);
		else
			for (int i = 0; i < hln; i++)
				put(c, i ? ":%02x" : "%02x", sha[i]);
		break;
	case 3:
	case 8:
		put(c, "who-is %s tell %s", mac_str(tha).s, mac_str(sha).s);
		break;
	case 4:
		put(c, "%s at %s", mac_str(tha).s, ip4_str(tpa).s);
		break;
	case 9:
		put(c, "%s at %s", mac_str(sha).s, ip4_str(spa).s);
		break;
	default:
		unknown(c, ap, avail(c, ap), false);
		return;
	}
	put(c, ", length %u", length);
}

/* ---- Ethernet ----------------------------------------------------------- */

static const char *ethertype_name(uint16_t t)
{
	switch (t) {
	case 0x0800: return "IPv4";
	case 0x8847: return "MPLS unicast";
	case 0x8848: return "MPLS multicast";
	case 0x86dd: return "IPv6";
	case 0x8100: return "802.1Q";
	case 0x9100: return "802.1Q-9100";
	case 0x88a8: return "802.1Q-QinQ";
	case 0x9200: return "802.1Q-9200";
	case 0x88e5: return "802.1AE MACsec";
	case 0x0806: return "ARP";
	case 0x8035: return "Reverse ARP";
	case 0x809b: return "Appletalk";
	case 0x80f3: return "Appletalk ARP";
	case 0x8137: return "IPX";
	case 0x880b: return "PPP";
	case 0x8808: return "MPCP";
	case 0x8809: return "Slow Protocols";
	case 0x8863: return "PPPoE D";
	case 0x8864: return "PPPoE S";
	case 0x888e: return "EAPOL";
	case 0x8899: return "Realtek protocols";
	case 0x886f: return "MS NLB heartbeat";
	case 0x8870: return "Jumbo";
	case 0x894f: return "NSH";
	case 0x9000: return "Loopback";
	case 0x88cc: return "LLDP";
	case 0x88ca: return "TIPC";
	case 0x88a2: return "AoE";
	case 0x88f7: return "PTP";
	case 0x8902: return "CFM";
	case 0x893a: return "IEEE1905.1";
	case 0x6558: return "TEB";
	default: return NULL;
	}
}

static void ethertype_print(struct ctx *c, uint16_t t)
{
	const char *name = ethertype_name(t);

	if (!c->d->quiet)
		put(c, "ethertype %s (0x%04x)", name ? name : "Unknown", t);
	else if (name)
		put(c, "%s", name);
	else
		put(c, "Unknown Ethertype (0x%04x)", t);
}

static bool is_vlan_tpid(uint16_t t)
{
	return t == 0x8100 || t == 0x9100 || t == 0x9200 || t == 0x88a8;
}

static uint32_t ether(struct ctx *c, const uint8_t *p, uint32_t length, uint32_t caplen)
{
	const uint8_t *dst = p, *src = p + 6;
	uint32_t orig_length = length, hdrlen = 14;
	bool printed_length = false;
	uint16_t type;

	c->proto = "ether";
	if (length < caplen) {
		put(c, "[length %u < caplen %u] (invalid)", length, caplen);
		return length;
	}
	if (caplen < 14) {
		local_trunc(c);
		return caplen;
	}
	if (c->d->link)
		put(c, "%s > %s, ", mac_str(src).s, mac_str(dst).s);
	type = be16(p + 12);
	p += 14;
	length -= 14;
	caplen -= 14;
	while (is_vlan_tpid(type)) {
		if (caplen < 4 || length < 4) {
			c->proto = "vlan";
			local_trunc(c);
			return hdrlen + (caplen < 4 ? caplen : length);
		}
		if (c->d->link) {
			uint16_t tci = be16(p);

			ethertype_print(c, type);
			if (!printed_length) {
				put(c, ", length %u: ", orig_length);
				printed_length = true;
			} else {
				put(c, ", ");
			}
			put(c, "vlan %u, p %u%s, ", tci & 0xfff, tci >> 13,
			    tci & 0x1000 ? ", DEI" : "");
		}
		type = be16(p + 2);
		p += 4;
		length -= 4;
		caplen -= 4;
		hdrlen += 4;
	}
	if (type > 1500 && c->d->link) {
		ethertype_print(c, type);
		if (!printed_length)
			put(c, ", length %u: ", orig_length);
		else
			put(c, ", ");
	}
	switch (type) {
	case 0x0800:
		ip4(c, p, length);
		return hdrlen;
	case 0x86dd:
		ip6(c, p, length);
		return hdrlen;
	case 0x0806:
	case 0x8035:
		arp(c, p, length);
		return hdrlen;
	default:
		break;
	}
	/* Anything else: tcpdump's line for a type it does not know, then the
	 * payload in hex. (An 802.3 length field: tcpdump decodes its LLC
	 * payload, which we do not; the line says "802.3" and the length.) */
	if (type <= 1500) {
		if (!c->d->link)
			put(c, "%s > %s, ", mac_str(src).s, mac_str(dst).s);
		put(c, "802.3");
		if (!printed_length)
			put(c, ", length %u: ", type < length ? type : length);
	} else if (!c->d->link) {
		put(c, "%s > %s, ", mac_str(src).s, mac_str(dst).s);
		ethertype_print(c, type);
		put(c, ", length %u: ", orig_length);
	}
	unknown(c, p, caplen, false);
	return hdrlen;
}

/* ---- entry -------------------------------------------------------------- */

void ps_decoder_init(struct ps_decoder *d, bool link, bool quiet)
{
	memset(d, 0, sizeof(*d));
	d->link = link;
	d->quiet = quiet;
}

void ps_decoder_free(struct ps_decoder *d)
{
	free_convs(d);
}

size_t ps_decode(struct ps_decoder *d, int linktype, const uint8_t *frame,
		 uint32_t cap_len, uint32_t wire_len, char *buf, size_t size,
		 struct ps_decoded *out)
{
	struct ctx c = {
		.d = d, .buf = buf, .size = size, .end = frame + cap_len,
		.proto = "", .out = out,
	};
	uint32_t link_len = 0;

	memset(out, 0, sizeof(*out));
	if (size)
		buf[0] = 0;
	if (!size)
		return 0;
	if (cap_len == 0 || wire_len == 0 || wire_len < cap_len) {
		/* tcpdump's words for a record header that cannot be right. */
		put(&c, "[Invalid header:");
		if (cap_len == 0)
			put(&c, " caplen==0");
		if (wire_len == 0)
			put(&c, "%s len==0", cap_len == 0 ? "," : "");
		else if (wire_len < cap_len)
			put(&c, "%s len(%u) < caplen(%u)", cap_len == 0 ? "," : "", wire_len,
			    cap_len);
		put(&c, "]");
		return c.len;
	}
	switch (linktype) {
	case PS_LINKTYPE_ETHERNET:
		link_len = ether(&c, frame, wire_len, cap_len);
		break;
	case PS_LINKTYPE_RAW:
		c.proto = "raw";
		if (frame[0] >> 4 == 6)
			ip6(&c, frame, wire_len);
		else
			ip4(&c, frame, wire_len);
		break;
	default:
		put(&c, "[link type %d not decoded], length %u", linktype, wire_len);
		break;
	}
	if (c.jumped) {
		local_trunc(&c);
		link_len = 0;
		out->unknown = NULL;
	}
	out->link_len = link_len;
	return c.len;
}
