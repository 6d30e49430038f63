// SPDX-License-Identifier: GPL-2.0-only
/*
 * The live view's decoder and printer against tcpdump's own text, as
 * tcpdump tests its printers (tests/TESTLIST): fixture frames for every
 * protocol the decoder covers (and truncated ones) are the checked-in
 * tests/print/frames.pcap; tests/print/TESTLIST names, per test, a pcap,
 * tcpdump's flags and the expected text (tests/print/NAME.out, what
 * `TZ=UTC tcpdump -n FLAGS -r PCAP` printed); our printer prints the same
 * frames with the same flags, and the two texts must be identical.
 *
 * PS_PRINT_REFRESH=1 rewrites frames.pcap from the fixtures and every .out
 * with the installed tcpdump (tests/print/refresh.sh), so the expected
 * text is tcpdump's, not what we believe it prints; without it the test
 * needs no tcpdump, and checks that frames.pcap is what the fixtures make.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <pcap/pcap.h>
#include "capread.h"
#include "decode.h"
#include "printer.h"

/* ---- frame builder ------------------------------------------------------- */

struct frame {
	uint8_t b[1600];
	size_t n;
	uint32_t caplen; /* 0: all of it */
};

static struct frame frames[256];
static int n_frames;

static void u8(struct frame *f, unsigned int v)
{
	f->b[f->n++] = (uint8_t)v;
}
static void u16(struct frame *f, unsigned int v)
{
	u8(f, v >> 8);
	u8(f, v & 0xff);
}
static void u32(struct frame *f, uint32_t v)
{
	u16(f, v >> 16);
	u16(f, v & 0xffff);
}
static void bytes(struct frame *f, const void *p, size_t n)
{
	memcpy(f->b + f->n, p, n);
	f->n += n;
}
static void fill(struct frame *f, size_t n, uint8_t v)
{
	memset(f->b + f->n, v, n);
	f->n += n;
}
static void put16_at(struct frame *f, size_t at, unsigned int v)
{
	f->b[at] = (uint8_t)(v >> 8);
	f->b[at + 1] = (uint8_t)v;
}

