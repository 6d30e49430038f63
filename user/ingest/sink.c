// SPDX-License-Identifier: GPL-2.0-only
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "hooks.h"
#include "sink.h"
#include "words.h"

struct ps_annot ps_annot_of(const struct ps_meta *m, const struct ps_who *who)
{
	/* Every field named, the struct without holes (test_annot fails on a
	 * byte no input reaches), ps_meta copied whole and nothing written
	 * over it after: a compare that followed narrow stores into what it
	 * reads wide would wait on each. */
	return (struct ps_annot){
		.k = *m,
		.pid = who ? who->pid : 0,
		.tid = who ? who->tid : 0,
		.proc = who ? who->proc : 0,
		.known = who && who->known,
		.pad = { 0 },
	};
}

/* The bytes ps_annot_same leaves out: ps_meta's fields that differ from
 * packet to packet and no word says. A new field of that kind goes here. */
#define AT(f) (offsetof(struct ps_annot, k) + offsetof(struct ps_meta, f))
#define SKIP(f) [AT(f)... AT(f) + sizeof(((struct ps_meta *)0)->f) - 1] = 0xff
static const union {
	uint8_t b[sizeof(struct ps_annot)];
	uint64_t w[sizeof(struct ps_annot) / 8];
} skip = { .b = {
		   SKIP(ts_ns),
		   SKIP(seq),
		   SKIP(ifindex),
		   SKIP(wire_len),
		   SKIP(cap_len),
		   SKIP(net_off),
		   SKIP(vlan_tci),
		   SKIP(vlan_proto),
		   SKIP(pool),
		   SKIP(chunk_off),
		   SKIP(pad1),
		   SKIP(pkt_id),
	   } };
_Static_assert(sizeof(struct ps_annot) % 8 == 0, "compared a word at a time");

bool ps_annot_skipped(size_t byte)
{
	return byte < sizeof(skip.b) && skip.b[byte];
}

bool ps_annot_same(const struct ps_annot *a, const struct ps_annot *b)
{
	uint64_t d = 0;

	/* A word at a time (memcpy: plain loads, no aliasing rule broken). */
	for (size_t i = 0; i < sizeof(skip.w) / sizeof(skip.w[0]); i++) {
		uint64_t x, y;

		memcpy(&x, (const char *)a + i * 8, 8);
		memcpy(&y, (const char *)b + i * 8, 8);
		d |= (x ^ y) & ~skip.w[i];
	}
	return !d;
}

int ps_sink_comment(char *buf, size_t len, const struct ps_sink_pkt *p, const char *tag,
		    enum ps_comment_for f)
{
	const struct ps_annot *a = &p->a;
	int n = 0;

	if (len)
		buf[0] = '\0';
	if (f == PS_COMMENT_LINE) {
		n = ps_word_put(buf, len, n, PS_WORD_HOOK, "%s", ps_hook_name(a->k.hook));
		n = ps_word_put(buf, len, n, PS_WORD_CPU, "%u", a->k.cpu);
		n = ps_word_put(buf, len, n, PS_WORD_QUEUE, "%u", a->k.rx_queue);
		/* A block's is its epb_packetid. */
		if (a->k.flags & PS_F_PATH)
			n = ps_word_put(buf, len, n, PS_WORD_ID, "%llu",
					(unsigned long long)p->packet_id);
	}
	if (tag && *tag && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, n ? " %s" : "%s", tag);
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
		int w = ps_who_format(p->who, buf + n + !!n, len - (size_t)n - !!n,
				      f == PS_COMMENT_LINE);

		if (w > 0 && n)
			buf[n++] = ' ';
		n += w;
	}
	if (p->note && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, n ? " %s" : "%s", p->note);
	return n;
}
