// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>
#include "attach.h"
#include "clsact.h"
#include "device.h"
#include "guardian.h"
#include "linkwatch.h"
#include "log.h"
#include "pktsample.h"

/* Not in libbpf 1.1's uapi copy; the kernel has had them since 6.6. */
#define PS_BPF_TCX_INGRESS 46
#define PS_BPF_TCX_EGRESS 47

/* The mode libxdp or the link attached in. */
static const char *xdp_mode_name(int mode)
{
	switch (mode) {
	case XDP_MODE_NATIVE:
		return "native";
	case XDP_MODE_SKB:
		return "skb";
	case XDP_MODE_HW:
		return "hw";
	default:
		return "unknown";
	}
}

const char *ps_attach_kind_name(const struct ps_attachment *att)
{
	switch (att->kind) {
	case PS_ATT_XDP:
	case PS_ATT_XDP_LINK:
		return xdp_mode_name(att->xdp_mode);
	case PS_ATT_TCX:
		return "tcx";
	case PS_ATT_TRACE_LINK:
		return att->hook == PS_HOOK_XDP_ENTRY ? "fentry" : "fexit";
	case PS_ATT_RAW_TP:
		return "raw tracepoint kfree_skb";
	default:
		return "clsact";
	}
}

/* The mode asked for (--xdp-mode, or what auto chose). */
static const char *asked_mode_name(enum ps_xdp_mode mode)
{
	switch (mode) {
	case PS_XDP_NATIVE:
		return "native";
	case PS_XDP_SKB:
		return "skb";
	default:
		return "auto";
	}
}

static struct ps_attachment *new_slot(struct ps_attachments *a, int ifindex, const char *ifname,
				      unsigned int hook)
{
	struct ps_attachment *att;

	if (a->n == a->room) {
		int room = a->room ? 2 * a->room : 16;

		att = realloc(a->list, (size_t)room * sizeof(*att));
		if (!att)
			return NULL;
		a->list = att;
		a->room = room;
	}
	att = &a->list[a->n];
	memset(att, 0, sizeof(*att));
	att->ifindex = ifindex;
	att->hook = hook;
	att->link_fd = -1;
	snprintf(att->ifname, sizeof(att->ifname), "%s", ifname);
	return att;
}

/*
 * libxdp prefers its dispatcher, which needs bpffs and freplace; where it
 * cannot have them (as here) it attaches our program alone, which means no
 * other XDP program can share the interface while we run.
 */
static bool attached_without_dispatcher(int ifindex)
{
	struct xdp_multiprog *mp = xdp_multiprog__get_from_ifindex(ifindex);
	bool legacy;

	if (libxdp_get_error(mp) || !mp)
		return false;
	legacy = xdp_multiprog__is_legacy(mp);
	xdp_multiprog__close(mp);
	return legacy;
}

int ps_attach_prepare_xdp(struct ps_attachments *a, struct bpf_object *obj,
			  const char *const names[2], const int fds[2], enum ps_xdp_attach via)
{
	a->xdp_via = via;
	for (int i = 0; i < 2; i++) {
		DECLARE_LIBXDP_OPTS(xdp_program_opts, xopts, .obj = obj, .prog_name = names[i]);
		int err;

		a->xdp_prog_fd[i] = fds[i];
		if (via == PS_XDP_VIA_LINK || fds[i] < 0)
			continue;
		a->xdp_prog[i] = xdp_program__create(&xopts);
		err = libxdp_get_error(a->xdp_prog[i]);
		if (err) {
			a->xdp_prog[i] = NULL;
			pr_err("cannot prepare the XDP program: %s\n", strerror(-err));
			return err;
		}
	}
	return 0;
}

void ps_attach_release(struct ps_attachments *a)
{
	ps_detach_all(a);
	for (int i = 0; i < 2; i++) {
		xdp_program__close(a->xdp_prog[i]);
		a->xdp_prog[i] = NULL;
	}
	free(a->list);
	a->list = NULL;
	a->room = 0;
}

/* The program for a mode: multi-buffer aware for native XDP, plain for
 * generic (skb) XDP, where a multi-buffer program makes the kernel copy
 * every skb and hand the copy on without its MAC header. */
