// SPDX-License-Identifier: GPL-2.0-only
#include <stdio.h>
#include "hooks.h"
#include "sink.h"

int ps_sink_comment(char *buf, size_t len, const struct ps_sink_pkt *p, const char *tag,
		    enum ps_comment_for f)
{
	const struct ps_meta *m = p->m;
	const struct ps_who *who = p->who;
	int n = f == PS_COMMENT_BLOCK ? snprintf(buf, len, "cpu=%u", m->cpu) :
					snprintf(buf, len, "hook=%s cpu=%u queue=%u",
						 ps_hook_name(m->hook), m->cpu, m->rx_queue);

	if (n > 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, "%s%s%s", tag && *tag ? " " : "",
			      tag ? tag : "",
			      m->flags & PS_F_CLOCK_FALLBACK ? " clock=fallback" : "");

	/* What the traced XDP program did: shown by every Wireshark, and
	 * read back by -r. */
	if (m->hook == PS_HOOK_XDP_EXIT && n > 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, " verdict=%s",
			      ps_xdp_verdict_name(m->verdict));
	/* Why the kernel dropped it and where: read back by -r. */
	if (p->drop && n > 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, " drop=%s at=%s", p->drop->reason,
			      p->drop->at);
	if (who && who->ctx != PS_CTX_OFF && n > 0 && (size_t)n + 1 < len) {
		buf[n++] = ' ';
		n += ps_who_format(who, buf + n, len - (size_t)n);
	}
	if (p->note && n > 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, " %s", p->note);
	return n;
}
