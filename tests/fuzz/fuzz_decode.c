// SPDX-License-Identifier: GPL-2.0-only
/*
 * The live view's decoder on arbitrary frames, with every option set: it
 * reads nothing past the bytes it is given (ASan checks, on an exactly
 * sized copy), and what it reports stays inside the frame and the buffer.
 */
#include <stdlib.h>
#include <string.h>
#include "decode.h"

/* Every link type the decoder knows, chosen by bits 2-5 of the first
 * byte (Ethernet and raw IP where the seeds expect them). */
static const int linktypes[16] = {
	PS_LINKTYPE_ETHERNET,	PS_LINKTYPE_RAW,      PS_LINKTYPE_NULL,	    PS_LINKTYPE_LOOP,
	PS_LINKTYPE_LINUX_SLL,	PS_LINKTYPE_RAW_DLT,  PS_LINKTYPE_IPV4,	    PS_LINKTYPE_IPV6,
	PS_LINKTYPE_LINUX_SLL2, PS_LINKTYPE_PPP,      PS_LINKTYPE_PPP_HDLC, PS_LINKTYPE_PPP_ETHER,
	PS_LINKTYPE_PPP_PPPD,	PS_LINKTYPE_ETHERNET, PS_LINKTYPE_ETHERNET, PS_LINKTYPE_ETHERNET,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ps_decoder d[4];
	static int ready;
	struct ps_decoded out;
	char text[512];
	uint8_t *frame;
	uint32_t cap, wire;
	size_t n;

	if (!ready) {
		ps_decoder_init(&d[0], false, false);
		ps_decoder_init(&d[1], true, false);
		ps_decoder_init(&d[2], false, true);
		ps_decoder_init(&d[3], true, true);
		ready = 1;
	}
	if (size < 3)
		return 0;
	wire = (uint32_t)(size - 3) + data[1];
	cap = (uint32_t)(size - 3);
	frame = malloc(cap ? cap : 1);
	memcpy(frame, data + 3, cap);
	n = ps_decode(&d[data[0] & 3], linktypes[(data[0] >> 2) & 15], frame, cap,
		      data[2] ? wire : cap, text, sizeof(text), &out);
	if (n >= sizeof(text) || text[n] || strlen(text) != n)
		abort();
	if (out.link_len > cap)
		abort();
	if (out.unknown && (out.unknown < frame || out.unknown + out.unknown_len > frame + cap))
		abort();
	free(frame);
	return 0;
}
