/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * File rotation as tcpdump does it: -C (size), -G (time), -W (how many
 * files), -z (a command run on each closed file), and tcpdump's names:
 *
 *   -G: the name passes through strftime(3) at the time the file starts;
 *   -C: a count is appended ("out", "out1", "out2", ...), and with -W N the
 *       count has as many digits as N-1 ("out0" .. "out9" for -W 10) and
 *       wraps after N files, a ring;
 *   -G with -W and no -C: the capture stops after N files;
 *   a flight recorder's incidents (--flight): a file per incident, named
 *       as -C names them, or through strftime(3) at the incident where
 *       the name has a '%'; -W N makes a ring of N.
 *
 * One difference, on purpose: -G's timer runs from the start of the
 * capture, so a quiet interface still gets a new file every interval
 * (tcpdump rotates only when a packet arrives, tcpdump issue #857).
 *
 * The names and the bookkeeping are pure; ps_rotate_run_cmd() is the one
 * system call site (fork and exec, never a shell).
 */
#ifndef PS_ROTATE_H
#define PS_ROTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

struct ps_rotate {
	const char *tmpl;     /* -w's argument */
	uint64_t size_limit;  /* -C in bytes; 0: off */
	uint64_t interval_ns; /* -G; 0: off */
	uint32_t max_files;   /* -W; 0: off */
	int width;	      /* digits of the count (tcpdump's WflagChars) */
	uint32_t count;	      /* -C: this file's number */
	uint32_t time_files;  /* -G: files closed by the timer */
	uint64_t next_ns;     /* -G: the next boundary (monotonic) */
	bool numbered;	      /* a count is appended (-C, incidents) */
	bool timed_names;     /* through strftime (-G, incidents with '%') */
};

/* Digits of the count for -W n: those of n-1 (0 for n <= 1). */
int ps_rotate_width(uint32_t files);
void ps_rotate_init(struct ps_rotate *r, const char *tmpl, uint64_t size_limit,
		    uint64_t interval_ns, uint32_t max_files, uint64_t now_ns);
/* A file per incident (see above). */
void ps_rotate_init_incidents(struct ps_rotate *r, const char *tmpl, uint32_t max_files);
/* Are the names other than -w's own? */
bool ps_rotate_active(const struct ps_rotate *r);
/*
 * The current file's name (t: wall-clock seconds, for -G's strftime).
 * 0, or -ENAMETOOLONG; with -G an empty strftime result is -EINVAL.
 */
int ps_rotate_name(const struct ps_rotate *r, time_t t, char *buf, size_t size);
/* -C: is a file of `bytes` full (tcpdump: strictly more than -C)? */
bool ps_rotate_size_due(const struct ps_rotate *r, uint64_t bytes);
/* -C, an incident: on to the next file's number (wrapping with -W). */
void ps_rotate_next_size(struct ps_rotate *r);
/*
 * -G at monotonic now_ns: 0 not yet, 1 rotate now (the count restarts and
 * the boundary moves on, past any interval missed), -1 the last file of -W
 * is complete: stop.
 */
int ps_rotate_time_due(struct ps_rotate *r, uint64_t now_ns);

/*
 * Run cmd with path as its one argument, at the lowest priority, in a
 * process group of its own (a Ctrl-C meant for the capture does not cut
 * it short). Not waited for: SIGCHLD is ignored, so it is reaped by the
 * kernel. 0 or -errno (logged).
 */
int ps_rotate_run_cmd(const char *cmd, const char *path);

#endif
