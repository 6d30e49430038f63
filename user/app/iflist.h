/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * -D / --list-interfaces: every interface with what a capture on it would
 * get. The line is made by a pure function from what was looked up
 * (user/kernel/device.h), so its format is unit-tested; ps_iflist_print() does
 * the looking up.
 */
#ifndef PS_IFLIST_H
#define PS_IFLIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "device.h"

/*
 * "4.eth0 [Up, Running] driver ixgbe, link EN10MB, ingress tc-ingress (why),
 * xdp native, tc tcx": the link type written, the ingress hook a default
 * capture uses and why, the XDP mode --xdp-mode auto would use with
 * --hook xdp, and how TC would attach (tcx: the kernel has it, 6.6+).
 */
int ps_iflist_format(char *buf, size_t len, const struct ps_device *d, bool tcx);
/* Every interface, one line each, in index order: 0 or -errno. */
int ps_iflist_print(FILE *f);

#endif