static const uint8_t MAC_A[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x0a };
static const uint8_t MAC_B[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x0b };
static const uint8_t IP_A[4] = { 10, 0, 0, 1 }, IP_B[4] = { 10, 0, 0, 2 };
static const uint8_t IP6_A[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
static const uint8_t IP6_B[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };
static const uint8_t IP6_LL[16] = { 0xfe, 0x80, [15] = 0x0a };
static const uint8_t IP6_MLD[16] = { 0xff, 0x02, [15] = 0x16 };
static const uint8_t IP6_V4MAPPED[16] = { [10] = 0xff, [11] = 0xff, 10, 0, 0, 9 };

static struct frame *new_frame(void)
{
	struct frame *f;

	assert_true(n_frames < (int)(sizeof(frames) / sizeof(frames[0])));
	f = &frames[n_frames++];

	memset(f, 0, sizeof(*f));
	return f;
}

static void eth(struct frame *f, unsigned int type)
{
	bytes(f, MAC_B, 6);
	bytes(f, MAC_A, 6);
	u16(f, type);
}

/* IPv4 header; total length patched by ip4_end(). Returns its offset. */
static size_t ip4(struct frame *f, unsigned int proto, const uint8_t *src, const uint8_t *dst,
		  unsigned int frag, const uint8_t *opts, size_t optlen)
{
	size_t at = f->n;

	u8(f, 0x40 | (unsigned int)((20 + optlen) / 4));
	u8(f, 0);
	u16(f, 0);
	u16(f, 0x1234);
	u16(f, frag);
	u8(f, 64);
	u8(f, proto);
	u16(f, 0);
	bytes(f, src, 4);
	bytes(f, dst, 4);
	if (optlen)
		bytes(f, opts, optlen);
	return at;
}

static void ip4_end(struct frame *f, size_t at)
{
	put16_at(f, at + 2, (unsigned int)(f->n - at));
}

static size_t ip6(struct frame *f, unsigned int nh, const uint8_t *src, const uint8_t *dst)
{
	size_t at = f->n;

	u32(f, 0x60000000);
	u16(f, 0);
	u8(f, nh);
	u8(f, 64);
	bytes(f, src, 16);
	bytes(f, dst, 16);
	return at;
}

static void ip6_end(struct frame *f, size_t at)
{
	put16_at(f, at + 4, (unsigned int)(f->n - at - 40));
}

/* A new frame: Ethernet, then an IPv4 header from A to B (proto, the
 * fragment field, options) at *at, which ip4_end() closes. */
static struct frame *v4_frame(unsigned int proto, unsigned int frag, const uint8_t *opts,
			      size_t optlen, size_t *at)
{
	struct frame *f = new_frame();

	eth(f, 0x0800);
	*at = ip4(f, proto, IP_A, IP_B, frag, opts, optlen);
	return f;
}

/* A new frame: Ethernet, then an IPv6 header at *at, which ip6_end()
 * closes. */
static struct frame *v6_frame(unsigned int nh, const uint8_t *src, const uint8_t *dst, size_t *at)
{
	struct frame *f = new_frame();

	eth(f, 0x86dd);
	*at = ip6(f, nh, src, dst);
	return f;
}

static void tcp(struct frame *f, unsigned int sport, unsigned int dport, uint32_t seq, uint32_t ack,
		unsigned int flags, unsigned int win, const uint8_t *opts, size_t optlen,
		size_t payload)
{
	u16(f, sport);
	u16(f, dport);
	u32(f, seq);
	u32(f, ack);
	u8(f, (unsigned int)((20 + optlen) / 4) << 4);
	u8(f, flags);
	u16(f, win);
	u16(f, 0);
	u16(f, flags & 0x20 ? 7 : 0);
	if (optlen)
		bytes(f, opts, optlen);
	for (size_t i = 0; i < payload; i++)
		u8(f, 'a' + i % 26);
}

static void udp(struct frame *f, unsigned int sport, unsigned int dport, size_t payload,
		int len_delta)
{
	u16(f, sport);
	u16(f, dport);
	u16(f, (unsigned int)((int)(8 + payload) + len_delta));
	u16(f, 0);
	for (size_t i = 0; i < payload; i++)
		u8(f, i < 4 ? 0x11 : 'A' + i % 26);
}

static void v4_udp(unsigned int sport, unsigned int dport, size_t payload)
{
	struct frame *f = new_frame();
	size_t at;

	eth(f, 0x0800);
	at = ip4(f, 17, IP_A, IP_B, 0, NULL, 0);
	udp(f, sport, dport, payload, 0);
	ip4_end(f, at);
}

static void v4_tcp(const uint8_t *s, const uint8_t *d, unsigned int sport, unsigned int dport,
		   uint32_t seq, uint32_t ack, unsigned int flags, const uint8_t *opts,
		   size_t optlen, size_t payload)
{
	struct frame *f = new_frame();
	size_t at;

	eth(f, 0x0800);
	at = ip4(f, 6, s, d, 0x4000, NULL, 0);
	tcp(f, sport, dport, seq, ack, flags, 501, opts, optlen, payload);
	ip4_end(f, at);
}

static void v4_icmp(unsigned int type, unsigned int code, uint32_t rest, bool inner_udp)
{
	struct frame *f = new_frame();
	size_t at, in;

	eth(f, 0x0800);
	at = ip4(f, 1, IP_B, IP_A, 0, NULL, 0);
	u8(f, type);
	u8(f, code);
	u16(f, 0);
	u32(f, rest);
	if (inner_udp) {
		in = ip4(f, 17, IP_A, IP_B, 0, NULL, 0);
		udp(f, 40000, 5555, 4, 0);
		ip4_end(f, in);
	} else {
		fill(f, 56, 0x5a);
	}
	ip4_end(f, at);
}

static void v6_icmp6(const uint8_t *src, const uint8_t *dst, unsigned int type, unsigned int code,
		     uint32_t rest, const uint8_t *body, size_t blen)
{
	struct frame *f = new_frame();
	size_t at;

	eth(f, 0x86dd);
	at = ip6(f, 58, src, dst);
	u8(f, type);
	u8(f, code);
	u16(f, 0);
	u32(f, rest);
	if (blen)
		bytes(f, body, blen);
	ip6_end(f, at);
}

/* An ICMP echo request inside another packet (no Ethernet header). */
static void inner_ping(struct frame *f)
{
	size_t at = ip4(f, 1, IP_B, IP_A, 0, NULL, 0);

	u8(f, 8);
	u8(f, 0);
	u16(f, 0);
	u32(f, 0x00070001);
	fill(f, 16, 0x61);
	ip4_end(f, at);
}

/* An outer IPv4/UDP header to dport carrying what the caller adds; the
 * lengths are patched by outer_end(). */
static size_t outer_udp(struct frame *f, unsigned int dport, size_t *udp_at)
{
	size_t at;

	eth(f, 0x0800);
	at = ip4(f, 17, IP_A, IP_B, 0, NULL, 0);
	*udp_at = f->n;
	u16(f, 40000);
	u16(f, dport);
	u16(f, 0);
	u16(f, 0);
	return at;
}

static void outer_end(struct frame *f, size_t at, size_t udp_at)
{
	put16_at(f, udp_at + 4, (unsigned int)(f->n - udp_at));
	ip4_end(f, at);
}

/* An outer IPv4 header carrying a GRE header of these flags (and
 * version) and protocol, and what the caller adds; ip4_end() closes it. */
static struct frame *gre4(unsigned int flags, unsigned int proto, size_t *at)
{
	struct frame *f = v4_frame(47, 0, NULL, 0, at);

	u16(f, flags);
	u16(f, proto);
	return f;
}

/* A frame carrying the n bytes at p in UDP to dport. */
static struct frame *udp_msg(unsigned int dport, const void *p, size_t n)
{
	struct frame *f = new_frame();
	size_t u, at = outer_udp(f, dport, &u);

	bytes(f, p, n);
	outer_end(f, at, u);
	return f;
}

/* A TCP segment from sport to dport carrying text (no options). */
static struct frame *v4_tcp_text(unsigned int sport, unsigned int dport, const char *text)
{
	size_t n = strlen(text);

	v4_tcp(IP_A, IP_B, sport, dport, 1, 1, 0x18, NULL, 0, n);
	memcpy(frames[n_frames - 1].b + 14 + 20 + 20, text, n);
	return &frames[n_frames - 1];
}

/* Text protocols (tcpdump's txtproto_print: print-http.c, -rtsp.c, -sip.c,
 * -ftp.c, -smtp.c, -whois.c): a request or response line, a payload that
 * is none, text without a line end, a CR without LF, a cut capture. */
static void text_protocols(void)
{
	struct frame *f;

	v4_tcp_text(40000, 80, "GET /index.html HTTP/1.1\r\nHost: x\r\n\r\n");
	v4_tcp_text(8080, 40000, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
	v4_tcp_text(80, 40000, "\x17\x03\x03 binary body");
	v4_tcp_text(40000, 80, "get /lower-case");
	v4_tcp_text(40000, 80, "POST /x HTTP/1.1\rX");
	v4_tcp_text(40000, 80, "NOTAVERB / HTTP/1.1\r\n");
	v4_tcp_text(21, 40000, "220 FTP server ready\r\n");
	v4_tcp_text(40000, 25, "EHLO client.example\r\n");
	v4_tcp_text(40000, 43, "example.com\n");
	v4_tcp_text(40000, 554, "OPTIONS rtsp://x/a RTSP/1.0\r\nCSeq: 1\r\n");
	v4_tcp_text(443, 40000, "GET / HTTP/1.1\r\n"); /* no printer on 443 */
	f = v4_tcp_text(40000, 80, "GET /a-long-path-cut-by-the-snap-length HTTP/1.1\r\n");
	f->caplen = 14 + 20 + 20 + 10;
	udp_msg(5060, "INVITE sip:bob@example.com SIP/2.0\r\nVia: x\r\n", 44);
	udp_msg(5060, "SIP/2.0 180 Ringing\r\n", 21);
}

/* One DNS message in UDP to dport (53, 5353) or, tcp, in a TCP segment
 * with its length prefix. */
static struct frame *dns_msg(unsigned int dport, bool tcp, const uint8_t *msg, size_t n)
{
	struct frame *f;

	if (!tcp)
		return udp_msg(dport, msg, n);
	v4_tcp(IP_A, IP_B, 40000, dport, 1, 1, 0x18, NULL, 0, n + 2);
	f = &frames[n_frames - 1];
	put16_at(f, 14 + 20 + 20, (unsigned int)n);
	memcpy(f->b + 14 + 20 + 20 + 2, msg, n);
	return f;
}

/* DNS and mDNS (tcpdump's print-domain.c): queries and responses with
 * the record types it prints, compression, EDNS, the malformed. */
static void dns(void)
{
	/* Query: id 0x1234, RD, one question example.com A. */
	static const uint8_t q[] = { 0x12, 0x34, 0x01, 0x00, 0,	  1,   0,   0,	 0,   0,
				     0,	   0,	 7,    'e',  'x', 'a', 'm', 'p', 'l', 'e',
				     3,	   'c',	 'o',  'm',  0,	  0,   1,   0,	 1 };
	/* Response: www.example.com CNAME example.com (compressed), A, AAAA,
	 * MX, TXT, SRV; RA, AA. */
	static const uint8_t r[] = {
		0x12,
		0x35,
		0x85,
		0x80,
		0,
		1,
		0,
		6,
		0,
		0,
		0,
		0,
		3,
		'w',
		'w',
		'w',
		7,
		'e',
		'x',
		'a',
		'm',
		'p',
		'l',
		'e',
		3,
		'c',
		'o',
		'm',
		0,
		0,
		1,
		0,
		1,
		/* CNAME -> example.com (pointer to offset 16) */
		0xc0,
		12,
		0,
		5,
		0,
		1,
		0,
		0,
		0,
		60,
		0,
		2,
		0xc0,
		16,
		0xc0,
		16,
		0,
		1,
		0,
		1,
		0,
		0,
		0,
		60,
		0,
		4,
		93,
		184,
		216,
		34,
		0xc0,
		16,
		0,
		28,
		0,
		1,
		0,
		0,
		0,
		60,
		0,
		16,
		0x20,
		0x01,
		0x0d,
		0xb8,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		1,
		0xc0,
		16,
		0,
		15,
		0,
		1,
		0,
		0,
		0,
		60,
		0,
		4,
		0,
		10,
		0xc0,
		16,
		0xc0,
		16,
		0,
		16,
		0,
		1,
		0,
		0,
		0,
		60,
		0,
		9,
		3,
		'a',
		'b',
		'c',
		4,
		'd',
		'\t',
		'f',
		0x80,
		0xc0,
		16,
		0,
		33,
		0,
		1,
		0,
		0,
		0,
		60,
		0,
		8,
		0,
		1,
		0,
		2,
		0x13,
		0xc4,
		0xc0,
		16,
	};
	/* NXDomain with an OPT record whose extended rcode makes BADVERS. */
	static const uint8_t nx[] = { 0, 9, 0x81, 0x83, 0, 1, 0,  0,	0, 0, 0, 1, 1, 'x', 0,
				      0, 1, 0,	  1,	0, 0, 41, 0x10, 0, 1, 0, 0, 0, 0,   0 };
	/* A query with every odd flag and counts; a pointer that points
	 * forwards (tcpdump: <BAD PTR>); a message shorter than a header. */
	static const uint8_t odd[] = { 0,   7, 0x11, 0x10, 0, 2, 0,    1,  0, 1, 0, 0, 1,
				       'a', 0, 0,    255,  0, 3, 0xc0, 30, 0, 1, 0, 1 };
	/* mDNS: a QU question; an answer with the cache-flush bit. */
	static const uint8_t mq[] = { 0,   0,	0,   0, 0,   1,	  0,   0,   0,	 0, 0, 0, 4,	'h',
				      'o', 's', 't', 5, 'l', 'o', 'c', 'a', 'l', 0, 0, 1, 0x80, 1 };
	static const uint8_t mr[] = { 0,    0,	 0x84, 0,   0, 0,   0,	 1,   0,   0,	0, 0, 4,
				      'h',  'o', 's',  't', 5, 'l', 'o', 'c', 'a', 'l', 0, 0, 1,
				      0x80, 1,	 0,    0,   0, 120, 0,	 4,   10,  0,	0, 7 };
	struct frame *f;

	dns_msg(53, false, q, sizeof(q));
	dns_msg(53, false, r, sizeof(r));
	dns_msg(53, false, nx, sizeof(nx));
	dns_msg(53, false, odd, sizeof(odd));
	dns_msg(53, false, q, 8);
	dns_msg(5353, false, mq, sizeof(mq));
	dns_msg(5353, false, mr, sizeof(mr));
	dns_msg(53, true, q, sizeof(q));
	/* A response cut by the snap length inside its answers. */
	f = dns_msg(53, false, r, sizeof(r));
	f->caplen = (uint32_t)(14 + 20 + 8 + 60);
}

/* An IPv4 packet of protocol proto with these bytes after its header. */
static struct frame *v4_raw(unsigned int proto, unsigned int ttl, const void *p, size_t n)
{
	struct frame *f = new_frame();
	size_t at;

	eth(f, 0x0800);
	at = ip4(f, proto, IP_A, IP_B, 0, NULL, 0);
	f->b[at + 8] = (uint8_t)ttl;
	bytes(f, p, n);
	ip4_end(f, at);
	return f;
}

/* SNMP messages, BER-encoded by hand (what each holds is in snmp()'s
 * comment; tcpdump's text for each is the reference). */
static const uint8_t snmp_get_public[] = { 0x30, 0x27, 0x02, 0x01, 0x00, 0x04, 0x06, 0x70, 0x75,
					   0x62, 0x6c, 0x69, 0x63, 0xa0, 0x1a, 0x02, 0x02, 0x04,
					   0xd2, 0x02, 0x01, 0x00, 0x02, 0x01, 0x00, 0x30, 0x0e,
					   0x30, 0x0c, 0x06, 0x08, 0x2b, 0x06, 0x01, 0x02, 0x01,
					   0x01, 0x01, 0x00, 0x05, 0x00 };
static const uint8_t snmp_resp_private[] = {
	0x30, 0x81, 0xcc, 0x02, 0x01, 0x01, 0x04, 0x07, 0x70, 0x72, 0x69, 0x76, 0x61, 0x74, 0x65,
	0xa2, 0x81, 0xbd, 0x02, 0x02, 0x04, 0xd2, 0x02, 0x01, 0x00, 0x02, 0x01, 0x00, 0x30, 0x81,
	0xb0, 0x30, 0x15, 0x06, 0x08, 0x2b, 0x06, 0x01, 0x02, 0x01, 0x01, 0x01, 0x00, 0x04, 0x09,
	0x4c, 0x69, 0x6e, 0x75, 0x78, 0x20, 0x62, 0x6f, 0x78, 0x30, 0x16, 0x06, 0x08, 0x2b, 0x06,
	0x01, 0x02, 0x01, 0x01, 0x02, 0x00, 0x06, 0x0a, 0x2b, 0x06, 0x01, 0x04, 0x01, 0xbf, 0x08,
	0x03, 0x02, 0x0a, 0x30, 0x0f, 0x06, 0x08, 0x2b, 0x06, 0x01, 0x02, 0x01, 0x01, 0x03, 0x00,
	0x43, 0x03, 0x01, 0x02, 0x03, 0x30, 0x15, 0x06, 0x0d, 0x2b, 0x06, 0x01, 0x02, 0x01, 0x04,
	0x14, 0x01, 0x01, 0x0a, 0x00, 0x00, 0x01, 0x40, 0x04, 0x0a, 0x00, 0x00, 0x01, 0x30, 0x12,
	0x06, 0x0a, 0x2b, 0x06, 0x01, 0x02, 0x01, 0x02, 0x02, 0x01, 0x0a, 0x01, 0x41, 0x04, 0xff,
	0xff, 0xff, 0xff, 0x30, 0x15, 0x06, 0x0b, 0x2b, 0x06, 0x01, 0x02, 0x01, 0x1f, 0x01, 0x01,
	0x01, 0x06, 0x01, 0x46, 0x06, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x30, 0x0c, 0x06, 0x08,
	0x2b, 0x06, 0x01, 0x02, 0x01, 0x01, 0x09, 0x00, 0x80, 0x00, 0x30, 0x0f, 0x06, 0x08, 0x2b,
	0x06, 0x01, 0x02, 0x01, 0x01, 0x05, 0x00, 0x04, 0x03, 0x00, 0x01, 0xff, 0x30, 0x0d, 0x06,
	0x08, 0x2b, 0x06, 0x01, 0x02, 0x01, 0x01, 0x07, 0x00, 0x02, 0x01, 0xb8
};
static const uint8_t snmp_resp_err[] = {
	0x30, 0x26, 0x02, 0x01, 0x01, 0x04, 0x06, 0x70, 0x75, 0x62, 0x6c, 0x69, 0x63, 0xa2,
	0x19, 0x02, 0x01, 0x07, 0x02, 0x01, 0x02, 0x02, 0x01, 0x01, 0x30, 0x0e, 0x30, 0x0c,
	0x06, 0x08, 0x2b, 0x06, 0x01, 0x02, 0x01, 0x01, 0x01, 0x00, 0x05, 0x00
};
static const uint8_t snmp_bulk[] = { 0x30, 0x25, 0x02, 0x01, 0x01, 0x04, 0x06, 0x70, 0x75, 0x62,
				     0x6c, 0x69, 0x63, 0xa5, 0x18, 0x02, 0x01, 0x09, 0x02, 0x01,
				     0x00, 0x02, 0x01, 0x0a, 0x30, 0x0d, 0x30, 0x0b, 0x06, 0x07,
				     0x2b, 0x06, 0x01, 0x02, 0x01, 0x02, 0x02, 0x05, 0x00 };
static const uint8_t snmp_trap[] = { 0x30, 0x37, 0x02, 0x01, 0x00, 0x04, 0x06, 0x70, 0x75, 0x62,
				     0x6c, 0x69, 0x63, 0xa4, 0x2a, 0x06, 0x07, 0x2b, 0x06, 0x01,
				     0x04, 0x01, 0xbf, 0x08, 0x40, 0x04, 0x0a, 0x00, 0x00, 0x02,
				     0x02, 0x01, 0x06, 0x02, 0x01, 0x11, 0x43, 0x02, 0x10, 0x00,
				     0x30, 0x0f, 0x30, 0x0d, 0x06, 0x08, 0x2b, 0x06, 0x01, 0x02,
				     0x01, 0x01, 0x01, 0x00, 0x04, 0x01, 0x78 };
static const uint8_t snmp_v2trap_in_v1[] = { 0x30, 0x18, 0x02, 0x01, 0x00, 0x04, 0x06, 0x70, 0x75,
					     0x62, 0x6c, 0x69, 0x63, 0xa7, 0x0b, 0x02, 0x01, 0x01,
					     0x02, 0x01, 0x00, 0x02, 0x01, 0x00, 0x30, 0x00 };
static const uint8_t snmp_v3[] = { 0x30, 0x53, 0x02, 0x01, 0x03, 0x30, 0x0e, 0x02, 0x01, 0x01, 0x02,
				   0x03, 0x00, 0xff, 0xe3, 0x04, 0x01, 0x05, 0x02, 0x01, 0x03, 0x04,
				   0x19, 0x30, 0x17, 0x04, 0x04, 0x80, 0x00, 0x1f, 0x88, 0x02, 0x01,
				   0x01, 0x02, 0x01, 0x02, 0x04, 0x05, 0x61, 0x64, 0x6d, 0x69, 0x6e,
				   0x04, 0x00, 0x04, 0x00, 0x30, 0x23, 0x04, 0x04, 0x80, 0x00, 0x1f,
				   0x88, 0x04, 0x00, 0xa0, 0x19, 0x02, 0x01, 0x05, 0x02, 0x01, 0x00,
				   0x02, 0x01, 0x00, 0x30, 0x0e, 0x30, 0x0c, 0x06, 0x08, 0x2b, 0x06,
				   0x01, 0x02, 0x01, 0x01, 0x01, 0x00, 0x05, 0x00 };
static const uint8_t snmp_badver[] = { 0x30, 0x0b, 0x02, 0x01, 0x02, 0x04, 0x06,
				       0x70, 0x75, 0x62, 0x6c, 0x69, 0x63 };
static const uint8_t snmp_notseq[] = { 0x02, 0x01, 0x05 };

static void snmp_msg(unsigned int dport, const uint8_t *m, size_t n)
{
	struct frame *f = new_frame();
	size_t at, u;

	at = outer_udp(f, dport, &u);
	bytes(f, m, n);
	outer_end(f, at, u);
}

/* SNMP (tcpdump's print-snmp.c with -n): v1 with the default community,
 * v2c with every value type, an error status, GetBulk, a v1 trap, a v2
 * PDU in a v1 message, v3 with USM, an unknown version, no sequence. */
static void snmp(void)
{
	snmp_msg(161, snmp_get_public, sizeof(snmp_get_public));
	snmp_msg(161, snmp_resp_private, sizeof(snmp_resp_private));
	snmp_msg(161, snmp_resp_err, sizeof(snmp_resp_err));
	snmp_msg(161, snmp_bulk, sizeof(snmp_bulk));
	snmp_msg(162, snmp_trap, sizeof(snmp_trap));
	snmp_msg(161, snmp_v2trap_in_v1, sizeof(snmp_v2trap_in_v1));
	snmp_msg(161, snmp_v3, sizeof(snmp_v3));
	snmp_msg(161, snmp_badver, sizeof(snmp_badver));
	snmp_msg(161, snmp_notseq, sizeof(snmp_notseq));
	/* A response cut inside its varbinds. */
	snmp_msg(161, snmp_resp_private, sizeof(snmp_resp_private));
	frames[n_frames - 1].caplen = 14 + 20 + 8 + 60;
}

/* IGMP, NTP, syslog, VRRP, IPsec (tcpdump's print-igmp.c, -ntp.c,
 * -syslog.c, -vrrp.c, -ah.c, -esp.c). */
static void infrastructure(void)
{
	static const uint8_t igmp[][16] = {
		{ 0x11, 100, 0, 0, 0, 0, 0, 0 },			 /* v2 general query */
		{ 0x11, 50, 0, 0, 239, 1, 2, 3 },			 /* v2 group query */
		{ 0x11, 0, 0, 0, 0, 0, 0, 0 },				 /* v1 query */
		{ 0x16, 0, 0, 0, 239, 1, 2, 3 },			 /* v2 report */
		{ 0x17, 0, 0, 0, 239, 1, 2, 3 },			 /* leave */
		{ 0x12, 0, 0, 0, 224, 0, 0, 9 },			 /* v1 report */
		{ 0x99, 0, 0, 0, 0, 0, 0, 0 },				 /* unknown */
		{ 0x22, 0, 0, 0, 0, 0, 0, 1, 4, 0, 0, 0, 239, 1, 2, 3 }, /* v3 report */
	};
	static const uint8_t q3[] = { 0x11, 0x8a, 0,  0, 239, 1, 2,  3, 2, 125,
				      0,    2,	  10, 0, 0,   1, 10, 0, 0, 2 };
	static const uint8_t q3_all[] = { 0x11, 100, 0, 0, 0, 0, 0, 0, 2, 125, 0, 0 };
	static const uint8_t mtrace[] = { 0x1f, 0, 0, 0, 239, 1, 2, 3, 10, 0, 0, 1,
					  10,	0, 0, 2, 224, 0, 1, 9, 64, 0, 0, 42 };
	static const uint8_t vrrp2[] = { 0x21, 7,   100, 1, 0, 1, 0, 0, 10, 0,
					 0,    254, 0,	 0, 0, 0, 0, 0, 0,  0 };
	static const uint8_t vrrp3[] = { 0x31, 7, 200, 1, 0, 100, 0, 0, 10, 0, 0, 254 };
	static const uint8_t esp[] = { 0, 0, 0x10, 0x01, 0, 0, 0, 5, 0xaa, 0xbb, 0xcc, 0xdd };
	static const uint8_t ah[] = { 6, 4, 0, 0, 0, 0, 0x20, 0x02, 0, 0, 0, 9, 1, 2, 3, 4, 5, 6, 7,
				      8, 9, 10, 11, 12,
				      /* TCP after it */
				      0x9c, 0x40, 0, 80, 0, 0, 0, 1, 0, 0, 0, 0, 0x50, 0x02, 1, 0,
				      0, 0, 0, 0 };
	struct frame *f;
	size_t at, u;

	for (size_t i = 0; i < sizeof(igmp) / sizeof(igmp[0]); i++)
		v4_raw(2, 1, igmp[i], igmp[i][0] == 0x22 ? 16 : 8);
	v4_raw(2, 1, q3, sizeof(q3));
	v4_raw(2, 1, q3_all, sizeof(q3_all));
	v4_raw(2, 1, mtrace, sizeof(mtrace));
	v4_raw(112, 255, vrrp2, sizeof(vrrp2));
	v4_raw(112, 64, vrrp3, sizeof(vrrp3));
	v4_raw(50, 64, esp, sizeof(esp));
	v4_raw(51, 64, ah, sizeof(ah));
	/* SCTP: INIT; DATA and SACK bundled (a gap, a duplicate); COOKIE
	 * ECHO and an unknown chunk, padded; a chunk longer than the packet;
	 * over IPv6; ForCES's port. */
	{
		static const uint8_t init[] = { 0x0b, 0x7c, 0x0b, 0x7c, 0,  0,	0, 0, 0, 0, 0,
						0,    1,    0,	  0,	20, 0,	0, 0, 9, 0, 1,
						0,    0,    0,	  10,	0,  10, 0, 0, 0, 1 };
		static const uint8_t bundle[] = {
			0x0b, 0x7c, 0x0b, 0x7d, 0, 0, 0, 1,  0, 0, 0, 0, 0, 3,
			0,    18,   0,	  0,	0, 5, 0, 1,  0, 2, 0, 0, 0, 46,
			'h',  'i',  0,	  0,	3, 0, 0, 24, 0, 0, 0, 4, 0, 0,
			0x10, 0,    0,	  1,	0, 1, 0, 2,  0, 3, 0, 0, 0, 9,
		};
		static const uint8_t cookie[] = {
			0x0b, 0x7c, 0x1a, 0x30, 0, 0, 0, 1, 0,	  0, 0, 0,
			10,   0,    0,	  6,	1, 2, 0, 0, 0x99, 0, 0, 4
		};
		static const uint8_t bad[] = { 0x0b, 0x7c, 0x0b, 0x7c, 0,  0, 0, 1,
					       0,    0,	   0,	 0,    14, 0, 0, 2 };
		static const uint8_t over[] = { 0x0b, 0x7c, 0x0b, 0x7c, 0, 0,  0, 1, 0, 0,
						0,    0,    6,	  0,	0, 40, 0, 0, 0, 0 };

		v4_raw(132, 64, init, sizeof(init));
		v4_raw(132, 64, bundle, sizeof(bundle));
		v4_raw(132, 64, cookie, sizeof(cookie));
		v4_raw(132, 64, bad, sizeof(bad));
		v4_raw(132, 64, over, sizeof(over));
		v4_raw(132, 64, init, 8);
		f = v6_frame(132, IP6_A, IP6_B, &at);
		bytes(f, init, sizeof(init));
		ip6_end(f, at);
	}
	/* OSPFv2 hello, with MD5 (its digest past the length), an unknown
	 * type; OSPFv3; RIPv2, RIPv0; RADIUS; BGP and SSH over TCP. */
	{
		static const uint8_t hello[] = { 2, 1, 0,   44,	 10,  0, 0, 1,	0, 0, 0,
						 0, 0, 0,   0,	 0,   0, 0, 0,	0, 0, 0,
						 0, 0, 255, 255, 255, 0, 0, 10, 2, 1, 0,
						 0, 0, 40,  0,	 0,   0, 0, 0,	0, 0, 0 };
		static const uint8_t md5[] = { 2, 5, 0, 24, 10, 0,  0,	1,  0,	0,  0,	0, 0, 0,
					       0, 2, 0, 0,  1,	16, 0,	0,  0,	1,  1,	2, 3, 4,
					       5, 6, 7, 8,  9,	10, 11, 12, 13, 14, 15, 16 };
		static const uint8_t ospf9[] = { 2, 9, 0, 24, 10, 0, 0, 1, 0, 0, 0, 0,
						 0, 0, 0, 0,  0,  0, 0, 0, 0, 0, 0, 0 };
		static const uint8_t rip2[] = { 2,   2,	  0, 0, 0, 2, 0, 0, 10, 1, 0, 0,
						255, 255, 0, 0, 0, 0, 0, 0, 0,	0, 0, 1 };
		static const uint8_t rip0[] = { 1, 0, 0, 0, 1, 2 };
		static const uint8_t radius[] = { 1, 7, 0, 20, 0, 0, 0, 0, 0, 0,
						  0, 0, 0, 0,  0, 0, 0, 0, 0, 0 };

		v4_raw(89, 1, hello, sizeof(hello));
		v4_raw(89, 1, md5, sizeof(md5));
		v4_raw(89, 1, ospf9, sizeof(ospf9));
		f = v6_frame(89, IP6_LL, IP6_MLD, &at);
		bytes(f, (uint8_t[]){ 3, 1, 0, 16, 10, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0 }, 16);
		ip6_end(f, at);
		udp_msg(520, rip2, sizeof(rip2));
		udp_msg(520, rip0, sizeof(rip0));
		udp_msg(1812, radius, sizeof(radius));
		v4_tcp_text(40000, 179, "\xff\xff\xff\xff");
		v4_tcp_text(22, 40000, "SSH-2.0-OpenSSH_9.2p1 Debian-2\r\n");
		v4_tcp_text(40000, 22, "SSH-2.0-no line end");
	}
	/* NTP: a client request and a server reply (48 bytes each). */
	for (int mode = 3; mode <= 4; mode++) {
		f = new_frame();
		at = outer_udp(f, 123, &u);
		u8(f, (unsigned int)(0x20 | mode));
		fill(f, 47, 0);
		outer_end(f, at, u);
	}
	/* DHCP: a request from a MAC, a reply; DHCPv6 solicit and relay. */
	for (int op = 1; op <= 2; op++) {
		f = new_frame();
		at = outer_udp(f, op == 1 ? 67 : 68, &u);
		bytes(f, (uint8_t[]){ (uint8_t)op, 1, 6, 0 }, 4);
		fill(f, 24, 0);
		bytes(f, MAC_A, 6);
		fill(f, 300 - 34, 0);
		outer_end(f, at, u);
	}
	for (int type = 1; type <= 12; type += 11) {
		f = new_frame();
		at = outer_udp(f, 547, &u);
		bytes(f, (uint8_t[]){ (uint8_t)type, 0x12, 0x34, 0x56 }, 4);
		fill(f, 30, 0);
		outer_end(f, at, u);
	}
	/* Syslog: local0.info; a priority without its '>'. */
	udp_msg(514, "<134>Nov 26 12:00:00 host app: hello", 36);
	udp_msg(514, "<1345 no end", 12);
}

/* An 802.3 frame (a length, not a type) to dst carrying an LLC frame. */
static struct frame *dot3(const uint8_t *dst, const void *llc, size_t n)
{
	struct frame *f = new_frame();

	bytes(f, dst, 6);
	bytes(f, MAC_A, 6);
	u16(f, (unsigned int)n);
	bytes(f, llc, n);
	if (n < 46)
		fill(f, 46 - n, 0); /* padding past the length */
	return f;
}

/* LLC, SNAP and L2 control (tcpdump's print-llc.c, -stp.c, -cdp.c,
 * -udld.c, -dtp.c, -lldp.c, -aoe.c, -msnlb.c, -loopback.c). */
static void l2_control(void)
{
	static const uint8_t stp_mac[6] = { 0x01, 0x80, 0xc2, 0, 0, 0 };
	static const uint8_t cdp_mac[6] = { 0x01, 0x00, 0x0c, 0xcc, 0xcc, 0xcc };
	static const uint8_t stp[] = { 0x42, 0x42, 0x03, 0, 0, 0,    0,	   0x80, 0, 2,	  0, 0, 0,
				       0,    0xaa, 0,	 0, 0, 4,    0x80, 0,	 2, 0,	  0, 0, 0,
				       0xbb, 0x80, 0x01, 0, 0, 0x14, 0,	   2,	 0, 0x0f, 0 };
	static const uint8_t rstp[] = { 0x42, 0x42, 0x03, 0, 0, 2,    2,    0x7c, 0x80, 0,
					2,    0,    0,	  0, 0, 0xaa, 0,    0,	  0,	4,
					0x80, 0,    2,	  0, 0, 0,    0,    0xbb, 0x80, 0x01,
					0,    0,    0x14, 0, 2, 0,    0x0f, 0,	  0 };
	static const uint8_t tcn[] = { 0x42, 0x42, 0x03, 0, 0, 0, 0x80 };
	static const uint8_t cdp[] = { 0xaa, 0xaa, 0x03, 0, 0, 0x0c, 0x20, 0x00, 2,   180,
				       0x12, 0x34, 0,	 1, 0, 10,   's',  'w',	 'i', 't',
				       'c',  'h',  0,	 3, 0, 9,    'G',  'i',	 '0', '/',
				       '1',  0,	   0x0a, 0, 6, 0,    1 };
	static const uint8_t snap_ip[] = { 0xaa, 0xaa, 0x03, 0, 0, 0, 0x08, 0x00 };
	static const uint8_t snap_odd[] = { 0xaa, 0xaa, 0x03, 0x00, 0x80, 0xc2, 0x00, 0x0b, 1, 2 };
	static const uint8_t xid[] = { 0xf0, 0xf1, 0xbf, 0x81, 0x01, 0x00 };
	static const uint8_t info[] = { 0x04, 0x05, 0x0a, 0x03, 1, 2, 3 };
	static const uint8_t rr[] = { 0x04, 0x05, 0x01, 0x05 };
	static const uint8_t udld[] = { 0xaa, 0xaa, 0x03, 0, 0, 0x0c, 0x01, 0x11, 0x21, 0x03,
					0x12, 0x34, 0,	  1, 0, 9,    'S',  'W',  '1',	'x',
					'y',  0,    2,	  0, 8, 'G',  'i',  '1',  '/',	'2' };
	static const uint8_t dtp[] = {
		0xaa, 0xaa, 0x03, 0, 0, 0x0c, 0x20, 0x04, 1, 0, 1, 0, 5, 'x'
	};
	static const uint8_t udld_flush[] = { 0xaa, 0xaa, 0x03, 0, 0, 0x0c,
					      0x01, 0x11, 0x23, 0, 0, 0 };
	static const uint8_t lldp[] = { 0x02, 0x07, 0x04, 2,   0,   0,	  0,	0, 1,
					0x04, 0x03, 0x05, 'p', '1', 0x06, 0x02, 0, 120,
					0x0a, 0x05, 'h',  'o', 's', 't',  '1',	0, 0 };
	struct frame *f;

	dot3(stp_mac, stp, sizeof(stp));
	f = dot3(stp_mac, stp, sizeof(stp));
	f->b[12 + 1] += 1; /* the same BPDU, one byte longer: whole */
	f->b[14 + sizeof(stp)] = 0;
	dot3(stp_mac, rstp, sizeof(rstp));
	dot3(stp_mac, tcn, sizeof(tcn));
	dot3(cdp_mac, cdp, sizeof(cdp));
	dot3(MAC_B, xid, sizeof(xid));
	dot3(MAC_B, info, sizeof(info));
	dot3(MAC_B, rr, sizeof(rr));
	dot3(MAC_B, snap_odd, sizeof(snap_odd));
	dot3(cdp_mac, udld, sizeof(udld));
	dot3(cdp_mac, udld_flush, sizeof(udld_flush));
	dot3(cdp_mac, dtp, sizeof(dtp));
	f = new_frame();
	bytes(f, MAC_B, 6);
	bytes(f, MAC_A, 6);
	u16(f, 0); /* patched below */
	bytes(f, snap_ip, sizeof(snap_ip));
	inner_ping(f);
	put16_at(f, 12, (unsigned int)(f->n - 14));
	f = new_frame();
	eth(f, 0x88cc);
	bytes(f, lldp, sizeof(lldp));
	/* EAPOL start and key; LACP; an unknown slow protocol. */
	f = new_frame();
	eth(f, 0x888e);
	bytes(f, (uint8_t[]){ 2, 1, 0, 0 }, 4);
	fill(f, 42, 0);
	f = new_frame();
	eth(f, 0x888e);
	bytes(f, (uint8_t[]){ 1, 3, 0, 95 }, 4);
	fill(f, 95, 0);
	f = new_frame();
	eth(f, 0x8809);
	bytes(f, (uint8_t[]){ 1, 1, 1, 20 }, 4);
	fill(f, 106, 0);
	f = new_frame();
	eth(f, 0x8809);
	bytes(f, (uint8_t[]){ 9, 1, 2, 3, 4 }, 5);
	fill(f, 41, 0);
	/* ATA over Ethernet: a query, an errored response, version 0, and a
	 * version 1 header too short. */
	f = new_frame();
	eth(f, 0x88a2);
	bytes(f, (uint8_t[]){ 0x10, 0, 0xff, 0xff, 0xff, 0x01, 0, 0, 0, 7 }, 10);
	fill(f, 36, 0);
	f = new_frame();
	eth(f, 0x88a2);
	bytes(f, (uint8_t[]){ 0x1c, 2, 0, 1, 2, 0, 0, 0, 0, 7 }, 10);
	fill(f, 36, 0);
	f = new_frame();
	eth(f, 0x88a2);
	bytes(f, (uint8_t[]){ 0x00, 1 }, 2);
	f = new_frame();
	eth(f, 0x88a2);
	bytes(f, (uint8_t[]){ 0x13, 1, 2 }, 3);
	/* MS NLB heartbeats: whole, and cut within the host's address. */
	for (int i = 0; i < 2; i++) {
		f = new_frame();
		eth(f, 0x886f);
		bytes(f, (uint8_t[]){ 0xbf, 1, 0xde, 0xc0, 6, 2,  0,   0, 2, 0,
				      0,    0, 192,  0,	   2, 80, 192, 0, 2, 82 },
		      i ? 18 : 20);
		if (!i)
			fill(f, 26, 0);
	}
	/* Loopback (ethertype 0x9000): forward data, a reply past a skip
	 * count, a bogus skip count, an unknown function. */
	f = new_frame();
	eth(f, 0x9000);
	bytes(f, (uint8_t[]){ 0, 0, 2, 0, 0x02, 0, 0, 0, 0, 0x0b, 1, 0, 0, 0 }, 14);
	fill(f, 32, 0);
	f = new_frame();
	eth(f, 0x9000);
	bytes(f, (uint8_t[]){ 8, 0, 1, 2, 3, 4, 5, 6, 7, 8, 1, 0, 7, 0 }, 14);
	fill(f, 32, 0);
	f = new_frame();
	eth(f, 0x9000);
	bytes(f, (uint8_t[]){ 3, 0, 1, 2, 3, 1, 0, 9, 0 }, 9);
	fill(f, 37, 0);
	f = new_frame();
	eth(f, 0x9000);
	bytes(f, (uint8_t[]){ 0, 0, 5, 0 }, 4);
	fill(f, 42, 0);
}

/* Encapsulations (tcpdump's print-vxlan.c, -vxlan-gpe.c, -geneve.c,
 * -gre.c, -mpls.c, -pppoe.c, -ppp.c), each with what it carries. */
static void tunnels(void)
{
	struct frame *f;
	size_t at, u;

	/* VXLAN: Ethernet in UDP 4789, and a header without the I flag. */
	for (int flags = 0x08; flags >= 0; flags -= 8) {
		f = new_frame();
		at = outer_udp(f, 4789, &u);
		bytes(f, (uint8_t[]){ (uint8_t)flags, 0, 0, 0, 0, 0, 42, 0 }, 8);
		eth(f, 0x0800);
		inner_ping(f);
		outer_end(f, at, u);
	}
	/* VXLAN-GPE carrying IPv4, and an unknown next protocol. */
	for (int next = 1; next <= 9; next += 8) {
		f = new_frame();
		at = outer_udp(f, 4790, &u);
		bytes(f, (uint8_t[]){ 0x0c, 0, 0, (uint8_t)next, 0, 0x01, 0x00, 0 }, 8);
		inner_ping(f);
		outer_end(f, at, u);
	}
	/* Geneve: Ethernet (TEB) with 8 bytes of options and the O flag, and
	 * IPv4 directly with a reserved byte set. */
	f = new_frame();
	at = outer_udp(f, 6081, &u);
	bytes(f, (uint8_t[]){ 2, 0x80, 0x65, 0x58, 0, 0x12, 0x34, 0 }, 8);
	fill(f, 8, 0);
	eth(f, 0x0800);
	inner_ping(f);
	outer_end(f, at, u);
	f = new_frame();
	at = outer_udp(f, 6081, &u);
	bytes(f, (uint8_t[]){ 0, 0, 0x08, 0x00, 0, 0, 7, 1 }, 8);
	inner_ping(f);
	outer_end(f, at, u);
	/* MPLS in UDP 6635 (RFC 7510): one label, IPv4 under it. */
	f = new_frame();
	at = outer_udp(f, 6635, &u);
	u32(f, 100u << 12 | 0x100 | 64);
	inner_ping(f);
	outer_end(f, at, u);
	/* MPLS on Ethernet: two labels over IPv4; explicit null over IPv6;
	 * a payload it cannot tell (dumped). */
	f = new_frame();
	eth(f, 0x8847);
	u32(f, 18u << 12 | 254);
	u32(f, 16u << 12 | 5u << 9 | 0x100 | 255);
	inner_ping(f);
	f = new_frame();
	eth(f, 0x8847);
	u32(f, 2u << 12 | 0x100 | 1);
	at = ip6(f, 17, IP6_A, IP6_B);
	udp(f, 1000, 2000, 8, 0);
	ip6_end(f, at);
	f = new_frame();
	eth(f, 0x8848);
	u32(f, 99u << 12 | 0x100 | 9);
	fill(f, 20, 0xee);
	/* GRE: IPv4 in plain GRE; NVGRE (a key, Ethernet); a checksum, a
	 * sequence number and IPv6; an unknown protocol; PPTP's GRE with PPP
	 * and without payload; version 2. */
	f = gre4(0, 0x0800, &at);
	inner_ping(f);
	ip4_end(f, at);
	f = gre4(0x2000, 0x6558, &at);
	u32(f, 0x00123400);
	eth(f, 0x0800);
	inner_ping(f);
	ip4_end(f, at);
	f = v6_frame(47, IP6_A, IP6_B, &at);
	u16(f, 0x9000);
	u16(f, 0x86dd);
	u32(f, 0xabcd0000);
	u32(f, 77);
	{
		size_t in = ip6(f, 59, IP6_B, IP6_A);

		ip6_end(f, in);
	}
	ip6_end(f, at);
	f = gre4(0, 0x1234, &at);
	fill(f, 12, 0);
	ip4_end(f, at);
	f = gre4(0x3081, 0x880b, &at);
	u32(f, 0x00280005);
	u32(f, 9);
	u32(f, 8);
	bytes(f, (uint8_t[]){ 0xff, 0x03, 0x00, 0x21 }, 4);
	inner_ping(f);
	ip4_end(f, at);
	f = gre4(0x2081, 0x880b, &at);
	u32(f, 0x00280005);
	u32(f, 9);
	ip4_end(f, at);
	f = gre4(0x0002, 0x0800, &at);
	fill(f, 8, 0);
	ip4_end(f, at);
	/* PPPoE discovery: PADI with tags (text and binary), PADS with a
	 * session; session data: IPv4, LCP, PPP with a compressed protocol
	 * field, a protocol it does not name. */
	f = new_frame();
	eth(f, 0x8863);
	bytes(f, (uint8_t[]){ 0x11, 0x09, 0, 0, 0, 16 }, 6);
	bytes(f, (uint8_t[]){ 1, 1, 0, 0, 1, 3, 0, 4, 0x64, 0x13, 0x85, 0x18 }, 12);
	bytes(f, (uint8_t[]){ 0, 0, 0, 0 }, 4);
	fill(f, 24, 0);
	f = new_frame();
	eth(f, 0x8863);
	bytes(f, (uint8_t[]){ 0x11, 0x65, 0, 0x11, 0, 8 }, 6);
	bytes(f, (uint8_t[]){ 1, 2, 0, 4, 'B', 'R', 'A', 'S' }, 8);
	fill(f, 32, 0);
	f = new_frame();
	eth(f, 0x8864);
	bytes(f, (uint8_t[]){ 0x11, 0, 0, 0x11, 0, 2 + 44 }, 6);
	bytes(f, (uint8_t[]){ 0x00, 0x21 }, 2);
	inner_ping(f);
	f = new_frame();
	eth(f, 0x8864);
	bytes(f, (uint8_t[]){ 0x11, 0, 0, 0x11, 0, 16 }, 6);
	bytes(f,
	      (uint8_t[]){ 0xc0, 0x21, 1, 7, 0, 14, 1, 4, 5, 0xd4, 5, 6, 0x12, 0x34, 0x56, 0x78 },
	      16);
	fill(f, 24, 0);
	f = new_frame();
	eth(f, 0x8864);
	bytes(f, (uint8_t[]){ 0x11, 0, 0, 0x11, 0, 1 + 44 }, 6);
	u8(f, 0x21);
	inner_ping(f);
	f = new_frame();
	eth(f, 0x8864);
	bytes(f, (uint8_t[]){ 0x11, 0, 0, 0x11, 0, 10 }, 6);
	bytes(f, (uint8_t[]){ 0x80, 0xfd, 2, 3, 0, 6, 0, 0, 0, 0 }, 10);
	fill(f, 30, 0);
	/* Truncated inside a tunnel: VXLAN's inner frame, a PPPoE tag. */
	f = new_frame();
	at = outer_udp(f, 4789, &u);
	bytes(f, (uint8_t[]){ 0x08, 0, 0, 0, 0, 0, 42, 0 }, 8);
	eth(f, 0x0800);
	inner_ping(f);
	outer_end(f, at, u);
	f->caplen = 14 + 20 + 8 + 8 + 14 + 10;
	f = new_frame();
	eth(f, 0x8863);
	bytes(f, (uint8_t[]){ 0x11, 0x07, 0, 0, 0, 12 }, 6);
	bytes(f, (uint8_t[]){ 1, 2, 0, 8, 'a', 'c' }, 6);
	fill(f, 40, 0);
	f->caplen = 14 + 6 + 6;
}

static void build_fixtures(void)
{
	static const uint8_t syn_opts[] = { 2, 4, 0x05, 0xb4, 4, 2, 8, 10, 0, 0,
					    0, 1, 0,	0,    0, 0, 1, 3,  3, 7 };
	static const uint8_t ts_opts[] = { 1, 1, 8, 10, 0, 0, 0, 5, 0, 0, 0, 1 };
	static const uint8_t sack_opts[] = { 1, 1, 5, 10, 0x10, 0, 0, 0x65, 0x10, 0, 0, 0xc9 };
	static const uint8_t odd_opts[] = {
		28, 4, 0x01, 0x2d, 34, 2, 99, 4, 0xab, 0xcd, 0, 0, 0, 0
	};
	static const uint8_t bad_opts[] = { 2, 9, 0, 0 };
	static const uint8_t ip_opts[] = { 148, 4, 0, 0 }; /* router alert */
	struct frame *f;
	size_t at, in;

	/* TCP: a handshake, data both ways, SACK, the end; relative numbers. */
	v4_tcp(IP_B, IP_A, 51234, 443, 1000, 0, 0x02, syn_opts, sizeof(syn_opts), 0);
	v4_tcp(IP_A, IP_B, 443, 51234, 5000, 1001, 0x12, syn_opts, sizeof(syn_opts), 0);
	v4_tcp(IP_B, IP_A, 51234, 443, 1001, 5001, 0x10, ts_opts, sizeof(ts_opts), 0);
	v4_tcp(IP_A, IP_B, 443, 51234, 5001, 1001, 0x18, ts_opts, sizeof(ts_opts), 517);
	v4_tcp(IP_B, IP_A, 51234, 443, 1001, 5518, 0x10, sack_opts, sizeof(sack_opts), 0);
	v4_tcp(IP_B, IP_A, 51234, 443, 1001, 5518, 0x11, NULL, 0, 0);
	v4_tcp(IP_A, IP_B, 443, 51234, 5518, 1002, 0x04, NULL, 0, 0);
	v4_tcp(IP_A, IP_B, 7000, 7001, 1, 0, 0xe2, odd_opts, sizeof(odd_opts), 3);
	v4_tcp(IP_A, IP_B, 7000, 7001, 1, 0, 0x00, bad_opts, sizeof(bad_opts), 0);
	v4_tcp(IP_A, IP_B, 7002, 7003, 9, 0, 0x38, NULL, 0, 10);
	/* UDP, and one whose length field claims more than the packet. */
	v4_udp(5000, 6000, 32);
	f = v4_frame(17, 0, NULL, 0, &at);
	udp(f, 5001, 6001, 16, 100);
	ip4_end(f, at);
	/* IPv4 options; fragments (first with MF, then a later one). */
	f = v4_frame(17, 0, ip_opts, sizeof(ip_opts), &at);
	udp(f, 5002, 6002, 8, 0);
	ip4_end(f, at);
	f = v4_frame(17, 0x2000, NULL, 0, &at);
	udp(f, 5003, 6003, 64, 1000);
	ip4_end(f, at);
	f = v4_frame(17, 0x0009, NULL, 0, &at);
	fill(f, 40, 0x33);
	ip4_end(f, at);
	/* Another IP protocol, IPv6 in IPv4. */
	f = v4_frame(253, 0, NULL, 0, &at);
	fill(f, 12, 0);
	ip4_end(f, at);
	f = v4_frame(41, 0, NULL, 0, &at);
	in = ip6(f, 17, IP6_A, IP6_B);
	udp(f, 1111, 2222, 4, 0);
	ip6_end(f, in);
	ip4_end(f, at);
	/* ICMP */
	v4_icmp(8, 0, 0x00010001, false);
	v4_icmp(0, 0, 0x00010001, false);
	v4_icmp(3, 3, 0, true);
	v4_icmp(3, 1, 0, true);
	v4_icmp(3, 4, 1400, true);
	v4_icmp(3, 13, 0, true);
	v4_icmp(11, 0, 0, true);
	v4_icmp(5, 1, 0x0a000063, true);
	v4_icmp(12, 0, 0x14000000, true);
	v4_icmp(42, 0, 0, false);
	v4_icmp(13, 0, 0x00070003, false);
	/* Timestamp reply (org, recv, xmit), router advertisements. */
	{
		static const uint8_t tsr[] = { 14,   0,	   0,	 0,    0,    7,	   0,
					       3,    0x01, 0x02, 0x03, 0x04, 0x05, 0x26,
					       0x5c, 0x00, 0xff, 0xff, 0xff, 0xff };
		static const uint8_t ra[] = { 9, 0, 0, 0, 2,  2, 0x0e, 0x10, 10,   0, 0, 1,
					      0, 0, 0, 0, 10, 0, 0,    9,    0x80, 0, 0, 0 };
		static const uint8_t ra_odd[] = { 9, 0, 0, 0, 1, 3, 0, 30, 10, 0, 0, 1 };

		v4_raw(1, 64, tsr, sizeof(tsr));
		v4_raw(1, 64, ra, sizeof(ra));
		v4_raw(1, 64, ra_odd, sizeof(ra_odd));
	}
	/* ARP: request, reply, a request that already names a MAC. */
	for (int op = 1; op <= 3; op++) {
		f = new_frame();
		eth(f, 0x0806);
		u16(f, 1);
		u16(f, 0x0800);
		u8(f, 6);
		u8(f, 4);
		u16(f, op == 3 ? 1 : op);
		bytes(f, MAC_A, 6);
		bytes(f, IP_A, 4);
		if (op == 3)
			bytes(f, MAC_B, 6);
		else
			fill(f, 6, 0);
		bytes(f, IP_B, 4);
		fill(f, 18, 0); /* Ethernet padding */
	}
	/* Every other operation (RARP, InARP), with MAC-long link addresses and
	 * with 4-byte ones, which print in hex (and must not be read as MACs). */
	for (int hln = 4; hln <= 6; hln += 2) {
		static const int ops[] = { 1, 2, 3, 4, 8, 9 };

		for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++) {
			if (hln == 6 && ops[k] <= 3)
				continue; /* above */
			f = new_frame();
			eth(f, 0x0806);
			u16(f, 1);
			u16(f, 0x0800);
			u8(f, (unsigned int)hln);
			u8(f, 4);
			u16(f, (unsigned int)ops[k]);
			bytes(f, MAC_A, (size_t)hln);
			bytes(f, IP_A, 4);
			bytes(f, MAC_B, (size_t)hln);
			bytes(f, IP_B, 4);
			fill(f, 22, 0);
		}
	}
	/* 802.1Q, then QinQ. */
	f = new_frame();
	eth(f, 0x8100);
	u16(f, 0x2064);
	u16(f, 0x0800);
	at = ip4(f, 1, IP_A, IP_B, 0, NULL, 0);
	u8(f, 8);
	u8(f, 0);
	u16(f, 0);
	u32(f, 0x00020003);
	fill(f, 8, 0);
	ip4_end(f, at);
	f = new_frame();
	eth(f, 0x88a8);
	u16(f, 0x1005);
	u16(f, 0x8100);
	u16(f, 0x0007);
	u16(f, 0x0800);
	at = ip4(f, 17, IP_A, IP_B, 0, NULL, 0);
	udp(f, 4000, 4001, 6, 0);
	ip4_end(f, at);
	/* IPv6: TCP, UDP from a v4-mapped address, ICMPv6 of every kind. */
	f = v6_frame(6, IP6_A, IP6_B, &at);
	tcp(f, 33000, 22222, 77, 0, 0x02, 64800, syn_opts, sizeof(syn_opts), 0);
	ip6_end(f, at);
	f = v6_frame(17, IP6_V4MAPPED, IP6_B, &at);
	udp(f, 3000, 3001, 10, 0);
	ip6_end(f, at);
	{
		uint8_t target[16 + 8];

		memcpy(target, IP6_B, 16);
		memcpy(target + 16, (uint8_t[]){ 1, 1, 2, 0, 0, 0, 0, 0x0a }, 8);
		v6_icmp6(IP6_A, IP6_B, 128, 0, 0x00070001, target, 8);
		v6_icmp6(IP6_B, IP6_A, 129, 0, 0x00070001, target, 8);
		v6_icmp6(IP6_LL, IP6_B, 135, 0, 0, target, 24);
		v6_icmp6(IP6_B, IP6_LL, 136, 0, 0x60000000, target, 24);
		v6_icmp6(IP6_LL, IP6_B, 133, 0, 0, NULL, 0);
		v6_icmp6(IP6_LL, IP6_B, 134, 0, 0x40000708, target + 16, 8);
		v6_icmp6(IP6_A, IP6_B, 2, 0, 1280, target, 16);
		v6_icmp6(IP6_A, IP6_B, 3, 0, 0, target, 16);
		v6_icmp6(IP6_A, IP6_B, 200, 0, 0, target, 8);
	}
	/* ICMPv6 port unreachable, quoting a UDP packet. */
	f = v6_frame(58, IP6_B, IP6_A, &at);
	u8(f, 1);
	u8(f, 4);
	u16(f, 0);
	u32(f, 0);
	in = ip6(f, 17, IP6_A, IP6_B);
	udp(f, 40001, 9999, 4, 0);
	ip6_end(f, in);
	ip6_end(f, at);
	/* MLDv2 report behind a hop-by-hop header (router alert, padding). */
	f = v6_frame(0, IP6_LL, IP6_MLD, &at);
	bytes(f, (uint8_t[]){ 58, 0, 5, 2, 0, 0, 1, 0 }, 8);
	u8(f, 143);
	u8(f, 0);
	u16(f, 0);
	u16(f, 0);
	u16(f, 1);
	bytes(f, (uint8_t[]){ 4, 0, 0, 0 }, 4);
	bytes(f, IP6_MLD, 16);
	ip6_end(f, at);
	/* Destination options, routing (type 0), fragments: first and later. */
	f = v6_frame(60, IP6_A, IP6_B, &at);
	bytes(f, (uint8_t[]){ 17, 0, 1, 4, 0, 0, 0, 0 }, 8);
	udp(f, 5353 + 1, 7777, 12, 0);
	ip6_end(f, at);
	f = v6_frame(43, IP6_A, IP6_B, &at);
	bytes(f, (uint8_t[]){ 6, 2, 0, 1, 0, 0, 0, 0 }, 8);
	bytes(f, IP6_LL, 16);
	tcp(f, 1234, 4321, 5, 0, 0x02, 1000, NULL, 0, 0);
	ip6_end(f, at);
	f = v6_frame(44, IP6_A, IP6_B, &at);
	bytes(f, (uint8_t[]){ 17, 0, 0, 1, 0, 0, 0, 42 }, 8);
	udp(f, 6000, 6001, 40, 0);
	ip6_end(f, at);
	f = v6_frame(44, IP6_A, IP6_B, &at);
	bytes(f, (uint8_t[]){ 17, 0, 0, 48, 0, 0, 0, 42 }, 8);
	fill(f, 24, 0x44);
	ip6_end(f, at);
	/* An ethertype nobody decodes: the line, then the payload dumped. */
	f = new_frame();
	eth(f, 0x88b5);
	for (int i = 0; i < 46; i++)
		u8(f, i % 3 ? 'a' + i % 26 : '\r');
	tunnels();
	text_protocols();
	dns();
	infrastructure();
	l2_control();
	snmp();

	/* Truncated: Ethernet, VLAN, IP header, TCP header, TCP options,
	 * TCP payload (the usual snap length case), UDP, ICMP, ARP, IPv6. */
	{
		v4_tcp(IP_A, IP_B, 443, 51234, 5001, 1001, 0x18, ts_opts, sizeof(ts_opts), 200);
		frames[n_frames - 1].caplen = 10;
		v4_tcp(IP_A, IP_B, 443, 51234, 5001, 1001, 0x18, ts_opts, sizeof(ts_opts), 200);
		frames[n_frames - 1].caplen = 14 + 12;
		v4_tcp(IP_A, IP_B, 443, 51234, 5001, 1001, 0x18, ts_opts, sizeof(ts_opts), 200);
		frames[n_frames - 1].caplen = 14 + 20 + 3;
		v4_tcp(IP_A, IP_B, 443, 51234, 5001, 1001, 0x18, ts_opts, sizeof(ts_opts), 200);
		frames[n_frames - 1].caplen = 14 + 20 + 16;
		v4_tcp(IP_A, IP_B, 443, 51234, 5001, 1001, 0x18, ts_opts, sizeof(ts_opts), 200);
		frames[n_frames - 1].caplen = 14 + 20 + 26;
		v4_tcp(IP_A, IP_B, 443, 51234, 5001, 1001, 0x18, ts_opts, sizeof(ts_opts), 200);
		frames[n_frames - 1].caplen = 96;
		v4_udp(5000, 6000, 32);
		frames[n_frames - 1].caplen = 14 + 20 + 5;
		v4_icmp(8, 0, 0x00010001, false);
		frames[n_frames - 1].caplen = 14 + 20 + 3;
		v4_icmp(3, 3, 0, true);
		frames[n_frames - 1].caplen = 14 + 20 + 8 + 12;
		f = new_frame();
		eth(f, 0x8100);
		u16(f, 5);
		f->caplen = 16;
		fill(f, 60, 0);
		f = new_frame();
		eth(f, 0x0806);
		fill(f, 28, 1);
		f->caplen = 14 + 10;
		f = v6_frame(17, IP6_A, IP6_B, &at);
		udp(f, 1, 2, 20, 0);
		ip6_end(f, at);
		f->caplen = 14 + 30;
	}
}

/* ---- the golden texts ------------------------------------------------------ */

static char dir[64];
static char pcap_path[96];
static bool refresh; /* PS_PRINT_REFRESH: rewrite the golden files */

static int write_pcap(const char *path)
{
	pcap_t *dead = pcap_open_dead(DLT_EN10MB, 65535);
	pcap_dumper_t *d = dead ? pcap_dump_open(dead, path) : NULL;

	if (!d)
		return -1;
	for (int i = 0; i < n_frames; i++) {
		struct pcap_pkthdr h = {
			.ts = { .tv_sec = 1700000000 + i * 7, .tv_usec = (i * 123457) % 1000000 },
			.caplen = frames[i].caplen ? frames[i].caplen : (uint32_t)frames[i].n,
			.len = (uint32_t)frames[i].n,
		};

		pcap_dump((u_char *)d, &h, frames[i].b);
	}
	pcap_dump_close(d);
	pcap_close(dead);
	return 0;
}

/* All of f (or of the file at path), and its length in *n if n. */
static char *slurp(FILE *f, size_t *n)
{
	char *buf = NULL;
	size_t len = 0, k;
	FILE *m = open_memstream(&buf, &len);
	char chunk[4096];

	assert_non_null(f);
	assert_non_null(m);
	while ((k = fread(chunk, 1, sizeof(chunk), f)) > 0)
		fwrite(chunk, 1, k, m);
	fclose(m);
	if (n)
		*n = len;
	return buf;
}

static char *slurp_file(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	char *text;

	if (!f)
		fail_msg("cannot read %s (PS_PRINT_REFRESH=1 makes it)", path);
	text = slurp(f, n);
	fclose(f);
	return text;
}

/* Our printer over the fixture frames, with the options of tcpdump's flags. */
static char *ours(const struct ps_print_opts *o)
{
	struct ps_printer pr;
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	assert_non_null(m);
	ps_printer_init(&pr, o, m);
	for (int i = 0; i < n_frames; i++) {
		struct ps_print_pkt pkt = {
			.ts_ns = (uint64_t)(1700000000 + i * 7) * 1000000000ull +
				 (uint64_t)((i * 123457) % 1000000) * 1000 + 999,
			.linktype = PS_LINKTYPE_ETHERNET,
			.data = frames[i].b,
			.cap_len = frames[i].caplen ? frames[i].caplen : (uint32_t)frames[i].n,
			.wire_len = (uint32_t)frames[i].n,
		};

		assert_int_equal(ps_print_packet(&pr, &pkt), 0);
	}
	ps_printer_free(&pr);
	fclose(m);
	return buf;
}

/* Our printer over another pcap's packets (the other link types). */
static char *ours_file(const struct ps_print_opts *o, const char *path)
{
	struct ps_capread r;
	struct ps_capread_rec rec;
	struct ps_printer pr;
	char *buf = NULL, err[320];
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int ret;

	assert_non_null(m);
	if (ps_capread_open(&r, path, err, sizeof(err)))
		fail_msg("%s", err);
	ps_printer_init(&pr, o, m);
	while ((ret = ps_capread_next(&r, &rec, err, sizeof(err))) > 0) {
		if (rec.kind != PS_REC_PACKET)
			continue;
		assert_int_equal(ps_print_packet(&pr,
						 &(struct ps_print_pkt){
							 .ts_ns = rec.ts_ns,
							 .linktype = rec.iface->linktype,
							 .data = rec.data,
							 .cap_len = rec.cap_len,
							 .wire_len = rec.wire_len,
						 }),
				 0);
	}
	assert_int_equal(ret, 0);
	ps_printer_free(&pr);
	ps_capread_close(&r);
	fclose(m);
	return buf;
}

/* Compare line by line, so a failure names the first line that differs. */
static void same_text(const char *name, const char *want, const char *got)
{
	int line = 1;

	while (*want || *got) {
		size_t lw = strcspn(want, "\n"), lg = strcspn(got, "\n");

		if (lw != lg || memcmp(want, got, lw)) {
			fail_msg("%s.out, line %d:\n  tcpdump:   %.*s\n  pktsample: %.*s", name,
				 line, (int)lw, want, (int)lg, got);
		}
		want += lw + (want[lw] == '\n');
		got += lg + (got[lg] == '\n');
		line++;
	}
}

/* tcpdump's printing flags as the printer's options; false for another. */
static bool flags_to_opts(const char *flags, struct ps_print_opts *o)
{
	char copy[128], *save, *w;

	*o = (struct ps_print_opts){ .ts = PS_TS_DEFAULT };
	snprintf(copy, sizeof(copy), "%s", flags);
	for (w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		if (w[0] != '-' || !w[1])
			return false;
		for (const char *c = w + 1; *c; c++) {
			switch (*c) {
			case 't':
				o->ts = o->ts == PS_TS_DEFAULT ? PS_TS_NONE : o->ts + 1;
				break;
			case 'e':
				o->link = true;
				break;
			case 'q':
				o->quiet = true;
				break;
			case 'x':
				o->hex++;
				break;
			case 'X':
				o->hex_ascii++;
				break;
			case 'A':
				o->ascii++;
				break;
			default:
				return false;
			}
		}
	}
	return true;
}

/* One TESTLIST entry: NAME PCAP FLAGS... ("-" for none). */
static void one_entry(const char *name, const char *pcap, const char *flags)
{
	char out[PATH_MAX], cmd[PATH_MAX * 2 + 64];
	struct ps_print_opts o;
	char *want, *got;

	if (!flags_to_opts(flags, &o))
		fail_msg("TESTLIST %s: flags '%s' are not printing flags", name, flags);
	snprintf(out, sizeof(out), "%s/%s.out", PS_PRINT_DIR, name);
	if (refresh) {
		snprintf(cmd, sizeof(cmd), "TZ=UTC tcpdump -n %s -r %s/%s 2>/dev/null >%s", flags,
			 PS_PRINT_DIR, pcap, out);
		assert_int_equal(system(cmd), 0);
	}
	want = slurp_file(out, NULL);
	if (strcmp(pcap, "frames.pcap")) {
		char path[PATH_MAX];

		snprintf(path, sizeof(path), "%s/%s", PS_PRINT_DIR, pcap);
		got = ours_file(&o, path);
	} else {
		got = ours(&o);
	}
	same_text(name, want, got);
	free(want);
	free(got);
}

static void testlist(void **state)
{
	char path[PATH_MAX], line[512];
	FILE *f;
	int n = 0;

	(void)state;
	snprintf(path, sizeof(path), "%s/TESTLIST", PS_PRINT_DIR);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		char name[64], pcap[64], flags[128] = "";
		int k = 0;

		if (line[0] == '#' || sscanf(line, "%63s %63s %n", name, pcap, &k) < 2)
			continue;
		snprintf(flags, sizeof(flags), "%s", line + k);
		flags[strcspn(flags, "\n")] = 0;
		one_entry(name, pcap, strcmp(flags, "-") ? flags : "");
		n++;
	}
	fclose(f);
	assert_true(n >= 12);
}

