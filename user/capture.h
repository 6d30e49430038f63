/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One capture from start to end: resolve the interfaces, load the programs
 * (user/loader.c), open the buffers and the writer, attach, write the
 * headers; then the loop; then detach, drain, account and tear down. The
 * caller (main.c) owns argv, privileges, signals and exit codes.
 */
#ifndef PS_CAPTURE_H
#define PS_CAPTURE_H

#include <signal.h>
#include <stdint.h>
#include "attach.h"
#include "collector.h"
#include "hooks.h"
#include "loader.h"
#include "output.h"
#include "sampling.h"

struct ps_opts;
struct ps_filter;

/* Set by the signal handlers: stop (drain first), abort (skip the drain). */
struct ps_stop {
	volatile sig_atomic_t requested;
	volatile sig_atomic_t abort;
};

struct ps_capture {
	const struct ps_opts *o;
	const struct ps_filter *filter; /* NULL: capture everything */
	struct ps_stop *stop;
	int ifindex[PS_MAX_IFACES];
	enum ps_xdp_mode xdp_mode[PS_MAX_IFACES]; /* auto resolved per device */
	struct ps_target targets[PS_MAX_IFACES * PS_HOOK_MAX];
	int n_targets;
	struct ps_loader loader;
	struct ps_attachments att;
	struct ps_output out;
	struct pcapng_writer *w;
	struct ps_collector *col;
	struct ps_sampling smp;
	struct ps_ticker ticker; /* clock-driven sampling */
	uint64_t start_ns;       /* wall clock, for the ISBs */
};

/* The sampling choice and a fresh flow seed; nothing else is touched. */
void ps_capture_init(struct ps_capture *cap, const struct ps_opts *o,
		     const struct ps_filter *filter, struct ps_stop *stop);
/* Interface names to indexes and XDP modes; -ENODEV (logged) if unknown. */
int ps_capture_resolve(struct ps_capture *cap);
/* Everything up to the first packet; cap->out must be open. 0 or -errno,
 * logged; -EINTR if a stop was requested meanwhile. */
int ps_capture_setup(struct ps_capture *cap);
/* Until a stop, -c, --duration or an error; prints --stats lines. */
int ps_capture_loop(struct ps_capture *cap);
/* Detach, drain, write the ISBs, print the summary. loop_err: the loop's
 * result; returns the first error of the two. */
int ps_capture_finish(struct ps_capture *cap, int loop_err);
/* Release everything; safe after a failed setup. */
void ps_capture_teardown(struct ps_capture *cap);

#endif
