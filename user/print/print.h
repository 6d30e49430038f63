/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the protocol printers share (private to user/print/): one context
 * struct, the bounded reads every printer goes through, and the printers'
 * entry points. One file per protocol, each following tcpdump 4.99's file
 * of the same name (doc/design.md lists them) in what it prints without -v,
 * including how it gives up on a truncated frame; decode.c is the entry
 * (decode.h). tcpdump gives up in two ways, and they differ in
 * what -x dumps afterwards:
 * - a printer's own length check prints " [|proto]" and returns normally
 *   (local_trunc() here);
 * - a field read past the captured bytes abandons the whole decode, the
 *   top level prints " [|proto]" and the hex dump covers the whole frame
 *   (c->jumped here).
 */
#ifndef PS_PRINT_H
#define PS_PRINT_H

#include <arpa/inet.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "decode.h"

/* One frame being printed: tcpdump's netdissect_options, trimmed. */
struct ps_print_ctx {
	struct ps_decoder *d;
	char *buf;
	size_t size, len;
	const uint8_t *end; /* end of what may be read (tcpdump's snapend) */
	const char *proto;  /* for " [|proto]" */
	bool jumped;	    /* a read past the end abandoned the decode */
	struct ps_decoded *out;
};

/* Append to the line (cut at the buffer's end). */
__attribute__((format(printf, 2, 3))) void ps_put(struct ps_print_ctx *c, const char *fmt, ...);

/* A bit's name, for ps_put_bits. */
struct ps_bit {
	uint32_t bit;
	const char *name;
};
/* tcpdump's bittok2str(): the names of the bits of t set in v, ", "
 * between them, or none where there is none. */
void ps_put_bits(struct ps_print_ctx *c, const struct ps_bit *t, size_t n, uint32_t v,
		 const char *none);

static inline void local_trunc(struct ps_print_ctx *c)
{
	ps_put(c, " [|%s]", c->proto);
}

/* Are n bytes at p captured? */
static inline bool have(const struct ps_print_ctx *c, const uint8_t *p, size_t n)
{
	return p <= c->end && (size_t)(c->end - p) >= n;
}

/* A field read: past the end, the decode is abandoned (tcpdump's GET_*). */
static inline bool need(struct ps_print_ctx *c, const uint8_t *p, size_t n)
{
	if (!have(c, p, n))
		c->jumped = true;
	return !c->jumped;
}

/* tcpdump's ND_ASCII_ISPRINT(): printable ASCII, space included. */
static inline bool ps_isprint(uint8_t ch)
{
	return ch >= 0x20 && ch < 0x7f;
}

