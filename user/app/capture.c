// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <fnmatch.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <bpf/libbpf.h>
#include "capture.h"
#include "clock.h"
#include "counters.h"
#include "device.h"
#include "filter.h"
#include "guardian.h"
#include "privdrop.h"
#include "linkwatch.h"
#include "log.h"
#include "pcapng.h"
#include "printer.h"
#include "sflowexp.h"
#include "promisc.h"
#include "report.h"

#define POLL_MS 100

static uint64_t read_ns(clockid_t clock)
{
	return (uint64_t)ps_clock_read_ns(clock, NULL);
}

void ps_capture_init(struct ps_capture *cap, const struct ps_capture_cfg *cfg,
		     struct ps_filter *filter, struct ps_stop *stop)
{
	memset(cap, 0, sizeof(*cap));
	cap->link_fd = -1;
	cap->loop_fd = -1;
	cap->promisc_fd = -1;
	cap->att.guard_fd = -1;
	cap->cfg = *cfg;
	cap->transport = cfg->transport;
	ps_buffer_plan(cfg->buffer_kib, ps_online_cpus(NULL, 0), sysconf(_SC_PAGESIZE), &cap->bufs);
	cap->filter = filter;
	cap->stop = stop;
	cap->smp = cfg->smp;
	cap->drops.consumed = UINT32_MAX; /* no names yet, and no reason to skip */
	cap->metrics_slot[0].fd = cap->metrics_slot[1].fd = -1;
	cap->metrics = &cap->metrics_slot[0];
	/* A fresh seed per run: which flows are chosen varies between runs. */
	if (getrandom(&cap->smp.seed, sizeof(cap->smp.seed), 0) != sizeof(cap->smp.seed))
		cap->smp.seed = (uint32_t)read_ns(CLOCK_MONOTONIC);
}

/* Room for room interfaces: 0 or -ENOMEM (logged). */
static int resize_ifaces(struct ps_capture *cap, int room)
{
	struct ps_cap_iface *ifs = realloc(cap->ifs, (size_t)room * sizeof(*ifs));

	if (!ifs) {
		pr_err("cannot keep %d interfaces: %s\n", room, strerror(ENOMEM));
		return -ENOMEM;
	}
	cap->ifs = ifs;
	cap->max_ifaces = room;
	return 0;
}

/* One more interface, by name: 0 or -ENOMEM (logged). */
static int add_iface(struct ps_capture *cap, const char *name)
{
	struct ps_cap_iface *f;

	if (cap->n_ifaces == cap->max_ifaces &&
	    resize_ifaces(cap, cap->max_ifaces ? 2 * cap->max_ifaces : 8))
		return -ENOMEM;
	f = &cap->ifs[cap->n_ifaces++];
	memset(f, 0, sizeof(*f));
	snprintf(f->name, sizeof(f->name), "%s", name);
	f->xdp_target.fd = -1;
	return 0;
}

/* A name with a shell pattern's characters in it: -i 'veth*'. */
static bool is_pattern(const char *name)
{
	return strpbrk(name, "*?[") != NULL;
}

/* -i any or a pattern: what makes a capture follow interfaces. */
static bool follows(const char *name)
{
	return !strcmp(name, "any") || is_pattern(name);
}

/* Does an interface, new or there at the start, belong to the capture? */
static bool wanted(const struct ps_capture *cap, const char *name, bool up, bool loopback)
{
	for (int i = 0; i < cap->cfg.n_ifaces; i++) {
		const char *w = cap->cfg.ifaces[i];

		if (!strcmp(w, "any") ? up && !loopback :
		    is_pattern(w)     ? !fnmatch(w, name, 0) :
					!strcmp(w, name))
			return true;
	}
	return false;
}

/*
 * -i any: every interface that is up, but lo (whose packets are the host
 * talking to itself) only when named as well; -i PATTERN: every interface
 * whose name matches, up or not (as a named one). The named ones come
 * first. None at all is fine: the capture follows interfaces, and takes
 * them as they come.
 */
static int expand(struct ps_capture *cap, const char *what)
{
	struct if_nameindex *all = if_nameindex(), *p;
	int err = 0, named = cap->n_ifaces;
	char list[8 * (IF_NAMESIZE + 2)] = "";

	if (!all) {
		err = -errno;
		pr_err("cannot list the interfaces for -i %s: %s\n", what, strerror(-err));
		return err;
	}
	for (p = all; p->if_index && !err; p++) {
		int flags = ps_link_flags((int)p->if_index);
		bool is_named = false;

		for (int i = 0; i < named; i++)
			is_named |= !strcmp(cap->ifs[i].name, p->if_name);
		if (!is_named && flags >= 0 &&
		    wanted(cap, p->if_name, flags & IFF_UP, flags & IFF_LOOPBACK))
			err = add_iface(cap, p->if_name);
	}
	if_freenameindex(all);
	if (err)
		return err;
	/* Which, as a list while it is short. */
	if (cap->n_ifaces == named)
		snprintf(list, sizeof(list), "%s",
			 named ? "the named interfaces only" : "none yet");
	else if (cap->n_ifaces - named > 8)
		snprintf(list, sizeof(list), "%d interfaces", cap->n_ifaces - named);
	for (int i = named; i < cap->n_ifaces && cap->n_ifaces - named <= 8; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
			 i > named ? ", " : "", cap->ifs[i].name);
	pr_warn("-i %s: capturing on %s\n", what, list);
	return 0;
}

/*
 * xdp-entry and xdp-exit on interface i: the XDP program there, which the
 * kernel must let us trace (the probe in ps_device_probe said). Refused in
 * one line, before anything is loaded, where there is none or it cannot be.
 */
static int find_xdp_target(struct ps_capture *cap, int i)
{
	const struct ps_device *d = &cap->ifs[i].dev;
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
	err = ps_xdp_target_find(d->ifindex, &cap->ifs[i].xdp_target);
	if (!err && cap->ifs[i].xdp_target.id != d->xdp_prog_id)
		err = -EAGAIN;
	if (err)
		pr_err("cannot trace XDP program %u (%s) on %s: %s\n", d->xdp_prog_id,
		       d->xdp_prog_name, d->name,
		       err == -EAGAIN ? "it was replaced meanwhile" : strerror(-err));
	return err ? -EOPNOTSUPP : 0;
}

/*
 * One interface's facts and what follows from them: its link type (a
 * device pktsample cannot write is refused), its hooks (without --hook or
 * -Q: tc-ingress and tc-egress, tc-egress alone on lo) and XDP mode.
 */
