/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * TC through a clsact qdisc, for kernels without tcx (before 6.6) or when
 * --tc-mode clsact asks for it: a filter that, unlike a link, outlives the
 * process that attached it. So everything here is about leaving exactly
 * what others had: our filter only, the qdisc only if we created it and
 * nothing else is on it, and a filter a killed run left (its program held
 * by no process) removed at the next start on that hook.
 */
#ifndef PS_CLSACT_H
#define PS_CLSACT_H

#include <stdbool.h>
#include <linux/types.h>

/* One filter of ours, as much as it takes to remove exactly it. */
struct ps_clsact {
	__s32 ifindex;
	__u32 handle, priority;
	__u32 prog_id; /* to tell it from a filter put there since */
	__u8 ingress;
	__u8 created_qdisc; /* we made the qdisc: it goes when it is empty */
	__u8 pad[2];
};

/*
 * prog_fd as a direct-action filter on c->ifindex's clsact c->ingress
 * side, making the qdisc if there is none, at a pref before (first) or
 * after all filters there; *others: how many those are. First removes the
 * filters killed runs left on that hook (ifname for the line that says
 * so). Fills in the rest of *c. 0 or -errno (not logged: the caller names
 * the hook); -ERANGE: a filter has pref 1 (first) or 65535 (last).
 */
int ps_clsact_attach(struct ps_clsact *c, int prog_fd, const char *ifname, bool first, int *others);
/*
 * Remove c's filter if it is still there and still runs c's program, then
 * the qdisc if c made it and nothing else is on it. 0 (also when it was
 * gone already) or -errno.
 */
int ps_clsact_detach(const struct ps_clsact *c);

#endif
