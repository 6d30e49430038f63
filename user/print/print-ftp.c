// SPDX-License-Identifier: GPL-2.0-only
/* FTP's control connection, SMTP and whois: each payload's first line
 * (tcpdump 4.99's print-ftp.c, print-smtp.c, print-whois.c). */
#include "print.h"

void ps_ftp_print(struct ps_print_ctx *c, const uint8_t *p, uint32_t len)
{
	c->proto = "ftp";
	ps_txtproto_print(c, p, len, NULL, false);
}

void ps_smtp_print(struct ps_print_ctx *c, const uint8_t *p, uint32_t len)
{
	c->proto = "smtp";
	ps_txtproto_print(c, p, len, NULL, false);
}

void ps_whois_print(struct ps_print_ctx *c, const uint8_t *p, uint32_t len)
{
	c->proto = "whois";
	ps_txtproto_print(c, p, len, NULL, false);
}
