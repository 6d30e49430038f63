/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Attaching the hooks and, above all, detaching exactly what was attached:
 * XDP through a BPF link (or libxdp with --xdp-attach libxdp), TC through
 * tcx links (links: the kernel removes them when the process dies, however
 * it dies) or, where tcx is missing or --tc-mode clsact asks for it,
 * through a clsact qdisc + filter: our filters only, and the qdisc only if
 * we created it and nothing else is on it. Every function logs its own
 * failure.
 */
#ifndef PS_ATTACH_H
#define PS_ATTACH_H

#include <stdbool.h>
#include <net/if.h>
#include "hooks.h"
#include "pktsample.h"

struct bpf_object;
struct xdp_program;

enum ps_attach_kind { PS_ATT_XDP, PS_ATT_XDP_LINK, PS_ATT_TCX, PS_ATT_CLSACT };

struct ps_attachment {
	enum ps_attach_kind kind;
	unsigned int hook;    /* enum ps_hook */
	int ifindex;
	char ifname[IF_NAMESIZE];
	int xdp_mode;         /* enum xdp_attach_mode actually used */
	int link_fd;          /* XDP and tcx links */
	bool created_qdisc;   /* clsact */
	bool gone;            /* the interface disappeared, and with it this */
	unsigned int handle, priority;
};

struct ps_attachments {
	enum ps_xdp_attach xdp_via;
	int xdp_prog_fd;              /* links */
	struct xdp_program *xdp_prog; /* libxdp: shared by every XDP attachment */
	bool remove_stale;            /* clsact: remove killed runs' filters */
	struct ps_attachment list[PS_MAX_IFACES * PS_HOOK_MAX];
	int n;
	bool xdp_single_prog; /* libxdp attached without its dispatcher */
};

/*
 * The XDP mode --xdp-mode auto picks for a driver, by measurement: on veth
 * the generic (skb) hook is cheaper, because native XDP there converts and
 * copies every skb; elsewhere native, falling back to skb where the driver
 * has no XDP support. Pure: the driver name comes from ps_iface_driver().
 */
enum ps_xdp_mode ps_xdp_default_mode(const char *driver);
/* The interface's driver name, as ethtool -i shows it; 0 or -errno. */
int ps_iface_driver(const char *ifname, char *buf, size_t size);
/* --xdp-mode as asked, or for auto the driver's default (auto if unknown). */
enum ps_xdp_mode ps_xdp_resolve_mode(enum ps_xdp_mode asked, const char *ifname);
const char *ps_xdp_mode_name(enum ps_xdp_mode mode);

/* Once, before ps_attach_xdp: how XDP attaches, and (libxdp) hand it the
 * loaded program. */
int ps_attach_prepare_xdp(struct ps_attachments *a, struct bpf_object *obj,
			  const char *prog_name, int prog_fd, enum ps_xdp_attach via);
int ps_attach_xdp(struct ps_attachments *a, int ifindex, const char *ifname,
		  enum ps_xdp_mode mode);
int ps_attach_tc(struct ps_attachments *a, int prog_fd, int ifindex,
		 const char *ifname, unsigned int hook, enum ps_tc_mode mode);
/* Detach in reverse order; safe to call more than once. 0, or the first
 * failure (logged: something may be left attached). */
int ps_detach_all(struct ps_attachments *a);
/* ifindex disappeared: what was attached there went with it. */
void ps_attach_forget(struct ps_attachments *a, int ifindex);
/* Detach all, and let go of the XDP program. */
void ps_attach_release(struct ps_attachments *a);

const char *ps_attach_kind_name(const struct ps_attachment *att);

#endif
