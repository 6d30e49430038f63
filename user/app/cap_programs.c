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
#include "kfeatures.h"
#include "filter.h"
#include "guardian.h"
#include "promisc.h"
#include "privdrop.h"
#include "sampling.h"

/* Which XDP programs the interfaces' modes need: [0] native, [1] skb
 * (auto may need either); following, both, for what may come. */
static void xdp_programs_needed(const struct ps_capture *cap, bool need[2])
{
	need[0] = need[1] = cap->ifaces.set.follow && (cap->kern.hooks & PS_HOOK_BIT(PS_HOOK_XDP));
	for (int i = 0; i < cap->ifaces.set.n; i++) {
		if (!(cap->ifaces.ifs[i].hooks & PS_HOOK_BIT(PS_HOOK_XDP)))
			continue;
		need[0] |= cap->ifaces.ifs[i].xdp_mode != PS_XDP_SKB;
		need[1] |= cap->ifaces.ifs[i].xdp_mode != PS_XDP_NATIVE;
	}
}

/* The interfaces the hooks count and capture (the kernel's ifaces map). */
int cap_add_kernel_iface(struct ps_capture *cap, int i, bool later)
{
	const struct ps_cap_iface *f = &cap->ifaces.ifs[i];
	int err = ps_loader_add_iface(&cap->kern.loader, (uint32_t)f->ifindex,
				      f->linktype == PS_LINKTYPE_RAW);

	if (err == -E2BIG && later)
		pr_warn("not capturing on %s: the capture has room for %d interfaces "
			"(--max-ifaces)\n",
			f->name, cap->ifaces.set.room);
	else if (err == -E2BIG)
		pr_err("cannot capture on %s: the capture has room for %d interfaces "
		       "(--max-ifaces)\n",
		       f->name, cap->ifaces.set.room);
	return err;
}

int cap_add_kernel_ifaces(struct ps_capture *cap)
{
	int err = 0;

	for (int i = 0; !err && i < cap->ifaces.set.n; i++)
		err = cap_add_kernel_iface(cap, i, false);
	return err;
}

void cap_plan_hooks(struct ps_capture *cap)
{
	unsigned int hooks = 0;

	/* Following, the hooks are loaded for interfaces to come too, as
	 * asked or as the default is (no tracing: that needs a program to
	 * trace). */
	if (cap->ifaces.set.follow)
		hooks = cap->cfg.hooks_given ? cap->cfg.hooks & ~PS_HOOKS_XDP_TRACE : PS_HOOKS_TC;
	for (int i = 0; i < cap->ifaces.set.n; i++)
		if (cap->ifaces.ifs[i].ifindex)
			hooks |= cap->ifaces.ifs[i].hooks;
	cap->kern.hooks = hooks;
}

void cap_kern_iface_gone(struct ps_capture *cap, int i, bool vanished,
			 struct ps_counters final[PS_HOOK_MAX])
{
	struct ps_cap_iface *f = &cap->ifaces.ifs[i];

	ps_detach_iface(&cap->kern.att, f->ifindex, vanished);
	ps_loader_remove_iface(&cap->kern.loader, (uint32_t)f->ifindex, final);
	ps_loader_close(&f->dev_loader);
	ps_loader_close(&f->trace_loader);
	ps_xdp_target_close(&f->xdp_target);
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
	const struct ps_device *d = &cap->ifaces.ifs[i].dev;

	if (!(cap->ifaces.ifs[i].hooks & PS_HOOK_BIT(PS_HOOK_XDP)) ||
	    cap->ifaces.ifs[i].xdp_mode == PS_XDP_SKB || d->xdp_rx_vlan != 1 ||
	    cap->cfg.xdp_attach != PS_XDP_VIA_LINK || !ps_kfeature_has(PS_KF_XDP_VLAN_META))
		return;
	lo.xdp_dev_ifindex = (uint32_t)d->ifindex;
	lo.maps_from = &cap->kern.loader;
	if (ps_loader_load(&cap->ifaces.ifs[i].dev_loader, &lo))
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
	const struct ps_xdp_target *t = &cap->ifaces.ifs[i].xdp_target;

	if (!(cap->ifaces.ifs[i].hooks & PS_HOOKS_XDP_TRACE))
		return 0;
	for (int j = 0; j < i; j++)
		if (cap->ifaces.ifs[j].trace_loader.skel &&
		    cap->ifaces.ifs[j].xdp_target.id == t->id)
			return 0;
	lo.hooks = cap->ifaces.ifs[i].hooks;
	lo.trace_func = t->func;
	lo.trace_prog_fd = t->fd;
	lo.maps_from = &cap->kern.loader;
	return ps_loader_load(&cap->ifaces.ifs[i].trace_loader, &lo);
}

