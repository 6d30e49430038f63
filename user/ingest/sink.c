// SPDX-License-Identifier: GPL-2.0-only
#include <stdio.h>
#include <string.h>
#include "hooks.h"
#include "sink.h"
#include "words.h"

struct ps_annot ps_annot_of(const struct ps_meta *m, const struct ps_who *who)
{
	/* Every field named, the struct without holes (test_annot fails on a
	 * byte no input reaches): compared byte for byte, made in place. */
	struct ps_annot a = {
		.k = *m,
		.pid = who ? who->pid : 0,
		.tid = who ? who->tid : 0,
		.proc = who ? who->proc : 0,
		.known = who && who->known,
		.pad = { 0 },
	};

	/* What differs from packet to packet and no word or option of the
	 * annotation says: out of the key, or no two packets would share
	 * one. A new field of that kind is cleared here too. */
	a.k.ts_ns = 0;
	a.k.seq = 0;
	a.k.ifindex = 0;
	a.k.wire_len = 0;
	a.k.cap_len = 0;
	a.k.net_off = 0;
	a.k.vlan_tci = 0;
	a.k.vlan_proto = 0;
	a.k.pool = 0;
	a.k.chunk_off = 0;
	memset(a.k.pad1, 0, sizeof(a.k.pad1));
	return a;
}

int ps_sink_comment(char *buf, size_t len, const struct ps_sink_pkt *p, const char *tag,
		    enum ps_comment_for f)
{
	const struct ps_annot *a = &p->a;
	int n = 0;

	if (len)
		buf[0] = '\0';
	if (f == PS_COMMENT_LINE)
		n = ps_word_put(buf, len, n, PS_WORD_HOOK, "%s", ps_hook_name(a->k.hook));
	n = ps_word_put(buf, len, n, PS_WORD_CPU, "%u", a->k.cpu);
	if (f == PS_COMMENT_LINE)
		n = ps_word_put(buf, len, n, PS_WORD_QUEUE, "%u", a->k.rx_queue);
	if (tag && *tag && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, " %s", tag);
	if (a->k.flags & PS_F_CLOCK_FALLBACK)
		n = ps_word_put(buf, len, n, PS_WORD_CLOCK, "fallback");
	/* What the traced XDP program did: shown by every Wireshark, and
	 * read back by -r. */
	if (a->k.hook == PS_HOOK_XDP_EXIT)
		n = ps_word_put(buf, len, n, PS_WORD_VERDICT, "%s",
				ps_xdp_verdict_name(a->k.verdict));
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
