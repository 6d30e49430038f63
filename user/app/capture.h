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
#include "capture_cfg.h"
#include "capfile.h"
#include "context.h"
#include "ingest.h"
#include "device.h"
#include "dropnames.h"
#include "hooks.h"
#include "hookplan.h"
#include "ifset.h"
#include "runloop.h"
#include "loader.h"
#include "metrics.h"
#include "metrics_http.h"
#include "printer.h"
#include "sampling.h"
#include "sflow.h"
#include "xdptrace.h"

struct ps_filter;

/* Set by the signal handlers: stop (drain first), abort (skip the drain). */
struct ps_stop {
	volatile sig_atomic_t requested;
	volatile sig_atomic_t abort;
	volatile sig_atomic_t reload;  /* --config's SIGHUP: read it again */
	volatile sig_atomic_t trigger; /* --flight's SIGUSR2: an incident now */
};

/* One interface of the capture: what it is, and what it gets. */
struct ps_cap_iface {
	char name[IF_NAMESIZE];
	int ifindex;
	struct ps_device dev;	   /* what it is (user/kernel/device.h) */
	int linktype;		   /* PS_LINKTYPE_*, as tcpdump's */
	enum ps_xdp_mode xdp_mode; /* auto resolved for the device */
	unsigned int hooks;	   /* its hooks */
	bool later;		   /* it came after the start */
};

/*
 * What an interface coming or going means to the rest of the capture:
 * handed to the interfaces' part (cap_ifaces.c) by capture.c, which holds
 * the parts; each is told the interface's slot.
 */
struct ps_cap_iface_ops {
	/* At the start, resolved: what the programs need of it before they
	 * load. 0 or -errno, logged (the start fails). */
	int (*resolved)(void *arg, int slot);
	/* While capturing, resolved: its kernel slot, targets, hooks and
	 * outputs. 0 or -errno, said where it failed; then it is let go. */
	int (*came)(void *arg, int slot);
	/* Let go: detached (or gone with it, vanished), its last counters
	 * kept for its outputs. */
	void (*went)(void *arg, int slot, bool vanished);
	void *arg;
};

/* The interfaces (cap_ifaces.c): the set that follows the links, and the
 * capture's own of each slot. */
struct ps_cap_ifaces {
	/* -i's, or with -i any every interface that is up, or those a
	 * pattern matches (user/app/ifset.h: which, in which slot; following,
	 * set.follow, those that come later too, and none left is no reason
	 * to end); room for set.room (the kernel's maps are sized for as
	 * many). */
	struct ps_ifset set;
	struct ps_cap_iface *ifs; /* per slot; ifindex 0 where it is free */
	int ifs_room;
	const struct ps_netdev_nl *nl; /* while resolving: the netdev family */
	bool started;		       /* set up: one that comes is attached at once */
	char follow_line[8 * (IF_NAMESIZE + 2) + 64]; /* which, said once attached */
	/* What it is handed (cap_ifaces_init, a reload, the start): */
	struct ps_hook_opts ho;	       /* the hooks asked, the XDP mode */
	uint32_t snaplen;	       /* said of each interface */
	struct ps_filter *filter;      /* the capture's; NULL: none */
	struct ps_hooks_loaded loaded; /* started: what the programs were loaded for */
	struct ps_cap_iface_ops ops;
};

/* The programs' own of one interface (cap_programs.c), by its slot. */
struct ps_cap_iface_progs {
	/* For native XDP where the driver hands XDP the VLAN tag it strips:
	 * the program bound to the device (shares the main loader's maps);
	 * skel NULL elsewhere. */
	struct ps_loader dev_loader;
	/* With xdp-entry or xdp-exit: the XDP program traced there, and the
	 * loader of our programs around it (skel NULL where an earlier
	 * interface's loader traces the same program). */
	struct ps_xdp_target xdp_target;
	struct ps_loader trace_loader;
};

/* The kernel's side (cap_programs.c): the programs, what is attached, the
 * buffers' plan. */
struct ps_cap_kern {
	unsigned int hooks;	      /* all of them together: the programs loaded */
	bool xdp_loaded[2];	      /* the XDP programs: [0] native, [1] skb */
	struct ps_loader loader;      /* the programs at the start, and the maps */
	struct ps_loader *progs;      /* the programs attached: loader's, or ... */
	struct ps_loader next_progs;  /* ... a reload's (on loader's maps) */
	struct ps_filter *own_filter; /* a reload's filter, freed at teardown */
	struct ps_attachments att;
	struct ps_dropnames drops;  /* --hook drop: the reasons' and places' names */
	int promisc_fd;		    /* AF_PACKET memberships (-p: none); -1 */
	struct ps_ticker ticker;    /* clock-driven sampling */
	struct ps_buffer_plan bufs; /* -B over the online CPUs */
	unsigned int transport;	    /* enum ps_transport: o's, or ringbuf where perf
				   * events are closed to us */
	enum ps_tc_mode tc_mode;    /* --tc-mode's, or auto's for many interfaces */
	int max_ifaces;		    /* the maps' room for interfaces */
	/* Each interface's own, by its slot (ps_cap_ifaces' ifs[]): only
	 * cap_programs.c writes them. */
	struct ps_cap_iface_progs *slots;
	int slots_room;
};