static int resolve_one(struct ps_capture *cap, int i, const struct ps_netdev_nl *nl, bool later)
{
	const struct ps_capture_cfg *o = &cap->cfg;
	struct ps_cap_iface *f = &cap->ifs[i];
	struct ps_device *d = &f->dev;
	char msg[512], why[256], hooks[64];
	unsigned int ingress;
	int err;

	if (ps_device_probe(d, f->ifindex, nl)) {
		pr_err("unknown interface '%s'\n", f->name);
		return -ENODEV;
	}
	f->linktype = ps_linktype_of(d->arphrd);
	if (f->linktype < 0) {
		pr_err("cannot capture on %s: its link type (ARPHRD %d) is not one pktsample can "
		       "write (Ethernet, or raw IP for devices without a link-layer header)\n",
		       d->name, d->arphrd);
		return -EPROTONOSUPPORT;
	}
	f->xdp_mode = o->xdp_mode == PS_XDP_AUTO ? ps_device_xdp_mode(d) : o->xdp_mode;
	ingress = ps_device_default_ingress(d, why, sizeof(why));
	/* One that comes later gets no tracing programs of its own: TC
	 * ingress sees what its XDP program passes. */
	if (later && (ingress & PS_HOOKS_XDP_TRACE)) {
		ingress = PS_HOOK_BIT(PS_HOOK_TC_INGRESS);
		snprintf(why, sizeof(why), "it came after the start, with an XDP program");
	}
	if (o->hooks_given) {
		f->hooks = o->hooks;
		pr_info("%s: link type %s; hooks as asked\n", d->name,
			ps_linktype_name(f->linktype));
	} else {
		f->hooks = PS_HOOK_BIT(PS_HOOK_TC_EGRESS) | ingress;
		ps_hooks_format(ingress, hooks, sizeof(hooks));
		pr_info("%s: link type %s; ingress at %s: %s\n", d->name,
			ps_linktype_name(f->linktype), hooks, why);
	}
	/* Packets that start at the IP header meet the expression compiled
	 * for raw IP: a device without a link-layer header, and drops from
	 * before a packet had one (drop-ip). */
	if (cap->filter &&
	    (f->linktype == PS_LINKTYPE_RAW || (f->hooks & PS_HOOK_BIT(PS_HOOK_DROP_IP))) &&
	    (later ? !cap->filter->raw.cbpf : ps_filter_build_raw(cap->filter, msg, sizeof(msg)))) {
		static const char bad[] = "bad filter expression: ";

		if (later)
			snprintf(msg, sizeof(msg), "it does not apply to raw IP");
		pr_err("cannot capture on %s with this filter: %s, and there %s\n", d->name,
		       f->linktype == PS_LINKTYPE_RAW ?
			       "it has no link-layer header" :
			       "drops from before a packet had a link-layer header start at IP",
		       strncmp(msg, bad, sizeof(bad) - 1) ? msg : msg + sizeof(bad) - 1);
		return -EINVAL;
	}
	if (later) {
		/* The programs are loaded: what they do not cover is not
		 * done, and said. */
		unsigned int missing = f->hooks & (~cap->hooks | PS_HOOKS_XDP_TRACE);

		if ((f->hooks & PS_HOOK_BIT(PS_HOOK_XDP)) &&
		    !cap->xdp_loaded[f->xdp_mode == PS_XDP_SKB])
			missing |= PS_HOOK_BIT(PS_HOOK_XDP);
		f->hooks &= ~missing;
		if (missing) {
			ps_hooks_format(missing, hooks, sizeof(hooks));
			pr_warn("%s: not at %s, which the capture did not load at its start\n",
				d->name, hooks);
		}
		return f->hooks ? 0 : -EOPNOTSUPP;
	}
	if (f->hooks & PS_HOOKS_XDP_TRACE) {
		err = find_xdp_target(cap, i);
		if (err)
			return err;
	}
	cap->hooks |= f->hooks;
	return 0;
}

int ps_capture_resolve(struct ps_capture *cap)
{
	struct ps_netdev_nl nl;
	const char *follow = NULL; /* -i any or a pattern: the first */
	int err = 0, room;

	cap->n_ifaces = 0;
	for (int i = 0; i < cap->cfg.n_ifaces && !err; i++) {
		const char *name = cap->cfg.ifaces[i];

		if (follows(name))
			follow = follow ? follow : name;
		else if (strlen(name) >= IF_NAMESIZE) {
			pr_err("unknown interface '%s'\n", name);
			err = -ENODEV;
		} else
			err = add_iface(cap, name);
	}
	if (!err && follow)
		err = expand(cap, follow);
	if (err)
		return err;
	cap->follow = follow;
	for (int i = 0; i < cap->n_ifaces; i++) {
		cap->ifs[i].ifindex = (int)if_nametoindex(cap->ifs[i].name);
		if (!cap->ifs[i].ifindex) {
			pr_err("unknown interface '%s'\n", cap->ifs[i].name);
			return -ENODEV;
		}
	}
	/* Following, the hooks are loaded for interfaces to come, as asked
	 * or as the default is; and the filter's raw IP part, where the
	 * expression has one, for those without a link-layer header. */
	if (cap->follow) {
		char msg[512];

		cap->hooks = cap->cfg.hooks_given ? cap->cfg.hooks & ~PS_HOOKS_XDP_TRACE :
						    PS_HOOKS_TC;
		if (cap->filter)
			ps_filter_build_raw(cap->filter, msg, sizeof(msg));
	}
	/* Room for as many as --max-ifaces says; without it, for these, and
	 * following (or with a configuration a reload may change), for
	 * PS_FOLLOW_IFACES or twice these. */
	room = cap->cfg.max_ifaces;
	if (!room && (cap->follow || cap->cfg.reloadable))
		room = 2 * cap->n_ifaces > PS_FOLLOW_IFACES ? 2 * cap->n_ifaces : PS_FOLLOW_IFACES;
	if (room < cap->n_ifaces)
		room = cap->n_ifaces;
	if (room < 1)
		room = 1;
	if (resize_ifaces(cap, room))
		return -ENOMEM;
	ps_netdev_nl_open(&nl);
	for (int i = 0; i < cap->n_ifaces && !err; i++)
		err = resolve_one(cap, i, &nl, false);
	ps_netdev_nl_close(&nl);
	if (!err)
		err = ps_context_resolve(&cap->ctx, &cap->cfg.context);
	return err;
}

int ps_capture_open_output(struct ps_capture *cap)
{
	const struct ps_capture_cfg *o = &cap->cfg;

	struct ps_capfile_cfg fc = o->file;

	if (!fc.output)
		return 0; /* printing only */
	cap->file = calloc(1, sizeof(*cap->file));
	if (!cap->file) {
		pr_err("cannot set up the writer for %s: %s\n", fc.output, strerror(ENOMEM));
		return -ENOMEM;
	}
	fc.snaplen = o->snaplen;
	fc.filter = cap->filter ? cap->filter->expr : NULL;
	fc.counts_filter = cap->filter || ps_sampling_active(&cap->smp);
	fc.tag = cap->tag;
	return ps_capfile_open(cap->file, &fc, &cap->stop->abort);
}

/* Which XDP programs the interfaces' modes need: [0] native, [1] skb
 * (auto may need either); following, both, for what may come. */
static void xdp_programs_needed(const struct ps_capture *cap, bool need[2])
{
	need[0] = need[1] = cap->follow && (cap->hooks & PS_HOOK_BIT(PS_HOOK_XDP));
	for (int i = 0; i < cap->n_ifaces; i++) {
		if (!(cap->ifs[i].hooks & PS_HOOK_BIT(PS_HOOK_XDP)))
			continue;
		need[0] |= cap->ifs[i].xdp_mode != PS_XDP_SKB;
		need[1] |= cap->ifs[i].xdp_mode != PS_XDP_NATIVE;
	}
}

/* A free target entry (a gone interface's, whose outputs are told), or a
 * new one at the end; -1 if there is no room. */
static int take_target(struct ps_capture *cap)
{
	int room = cap->max_ifaces * PS_HOOK_MAX;

	if (cap->n_targets < room)
		return cap->n_targets;
	for (int t = 0; t < cap->n_targets; t++) {
		struct ps_target *tg = &cap->targets[t];

		if (!tg->gone)
			continue;
		if (cap->file)
			ps_capfile_end_target(cap->file, t);
		if (cap->sflow)
			ps_sflowexp_end_target(cap->sflow, t);
		ps_counters_add(&cap->retired, &tg->final);
		if (!cap->file)
			cap->retired_written += tg->written;
		/* The ingest's readers match on ifindex: none while it changes. */
		__atomic_store_n(&tg->ifindex, 0, __ATOMIC_RELEASE);
		return t;
	}
	return -1;
}

/* Interface i's targets, taken (first, so that the ingest knows its
 * packets from the moment it is attached); 0 or -E2BIG. */