static int prog_index(enum ps_xdp_mode mode)
{
	return mode == PS_XDP_SKB ? 1 : 0;
}

static int attach_xdp_libxdp(struct ps_attachments *a, struct ps_attachment *att,
			     enum ps_xdp_mode mode)
{
	static const enum xdp_attach_mode modes[] = {
		[PS_XDP_NATIVE] = XDP_MODE_NATIVE,
		[PS_XDP_SKB] = XDP_MODE_SKB,
	};
	struct xdp_program *prog = a->xdp_prog[prog_index(mode)];
	int err;

	if (!prog)
		return -ENOENT;
	err = xdp_program__attach(prog, att->ifindex, modes[mode], 0);
	if (err)
		return err;
	att->xdp_mode = xdp_program__is_attached(prog, att->ifindex);
	att->xdp_prog = prog;
	if (attached_without_dispatcher(att->ifindex))
		a->xdp_single_prog = true;
	return 0;
}

/*
 * A BPF link (kernel 5.9+): it lives exactly as long as its fd, so the
 * kernel detaches it when the process ends however it ends, and detaching
 * needs no lookup and no privilege.
 */
static int xdp_link_create(struct ps_attachment *att, int prog_fd, enum ps_xdp_mode mode)
{
	LIBBPF_OPTS(bpf_link_create_opts, opts,
		    .flags = mode == PS_XDP_SKB ? XDP_FLAGS_SKB_MODE : XDP_FLAGS_DRV_MODE);
	int fd;

	if (prog_fd < 0)
		return -ENOENT;
	fd = bpf_link_create(prog_fd, att->ifindex, BPF_XDP, &opts);
	if (fd < 0)
		return -errno;
	att->link_fd = fd;
	att->xdp_mode = mode == PS_XDP_SKB ? XDP_MODE_SKB : XDP_MODE_NATIVE;
	return 0;
}

static int attach_xdp_mode(struct ps_attachments *a, struct ps_attachment *att,
			   enum ps_xdp_mode mode)
{
	return att->kind == PS_ATT_XDP_LINK ?
		       xdp_link_create(att, a->xdp_prog_fd[prog_index(mode)], mode) :
		       attach_xdp_libxdp(a, att, mode);
}

/* The id and name of the XDP program on ifindex, if any: 1, else 0. */
static int xdp_prog_on(int ifindex, __u32 *id, char *name, size_t len)
{
	struct bpf_prog_info info = { 0 };
	__u32 info_len = sizeof(info);
	int fd;

	if (ps_link_xdp_prog_id(ifindex, id) || !*id)
		return 0;
	snprintf(name, len, "?");
	fd = bpf_prog_get_fd_by_id(*id);
	if (fd >= 0) {
		if (!bpf_obj_get_info_by_fd(fd, &info, &info_len))
			snprintf(name, len, "%s", info.name);
		close(fd);
	}
	return 1;
}

/*
 * EEXIST/EBUSY: a program of someone else's on the device, or one on a
 * device above it (bridge, macvlan, VLAN, bond), which the kernel does not
 * allow below XDP: say which, and what to use instead.
 */
static void explain_busy(const struct ps_device *d, int err)
{
	char name[BPF_OBJ_NAME_LEN + 1], upper[IF_NAMESIZE];
	__u32 id;

	if (xdp_prog_on(d->ifindex, &id, name, sizeof(name))) {
		pr_err("cannot attach XDP to %s: XDP program %u (%s) is attached there; "
		       "capture with --hook %s instead\n",
		       d->name, id, name,
		       d->xdp_prog_id == id && d->xdp_traceable == 1 ?
			       "xdp-entry,xdp-exit (around it)" :
			       "tc-ingress");
		return;
	}
	for (int i = 0; i < d->n_uppers; i++)
		if (xdp_prog_on(d->uppers[i], &id, name, sizeof(name))) {
			pr_err("cannot attach XDP to %s: its upper device %s has XDP program "
			       "%u (%s), and the kernel takes no XDP below it; capture %s with "
			       "--hook tc-ingress instead\n",
			       d->name,
			       if_indextoname((unsigned int)d->uppers[i], upper) ? upper : "?", id,
			       name, d->name);
			return;
		}
	pr_err("cannot attach XDP to %s: %s, with no XDP program there or above it\n", d->name,
	       strerror(-err));
}

