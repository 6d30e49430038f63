// SPDX-License-Identifier: GPL-2.0-only
/* Reader threads and their mailboxes (-j N); see threads.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include "clock.h"
#include "log.h"
#include "threads.h"

/* Entries per CPU's mailbox: about a quarter of a default buffer of
 * 1500-byte packets. A full one makes its reader wait; the kernel's buffer
 * then takes the burst, and counts what it cannot. */
#define MAILBOX_SLOTS 4096u
/* A reader wakes at least this often, to settle its quiet CPUs. */
#define READER_IDLE_MS 100
/* The last rounds wait at most this long for samples still in flight. */
#define READER_DRAIN_NS 10000000ull

static void kick(int fd)
{
	uint64_t one = 1;

	(void)!write(fd, &one, sizeof(one));
}

static bool stopped(const struct ps_readers *t)
{
	return __atomic_load_n(t->stop, __ATOMIC_ACQUIRE);
}

/* m into its CPU's mailbox, waiting while the mailbox is full; dropped
 * (its copy freed) if the capture ended first. */
static void put(struct ps_readers *t, const struct ps_mail *m)
{
	struct ps_mailbox *b = &t->mail[m->cpu];
	uint64_t tail = b->tail;

	if (tail - __atomic_load_n(&b->head, __ATOMIC_ACQUIRE) > b->mask)
		kick(t->wake_fd); /* full: the merge must run */
	while (tail - __atomic_load_n(&b->head, __ATOMIC_ACQUIRE) > b->mask) {
		if (stopped(t)) {
			free(m->ref.owned);
			return;
		}
		usleep(20); /* not a spin: on two cores it took the merge's CPU */
	}
	b->slot[tail & b->mask] = *m;
	__atomic_store_n(&b->tail, tail + 1, __ATOMIC_RELEASE);
}

/* A reader thread's output: into the mailboxes. */
static void mail_sample(void *arg, const struct ps_ref *ref, uint64_t drops)
{
	struct ps_reader_thread *rt = arg;

	put(rt->all, &(struct ps_mail){ .kind = PS_MAIL_SAMPLE,
					.ref = *ref,
					.drops = drops,
					.cpu = (int32_t)ref->m.cpu });
}

static void mail_mark(void *arg, int cpu, uint64_t settle, int src, uint64_t read)
{
	struct ps_reader_thread *rt = arg;

	put(rt->all,
	    &(struct ps_mail){
		    .kind = PS_MAIL_MARK, .cpu = cpu, .settle = settle, .src = src, .read = read });
}

static void mail_fail(void *arg, int err)
{
	struct ps_reader_thread *rt = arg;

	put(rt->all, &(struct ps_mail){ .kind = PS_MAIL_FAIL, .cpu = rt->first_cpu, .err = err });
}

void ps_readers_collect(struct ps_readers *t)
{
	const struct ps_reader_out *to = &t->to;
	uint64_t v;

	if (t->wake_fd >= 0)
		(void)!read(t->wake_fd, &v, sizeof(v));
	for (int cpu = 0; cpu < t->ncpus; cpu++) {
		struct ps_mailbox *b = &t->mail[cpu];
		uint64_t head = b->head, tail = __atomic_load_n(&b->tail, __ATOMIC_ACQUIRE);

		for (; head < tail; head++) {
			const struct ps_mail *m = &b->slot[head & b->mask];

			if (m->kind == PS_MAIL_MARK)
				to->mark(to->arg, cpu, m->settle, m->src, m->read);
			else if (m->kind == PS_MAIL_FAIL)
				to->fail(to->arg, m->err);
			else
				to->sample(to->arg, &m->ref, m->drops);
		}
		__atomic_store_n(&b->head, head, __ATOMIC_RELEASE);
	}
}

/* Rounds until none of the reader's buffers had more than a round reads. */
static void reader_rounds(struct ps_reader_thread *rt, bool *in_flight)
{
	do {
		rt->r.more = false;
		ps_reader_round(&rt->r, in_flight);
		kick(rt->all->wake_fd);
	} while (rt->r.more && !stopped(rt->all));
}

void ps_readers_poke(struct ps_readers *t)
{
	/* At most once per 100 us: a round a reader runs sooner settles no
	 * more, and each costs it a map read. */
	uint64_t now = ps_clock_mono_ns();

	if (now - t->last_poke_ns < 100000)
		return;
	t->last_poke_ns = now;
	for (int k = 0; k < t->n; k++)
		kick(t->t[k].poke_fd);
}

static void *reader_main(void *arg)
{
	struct ps_reader_thread *rt = arg;
	struct epoll_event ev[16];
	uint64_t until, v;
	bool in_flight, stop = false;

	while (!stop) {
		int n;

		reader_rounds(rt, &in_flight);
		n = epoll_wait(rt->epoll_fd, ev, 16, READER_IDLE_MS);
		for (int i = 0; i < n; i++) {
			if (ev[i].data.fd == rt->all->stop_fd)
				stop = true;
			else if (ev[i].data.fd == rt->poke_fd)
				(void)!read(rt->poke_fd, &v, sizeof(v));
		}
	}
	reader_rounds(rt, &in_flight);
	/* The hooks are detached; a program that started before may still be
	 * between its timestamp and its output. */
	until = ps_clock_mono_ns() + READER_DRAIN_NS;
	while (in_flight && ps_clock_mono_ns() < until) {
		usleep(1000);
		reader_rounds(rt, &in_flight);
	}
	__atomic_store_n(&rt->finished, 1, __ATOMIC_RELEASE);
	kick(rt->all->wake_fd);
	return NULL;
}