static int take_targets(struct ps_capture *cap, int i)
{
	const struct ps_cap_iface *f = &cap->ifs[i];

	for (unsigned int h = 0; h < PS_HOOK_MAX; h++) {
		struct ps_target *tg;
		int t;

		if (!(f->hooks & PS_HOOK_BIT(h)))
			continue;
		t = take_target(cap);
		if (t < 0)
			return -E2BIG;
		tg = &cap->targets[t];
		snprintf(tg->ifname, sizeof(tg->ifname), "%s", f->name);
		tg->hook = h;
		tg->linktype = h == PS_HOOK_DROP_IP ? PS_LINKTYPE_RAW : f->linktype;
		tg->written = 0;
		tg->gone = false;
		tg->final = (struct ps_counters){ 0 };
		__atomic_store_n(&tg->ifindex, f->ifindex, __ATOMIC_RELEASE);
		if (t == cap->n_targets)
			cap->n_targets++;
	}
	if (cap->in) /* none yet at the start */
		ps_ingest_set_n_targets(cap->in, cap->n_targets);
	return 0;
}

/* One target per (interface, hook), with room for max_ifaces. */
static int plan_targets(struct ps_capture *cap)
{
	size_t room = (size_t)cap->max_ifaces * PS_HOOK_MAX;

	cap->targets = calloc(room, sizeof(*cap->targets));
	cap->file_ifaces = calloc(room, sizeof(*cap->file_ifaces));
	if (!cap->targets || !cap->file_ifaces) {
		pr_err("cannot plan the capture of %d interfaces: %s\n", cap->max_ifaces,
		       strerror(ENOMEM));
		return -ENOMEM;
	}
	for (int i = 0; i < cap->n_ifaces; i++)
		take_targets(cap, i); /* room for them all: it cannot fail */
	return 0;
}