void ps_attach_warn_xdp_cost(struct ps_attachments *a, const struct ps_device *d)
{
	const struct ps_attachment *att = NULL;
	bool skb, veth = !strcmp(d->driver, "veth");
	const char *vlan = "";
	int kind;

	for (int i = 0; i < a->n; i++)
		if (a->list[i].hook == PS_HOOK_XDP && a->list[i].ifindex == d->ifindex)
			att = &a->list[i];
	if (!att)
		return; /* no XDP there */
	skb = att->xdp_mode == XDP_MODE_SKB;
	kind = skb ? 0 : veth ? 1 : 2;
	/* Out-of-band tags: generic XDP never sees them; native XDP sees
	 * them only through the driver's metadata (att->vlan_meta). */
	if (skb || (veth && !att->vlan_meta))
		vlan = ", and it misses VLAN tags held out of band";
	if (!a->cost_warned[kind])
		pr_warn("xdp: %s mode on %s %s%s; --hook tc-ingress sees the same packets "
			"without that\n",
			skb ? "skb" : "native", d->name,
			ps_device_xdp_cost(d, skb ? PS_XDP_SKB : PS_XDP_NATIVE), vlan);
	a->cost_warned[kind] = true;
	/* A NIC that strips tags before native XDP and does not hand them
	 * over: say so for each. */
	if (kind == 2 && !att->vlan_meta && d->rx_vlan_offload == 1)
		pr_warn("xdp: %s strips VLAN tags before XDP (rx-vlan-offload): tagged frames are "
			"recorded untagged at xdp; 'ethtool -K %s rxvlan off' keeps them\n",
			d->name, d->name);
}

int ps_attach_xdp(struct ps_attachments *a, const struct ps_device *d, enum ps_xdp_mode mode,
		  int dev_prog_fd)
{
	struct ps_attachment *att = new_slot(a, d->ifindex, d->name, PS_HOOK_XDP);
	char msg[256];
	int err;

	if (!att) {
		pr_err("cannot attach XDP to %s: %s\n", d->name, strerror(ENOMEM));
		return -ENOMEM;
	}
	att->kind = a->xdp_via == PS_XDP_VIA_LINK ? PS_ATT_XDP_LINK : PS_ATT_XDP;
	if (dev_prog_fd >= 0) { /* bound to d: native, through a link */
		err = xdp_link_create(att, dev_prog_fd, PS_XDP_NATIVE);
		att->kind = PS_ATT_XDP_LINK;
		att->vlan_meta = !err;
		mode = PS_XDP_NATIVE;
	} else {
		/* auto: native where the driver has it, else generic. */
		err = attach_xdp_mode(a, att, mode == PS_XDP_SKB ? PS_XDP_SKB : PS_XDP_NATIVE);
	}
	if (mode == PS_XDP_AUTO && err == -EOPNOTSUPP) {
		mode = PS_XDP_SKB;
		err = attach_xdp_mode(a, att, mode);
	} else if (mode == PS_XDP_AUTO) {
		mode = PS_XDP_NATIVE;
	}
	if (err) {
		libxdp_strerror(err, msg, sizeof(msg));
		if (err == -EEXIST || err == -EBUSY)
			explain_busy(d, err);
		else
			pr_err("cannot attach XDP to %s in %s mode: %s (-v for details)\n", d->name,
			       asked_mode_name(mode), msg);
		return err;
	}
	a->n++;
	pr_info("xdp: attached to %s (%s mode, %s%s)\n", d->name, xdp_mode_name(att->xdp_mode),
		att->kind == PS_ATT_XDP_LINK ? "BPF link" : "libxdp",
		att->vlan_meta ? ", VLAN tags from the driver" : "");
	return 0;
}

