// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "flightbuf.h"

/* A record's header; its packed words and the packet's bytes follow. */
struct rec {
	uint32_t len; /* the whole record, a multiple of 8 */
	int32_t target;
	uint32_t cap_len, wire_len;
	uint64_t ts_ns, packet_id, drops;
	struct ps_meta m;
	uint16_t who_len;  /* the packed owner; 0: none (attribution off) */
	uint16_t drop_len; /* the packed drop words; 0: not a drop */
	uint8_t who_ctx, who_known;
	uint8_t pad[2];
	uint32_t who_pid, who_tid, who_proc;
	uint8_t pad2[4];
};
_Static_assert(sizeof(struct rec) % 8 == 0, "records stay 8-byte aligned");

#define ALIGN8(n) (((n) + 7) & ~(size_t)7)

/* The owner's four strings, each with its NUL. */
static size_t who_packed(const struct ps_who *w)
{
	return strlen(w->comm) + strlen(w->container) + strlen(w->cgroup) + strlen(w->netns) + 4;
}

static size_t drop_packed(const struct ps_drop_words *d)
{
	return strlen(d->reason) + strlen(d->at) + 2;
}

/* The bytes a record of p takes (its header, packed words, bytes). */
static size_t record_size(const struct ps_sink_pkt *p)
{
	return ALIGN8(sizeof(struct rec) + (p->who ? who_packed(p->who) : 0) +
		      (p->drop ? drop_packed(p->drop) : 0) + p->cap_len);
}

int ps_flightbuf_init(struct ps_flightbuf *b, size_t size)
{
	*b = (struct ps_flightbuf){ .size = size < 4096 ? 4096 : size & ~(size_t)7 };
	/* Large: malloc maps it, and a page costs memory once a record is
	 * written there. */
	b->buf = malloc(b->size);
	return b->buf ? 0 : -ENOMEM;
}

void ps_flightbuf_free(struct ps_flightbuf *b)
{
	free(b->buf);
	*b = (struct ps_flightbuf){ 0 };
}

static struct rec *oldest(const struct ps_flightbuf *b)
{
	return b->count ? (struct rec *)(b->buf + b->tail) : NULL;
}

void ps_flightbuf_pop(struct ps_flightbuf *b)
{
	struct rec *r = oldest(b);

	if (!r)
		return;
	b->tail += r->len;
	b->bytes -= r->len;
	b->count--;
	if (b->wrapped && b->tail == b->wrap_at) {
		b->tail = 0;
		b->wrapped = false;
	}
	if (!b->count)
		b->head = b->tail = 0, b->wrapped = false;
}

/* Where a record of n bytes can go now, or NULL. */
static uint8_t *room_for(struct ps_flightbuf *b, size_t n)
{
	if (!b->count)
		b->head = b->tail = 0, b->wrapped = false;
	if (b->wrapped)
		return b->tail - b->head >= n ? b->buf + b->head : NULL;
	if (b->size - b->head >= n)
		return b->buf + b->head;
	/* Not at the end: from the beginning, up to the oldest. */
	if (b->tail >= n) {
		b->wrap_at = b->head;
		b->wrapped = true;
		b->head = 0;
		return b->buf;
	}
	return NULL;
}

static char *put_str(char *at, const char *s)
{
	size_t n = strlen(s) + 1;

	memcpy(at, s, n);
	return at + n;
}

int ps_flightbuf_push(struct ps_flightbuf *b, const struct ps_sink_pkt *p)
{
	size_t n = record_size(p);
	struct rec *r;
	char *at;

	if (n > b->size) {
		b->too_big++;
		return -E2BIG;
	}
	while (!(r = (struct rec *)room_for(b, n))) {
		ps_flightbuf_pop(b);
		b->evicted++;
	}
	*r = (struct rec){
		.len = (uint32_t)n,
		.target = p->target,
		.cap_len = p->cap_len,
		.wire_len = p->wire_len,
		.ts_ns = p->ts_ns,
		.packet_id = p->packet_id,
		.drops = p->drops,
		.m = *p->m,
	};
	at = (char *)(r + 1);
	if (p->who) {
		const struct ps_who *w = p->who;

		r->who_len = (uint16_t)who_packed(w);
		r->who_ctx = w->ctx;
		r->who_known = w->known;
		r->who_pid = w->pid;
		r->who_tid = w->tid;
		r->who_proc = w->proc;
		at = put_str(put_str(put_str(put_str(at, w->comm), w->container), w->cgroup),
			     w->netns);
	}
	if (p->drop) {
		r->drop_len = (uint16_t)drop_packed(p->drop);
		at = put_str(put_str(at, p->drop->reason), p->drop->at);
	}
	memcpy(at, p->data, p->cap_len);
	b->head += n;
	b->bytes += n;
	b->count++;
	return 0;
}

/* Copy the string at *at into dst (len bytes), and step past it. */
static void get_str(const char **at, char *dst, size_t len)
{
	size_t n = strlen(*at);

	snprintf(dst, len, "%s", *at);
	*at += n + 1;
}

static void read_rec(const struct rec *r, struct ps_flight_view *v)
{
	const char *at;

	v->m = r->m;
	v->pkt = (struct ps_sink_pkt){
		.target = r->target,
		.m = &v->m,
		.ts_ns = r->ts_ns,
		.cap_len = r->cap_len,
		.wire_len = r->wire_len,
		.packet_id = r->packet_id,
		.drops = r->drops,
	};
	at = (const char *)(r + 1);
	if (r->who_len) {
		v->who = (struct ps_who){
			.ctx = r->who_ctx,
			.known = r->who_known,
			.pid = r->who_pid,
			.tid = r->who_tid,
			.proc = r->who_proc,
		};
		get_str(&at, v->who.comm, sizeof(v->who.comm));
		get_str(&at, v->who.container, sizeof(v->who.container));
		get_str(&at, v->who.cgroup, sizeof(v->who.cgroup));
		get_str(&at, v->who.netns, sizeof(v->who.netns));
		v->pkt.who = &v->who;
	}
	if (r->drop_len) {
		/* The reason stays in the record: no copy, no length limit. */
		v->drop.reason = at;
		at += strlen(at) + 1;
		get_str(&at, v->drop.at, sizeof(v->drop.at));
		v->pkt.drop = &v->drop;
	}
	v->pkt.data = (const uint8_t *)at;
	v->pkt.a = ps_annot_of(&v->m, v->pkt.who);
}

void ps_flightbuf_begin(const struct ps_flightbuf *b, struct ps_flightbuf_it *it)
{
	*it = (struct ps_flightbuf_it){ .off = b->tail, .wrapped = b->wrapped, .left = b->count };
}

bool ps_flightbuf_next(const struct ps_flightbuf *b, struct ps_flightbuf_it *it,
		       struct ps_flight_view *v)
{
	const struct rec *r;

	if (!it->left)
		return false;
	r = (const struct rec *)(b->buf + it->off);
	read_rec(r, v);
	it->off += r->len;
	it->left--;
	if (it->wrapped && it->off == b->wrap_at) {
		it->off = 0;
		it->wrapped = false;
	}
	return true;
}

uint64_t ps_flightbuf_expire(struct ps_flightbuf *b, uint64_t ts_ns)
{
	uint64_t n = 0;
	const struct rec *r;

	while ((r = oldest(b)) && r->ts_ns < ts_ns) {
		ps_flightbuf_pop(b);
		n++;
	}
	return n;
}