static int alloc_all(struct ps_readers *t, int n)
{
	t->mail = calloc(t->ncpus, sizeof(*t->mail));
	t->t = calloc(n, sizeof(*t->t));
	if (!t->mail || !t->t)
		return -ENOMEM;
	t->n_alloc = n;
	for (int cpu = 0; cpu < t->ncpus; cpu++) {
		t->mail[cpu].slot = calloc(MAILBOX_SLOTS, sizeof(struct ps_mail));
		if (!t->mail[cpu].slot)
			return -ENOMEM;
		t->mail[cpu].mask = MAILBOX_SLOTS - 1;
	}
	for (int k = 0; k < n; k++) {
		t->t[k].epoll_fd = -1;
		t->t[k].poke_fd = -1;
	}
	return 0;
}

/* Thread k's reader and epoll: its sources (source i goes to thread
 * i mod n), the stop and its poke. */
static int reader_watch(struct ps_readers *t, int k, int n, struct ps_source *src, int n_src,
			int emit_fd, int merge_epoll_fd)
{
	struct ps_reader_thread *rt = &t->t[k];
	const struct ps_reader_out out = { mail_sample, mail_mark, mail_fail, rt };
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = t->stop_fd };
	int err;

	rt->all = t;
	err = ps_reader_init(&rt->r, t->ncpus, emit_fd, t->stop, &out);
	if (err)
		return err;
	rt->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	rt->poke_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (rt->epoll_fd < 0 || rt->poke_fd < 0 ||
	    epoll_ctl(rt->epoll_fd, EPOLL_CTL_ADD, t->stop_fd, &ev))
		return -errno;
	ev.data.fd = rt->poke_fd;
	if (epoll_ctl(rt->epoll_fd, EPOLL_CTL_ADD, rt->poke_fd, &ev))
		return -errno;
	rt->first_cpu = src[k].cpu >= 0 ? src[k].cpu : 0;
	for (int i = k; i < n_src; i += n) {
		ev.data.fd = src[i].fd;
		if (src[i].fd >= 0 && (epoll_ctl(merge_epoll_fd, EPOLL_CTL_DEL, src[i].fd, NULL) ||
				       epoll_ctl(rt->epoll_fd, EPOLL_CTL_ADD, src[i].fd, &ev)))
			return -errno;
		err = ps_reader_add_source(&rt->r, src, i);
		if (err)
			return err;
	}
	return 0;
}

int ps_readers_start(struct ps_readers *t, int n, struct ps_source *src, int n_src, int ncpus,
		     int emit_fd, int epoll_fd, const bool *stop, const struct ps_reader_out *to)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int err;

	memset(t, 0, sizeof(*t));
	t->ncpus = ncpus;
	t->stop = stop;
	t->to = *to;
	t->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	t->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (t->wake_fd < 0 || t->stop_fd < 0) {
		err = -errno;
		goto fail;
	}
	err = alloc_all(t, n);
	for (int k = 0; !err && k < n; k++)
		err = reader_watch(t, k, n, src, n_src, emit_fd, epoll_fd);
	ev.data.fd = t->wake_fd;
	if (!err && epoll_ctl(epoll_fd, EPOLL_CTL_ADD, t->wake_fd, &ev))
		err = -errno;
	for (int k = 0; !err && k < n; k++) {
		err = -pthread_create(&t->t[k].thread, NULL, reader_main, &t->t[k]);
		t->t[k].started = !err;
		t->n += !err;
	}
	if (err)
		goto fail;
	pr_info("%d reader threads, %d buffers each at most\n", n, (n_src + n - 1) / n);
	return 0;
fail:
	pr_err("cannot start %d reader threads: %s\n", n, strerror(-err));
	return err;
}

void ps_readers_finish(struct ps_readers *t)
{
	if (t->stop_fd >= 0)
		kick(t->stop_fd);
}

bool ps_readers_finished(const struct ps_readers *t)
{
	for (int k = 0; k < t->n; k++)
		if (!__atomic_load_n(&t->t[k].finished, __ATOMIC_ACQUIRE))
			return false;
	return true;
}

void ps_readers_join(struct ps_readers *t)
{
	ps_readers_finish(t);
	for (int k = 0; k < t->n_alloc; k++)
		if (t->t[k].started)
			pthread_join(t->t[k].thread, NULL);
	for (int k = 0; k < t->n_alloc; k++)
		t->t[k].started = false;
	t->n = 0;
}

void ps_readers_counts(const struct ps_readers *t, struct ps_reader_counts *n, uint64_t *gaps)
{
	for (int k = 0; k < t->n_alloc; k++)
		ps_reader_add_counts(&t->t[k].r, n, gaps);
}

void ps_readers_free(struct ps_readers *t)
{
	ps_readers_join(t);
	for (int k = 0; t->t && k < t->n_alloc; k++) {
		struct ps_reader_thread *rt = &t->t[k];

		if (rt->epoll_fd >= 0)
			close(rt->epoll_fd);
		if (rt->poke_fd >= 0)
			close(rt->poke_fd);
		ps_reader_free(&rt->r);
	}
	free(t->t);
	t->t = NULL;
	t->n_alloc = 0;
	for (int cpu = 0; t->mail && cpu < t->ncpus; cpu++) {
		for (uint64_t h = t->mail[cpu].head; h < t->mail[cpu].tail; h++)
			free(t->mail[cpu].slot[h & t->mail[cpu].mask].ref.owned);
		free(t->mail[cpu].slot);
	}
	free(t->mail);
	t->mail = NULL;
	if (t->wake_fd >= 0)
		close(t->wake_fd);
	if (t->stop_fd >= 0)
		close(t->stop_fd);
	t->wake_fd = t->stop_fd = -1;
}
