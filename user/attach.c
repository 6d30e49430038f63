// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/ethtool.h>
#include <linux/if_link.h>
#include <linux/sockios.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>
#include "attach.h"
#include "log.h"
#include "tcfilter.h"
#include "pktsample.h"

/* Not in libbpf 1.1's uapi copy; the kernel has had them since 6.6. */
#define PS_BPF_TCX_INGRESS 46
#define PS_BPF_TCX_EGRESS 47

static const char *xdp_mode_name(int mode)
{
	switch (mode) {
	case XDP_MODE_NATIVE: return "native";
	case XDP_MODE_SKB: return "skb";
	case XDP_MODE_HW: return "hw";
	default: return "unknown";
	}
}

const char *ps_attach_kind_name(const struct ps_attachment *att)
{
	switch (att->kind) {
	case PS_ATT_XDP:
	case PS_ATT_XDP_LINK: return xdp_mode_name(att->xdp_mode);
	case PS_ATT_TCX: return "tcx";
	default: return "clsact";
	}
}

enum ps_xdp_mode ps_xdp_default_mode(const char *driver)
{
	/*
	 * Measured with bench/e2e.sh on a veth flood: bare XDP_PASS ran at
	 * ~487k pps in skb mode against ~415k native, because veth's native
	 * path copies each skb into page-pool pages (skb_pp_cow_data).
	 */
	if (driver && !strcmp(driver, "veth"))
		return PS_XDP_SKB;
	return PS_XDP_AUTO;
}

int ps_iface_driver(const char *ifname, char *buf, size_t size)
{
	struct ethtool_drvinfo info = { .cmd = ETHTOOL_GDRVINFO };
	struct ifreq ifr = { 0 };
	int fd, err = 0;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = (void *)&info;
	if (ioctl(fd, SIOCETHTOOL, &ifr) < 0)
		err = -errno;
	else
		snprintf(buf, size, "%.*s", (int)sizeof(info.driver), info.driver);
	close(fd);
	return err;
}

enum ps_xdp_mode ps_xdp_resolve_mode(enum ps_xdp_mode asked, const char *ifname)
{
	enum ps_xdp_mode mode;
	char driver[32];

	if (asked != PS_XDP_AUTO)
		return asked;
	if (ps_iface_driver(ifname, driver, sizeof(driver))) {
		pr_debug("xdp: no driver name for %s; libxdp picks the mode\n", ifname);
		return PS_XDP_AUTO;
	}
	mode = ps_xdp_default_mode(driver);
	pr_debug("xdp: %s uses driver %s: %s mode\n", ifname, driver,
		 ps_xdp_mode_name(mode));
	return mode;
}

const char *ps_xdp_mode_name(enum ps_xdp_mode mode)
{
	switch (mode) {
	case PS_XDP_NATIVE: return "native";
	case PS_XDP_SKB: return "skb";
	default: return "auto";
	}
}

static struct ps_attachment *new_slot(struct ps_attachments *a, int ifindex,
				      const char *ifname, unsigned int hook)
{
	struct ps_attachment *att;

	if (a->n == (int)(sizeof(a->list) / sizeof(a->list[0])))
		return NULL;
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
			  const char *prog_name, int prog_fd, enum ps_xdp_attach via)
{
	DECLARE_LIBXDP_OPTS(xdp_program_opts, xopts, .obj = obj, .prog_name = prog_name);
	int err;

	a->xdp_via = via;
	a->xdp_prog_fd = prog_fd;
	if (via == PS_XDP_VIA_LINK)
		return 0;
	a->xdp_prog = xdp_program__create(&xopts);
	err = libxdp_get_error(a->xdp_prog);
	if (err) {
		a->xdp_prog = NULL;
		pr_err("cannot prepare the XDP program: %s\n", strerror(-err));
	}
	return err;
}

void ps_attach_release(struct ps_attachments *a)
{
	ps_detach_all(a);
	xdp_program__close(a->xdp_prog);
	a->xdp_prog = NULL;
}

static const enum xdp_attach_mode libxdp_modes[] = {
	[PS_XDP_AUTO] = XDP_MODE_UNSPEC,
	[PS_XDP_NATIVE] = XDP_MODE_NATIVE,
	[PS_XDP_SKB] = XDP_MODE_SKB,
};

static int attach_xdp_libxdp(struct ps_attachments *a, struct ps_attachment *att,
			     enum ps_xdp_mode mode)
{
	int err = xdp_program__attach(a->xdp_prog, att->ifindex, libxdp_modes[mode], 0);

	if (err)
		return err;
	att->xdp_mode = xdp_program__is_attached(a->xdp_prog, att->ifindex);
	if (attached_without_dispatcher(att->ifindex))
		a->xdp_single_prog = true;
	return 0;
}

/*
 * A BPF link (kernel 5.9+): it lives exactly as long as its fd, so the
 * kernel detaches it when the process ends however it ends, and detaching
 * needs no lookup and no privilege. No mode flag lets the kernel choose:
 * native where the driver has XDP, generic otherwise.
 */
