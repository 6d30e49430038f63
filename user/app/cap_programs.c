// SPDX-License-Identifier: GPL-2.0-only
/* The capture's programs: loaded, attached (and a reload's swapped in),
 * the guardian and promiscuous mode; and each interface's own, by its
 * slot (struct ps_cap_iface_progs), which only this part writes. It reads
 * the interfaces (struct ps_cap_ifaces); see capture_int.h. */
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
static void xdp_programs_needed(const struct ps_cap_kern *k, const struct ps_cap_ifaces *f,
				bool need[2])
{
	need[0] = need[1] = f->set.follow && (k->hooks & PS_HOOK_BIT(PS_HOOK_XDP));
	for (int i = 0; i < f->set.n; i++) {
		if (!(f->ifs[i].hooks & PS_HOOK_BIT(PS_HOOK_XDP)))
			continue;
		need[0] |= f->ifs[i].xdp_mode != PS_XDP_SKB;
		need[1] |= f->ifs[i].xdp_mode != PS_XDP_NATIVE;
	}
}

/* A slot's programs, none yet (or let go). */
static void fresh_slot(struct ps_cap_iface_progs *p)
{
	memset(p, 0, sizeof(*p));
	p->xdp_target.fd = -1;
}

int cap_kern_make_room(struct ps_cap_kern *k, int n)
{
	struct ps_cap_iface_progs *slots;

	if (n <= k->slots_room)
		return 0;
	slots = realloc(k->slots, (size_t)n * sizeof(*slots));
	if (!slots) {
		pr_err("cannot keep %d interfaces: %s\n", n, strerror(ENOMEM));
		return -ENOMEM;
	}
	/* Free entries: teardown closes what each holds. */
	for (int i = k->slots_room; i < n; i++)
		fresh_slot(&slots[i]);
	k->slots = slots;
	k->slots_room = n;
	return 0;
}

/*
 * xdp-entry and xdp-exit on interface d: the XDP program there, which the
 * kernel must let us trace (the probe in ps_device_probe said), into t.
 * Refused in one line, before anything is loaded, where there is none or
 * it cannot be.
 */
static int find_xdp_target(const struct ps_device *d, struct ps_xdp_target *t)
{
	int err;

	if (!d->xdp_prog_id) {
		pr_err("cannot capture at xdp-entry or xdp-exit on %s: no XDP program is attached "
		       "there to trace (--hook xdp captures at XDP itself)\n",
		       d->name);
		return -EOPNOTSUPP;
	}
	if (d->xdp_traceable != 1) {
		pr_err("cannot trace XDP program %u (%s) on %s: %s; --hook tc-ingress sees what "
		       "it passes\n",
		       d->xdp_prog_id, d->xdp_prog_name, d->name,
		       d->xdp_traceable ? "the kernel did not say whether it may" :
					  d->xdp_trace_why);
		return -EOPNOTSUPP;
	}
	err = ps_xdp_target_find(d->ifindex, t);
	if (!err && t->id != d->xdp_prog_id)
		err = -EAGAIN;
	if (err)
		pr_err("cannot trace XDP program %u (%s) on %s: %s\n", d->xdp_prog_id,
		       d->xdp_prog_name, d->name,
		       err == -EAGAIN ? "it was replaced meanwhile" : strerror(-err));
	return err ? -EOPNOTSUPP : 0;
}

int cap_kern_iface_resolved(struct ps_cap_kern *k, int i, const struct ps_cap_iface *ifc)
{
	int err = cap_kern_make_room(k, i + 1);

	if (err)
		return err;
	if (ifc->hooks & PS_HOOKS_XDP_TRACE)
		return find_xdp_target(&ifc->dev, &k->slots[i].xdp_target);
	return 0;
}

