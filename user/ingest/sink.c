// SPDX-License-Identifier: GPL-2.0-only
#include <stdio.h>
#include "hooks.h"
#include "sink.h"
#include "words.h"

struct ps_annot ps_annot_of(const struct ps_meta *m, const struct ps_who *who)
{
	/* Every field named, the struct without holes (test_annot fails on a
	 * byte no input reaches): compared byte for byte, made in place. */
	return (struct ps_annot){
		.hook = m->hook,
		.flags = m->flags,
		.ctx = m->ctx,
		.known = who && who->known,
		.cpu = m->cpu,
		.queue = m->rx_queue,
		.verdict = m->verdict,
		.pid = who ? who->pid : 0,
		.tid = who ? who->tid : 0,
		.proc = who ? who->proc : 0,
		.pad = 0,
		.location = m->location,
		.cookie = m->sock_cookie,
		.cgroup = m->cgroup_id,
	};
}

int ps_sink_comment(char *buf, size_t len, const struct ps_sink_pkt *p, const char *tag,
		    enum ps_comment_for f)
{
	const struct ps_annot *a = &p->a;
	int n = 0;

	if (len)
		buf[0] = '\0';
	if (f == PS_COMMENT_LINE)
		n = ps_word_put(buf, len, n, PS_WORD_HOOK, "%s", ps_hook_name(a->hook));
	n = ps_word_put(buf, len, n, PS_WORD_CPU, "%u", a->cpu);
	if (f == PS_COMMENT_LINE)
		n = ps_word_put(buf, len, n, PS_WORD_QUEUE, "%u", a->queue);
	if (tag && *tag && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, " %s", tag);
	if (a->flags & PS_F_CLOCK_FALLBACK)
		n = ps_word_put(buf, len, n, PS_WORD_CLOCK, "fallback");
	/* What the traced XDP program did: shown by every Wireshark, and
	 * read back by -r. */
	if (a->hook == PS_HOOK_XDP_EXIT)
		n = ps_word_put(buf, len, n, PS_WORD_VERDICT, "%s",
				ps_xdp_verdict_name(a->verdict));
	/* Why the kernel dropped it and where: read back by -r. */
	if (p->drop) {
		n = ps_word_put(buf, len, n, PS_WORD_DROP, "%s", p->drop->reason);
		n = ps_word_put(buf, len, n, PS_WORD_AT, "%s", p->drop->at);
	}
	if (p->who && p->who->ctx != PS_CTX_OFF && n >= 0 && (size_t)n + 1 < len) {
		buf[n++] = ' ';
		n += ps_who_format(p->who, buf + n, len - (size_t)n);
	}
	if (p->note && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, " %s", p->note);
	return n;
}