static int attach_xdp_link(struct ps_attachments *a, struct ps_attachment *att,
			   enum ps_xdp_mode mode)
{
	static const __u32 flags[] = {
		[PS_XDP_AUTO] = 0,
		[PS_XDP_NATIVE] = XDP_FLAGS_DRV_MODE,
		[PS_XDP_SKB] = XDP_FLAGS_SKB_MODE,
	};
	LIBBPF_OPTS(bpf_link_create_opts, opts, .flags = flags[mode]);
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	int fd = bpf_link_create(a->xdp_prog_fd, att->ifindex, BPF_XDP, &opts);

	if (fd < 0)
		return -errno;
	att->link_fd = fd;
	att->xdp_mode = mode == PS_XDP_SKB ? XDP_MODE_SKB : XDP_MODE_NATIVE;
	if (mode == PS_XDP_AUTO && !bpf_xdp_query(att->ifindex, 0, &q))
		att->xdp_mode = q.attach_mode == XDP_ATTACHED_SKB ? XDP_MODE_SKB :
								    XDP_MODE_NATIVE;
	return 0;
}

int ps_attach_xdp(struct ps_attachments *a, int ifindex, const char *ifname,
		  enum ps_xdp_mode mode)
{
	struct ps_attachment *att = new_slot(a, ifindex, ifname, PS_HOOK_XDP);
	char msg[256];
	int err;

	if (!att) {
		pr_err("cannot attach XDP to %s: too many attachments\n", ifname);
		return -E2BIG;
	}
	att->kind = a->xdp_via == PS_XDP_VIA_LINK ? PS_ATT_XDP_LINK : PS_ATT_XDP;
	err = att->kind == PS_ATT_XDP_LINK ? attach_xdp_link(a, att, mode) :
					     attach_xdp_libxdp(a, att, mode);
	if (err) {
		libxdp_strerror(err, msg, sizeof(msg));
		if (err == -EEXIST || err == -EBUSY)
			pr_err("cannot attach XDP to %s: another XDP program is attached there\n",
			       ifname);
		else
			pr_err("cannot attach XDP to %s in %s mode: %s (-v for details)\n",
			       ifname, ps_xdp_mode_name(mode), msg);
		return err;
	}
	a->n++;
	pr_info("xdp: attached to %s (%s mode, %s)\n", ifname,
		xdp_mode_name(att->xdp_mode), att->kind == PS_ATT_XDP_LINK ? "BPF link" : "libxdp");
	return 0;
}

static int attach_tcx(struct ps_attachment *att, int prog_fd)
{
	int type = att->hook == PS_HOOK_TC_INGRESS ? PS_BPF_TCX_INGRESS :
						     PS_BPF_TCX_EGRESS;
	int fd = bpf_link_create(prog_fd, att->ifindex, type, NULL);

	if (fd < 0)
		return -errno;
	att->kind = PS_ATT_TCX;
	att->link_fd = fd;
	return 0;
}

#define PS_TC_PROG_PREFIX "pktsample_tc_" /* our TC programs' names */
#define MAX_FILTERS 256

static struct bpf_tc_hook tc_hook(int ifindex, bool ingress)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex,
			    .attach_point = ingress ? BPF_TC_INGRESS : BPF_TC_EGRESS);
	return hook;
}

/*
 * A clsact filter outlives a killed process: nothing in the kernel removes
 * it. The next start finds a pktsample filter whose program no process
 * holds, says so, and with --remove-stale removes it. A filter whose
 * program someone holds (another pktsample running), or whose holder we
 * cannot know, is never touched.
 */
static void check_stale(const struct ps_attachments *a, const char *ifname,
			int ifindex, bool ingress)
{
	struct ps_tc_filter *f = calloc(MAX_FILTERS, sizeof(*f));
	int n = f ? ps_tc_filter_dump(ifindex, ingress, f, MAX_FILTERS) : -ENOMEM;

	for (int i = 0; i < n; i++) {
		struct bpf_tc_hook hook = tc_hook(ifindex, ingress);
		DECLARE_LIBBPF_OPTS(bpf_tc_opts, opts, .handle = f[i].handle,
				    .priority = f[i].prio);
		const char *dir = ingress ? "ingress" : "egress";
		int err;

		if (!f[i].handle || strncmp(f[i].name, PS_TC_PROG_PREFIX,
					    strlen(PS_TC_PROG_PREFIX)) ||
		    ps_bpf_prog_held(f[i].prog_id) != 0)
			continue;
		if (!a->remove_stale) {
			pr_warn("%s %s: filter %s (pref %u) was left by a pktsample that was killed; "
				"--remove-stale removes it\n", ifname, dir, f[i].name, f[i].prio);
			continue;
		}
		err = bpf_tc_detach(&hook, &opts);
		if (err)
			pr_warn("%s %s: cannot remove the stale filter %s: %s\n", ifname, dir,
				f[i].name, strerror(-err));
		else
			pr_warn("%s %s: removed the stale filter %s (pref %u)\n", ifname, dir,
				f[i].name, f[i].prio);
	}
	free(f);
}

