// SPDX-License-Identifier: GPL-2.0-only
/* Reader threads and their mailboxes (-j N); see reader.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include "ingest.h"
#include "log.h"
#include "reader.h"

/* Entries per CPU's mailbox: about a quarter of a default buffer of
 * 1500-byte packets. A full one makes its reader wait; the kernel's buffer
 * then takes the burst, and counts what it cannot. */
#define MAILBOX_SLOTS 4096u
/* A reader wakes at least this often, to settle its quiet CPUs. */
#define READER_IDLE_MS 100
/* The last rounds wait at most this long for samples still in flight. */
#define READER_DRAIN_NS 10000000ull

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void kick(int fd)
{
	uint64_t one = 1;

	(void)!write(fd, &one, sizeof(one));
}

bool ps_mailbox_put(struct ps_ingest *c, const struct ps_mail *m)
{
	struct ps_mailbox *b = &c->mail[m->ref.m.cpu];
	uint64_t tail = b->tail;

	if (tail - __atomic_load_n(&b->head, __ATOMIC_ACQUIRE) > b->mask)
		kick(c->wake_fd); /* full: the merge must run */
	while (tail - __atomic_load_n(&b->head, __ATOMIC_ACQUIRE) > b->mask) {
		if (__atomic_load_n(&c->done, __ATOMIC_RELAXED)) {
			free(m->ref.owned);
			return false;
		}
		usleep(20); /* not a spin: on two cores it took the merge's CPU */
	}
	b->slot[tail & b->mask] = *m;
	__atomic_store_n(&b->tail, tail + 1, __ATOMIC_RELEASE);
	return true;
}

void ps_readers_collect(struct ps_ingest *c)
{
	uint64_t v;

	if (c->wake_fd >= 0)
		(void)!read(c->wake_fd, &v, sizeof(v));
	for (int cpu = 0; cpu < c->ncpus; cpu++) {
		struct ps_mailbox *b = &c->mail[cpu];
		uint64_t head = b->head, tail = __atomic_load_n(&b->tail, __ATOMIC_ACQUIRE);

		for (; head < tail; head++) {
			const struct ps_mail *m = &b->slot[head & b->mask];

			if (m->kind == PS_MAIL_MARK) {
				if (m->settle)
					ps_order_settle(&c->order, cpu, m->settle);
				c->src_seen[m->src] = m->read;
			} else if (c->done) {
				free(m->ref.owned);
			} else {
				ps_ingest_commit(c, &m->ref, m->drops);
			}
		}
		__atomic_store_n(&b->head, head, __ATOMIC_RELEASE);
	}
}

/* Rounds until none of r's buffers had more than a round reads. */
static void reader_rounds(struct ps_reader *r, bool *in_flight)
{
	do {
		r->more = false;
		ps_reader_round(r, in_flight);
		kick(r->c->wake_fd);
	} while (r->more && !__atomic_load_n(&r->c->done, __ATOMIC_RELAXED));
}

void ps_readers_poke(struct ps_ingest *c)
{
	/* At most once per 100 us: a round a reader runs sooner settles no
	 * more, and each costs it a map read. */
	uint64_t now = mono_ns();

	if (now - c->last_poke_ns < 100000)
		return;
	c->last_poke_ns = now;
	for (int k = 0; k < c->n_readers; k++)
		kick(c->readers[k].poke_fd);
}

static void *reader_main(void *arg)
{
	struct ps_reader *r = arg;
	struct epoll_event ev[16];
	uint64_t until, v;
	bool in_flight, stop = false;

	while (!stop) {
		int n;

		reader_rounds(r, &in_flight);
		n = epoll_wait(r->epoll_fd, ev, 16, READER_IDLE_MS);
		for (int i = 0; i < n; i++) {
			if (ev[i].data.fd == r->c->stop_fd)
				stop = true;
			else if (ev[i].data.fd == r->poke_fd)
				(void)!read(r->poke_fd, &v, sizeof(v));
		}
	}
	reader_rounds(r, &in_flight);
	/* The hooks are detached; a program that started before may still be
	 * between its timestamp and its output. */
	until = mono_ns() + READER_DRAIN_NS;
	while (in_flight && mono_ns() < until) {
		usleep(1000);
		reader_rounds(r, &in_flight);
	}
	__atomic_store_n(&r->finished, 1, __ATOMIC_RELEASE);
	kick(r->c->wake_fd);
	return NULL;
}

int ps_ingest_default_threads(int buffer_cpus, int cores)
{
	int n = buffer_cpus / 8, most = cores / 2;

	if (n > most)
		n = most;
	return n < 1 ? 1 : n;
}

static int readers_alloc(struct ps_ingest *c, int n)
{
	c->mail = calloc(c->ncpus, sizeof(*c->mail));
	c->readers = calloc(n, sizeof(*c->readers));
	c->n_readers_alloc = c->readers ? n : 0;
	c->src_seen = calloc(c->n_src, sizeof(*c->src_seen));
	if (!c->mail || !c->readers || !c->src_seen)
		return -ENOMEM;
	for (int cpu = 0; cpu < c->ncpus; cpu++) {
		c->mail[cpu].slot = calloc(MAILBOX_SLOTS, sizeof(struct ps_mail));
		if (!c->mail[cpu].slot)
			return -ENOMEM;
		c->mail[cpu].mask = MAILBOX_SLOTS - 1;
	}
	for (int i = 0; i < c->n_src; i++)
		c->src_seen[i] = c->src[i].read;
	for (int k = 0; k < n; k++) {
		struct ps_reader *r = &c->readers[k];

		r->c = c;
		r->threaded = true;
		r->epoll_fd = -1;
		r->poke_fd = -1;
		r->srcs = calloc(c->n_src, sizeof(*r->srcs));
		r->emit = calloc(c->ncpus, sizeof(*r->emit));
		r->cpu_read = calloc(c->ncpus, sizeof(*r->cpu_read));
		if (!r->srcs || !r->emit || !r->cpu_read)
			return -ENOMEM;
	}
	return 0;
}