/* The checked-in pcap is what the fixtures make, so the golden texts are
 * about the frames this file builds. */
static void pcap_is_the_fixtures(void **state)
{
	char golden[PATH_MAX];
	char *want, *got;
	size_t wn, gn;

	(void)state;
	snprintf(golden, sizeof(golden), "%s/frames.pcap", PS_PRINT_DIR);
	if (refresh)
		assert_int_equal(write_pcap(golden), 0);
	want = slurp_file(golden, &wn);
	got = slurp_file(pcap_path, &gn);
	assert_int_equal(wn, gn);
	assert_memory_equal(want, got, wn);
	free(want);
	free(got);
}

static int setup(void **state)
{
	(void)state;
	setenv("TZ", "UTC", 1);
	refresh = getenv("PS_PRINT_REFRESH") && *getenv("PS_PRINT_REFRESH");
	snprintf(dir, sizeof(dir), "/tmp/test_decode.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(pcap_path, sizeof(pcap_path), "%s/frames.pcap", dir);
	build_fixtures();
	return write_pcap(pcap_path);
}

static int teardown(void **state)
{
	(void)state;
	if (pcap_path[0])
		unlink(pcap_path);
	if (dir[0])
		rmdir(dir);
	return 0;
}

/* Where tcpdump decodes an application payload, our line is its start. */
/* A payload on a port tcpdump has no printer for ends the line at the
 * transport, as tcpdump's. */
static void application_payload_is_cut_at_the_transport(void **state)
{
	struct ps_decoder d;
	struct ps_decoded out;
	char text[512];
	int saved = n_frames;
	struct frame *f = &frames[saved];

	(void)state;
	v4_tcp(IP_A, IP_B, 443, 40000, 1, 0, 0x08, NULL, 0, 30);
	n_frames = saved;
	memcpy(f->b + 14 + 20 + 20, "GET / HTTP/1.1\r\nHost: x\r\n\r\n", 27);
	ps_decoder_init(&d, false, false);
	ps_decode(&d, PS_LINKTYPE_ETHERNET, f->b, (uint32_t)f->n, (uint32_t)f->n, text,
		  sizeof(text), &out);
	ps_decoder_free(&d);
	assert_string_equal(text, "IP 10.0.0.1.443 > 10.0.0.2.40000: Flags [P], seq 1:31, win 501, "
				  "length 30");
}

/* The decoder never reads past what it is given, whatever the bytes. */
static void every_truncation_is_safe(void **state)
{
	struct ps_decoder d;
	struct ps_decoded out;
	char text[256];

	(void)state;
	ps_decoder_init(&d, true, false);
	for (int i = 0; i < n_frames; i++)
		for (uint32_t cap = 1; cap <= frames[i].n; cap++) {
			uint8_t *copy = malloc(cap); /* exact size: ASan sees overreads */

			memcpy(copy, frames[i].b, cap);
			ps_decode(&d, PS_LINKTYPE_ETHERNET, copy, cap, (uint32_t)frames[i].n, text,
				  sizeof(text), &out);
			assert_true(out.link_len <= cap);
			assert_true(!out.unknown || (out.unknown >= copy &&
						     out.unknown + out.unknown_len <= copy + cap));
			free(copy);
		}
	ps_decoder_free(&d);
}

int main(void)
{
	if (getenv("PS_PRINT_REFRESH") && system("tcpdump --version >/dev/null 2>&1")) {
		fprintf(stderr, "test_decode: PS_PRINT_REFRESH needs tcpdump\n");
		return 1;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pcap_is_the_fixtures),
		cmocka_unit_test(testlist),
		cmocka_unit_test(application_payload_is_cut_at_the_transport),
		cmocka_unit_test(every_truncation_is_safe),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
