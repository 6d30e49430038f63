// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <curses.h>
#include "topscreen.h"

/* The least that holds the header, the column names and one row. */
#define MIN_COLS 60
#define MIN_LINES 6
#define KEY_ESC 27

struct ps_topscreen {
	SCREEN *scr;
	bool editing;	/* the filter's prompt is open */
	char line[256]; /* what was typed there */
	size_t len;
};

struct ps_topscreen *ps_topscreen_start(void)
{
	struct ps_topscreen *s;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		errno = ENOTTY;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	/* newterm, not initscr: a terminal it does not know is an error to
	 * return, not an exit. */
	s->scr = newterm(NULL, stdout, stdin);
	if (!s->scr) {
		free(s);
		errno = ENOTTY;
		return NULL;
	}
	cbreak();
	noecho();
	set_escdelay(25); /* Escape leaves the prompt at once */
	nodelay(stdscr, TRUE);
	keypad(stdscr, TRUE);
	curs_set(0);
	return s;
}

void ps_topscreen_end(struct ps_topscreen *s)
{
	if (!s)
		return;
	endwin();
	delscreen(s->scr);
	free(s);
}

static bool too_small(void)
{
	return COLS < MIN_COLS || LINES < MIN_LINES;
}

size_t ps_topscreen_rows(const struct ps_topscreen *s)
{
	(void)s;
	return too_small() ? 0 : (size_t)(LINES - 4);
}

/* Readable, or hung up, though getch had nothing: the terminal is gone. */
static bool terminal_gone(void)
{
	struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };

	return poll(&p, 1, 0) == 1 && (p.revents & (POLLHUP | POLLERR | POLLNVAL | POLLIN));
}

/* A key while the filter's prompt is open. */
static int edit(struct ps_topscreen *s, int ch, struct ps_topcmd *cmd)
{
	cmd->kind = PS_TOPCMD_REDRAW;
	if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
		s->editing = false;
		cmd->kind = PS_TOPCMD_FILTER;
		snprintf(cmd->text, sizeof(cmd->text), "%.*s", (int)s->len, s->line);
	} else if (ch == KEY_ESC) {
		s->editing = false;
	} else if ((ch == KEY_BACKSPACE || ch == 127 || ch == 8) && s->len) {
		s->len--;
	} else if (ch >= 0x20 && ch < 0x7f && s->len + 1 < sizeof(s->line)) {
		s->line[s->len++] = (char)ch;
	}
	return 1;
}

int ps_topscreen_read(struct ps_topscreen *s, struct ps_topcmd *cmd)
{
	int ch = getch();

	if (ch == ERR)
		return terminal_gone() ? -EIO : 0;
	if (ch == KEY_RESIZE) {
		cmd->kind = PS_TOPCMD_REDRAW;
		return 1;
	}
	if (s->editing)
		return edit(s, ch, cmd);
	switch (ch) {
	case 'q':
	case 'Q':
		cmd->kind = PS_TOPCMD_QUIT;
		return 1;
	case 'g':
		cmd->kind = PS_TOPCMD_NEXT_GROUP;
		return 1;
	case '1':
	case '2':
	case '3':
	case '4':
	case '5':
	case '6':
	case '7':
		cmd->kind = PS_TOPCMD_GROUP;
		cmd->arg = ch - '1';
		return 1;
	case 's':
		cmd->kind = PS_TOPCMD_NEXT_SORT;
		return 1;
	case 'p':
	case ' ':
		cmd->kind = PS_TOPCMD_PAUSE;
		return 1;
	case '/':
		s->editing = true;
		s->len = 0;
		cmd->kind = PS_TOPCMD_REDRAW;
		return 1;
	default:
		return 0; /* not a key of ours: read on */
	}
}

/* A rate with its unit (ps_top_units), right-aligned in width. */
static void rate(double x, int width)
{
	char b[16];

	ps_top_units(x, b, sizeof(b));
	printw("%*s ", width, b);
}

static void draw_rows(const struct ps_topframe *f)
{
	attron(A_REVERSE);
	mvprintw(2, 0, "%7s %8s %7s %8s %7s %6s  %-*s", "IN/S", "IN B/S", "OUT/S", "OUT B/S",
		 "DROP/S", "SHARE", COLS - 52, "NAME");
	attroff(A_REVERSE);
	for (size_t i = 0; i < f->n_rows; i++) {
		const struct ps_top_row *r = f->rows[i];
		double all = r->bps[PS_TOP_IN] + r->bps[PS_TOP_OUT] + r->bps[PS_TOP_DROPPED];

		move(3 + (int)i, 0);
		rate(r->pps[PS_TOP_IN], 7);
		rate(r->bps[PS_TOP_IN], 8);
		rate(r->pps[PS_TOP_OUT], 7);
		rate(r->bps[PS_TOP_OUT], 8);
		rate(r->pps[PS_TOP_DROPPED], 7);
		printw("%5.1f%%  %.*s", f->total_bps > 0 ? 100 * all / f->total_bps : 0.0,
		       COLS - 52 > 0 ? COLS - 52 : 0, r->name);
	}
}

void ps_topscreen_draw(struct ps_topscreen *s, const struct ps_topframe *f)
{
	erase();
	if (too_small()) {
		mvprintw(0, 0, "terminal too small (%dx%d): %dx%d at least", COLS, LINES, MIN_COLS,
			 MIN_LINES);
		refresh();
		return;
	}
	attron(A_BOLD);
	mvprintw(0, 0, "%.*s", COLS, f->title);
	attroff(A_BOLD);
	mvprintw(1, 0, "%.*s", COLS, f->totals);
	draw_rows(f);
	if (s->editing)
		mvprintw(LINES - 1, 0, "filter (Enter sets, Esc leaves): %.*s_", (int)s->len,
			 s->line);
	else if (f->status && *f->status)
		mvprintw(LINES - 1, 0, "%.*s", COLS, f->status);
	else
		mvprintw(LINES - 1, 0, "%.*s", COLS,
			 "g or 1-7: process container flow interface drop pod namespace   "
			 "s: sort   "
			 "p: pause   /: filter   q: quit");
	refresh();
}