static int attach_clsact(struct ps_attachments *a, struct ps_attachment *att, int prog_fd)
{
	struct bpf_tc_hook hook = tc_hook(att->ifindex, att->hook == PS_HOOK_TC_INGRESS);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, opts, .prog_fd = prog_fd);
	int err;

	err = bpf_tc_hook_create(&hook);
	if (err && err != -EEXIST)
		return err;
	att->created_qdisc = !err;
	if (!att->created_qdisc)
		check_stale(a, att->ifname, att->ifindex, att->hook == PS_HOOK_TC_INGRESS);
	err = bpf_tc_attach(&hook, &opts);
	if (err) {
		if (att->created_qdisc) {
			hook.attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
			bpf_tc_hook_destroy(&hook);
		}
		return err;
	}
	att->kind = PS_ATT_CLSACT;
	att->handle = opts.handle;
	att->priority = opts.priority;
	return 0;
}

int ps_attach_tc(struct ps_attachments *a, int prog_fd, int ifindex,
		 const char *ifname, unsigned int hook, enum ps_tc_mode mode)
{
	struct ps_attachment *att = new_slot(a, ifindex, ifname, hook);
	int err = -EOPNOTSUPP;

	if (!att) {
		pr_err("cannot attach %s to %s: too many attachments\n", ps_hook_name(hook),
		       ifname);
		return -E2BIG;
	}
	if (mode != PS_TC_CLSACT) {
		err = attach_tcx(att, prog_fd);
		/* Kernels before 6.6 answer EINVAL for an unknown attach type. */
		if (err && mode == PS_TC_AUTO && (err == -EINVAL || err == -EOPNOTSUPP)) {
			pr_info("%s: tcx not available (%s), using clsact\n",
				ifname, strerror(-err));
			err = attach_clsact(a, att, prog_fd);
		}
	} else {
		err = attach_clsact(a, att, prog_fd);
	}
	if (err) {
		pr_err("cannot attach %s to %s: %s\n", ps_hook_name(hook), ifname,
		       strerror(-err));
		return err;
	}
	a->n++;
	pr_info("%s: attached to %s (%s)\n", ps_hook_name(hook), ifname,
		ps_attach_kind_name(att));
	return 0;
}

/* Anything on the qdisc but what we are leaving (prio, handle)? */
static bool qdisc_in_use(int ifindex)
{
	struct ps_tc_filter *f = calloc(MAX_FILTERS, sizeof(*f));
	bool used = true; /* when in doubt, leave the qdisc */

	if (f && ps_tc_filter_dump(ifindex, true, f, MAX_FILTERS) == 0 &&
	    ps_tc_filter_dump(ifindex, false, f, MAX_FILTERS) == 0)
		used = false;
	free(f);
	return used;
}

/*
 * Our clsact filter, then the qdisc only if we created it and nothing is
 * left on it: another pktsample or another tool may still be using it,
 * whoever of us leaves first.
 */
static int detach_clsact(const struct ps_attachment *att)
{
	struct bpf_tc_hook hook = tc_hook(att->ifindex, att->hook == PS_HOOK_TC_INGRESS);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, opts, .handle = att->handle,
			    .priority = att->priority);
	int err = bpf_tc_detach(&hook, &opts);

	if (err || !att->created_qdisc)
		return err;
	if (qdisc_in_use(att->ifindex)) {
		pr_info("%s: leaving the clsact qdisc we created: other filters are on it\n",
			att->ifname);
		return 0;
	}
	hook.attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
	return bpf_tc_hook_destroy(&hook);
}

static int detach_one(struct ps_attachments *a, struct ps_attachment *att)
{
	int err = 0;

	switch (att->kind) {
	case PS_ATT_XDP:
		if (!att->gone)
			err = xdp_program__detach(a->xdp_prog, att->ifindex,
						  att->xdp_mode, 0);
		break;
	case PS_ATT_XDP_LINK:
	case PS_ATT_TCX:
		close(att->link_fd); /* the link's last reference: detaches */
		att->link_fd = -1;
		break;
	case PS_ATT_CLSACT:
		if (!att->gone) /* its qdisc went with the interface */
			err = detach_clsact(att);
		break;
	}
	if (err)
		pr_err("cannot detach %s from %s: %s\n", ps_hook_name(att->hook),
		       att->ifname, strerror(-err));
	else
		pr_debug("%s: detached from %s\n", ps_hook_name(att->hook),
			 att->ifname);
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

void ps_attach_forget(struct ps_attachments *a, int ifindex)
{
	for (int i = 0; i < a->n; i++)
		if (a->list[i].ifindex == ifindex)
			a->list[i].gone = true;
}
