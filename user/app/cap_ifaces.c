// SPDX-License-Identifier: GPL-2.0-only
/* The capture's interfaces: -i's names and patterns resolved, and the
 * interfaces that come, go, go down and come up while it runs; see
 * capture_int.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include "capture_int.h"
#include "log.h"
#include <fnmatch.h>
#include "filter.h"
#include "hookplan.h"
#include "linkwatch.h"
#include "report.h"

/* Why an interface is let go: said or not, detached or gone with it. */
enum gone_why {
	GONE_QUIETLY,  /* it could not be captured: said where it failed */
	GONE_VANISHED, /* deleted, or moved to another namespace */
	GONE_UNWANTED, /* a new configuration leaves it out */
};

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
	/* Said once they are attached, after each interface's own line, as
	 * tcpdump's "listening on" means ready. */
	snprintf(cap->follow_line, sizeof(cap->follow_line), "-i %s: capturing on %s\n", what,
		 list);
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
	const struct ps_hook_opts ho = { o->hooks_given, o->hooks, o->xdp_mode };
	const struct ps_hooks_loaded loaded = { cap->hooks,
						{ cap->xdp_loaded[0], cap->xdp_loaded[1] } };
	struct ps_cap_iface *f = &cap->ifs[i];
	struct ps_device *d = &f->dev;
	struct ps_hook_plan plan;
	char msg[512], hooks[64];

	if (ps_device_probe(d, f->ifindex, nl)) {
		pr_err("unknown interface '%s'\n", f->name);
		return -ENODEV;
	}
	ps_hook_plan(d, &ho, later ? &loaded : NULL, &plan);
	f->linktype = plan.linktype;
	if (f->linktype < 0) {
		pr_err("cannot capture on %s: its link type (ARPHRD %d) is not one pktsample can "
		       "write (Ethernet, or raw IP for devices without a link-layer header)\n",
		       d->name, d->arphrd);
		return -EPROTONOSUPPORT;
	}
	f->xdp_mode = plan.xdp_mode;
	pr_info("%s\n", plan.line);
	/* Packets that start at the IP header meet the expression compiled
	 * for raw IP: a device without a link-layer header, and drops from
	 * before a packet had one (drop-ip). */
	if (cap->filter &&
	    (f->linktype == PS_LINKTYPE_RAW ||
	     ((plan.hooks | plan.missing) & PS_HOOK_BIT(PS_HOOK_DROP_IP))) &&
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
	f->hooks = plan.hooks;
	if (later) {
		/* The programs are loaded: what they do not cover is not
		 * done, and said. */
		if (plan.missing) {
			ps_hooks_format(plan.missing, hooks, sizeof(hooks));
			pr_warn("%s: not at %s, which the capture did not load at its start\n",
				d->name, hooks);
		}
		return f->hooks ? 0 : -EOPNOTSUPP;
	}
	if (f->hooks & PS_HOOKS_XDP_TRACE) {
		int err = find_xdp_target(cap, i);

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

/* An interface's place in -i's list, or -1. */
int cap_slot_of(const struct ps_capture *cap, int ifindex)
{
	for (int i = 0; i < cap->n_ifaces; i++)
		if (cap->ifs[i].ifindex == ifindex)
			return i;
	return -1;
}

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
		err = cap_take_targets(cap, i);
	if (!err)
		err = cap_attach_iface(cap, i);
	if (!err)
		err = cap_open_targets(cap, i);
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
	int i = cap_slot_of(cap, ev->ifindex);
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
void cap_rescan(struct ps_capture *cap)
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
void cap_read_link_events(struct ps_capture *cap)
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
				cap_rescan(cap);
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

void cap_ifaces_reload(struct ps_capture *cap, const struct ps_capture_cfg *cfg)
{
	const char *follow = NULL;

	cap->cfg.ifaces = cfg->ifaces;
	cap->cfg.n_ifaces = cfg->n_ifaces;
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
	cap_rescan(cap);
	for (int i = 0; i < cfg->n_ifaces; i++)
		if (follows(cfg->ifaces[i]) ||
		    cap_slot_of(cap, (int)if_nametoindex(cfg->ifaces[i])) >= 0)
			continue;
		else
			pr_warn("unknown interface '%s'; capturing on the others\n",
				cfg->ifaces[i]);
}
