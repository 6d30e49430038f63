// SPDX-License-Identifier: GPL-2.0-only
/* The decoder's entry: a frame to the printer of its link type. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "print.h"

void ps_put(struct ps_print_ctx *c, const char *fmt, ...)
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

void ps_put_bits(struct ps_print_ctx *c, const struct ps_bit *t, size_t n, uint32_t v,
		 const char *none)
{
	const char *sep = "";

	for (size_t i = 0; i < n; i++)
		if (t[i].bit && (v & t[i].bit) == t[i].bit) {
			ps_put(c, "%s%s", sep, t[i].name);
			sep = ", ";
		}
	if (!*sep)
		ps_put(c, "%s", none);
}

void ps_decoder_init(struct ps_decoder *d, bool link, bool quiet)
{
	memset(d, 0, sizeof(*d));
	d->link = link;
	d->quiet = quiet;
}

void ps_decoder_free(struct ps_decoder *d)
{
	ps_tcp_convs_free(d);
}

size_t ps_decode(struct ps_decoder *d, int linktype, const uint8_t *frame, uint32_t cap_len,
		 uint32_t wire_len, char *buf, size_t size, struct ps_decoded *out)
{
	struct ps_print_ctx c = {
		.d = d,
		.buf = buf,
		.size = size,
		.end = frame + cap_len,
		.proto = "",
		.out = out,
	};
	uint32_t link_len = 0;

	memset(out, 0, sizeof(*out));
	if (size)
		buf[0] = 0;
	if (!size)
		return 0;
	if (cap_len == 0 || wire_len == 0 || wire_len < cap_len) {
		/* tcpdump's words for a record header that cannot be right. */
		ps_put(&c, "[Invalid header:");
		if (cap_len == 0)
			ps_put(&c, " caplen==0");
		if (wire_len == 0)
			ps_put(&c, "%s len==0", cap_len == 0 ? "," : "");
		else if (wire_len < cap_len)
			ps_put(&c, "%s len(%u) < caplen(%u)", cap_len == 0 ? "," : "", wire_len,
			       cap_len);
		ps_put(&c, "]");
		return c.len;
	}
	switch (linktype) {
	case PS_LINKTYPE_ETHERNET:
		link_len = ps_ether_print(&c, frame, wire_len, cap_len);
		break;
	case PS_LINKTYPE_RAW:
	case PS_LINKTYPE_RAW_DLT:
	case PS_LINKTYPE_IPV4:
	case PS_LINKTYPE_IPV6:
		ps_raw_print(&c, frame, wire_len);
		break;
	case PS_LINKTYPE_NULL:
	case PS_LINKTYPE_LOOP:
		link_len = ps_null_print(&c, frame, wire_len, cap_len);
		break;
	case PS_LINKTYPE_LINUX_SLL:
		link_len = ps_sll_print(&c, frame, wire_len, cap_len);
		break;
	case PS_LINKTYPE_LINUX_SLL2:
		link_len = ps_sll2_print(&c, frame, wire_len, cap_len);
		break;
	case PS_LINKTYPE_PPP:
	case PS_LINKTYPE_PPP_PPPD:
		c.proto = "ppp";
		if (cap_len < 4) {
			local_trunc(&c);
			link_len = cap_len;
			break;
		}
		link_len = 4;
		ps_ppp_print(&c, frame, wire_len);
		break;
	case PS_LINKTYPE_PPP_HDLC:
		link_len = ps_ppp_hdlc_print(&c, frame, wire_len, cap_len);
		break;
	case PS_LINKTYPE_PPP_ETHER:
		c.proto = "pppoe";
		ps_pppoe_print(&c, frame, wire_len);
		break;
	default:
		ps_put(&c, "[link type %d not decoded], length %u", linktype, wire_len);
		break;
	}
	if (c.jumped) {
		local_trunc(&c);
		link_len = 0;
		out->unknown = NULL;
	}
	out->link_len = link_len < cap_len ? link_len : cap_len;
	return c.len;
}