/* The interfaces the hooks count and capture (the kernel's ifaces map). */
static int add_kernel_ifaces(struct ps_capture *cap)
{
	for (int i = 0; i < cap->n_ifaces; i++) {
		int err = ps_loader_add_iface(&cap->loader, (uint32_t)cap->ifs[i].ifindex,
					      cap->ifs[i].linktype == PS_LINKTYPE_RAW);

		if (err == -E2BIG)
			pr_err("cannot capture on %s: the capture has room for %d interfaces "
			       "(--max-ifaces)\n",
			       cap->ifs[i].name, cap->max_ifaces);
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

static int load_programs(struct ps_capture *cap)
{
	const struct ps_capture_cfg *o = &cap->cfg;
	struct ps_load_opts lo = {
		.hooks = cap->hooks,
		.snaplen = o->snaplen,
		.max_ifaces = (uint32_t)cap->max_ifaces,
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
	for (int i = 0; !err && i < cap->n_ifaces; i++)
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
	for (int i = 0; !err && i < cap->n_ifaces; i++)
		load_dev_program(cap, &lo, i);
	return err;
}

/* An interface's place in -i's list, or -1. */
static int slot_of(const struct ps_capture *cap, int ifindex)
{
	for (int i = 0; i < cap->n_ifaces; i++)
		if (cap->ifs[i].ifindex == ifindex)
			return i;
	return -1;
}

/* Has every captured device below interface i got its XDP already? */
static bool lowers_attached(const struct ps_capture *cap, const bool *done, int i)
{
	for (int j = 0; j < cap->n_ifaces; j++)
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
	bool *done = calloc((size_t)cap->n_ifaces + 1, sizeof(*done));
	int err = 0;

	if (!done)
		return -ENOMEM;
	for (int i = 0; i < cap->n_ifaces; i++)
		done[i] = !(cap->ifs[i].hooks & PS_HOOK_BIT(PS_HOOK_XDP));
	for (bool more = true; more && !err;) {
		more = false;
		for (int i = 0; i < cap->n_ifaces && !err; i++) {
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
static int start_guardian(struct ps_capture *cap)
{
	bool tc = false;
	int fd;

	for (int t = 0; t < cap->n_targets; t++)
		tc |= ps_hook_is_tc(cap->targets[t].hook);
	/* Following: for interfaces to come, too. */
	tc |= cap->follow && (cap->hooks & PS_HOOKS_TC);
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

	for (int i = 0; !err && i < cap->n_ifaces; i++)
		for (int k = 0; !err && k < 2; k++) {
			int fd = ps_loader_prog_fd(&cap->ifs[i].trace_loader, progs[k]);

			if (fd >= 0)
				err = ps_attach_xdp_trace(&cap->att, fd, &cap->ifs[i].dev,
							  hooks[k]);
		}
	return err;
}

static int attach_all(struct ps_capture *cap)
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
	    (!cap->follow || ps_attach_has_tcx(&cap->att))) {
		close(cap->att.guard_fd);
		cap->att.guard_fd = -1;
	}
	/* Said once all is attached: a failed start's one line stays one. */
	for (int i = 0; !err && i < cap->n_ifaces; i++)
		ps_attach_warn_xdp_cost(&cap->att, &cap->ifs[i].dev);
	return err;
}

static const char *attached_via(const struct ps_capture *cap, const struct ps_target *tg)
{
	/* A traced program is attached once, under the first interface it
	 * runs on: any attachment of the hook says how. */
	for (int i = 0; i < cap->att.n; i++)
		if ((cap->att.list[i].hook == tg->hook &&
		     (cap->att.list[i].ifindex == tg->ifindex || ps_hook_is_xdp_trace(tg->hook))) ||
		    (ps_hook_is_drop(tg->hook) && cap->att.list[i].kind == PS_ATT_RAW_TP))
			return ps_attach_kind_name(&cap->att.list[i]);
	return "?";
}

/*
 * An IDB's if_description: the hook, as -r reads it back (user/capfile/capread.c),
 * and around another XDP program that program, by name and id.
 */
static void describe_target(const struct ps_capture *cap, const struct ps_target *tg, char *buf,
			    size_t len)
{
	int i = slot_of(cap, tg->ifindex);

	if (i >= 0 && ps_hook_is_xdp_trace(tg->hook))
		snprintf(buf, len, "%s of %s (id %u)", ps_hook_description(tg->hook),
			 cap->ifs[i].xdp_target.name, cap->ifs[i].xdp_target.id);
	else
		snprintf(buf, len, "%s", ps_hook_description(tg->hook));
}

/* What target t's IDB says: the hook and how it was attached, the
 * sampling. */
static void describe_target_idb(struct ps_capture *cap, int t)
{
	struct ps_capfile_iface *fi = &cap->file_ifaces[t];

	ps_report_idb_comment(fi->comment, sizeof(fi->comment), cap->targets[t].hook,
			      attached_via(cap, &cap->targets[t]), cap->sampling);
	describe_target(cap, &cap->targets[t], fi->description, sizeof(fi->description));
}

static void describe_targets(struct ps_capture *cap)
{
	for (int t = 0; t < cap->n_targets; t++)
		describe_target_idb(cap, t);
}

/* Target t's counters: the kernel's, or, its interface gone, as they were
 * then. 0 or -errno. */
static int target_counters(const struct ps_capture *cap, int t, struct ps_counters *c)
{
	const struct ps_target *tg = &cap->targets[t];

	if (tg->gone) {
		*c = tg->final;
		return 0;
	}
	return ps_loader_read_counter(&cap->loader, (uint32_t)tg->ifindex, tg->hook, c);
}

/* The outputs' counters (ISBs, sFlow): target_counters, by interface. */
static int read_target_counters(void *arg, uint32_t ifindex, unsigned int hook,
				struct ps_counters *c)
{
	const struct ps_capture *cap = arg;

	for (int t = 0; t < cap->n_targets; t++)
		if (cap->targets[t].ifindex == (int)ifindex && cap->targets[t].hook == hook)
			return target_counters(cap, t, c);
	return -ENOENT;
}

static struct ps_counter_src counter_src(struct ps_capture *cap)
{
	return (struct ps_counter_src){ .read = read_target_counters, .arg = cap };
}

/* Packets of target t (or of all, t < 0) in every file so far; printing
 * only, what was printed. */
static uint64_t written_total(const struct ps_capture *cap, int t)
{
	uint64_t n = t < 0 ? cap->retired_written : 0;

	if (cap->file)
		return ps_capfile_written(cap->file, t);
	for (int i = 0; i < cap->n_targets; i++)
		if (t < 0 || i == t)
			n += cap->targets[i].written;
	return n;
}

static int open_ingest(struct ps_capture *cap)
{
	const struct ps_capture_cfg *o = &cap->cfg;
	/* The kernel's exact counters: sFlow's sample_pool and drops. */
	const struct ps_counter_src counters = counter_src(cap);
	int err;

	cap->in = calloc(1, sizeof(*cap->in));
	if (!cap->in) {
		pr_err("cannot set up the ingest: %s\n", strerror(ENOMEM));
		return -ENOMEM;
	}
	err = ps_ingest_init(cap->in, cap->targets, cap->n_targets, cap->loader.ncpus, o->snaplen,
			     o->count);
	if (err)
		return err;
	ps_sampling_tag(&cap->smp, cap->tag, sizeof(cap->tag));
	/* The sinks, in this order: the file, the printed lines, sFlow. */
	if (cap->file)
		err = ps_ingest_add_sink(cap->in, ps_capfile_sink(cap->file));
	if (!err && o->print) {
		cap->printer = malloc(sizeof(*cap->printer));
		if (!cap->printer) {
			pr_err("cannot set up the printer: %s\n", strerror(ENOMEM));
			return -ENOMEM;
		}
		if (o->line_buffered)
			setvbuf(stdout, NULL, _IOLBF, 0);
		ps_printer_init(cap->printer, &o->print_opts, stdout);
		err = ps_ingest_add_sink(cap->in, ps_printer_sink(cap->printer, cap->tag));
	}
	if (!err && o->sflow.n_collectors) {
		cap->sflow = calloc(1, sizeof(*cap->sflow));
		if (!cap->sflow) {
			pr_err("cannot set up sFlow: %s\n", strerror(ENOMEM));
			return -ENOMEM;
		}
		err = ps_sflowexp_open(cap->sflow, &o->sflow, cap->targets, cap->n_targets,
				       &counters);
		if (!err)
			err = ps_ingest_add_sink(cap->in, ps_sflowexp_sink(cap->sflow));
	}
	if (err)
		return err;
	/* After the load (the maps are the object's), before any attach. */
	if (cap->transport == PS_TRANSPORT_RINGBUF)
		return ps_ingest_open_ring(cap->in, ps_loader_ring_fd(&cap->loader),
					   ps_loader_emit_state_fd(&cap->loader),
					   cap->bufs.ring_kib * 1024);
	err = ps_ingest_open(cap->in, ps_loader_events_fd(&cap->loader),
			     ps_loader_emit_state_fd(&cap->loader), cap->bufs.per_cpu_kib,
			     !o->buffer_kib);
	if (err)
		return err;
	return ps_ingest_threads(cap->in,
				 o->threads ?
					 (int)o->threads :
					 ps_ingest_default_threads(cap->in->n_src,
								   (int)sysconf(
									   _SC_NPROCESSORS_ONLN)));
}

/*
 * The capture loop sleeps on one epoll set: the buffers' (libbpf's epoll
 * fd, nested) and rtnetlink's link events. Opened before anything is
 * attached, so an interface that vanishes meanwhile is seen.
 */
static int open_loop(struct ps_capture *cap)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int err;

	cap->loop_fd = epoll_create1(EPOLL_CLOEXEC);
	if (cap->loop_fd < 0)
		goto fail;
	cap->link_fd = ps_linkwatch_open();
	if (cap->link_fd < 0) {
		errno = -cap->link_fd;
		goto fail;
	}
	ev.data.fd = cap->link_fd;
	if (epoll_ctl(cap->loop_fd, EPOLL_CTL_ADD, cap->link_fd, &ev))
		goto fail;
	ev.data.fd = ps_ingest_epoll_fd(cap->in);
	if (epoll_ctl(cap->loop_fd, EPOLL_CTL_ADD, ev.data.fd, &ev))
		goto fail;
	for (int i = 0; i < cap->n_ifaces; i++)
		if (ps_link_state(cap->ifs[i].ifindex) == 0) {
			cap->ifs[i].down = true;
			pr_warn("interface %s is down; capturing anyway\n", cap->ifs[i].name);
		}
	return 0;
fail:
	err = -errno;
	pr_err("cannot set up the capture loop: %s\n", strerror(-err));
	return err;
}

/*
 * Promiscuous while we capture (tcpdump does it unless -p): without it a
 * NIC drops other hosts' unicast (a mirror port's traffic) before any hook
 * runs. Without CAP_NET_RAW we say so once and capture all the same.
 */
static void set_promiscuous(struct ps_capture *cap)
{
	int err = 0;

	if (cap->cfg.no_promisc)
		return;
	cap->promisc_fd = ps_promisc_open();
	if (cap->promisc_fd < 0)
		err = cap->promisc_fd;
	for (int i = 0; !err && i < cap->n_ifaces; i++) {
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
static int choose_transport(struct ps_capture *cap)
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

/*
 * The drop hook's packets by reason, into c (PS_DROP_REASON_SLOTS entries;
 * names: as many buffers for reasons without a name); how many. 0 without
 * the hook.
 */
static size_t drop_counts(const struct ps_capture *cap, struct ps_drop_count *c, char (*names)[32])
{
	uint64_t counts[PS_DROP_REASON_SLOTS];
	size_t n = 0;

	if (!(cap->hooks & PS_HOOKS_DROP) || ps_loader_read_drop_reasons(&cap->loader, counts))
		return 0;
	for (uint32_t r = 0; r < PS_DROP_REASON_SLOTS; r++) {
		if (!counts[r])
			continue;
		/* The last slot holds every reason past it. */
		c[n].reason = r == PS_DROP_REASON_SLOTS - 1 ?
				      "OTHER" :
				      ps_dropnames_reason(&cap->drops, r, names[n],
							  sizeof(names[n]));
		c[n++].n = counts[r];
	}
	return n;
}

/* The drop hook's packets by reason, after prefix; "" without the hook. */
static void drop_reasons(const struct ps_capture *cap, const char *prefix, char *buf, size_t len)
{
	struct ps_drop_count c[PS_DROP_REASON_SLOTS];
	char names[PS_DROP_REASON_SLOTS][32];

	ps_report_drops(buf, len, prefix, c, drop_counts(cap, c, names));
}

/* The text --metrics serves, made anew from every counter. */
static void publish_metrics(struct ps_capture *cap, uint64_t now_ns)
{
	struct ps_metrics_target *t = calloc((size_t)cap->n_targets + 1, sizeof(*t));
	struct ps_drop_count drops[PS_DROP_REASON_SLOTS];
	char names[PS_DROP_REASON_SLOTS][32];
	struct ps_metrics_view v = {
		.targets = t,
		.n_targets = (size_t)cap->n_targets,
		.drops = drops,
		.n_drops = drop_counts(cap, drops, names),
		.sflow = cap->sflow != NULL,
		.start_time_s = cap->start_time_s,
	};
	size_t len;
	char *body;

	cap->metrics_at_ns = now_ns;
	if (!t)
		return;
	/* The interfaces there are: a gone one's series ends. */
	v.n_targets = 0;
	for (int i = 0; i < cap->n_targets; i++) {
		struct ps_metrics_target *m = &t[v.n_targets];

		if (cap->targets[i].gone)
			continue;
		m->ifname = cap->targets[i].ifname;
		m->hook = ps_hook_name(cap->targets[i].hook);
		target_counters(cap, i, &m->c);
		m->written = written_total(cap, i);
		v.n_targets++;
	}
	if (cap->sflow) {
		v.sflow_samples = cap->sflow->samples;
		v.sflow_datagrams = cap->sflow->datagrams;
		v.sflow_sent = cap->sflow->sent;
		v.sflow_failed = cap->sflow->send_errors;
		v.sflow_dropped = cap->sflow->paced_out;
	}
	len = ps_metrics_format(NULL, 0, &v);
	body = malloc(len + 1);
	if (body) {
		ps_metrics_format(body, len + 1, &v);
		ps_metrics_publish(cap->metrics, body, len);
	}
	free(t);
}

static void rescan(struct ps_capture *cap); /* following interfaces: below */

int ps_capture_setup(struct ps_capture *cap)
{
	int err;

	if (ps_sampling_active(&cap->smp))
		ps_sampling_describe(&cap->smp, cap->sampling, sizeof(cap->sampling));
	err = choose_transport(cap);
	/* Before anything is loaded: a kernel without the drop tracepoint or
	 * BTF is one line. */
	if (!err && (cap->hooks & PS_HOOKS_DROP))
		err = ps_dropnames_load(&cap->drops);
	if (!err)
		err = plan_targets(cap);
	if (!err)
		err = start_guardian(cap);
	if (!err)
		err = load_programs(cap);
	if (!err)
		err = add_kernel_ifaces(cap);
	if (!err)
		err = open_ingest(cap);
	/* Whom packets belong to: known before the first one is. */
	if (!err)
		err = ps_context_start(&cap->ctx, &cap->loader);
	if (!err) {
		ps_ingest_set_who(cap->in, cap->ctx.who);
		ps_ingest_set_drop_names(cap->in, &cap->drops);
	}
	if (!err)
		err = open_loop(cap);
	/* Before anything is attached: a port that is taken is one line. */
	if (!err && cap->cfg.metrics)
		err = ps_metrics_open(cap->metrics, &cap->cfg.metrics_addr);
	if (!err)
		err = attach_all(cap);
	if (!err)
		set_promiscuous(cap);
	if (!err && cap->smp.mode == PS_SAMPLE_CLOCK)
		err = ps_ticker_start(&cap->ticker, ps_loader_prog(&cap->loader, PS_PROG_TICK),
				      cap->smp.interval_ns);
	if (!err && cap->file) {
		const struct ps_counter_src counters = counter_src(cap);

		describe_targets(cap);
		err = ps_capfile_start(cap->file, cap->targets, cap->file_ifaces, cap->n_targets,
				       cap->loader.ncpus, &counters, read_ns(CLOCK_MONOTONIC));
	}
	if (err == -EINTR)
		pr_err("interrupted during setup\n");
	if (!err) {
		cap->start_time_s = (double)read_ns(CLOCK_REALTIME) / 1e9;
		if (cap->metrics->fd >= 0)
			publish_metrics(cap, read_ns(CLOCK_MONOTONIC));
		ps_report_start(cap->att.xdp_single_prog, cap->sampling);
		for (int i = 0; i < cap->n_ifaces; i++)
			ps_report_iface(cap->ifs[i].name, cap->ifs[i].hooks, cap->cfg.snaplen);
		if (!cap->n_ifaces)
			pr_warn("capturing on no interface yet: waiting for -i %s\n", cap->follow);
		/* Those that came between the listing and the link watch. */
		if (cap->follow)
			rescan(cap);
	}
	return err;
}

/* Every (interface, hook)'s counters, summed, those gone included. */
static void sum_counters(const struct ps_capture *cap, struct ps_counters *all)
{
	*all = cap->retired;
	for (int i = 0; i < cap->n_targets; i++) {
		struct ps_counters c;

		if (!target_counters(cap, i, &c))
			ps_counters_add(all, &c);
	}
}

/* Why an interface is let go: said or not, detached or gone with it. */
enum gone_why {
	GONE_QUIETLY,  /* it could not be captured: said where it failed */
	GONE_VANISHED, /* deleted, or moved to another namespace */
	GONE_UNWANTED, /* a new configuration leaves it out */
};

/*
 * Interface i went: what was attached there is let go, and its kernel
 * slot freed, its last counters kept in its targets (their outputs still
 * answer for it, and the summary counts it). Following, the entry is free
 * for one to come.
 */
static void iface_gone(struct ps_capture *cap, int i, enum gone_why why)
{
	struct ps_cap_iface *f = &cap->ifs[i];
	struct ps_counters final[PS_HOOK_MAX] = { 0 };
	int left = 0;

	f->gone = true;
	ps_detach_iface(&cap->att, f->ifindex, why == GONE_VANISHED);
	if (cap->file)
		ps_capfile_mark_gone(cap->file, f->ifindex);
	ps_loader_remove_iface(&cap->loader, (uint32_t)f->ifindex, final);
	for (int t = 0; t < cap->n_targets; t++)
		if (cap->targets[t].ifindex == f->ifindex && !cap->targets[t].gone) {
			cap->targets[t].final = final[cap->targets[t].hook];
			cap->targets[t].gone = true;
		}
	if (why == GONE_VANISHED && cap->follow)
		pr_warn("interface %s disappeared\n", f->name);
	else if (why == GONE_VANISHED)
		pr_err("interface %s disappeared\n", f->name);
	else if (why == GONE_UNWANTED)
		pr_warn("no longer capturing on %s: the configuration leaves it out\n", f->name);
	ps_loader_close(&f->dev_loader);
	ps_loader_close(&f->trace_loader);
	ps_xdp_target_close(&f->xdp_target);
	f->ifindex = 0; /* free */
	/* Room again for one refused for the lack of it: the loop looks. */
	cap->rescan_due |= cap->room_short;
	for (int j = 0; j < cap->n_ifaces; j++)
		left += !cap->ifs[j].gone;
	cap->all_gone = !left && !cap->follow;
}

/* Interface i attached: its targets' IDBs, and sFlow samplers. */
static int open_targets(struct ps_capture *cap, int i)
{
	int err = 0;

	for (int t = 0; t < cap->n_targets && !err; t++) {
		if (cap->targets[t].ifindex != cap->ifs[i].ifindex || cap->targets[t].gone)
			continue;
		describe_target_idb(cap, t);
		if (cap->file)
			err = ps_capfile_add_target(cap->file, t, cap->n_targets);
		if (!err && cap->sflow)
			err = ps_sflowexp_add_target(cap->sflow, t, cap->n_targets);
	}
	return err;
}

/* Interface i's hooks, as at the start (XDP, then TC). */
static int attach_iface(struct ps_capture *cap, int i)
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

/*
 * Following: an interface that came (or was renamed into a pattern, or
 * came up for -i any). It gets a free entry and kernel slot, is resolved
 * as at the start, gets targets (and IDBs, sFlow samplers) before its
 * hooks are attached, so its first packets find them. Anything that goes
 * wrong is a warning: the capture goes on with the others.
 */
static void iface_new(struct ps_capture *cap, const struct ps_link_event *ev)
{
	struct ps_netdev_nl nl;
	struct ps_cap_iface *f;
	int i, err;

	for (i = 0; i < cap->n_ifaces && cap->ifs[i].ifindex; i++)
		;
	if (i == cap->max_ifaces) {
		pr_warn("not capturing on %s: the capture has room for %d interfaces "
			"(--max-ifaces)\n",
			ev->name, cap->max_ifaces);
		cap->refused[cap->n_refused++ % PS_REFUSED_KEPT] = ev->ifindex;
		cap->room_short = true;
		return;
	}
	f = &cap->ifs[i];
	memset(f, 0, sizeof(*f));
	snprintf(f->name, sizeof(f->name), "%s", ev->name);
	f->ifindex = ev->ifindex;
	f->xdp_target.fd = -1;
	if (i == cap->n_ifaces)
		cap->n_ifaces++;
	ps_netdev_nl_open(&nl);
	err = resolve_one(cap, i, &nl, true);
	ps_netdev_nl_close(&nl);
	if (!err) {
		err = ps_loader_add_iface(&cap->loader, (uint32_t)f->ifindex,
					  f->linktype == PS_LINKTYPE_RAW);
		if (err == -E2BIG)
			pr_warn("not capturing on %s: the capture has room for %d interfaces "
				"(--max-ifaces)\n",
				f->name, cap->max_ifaces);
	}
	if (!err)
		err = take_targets(cap, i);
	if (!err)
		err = attach_iface(cap, i);
	if (!err)
		err = open_targets(cap, i);
	if (err) {
		/* Said where it failed; and once: its next news are not retried. */
		cap->refused[cap->n_refused++ % PS_REFUSED_KEPT] = f->ifindex;
		iface_gone(cap, i, GONE_QUIETLY);
		return;
	}
	f->down = !ev->up;
	ps_report_iface(f->name, f->hooks, cap->cfg.snaplen);
}

static void link_changed(struct ps_capture *cap, const struct ps_link_event *ev)
{
	int i = slot_of(cap, ev->ifindex);
	const char *name;

	if (i < 0) {
		for (int r = 0; r < PS_REFUSED_KEPT; r++)
			if (cap->refused[r] == ev->ifindex)
				return;
		if (cap->follow && !ev->gone && ev->name[0] &&
		    wanted(cap, ev->name, ev->up, ev->loopback))
			iface_new(cap, ev);
		return;
	}
	if (cap->ifs[i].gone)
		return;
	name = cap->ifs[i].name;
	/* A deletion first takes the interface down: say only that it went. */
	if (ev->gone || (!ev->up && ps_link_state(ev->ifindex) == -ENODEV)) {
		iface_gone(cap, i, GONE_VANISHED);
		return;
	}
	if (ev->up == !cap->ifs[i].down)
		return;
	cap->ifs[i].down = !ev->up;
	/* Following, interfaces come up and go down all day: -v says. */
	if (ev->up && cap->follow)
		pr_info("interface %s is up\n", name);
	else if (ev->up)
		pr_warn("interface %s is up again\n", name);
	else if (cap->follow)
		pr_info("interface %s went down; capturing on\n", name);
	else
		pr_warn("interface %s went down; capturing on\n", name);
}

/* Every interface there is, as if each had just told us (following: the
 * ones missed while rtnetlink's news were lost, or before it listened). */
static void rescan(struct ps_capture *cap)
{
	struct if_nameindex *all = if_nameindex(), *p;

	for (p = all; p && p->if_index; p++) {
		int flags = ps_link_flags((int)p->if_index);
		struct ps_link_event ev = { .ifindex = (int)p->if_index,
					    .up = flags >= 0 && (flags & IFF_UP),
					    .loopback = flags >= 0 && (flags & IFF_LOOPBACK) };

		snprintf(ev.name, sizeof(ev.name), "%s", p->if_name);
		if (flags >= 0)
			link_changed(cap, &ev);
	}
	if (all)
		if_freenameindex(all);
}

/* What rtnetlink told us; if it dropped news, ask about every interface. */
static void read_link_events(struct ps_capture *cap)
{
	struct ps_link_event ev[32];
	int n;

	while ((n = ps_linkwatch_read(cap->link_fd, ev, 32)) != 0) {
		if (n == -ENOBUFS) {
			for (int i = 0; i < cap->n_ifaces; i++) {
				int st = ps_link_state(cap->ifs[i].ifindex);

				if (cap->ifs[i].ifindex)
					link_changed(cap, &(struct ps_link_event){
								  .ifindex = cap->ifs[i].ifindex,
								  .gone = st == -ENODEV,
								  .up = st == 1 });
			}
			if (cap->follow)
				rescan(cap);
			continue;
		}
		if (n < 0) {
			pr_warn("cannot read interface events: %s\n", strerror(-n));
			return;
		}
		for (int i = 0; i < n; i++)
			link_changed(cap, &ev[i]);
		if (n < 32)
			return;
	}
}

/*
 * As a Wireshark extcap, the FIFO closing is how Wireshark ends a capture
 * (it also sends SIGTERM, and stops reading soon after): not an error.
 */
static bool reader_left(const struct ps_capture *cap, int err)
{
	return cap->cfg.reader_may_leave &&
	       (err == -EPIPE ||
		(cap->stop->requested && (err == -ETIMEDOUT || err == -EAGAIN || err == -EINTR)));
}

/* The file could not be written: one line, unless the reader left. */
static int write_failed(const struct ps_capture *cap, int err)
{
	if (reader_left(cap, err))
		return 0;
	pr_err("cannot write %s: %s\n", ps_capfile_path(cap->file), pcapng_strerror(err));
	return err;
}

/*
 * The printed lines could not be written. A reader that left (| head) or,
 * after a stop, one that takes nothing more, ends the capture as tcpdump's
 * does, without an error; anything else is one line and exit 1.
 */
static int print_failed(struct ps_capture *cap, int err)
{
	if (err == -EPIPE || (cap->stop->requested && (err == -EAGAIN || err == -EINTR)))
		return 0;
	pr_err("cannot print to stdout: %s\n", strerror(-err));
	return err;
}

/* An output's error ended the capture: which one says what to tell. */
static int output_failed(struct ps_capture *cap, int err)
{
	const struct ps_sink *failed = cap->in->failed;

	if (cap->file && failed == &cap->file->sink)
		return write_failed(cap, err);
	if (cap->printer && failed == &cap->printer->sink)
		return print_failed(cap, err);
	pr_err("cannot keep the samples: %s\n", strerror(-err));
	return err;
}

/* One --stats line: the counters, the packets written (in the files, as
 * the summary and the ISBs count them), sFlow's sends, drops by reason. */
static void print_stats(struct ps_capture *cap, uint64_t written, uint64_t prev_written,
			uint64_t elapsed_ns)
{
	struct ps_counters c;
	char line[320], sflow[64] = "", drops[400], text[800];

	sum_counters(cap, &c);
	drop_reasons(cap, " drops ", drops, sizeof(drops));
	ps_report_stats(line, sizeof(line), &c, written, prev_written, elapsed_ns, &cap->smp);
	if (cap->sflow)
		snprintf(sflow, sizeof(sflow), " sflow sent %llu failed %llu",
			 (unsigned long long)cap->sflow->sent,
			 (unsigned long long)cap->sflow->send_errors);
	snprintf(text, sizeof(text), "%s%s%s\n", line, sflow, drops);
	ps_log_text(text);
}

int ps_capture_loop(struct ps_capture *cap)
{
	uint64_t period = cap->cfg.stats_ms * 1000000ull, now;
	int err = 0;

	/* Monotonic: a wall-clock step must not stretch or cut the capture.
	 * Once: a reload comes back here, the clocks running on. */
	if (!cap->loop_started) {
		now = read_ns(CLOCK_MONOTONIC);
		cap->loop_started = true;
		cap->deadline_ns = cap->cfg.duration_ms ? now + cap->cfg.duration_ms * 1000000ull :
							  0;
		cap->stats_at_ns = now;
	}
	while (!cap->stop->requested && !cap->in->done) {
		struct epoll_event ev[4];
		int wait = ps_ingest_wait_ms(cap->in, POLL_MS), n, due;

		/* sFlow's next burst, if one waits, wakes the loop too. */
		due = cap->sflow ? ps_sflowexp_tick(cap->sflow, read_ns(CLOCK_MONOTONIC)) : -1;
		if (due >= 0 && due < wait)
			wait = due;
		n = epoll_wait(cap->loop_fd, ev, 4, wait);

		for (int i = 0; i < n; i++)
			if (ev[i].data.fd == cap->link_fd)
				read_link_events(cap);
		if (cap->rescan_due) {
			cap->rescan_due = cap->room_short = false;
			memset(cap->refused, 0, sizeof(cap->refused));
			rescan(cap);
		}
		err = ps_ingest_poll(cap->in, 0);
		if (err) {
			if (cap->in->error)
				err = output_failed(cap, err);
			else
				pr_err("reading the perf buffers failed: %s\n", strerror(-err));
			break;
		}
		if (cap->all_gone)
			break;
		now = read_ns(CLOCK_MONOTONIC);
		err = cap->file ? ps_capfile_tick(cap->file, now) : 0;
		if (err == 1)
			return 0; /* -G -W: the last file is complete */
		if (err)
			break;
		if (period && now - cap->stats_at_ns >= period) {
			uint64_t written = written_total(cap, -1);

			print_stats(cap, written, cap->stats_written, now - cap->stats_at_ns);
			cap->stats_written = written;
			cap->stats_at_ns = now;
		}
		if (cap->metrics->fd >= 0 && now - cap->metrics_at_ns >= 1000000000ull)
			publish_metrics(cap, now);
		if (cap->deadline_ns && now >= cap->deadline_ns)
			break;
		if (cap->stop->reload) {
			cap->stop->reload = 0;
			return PS_CAPTURE_RELOAD;
		}
	}
	return err;
}

/* Two strings the same, NULL as "". */
static bool same_str(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

/* The first setting of b that the running capture cannot take from a
 * without new programs, maps or files; NULL if there is none. */
static const char *needs_restart(const struct ps_capture_cfg *a, const struct ps_capture_cfg *b)
{
	const struct ps_sampling *x = &a->smp, *y = &b->smp;

	if (a->hooks_given != b->hooks_given || (a->hooks_given && a->hooks != b->hooks))
		return "hook (or direction)";
	if (a->xdp_mode != b->xdp_mode || a->xdp_attach != b->xdp_attach)
		return "xdp-mode or xdp-attach";
	if (a->tc_mode != b->tc_mode || a->tc_position != b->tc_position)
		return "tc-mode or tc-position";
	if (a->transport != b->transport || a->buffer_kib != b->buffer_kib ||
	    a->threads != b->threads)
		return "transport, buffer-size or threads";
	if (a->snaplen != b->snaplen)
		return "snaplen";
	if (a->max_ifaces != b->max_ifaces)
		return "max-ifaces";
	/* The clock's ticker is the programs' too: no swap for it. */
	if ((x->mode == PS_SAMPLE_CLOCK || y->mode == PS_SAMPLE_CLOCK) &&
	    (x->mode != y->mode || x->interval_ns != y->interval_ns))
		return "sample-interval";
	if (a->count != b->count || a->duration_ms != b->duration_ms)
		return "count or duration";
	if (!same_str(a->file.output, b->file.output) || a->file.file_size != b->file.file_size ||
	    a->file.rotate_ns != b->file.rotate_ns || a->file.file_count != b->file.file_count ||
	    !same_str(a->file.postrotate_cmd, b->file.postrotate_cmd) ||
	    a->file.epb_verdict != b->file.epb_verdict)
		return "the file (write, file-size, rotate-seconds, file-count, postrotate-command, epb-verdict)";
	if (a->print != b->print || a->line_buffered != b->line_buffered ||
	    memcmp(&a->print_opts, &b->print_opts, sizeof(a->print_opts)))
		return "what is printed (print and its flags)";
	if ((a->sflow.n_collectors > 0) != (b->sflow.n_collectors > 0))
		return "whether there is sflow";
	if (a->context.enabled != b->context.enabled || a->context.pid != b->context.pid ||
	    !same_str(a->context.comm, b->context.comm) ||
	    !same_str(a->context.cgroup, b->context.cgroup) ||
	    !same_str(a->context.container, b->context.container))
		return "context, pid, comm, cgroup or container";
	if (a->no_promisc != b->no_promisc)
		return "no-promiscuous-mode";
	return NULL;
}

/* Do a and b sample the same way (the seed aside, the capture's own)? */
static bool same_sampling(const struct ps_sampling *a, const struct ps_sampling *b)
{
	return a->mode == b->mode && a->n == b->n && a->interval_ns == b->interval_ns &&
	       a->max_rate == b->max_rate;
}

/*
 * A reload's new filter or sampling: the programs built anew with them,
 * on the same maps (buffers, counters, pools, interfaces, owners), and put
 * in place of the running ones on every hook at once (link updates,
 * clsact filters replaced), so that no packet goes uncounted and no sample
 * is lost in between. 0, or -errno logged (the running ones stay).
 */
static int swap_programs(struct ps_capture *cap, struct ps_filter *filter,
			 const struct ps_sampling *smp)
{
	const struct ps_capture_cfg *o = &cap->cfg;
	struct ps_sampling s = *smp;
	struct ps_load_opts lo = {
		.hooks = cap->hooks,
		.snaplen = o->snaplen,
		.max_ifaces = (uint32_t)cap->max_ifaces,
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
	bool raw = cap->follow != NULL;
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
	for (int i = 0; i < cap->n_ifaces; i++)
		raw |= cap->ifs[i].ifindex && !cap->ifs[i].gone &&
		       cap->ifs[i].linktype == PS_LINKTYPE_RAW;
	if (filter && raw && ps_filter_build_raw(filter, msg, sizeof(msg)) && !cap->follow) {
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
	/* What the outputs say of the sampling and the filter, from here on:
	 * the file's interfaces anew, after the last statistics of the old. */
	cap->sampling[0] = '\0';
	if (ps_sampling_active(&cap->smp))
		ps_sampling_describe(&cap->smp, cap->sampling, sizeof(cap->sampling));
	ps_sampling_tag(&cap->smp, cap->tag, sizeof(cap->tag));
	describe_targets(cap);
	if (cap->file)
		err = ps_capfile_renew(cap->file, filter ? filter->expr : NULL,
				       filter || ps_sampling_active(&cap->smp));
	return err;
}

int ps_capture_reload(struct ps_capture *cap, const struct ps_capture_cfg *cfg,
		      struct ps_filter *filter)
{
	const char *what = needs_restart(&cap->cfg, cfg), *follow = NULL;
	bool swap = !same_str(cap->filter ? cap->filter->expr : NULL,
			      filter ? filter->expr : NULL) ||
		    !same_sampling(&cap->cfg.smp, &cfg->smp);
	int err = 0;

	if (what) {
		pr_err("the new configuration changes %s, which needs a restart; keeping the "
		       "running one\n",
		       what);
		return -EBUSY;
	}
	/* The other metrics slot: its server thread knows it by address. */
	struct ps_metrics *m = &cap->metrics_slot[cap->metrics == &cap->metrics_slot[0]];
	bool new_metrics = cfg->metrics != cap->cfg.metrics ||
			   memcmp(&cfg->metrics_addr, &cap->cfg.metrics_addr,
				  sizeof(cfg->metrics_addr));

	/* What can fail comes first, and leaves everything as it was: the
	 * metrics' new socket (opened, not yet used), then new programs. */
	m->fd = -1;
	if (new_metrics && cfg->metrics) {
		err = ps_metrics_open(m, &cfg->metrics_addr);
		if (err)
			return err;
	}
	if (swap) {
		err = swap_programs(cap, filter, &cfg->smp);
		if (err) {
			ps_metrics_close(m);
			return err;
		}
		cap->cfg.smp = cfg->smp;
	}
	if (new_metrics) {
		ps_metrics_close(cap->metrics);
		cap->metrics = m;
		cap->metrics_at_ns = 0; /* served anew at once */
	}
	/* sFlow's new sockets: a collector that cannot be reached is said,
	 * and sFlow goes on to the ones it had, the rest applied. */
	if (cap->sflow && ps_sflowexp_reconfigure(cap->sflow, &cfg->sflow))
		pr_warn("sFlow keeps its collectors of before\n");
	/* From here on, nothing fails: the new configuration is the one. */
	cap->cfg.ifaces = cfg->ifaces;
	cap->cfg.n_ifaces = cfg->n_ifaces;
	if (cap->sflow)
		cap->cfg.sflow = cap->sflow->cfg;
	cap->cfg.stats_ms = cfg->stats_ms;
	cap->cfg.metrics = cfg->metrics;
	cap->cfg.metrics_addr = cfg->metrics_addr;
	cap->cfg.context = cfg->context; /* the same, with strings that live on */
	cap->cfg.file.output = cfg->file.output;
	cap->cfg.file.postrotate_cmd = cfg->file.postrotate_cmd;
	for (int i = 0; i < cfg->n_ifaces && !follow; i++)
		if (follows(cfg->ifaces[i]))
			follow = cfg->ifaces[i];
	cap->follow = follow;
	/* Those left out go; those now in come (rescan: as if each had just
	 * told us), and those refused before are asked about again. */
	for (int i = 0; i < cap->n_ifaces; i++) {
		const struct ps_cap_iface *f = &cap->ifs[i];

		if (f->ifindex && !f->gone &&
		    !wanted(cap, f->name, !f->down, f->dev.flags & IFF_LOOPBACK))
			iface_gone(cap, i, GONE_UNWANTED);
	}
	memset(cap->refused, 0, sizeof(cap->refused));
	rescan(cap);
	for (int i = 0; i < cfg->n_ifaces; i++)
		if (follows(cfg->ifaces[i]) ||
		    slot_of(cap, (int)if_nametoindex(cfg->ifaces[i])) >= 0)
			continue;
		else
			pr_warn("unknown interface '%s'; capturing on the others\n",
				cfg->ifaces[i]);
	return 0;
}

static void report_clock(const struct ps_capture *cap)
{
	struct ps_sampler *per_cpu = calloc(cap->loader.ncpus, sizeof(*per_cpu));
	int err = per_cpu ? ps_loader_read_sampler(&cap->loader, per_cpu) : -ENOMEM;

	if (err)
		pr_warn("cannot read the clock sampling statistics: %s\n", strerror(-err));
	else
		ps_report_clock(per_cpu, cap->ticker.cpu, cap->ticker.n);
	free(per_cpu);
}

/* The whole capture's stages, summed into *all; per target with -v. */
static void report_stages(struct ps_capture *cap, struct ps_counters *all)
{
	*all = cap->retired;
	for (int t = 0; t < cap->n_targets; t++) {
		struct ps_target *tg = &cap->targets[t];
		struct ps_counters c;
		char line[320];

		if (target_counters(cap, t, &c))
			continue; /* write_isbs said so */
		ps_counters_add(all, &c);
		ps_report_stages(line, sizeof(line), &c, written_total(cap, t));
		pr_info("%s %s: %s\n", tg->ifname, ps_hook_name(tg->hook), line);
	}
}

/* Detach first so the counters stop moving, then drain, then account. */
int ps_capture_finish(struct ps_capture *cap, int loop_err)
{
	struct ps_summary sum = {
		.written = 0,
		.filter = cap->filter != NULL,
		.smp = &cap->smp,
		.transport = cap->transport,
	};
	char text[512], *sflow_line = NULL;
	int err = loop_err, detach_err, close_err;

	detach_err = ps_detach_all(&cap->att);
	if (cap->smp.mode == PS_SAMPLE_CLOCK)
		report_clock(cap);
	ps_ticker_stop(&cap->ticker);
	if (!cap->stop->abort && !err && !cap->in->error) {
		err = ps_ingest_drain(cap->in);
		if (err)
			err = output_failed(cap, err);
	}
	/* The last file's ISBs (and -z on it), sFlow's last datagrams. */
	close_err = ps_ingest_close(cap->in, !err);
	if (!err && close_err)
		err = output_failed(cap, close_err);
	if (cap->sflow) {
		char line[320], paced[120] = "";

		if (cap->sflow->paced_out)
			snprintf(paced, sizeof(paced),
				 ", %llu dropped (they came faster than --sflow-burst lets them leave)",
				 (unsigned long long)cap->sflow->paced_out);
		snprintf(line, sizeof(line),
			 "%llu sFlow samples in %llu datagrams: %llu sent, %llu failed%s\n",
			 (unsigned long long)cap->sflow->samples,
			 (unsigned long long)cap->sflow->datagrams,
			 (unsigned long long)cap->sflow->sent,
			 (unsigned long long)cap->sflow->send_errors, paced);
		sflow_line = strdup(line);
	}
	report_stages(cap, &sum.all);

	ps_ingest_report(cap->in, cap->transport == PS_TRANSPORT_RINGBUF);
	/* Only what is whole in the files counts as captured. */
	sum.written = written_total(cap, -1);
	if (cap->file && ps_capfile_failed(cap->file)) {
		sum.write_error = true;
		sum.lost_to_write = sum.all.emitted > sum.written ? sum.all.emitted - sum.written :
								    0;
	}
	sum.buffer_hint_kib = ps_ingest_buffer_hint(cap->in, &cap->bufs,
						    cap->transport == PS_TRANSPORT_RINGBUF,
						    sum.all.output_errors);
	sum.n_cpus = ps_ingest_n_sources(cap->in);
	ps_report_summary(text, sizeof(text), &sum);
	ps_log_text(text);
	drop_reasons(cap, "kernel drops by reason: ", text, sizeof(text) - 1);
	if (text[0])
		ps_log_text(strcat(text, "\n")); /* room kept for it */
	if (sflow_line)
		ps_log_text(sflow_line);
	free(sflow_line);
	if (!err && cap->all_gone)
		err = -ENODEV;
	return err ? err : detach_err;
}

void ps_capture_teardown(struct ps_capture *cap)
{
	ps_attach_release(&cap->att);
	if (cap->att.guard_fd >= 0)
		close(cap->att.guard_fd); /* all detached: the guardian leaves */
	cap->att.guard_fd = -1;
	ps_ticker_stop(&cap->ticker);
	if (cap->in)
		ps_ingest_free(cap->in);
	free(cap->in);
	cap->in = NULL;
	ps_context_free(&cap->ctx);
	if (cap->file)
		ps_capfile_free(cap->file);
	free(cap->file);
	cap->file = NULL;
	if (cap->sflow && cap->sflow->samplers)
		ps_sflowexp_close(cap->sflow, false);
	free(cap->sflow);
	cap->sflow = NULL;
	if (cap->printer)
		ps_printer_free(cap->printer);
	free(cap->printer);
	cap->printer = NULL;
	for (int i = 0; i < cap->n_ifaces; i++) {
		ps_loader_close(&cap->ifs[i].dev_loader);
		ps_loader_close(&cap->ifs[i].trace_loader);
		ps_xdp_target_close(&cap->ifs[i].xdp_target);
	}
	if (cap->progs && cap->progs != &cap->loader)
		ps_loader_close(cap->progs);
	cap->progs = NULL;
	ps_loader_close(&cap->loader);
	if (cap->own_filter) {
		ps_filter_free(cap->own_filter);
		free(cap->own_filter);
		cap->own_filter = NULL;
	}
	ps_dropnames_free(&cap->drops);
	ps_metrics_close(&cap->metrics_slot[0]);
	ps_metrics_close(&cap->metrics_slot[1]);
	if (cap->link_fd >= 0)
		close(cap->link_fd);
	if (cap->loop_fd >= 0)
		close(cap->loop_fd);
	if (cap->promisc_fd >= 0)
		close(cap->promisc_fd); /* the memberships go with it */
	cap->link_fd = cap->loop_fd = cap->promisc_fd = -1;
	free(cap->ifs);
	free(cap->targets);
	free(cap->file_ifaces);
	cap->ifs = NULL;
	cap->targets = NULL;
	cap->file_ifaces = NULL;
	cap->n_ifaces = cap->n_targets = 0;
}
