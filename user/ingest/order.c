// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "order.h"

#define QUEUE_MIN_SIZE (64u * 1024)

int ps_order_init(struct ps_order *o, int ncpus, size_t max_held)
{
	memset(o, 0, sizeof(*o));
	o->q = calloc(ncpus, sizeof(*o->q));
	o->heap = calloc(ncpus, sizeof(*o->heap));
	if (!o->q || !o->heap) {
		ps_order_free(o);
		return -ENOMEM;
	}
	o->nq = ncpus;
	o->max_held = max_held;
	o->pass_cpu = -1;
	return 0;
}

void ps_order_free(struct ps_order *o)
{
	for (int i = 0; o->q && i < o->nq; i++)
		free(o->q[i].buf);
	free(o->q);
	free(o->heap);
	memset(o, 0, sizeof(*o));
}

static struct ps_order_rec *head_of(const struct ps_order *o, int cpu)
{
	const struct ps_order_queue *q = &o->q[cpu];

	return (struct ps_order_rec *)(q->buf + q->head);
}

static uint64_t key(const struct ps_order *o, int i)
{
	return head_of(o, o->heap[i])->ts;
}

static void swap(struct ps_order *o, int a, int b)
{
	int t = o->heap[a];

	o->heap[a] = o->heap[b];
	o->heap[b] = t;
}

static void sift_up(struct ps_order *o, int i)
{
	while (i > 0 && key(o, (i - 1) / 2) > key(o, i)) {
		swap(o, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

static void sift_down(struct ps_order *o, int i)
{
	for (;;) {
		int l = 2 * i + 1, r = l + 1, m = i;

		if (l < o->nheap && key(o, l) < key(o, m))
			m = l;
		if (r < o->nheap && key(o, r) < key(o, m))
			m = r;
		if (m == i)
			return;
		swap(o, i, m);
		i = m;
	}
}

/* Room for need more bytes at the tail: compact, then grow. */
static int make_room(struct ps_order_queue *q, size_t need)
{
	size_t live = q->tail - q->head, size;
	uint8_t *nb;

	if (q->tail + need <= q->size)
		return 0;
	size = q->size ? q->size : QUEUE_MIN_SIZE;
	while (size < live + need)
		size *= 2;
	if (size == q->size) { /* it fits once compacted (head > 0 here) */
		memmove(q->buf, q->buf + q->head, live);
		q->head = 0;
		q->tail = live;
		return 0;
	}
	nb = malloc(size);
	if (!nb)
		return -ENOMEM;
	if (live)
		memcpy(nb, q->buf + q->head, live);
	free(q->buf);
	q->buf = nb;
	q->size = size;
	q->head = 0;
	q->tail = live;
	return 0;
}

struct ps_order_rec *ps_order_reserve(struct ps_order *o, int cpu, uint32_t len)
{
	size_t need = ps_order_rec_size(len);
	struct ps_order_queue *q = &o->q[cpu];
	struct ps_order_rec *r;

	if (o->held + need > o->max_held) {
		errno = ENOBUFS;
		return NULL;
	}
	if (make_room(q, need)) {
		errno = ENOMEM;
		return NULL;
	}
	r = (struct ps_order_rec *)(q->buf + q->tail);
	r->len = len;
	r->cpu = (uint32_t)cpu;
	return r;
}

void ps_order_commit(struct ps_order *o, struct ps_order_rec *r)
{
	struct ps_order_queue *q = &o->q[r->cpu];
	int was_empty = q->head == q->tail;

	q->tail += ps_order_rec_size(r->len);
	o->held += ps_order_rec_size(r->len);
	o->records++;
	if (o->held > o->peak_held)
		o->peak_held = o->held;
	if (r->ts > q->floor) {
		q->floor = r->ts;
		o->floors_gen++;
	}
	if (was_empty) {
		o->heap[o->nheap] = (int)r->cpu;
		sift_up(o, o->nheap++);
	}
}

void ps_order_settle(struct ps_order *o, int cpu, uint64_t t)
{
	if (t > o->q[cpu].floor) {
		o->q[cpu].floor = t;
		o->floors_gen++;
	}
}

bool ps_order_pass(struct ps_order *o, int cpu, uint64_t t)
{
	if (o->nheap)
		return false;
	/* Computed again only when a floor rose or the CPU changed: in a
	 * flood on one CPU, once a round. */
	if (o->pass_cpu != cpu || o->pass_gen != o->floors_gen) {
		uint64_t wm = UINT64_MAX;

		for (int i = 0; i < o->nq; i++)
			if (i != cpu && o->q[i].floor < wm)
				wm = o->q[i].floor;
		o->pass_wm = wm;
		o->pass_cpu = cpu;
		o->pass_gen = o->floors_gen;
	}
	if (t > o->pass_wm)
		return false;
	if (t < o->last_ts)
		o->late++;
	else
		o->last_ts = t;
	/* Its own floor: no other CPU's pass depends on it until then. */
	if (t > o->q[cpu].floor)
		o->q[cpu].floor = t;
	o->passed++;
	return true;
}

uint64_t ps_order_watermark(const struct ps_order *o)
{
	uint64_t wm = UINT64_MAX;

	for (int i = 0; i < o->nq; i++)
		if (o->q[i].floor < wm)
			wm = o->q[i].floor;
	return wm;
}

const struct ps_order_rec *ps_order_peek(const struct ps_order *o)
{
	return o->nheap ? head_of(o, o->heap[0]) : NULL;
}

const struct ps_order_rec *ps_order_head(const struct ps_order *o, int cpu)
{
	const struct ps_order_queue *q = &o->q[cpu];

	return q->head == q->tail ? NULL : head_of(o, cpu);
}

void ps_order_pop(struct ps_order *o)
{
	struct ps_order_queue *q;
	struct ps_order_rec *r;
	size_t size;

	if (!o->nheap)
		return;
	q = &o->q[o->heap[0]];
	r = head_of(o, o->heap[0]);
	size = ps_order_rec_size(r->len);
	if (r->ts < o->last_ts)
		o->late++;
	else
		o->last_ts = r->ts;
	q->head += size;
	o->held -= size;
	o->records--;
	if (q->head == q->tail) {
		q->head = q->tail = 0;
		o->heap[0] = o->heap[--o->nheap];
	}
	if (o->nheap)
		sift_down(o, 0);
}
