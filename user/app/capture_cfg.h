/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a capture takes of the options (main.c and the service fill it in
 * from the command line and --config): types only, so that pure modules
 * (user/app/reload_diff.h) can compare two of them.
 */
#ifndef PS_CAPTURE_CFG_H
#define PS_CAPTURE_CFG_H

#include <stdbool.h>
#include <stdint.h>
#include "addr.h"
#include "capfile.h"
#include "flight.h"
#include "context.h"
#include "hooks.h"
#include "printer.h"
#include "sampling.h"
#include "sflow.h"
#include "topview.h"

/* Following interfaces, without --max-ifaces: room for this many at once
 * (or twice those at the start). */
#define PS_FOLLOW_IFACES 1024

/* What a capture needs of the options (main.c fills it in). */
struct ps_capture_cfg {
	const char *const *ifaces; /* -i's; "any" among them: every one up */
	int n_ifaces;
	int max_ifaces;	    /* room for so many at once; 0: those at start */
	bool reloadable;    /* --config: a reload may bring more interfaces */
	unsigned int hooks; /* PS_HOOK_BIT() set, if hooks_given */
	bool hooks_given;   /* --hook or -Q; else each device's default */
	enum ps_xdp_mode xdp_mode;
	enum ps_xdp_attach xdp_attach;
	enum ps_tc_mode tc_mode;
	enum ps_tc_position tc_position;
	enum ps_packet_id packet_id;
	unsigned int transport; /* enum ps_transport */
	bool transport_given;	/* --transport: no fallback to the ring */
	uint32_t buffer_kib;	/* -B: all buffers together; 0: the default */
	uint32_t threads;	/* -j: reader threads; 0: the default */
	uint32_t snaplen;
	uint64_t count;			/* -c; 0: no limit */
	uint64_t duration_ms;		/* 0: none */
	uint64_t stats_ms;		/* --stats; 0: none */
	bool metrics;			/* --metrics: serve the counters ... */
	struct ps_addr metrics_addr;	/* ... there */
	const char *metrics_web_config; /* ... with TLS and users; NULL */
	bool no_promisc;		/* -p */
	struct ps_sampling smp;		/* the seed is the capture's own */
	struct ps_capfile_cfg file;	/* -w and rotation; output NULL: no file */
	struct ps_flight_cfg flight;	/* --flight; window_ns 0: off */
	struct ps_sflow_config sflow;	/* n_collectors 0: no sFlow */
	bool print;			/* print the packets */
	struct ps_print_opts print_opts;
	bool line_buffered;	       /* -l */
	bool reader_may_leave;	       /* as an extcap: the FIFO closing ends it */
	struct ps_context_cfg context; /* whom packets belong to, and its filters */
	struct ps_top_cfg top;	       /* --top; enabled false: none */
};

#endif
