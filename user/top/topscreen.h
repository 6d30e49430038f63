/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * --top's full screen (ncurses): draws what the view hands it and turns
 * keys into commands; it knows nothing of the capture. Keys: g or 1-5 the
 * grouping, s the sort, p or space pause, / a filter expression (Enter
 * sets it, Escape leaves it), q quits. A terminal too small for the table
 * says so until it is larger; a resize is redrawn at once.
 */
#ifndef PS_TOPSCREEN_H
#define PS_TOPSCREEN_H

#include <stddef.h>
#include "topagg.h"

enum ps_topcmd_kind {
	PS_TOPCMD_QUIT,
	PS_TOPCMD_GROUP, /* arg: the grouping */
	PS_TOPCMD_NEXT_GROUP,
	PS_TOPCMD_NEXT_SORT,
	PS_TOPCMD_PAUSE,
	PS_TOPCMD_FILTER, /* text: the expression ("" for none) */
	PS_TOPCMD_REDRAW, /* resized, or the filter's prompt changed */
};

struct ps_topcmd {
	enum ps_topcmd_kind kind;
	int arg;
	char text[256];
};

/* One screenful: header lines, the rows most first, a status line. */
struct ps_topframe {
	const char *title;  /* "process, most bytes first" ... */
	const char *totals; /* "in 200 pkt/s 12.0 kB/s, out ..." */
	const char *status; /* a message (a filter refused), or "" */
	const struct ps_top_row *const *rows;
	size_t n_rows;
	double total_bps; /* every way: each row's share of it */
};

struct ps_topscreen;

/* The terminal taken over; NULL (errno set) if stdin/stdout are no terminal. */
struct ps_topscreen *ps_topscreen_start(void);
/* The next command the keys made: 1, 0 if none is waiting, -EIO if the
 * terminal went away. */
int ps_topscreen_read(struct ps_topscreen *s, struct ps_topcmd *cmd);
/* The rows that fit below the header (0: too small). */
size_t ps_topscreen_rows(const struct ps_topscreen *s);
void ps_topscreen_draw(struct ps_topscreen *s, const struct ps_topframe *f);
/* The terminal as it was. */
void ps_topscreen_end(struct ps_topscreen *s);

#endif