/* The outputs (cap_outputs.c): one target per (interface, hook), the
 * ingest, and its sinks. */
struct ps_cap_out {
	struct ps_target *targets; /* room for targets_room */
	int n_targets, targets_room;
	/* The counters and packets of interfaces whose targets others took. */
	struct ps_counters retired;
	uint64_t retired_written;
	struct ps_ingest *in;		      /* reads the buffers, merges, hands to the sinks */
	struct ps_capfile *file;	      /* -w's file(s); NULL without -w */
	struct ps_flight *flight;	      /* --flight: in front of the file; NULL */
	struct ps_capfile_iface *file_ifaces; /* one per target */
	struct ps_printer *printer;	      /* the live view: without -w, or --print */
	struct ps_sflow_exp *sflow;	      /* --sflow */
	struct ps_topview *top;		      /* --top */
	char sampling[200];		      /* the sampling note of every IDB */
	char tag[96];			      /* the sampling's, in every packet's comment */
	bool reader_may_leave;		      /* as an extcap: its reader leaving is no error */
};

/* What is counted and said (cap_stats.c): --stats, --metrics. */
struct ps_cap_stats {
	/* --metrics: the server (fd -1 without); a reload's new address gets
	 * the other slot, its thread being given the slot's address. */
	struct ps_metrics metrics_slot[2];
	struct ps_metrics *metrics;
	uint64_t metrics_at_ns;		     /* when the text was last made */
	double start_time_s;		     /* the capture's start, Unix time */
	uint64_t stats_at_ns, stats_written; /* the last --stats line */
	struct ps_webcfg next_web;	     /* a reload's, read, until applied */
};

/* The run loop (cap_loop.c): its clocks run on across a reload. */
struct ps_cap_run {
	struct ps_runloop loop; /* the link watch, the buffers, the timers */
	int link_fd;		/* rtnetlink link events; -1 */
	bool loop_started;
	uint64_t deadline_ns;
};

/* One capture: its configuration, and each part's own state. */
struct ps_capture {
	struct ps_capture_cfg cfg;
	struct ps_filter *filter; /* NULL: capture everything (raw part made on demand) */
	struct ps_stop *stop;
	struct ps_sampling smp; /* the capture's own seed */
	struct ps_context ctx;	/* whom packets belong to (user/context/context.h) */
	struct ps_cap_ifaces ifaces;
	struct ps_cap_kern kern;
	struct ps_cap_out out;
	struct ps_cap_stats stats;
	struct ps_cap_run run;
};

/* The configuration and a fresh flow seed; nothing else is touched. */
void ps_capture_init(struct ps_capture *cap, const struct ps_capture_cfg *cfg,
		     struct ps_filter *filter, struct ps_stop *stop);
/* Interface names to devices, link types, hooks and XDP modes; -ENODEV
 * (logged) if unknown. "any" is every interface that is up, lo only when
 * named too; -ENOMEM (logged); -EPROTONOSUPPORT for a
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
/* Until a stop, -c, --duration or an error; prints --stats lines.
 * PS_CAPTURE_RELOAD when a reload was asked (stop->reload): the caller
 * reads its configuration, calls ps_capture_reload, and the loop again. */
#define PS_CAPTURE_RELOAD 1
int ps_capture_loop(struct ps_capture *cap);
/*
 * A new configuration while capturing (SIGHUP with --config): what can
 * change without new programs is applied — interfaces and patterns (ones
 * left out are let go, new ones attached), sFlow's collectors, agent,
 * header, counters interval and burst, --stats, --metrics, -v — and the
 * samples, counters, files and sFlow sequences go on. cfg's strings must
 * outlive the capture (or the next reload). A new filter or sampling
 * (filter: the new filter, built; NULL: none) gets new programs, put in
 * place of the running ones at once on every hook (where the attachments
 * allow it), and new IDBs in the file; on success the capture owns filter
 * if it took it (cap->filter is it), else the caller frees it. 0, or
 * -EBUSY (logged, one line naming the setting) when it changes what only
 * a restart can (hooks, snaplen, output, sFlow on or off, ...), or -errno
 * (logged): then the running configuration stays as it was.
 */
int ps_capture_reload(struct ps_capture *cap, const struct ps_capture_cfg *cfg,
		      struct ps_filter *filter);
/* Detach, drain, write the ISBs, print the summary. loop_err: the loop's
 * result; returns the first error of the two, or -ENODEV if every
 * interface disappeared, or a failed detach's error. */
int ps_capture_finish(struct ps_capture *cap, int loop_err);
/* Release everything; safe after a failed setup. */
void ps_capture_teardown(struct ps_capture *cap);

#endif
