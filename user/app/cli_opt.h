/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * How the command line's options are declared: one row per option
 * (getopt's name, its help, how its value is taken), in tables that the
 * modules own; cli.c gathers them in --help's order (the capture's own,
 * then sFlow's, the flight recorder's and --top's, then the rest), and
 * cli_check.c calls each module's check of how its options go together.
 * Pure, as the parser.
 */
#ifndef PS_CLI_OPT_H
#define PS_CLI_OPT_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include "cli.h"

/* One word of an option that takes one of a few (--xdp-mode native). */
struct cli_word {
	const char *name;
	unsigned int value;
};

/*
 * One row per option: getopt's table, the help text and the handler, or
 * for a switch, a counted switch or a string kept as given the field of
 * struct ps_opts it sets.
 */
struct cli_opt {
	const char *name;
	char letter; /* its short option (-i), or 0: long only */
	int has_arg;
	const char *arg;
	const char *help;
	int (*set)(struct ps_opts *o, const char *arg, char *err, size_t errlen);
	size_t field; /* SET_FLAG: a bool, SET_COUNT and SET_WORD: an unsigned int (or
		       * enum), SET_STR: a const char * in struct ps_opts */
	const struct cli_word *words; /* SET_WORD: its words and their values */
	const char *shown;	      /* SET_WORD: the option as its error names it */
	bool live;		      /* only a live capture takes it, not -r */
	bool hidden;		      /* not in --help: Wireshark's extcap options */
	bool no_config;		      /* not a setting of a configuration file (config.h) */
	enum { SET_BY_FN, SET_FLAG, SET_COUNT, SET_STR, SET_WORD } kind; /* SET_BY_FN: set() */
};
/* A switch: sets a bool. A counted switch (-t, -x, ...): each use adds one. */
#define FLAG(f) .kind = SET_FLAG, .field = offsetof(struct ps_opts, f)
#define COUNT(f) .kind = SET_COUNT, .field = offsetof(struct ps_opts, f)
/* A string kept as given (the extcap options; user/app/extcap.c checks them). */
#define STR(f) .kind = SET_STR, .field = offsetof(struct ps_opts, f)
/* One of a few words, into an unsigned int or enum field (in the error's
 * order: "use native, skb or auto"). */
#define WORDS(shown_as, f, ...)                                                    \
	.kind = SET_WORD, .field = offsetof(struct ps_opts, f), .shown = shown_as, \
	.words = (const struct cli_word[])                                         \
	{                                                                          \
		__VA_ARGS__,                                                       \
		{                                                                  \
			NULL, 0                                                    \
		}                                                                  \
	}
_Static_assert(sizeof(enum ps_xdp_mode) == sizeof(unsigned int), "SET_WORD writes enums");
/* Marks a row that -r refuses. */
#define LIVE .live = true
/* Marks a row --help does not list. */
#define HIDDEN .hidden = true
/* Marks a row a configuration file cannot have: what is no capture's. */
#define NOCONF .no_config = true

/* A module's rows, in --help's order. */
struct cli_table {
	const struct cli_opt *rows;
	size_t n;
};
#define CLI_TABLE(rows)                                \
	{                                              \
		rows, sizeof(rows) / sizeof((rows)[0]) \
	}

/* sFlow's export (cli_sflow.c): --sflow and --sflow-*. Its check needs
 * the sampling settled, and settles sFlow's rate and defaults. */
extern const struct cli_table cli_sflow_table;
int cli_check_sflow(struct ps_opts *o, char *err, size_t errlen);
/* The flight recorder (cli_flight.c): --flight and what goes with it;
 * its check parses each --trigger and settles the defaults. */
extern const struct cli_table cli_flight_table;
int cli_check_flight(struct ps_opts *o, char *err, size_t errlen);
/* --top (cli_top.c) and its options; its check: they go together, and
 * --top alone has stdout. */
extern const struct cli_table cli_top_table;
int cli_check_top(const struct ps_opts *o, char *err, size_t errlen);

#endif
