/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One capture from start to end: resolve the interfaces, load the programs
 * (user/kernel/loader.c), open the buffers and the writer, attach, write the
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
#include "capfile.h"
#include "context.h"
#include "ingest.h"
#include "device.h"
#include "dropnames.h"
#include "hooks.h"
#include "loader.h"
#include "metrics.h"
#include "printer.h"
#include "sampling.h"
#include "sflow.h"
#include "xdptrace.h"

struct ps_filter;

/* What a capture needs of the options (main.c fills it in). */
struct ps_capture_cfg {
	const char *const *ifaces; /* -i's; "any" among them: every one up */
	int n_ifaces;
	unsigned int hooks; /* PS_HOOK_BIT() set, if hooks_given */
	bool hooks_given;   /* --hook or -Q; else each device's default */
	enum ps_xdp_mode xdp_mode;
	enum ps_xdp_attach xdp_attach;
	enum ps_tc_mode tc_mode;
	enum ps_tc_position tc_position;
	unsigned int transport; /* enum ps_transport */
	bool transport_given;	/* --transport: no fallback to the ring */
	uint32_t buffer_kib;	/* -B: all buffers together; 0: the default */
	uint32_t threads;	/* -j: reader threads; 0: the default */
	uint32_t snaplen;
	uint64_t count;		      /* -c; 0: no limit */
	uint64_t duration_ms;	      /* 0: none */
	uint64_t stats_ms;	      /* --stats; 0: none */
	bool metrics;		      /* --metrics: serve the counters ... */
	struct ps_addr metrics_addr;  /* ... there */
	bool no_promisc;	      /* -p */
	struct ps_sampling smp;	      /* the seed is the capture's own */
	struct ps_capfile_cfg file;   /* -w and rotation; output NULL: no file */
	struct ps_sflow_config sflow; /* n_collectors 0: no sFlow */
	bool print;		      /* print the packets */
	struct ps_print_opts print_opts;
	bool line_buffered;	       /* -l */
	bool reader_may_leave;	       /* as an extcap: the FIFO closing ends it */
	struct ps_context_cfg context; /* whom packets belong to, and its filters */
};

/* Set by the signal handlers: stop (drain first), abort (skip the drain). */
struct ps_stop {
	volatile sig_atomic_t requested;
	volatile sig_atomic_t abort;
};

struct ps_capture {
	struct ps_capture_cfg cfg;
	struct ps_filter *filter; /* NULL: capture everything (raw part made on demand) */
	struct ps_stop *stop;
	/* The interfaces: -i's, or with -i any every interface that is up. */
	const char *ifaces[PS_MAX_IFACES];
	int n_ifaces;
	char any_names[PS_MAX_IFACES][IF_NAMESIZE];
	int ifindex[PS_MAX_IFACES];
	struct ps_device dev[PS_MAX_IFACES];	  /* what each is (user/kernel/device.h) */
	int linktype[PS_MAX_IFACES];		  /* PS_LINKTYPE_*, as tcpdump's */
	enum ps_xdp_mode xdp_mode[PS_MAX_IFACES]; /* auto resolved per device */
	unsigned int if_hooks[PS_MAX_IFACES];	  /* the hooks of each interface */
	unsigned int hooks;			  /* all of them together */
	int promisc_fd;				  /* AF_PACKET memberships (-p: none); -1 */
	struct ps_target targets[PS_MAX_IFACES * PS_HOOK_MAX];
	int n_targets;
	struct ps_loader loader;
	struct ps_context ctx; /* whom packets belong to (user/context/context.h) */
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
	struct ps_dropnames drops;  /* --hook drop: the reasons' and places' names */
	struct ps_buffer_plan bufs; /* -B over the online CPUs */
	unsigned int transport;	    /* enum ps_transport: o's, or ringbuf where perf
				   * events are closed to us */
	/* The outputs, each a sink of the ingest (user/ingest/sink.h). */
	struct ps_capfile *file; /* -w's file(s); NULL without -w */
	struct ps_capfile_iface file_ifaces[PS_MAX_IFACES * PS_HOOK_MAX];
	struct ps_printer *printer; /* the live view: without -w, or --print */
	struct ps_sflow_exp *sflow; /* --sflow */
	struct ps_metrics metrics;  /* --metrics; fd -1 without */
	uint64_t metrics_at_ns;	    /* when the text was last made */
	double start_time_s;	    /* the capture's start, Unix time */
	struct ps_ingest *in;	    /* reads the buffers, merges, hands to the sinks */
	struct ps_sampling smp;
	struct ps_ticker ticker; /* clock-driven sampling */
	char sampling[200];	 /* the sampling note of every IDB */
	char tag[96];		 /* the sampling's, in every packet's comment */
	/* Interfaces that vanish or go down while we capture. */
	int link_fd; /* rtnetlink link events; -1 */
	int loop_fd; /* epoll: the buffers' and link_fd */
	bool gone[PS_MAX_IFACES], down[PS_MAX_IFACES];
	bool all_gone; /* none left: the capture ends, exit 1 */
};

/* The configuration and a fresh flow seed; nothing else is touched. */
void ps_capture_init(struct ps_capture *cap, const struct ps_capture_cfg *cfg,
		     struct ps_filter *filter, struct ps_stop *stop);
/* Interface names to devices, link types, hooks and XDP modes; -ENODEV
 * (logged) if unknown. "any" is every interface that is up, lo only when
 * named too; -E2BIG (logged) past PS_MAX_IFACES; -EPROTONOSUPPORT for a
 * link type pktsample cannot write, -EINVAL for a filter that cannot apply
 * to a device without a link-layer header (both logged); -ENOENT for a
 * --pid, --cgroup or --container that is not there, -EOPNOTSUPP where
 * they need cgroup v2 and it is not mounted. */
int ps_capture_resolve(struct ps_capture *cap);
/* Open the (first) output file, named as -C/-G name it (user/capfile/capfile.h).
 * 0 or -errno, logged: -ENOTTY for a terminal, -EINVAL/-ENAMETOOLONG for a
 * bad name. */
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