int ps_attach_xdp_trace(struct ps_attachments *a, int prog_fd, const struct ps_device *d,
			unsigned int hook)
{
	struct ps_attachment *att = new_slot(a, d->ifindex, d->name, hook);
	enum bpf_attach_type type = hook == PS_HOOK_XDP_ENTRY ? BPF_TRACE_FENTRY : BPF_TRACE_FEXIT;
	int fd, err;

	if (!att) {
		pr_err("cannot attach %s to %s: %s\n", ps_hook_name(hook), d->name,
		       strerror(ENOMEM));
		return -ENOMEM;
	}
	att->kind = PS_ATT_TRACE_LINK;
	fd = bpf_link_create(prog_fd, 0, type, NULL);
	if (fd < 0) {
		err = -errno;
		pr_err("cannot attach %s to XDP program %u (%s) on %s: %s; --hook tc-ingress sees "
		       "what it passes\n",
		       ps_hook_name(hook), d->xdp_prog_id, d->xdp_prog_name, d->name,
		       strerror(-err));
		return err;
	}
	att->link_fd = fd;
	a->n++;
	pr_info("%s: around XDP program %u (%s) on %s (%s)\n", ps_hook_name(hook), d->xdp_prog_id,
		d->xdp_prog_name, d->name, ps_attach_kind_name(att));
	return 0;
}

int ps_attach_drop(struct ps_attachments *a, int prog_fd)
{
	struct ps_attachment *att = new_slot(a, 0, "all", PS_HOOK_DROP);
	int fd, err;

	if (!att) {
		pr_err("cannot attach drop: %s\n", strerror(ENOMEM));
		return -ENOMEM;
	}
	att->kind = PS_ATT_RAW_TP;
	fd = bpf_raw_tracepoint_open("kfree_skb", prog_fd);
	if (fd < 0) {
		err = -errno;
		pr_err("cannot attach drop to the kfree_skb tracepoint: %s\n", strerror(-err));
		return err;
	}
	att->link_fd = fd;
	a->n++;
	pr_info("drop: attached (%s)\n", ps_attach_kind_name(att));
	return 0;
}

/* Not in Debian 12's uapi headers either (6.6+): where in the chain. */
#define PS_BPF_F_BEFORE (1U << 3)
#define PS_BPF_F_AFTER (1U << 4)

/* A TC hook's tcx attach type. */
static int tcx_type(unsigned int hook)
{
	return hook == PS_HOOK_TC_INGRESS ? PS_BPF_TCX_INGRESS : PS_BPF_TCX_EGRESS;
}

/* How many tcx programs the hook has (0 where the kernel has no tcx): one
 * query, which waits for nothing. */
static int tcx_programs_at(int ifindex, unsigned int hook)
{
	__u32 count = 0;

	return bpf_prog_query(ifindex, tcx_type(hook), 0, NULL, NULL, &count) ? 0 : (int)count;
}

static int attach_tcx(struct ps_attachment *att, int prog_fd, bool first)
{
	/* No relative program: before all, or after all. */
	LIBBPF_OPTS(bpf_link_create_opts, opts, .flags = first ? PS_BPF_F_BEFORE : PS_BPF_F_AFTER);
	int fd = bpf_link_create(prog_fd, att->ifindex, tcx_type(att->hook), &opts), n;

	if (fd < 0)
		return -errno;
	att->kind = PS_ATT_TCX;
	att->link_fd = fd;
	n = tcx_programs_at(att->ifindex, att->hook);
	if (n)
		att->others = n - 1;
	return 0;
}

static int attach_clsact(struct ps_attachments *a, struct ps_attachment *att, int prog_fd,
			 bool first)
{
	int err;

	/* tcx was expected, and this interface needs clsact after all. */
	if (a->guard_fd < 0) {
		int fd = ps_guardian_start();

		if (fd < 0)
			return fd;
		a->guard_fd = fd;
	}
	att->clsact.ifindex = att->ifindex;
	att->clsact.ingress = att->hook == PS_HOOK_TC_INGRESS;
	err = ps_clsact_attach(&att->clsact, prog_fd, att->ifname, first, &att->others);
	if (err)
		return err;
	att->kind = PS_ATT_CLSACT;
	ps_guardian_tell(a->guard_fd, &att->clsact, true);
	return 0;
}

