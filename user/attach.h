/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Attaching the hooks and, above all, detaching exactly what was attached:
 * XDP through libxdp, TC through tcx links (which the kernel removes if the
 * process dies) or, where tcx is missing or --tc-mode clsact asks for it,
 * through a clsact qdisc + filter, removing the qdisc only if we created it.
 */
#ifndef PS_ATTACH_H
#define PS_ATTACH_H

#include <stdbool.h>
#include <net/if.h>
#include "cli.h"

struct xdp_program;

enum ps_attach_kind { PS_ATT_XDP, PS_ATT_TCX, PS_ATT_CLSACT };

struct ps_attachment {
	enum ps_attach_kind kind;
	unsigned int hook;    /* enum ps_hook */
	int ifindex;
	char ifname[IF_NAMESIZE];
	int xdp_mode;         /* enum xdp_attach_mode actually used */
	int link_fd;          /* tcx */
	bool created_qdisc;   /* clsact */
	unsigned int handle, priority;
};

struct ps_attachments {
	struct xdp_program *xdp_prog; /* shared by every XDP attachment */
	struct ps_attachment list[PS_MAX_IFACES * 3];
	int n;
	bool xdp_single_prog; /* libxdp attached without its dispatcher */
};

int ps_attach_xdp(struct ps_attachments *a, int ifindex, const char *ifname,
		  enum ps_xdp_mode mode);
int ps_attach_tc(struct ps_attachments *a, int prog_fd, int ifindex,
		 const char *ifname, unsigned int hook, enum ps_tc_mode mode);
/* Detach in reverse order; safe to call more than once. */
void ps_detach_all(struct ps_attachments *a);

const char *ps_attach_kind_name(const struct ps_attachment *att);

#endif
