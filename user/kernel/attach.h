/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Attaching the hooks and, above all, detaching exactly what was attached:
 * XDP through a BPF link (or libxdp with --xdp-attach libxdp), TC through
 * tcx links (links: the kernel removes them when the process dies, however
 * it dies) or, where tcx is missing or --tc-mode clsact asks for it,
 * through a clsact qdisc + filter (clsact.h), which a guardian process
 * removes should we be killed (guardian.h). Every function logs its own
 * failure.
 */
#ifndef PS_ATTACH_H
#define PS_ATTACH_H

#include <stdbool.h>
#include <net/if.h>
#include "clsact.h"
#include "hooks.h"
#include "pktsample.h"

struct bpf_object;
struct ps_device;
struct xdp_program;

enum ps_attach_kind {
	PS_ATT_XDP,
	PS_ATT_XDP_LINK,
	PS_ATT_TCX,
	PS_ATT_CLSACT,
	PS_ATT_TRACE_LINK, /* fentry/fexit on another XDP program */
	PS_ATT_RAW_TP,	   /* the drop hook: a raw tracepoint, one for all interfaces */
};

struct ps_attachment {
	enum ps_attach_kind kind;
	unsigned int hook; /* enum ps_hook */
	int ifindex;
	char ifname[IF_NAMESIZE];
	int xdp_mode;		      /* enum xdp_attach_mode actually used */
	struct xdp_program *xdp_prog; /* libxdp: the one attached */
	bool vlan_meta;		      /* XDP: the program bound to the device, which
			       * gets the VLAN tag the driver stripped */
	int link_fd;		      /* XDP, tcx and trace links; the raw tracepoint's fd */
	struct ps_clsact clsact;
	int others; /* TC: programs or filters already on the hook */
	bool gone;  /* the interface disappeared, and with it this */
};

struct ps_attachments {
	enum ps_xdp_attach xdp_via;
	/* The XDP programs: [0] multi-buffer, for native mode; [1] for skb
	 * (generic) mode. fd -1: not loaded. */
	int xdp_prog_fd[2];
	struct xdp_program *xdp_prog[2]; /* libxdp */
	bool cost_warned[3];		 /* skb, native on veth, native elsewhere */
	int guard_fd;			 /* clsact: the guardian's pipe, or -1 */
	struct ps_attachment *list;	 /* in the order attached */
	int n, room;
	bool xdp_single_prog; /* libxdp attached without its dispatcher */
};

/* Once, before ps_attach_xdp: how XDP attaches, and the loaded programs
 * (names and fds: [0] native, [1] skb; fd -1 for one not loaded). */
int ps_attach_prepare_xdp(struct ps_attachments *a, struct bpf_object *obj,
			  const char *const names[2], const int fds[2], enum ps_xdp_attach via);
/*
 * XDP on d in mode (auto: native where the driver has XDP, else skb), or,
 * with dev_prog_fd >= 0, that program (bound to d: native, through a
 * link). A refusal is one line naming the program in the way, ours or an
 * upper device's.
 */
int ps_attach_xdp(struct ps_attachments *a, const struct ps_device *d, enum ps_xdp_mode mode,
		  int dev_prog_fd);
/*
 * Once everything is attached: what XDP in the mode it got costs d, once
 * per kind of cost and run (the default never attaches XDP, so this is
 * for an explicit --hook xdp), and for a NIC that strips VLAN tags before
 * native XDP, that it does.
 */
void ps_attach_warn_xdp_cost(struct ps_attachments *a, const struct ps_device *d);
/*
 * xdp-entry or xdp-exit (hook): the loaded fentry/fexit program prog_fd,
 * already aimed at the XDP program on d, attached through a BPF link (gone
 * when we are). The traced program stays as it was.
 */
int ps_attach_xdp_trace(struct ps_attachments *a, int prog_fd, const struct ps_device *d,
			unsigned int hook);
/*
 * The drop hook: prog_fd on the kfree_skb raw tracepoint, once for every
 * interface (the program keeps to the captured ones). Its fd is the
 * attachment: gone when we are, however we end.
 */
int ps_attach_drop(struct ps_attachments *a, int prog_fd);
/*
 * TC through tcx, or clsact where mode or the kernel says (told to the
 * guardian at a->guard_fd), at pos in the chain already there.
 */
int ps_attach_tc(struct ps_attachments *a, int prog_fd, int ifindex, const char *ifname,
		 unsigned int hook, enum ps_tc_mode mode, enum ps_tc_position pos);
/* Detach in reverse order; safe to call more than once. 0, or the first
 * failure (logged: something may be left attached). */
int ps_detach_all(struct ps_attachments *a);
/*
 * Detach what is attached to ifindex (the drop hook's tracepoint stays),
 * and take it off the list. gone: the interface disappeared, and what was
 * attached there with it (links are closed, the guardian told). 0, or the
 * first failure (logged).
 */
int ps_detach_iface(struct ps_attachments *a, int ifindex, bool gone);
/* Detach all, and let go of the XDP program. */
void ps_attach_release(struct ps_attachments *a);

const char *ps_attach_kind_name(const struct ps_attachment *att);
/* Is anything attached through clsact (a filter to remove at exit)? */
bool ps_attach_has_clsact(const struct ps_attachments *a);
/*
 * A reload with new programs: can every attachment take another program in
 * place, atomically (tcx and XDP links: link update; clsact: the filter
 * replaced)? Not libxdp's, the device-bound XDP, traces, the drop hook.
 */
bool ps_attach_can_replace(const struct ps_attachments *a);
/*
 * Every attachment's program swapped for the one of new_fd, indexed by
 * hook (TC) or PS_REPLACE_XDP / PS_REPLACE_XDP_SKB (XDP by mode), all or
 * none: on a failure (logged), those done get old_fd's back. 0 or -errno.
 */
#define PS_REPLACE_XDP PS_HOOK_XDP
#define PS_REPLACE_XDP_SKB PS_HOOK_MAX
#define PS_REPLACE_SLOTS (PS_HOOK_MAX + 1)
int ps_attach_replace(struct ps_attachments *a, const int *new_fd, const int *old_fd);
/* Is anything attached through tcx (so the kernel has it)? */
bool ps_attach_has_tcx(const struct ps_attachments *a);

#endif