int ps_attach_tc(struct ps_attachments *a, int prog_fd, int ifindex, const char *ifname,
		 unsigned int hook, enum ps_tc_mode mode, enum ps_tc_position pos)
{
	struct ps_attachment *att = new_slot(a, ifindex, ifname, hook);
	bool first = pos == PS_TC_FIRST || (pos == PS_TC_WIRE && hook == PS_HOOK_TC_INGRESS);
	char where[80];
	int err = -EOPNOTSUPP;

	if (!att) {
		pr_err("cannot attach %s to %s: %s\n", ps_hook_name(hook), ifname,
		       strerror(ENOMEM));
		return -ENOMEM;
	}
	if (mode == PS_TC_AUTO_MANY)
		mode = tcx_programs_at(ifindex, hook) > 0 ? PS_TC_AUTO : PS_TC_CLSACT;
	if (mode != PS_TC_CLSACT) {
		err = attach_tcx(att, prog_fd, first);
		/* Kernels before 6.6 answer EINVAL for an unknown attach type. */
		if (err && mode == PS_TC_AUTO && (err == -EINVAL || err == -EOPNOTSUPP)) {
			pr_info("%s: tcx not available (%s), using clsact\n", ifname,
				strerror(-err));
			err = attach_clsact(a, att, prog_fd, first);
		} else if (err == -EINVAL || err == -EOPNOTSUPP) {
			pr_err("cannot attach %s to %s through tcx: this kernel has no tcx "
			       "(it came with 6.6); --tc-mode auto or clsact attaches through "
			       "a clsact qdisc\n",
			       ps_hook_name(hook), ifname);
			return err;
		}
	} else {
		err = attach_clsact(a, att, prog_fd, first);
	}
	if (err == -ERANGE) {
		pr_err("cannot attach %s to %s %s: a filter there already has pref %s\n",
		       ps_hook_name(hook), ifname, first ? "first" : "last", first ? "1" : "65535");
		return err;
	}
	if (err) {
		pr_err("cannot attach %s to %s: %s\n", ps_hook_name(hook), ifname, strerror(-err));
		return err;
	}
	a->n++;
	/* Where in the chain, for -v (clsact: the pref others can see). */
	if (att->kind == PS_ATT_CLSACT)
		snprintf(where, sizeof(where), "clsact pref %u", att->clsact.priority);
	else
		snprintf(where, sizeof(where), "tcx");
	if (att->others)
		pr_info("%s: attached to %s (%s, %s %d other %s%s)\n", ps_hook_name(hook), ifname,
			where, first ? "before" : "after", att->others,
			att->kind == PS_ATT_CLSACT ? "filter" : "program",
			att->others == 1 ? "" : "s");
	else
		pr_info("%s: attached to %s (%s, alone there)\n", ps_hook_name(hook), ifname,
			where);
	return 0;
}

static int detach_one(struct ps_attachments *a, struct ps_attachment *att)
{
	int err = 0;

	switch (att->kind) {
	case PS_ATT_XDP:
		if (!att->gone)
			err = xdp_program__detach(att->xdp_prog, att->ifindex, att->xdp_mode, 0);
		break;
	case PS_ATT_XDP_LINK:
	case PS_ATT_TCX:
	case PS_ATT_TRACE_LINK:
	case PS_ATT_RAW_TP:
		close(att->link_fd); /* the link's last reference: detaches */
		att->link_fd = -1;
		break;
	case PS_ATT_CLSACT:
		if (!att->gone) /* its qdisc went with the interface */
			err = ps_clsact_detach(&att->clsact);
		if (!err || att->gone)
			ps_guardian_tell(a->guard_fd, &att->clsact, false);
		break;
	}
	if (err)
		pr_err("cannot detach %s from %s: %s\n", ps_hook_name(att->hook), att->ifname,
		       strerror(-err));
	else
		pr_debug("%s: detached from %s\n", ps_hook_name(att->hook), att->ifname);
	return err;
}

int ps_detach_all(struct ps_attachments *a)
{
	int err = 0, e;

	/* Reverse order: a clsact qdisc we created goes after its filters. */
	while (a->n > 0) {
		e = detach_one(a, &a->list[--a->n]);
		if (!err)
			err = e;
	}
	return err;
}

bool ps_attach_can_replace(const struct ps_attachments *a)
{
	for (int i = 0; i < a->n; i++) {
		const struct ps_attachment *att = &a->list[i];

		if (att->gone)
			continue;
		if (att->kind != PS_ATT_TCX && att->kind != PS_ATT_CLSACT &&
		    (att->kind != PS_ATT_XDP_LINK || att->vlan_meta))
			return false;
	}
	return true;
}

