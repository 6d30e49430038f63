/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The live view's decoder: one frame's bytes in, one line of text out, in
 * the words `tcpdump -n` (4.99, not verbose) uses, so that a tcpdump user
 * reads it without learning anything and a script that parses tcpdump's
 * output parses ours.
 *
 * Covered, matching tcpdump character for character (tests/unit/
 * test_decode.c compares against the installed tcpdump): the links,
 * network and transport protocols, tunnels, L2 control and application
 * protocols doc/guide.md lists, and truncated frames. Where tcpdump has a
 * printer we do not, the line ends where ours stop (the transport line,
 * or tcpdump's line for an unknown payload).
 *
 * Pure: no I/O, no globals (an interface's name for Linux cooked v2 comes
 * from the caller, d->ifname). The one piece of state is tcpdump's: the
 * initial sequence numbers of each TCP conversation, so that seq and ack
 * print relative to them.
 */
#ifndef PS_DECODE_H
#define PS_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "linktype.h"
#define PS_LINKTYPE_PPP_PPPD 166

#define PS_TCP_CONV_BUCKETS 919 /* tcpdump's TSEQ_HASHSIZE */
/* Conversations remembered before the table starts over (bounded memory in
 * a capture that runs for days; tcpdump's table only grows). */
#define PS_TCP_CONV_MAX 65536

struct ps_tcp_conv;

struct ps_decoder {
	bool link;  /* -e: print the link-layer header */
	bool quiet; /* -q: less protocol information */
	/* The name of interface ifindex on this machine, as tcpdump prints it
	 * for Linux cooked v2 captures (NULL, or false: "?"). The decoder
	 * itself does no I/O; the printer gives it if_indextoname(). */
	bool (*ifname)(uint32_t ifindex, char *buf, size_t size);
	struct ps_tcp_conv *bucket[PS_TCP_CONV_BUCKETS];
	size_t n_conv;
};

/* What one frame decoded to. */
struct ps_decoded {
	/* Bytes of link-layer header; -x/-X/-A dump what follows. 0 when a
	 * truncated frame ended the decode early (tcpdump then dumps it all). */
	uint32_t link_len;
	/* tcpdump's default print for an unknown payload: these bytes follow
	 * the line in hex and ASCII (unless -x, -X or -q asked otherwise) or,
	 * where a printer dumps what it does not know (hex_only), in hex. */
	const uint8_t *unknown;
	uint32_t unknown_len;
	bool hex_only;
};

void ps_decoder_init(struct ps_decoder *d, bool link, bool quiet);
void ps_decoder_free(struct ps_decoder *d);

/*
 * Decode a frame of link type linktype, cap_len bytes captured of wire_len.
 * Writes the text without timestamp or newline into buf (always
 * terminated, cut at size). Returns the text's length.
 */
size_t ps_decode(struct ps_decoder *d, int linktype, const uint8_t *frame, uint32_t cap_len,
		 uint32_t wire_len, char *buf, size_t size, struct ps_decoded *out);

#endif