static inline uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* A 24-bit field: a VNI, an OUI (tcpdump's GET_BE_U_3). */
static inline uint32_t be24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static inline uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline uint32_t avail(const struct ps_print_ctx *c, const uint8_t *p)
{
	return p < c->end ? (uint32_t)(c->end - p) : 0;
}

/* Reading stops at the end of this datagram (tcpdump's nd_push_snaplen). */
static inline void push_end(struct ps_print_ctx *c, const uint8_t *p, uint32_t len)
{
	if (p + len < c->end)
		c->end = p + len;
}

/* Bytes tcpdump dumps after the line, as far as they were captured. */
static inline void unknown(struct ps_print_ctx *c, const uint8_t *p, uint32_t len, bool hex_only)
{
	c->out->unknown = p;
	c->out->unknown_len = len < avail(c, p) ? len : avail(c, p);
	c->out->hex_only = hex_only;
}

struct addr {
	char s[INET6_ADDRSTRLEN];
};

static inline struct addr ip4_str(const uint8_t *a)
{
	struct addr r;

	snprintf(r.s, sizeof(r.s), "%u.%u.%u.%u", a[0], a[1], a[2], a[3]);
	return r;
}

static inline struct addr ip6_str(const uint8_t *a)
{
	struct addr r;

	if (!inet_ntop(AF_INET6, a, r.s, sizeof(r.s)))
		snprintf(r.s, sizeof(r.s), "?");
	return r;
}

static inline struct addr mac_str(const uint8_t *a)
{
	struct addr r;

	snprintf(r.s, sizeof(r.s), "%02x:%02x:%02x:%02x:%02x:%02x", a[0], a[1], a[2], a[3], a[4],
		 a[5]);
	return r;
}

/* The network header a transport header sits in: addresses and version. */
struct l3 {
	int ver;
	const uint8_t *hdr;
	bool direct; /* the transport header follows the IP header itself */
};

static inline struct addr l3_src(const struct l3 *n)
{
	return n->ver == 6 ? ip6_str(n->hdr + 8) : ip4_str(n->hdr + 12);
}

static inline struct addr l3_dst(const struct l3 *n)
{
	return n->ver == 6 ? ip6_str(n->hdr + 24) : ip4_str(n->hdr + 16);
}

/* The printers, each after tcpdump's of the same name; length is what the
 * enclosing header says, the captured end is c->end. */
uint32_t ps_ether_print(struct ps_print_ctx *c, const uint8_t *p, uint32_t length, uint32_t caplen);
const char *ps_ethertype_name(uint16_t t);
void ps_arp_print(struct ps_print_ctx *c, const uint8_t *ap, uint32_t length);
void ps_ip_print(struct ps_print_ctx *c, const uint8_t *bp, uint32_t length);
void ps_ip6_print(struct ps_print_ctx *c, const uint8_t *bp, uint32_t length);
/* The transport header after an IPv4 or IPv6 header (or its extensions). */
void ps_ip_demux(struct ps_print_ctx *c, const uint8_t *bp, uint32_t length, const struct l3 *n,
		 bool fragmented, uint8_t nh);
void ps_tcp_print(struct ps_print_ctx *c, const uint8_t *bp, uint32_t length, const struct l3 *n);
void ps_udp_print(struct ps_print_ctx *c, const uint8_t *bp, uint32_t length, const struct l3 *n,
		  bool fragmented);
void ps_icmp_print(struct ps_print_ctx *c, const uint8_t *dp, uint32_t plen);
void ps_icmp6_print(struct ps_print_ctx *c, const uint8_t *dp, uint32_t length);
/* What follows an ethertype (tcpdump's ethertype_print): false for a type
 * it has no printer for, which the caller then prints as unknown. */
bool ps_ethertype_print(struct ps_print_ctx *c, uint16_t type, const uint8_t *p, uint32_t length);
/* Text protocols: the protocol's name (c->proto, in capitals) and, when
 * the payload starts with a request or response line (one of cmds, or a
 * three-digit code as the first or, resp_code_second, the second token;
 * any line when cmds is NULL), ": " and that line. */
void ps_txtproto_print(struct ps_print_ctx *c, const uint8_t *p, uint32_t len,
		       const char *const *cmds, bool resp_code_second);
void ps_http_print(struct ps_print_ctx *c, const uint8_t *p, uint32_t len);
void ps_rtsp_print(struct ps_print_ctx *c, const uint8_t *p, uint32_t len);
void ps_sip_print(struct ps_print_ctx *c, const uint8_t *p, uint32_t len);
void ps_ftp_print(struct ps_print_ctx *c, const uint8_t *p, uint32_t len);
void ps_smtp_print(struct ps_print_ctx *c, const uint8_t *p, uint32_t len);
void ps_whois_print(struct ps_print_ctx *c, const uint8_t *p, uint32_t len);
/* tcpdump's fn_print_char(): M- for the high bit, ^ for controls. */
void ps_print_char(struct ps_print_ctx *c, uint8_t ch);
/* n characters (nd_printn()): true when the capture ended first. */
bool ps_printn(struct ps_print_ctx *c, const uint8_t *s, uint32_t n);
/* Up to n characters or a NUL (nd_printjnp()); false when the decode was
 * abandoned at the capture's end. */
bool ps_printjnp(struct ps_print_ctx *c, const uint8_t *s, uint32_t n);
/* tcpdump's hex_print() inside the line: "IDENT0x0000:  0102 ..." per 16
 * bytes; past the capture it abandons the decode, as tcpdump's. */
void ps_hex_print(struct ps_print_ctx *c, const char *ident, const uint8_t *cp, uint32_t length);
void ps_igmp_print(struct ps_print_ctx *c, const uint8_t *bp, uint32_t len);
void ps_ntp_print(struct ps_print_ctx *c, const uint8_t *bp, uint32_t length);
void ps_syslog_print(struct ps_print_ctx *c, const uint8_t *p, uint32_t len);
/* ttl: the enclosing IP header's TTL or hop limit. */
void ps_vrrp_print(struct ps_print_ctx *c, const uint8_t *bp, uint32_t len, unsigned int ttl);
/* AH: the header's length, 0 when it could not be read. */
uint32_t ps_ah_print(struct ps_print_ctx *c, const uint8_t *bp);
void ps_esp_print(struct ps_print_ctx *c, const uint8_t *bp, uint32_t length);
/* 802.2 LLC (src, dst: the frame's MACs, or NULL): its header's length,
 * negative when tcpdump then dumps the frame as unknown. */
int ps_llc_print(struct ps_print_ctx *c, const uint8_t *p, uint32_t length, uint32_t caplen,
		 const uint8_t *src, const uint8_t *dst);
void ps_stp_print(struct ps_print_ctx *c, const uint8_t *p, uint32_t length);
void ps_cdp_print(struct ps_print_ctx *c, const uint8_t *p, uint32_t length);
void ps_udld_print(struct ps_print_ctx *c, const uint8_t *p, uint32_t length);
void ps_dtp_print(struct ps_print_ctx *c, const uint8_t *p, uint32_t length);
void ps_msnlb_print(struct ps_print_ctx *c, const uint8_t *p);
void ps_loopback_print(struct ps_print_ctx *c, const uint8_t *p, uint32_t len);
void ps_aoe_print(struct ps_print_ctx *c, const uint8_t *p, uint32_t length);
void ps_lldp_print(struct ps_print_ctx *c, const uint8_t *p, uint32_t length);
void ps_eapol_print(struct ps_print_ctx *c, const uint8_t *p);
void ps_slow_print(struct ps_print_ctx *c, const uint8_t *p, uint32_t len);
void ps_bootp_print(struct ps_print_ctx *c, const uint8_t *bp, uint32_t length);
void ps_dhcp6_print(struct ps_print_ctx *c, const uint8_t *bp, uint32_t length);
void ps_sctp_print(struct ps_print_ctx *c, const uint8_t *bp, uint32_t length, const struct l3 *n);
/* ver: the IP version it came in (OSPFv2 or v3). */
void ps_ospf_print(struct ps_print_ctx *c, const uint8_t *bp, uint32_t length, int ver);
void ps_rip_print(struct ps_print_ctx *c, const uint8_t *dat, uint32_t length);
void ps_bgp_print(struct ps_print_ctx *c, const uint8_t *dat, uint32_t length);
void ps_radius_print(struct ps_print_ctx *c, const uint8_t *dat, uint32_t length);
void ps_ssh_print(struct ps_print_ctx *c, const uint8_t *p, uint32_t len);
void ps_snmp_print(struct ps_print_ctx *c, const uint8_t *np, uint32_t length);
/* A line of text at p from idx within len (tab: tabs count as text), as
 * tcpdump's print_txt_line() and SSH's version line scan it: ended by LF
 * or CR-LF (PS_LINE_END), text up to len without an end (PS_LINE_OPEN),
 * or not text, or cut short (PS_LINE_NONE). *end: where the line's text
 * ends. */
enum ps_line { PS_LINE_END, PS_LINE_OPEN, PS_LINE_NONE };
enum ps_line ps_text_line(struct ps_print_ctx *c, const uint8_t *p, uint32_t idx, uint32_t len,
			  bool tab, uint32_t *end);
/* DNS (over_tcp: with its length prefix) and mDNS. */
void ps_domain_print(struct ps_print_ctx *c, const uint8_t *bp, uint32_t length, bool over_tcp,
		     bool mdns);
/* Link types other than Ethernet; each returns its header's length. */
void ps_raw_print(struct ps_print_ctx *c, const uint8_t *p, uint32_t length);
uint32_t ps_null_print(struct ps_print_ctx *c, const uint8_t *p, uint32_t length, uint32_t caplen);
uint32_t ps_sll_print(struct ps_print_ctx *c, const uint8_t *p, uint32_t length, uint32_t caplen);
uint32_t ps_sll2_print(struct ps_print_ctx *c, const uint8_t *p, uint32_t length, uint32_t caplen);
/* PPP in HDLC-like framing (LINKTYPE_PPP_HDLC). */
uint32_t ps_ppp_hdlc_print(struct ps_print_ctx *c, const uint8_t *p, uint32_t length,
			   uint32_t caplen);
/* Tunnels and what they carry. */
void ps_gre_print(struct ps_print_ctx *c, const uint8_t *bp, uint32_t length);
void ps_vxlan_print(struct ps_print_ctx *c, const uint8_t *bp, uint32_t length);
void ps_vxlan_gpe_print(struct ps_print_ctx *c, const uint8_t *bp, uint32_t length);
void ps_geneve_print(struct ps_print_ctx *c, const uint8_t *bp, uint32_t length);
void ps_mpls_print(struct ps_print_ctx *c, const uint8_t *bp, uint32_t length);
void ps_pppoe_print(struct ps_print_ctx *c, const uint8_t *bp, uint32_t length);
/* A PPP frame from its address and control field (if there) on; the
 * bytes of PPP header it had. */
uint32_t ps_ppp_print(struct ps_print_ctx *c, const uint8_t *p, uint32_t length);
/* An Ethernet frame inside another packet: up to where it was captured. */
static inline void ps_ether_inner(struct ps_print_ctx *c, const uint8_t *p, uint32_t length)
{
	ps_ether_print(c, p, length, avail(c, p));
}
/* The TCP conversations' relative sequence numbers, forgotten. */
void ps_tcp_convs_free(struct ps_decoder *d);

#endif
