// SPDX-License-Identifier: GPL-2.0-only
/* The capture's programs: loaded, attached (and a reload's swapped in),
 * the guardian and promiscuous mode; see capture_int.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include "capture_int.h"
#include "log.h"
#include <sys/stat.h>
#include <bpf/libbpf.h>
#include "filter.h"
#include "guardian.h"
#include "promisc.h"
#include "privdrop.h"
#include "sampling.h"

/* Which XDP programs the interfaces' modes need: [0] native, [1] skb
 * (auto may need either); following, both, for what may come. */
static void xdp_programs_needed(const struct ps_capture *cap, bool need[2])
{
	need[0] = need[1] = cap->ifset.follow && (cap->hooks & PS_HOOK_BIT(PS_HOOK_XDP));
	for (int i = 0; i < cap->ifset.n; i++) {
		if (!(cap->ifs[i].hooks & PS_HOOK_BIT(PS_HOOK_XDP)))
			continue;
		need[0] |= cap->ifs[i].xdp_mode != PS_XDP_SKB;
		need[1] |= cap->ifs[i].xdp_mode != PS_XDP_NATIVE;
	}
}

/* The interfaces the hooks count and capture (the kernel's ifaces map). */
int cap_add_kernel_ifaces(struct ps_capture *cap)
{
	for (int i = 0; i < cap->ifset.n; i++) {
		int err = ps_loader_add_iface(&cap->loader, (uint32_t)cap->ifs[i].ifindex,
					      cap->ifs[i].linktype == PS_LINKTYPE_RAW);

		if (err == -E2BIG)
			pr_err("cannot capture on %s: the capture has room for %d interfaces "
			       "(--max-ifaces)\n",
			       cap->ifs[i].name, cap->ifset.room);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Native XDP through a link on a device whose driver hands XDP the VLAN tag
 * it strips, on a kernel that lets a program ask (6.8+): that device gets
 * the program bound to it, which puts the tag in the record. Without it
 * the shared program runs there, and the tags are missed (said at attach).
 */
static void load_dev_program(struct ps_capture *cap, const struct ps_load_opts *main, int i)
{
	struct ps_load_opts lo = *main;
	const struct ps_device *d = &cap->ifs[i].dev;

	if (!(cap->ifs[i].hooks & PS_HOOK_BIT(PS_HOOK_XDP)) || cap->ifs[i].xdp_mode == PS_XDP_SKB ||
	    d->xdp_rx_vlan != 1 || cap->cfg.xdp_attach != PS_XDP_VIA_LINK ||
	    !ps_loader_has_xdp_vlan_meta())
		return;
	lo.xdp_dev_ifindex = (uint32_t)d->ifindex;
	lo.maps_from = &cap->loader;
	if (ps_loader_load(&cap->ifs[i].dev_loader, &lo))
		pr_warn("xdp: %s: the program that reads the driver's VLAN tags did not load; "
			"capturing without them\n",
			d->name);
}

/*
 * xdp-entry and xdp-exit around the XDP program on interface i: a loader
 * of their own, on that program, sharing the main loader's maps. Once per
 * program: one traced on several interfaces records each of them (the
 * programs keep to the captured interfaces by ifindex).
 */
static int load_trace_programs(struct ps_capture *cap, const struct ps_load_opts *main, int i)
{
	struct ps_load_opts lo = *main;
	const struct ps_xdp_target *t = &cap->ifs[i].xdp_target;

	if (!(cap->ifs[i].hooks & PS_HOOKS_XDP_TRACE))
		return 0;
	for (int j = 0; j < i; j++)
		if (cap->ifs[j].trace_loader.skel && cap->ifs[j].xdp_target.id == t->id)
			return 0;
	lo.hooks = cap->ifs[i].hooks;
	lo.trace_func = t->func;
	lo.trace_prog_fd = t->fd;
	lo.maps_from = &cap->loader;
	return ps_loader_load(&cap->ifs[i].trace_loader, &lo);
}

int cap_load_programs(struct ps_capture *cap)
{
	const struct ps_capture_cfg *o = &cap->cfg;
	struct ps_load_opts lo = {
		.hooks = cap->hooks,
		.snaplen = o->snaplen,
		.max_ifaces = (uint32_t)cap->ifset.room,
		.sampling = &cap->smp,
		.filter = cap->filter,
		.transport = cap->transport,
		.sflow_pool = o->sflow.n_collectors > 0,
		.ctx = &cap->ctx.knobs,
		.drop_skip_reason = cap->drops.consumed,
	};
	bool need[2];
	const char *names[2];
	int fds[2], err;

	if (cap->hooks & PS_HOOKS_DROP) {
		/* The drop hook keeps to the namespace we capture in (ifindexes
		 * repeat across namespaces); --netns has put this thread there. */
		struct stat st;

		if (stat("/proc/thread-self/ns/net", &st)) {
			err = -errno;
			pr_err("cannot tell which network namespace this is: %s\n", strerror(-err));
			return err;
		}
		lo.drop_netns_ino = (uint32_t)st.st_ino;
	}
	xdp_programs_needed(cap, need);
	lo.xdp_native = cap->xdp_loaded[0] = need[0];
	lo.xdp_skb = cap->xdp_loaded[1] = need[1];
	if (cap->transport == PS_TRANSPORT_RINGBUF)
		lo.ring_bytes = cap->bufs.ring_kib * 1024;
	/* Loaded here, not inside libxdp's attach, so a filter the verifier
	 * refuses is reported as such before anything is attached. */
	err = ps_loader_load(&cap->loader, &lo);
	cap->progs = &cap->loader;
	for (int i = 0; !err && i < cap->ifset.n; i++)
		err = load_trace_programs(cap, &lo, i);
	if (err || !(cap->hooks & PS_HOOK_BIT(PS_HOOK_XDP)))
		return err;
	for (int i = 0; i < 2; i++) {
		struct bpf_program *p = ps_loader_prog(&cap->loader,
						       i ? PS_PROG_XDP_SKB : PS_PROG_XDP);

		names[i] = p ? bpf_program__name(p) : NULL;
		fds[i] = p ? bpf_program__fd(p) : -1;
	}
	err = ps_attach_prepare_xdp(&cap->att, ps_loader_object(&cap->loader), names, fds,
				    o->xdp_attach);
	for (int i = 0; !err && i < cap->ifset.n; i++)
		load_dev_program(cap, &lo, i);
	return err;
}

/* Has every captured device below interface i got its XDP already? */
static bool lowers_attached(const struct ps_capture *cap, const bool *done, int i)
{
	for (int j = 0; j < cap->ifset.n; j++)
		if (j != i && !done[j] && ps_device_is_below(&cap->ifs[j].dev, cap->ifs[i].ifindex))
			return false;
	return true;
}

/*
 * XDP first on the devices below, then on those above them: the kernel
 * refuses XDP on a port or lower device once its bridge, macvlan or VLAN
 * holds XDP, not the other way round. Each pass attaches the devices one
 * level further up, until a pass has nothing left to attach.
 */
static int attach_xdp_all(struct ps_capture *cap)
{
	bool *done = calloc((size_t)cap->ifset.n + 1, sizeof(*done));
	int err = 0;

	if (!done)
		return -ENOMEM;
	for (int i = 0; i < cap->ifset.n; i++)
		done[i] = !(cap->ifs[i].hooks & PS_HOOK_BIT(PS_HOOK_XDP));
	for (bool more = true; more && !err;) {
		more = false;
		for (int i = 0; i < cap->ifset.n && !err; i++) {
			if (done[i] || !lowers_attached(cap, done, i))
				continue;
			if (cap->stop->requested)
				err = -EINTR;
			else
				err = ps_attach_xdp(&cap->att, &cap->ifs[i].dev,
						    cap->ifs[i].xdp_mode,
						    ps_loader_prog_fd(&cap->ifs[i].dev_loader,
								      PS_PROG_XDP_DEV));
			done[i] = more = true;
		}
	}
	free(done);
	return err;
}

/*
 * Where TC may attach through clsact, the guardian that removes our filters
 * should we be killed (guardian.h): forked before anything is loaded, so it
 * holds nothing of the capture's.
 */
int cap_start_guardian(struct ps_capture *cap)
{
	bool tc = false;
	int fd;

	for (int t = 0; t < cap->n_targets; t++)
		tc |= ps_hook_is_tc(cap->targets[t].hook);
	/* Following: for interfaces to come, too. */
	tc |= cap->ifset.follow && (cap->hooks & PS_HOOKS_TC);
	if (!tc || cap->cfg.tc_mode == PS_TC_TCX)
		return 0;
	fd = ps_guardian_start();
	if (fd < 0)
		return fd;
	cap->att.guard_fd = fd;
	return 0;
}

/* xdp-entry and xdp-exit: each traced program's, once (load_trace_programs). */
static int attach_xdp_trace_all(struct ps_capture *cap)
{
	static const enum ps_prog progs[] = { PS_PROG_XDP_ENTRY, PS_PROG_XDP_EXIT };
	static const unsigned int hooks[] = { PS_HOOK_XDP_ENTRY, PS_HOOK_XDP_EXIT };
	int err = 0;

	for (int i = 0; !err && i < cap->ifset.n; i++)
		for (int k = 0; !err && k < 2; k++) {
			int fd = ps_loader_prog_fd(&cap->ifs[i].trace_loader, progs[k]);

			if (fd >= 0)
				err = ps_attach_xdp_trace(&cap->att, fd, &cap->ifs[i].dev,
							  hooks[k]);
		}
	return err;
}

int cap_attach_all(struct ps_capture *cap)
{
	int err = attach_xdp_all(cap);

	if (!err)
		err = attach_xdp_trace_all(cap);
	if (!err && (cap->hooks & PS_HOOKS_DROP))
		err = ps_attach_drop(&cap->att, ps_loader_prog_fd(&cap->loader, PS_PROG_DROP));
	for (int t = 0; !err && t < cap->n_targets; t++) {
		const struct ps_target *tg = &cap->targets[t];

		if (!ps_hook_is_tc(tg->hook))
			continue;
		if (cap->stop->requested)
			return -EINTR;
		err = ps_attach_tc(&cap->att, ps_loader_prog_fd(&cap->loader, tg->hook),
				   tg->ifindex, tg->ifname, tg->hook, cap->cfg.tc_mode,
				   cap->cfg.tc_position);
	}
	/* tcx everywhere: the guardian has nothing to look after (following,
	 * once tcx has been seen to work: the interfaces to come get it too). */
	if (!err && cap->att.guard_fd >= 0 && !ps_attach_has_clsact(&cap->att) &&
	    (!cap->ifset.follow || ps_attach_has_tcx(&cap->att))) {
		close(cap->att.guard_fd);
		cap->att.guard_fd = -1;
	}
	/* Said once all is attached: a failed start's one line stays one. */
	for (int i = 0; !err && i < cap->ifset.n; i++)
		ps_attach_warn_xdp_cost(&cap->att, &cap->ifs[i].dev);
	return err;
}

/*
 * Promiscuous while we capture (tcpdump does it unless -p): without it a
 * NIC drops other hosts' unicast (a mirror port's traffic) before any hook
 * runs. Without CAP_NET_RAW we say so once and capture all the same.
 */
void cap_set_promiscuous(struct ps_capture *cap)
{
	int err = 0;

	if (cap->cfg.no_promisc)
		return;
	cap->promisc_fd = ps_promisc_open();
	if (cap->promisc_fd < 0)
		err = cap->promisc_fd;
	for (int i = 0; !err && i < cap->ifset.n; i++) {
		err = ps_promisc_add(cap->promisc_fd, cap->ifs[i].ifindex);
		if (err)
			pr_warn("cannot put %s into promiscuous mode: %s; capturing without it\n",
				cap->ifs[i].name, strerror(-err));
	}
	if (cap->promisc_fd < 0)
		pr_warn("cannot use promiscuous mode: %s%s; capturing without it (-p: do not try)\n",
			strerror(-err), err == -EPERM ? " (needs CAP_NET_RAW)" : "");
}

/*
 * Where perf events are closed to us (Debian's perf_event_paranoid 3
 * without CAP_SYS_ADMIN): the ring buffer, unless --transport said perf;
 * --sample-interval has no way round, so it says what would do.
 */
int cap_choose_transport(struct ps_capture *cap)
{
	static const char why[] = "kernel.perf_event_paranoid is above 2 (Debian's default), "
				  "which allows perf events only with CAP_SYS_ADMIN";

	if (ps_perf_events_allowed())
		return 0;
	if (cap->smp.mode == PS_SAMPLE_CLOCK) {
		pr_err("--sample-interval needs a perf event per CPU: %s; run as root, or "
		       "'sysctl kernel.perf_event_paranoid=2'\n",
		       why);
		return -EACCES;
	}
	if (cap->transport != PS_TRANSPORT_PERF)
		return 0;
	if (cap->cfg.transport_given) {
		pr_err("--transport perf needs perf events: %s; --transport ringbuf needs none, "
		       "or 'sysctl kernel.perf_event_paranoid=2'\n",
		       why);
		return -EACCES;
	}
	cap->transport = PS_TRANSPORT_RINGBUF;
	pr_info("transport: ringbuf, as %s\n", why);
	return 0;
}

/* Interface i's hooks, as at the start (XDP, then TC). */
int cap_attach_iface(struct ps_capture *cap, int i)
{
	struct ps_cap_iface *f = &cap->ifs[i];
	int err = 0;

	if (f->hooks & PS_HOOK_BIT(PS_HOOK_XDP))
		err = ps_attach_xdp(&cap->att, &f->dev, f->xdp_mode, -1);
	for (unsigned int h = PS_HOOK_TC_INGRESS; !err && h <= PS_HOOK_TC_EGRESS; h++)
		if (f->hooks & PS_HOOK_BIT(h))
			err = ps_attach_tc(&cap->att, ps_loader_prog_fd(&cap->loader, h),
					   f->ifindex, f->name, h, cap->cfg.tc_mode,
					   cap->cfg.tc_position);
	if (!err && cap->promisc_fd >= 0 && ps_promisc_add(cap->promisc_fd, f->ifindex))
		pr_warn("cannot put %s into promiscuous mode; capturing without it\n", f->name);
	return err;
}

/* What the outputs say of the sampling and the filter, from a swap on:
 * the file's interfaces anew, after the last statistics of the old. */
static int describe_anew(struct ps_capture *cap)
{
	cap->sampling[0] = '\0';
	if (ps_sampling_active(&cap->smp))
		ps_sampling_describe(&cap->smp, cap->sampling, sizeof(cap->sampling));
	ps_sampling_tag(&cap->smp, cap->tag, sizeof(cap->tag));
	cap_describe_targets(cap);
	if (!cap->file)
		return 0;
	return ps_capfile_renew(cap->file, cap->filter ? cap->filter->expr : NULL,
				cap->filter || ps_sampling_active(&cap->smp));
}

/*
 * A reload's new filter or sampling: the programs built anew with them,
 * on the same maps (buffers, counters, pools, interfaces, owners), and put
 * in place of the running ones on every hook at once (link updates,
 * clsact filters replaced), so that no packet goes uncounted and no sample
 * is lost in between. 0, or -errno logged (the running ones stay).
 */
int cap_swap_programs(struct ps_capture *cap, struct ps_filter *filter,
		      const struct ps_sampling *smp)
{
	const struct ps_capture_cfg *o = &cap->cfg;
	struct ps_sampling s = *smp;
	struct ps_load_opts lo = {
		.hooks = cap->hooks,
		.snaplen = o->snaplen,
		.max_ifaces = (uint32_t)cap->ifset.room,
		.sampling = &s,
		.filter = filter,
		.transport = cap->transport,
		.sflow_pool = o->sflow.n_collectors > 0,
		.ctx = &cap->ctx.knobs,
		.xdp_native = cap->xdp_loaded[0],
		.xdp_skb = cap->xdp_loaded[1],
		.maps_from = &cap->loader,
	};
	int new_fd[PS_REPLACE_SLOTS], old_fd[PS_REPLACE_SLOTS], err;
	struct ps_loader next;
	bool raw = cap->ifset.follow != NULL;
	char msg[512];

	if (!ps_attach_can_replace(&cap->att) ||
	    (cap->hooks & (PS_HOOKS_DROP | PS_HOOKS_XDP_TRACE))) {
		pr_err("the new configuration changes the filter or the sampling, and what is "
		       "attached here (the drop hook, xdp-entry/exit, libxdp, XDP bound to a "
		       "device) cannot take new programs in place: that needs a restart; keeping "
		       "the running one\n");
		return -EBUSY;
	}
	if (cap->transport == PS_TRANSPORT_RINGBUF)
		lo.ring_bytes = cap->bufs.ring_kib * 1024;
	s.seed = cap->smp.seed; /* which flows are chosen stays the same */
	for (int i = 0; i < cap->ifset.n; i++)
		raw |= cap->ifs[i].ifindex && cap->ifs[i].linktype == PS_LINKTYPE_RAW;
	if (filter && raw && ps_filter_build_raw(filter, msg, sizeof(msg)) && !cap->ifset.follow) {
		pr_err("the new filter does not apply where there is no link-layer header: %s; "
		       "keeping the running configuration\n",
		       msg);
		return -EINVAL;
	}
	err = ps_loader_load(&next, &lo);
	if (err)
		return err; /* said; the running programs stay */
	for (unsigned int h = 0; h < PS_HOOK_MAX; h++) {
		new_fd[h] = ps_loader_prog_fd(&next, h);
		old_fd[h] = ps_loader_prog_fd(cap->progs, h);
	}
	new_fd[PS_REPLACE_XDP] = ps_loader_prog_fd(&next, PS_PROG_XDP);
	old_fd[PS_REPLACE_XDP] = ps_loader_prog_fd(cap->progs, PS_PROG_XDP);
	new_fd[PS_REPLACE_XDP_SKB] = ps_loader_prog_fd(&next, PS_PROG_XDP_SKB);
	old_fd[PS_REPLACE_XDP_SKB] = ps_loader_prog_fd(cap->progs, PS_PROG_XDP_SKB);
	err = ps_attach_replace(&cap->att, new_fd, old_fd);
	if (err) {
		ps_loader_close(&next);
		return err;
	}
	/* The main loader keeps the maps (its programs stay loaded, idle);
	 * the programs of a reload before go. */
	if (cap->progs != &cap->loader)
		ps_loader_close(cap->progs);
	cap->next_progs = next;
	cap->progs = &cap->next_progs;
	if (cap->own_filter && cap->own_filter != filter) {
		ps_filter_free(cap->own_filter);
		free(cap->own_filter);
	}
	cap->own_filter = filter;
	cap->filter = filter;
	cap->smp = s;
	return describe_anew(cap);
}
