/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One loop that waits on file descriptors and timers, and runs what
 * registered for them, in the order they registered. A source has an fd
 * that wakes the loop (or none: a timer, or work done every round), says
 * how soon it wants to run again, and runs when its fd is ready, when its
 * time has come, or every round if it asks to. The capture registers its
 * link watch, its buffers, its timers (sFlow's bursts, rotation, --stats,
 * --metrics, --duration) and its signals here (user/app/capture.c).
 */
#ifndef PS_RUNLOOP_H
#define PS_RUNLOOP_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#define PS_RUNLOOP_MAX 16

struct ps_run_src {
	int fd;		  /* wakes the loop when readable; -1: none */
	bool every_round; /* run every round, ready or not */
	/* 0: go on; > 0: the loop ends and returns it; < 0: an error, the
	 * loop ends and returns it. now_ns: CLOCK_MONOTONIC. */
	int (*run)(void *arg, uint64_t now_ns);
	/* When it wants to run next (CLOCK_MONOTONIC ns; 0: not for its time,
	 * only for its fd or every round); NULL: never for its time. */
	uint64_t (*due_ns)(void *arg, uint64_t now_ns);
	void *arg;
};

struct ps_runloop {
	int epoll_fd;
	int idle_ms; /* the longest wait */
	struct ps_run_src src[PS_RUNLOOP_MAX];
	uint64_t due[PS_RUNLOOP_MAX]; /* each one's, as it said last */
	int n;
};

/* idle_ms: the longest the loop sleeps. 0 or -errno. */
int ps_runloop_init(struct ps_runloop *l, int idle_ms);
/* s runs from the next round on, after those registered before. 0, -E2BIG
 * past PS_RUNLOOP_MAX, or -errno (its fd could not be watched). */
int ps_runloop_add(struct ps_runloop *l, const struct ps_run_src *s);
/* Rounds until a source ends it (its value) or *stop is set (0, once the
 * round under way is whole). */
int ps_runloop_run(struct ps_runloop *l, const volatile sig_atomic_t *stop);
void ps_runloop_free(struct ps_runloop *l);

#endif