/* One attachment's program swapped for prog_fd: 0 or -errno. */
static int replace_one(struct ps_attachments *a, struct ps_attachment *att, int prog_fd)
{
	struct bpf_tc_hook hook;
	int err;

	switch (att->kind) {
	case PS_ATT_TCX:
	case PS_ATT_XDP_LINK:
		return bpf_link_update(att->link_fd, prog_fd, NULL) ? -errno : 0;
	case PS_ATT_CLSACT: {
		DECLARE_LIBBPF_OPTS(bpf_tc_opts, opts, .prog_fd = prog_fd,
				    .flags = BPF_TC_F_REPLACE, .handle = att->clsact.handle,
				    .priority = att->clsact.priority);

		hook = (struct bpf_tc_hook){ .sz = sizeof(hook),
					     .ifindex = att->clsact.ifindex,
					     .attach_point = att->clsact.ingress ? BPF_TC_INGRESS :
										   BPF_TC_EGRESS };
		err = bpf_tc_attach(&hook, &opts);
		if (err)
			return err;
		/* The guardian knows the filter by its program. */
		ps_guardian_tell(a->guard_fd, &att->clsact, false);
		att->clsact.prog_id = opts.prog_id;
		ps_guardian_tell(a->guard_fd, &att->clsact, true);
		return 0;
	}
	default:
		return -EOPNOTSUPP;
	}
}

int ps_attach_replace(struct ps_attachments *a, const int *new_fd, const int *old_fd)
{
	int err = 0, i;

	for (i = 0; i < a->n && !err; i++) {
		struct ps_attachment *att = &a->list[i];
		unsigned int k = att->kind == PS_ATT_XDP_LINK ?
					 (att->xdp_mode == XDP_MODE_SKB ? PS_REPLACE_XDP_SKB :
									  PS_REPLACE_XDP) :
					 att->hook;

		if (att->gone)
			continue;
		err = replace_one(a, att, new_fd[k]);
		if (err)
			pr_err("cannot put the new programs in place on %s %s: %s\n", att->ifname,
			       ps_hook_name(att->hook), strerror(-err));
	}
	/* All or nothing: those done get the old ones back. */
	for (int j = 0; err && j < i - 1; j++) {
		struct ps_attachment *att = &a->list[j];
		unsigned int k = att->kind == PS_ATT_XDP_LINK ?
					 (att->xdp_mode == XDP_MODE_SKB ? PS_REPLACE_XDP_SKB :
									  PS_REPLACE_XDP) :
					 att->hook;

		if (!att->gone)
			replace_one(a, att, old_fd[k]);
	}
	if (!err) {
		/* Interfaces to come get the new ones too. */
		a->xdp_prog_fd[0] = new_fd[PS_REPLACE_XDP];
		a->xdp_prog_fd[1] = new_fd[PS_REPLACE_XDP_SKB];
	}
	return err;
}

bool ps_attach_has_tcx(const struct ps_attachments *a)
{
	for (int i = 0; i < a->n; i++)
		if (a->list[i].kind == PS_ATT_TCX)
			return true;
	return false;
}

bool ps_attach_has_clsact(const struct ps_attachments *a)
{
	for (int i = 0; i < a->n; i++)
		if (a->list[i].kind == PS_ATT_CLSACT)
			return true;
	return false;
}

int ps_detach_iface(struct ps_attachments *a, int ifindex, bool gone)
{
	int err = 0, e, kept = a->n;

	/* Reverse order, as ps_detach_all; then the rest close up. */
	for (int i = a->n - 1; i >= 0; i--) {
		if (a->list[i].ifindex != ifindex || a->list[i].kind == PS_ATT_RAW_TP)
			continue;
		a->list[i].gone |= gone;
		e = detach_one(a, &a->list[i]);
		if (!err)
			err = e;
		a->list[i].ifindex = -1; /* taken out below */
		kept--;
	}
	for (int i = 0, j = 0; i < a->n; i++)
		if (a->list[i].ifindex != -1)
			a->list[j++] = a->list[i];
	a->n = kept;
	return err;
}
