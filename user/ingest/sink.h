/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Where placed packets go: the one interface every output of a capture
 * implements (the capture file, the printed lines, sFlow; later outputs
 * the same way). The ingest hands each packet, in time order, to every
 * sink the capture registered, in that order, and knows none by name.
 *
 *   packet: one packet; an error ends the capture (the sink keeps it);
 *           its bytes (and m) stay valid until the sink's round returns,
 *           not longer: they are the kernel's buffer, given back then;
 *   round:  the ingest's round ended: what was given leaves now;
 *   close:  the capture ended (ok: without an error): the last of it.
 *
 * A sink embeds struct ps_sink and finds itself with ps_sink_of().
 */
#ifndef PS_SINK_H
#define PS_SINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "pktsample.h"
#include "target.h"
#include "who.h"

/* A dropped packet's reason and where the kernel freed it, in words. */
struct ps_drop_words {
	const char *reason; /* "NO_SOCKET" */
	char at[128];	    /* "__udp4_lib_rcv+0x6f2" */
	char buf[32];	    /* a reason the kernel's BTF does not name */
};

/*
 * What a packet's words and its pcapng options say of it, but its id and
 * drop count: plain data, made by ps_annot_of alone and compared whole (a
 * capture file encodes a CPU's options once for the packets that follow
 * with the same annotation, ps_annot_same). The kernel's part is the
 * packet's ps_meta, copied whole; the compare leaves out what differs from
 * packet to packet and no word says: a field added to ps_meta is part of
 * it, compared and cached, with no edit here; said by ps_sink_comment or
 * the file's options. tests/unit/test_annot.c fails on a byte no input
 * reaches.
 */
struct ps_annot {
	struct ps_meta k;
	uint32_t pid, tid, proc; /* the owner's (ps_who); 0 without one */
	bool known;		 /* the owner's process is known */
	uint8_t pad[3];		 /* explicit: test_annot checks every other byte */
};

/* One packet as every sink gets it: made whole, once, by the ingest
 * (ingest.c, write_ref). */
struct ps_sink_pkt {
	int target; /* its index in the capture's targets */
	const struct ps_target *t;
	const struct ps_meta *m; /* what the kernel said about it */
	struct ps_annot a;	 /* ps_annot_of(m, who) */
	uint64_t ts_ns;		 /* wall clock */
	const uint8_t *data;	 /* the frame as on the wire (VLAN tag back) */
	uint32_t cap_len, wire_len;
	/* CPU << 48 | that CPU's sequence: the record's, or where the kernel
	 * follows the packet (PS_F_PATH) its first record's */
	uint64_t packet_id;
	uint64_t drops;			  /* lost on that CPU since its last packet */
	const struct ps_who *who;	  /* whom it belongs to; NULL: attribution off */
	const struct ps_drop_words *drop; /* drop hooks: why; NULL elsewhere */
	/* words of this packet alone ("trigger=...", "prev=... after=..."); NULL */
	const char *note;
};

/* The annotation of a packet the kernel described as m, owned by who (or
 * NULL). Pure. */
struct ps_annot ps_annot_of(const struct ps_meta *m, const struct ps_who *who);
/* Do a and b say the same, every byte compared but those of ps_meta's
 * fields that differ from packet to packet and no word says? */
bool ps_annot_same(const struct ps_annot *a, const struct ps_annot *b);
/* Is byte (an offset in struct ps_annot) one ps_annot_same leaves out? */
bool ps_annot_skipped(size_t byte);

struct ps_sink;

struct ps_sink_ops {
	int (*packet)(struct ps_sink *s, const struct ps_sink_pkt *p);
	int (*round)(struct ps_sink *s);
	int (*close)(struct ps_sink *s, bool ok);
};

struct ps_sink {
	const struct ps_sink_ops *ops;
};

#define ps_sink_of(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))

/* Which words: all (a printed line), or those a pcapng block does not
 * already carry: its interface (IDB) names the hook and the direction, its
 * epb_queue the queue, its epb_packetid the CPU (the id's top 16 bits),
 * so a block's comment leaves them out; and a block says nothing of an
 * owner that is not known (the summary and --stats count those, by why:
 * ps_who_why), so that a packet with nothing to add has no comment. */
enum ps_comment_for {
	PS_COMMENT_LINE,
	PS_COMMENT_BLOCK,
};

/*
 * The words every output shows for a packet (the pcapng comment, -v's
 * annotation; words.h spells their keys): hook, CPU, queue, the sampling
 * tag, the clock's fallback, an xdp-exit's verdict, a drop's reason and
 * place, and whom it belongs to, from p->a and the words of p->who and
 * p->drop, then the packet's own note (p->who, p->drop and p->note may be
 * NULL). Returns what snprintf returns.
 */
int ps_sink_comment(char *buf, size_t len, const struct ps_sink_pkt *p, const char *tag,
		    enum ps_comment_for f);

#endif
