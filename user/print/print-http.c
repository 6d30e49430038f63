// SPDX-License-Identifier: GPL-2.0-only
/* HTTP, RTSP and SIP: request and response lines (tcpdump 4.99's
 * print-http.c, print-rtsp.c, print-sip.c). */
#include "print.h"

void ps_http_print(struct ps_print_ctx *c, const uint8_t *p, uint32_t len)
{
	static const char *const cmds[] = {
		"GET",
		"PUT",
		"COPY",
		"HEAD",
		"LOCK",
		"MOVE",
		"POLL",
		"POST",
		"BCOPY",
		"BMOVE",
		"MKCOL",
		"TRACE",
		"LABEL",
		"MERGE",
		"DELETE",
		"SEARCH",
		"UNLOCK",
		"REPORT",
		"UPDATE",
		"NOTIFY",
		"BDELETE",
		"CONNECT",
		"OPTIONS",
		"CHECKIN",
		"PROPFIND",
		"CHECKOUT",
		"CCM_POST",
		"SUBSCRIBE",
		"PROPPATCH",
		"BPROPFIND",
		"BPROPPATCH",
		"UNCHECKOUT",
		"MKACTIVITY",
		"MKWORKSPACE",
		"UNSUBSCRIBE",
		"RPC_CONNECT",
		"VERSION-CONTROL",
		"BASELINE-CONTROL",
		NULL,
	};

	c->proto = "http";
	ps_txtproto_print(c, p, len, cmds, true);
}

void ps_rtsp_print(struct ps_print_ctx *c, const uint8_t *p, uint32_t len)
{
	static const char *const cmds[] = {
		"DESCRIBE", "ANNOUNCE", "GET_PARAMETER", "OPTIONS",	  "PAUSE",    "PLAY",
		"RECORD",   "REDIRECT", "SETUP",	 "SET_PARAMETER", "TEARDOWN", NULL,
	};

	c->proto = "rtsp";
	ps_txtproto_print(c, p, len, cmds, true);
}

void ps_sip_print(struct ps_print_ctx *c, const uint8_t *p, uint32_t len)
{
	static const char *const cmds[] = {
		"ACK",	    "BYE",    "CANCEL",	   "DO",     "INFO",	"INVITE",
		"MESSAGE",  "NOTIFY", "OPTIONS",   "PRACK",  "QAUTH",	"REFER",
		"REGISTER", "SPRACK", "SUBSCRIBE", "UPDATE", "PUBLISH", NULL,
	};

	c->proto = "sip";
	ps_txtproto_print(c, p, len, cmds, true);
}
