// SPDX-License-Identifier: GPL-2.0-only
/* Syslog (RFC 3164), as tcpdump 4.99's print-syslog.c prints it without
 * -v: facility, severity and the length. */
#include "print.h"

void ps_syslog_print(struct ps_print_ctx *c, const uint8_t *p, uint32_t len)
{
	static const char *const severities[] = {
		"emergency", "alert", "critical", "error", "warning", "notice", "info", "debug",
	};
	static const char *const facilities[] = {
		"kernel", "user",   "mail",	"daemon", "auth",   "syslog",	"lpr",	   "news",
		"uucp",	  "cron",   "authpriv", "ftp",	  "ntp",    "security", "console", "cron",
		"local0", "local1", "local2",	"local3", "local4", "local5",	"local6",  "local7",
	};
	unsigned int off = 1, pri = 0, facility;

	c->proto = "syslog";
	if (!need(c, p, 1))
		return;
	if (p[0] != '<') {
		ps_put(c, " (invalid)");
		return;
	}
	for (; off <= 3; off++) {
		if (!need(c, p + off, 1))
			return;
		if (p[off] < '0' || p[off] > '9')
			break;
		pri = pri * 10 + (p[off] - '0');
	}
	if (!need(c, p + off, 1))
		return;
	if (p[off] != '>') {
		ps_put(c, " (invalid)");
		return;
	}
	facility = (pri & 0x3f8) >> 3;
	if (facility < sizeof(facilities) / sizeof(facilities[0]))
		ps_put(c, "SYSLOG %s", facilities[facility]);
	else
		ps_put(c, "SYSLOG unknown (%u)", facility);
	ps_put(c, ".%s, length: %u", severities[pri & 7], len);
}
