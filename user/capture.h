/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One capture from start to end: resolve the interfaces, load the programs
 * (user/loader.c), open the buffers and the writer, attach, write the
 * headers; then the loop; then detach, drain, account and tear down. The
 * caller (main.c) owns argv, privileges, signals and exit codes.
 */
#ifndef PS_CAPTURE_H
#define PS_CAPTURE_H

#include <limits.h>
#include <net/if.h>
#include <signal.h>
#include <stdint.h>
#include "attach.h"
#include "collector.h"
#include "device.h"
#include "hooks.h"
#include "loader.h"
#include "output.h"
#include "rotate.h"
#include "sampling.h"
#include "xdptrace.h"

struct ps_opts;
struct ps_filter;

/* Set by the signal handlers: stop (drain first), abort (skip the drain). */
struct ps_stop {
	volatile sig_atomic_t requested;
	volatile sig_atomic_t abort;
};

struct ps_capture {
	const struct ps_opts *o;
	struct ps_filter *filter; /* NULL: capture everything (raw part made on demand) */
	struct ps_stop *stop;
	/* The interfaces: -i's, or with -i any every interface that is up. */
	const char *ifaces[PS_MAX_IFACES];
	int n_ifaces;
	char any_names[PS_MAX_IFACES][IF_NAMESIZE];
	int ifindex[PS_MAX_IFACES];
	struct ps_device dev[PS_MAX_IFACES];      /* what each is (user/device.h) */
	int linktype[PS_MAX_IFACES];              /* PS_LINKTYPE_*, as tcpdump's */
	enum ps_xdp_mode xdp_mode[PS_MAX_IFACES]; /* auto resolved per device */
	unsigned int if_hooks[PS_MAX_IFACES];     /* the hooks of each interface */
	unsigned int hooks;                       /* all of them together */
	int promisc_fd;          /* AF_PACKET memberships (-p: none); -1 */
	struct ps_target targets[PS_MAX_IFACES * PS_HOOK_MAX];
	int n_targets;
	struct ps_loader loader;
	/* Per interface, for native XDP where the driver hands XDP the VLAN
	 * tag it strips: the program bound to that device (shares loader's
	 * maps); skel NULL elsewhere. */
	struct ps_loader dev_loader[PS_MAX_IFACES];
	/* Per interface with xdp-entry or xdp-exit: the XDP program traced
	 * there, and the loader of our programs around it (skel NULL where
	 * an earlier interface's loader traces the same program). */
	struct ps_xdp_target xdp_target[PS_MAX_IFACES];
	struct ps_loader trace_loader[PS_MAX_IFACES];
	struct ps_attachments att;
	unsigned int transport;   /* enum ps_transport: o's, or ringbuf where perf
				   * events are closed to us */
	struct ps_output out;
	struct pcapng_writer *w;   /* NULL without -w */
	struct ps_printer *printer; /* the live view: without -w, or --print */
	struct ps_sflow_exp *sflow; /* --sflow */
	struct ps_collector *col;
	struct ps_sampling smp;
	struct ps_ticker ticker; /* clock-driven sampling */
	char sampling[200];      /* the sampling note of every IDB */
	/* The output file, one of several with -C or -G. */
	struct ps_rotate rot;
	char path[PATH_MAX];     /* the current file's name, with rotation */
	uint64_t file_start_ns;  /* wall clock: the current file began */
	/* Per target: the counters when the current file began, and the
	 * packets written to files already closed. */
	struct ps_counters file_base[PS_MAX_IFACES * PS_HOOK_MAX];
	uint64_t closed_written[PS_MAX_IFACES * PS_HOOK_MAX];
	/* Interfaces that vanish or go down while we capture. */
	int link_fd;             /* rtnetlink link events; -1 */
	int loop_fd;             /* epoll: the buffers' and link_fd */
	bool gone[PS_MAX_IFACES], down[PS_MAX_IFACES];
	bool all_gone;           /* none left: the capture ends, exit 1 */
};

/* The sampling choice and a fresh flow seed; nothing else is touched. */
void ps_capture_init(struct ps_capture *cap, const struct ps_opts *o,
		     struct ps_filter *filter, struct ps_stop *stop);
/* Interface names to devices, link types, hooks and XDP modes; -ENODEV
 * (logged) if unknown. "any" is every interface that is up, lo only when
 * named too; -E2BIG (logged) past PS_MAX_IFACES; -EPROTONOSUPPORT for a
 * link type pktsample cannot write, -EINVAL for a filter that cannot apply
 * to a device without a link-layer header (both logged). */
int ps_capture_resolve(struct ps_capture *cap);
/* Open the (first) output file, named as -C/-G name it. 0 or -errno,
 * logged: -ENOTTY for a terminal, -EINVAL/-ENAMETOOLONG for a bad name. */
int ps_capture_open_output(struct ps_capture *cap);
/* Everything up to the first packet; cap->out must be open. 0 or -errno,
 * logged; -EINTR if a stop was requested meanwhile. */
int ps_capture_setup(struct ps_capture *cap);
/* Until a stop, -c, --duration or an error; prints --stats lines. */
int ps_capture_loop(struct ps_capture *cap);
/* Detach, drain, write the ISBs, print the summary. loop_err: the loop's
 * result; returns the first error of the two, or -ENODEV if every
 * interface disappeared, or a failed detach's error. */
int ps_capture_finish(struct ps_capture *cap, int loop_err);
/* Release everything; safe after a failed setup. */
void ps_capture_teardown(struct ps_capture *cap);

#endif