/* -v: each feature this capture would use that the kernel lacks, in a
 * line that says what it costs (user/kernel/kfeatures.h). */
static void say_missing_features(const struct ps_capture *cap, const struct ps_load_opts *lo)
{
	const struct ps_kneeds needs = {
		.hooks = lo->hooks,
		.context = lo->ctx && lo->ctx->enabled,
		.pool = lo->sflow_pool,
		.tcx = cap->cfg.tc_mode != PS_TC_CLSACT,
	};
	unsigned int missing = ps_kfeatures_missing(ps_kfeatures_used(&needs));

	for (int k = 0; k < PS_KF_MAX; k++)
		if (missing & PS_KF_BIT(k))
			pr_info("kernel: %s\n", ps_kfeature_missing_line((enum ps_kfeature)k));
}

int cap_load_programs(struct ps_capture *cap)
{
	const struct ps_capture_cfg *o = &cap->cfg;
	struct ps_load_opts lo = {
		.hooks = cap->kern.hooks,
		.snaplen = o->snaplen,
		.max_ifaces = (uint32_t)cap->ifaces.set.room,
		.sampling = &cap->smp,
		.filter = cap->filter,
		.transport = cap->kern.transport,
		.sflow_pool = o->sflow.n_collectors > 0,
		.ctx = &cap->ctx.knobs,
		.drop_skip_reason = cap->kern.drops.consumed,
	};
	bool need[2];
	const char *names[2];
	int fds[2], err;

	if (cap->kern.hooks & PS_HOOKS_DROP) {
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
	lo.xdp_native = cap->kern.xdp_loaded[0] = need[0];
	lo.xdp_skb = cap->kern.xdp_loaded[1] = need[1];
	if (cap->kern.transport == PS_TRANSPORT_RINGBUF)
		lo.ring_bytes = cap->kern.bufs.ring_kib * 1024;
	say_missing_features(cap, &lo);
	/* Loaded here, not inside libxdp's attach, so a filter the verifier
	 * refuses is reported as such before anything is attached. */
	err = ps_loader_load(&cap->kern.loader, &lo);
	cap->kern.progs = &cap->kern.loader;
	for (int i = 0; !err && i < cap->ifaces.set.n; i++)
		err = load_trace_programs(cap, &lo, i);
	if (err || !(cap->kern.hooks & PS_HOOK_BIT(PS_HOOK_XDP)))
		return err;
	for (int i = 0; i < 2; i++) {
		struct bpf_program *p = ps_loader_prog(&cap->kern.loader,
						       i ? PS_PROG_XDP_SKB : PS_PROG_XDP);

		names[i] = p ? bpf_program__name(p) : NULL;
		fds[i] = p ? bpf_program__fd(p) : -1;
	}
	err = ps_attach_prepare_xdp(&cap->kern.att, ps_loader_object(&cap->kern.loader), names, fds,
				    o->xdp_attach);
	for (int i = 0; !err && i < cap->ifaces.set.n; i++)
		load_dev_program(cap, &lo, i);
	return err;
}

/* Has every captured device below interface i got its XDP already? */
static bool lowers_attached(const struct ps_capture *cap, const bool *done, int i)
{
	for (int j = 0; j < cap->ifaces.set.n; j++)
		if (j != i && !done[j] &&
		    ps_device_is_below(&cap->ifaces.ifs[j].dev, cap->ifaces.ifs[i].ifindex))
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
	bool *done = calloc((size_t)cap->ifaces.set.n + 1, sizeof(*done));
	int err = 0;

	if (!done)
		return -ENOMEM;
	for (int i = 0; i < cap->ifaces.set.n; i++)
		done[i] = !(cap->ifaces.ifs[i].hooks & PS_HOOK_BIT(PS_HOOK_XDP));
	for (bool more = true; more && !err;) {
		more = false;
		for (int i = 0; i < cap->ifaces.set.n && !err; i++) {
			if (done[i] || !lowers_attached(cap, done, i))
				continue;
			if (cap->stop->requested)
				err = -EINTR;
			else
				err = ps_attach_xdp(&cap->kern.att, &cap->ifaces.ifs[i].dev,
						    cap->ifaces.ifs[i].xdp_mode,
						    ps_loader_prog_fd(&cap->ifaces.ifs[i].dev_loader,
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

	for (int t = 0; t < cap->out.n_targets; t++)
		tc |= ps_hook_is_tc(cap->out.targets[t].hook);
	/* Following: for interfaces to come, too. */
	tc |= cap->ifaces.set.follow && (cap->kern.hooks & PS_HOOKS_TC);
	if (!tc || cap->cfg.tc_mode == PS_TC_TCX)
		return 0;
	fd = ps_guardian_start();
	if (fd < 0)
		return fd;
	cap->kern.att.guard_fd = fd;
	return 0;
}

/* xdp-entry and xdp-exit: each traced program's, once (load_trace_programs). */
static int attach_xdp_trace_all(struct ps_capture *cap)
{
	static const enum ps_prog progs[] = { PS_PROG_XDP_ENTRY, PS_PROG_XDP_EXIT };
	static const unsigned int hooks[] = { PS_HOOK_XDP_ENTRY, PS_HOOK_XDP_EXIT };
	int err = 0;

	for (int i = 0; !err && i < cap->ifaces.set.n; i++)
		for (int k = 0; !err && k < 2; k++) {
			int fd = ps_loader_prog_fd(&cap->ifaces.ifs[i].trace_loader, progs[k]);

			if (fd >= 0)
				err = ps_attach_xdp_trace(&cap->kern.att, fd,
							  &cap->ifaces.ifs[i].dev, hooks[k]);
		}
	return err;
}

/* More than this many interfaces at TC, and auto takes clsact: tcx's wait
 * of some 10 ms per link makes 16 interfaces' 32 links about 0.3 s. */
#define PS_TCX_IFACES_MAX 16

/* How TC attaches: as --tc-mode says, but auto with more interfaces than
 * tcx attaches quickly takes clsact (hooks.h: PS_TC_AUTO_MANY), and so
 * does auto where the kernel has no tcx (-v has said so). 0, or -errno
 * logged: tcx insisted on where there is none. */
static int choose_tc_mode(struct ps_capture *cap)
{
	int n = 0;

	for (int i = 0; i < cap->ifaces.set.n; i++)
		n += (cap->ifaces.ifs[i].hooks & PS_HOOKS_TC) != 0;
	cap->kern.tc_mode = cap->cfg.tc_mode;
	if (cap->cfg.tc_mode == PS_TC_CLSACT || (!n && !cap->ifaces.set.follow) ||
	    ps_kfeature_has(PS_KF_TCX)) {
		if (cap->cfg.tc_mode == PS_TC_AUTO && n > PS_TCX_IFACES_MAX) {
			cap->kern.tc_mode = PS_TC_AUTO_MANY;
			pr_info("TC on %d interfaces: through clsact (tcx where a hook has tcx "
				"programs already), as tcx waits some 10 ms per link; --tc-mode "
				"tcx to insist\n",
				n);
		}
		return 0;
	}
	if (cap->cfg.tc_mode == PS_TC_TCX) {
		pr_err("--tc-mode tcx: this kernel has no tcx (Linux 6.6 has it); --tc-mode auto "
		       "or clsact attaches through a clsact qdisc\n");
		return -EOPNOTSUPP;
	}
	cap->kern.tc_mode = PS_TC_CLSACT;
	return 0;
}

int cap_attach_all(struct ps_capture *cap)
{
	int err;

	err = choose_tc_mode(cap);
	if (!err)
		err = attach_xdp_all(cap);
	if (!err)
		err = attach_xdp_trace_all(cap);
	if (!err && (cap->kern.hooks & PS_HOOKS_DROP))
		err = ps_attach_drop(&cap->kern.att,
				     ps_loader_prog_fd(&cap->kern.loader, PS_PROG_DROP));
	for (int t = 0; !err && t < cap->out.n_targets; t++) {
		const struct ps_target *tg = &cap->out.targets[t];

		if (!ps_hook_is_tc(tg->hook))
			continue;
		if (cap->stop->requested)
			return -EINTR;
		err = ps_attach_tc(&cap->kern.att, ps_loader_prog_fd(&cap->kern.loader, tg->hook),
				   tg->ifindex, tg->ifname, tg->hook, cap->kern.tc_mode,
				   cap->cfg.tc_position);
	}
	/* tcx everywhere: the guardian has nothing to look after (following,
	 * once tcx has been seen to work: the interfaces to come get it too). */
	if (!err && cap->kern.att.guard_fd >= 0 && !ps_attach_has_clsact(&cap->kern.att) &&
	    (!cap->ifaces.set.follow || ps_attach_has_tcx(&cap->kern.att))) {
		close(cap->kern.att.guard_fd);
		cap->kern.att.guard_fd = -1;
	}
	/* Said once all is attached: a failed start's one line stays one. */
	for (int i = 0; !err && i < cap->ifaces.set.n; i++)
		ps_attach_warn_xdp_cost(&cap->kern.att, &cap->ifaces.ifs[i].dev);
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
	cap->kern.promisc_fd = ps_promisc_open();
	if (cap->kern.promisc_fd < 0)
		err = cap->kern.promisc_fd;
	for (int i = 0; !err && i < cap->ifaces.set.n; i++) {
		err = ps_promisc_add(cap->kern.promisc_fd, cap->ifaces.ifs[i].ifindex);
		if (err)
			pr_warn("cannot put %s into promiscuous mode: %s; capturing without it\n",
				cap->ifaces.ifs[i].name, strerror(-err));
	}
	if (cap->kern.promisc_fd < 0)
		pr_warn("cannot use promiscuous mode: %s%s; capturing without it (-p: do not try)\n",
			strerror(-err), err == -EPERM ? " (needs CAP_NET_RAW)" : "");
}

/*
 * The transport, where --transport left it to us (auto): the ring buffer
 * where perf events are closed to us (Debian's perf_event_paranoid 3
 * without CAP_SYS_ADMIN), or where -B is small enough that CPUs share a
 * ring (ps_buffer_rings_by_default()); the perf buffers otherwise. A
 * transport named is kept; --sample-interval needs perf events whatever
 * carries the samples, so it says what would do.
 */
int cap_choose_transport(struct ps_capture *cap)
{
	static const char why[] = "kernel.perf_event_paranoid is above 2 (Debian's default), "
				  "which allows perf events only with CAP_SYS_ADMIN";
	const struct ps_buffer_plan *b = &cap->kern.bufs;
	bool perf_ok = ps_perf_events_allowed();

	if (!perf_ok && cap->smp.mode == PS_SAMPLE_CLOCK) {
		pr_err("--sample-interval needs a perf event per CPU: %s; run as root, or "
		       "'sysctl kernel.perf_event_paranoid=2'\n",
		       why);
		return -EACCES;
	}
	if (cap->cfg.transport_given) {
		if (perf_ok || cap->kern.transport != PS_TRANSPORT_PERF)
			return 0;
		pr_err("--transport perf needs perf events: %s; --transport ringbuf needs none, "
		       "or 'sysctl kernel.perf_event_paranoid=2'\n",
		       why);
		return -EACCES;
	}
	if (!perf_ok) {
		cap->kern.transport = PS_TRANSPORT_RINGBUF;
		pr_info("transport: ringbuf, as %s\n", why);
	} else if (ps_buffer_rings_by_default(b, cap->cfg.buffer_kib)) {
		cap->kern.transport = PS_TRANSPORT_RINGBUF;
		pr_info("transport: ringbuf, as -B %u leaves a CPU %u KiB, under %u: a ring for %u "
			"CPUs lends one flow all %u KiB (--transport perf: the perf buffers)\n",
			cap->cfg.buffer_kib, b->per_cpu_kib, PS_RING_SHARED_BELOW_KIB, b->ring_cpus,
			b->ring_kib);
	}
	return 0;
}

/* Interface i's hooks, as at the start (XDP, then TC). */
int cap_attach_iface(struct ps_capture *cap, int i)
{
	struct ps_cap_iface *f = &cap->ifaces.ifs[i];
	int err = 0;

	if (f->hooks & PS_HOOK_BIT(PS_HOOK_XDP))
		err = ps_attach_xdp(&cap->kern.att, &f->dev, f->xdp_mode, -1);
	for (unsigned int h = PS_HOOK_TC_INGRESS; !err && h <= PS_HOOK_TC_EGRESS; h++)
		if (f->hooks & PS_HOOK_BIT(h))
			err = ps_attach_tc(&cap->kern.att, ps_loader_prog_fd(&cap->kern.loader, h),
					   f->ifindex, f->name, h, cap->kern.tc_mode,
					   cap->cfg.tc_position);
	if (!err && cap->kern.promisc_fd >= 0 && ps_promisc_add(cap->kern.promisc_fd, f->ifindex))
		pr_warn("cannot put %s into promiscuous mode; capturing without it\n", f->name);
	return err;
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
		.hooks = cap->kern.hooks,
		.snaplen = o->snaplen,
		.max_ifaces = (uint32_t)cap->ifaces.set.room,
		.sampling = &s,
		.filter = filter,
		.transport = cap->kern.transport,
		.sflow_pool = o->sflow.n_collectors > 0,
		.ctx = &cap->ctx.knobs,
		.xdp_native = cap->kern.xdp_loaded[0],
		.xdp_skb = cap->kern.xdp_loaded[1],
		.maps_from = &cap->kern.loader,
	};
	int new_fd[PS_REPLACE_SLOTS], old_fd[PS_REPLACE_SLOTS], err;
	struct ps_loader next;
	bool raw = cap->ifaces.set.follow != NULL;
	char msg[512];

	if (!ps_attach_can_replace(&cap->kern.att) ||
	    (cap->kern.hooks & (PS_HOOKS_DROP | PS_HOOKS_XDP_TRACE))) {
		pr_err("the new configuration changes the filter or the sampling, and what is "
		       "attached here (the drop hook, xdp-entry/exit, libxdp, XDP bound to a "
		       "device) cannot take new programs in place: that needs a restart; keeping "
		       "the running one\n");
		return -EBUSY;
	}
	if (cap->kern.transport == PS_TRANSPORT_RINGBUF)
		lo.ring_bytes = cap->kern.bufs.ring_kib * 1024;
	for (int i = 0; i < cap->ifaces.set.n; i++)
		raw |= cap->ifaces.ifs[i].ifindex && cap->ifaces.ifs[i].linktype == PS_LINKTYPE_RAW;
	if (filter && raw && ps_filter_build_raw(filter, msg, sizeof(msg)) &&
	    !cap->ifaces.set.follow) {
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
		old_fd[h] = ps_loader_prog_fd(cap->kern.progs, h);
	}
	new_fd[PS_REPLACE_XDP] = ps_loader_prog_fd(&next, PS_PROG_XDP);
	old_fd[PS_REPLACE_XDP] = ps_loader_prog_fd(cap->kern.progs, PS_PROG_XDP);
	new_fd[PS_REPLACE_XDP_SKB] = ps_loader_prog_fd(&next, PS_PROG_XDP_SKB);
	old_fd[PS_REPLACE_XDP_SKB] = ps_loader_prog_fd(cap->kern.progs, PS_PROG_XDP_SKB);
	err = ps_attach_replace(&cap->kern.att, new_fd, old_fd);
	if (err) {
		ps_loader_close(&next);
		return err;
	}
	/* The main loader keeps the maps (its programs stay loaded, idle);
	 * the programs of a reload before go. */
	if (cap->kern.progs != &cap->kern.loader)
		ps_loader_close(cap->kern.progs);
	cap->kern.next_progs = next;
	cap->kern.progs = &cap->kern.next_progs;
	if (cap->kern.own_filter && cap->kern.own_filter != filter) {
		ps_filter_free(cap->kern.own_filter);
		free(cap->kern.own_filter);
	}
	cap->kern.own_filter = filter;
	return 0;
}

void cap_kern_init(struct ps_cap_kern *k, const struct ps_capture_cfg *cfg)
{
	k->promisc_fd = -1;
	k->att.guard_fd = -1;
	k->transport = cfg->transport;
	ps_buffer_plan(cfg->buffer_kib, ps_online_cpus(NULL, 0), sysconf(_SC_PAGESIZE), &k->bufs);
	k->drops.consumed = UINT32_MAX; /* no names yet, and no reason to skip */
}

void cap_kern_release(struct ps_cap_kern *k)
{
	ps_attach_release(&k->att);
	if (k->att.guard_fd >= 0)
		close(k->att.guard_fd); /* all detached: the guardian leaves */
	k->att.guard_fd = -1;
	ps_ticker_stop(&k->ticker);
}

void cap_kern_free(struct ps_capture *cap)
{
	struct ps_cap_kern *k = &cap->kern;

	cap_kern_release(k);
	for (int i = 0; i < cap->ifaces.set.n; i++) {
		ps_loader_close(&cap->ifaces.ifs[i].dev_loader);
		ps_loader_close(&cap->ifaces.ifs[i].trace_loader);
		ps_xdp_target_close(&cap->ifaces.ifs[i].xdp_target);
	}
	if (k->progs && k->progs != &k->loader)
		ps_loader_close(k->progs);
	k->progs = NULL;
	ps_loader_close(&k->loader);
	if (k->own_filter) {
		ps_filter_free(k->own_filter);
		free(k->own_filter);
		k->own_filter = NULL;
	}
	ps_dropnames_free(&k->drops);
	if (k->promisc_fd >= 0)
		close(k->promisc_fd); /* the memberships go with it */
	k->promisc_fd = -1;
}
