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

struct ps_opts;
struct ps_print_opts;

/* The expression (NULL: none) is checked before OUT is touched. Returns
 * 0, or -errno (logged); -EINVAL for a usage error (bad expression). */
int ps_readfile_run(const struct ps_opts *o, const struct ps_print_opts *po,
		    const char *expr);

#endif
