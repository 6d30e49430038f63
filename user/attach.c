// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>
#include "attach.h"
#include "log.h"
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
	case PS_ATT_XDP: return xdp_mode_name(att->xdp_mode);
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
			  const char *prog_name)
{
	DECLARE_LIBXDP_OPTS(xdp_program_opts, xopts, .obj = obj, .prog_name = prog_name);
	int err;

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

int ps_attach_xdp(struct ps_attachments *a, int ifindex, const char *ifname,
		  enum ps_xdp_mode mode)
{
	static const enum xdp_attach_mode modes[] = {
		[PS_XDP_AUTO] = XDP_MODE_UNSPEC,
		[PS_XDP_NATIVE] = XDP_MODE_NATIVE,
		[PS_XDP_SKB] = XDP_MODE_SKB,
	};
	struct ps_attachment *att = new_slot(a, ifindex, ifname, PS_HOOK_XDP);
	char msg[256];
	int err;

	if (!att) {
		pr_err("cannot attach XDP to %s: too many attachments\n", ifname);
		return -E2BIG;
	}
	err = xdp_program__attach(a->xdp_prog, ifindex, modes[mode], 0);
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
	att->kind = PS_ATT_XDP;
	att->xdp_mode = xdp_program__is_attached(a->xdp_prog, ifindex);
	a->n++;
	if (attached_without_dispatcher(ifindex))
		a->xdp_single_prog = true;
	pr_info("xdp: attached to %s (%s mode)\n", ifname,
		xdp_mode_name(att->xdp_mode));
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

static int attach_clsact(struct ps_attachment *att, int prog_fd)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = att->ifindex);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, opts, .prog_fd = prog_fd);
	int err;

	hook.attach_point = att->hook == PS_HOOK_TC_INGRESS ? BPF_TC_INGRESS :
							      BPF_TC_EGRESS;
	err = bpf_tc_hook_create(&hook);
	if (err && err != -EEXIST)
		return err;
	att->created_qdisc = !err;
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
			err = attach_clsact(att, prog_fd);
		}
	} else {
		err = attach_clsact(att, prog_fd);
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

static void detach_one(struct ps_attachments *a, struct ps_attachment *att)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = att->ifindex);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, opts);
	int err = 0;

	switch (att->kind) {
	case PS_ATT_XDP:
		err = xdp_program__detach(a->xdp_prog, att->ifindex,
					  att->xdp_mode, 0);
		break;
	case PS_ATT_TCX:
		close(att->link_fd); /* the link's last reference: detaches */
		att->link_fd = -1;
		break;
	case PS_ATT_CLSACT:
		hook.attach_point = att->hook == PS_HOOK_TC_INGRESS ?
					    BPF_TC_INGRESS : BPF_TC_EGRESS;
		opts.handle = att->handle;
		opts.priority = att->priority;
		err = bpf_tc_detach(&hook, &opts);
		if (!err && att->created_qdisc) {
			hook.attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
			err = bpf_tc_hook_destroy(&hook);
		}
		break;
	}
	if (err)
		pr_warn("cannot detach %s from %s: %s\n", ps_hook_name(att->hook),
			att->ifname, strerror(-err));
	else
		pr_debug("%s: detached from %s\n", ps_hook_name(att->hook),
			 att->ifname);
}

void ps_detach_all(struct ps_attachments *a)
{
	/* Reverse order: a clsact qdisc we created goes after its filters. */
	while (a->n > 0)
		detach_one(a, &a->list[--a->n]);
}
