/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * -r FILE: print a capture file (ours, with each packet's interface, hook
 * and annotations; or anyone's) with the live view's printer, keeping the
 * packets a filter expression selects (libpcap's compiler and
 * pcap_offline_filter, per link type); with -w OUT, copy the selection
 * in the file's own format, blocks and options unchanged.
 */
#ifndef PS_READFILE_H
#define PS_READFILE_H

#include <stdbool.h>
#include <stdint.h>
#include "printer.h"

/* What -r needs of the options. */
struct ps_readfile_cfg {
	const char *path;   /* -r: a file, or '-' for stdin */
	const char *output; /* -w: the copy; NULL: none */
	bool print;	    /* print the packets */
	struct ps_print_opts print_opts;
	bool line_buffered; /* -l */
	uint64_t count;	    /* -c: stop after that many; 0: all */
	const char *expr;   /* the filter expression; NULL: none */
	bool by_packet;	    /* --path: a line per packet (readpath.h) */
};

/* The expression is checked before OUT is touched. Returns 0, or -errno
 * (logged); -EINVAL for a usage error (bad expression). */
int ps_readfile_run(const struct ps_readfile_cfg *cfg);

#endif
