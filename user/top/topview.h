/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * --top: a sink that counts every packet into topagg.h's rows and shows
 * them once an interval: full screen on a terminal (topscreen.h: keys
 * switch the grouping and the sort, pause, set a filter, q quits), or as
 * one plain table per interval (--batch, or stdout not a terminal), as
 * top -b does. The capture's run loop drives it (ps_topview_fd,
 * ps_topview_due, ps_topview_run); the capture's other outputs (-w) go on
 * beside it.
 */
#ifndef PS_TOPVIEW_H
#define PS_TOPVIEW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "cbpf.h"
#include "sink.h"
#include "topagg.h"

struct ps_topscreen;

struct ps_top_cfg {
	bool enabled; /* shown: --top */
	bool batch;   /* plain tables, not the full screen */
	enum ps_top_group group;
	enum ps_top_sort sort;
	uint64_t interval_ns; /* 0: one second */
	uint32_t weight;      /* packets a sample stands for (1 in N sampling: N) */
	bool drop_hook;	      /* drops are counted (else the drop view says how) */
	/* Counted for --metrics (ps_top_series): with enabled false, nothing
	 * shown, the process and container groupings alone counted. */
	bool metrics;
	char scale_note[96]; /* the header's words on the sampling; "" */
};

/* A view filter's program for one link type, compiled when first needed
 * (NULL: the expression cannot apply there, and nothing passes). */
struct ps_top_filter {
	int linktype;
	struct ps_cbpf_insn *insns;
	size_t n;
};

struct ps_topview {
	struct ps_sink sink;
	struct ps_top_cfg cfg;
	struct ps_top agg;
	FILE *out;		     /* batch: the tables' */
	struct ps_topscreen *screen; /* full screen, once started; NULL */
	uint64_t last_ns, next_ns;   /* the interval's start, and its end */
	bool paused, quit;
	/* The view's filter (the screen's '/'): only matching packets count. */
	char filter[256];
	struct ps_top_filter progs[4];
	int n_progs;
	char status[320];	  /* the status line's message (a filter refused) ... */
	uint64_t status_until_ns; /* ... until then */
	int err;		  /* the tables could not be written: sticky */
};

/* 0, or -errno. The screen starts at the first ps_topview_run(), once the
 * capture runs, so that an error before it is read on a plain terminal. */
int ps_topview_open(struct ps_topview *v, const struct ps_top_cfg *cfg, FILE *out);
struct ps_sink *ps_topview_sink(struct ps_topview *v);
/* What wakes the view: the terminal's keys; -1 in batch. */
int ps_topview_fd(const struct ps_topview *v);
/* When the interval ends (CLOCK_MONOTONIC ns). */
uint64_t ps_topview_due(const struct ps_topview *v);
/* Keys, and the interval's table if it is due: 0, 1 when q was pressed,
 * or -errno when the tables could not be written (-EPIPE: the reader left). */
int ps_topview_run(struct ps_topview *v, uint64_t now_ns);
/* A new view filter (a pcap-filter expression; "" for none): 0, or -EINVAL
 * with the reason in err. */
int ps_topview_set_filter(struct ps_topview *v, const char *expr, char *err, size_t len);
/* The terminal as it was (the screen ended), the batch's last table
 * written; idempotent: the capture's teardown calls it again. */
void ps_topview_free(struct ps_topview *v);

#endif
