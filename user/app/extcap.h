/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Wireshark's extcap protocol (doc/extcap.adoc; extcap/extcap-base.c is
 * Wireshark's own side of it), spoken by the pktsample binary itself: the
 * dialog's options are pktsample's own command-line options, so a capture
 * from Wireshark goes through the same parser, checks, loader and writer
 * as one from the shell, and one set of file capabilities serves both.
 * Wireshark finds it through a link in its extcap directory.
 *
 *   --extcap-interfaces [--extcap-version=X]   extcap {...} + one interface each
 *   --extcap-interface pktsample:IF --extcap-dlts
 *   --extcap-interface pktsample:IF --extcap-config
 *   --extcap-interface pktsample:IF --extcap-capture-filter F   (a check:
 *        nothing on stdout if F compiles, else libpcap's message)
 *   --capture --extcap-interface pktsample:IF --fifo PATH
 *        [--extcap-capture-filter F] [dialog options]
 *
 * An interface's value is "pktsample:" and the Linux name: a Linux name
 * cannot hold ':', so it never clashes with a real interface.
 *
 * Pure text and mapping; main.c does the I/O.
 */
#ifndef PS_EXTCAP_H
#define PS_EXTCAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "cli.h"

#define PS_EXTCAP_PREFIX "pktsample:"

/* What Wireshark asked for. */
enum ps_extcap_request {
	PS_EXTCAP_NONE = 0,
	PS_EXTCAP_INTERFACES,
	PS_EXTCAP_DLTS,
	PS_EXTCAP_CONFIG,
	PS_EXTCAP_CHECK_FILTER,
	PS_EXTCAP_CAPTURE,
};

/* Was any extcap option given? */
bool ps_extcap_requested(const struct ps_opts *o);

/* The Linux name in an extcap value ("pktsample:eth0" -> "eth0"); NULL if
 * the value is not one of ours. */
const char *ps_extcap_ifname(const char *value);

/* help_url: what Wireshark opens for help (the installed guide). */
void ps_extcap_print_interfaces(FILE *f, const char *help_url, const char *const *names, int n);
void ps_extcap_print_dlts(FILE *f, const char *value);
/* The dialog for interface ifname (lo defaults to TC egress alone, as the
 * command line does). */
void ps_extcap_print_config(FILE *f, const char *ifname);

/*
 * After parsing: decide the request (*req), and for a capture turn the
 * extcap options into the command line's (interface, output, filter,
 * sampling) through ps_cli_set. Returns 0, or -EINVAL with one line in err.
 */
int ps_extcap_apply(struct ps_opts *o, enum ps_extcap_request *req, char *err, size_t errlen);

#endif
