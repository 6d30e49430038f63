// SPDX-License-Identifier: GPL-2.0-only
/*
 * Text protocols (HTTP, RTSP, SIP, FTP, SMTP, whois) as tcpdump 4.99's
 * txtproto_print() prints them without -v: the protocol's name and, when
 * the payload starts with a request or response line, that line.
 */
#include <strings.h>
#include "print.h"

#define MAX_TOKEN 128

/* tcpdump's fetch_token(): the token at idx into tok, and where the next
 * begins; 0 when there is none, it is not text, or it was not captured. */
static uint32_t fetch_token(const struct ps_print_ctx *c, const uint8_t *p, uint32_t idx,
			    uint32_t len, char *tok, size_t size)
{
	size_t n = 0;

	for (; idx < len; idx++) {
		uint8_t ch;

		if (!have(c, p + idx, 1))
			return 0;
		ch = p[idx];
		if (ch >= 0x80)
			return 0;
		if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n')
			break;
		if (!ps_isprint(ch) || n + 2 > size)
			return 0;
		tok[n++] = (char)ch;
	}
	if (!n)
		return 0;
	tok[n] = 0;
	/* Past the blanks after it, up to the line's end. */
	for (; idx < len && have(c, p + idx, 1); idx++) {
		uint8_t ch = p[idx];

		if (ch == '\r' || ch == '\n' || !ps_isprint(ch) || (ch != ' ' && ch != '\t'))
			break;
	}
	return idx;
}

/* tcpdump's print_txt_line(): the first line, if it is text. */
static void first_line(struct ps_print_ctx *c, const uint8_t *p, uint32_t len)
{
	uint32_t end;
	enum ps_line l = ps_text_line(c, p, 0, len, true, &end);

	if (l == PS_LINE_NONE)
		return;
	ps_put(c, ": %.*s", (int)end, (const char *)p);
	if (l == PS_LINE_OPEN)
		local_trunc(c); /* text to the end, without a line end */
}

void ps_txtproto_print(struct ps_print_ctx *c, const uint8_t *p, uint32_t len,
		       const char *const *cmds, bool resp_code_second)
{
	bool print_this = !cmds;
	char tok[MAX_TOKEN + 1];

	if (cmds) {
		uint32_t idx = fetch_token(c, p, 0, len, tok, sizeof(tok));

		if (idx) {
			for (; *cmds; cmds++)
				if (!strcasecmp(tok, *cmds)) {
					print_this = true;
					break;
				}
			if (resp_code_second)
				idx = fetch_token(c, p, idx, len, tok, sizeof(tok));
			if (idx && tok[0] >= '0' && tok[0] <= '9' && tok[1] >= '0' &&
			    tok[1] <= '9' && tok[2] >= '0' && tok[2] <= '9' && !tok[3])
				print_this = true;
		}
	}
	for (const char *s = c->proto; *s; s++)
		ps_put(c, "%c", *s >= 'a' && *s <= 'z' ? *s - 32 : *s);
	if (print_this)
		first_line(c, p, len);
}