/* The interfaces the hooks count and capture (the kernel's ifaces map). */
int cap_add_kernel_iface(struct ps_cap_kern *k, const struct ps_cap_iface *ifc, bool later)
{
	int err = ps_loader_add_iface(&k->loader, (uint32_t)ifc->ifindex,
				      ifc->linktype == PS_LINKTYPE_RAW);

	if (err == -E2BIG && later)
		pr_warn("not capturing on %s: the capture has room for %d interfaces "
			"(--max-ifaces)\n",
			ifc->name, k->max_ifaces);
	else if (err == -E2BIG)
		pr_err("cannot capture on %s: the capture has room for %d interfaces "
		       "(--max-ifaces)\n",
		       ifc->name, k->max_ifaces);
	return err;
}

int cap_add_kernel_ifaces(struct ps_cap_kern *k, const struct ps_cap_ifaces *f)
{
	int err = 0;

	for (int i = 0; !err && i < f->set.n; i++)
		err = cap_add_kernel_iface(k, &f->ifs[i], false);
	return err;
}

void cap_plan_hooks(struct ps_cap_kern *k, const struct ps_cap_ifaces *f,
		    const struct ps_capture_cfg *cfg)
{
	unsigned int hooks = 0;

	/* Following, the hooks are loaded for interfaces to come too, as
	 * asked or as the default is (no tracing: that needs a program to
	 * trace). */
	if (f->set.follow)
		hooks = cfg->hooks_given ? cfg->hooks & ~PS_HOOKS_XDP_TRACE : PS_HOOKS_TC;
	for (int i = 0; i < f->set.n; i++)
		if (f->ifs[i].ifindex)
			hooks |= f->ifs[i].hooks;
	k->hooks = hooks;
}

/* Slot i's programs and traced program let go. */
static void close_slot(struct ps_cap_iface_progs *p)
{
	ps_loader_close(&p->dev_loader);
	ps_loader_close(&p->trace_loader);
	ps_xdp_target_close(&p->xdp_target);
}

void cap_kern_iface_gone(struct ps_cap_kern *k, int i, int ifindex, bool vanished,
			 struct ps_counters final[PS_HOOK_MAX])
{
	ps_detach_iface(&k->att, ifindex, vanished);
	ps_loader_remove_iface(&k->loader, (uint32_t)ifindex, final);
	if (i < k->slots_room) {
		close_slot(&k->slots[i]);
		fresh_slot(&k->slots[i]); /* free for one to come */
	}
}

/*
 * Native XDP through a link on a device whose driver hands XDP the VLAN tag
 * it strips, on a kernel that lets a program ask (6.8+): that device gets
 * the program bound to it, which puts the tag in the record. Without it
 * the shared program runs there, and the tags are missed (said at attach).
 */
