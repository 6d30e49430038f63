// SPDX-License-Identifier: GPL-2.0-only
/* One loop over fds and timers; see runloop.h. */
#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include "runloop.h"

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int ps_runloop_init(struct ps_runloop *l, int idle_ms)
{
	memset(l, 0, sizeof(*l));
	l->idle_ms = idle_ms;
	l->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	return l->epoll_fd < 0 ? -errno : 0;
}

int ps_runloop_add(struct ps_runloop *l, const struct ps_run_src *s)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = (uint32_t)l->n };

	if (l->n == PS_RUNLOOP_MAX)
		return -E2BIG;
	if (s->fd >= 0 && epoll_ctl(l->epoll_fd, EPOLL_CTL_ADD, s->fd, &ev))
		return -errno;
	l->src[l->n] = *s;
	l->due[l->n++] = 0;
	return 0;
}

/* How long to sleep: until the earliest due time, at most idle_ms. */
static int wait_ms(struct ps_runloop *l, uint64_t now)
{
	uint64_t wait = (uint64_t)l->idle_ms * 1000000ull;

	for (int i = 0; i < l->n; i++) {
		const struct ps_run_src *s = &l->src[i];

		l->due[i] = s->due_ns ? s->due_ns(s->arg, now) : 0;
		if (l->due[i] && l->due[i] - now < wait)
			wait = l->due[i] <= now ? 0 : l->due[i] - now;
	}
	/* Rounded up: a timer is never run before its time. */
	return (int)((wait + 999999) / 1000000);
}

int ps_runloop_run(struct ps_runloop *l, const volatile sig_atomic_t *stop)
{
	struct epoll_event ev[PS_RUNLOOP_MAX];

	while (!*stop) {
		bool ready[PS_RUNLOOP_MAX] = { false };
		int n = epoll_wait(l->epoll_fd, ev, PS_RUNLOOP_MAX, wait_ms(l, mono_ns()));
		uint64_t now = mono_ns();

		for (int i = 0; i < n; i++)
			ready[ev[i].data.u32] = true;
		for (int i = 0; i < l->n; i++) {
			const struct ps_run_src *s = &l->src[i];
			int ret;

			if (!ready[i] && !s->every_round && !(l->due[i] && l->due[i] <= now))
				continue;
			ret = s->run(s->arg, now);
			if (ret)
				return ret;
		}
	}
	return 0;
}

void ps_runloop_free(struct ps_runloop *l)
{
	if (l->epoll_fd >= 0)
		close(l->epoll_fd);
	l->epoll_fd = -1;
	l->n = 0;
}