/* Reader k's epoll: its sources (CPU i goes to reader i mod n) and the stop. */
static int reader_watch(struct ps_ingest *c, struct ps_reader *r, int k, int n)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = c->stop_fd };

	r->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	r->poke_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (r->epoll_fd < 0 || r->poke_fd < 0 ||
	    epoll_ctl(r->epoll_fd, EPOLL_CTL_ADD, c->stop_fd, &ev))
		return -errno;
	ev.data.fd = r->poke_fd;
	if (epoll_ctl(r->epoll_fd, EPOLL_CTL_ADD, r->poke_fd, &ev))
		return -errno;
	for (int i = k; i < c->n_src; i += n) {
		ev.data.fd = c->src[i].fd;
		if (c->src[i].fd >= 0 &&
		    (epoll_ctl(c->epoll_fd, EPOLL_CTL_DEL, c->src[i].fd, NULL) ||
		     epoll_ctl(r->epoll_fd, EPOLL_CTL_ADD, c->src[i].fd, &ev)))
			return -errno;
		r->srcs[r->n_srcs++] = i;
	}
	return 0;
}

int ps_readers_start(struct ps_ingest *c, int n)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int err;

	c->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	c->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (c->wake_fd < 0 || c->stop_fd < 0) {
		err = -errno;
		goto fail;
	}
	err = readers_alloc(c, n);
	for (int k = 0; !err && k < n; k++)
		err = reader_watch(c, &c->readers[k], k, n);
	ev.data.fd = c->wake_fd;
	if (!err && epoll_ctl(c->epoll_fd, EPOLL_CTL_ADD, c->wake_fd, &ev))
		err = -errno;
	if (err)
		goto fail;
	for (int k = 0; k < n; k++) {
		err = -pthread_create(&c->readers[k].thread, NULL, reader_main, &c->readers[k]);
		if (err)
			goto fail;
		c->n_readers++;
	}
	pr_info("%d reader threads, %d perf buffers each at most\n", n, (c->n_src + n - 1) / n);
	return 0;
fail:
	pr_err("cannot start %d reader threads: %s\n", n, strerror(-err));
	return err;
}

int ps_readers_drain(struct ps_ingest *c, bool *in_flight)
{
	int finished;

	*in_flight = false;
	kick(c->stop_fd);
	/* The merge takes what the readers hand on while they finish: a full
	 * mailbox would keep its reader waiting. */
	do {
		finished = 0;
		for (int k = 0; k < c->n_readers; k++)
			finished += __atomic_load_n(&c->readers[k].finished, __ATOMIC_ACQUIRE);
		ps_readers_collect(c);
		if (!c->error)
			ps_ingest_release(c, false);
		if (ps_ingest_round_end(c))
			break;
		if (finished < c->n_readers)
			usleep(200);
	} while (finished < c->n_readers);
	ps_readers_stop(c);
	return c->error;
}

void ps_readers_stop(struct ps_ingest *c)
{
	if (!c->n_readers)
		return;
	kick(c->stop_fd);
	for (int k = 0; k < c->n_readers; k++) {
		/* Not drained (an error ends the capture): a reader waiting on
		 * a full mailbox would wait for good; let it drop instead. */
		if (!__atomic_load_n(&c->readers[k].finished, __ATOMIC_ACQUIRE))
			__atomic_store_n(&c->done, true, __ATOMIC_RELAXED);
		pthread_join(c->readers[k].thread, NULL);
	}
	c->n_readers = 0;
	ps_readers_collect(c); /* what the last rounds handed on */
}

void ps_readers_free(struct ps_ingest *c)
{
	ps_readers_stop(c);
	for (int k = 0; c->readers && k < c->n_readers_alloc; k++) {
		struct ps_reader *r = &c->readers[k];

		if (r->epoll_fd >= 0)
			close(r->epoll_fd);
		if (r->poke_fd >= 0)
			close(r->poke_fd);
		free(r->srcs);
		free(r->emit);
		free(r->cpu_read);
	}
	free(c->readers);
	c->readers = NULL;
	for (int cpu = 0; c->mail && cpu < c->ncpus; cpu++) {
		for (uint64_t h = c->mail[cpu].head; h < c->mail[cpu].tail; h++)
			free(c->mail[cpu].slot[h & c->mail[cpu].mask].ref.owned);
		free(c->mail[cpu].slot);
	}
	free(c->mail);
	c->mail = NULL;
	free(c->src_seen);
	c->src_seen = NULL;
	if (c->wake_fd >= 0)
		close(c->wake_fd);
	if (c->stop_fd >= 0)
		close(c->stop_fd);
	c->wake_fd = c->stop_fd = -1;
}
