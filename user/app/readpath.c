// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pathseen.h"
#include "readpath.h"
#include "words.h"

#define BUCKETS 4096	       /* a power of two */
#define QUIET_NS 1000000000ull /* bpf/path.bpf.h: PS_PATH_STALE_NS */

struct rp_pkt {
	struct rp_pkt *next;  /* the next packet by first record */
	struct rp_pkt *chain; /* the next in its bucket */
	uint64_t id, first_ns, last_ns, drops;
	bool has_id, has_drops, ended;
	int linktype;
	uint32_t cap_len, wire_len;
	int path_len;
	char path[512];	   /* "tc-ingress@paA +23.482us tc-egress@paB" */
	char verdict[48];  /* a drop's reason, once one ended it */
	char comment[256]; /* the first record's */
	uint8_t data[];	   /* the first record's bytes */
};

struct ps_readpath {
	struct ps_printer *pr;
	uint64_t printed, limit;
	size_t held;
	struct rp_pkt *head, **tail;
	struct rp_pkt *bucket[BUCKETS];
};

struct ps_readpath *ps_readpath_new(struct ps_printer *pr, uint64_t limit)
{
	struct ps_readpath *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->pr = pr;
	p->limit = limit;
	p->tail = &p->head;
	return p;
}

static struct rp_pkt **bucket_of(struct ps_readpath *p, uint64_t id)
{
	return &p->bucket[ps_packet_id_hash(id) & (BUCKETS - 1)];
}

/* Where rec was written, after the time since the packet's last place (as
 * far as the line has room); a drop ends it. */
static void add_place(struct rp_pkt *k, const struct ps_capread_rec *rec)
{
	const struct ps_capread_if *i = rec->iface;
	size_t room = sizeof(k->path) - (size_t)k->path_len;
	int n = 0;

	if (room > 1) {
		if (k->path_len) {
			uint64_t d = rec->ts_ns > k->last_ns ? rec->ts_ns - k->last_ns : 0;

			n = snprintf(k->path + k->path_len, room, " +%llu.%03lluus ",
				     (unsigned long long)(d / 1000),
				     (unsigned long long)(d % 1000));
		}
		if (n >= 0 && (size_t)n < room)
			n += snprintf(k->path + k->path_len + n, room - (size_t)n, "%s%s%s",
				      i->hook ? i->hook : "", i->hook && i->name[0] ? "@" : "",
				      i->name);
		k->path_len = n < 0 || (size_t)n >= room ? (int)sizeof(k->path) - 1 :
							   k->path_len + n;
	}
	k->last_ns = rec->ts_ns;
	if (ps_word_get(rec->comment, PS_WORD_DROP, k->verdict, sizeof(k->verdict)))
		k->ended = true; /* freed: the programs follow it no further */
}

static void unchain(struct ps_readpath *p, struct rp_pkt *k)
{
	for (struct rp_pkt **at = bucket_of(p, k->id); *at; at = &(*at)->chain)
		if (*at == k) {
			*at = k->chain;
			return;
		}
}

/* Print and forget the first packet. 0, 1 at the limit, or -errno. */
static int print_head(struct ps_readpath *p)
{
	struct rp_pkt *k = p->head;
	int err;

	p->head = k->next;
	if (!p->head)
		p->tail = &p->head;
	p->held--;
	if (k->has_id)
		unchain(p, k);
	err = p->limit && p->printed >= p->limit ?
		      0 :
		      ps_print_packet(p->pr,
				      &(struct ps_print_pkt){
					      .ts_ns = k->first_ns,
					      .linktype = k->linktype,
					      .data = k->data,
					      .cap_len = k->cap_len,
					      .wire_len = k->wire_len,
					      .hook = k->path[0] ? k->path : NULL,
					      .verdict = k->ended && k->verdict[0] ? k->verdict :
										     NULL,
					      .comment = k->comment[0] ? k->comment : NULL,
					      .has_id = k->has_id,
					      .id = k->id,
					      .has_drops = k->has_drops,
					      .drops = k->drops,
				      });
	free(k);
	if (err)
		return err;
	return p->limit && ++p->printed >= p->limit ? 1 : 0;
}

/* Print the packets done by now (the file's time), all at the end. */
static int release(struct ps_readpath *p, uint64_t now, bool all)
{
	while (p->head) {
		struct rp_pkt *k = p->head;
		int ret;

		if (!all && !k->ended && p->held <= PS_READPATH_HELD &&
		    (now < k->last_ns || now - k->last_ns <= QUIET_NS))
			return 0;
		ret = print_head(p);
		if (ret)
			return ret;
	}
	return 0;
}

int ps_readpath_add(struct ps_readpath *p, const struct ps_capread_rec *rec)
{
	struct rp_pkt *k = NULL;

	if (rec->has_id)
		for (k = *bucket_of(p, rec->id); k && (k->id != rec->id || k->ended); k = k->chain)
			;
	if (!k) {
		k = calloc(1, sizeof(*k) + rec->cap_len);
		if (!k)
			return -ENOMEM;
		*k = (struct rp_pkt){
			.id = rec->id,
			.first_ns = rec->ts_ns,
			.drops = rec->drops,
			.has_id = rec->has_id,
			.has_drops = rec->has_drops,
			.ended = !rec->has_id,
			.linktype = rec->iface->linktype,
			.cap_len = rec->cap_len,
			.wire_len = rec->wire_len,
		};
		memcpy(k->data, rec->data, rec->cap_len);
		snprintf(k->comment, sizeof(k->comment), "%s", rec->comment);
		if (k->has_id) {
			k->chain = *bucket_of(p, k->id);
			*bucket_of(p, k->id) = k;
		}
		*p->tail = k;
		p->tail = &k->next;
		p->held++;
	}
	add_place(k, rec);
	return release(p, rec->ts_ns, false);
}

int ps_readpath_finish(struct ps_readpath *p)
{
	return release(p, 0, true);
}

void ps_readpath_free(struct ps_readpath *p)
{
	if (!p)
		return;
	while (p->head) {
		struct rp_pkt *k = p->head;

		p->head = k->next;
		free(k);
	}
	free(p);
}