static void load_dev_program(struct ps_cap_kern *k, const struct ps_cap_iface *ifc, int i,
			     const struct ps_load_opts *main, enum ps_xdp_attach xdp_attach)
{
	struct ps_load_opts lo = *main;
	const struct ps_device *d = &ifc->dev;

	if (!(ifc->hooks & PS_HOOK_BIT(PS_HOOK_XDP)) || ifc->xdp_mode == PS_XDP_SKB ||
	    d->xdp_rx_vlan != 1 || xdp_attach != PS_XDP_VIA_LINK ||
	    !ps_kfeature_has(PS_KF_XDP_VLAN_META))
		return;
	lo.xdp_dev_ifindex = (uint32_t)d->ifindex;
	lo.maps_from = &k->loader;
	if (ps_loader_load(&k->slots[i].dev_loader, &lo))
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
static int load_trace_programs(struct ps_cap_kern *k, const struct ps_cap_iface *ifc, int i,
			       const struct ps_load_opts *main)
{
	struct ps_load_opts lo = *main;
	const struct ps_xdp_target *t = &k->slots[i].xdp_target;

	if (!(ifc->hooks & PS_HOOKS_XDP_TRACE))
		return 0;
	for (int j = 0; j < i; j++)
		if (k->slots[j].trace_loader.skel && k->slots[j].xdp_target.id == t->id)
			return 0;
	lo.hooks = ifc->hooks;
	lo.trace_func = t->func;
	lo.trace_prog_fd = t->fd;
	lo.maps_from = &k->loader;
	return ps_loader_load(&k->slots[i].trace_loader, &lo);
}

/* -v: each feature this capture would use that the kernel lacks, in a
 * line that says what it costs (user/kernel/kfeatures.h). */
static void say_missing_features(enum ps_tc_mode tc_mode, const struct ps_load_opts *lo)
{
	const struct ps_kneeds needs = {
		.hooks = lo->hooks,
		.context = lo->ctx && lo->ctx->enabled,
		.pool = lo->sflow_pool,
		.tcx = tc_mode != PS_TC_CLSACT,
	};
	unsigned int missing = ps_kfeatures_missing(ps_kfeatures_used(&needs));

	for (int k = 0; k < PS_KF_MAX; k++)
		if (missing & PS_KF_BIT(k))
			pr_info("kernel: %s\n", ps_kfeature_missing_line((enum ps_kfeature)k));
}

int cap_load_programs(struct ps_cap_kern *k, const struct ps_cap_ifaces *f,
		      const struct ps_capture_cfg *cfg, const struct ps_sampling *smp,
		      struct ps_filter *filter, const struct ps_ctx_knobs *knobs)
{
	struct ps_load_opts lo = {
		.hooks = k->hooks,
		.snaplen = cfg->snaplen,
		.max_ifaces = (uint32_t)f->set.room,
		.sampling = smp,
		.filter = filter,
		.transport = k->transport,
		.sflow_pool = cfg->sflow.n_collectors > 0,
		.paths = ps_packet_id_paths(cfg->packet_id, k->hooks, f->set.room),
		.ctx = knobs,
		.drop_skip_reason = k->drops.consumed,
	};
	bool need[2];
	const char *names[2];
	int fds[2], err;

	if (k->hooks & PS_HOOKS_DROP) {
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
	xdp_programs_needed(k, f, need);
	lo.xdp_native = k->xdp_loaded[0] = need[0];
	lo.xdp_skb = k->xdp_loaded[1] = need[1];
	if (k->transport == PS_TRANSPORT_RINGBUF)
		lo.ring_bytes = k->bufs.ring_kib * 1024;
	say_missing_features(cfg->tc_mode, &lo);
	if (!lo.paths)
		pr_info("packet ids: each record's CPU and sequence (--packet-id path follows a "
			"packet across hooks)\n");
	else if (k->hooks & PS_HOOK_BIT(PS_HOOK_XDP))
		pr_info("packet ids: one a packet at its TC and drop hooks; its XDP records keep "
			"their own (no skb there yet)\n");
	else if ((k->hooks & PS_HOOKS_XDP_TRACE) && (k->hooks & ~PS_HOOKS_XDP_TRACE))
		pr_info("packet ids: one a packet from xdp-entry to xdp-exit, another at its TC "
			"and drop hooks (no skb at XDP yet)\n");
	else
		pr_info("packet ids: one a packet at every hook it meets\n");
	/* Loaded here, not inside libxdp's attach, so a filter the verifier
	 * refuses is reported as such before anything is attached. */
	k->max_ifaces = f->set.room;
	err = ps_loader_load(&k->loader, &lo);
	k->progs = &k->loader;
	for (int i = 0; !err && i < f->set.n; i++)
		err = load_trace_programs(k, &f->ifs[i], i, &lo);
	if (err || !(k->hooks & PS_HOOK_BIT(PS_HOOK_XDP)))
		return err;
	for (int i = 0; i < 2; i++) {
		struct bpf_program *p = ps_loader_prog(&k->loader,
						       i ? PS_PROG_XDP_SKB : PS_PROG_XDP);

		names[i] = p ? bpf_program__name(p) : NULL;
		fds[i] = p ? bpf_program__fd(p) : -1;
	}
	err = ps_attach_prepare_xdp(&k->att, ps_loader_object(&k->loader), names, fds,
				    cfg->xdp_attach);
	for (int i = 0; !err && i < f->set.n; i++)
		load_dev_program(k, &f->ifs[i], i, &lo, cfg->xdp_attach);
	return err;
}

/* Has every captured device below interface i got its XDP already? */
static bool lowers_attached(const struct ps_cap_ifaces *f, const bool *done, int i)
{
	for (int j = 0; j < f->set.n; j++)
		if (j != i && !done[j] && ps_device_is_below(&f->ifs[j].dev, f->ifs[i].ifindex))
			return false;
	return true;
}

/*
 * XDP first on the devices below, then on those above them: the kernel
 * refuses XDP on a port or lower device once its bridge, macvlan or VLAN
 * holds XDP, not the other way round. Each pass attaches the devices one
 * level further up, until a pass has nothing left to attach.
 */
static int attach_xdp_all(struct ps_cap_kern *k, const struct ps_cap_ifaces *f,
			  const struct ps_stop *stop)
{
	bool *done = calloc((size_t)f->set.n + 1, sizeof(*done));
	int err = 0;

	if (!done)
		return -ENOMEM;
	for (int i = 0; i < f->set.n; i++)
		done[i] = !(f->ifs[i].hooks & PS_HOOK_BIT(PS_HOOK_XDP));
	for (bool more = true; more && !err;) {
		more = false;
		for (int i = 0; i < f->set.n && !err; i++) {
			if (done[i] || !lowers_attached(f, done, i))
				continue;
			if (stop->requested)
				err = -EINTR;
			else
				err = ps_attach_xdp(&k->att, &f->ifs[i].dev, f->ifs[i].xdp_mode,
						    ps_loader_prog_fd(&k->slots[i].dev_loader,
								      PS_PROG_XDP_DEV));
			done[i] = more = true;
		}
	}
	free(done);
	return err;
}

/* More than this many interfaces at TC, and auto takes clsact: tcx waits
 * for each link it attaches, and over many interfaces those waits add up
 * to a start one notices (doc/performance.md#start-up). */
#define PS_TCX_IFACES_MAX 16

/*
 * Where TC will attach through clsact, the guardian that removes our
 * filters should we be killed (guardian.h): forked before anything is
 * loaded, so it holds nothing of the capture's. Where auto takes tcx, whose
 * links go with the process, there is nothing to look after: should an
 * interface need clsact after all, attaching it starts the guardian then.
 */
int cap_start_guardian(struct ps_cap_kern *k, const struct ps_cap_ifaces *f,
		       enum ps_tc_mode tc_mode)
{
	int n = 0, fd;

	for (int i = 0; i < f->set.n; i++)
		n += (f->ifs[i].hooks & PS_HOOKS_TC) != 0;
	/* Following: for interfaces to come, too. */
	if (!n && !(f->set.follow && (k->hooks & PS_HOOKS_TC)))
		return 0;
	if (tc_mode == PS_TC_TCX ||
	    (tc_mode == PS_TC_AUTO && n <= PS_TCX_IFACES_MAX && ps_kfeature_has(PS_KF_TCX)))
		return 0;
	fd = ps_guardian_start();
	if (fd < 0)
		return fd;
	k->att.guard_fd = fd;
	return 0;
}

/* xdp-entry and xdp-exit: each traced program's, once (load_trace_programs). */
static int attach_xdp_trace_all(struct ps_cap_kern *k, const struct ps_cap_ifaces *f)
{
	static const enum ps_prog progs[] = { PS_PROG_XDP_ENTRY, PS_PROG_XDP_EXIT };
	static const unsigned int hooks[] = { PS_HOOK_XDP_ENTRY, PS_HOOK_XDP_EXIT };
	int err = 0;

	for (int i = 0; !err && i < f->set.n; i++)
		for (int h = 0; !err && h < 2; h++) {
			int fd = ps_loader_prog_fd(&k->slots[i].trace_loader, progs[h]);

			if (fd >= 0)
				err = ps_attach_xdp_trace(&k->att, fd, &f->ifs[i].dev, hooks[h]);
		}
	return err;
}

/* How TC attaches: as --tc-mode says, but auto with more interfaces than
 * tcx attaches quickly takes clsact (hooks.h: PS_TC_AUTO_MANY), and so
 * does auto where the kernel has no tcx (-v has said so). 0, or -errno
 * logged: tcx insisted on where there is none. */
static int choose_tc_mode(struct ps_cap_kern *k, const struct ps_cap_ifaces *f,
			  enum ps_tc_mode asked)
{
	int n = 0;

	for (int i = 0; i < f->set.n; i++)
		n += (f->ifs[i].hooks & PS_HOOKS_TC) != 0;
	k->tc_mode = asked;
	if (asked == PS_TC_CLSACT || (!n && !f->set.follow) || ps_kfeature_has(PS_KF_TCX)) {
		if (asked == PS_TC_AUTO && n > PS_TCX_IFACES_MAX) {
			k->tc_mode = PS_TC_AUTO_MANY;
			pr_info("TC on %d interfaces: through clsact (tcx where a hook has tcx "
				"programs already), as tcx waits some 10 ms per link; --tc-mode "
				"tcx to insist\n",
				n);
		}
		return 0;
	}
	if (asked == PS_TC_TCX) {
		pr_err("--tc-mode tcx: this kernel has no tcx (Linux 6.6 has it); --tc-mode auto "
		       "or clsact attaches through a clsact qdisc\n");
		return -EOPNOTSUPP;
	}
	k->tc_mode = PS_TC_CLSACT;
	return 0;
}

/* Every interface's TC hooks, in the order of its hooks. */
static int attach_tc_all(struct ps_cap_kern *k, const struct ps_cap_ifaces *f,
			 enum ps_tc_position tc_position, const struct ps_stop *stop)
{
	int err = 0;

	for (int i = 0; !err && i < f->set.n; i++)
		for (unsigned int h = PS_HOOK_TC_INGRESS; !err && h <= PS_HOOK_TC_EGRESS; h++) {
			if (!(f->ifs[i].hooks & PS_HOOK_BIT(h)))
				continue;
			if (stop->requested)
				return -EINTR;
			err = ps_attach_tc(&k->att, ps_loader_prog_fd(&k->loader, h),
					   f->ifs[i].ifindex, f->ifs[i].name, h, k->tc_mode,
					   tc_position);
		}
	return err;
}

int cap_attach_all(struct ps_cap_kern *k, const struct ps_cap_ifaces *f,
		   const struct ps_capture_cfg *cfg, const struct ps_stop *stop)
{
	int err;

	err = choose_tc_mode(k, f, cfg->tc_mode);
	if (!err)
		err = attach_xdp_all(k, f, stop);
	if (!err)
		err = attach_xdp_trace_all(k, f);
	if (!err && (k->hooks & PS_HOOKS_DROP))
		err = ps_attach_drop(&k->att, ps_loader_prog_fd(&k->loader, PS_PROG_DROP));
	if (!err)
		err = attach_tc_all(k, f, cfg->tc_position, stop);
	/* tcx everywhere: the guardian has nothing to look after (following,
	 * once tcx has been seen to work: the interfaces to come get it too). */
	if (!err && k->att.guard_fd >= 0 && !ps_attach_has_clsact(&k->att) &&
	    (!f->set.follow || ps_attach_has_tcx(&k->att))) {
		close(k->att.guard_fd);
		k->att.guard_fd = -1;
	}
	/* Said once all is attached: a failed start's one line stays one. */
	for (int i = 0; !err && i < f->set.n; i++)
		ps_attach_warn_xdp_cost(&k->att, &f->ifs[i].dev);
	return err;
}

/*
 * Promiscuous while we capture (tcpdump does it unless -p): without it a
 * NIC drops other hosts' unicast (a mirror port's traffic) before any hook
 * runs. Without CAP_NET_RAW we say so once and capture all the same.
 */
void cap_set_promiscuous(struct ps_cap_kern *k, const struct ps_cap_ifaces *f)
{
	int err = 0;

	k->promisc_fd = ps_promisc_open();
	if (k->promisc_fd < 0)
		err = k->promisc_fd;
	for (int i = 0; !err && i < f->set.n; i++) {
		err = ps_promisc_add(k->promisc_fd, f->ifs[i].ifindex);
		if (err)
			pr_warn("cannot put %s into promiscuous mode: %s; capturing without it\n",
				f->ifs[i].name, strerror(-err));
	}
	if (k->promisc_fd < 0)
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
int cap_choose_transport(struct ps_cap_kern *k, const struct ps_capture_cfg *cfg,
			 const struct ps_sampling *smp)
{
	static const char why[] = "kernel.perf_event_paranoid is above 2 (Debian's default), "
				  "which allows perf events only with CAP_SYS_ADMIN";
	const struct ps_buffer_plan *b = &k->bufs;
	bool perf_ok = ps_perf_events_allowed();

	if (!perf_ok && smp->mode == PS_SAMPLE_CLOCK) {
		pr_err("--sample-interval needs a perf event per CPU: %s; run as root, or "
		       "'sysctl kernel.perf_event_paranoid=2'\n",
		       why);
		return -EACCES;
	}
	if (cfg->transport_given) {
		if (perf_ok || k->transport != PS_TRANSPORT_PERF)
			return 0;
		pr_err("--transport perf needs perf events: %s; --transport ringbuf needs none, "
		       "or 'sysctl kernel.perf_event_paranoid=2'\n",
		       why);
		return -EACCES;
	}
	if (!perf_ok) {
		k->transport = PS_TRANSPORT_RINGBUF;
		pr_info("transport: ringbuf, as %s\n", why);
	} else if (ps_buffer_rings_by_default(b, cfg->buffer_kib)) {
		k->transport = PS_TRANSPORT_RINGBUF;
		pr_info("transport: ringbuf, as -B %u leaves a CPU %u KiB, under %u: a ring for %u "
			"CPUs lends one flow all %u KiB (--transport perf: the perf buffers)\n",
			cfg->buffer_kib, b->per_cpu_kib, PS_RING_SHARED_BELOW_KIB, b->ring_cpus,
			b->ring_kib);
	}
	return 0;
}

/* Interface i's hooks, as at the start (XDP, then TC). */
int cap_attach_iface(struct ps_cap_kern *k, const struct ps_cap_iface *ifc,
		     enum ps_tc_position tc_position)
{
	int err = 0;

	if (ifc->hooks & PS_HOOK_BIT(PS_HOOK_XDP))
		err = ps_attach_xdp(&k->att, &ifc->dev, ifc->xdp_mode, -1);
	for (unsigned int h = PS_HOOK_TC_INGRESS; !err && h <= PS_HOOK_TC_EGRESS; h++)
		if (ifc->hooks & PS_HOOK_BIT(h))
			err = ps_attach_tc(&k->att, ps_loader_prog_fd(&k->loader, h), ifc->ifindex,
					   ifc->name, h, k->tc_mode, tc_position);
	if (!err && k->promisc_fd >= 0 && ps_promisc_add(k->promisc_fd, ifc->ifindex))
		pr_warn("cannot put %s into promiscuous mode; capturing without it\n", ifc->name);
	return err;
}

/*
 * A reload's new filter or sampling: the programs built anew with them,
 * on the same maps (buffers, counters, pools, interfaces, owners), and put
 * in place of the running ones on every hook at once (link updates,
 * clsact filters replaced), so that no packet goes uncounted and no sample
 * is lost in between. 0, or -errno logged (the running ones stay).
 */
int cap_swap_programs(struct ps_cap_kern *k, const struct ps_cap_ifaces *f,
		      const struct ps_capture_cfg *cfg, const struct ps_ctx_knobs *knobs,
		      struct ps_filter *filter, const struct ps_sampling *smp)
{
	struct ps_sampling s = *smp;
	struct ps_load_opts lo = {
		.hooks = k->hooks,
		.snaplen = cfg->snaplen,
		.max_ifaces = (uint32_t)f->set.room,
		.sampling = &s,
		.filter = filter,
		.transport = k->transport,
		.sflow_pool = cfg->sflow.n_collectors > 0,
		.paths = ps_packet_id_paths(cfg->packet_id, k->hooks, f->set.room),
		.ctx = knobs,
		.xdp_native = k->xdp_loaded[0],
		.xdp_skb = k->xdp_loaded[1],
		.maps_from = &k->loader,
	};
	int new_fd[PS_REPLACE_SLOTS], old_fd[PS_REPLACE_SLOTS], err;
	struct ps_loader next;
	bool raw = f->set.follow != NULL;
	char msg[512];

	if (!ps_attach_can_replace(&k->att) || (k->hooks & (PS_HOOKS_DROP | PS_HOOKS_XDP_TRACE))) {
		pr_err("the new configuration changes the filter or the sampling, and what is "
		       "attached here (the drop hook, xdp-entry/exit, libxdp, XDP bound to a "
		       "device) cannot take new programs in place: that needs a restart; keeping "
		       "the running one\n");
		return -EBUSY;
	}
	if (k->transport == PS_TRANSPORT_RINGBUF)
		lo.ring_bytes = k->bufs.ring_kib * 1024;
	for (int i = 0; i < f->set.n; i++)
		raw |= f->ifs[i].ifindex && f->ifs[i].linktype == PS_LINKTYPE_RAW;
	if (filter && raw && ps_filter_build_raw(filter, msg, sizeof(msg)) && !f->set.follow) {
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
		old_fd[h] = ps_loader_prog_fd(k->progs, h);
	}
	new_fd[PS_REPLACE_XDP] = ps_loader_prog_fd(&next, PS_PROG_XDP);
	old_fd[PS_REPLACE_XDP] = ps_loader_prog_fd(k->progs, PS_PROG_XDP);
	new_fd[PS_REPLACE_XDP_SKB] = ps_loader_prog_fd(&next, PS_PROG_XDP_SKB);
	old_fd[PS_REPLACE_XDP_SKB] = ps_loader_prog_fd(k->progs, PS_PROG_XDP_SKB);
	err = ps_attach_replace(&k->att, new_fd, old_fd);
	if (err) {
		ps_loader_close(&next);
		return err;
	}
	/* The main loader keeps the maps (its programs stay loaded, idle);
	 * the programs of a reload before go. */
	if (k->progs != &k->loader)
		ps_loader_close(k->progs);
	k->next_progs = next;
	k->progs = &k->next_progs;
	if (k->own_filter && k->own_filter != filter) {
		ps_filter_free(k->own_filter);
		free(k->own_filter);
	}
	k->own_filter = filter;
	return 0;
}

int cap_load_drop_names(struct ps_cap_kern *k)
{
	return k->hooks & PS_HOOKS_DROP ? ps_dropnames_load(&k->drops) : 0;
}

int cap_start_clock(struct ps_cap_kern *k, const struct ps_sampling *smp)
{
	if (smp->mode != PS_SAMPLE_CLOCK)
		return 0;
	return ps_ticker_start(&k->ticker, ps_loader_prog(&k->loader, PS_PROG_TICK),
			       smp->interval_ns);
}

int cap_detach_all(struct ps_cap_kern *k)
{
	return ps_detach_all(&k->att);
}

void cap_stop_clock(struct ps_cap_kern *k)
{
	ps_ticker_stop(&k->ticker);
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

void cap_kern_free(struct ps_cap_kern *k)
{
	cap_kern_release(k);
	for (int i = 0; i < k->slots_room; i++)
		close_slot(&k->slots[i]);
	free(k->slots);
	k->slots = NULL;
	k->slots_room = 0;
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
