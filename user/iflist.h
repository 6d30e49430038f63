/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * -D / --list-interfaces: every interface with what a capture on it would
 * get. The line is made by a pure function from what was looked up, so its
 * format is unit-tested; ps_iflist_print() does the looking up.
 */
#ifndef PS_IFLIST_H
#define PS_IFLIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <net/if.h>

struct ps_ifinfo {
	int index;
	char name[IF_NAMESIZE];
	unsigned int flags;     /* IFF_* */
	char driver[32];        /* "" if unknown */
	int xdp_native;         /* driver XDP (netdev xdp-features): 1, 0, -1 unknown */
	bool tcx;               /* the kernel has tcx (6.6+) */
};

/*
 * "1.eth0 [Up, Running] driver ixgbe, xdp native, tc tcx": the XDP mode
 * --xdp-mode auto would use (skb on veth, where it measured cheaper; native
 * where the driver has XDP; skb otherwise), and how TC would attach.
 */
int ps_iflist_format(char *buf, size_t len, const struct ps_ifinfo *i);
/* Every interface, one line each, in index order: 0 or -errno. */
int ps_iflist_print(FILE *f);

#endif
