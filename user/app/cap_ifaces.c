// SPDX-License-Identifier: GPL-2.0-only
/*
 * The capture's interfaces: the capture subscribes to its interface set
 * (user/app/ifset.h), which replays the interfaces there are at the start
 * and tells, while it runs, which come, go, go down and come up. Here each
 * piece of that news becomes what the capture does: resolve, attach and
 * give outputs to one that comes (at the start, resolve only: the rest
 * follows for all at once), let one go. See capture_int.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include "capture_int.h"
#include "filter.h"
#include "hookplan.h"
#include "linkwatch.h"
#include "log.h"
#include "report.h"

/* cap->ifaces.ifs holds at least n entries (a slot the set may give): 0 or
 * -ENOMEM (logged). */
static int ensure_ifs(struct ps_capture *cap, int n)
{
	struct ps_cap_iface *ifs;

	if (n <= cap->ifaces.ifs_room)
		return 0;
	ifs = realloc(cap->ifaces.ifs, (size_t)n * sizeof(*ifs));
	if (!ifs) {
		pr_err("cannot keep %d interfaces: %s\n", n, strerror(ENOMEM));
		return -ENOMEM;
	}
	/* Free entries: teardown closes what each holds. */
	memset(ifs + cap->ifaces.ifs_room, 0, (size_t)(n - cap->ifaces.ifs_room) * sizeof(*ifs));
	for (int i = cap->ifaces.ifs_room; i < n; i++)
		ifs[i].xdp_target.fd = -1;
	cap->ifaces.ifs = ifs;
	cap->ifaces.ifs_room = n;
	return 0;
}

/* Slot i's entry, fresh, for ev's interface. */
static struct ps_cap_iface *take_slot(struct ps_capture *cap, int i, const struct ps_link_event *ev)
{
	struct ps_cap_iface *f = &cap->ifaces.ifs[i];

	memset(f, 0, sizeof(*f));
	snprintf(f->name, sizeof(f->name), "%s", ev->name);
	f->ifindex = ev->ifindex;
	f->xdp_target.fd = -1;
	return f;
}

/*
 * xdp-entry and xdp-exit on interface i: the XDP program there, which the
 * kernel must let us trace (the probe in ps_device_probe said). Refused in
 * one line, before anything is loaded, where there is none or it cannot be.
 */
static int find_xdp_target(struct ps_capture *cap, int i)
{
	const struct ps_device *d = &cap->ifaces.ifs[i].dev;
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
	err = ps_xdp_target_find(d->ifindex, &cap->ifaces.ifs[i].xdp_target);
	if (!err && cap->ifaces.ifs[i].xdp_target.id != d->xdp_prog_id)
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
static int resolve_one(struct ps_capture *cap, int i, bool later)
{
	const struct ps_capture_cfg *o = &cap->cfg;
	const struct ps_hook_opts ho = { o->hooks_given, o->hooks, o->xdp_mode };
	const struct ps_hooks_loaded loaded = {
		cap->kern.hooks, { cap->kern.xdp_loaded[0], cap->kern.xdp_loaded[1] }
	};
	struct ps_cap_iface *f = &cap->ifaces.ifs[i];
	struct ps_device *d = &f->dev;
	struct ps_hook_plan plan;
	char msg[512], hooks[64];

	if (ps_device_probe(d, f->ifindex, cap->ifaces.nl)) {
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
	f->later = later;
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
	return 0;
}

/*
 * Interface i is let go: what was attached there detached (or gone with
 * it), its kernel slot freed, its last counters kept in its targets (their
 * outputs still answer for it, and the summary counts it). The entry is
 * free for one to come.
 */
static void release_iface(struct ps_capture *cap, int i, bool vanished)
{
	struct ps_cap_iface *f = &cap->ifaces.ifs[i];
	struct ps_counters final[PS_HOOK_MAX] = { 0 };

	cap_kern_iface_gone(cap, i, vanished, final);
	cap_out_iface_gone(cap, f->ifindex, final);
	f->ifindex = 0; /* free */
}

/*
 * An interface that came while capturing (or was renamed into a pattern,
 * or came up for -i any): resolved as at the start, a kernel slot, targets
 * (and IDBs, sFlow samplers) before its hooks are attached, so its first
 * packets find them. Anything that goes wrong is said where it failed,
 * and the capture goes on with the others.
 */
static int iface_new(struct ps_capture *cap, int i)
{
	struct ps_cap_iface *f = &cap->ifaces.ifs[i];
	struct ps_netdev_nl nl;
	int err;

	ps_netdev_nl_open(&nl);
	cap->ifaces.nl = &nl;
	err = resolve_one(cap, i, true);
	cap->ifaces.nl = NULL;
	ps_netdev_nl_close(&nl);
	if (!err)
		err = cap_add_kernel_iface(cap, i, true);
	if (!err)
		err = cap_take_targets(cap, i);
	if (!err)
		err = cap_attach_iface(cap, i);
	if (!err)
		err = cap_open_targets(cap, i);
	if (err) {
		release_iface(cap, i, false);
		return err;
	}
	ps_report_iface(f->name, f->hooks, cap->cfg.snaplen);
	return 0;
}

/* The set's news, as the capture's subscriber. At the start an interface
 * is resolved only: programs, targets and attachments follow for all. */
static int on_add(void *arg, int i, const struct ps_link_event *ev)
{
	struct ps_capture *cap = arg;
	int err = ensure_ifs(cap, i + 1);

	if (err)
		return err;
	take_slot(cap, i, ev);
	if (cap->ifaces.started)
		return iface_new(cap, i);
	err = resolve_one(cap, i, false);
	if (err)
		cap->ifaces.ifs[i].ifindex = 0;
	return err;
}

static void on_remove(void *arg, int i, enum ps_ifset_why why)
{
	struct ps_capture *cap = arg;
	const char *name = cap->ifaces.ifs[i].name;

	/* Following, interfaces come and go all day: a warning, not an error. */
	if (why == PS_IFSET_VANISHED && cap->ifaces.set.follow)
		pr_warn("interface %s disappeared\n", name);
	else if (why == PS_IFSET_VANISHED)
		pr_err("interface %s disappeared\n", name);
	else
		pr_warn("no longer capturing on %s: the configuration leaves it out\n", name);
	release_iface(cap, i, why == PS_IFSET_VANISHED);
}

static void on_updown(void *arg, int i, bool up)
{
	struct ps_capture *cap = arg;
	const char *name = cap->ifaces.ifs[i].name;

	/* Following, interfaces come up and go down all day: -v says. */
	if (up && cap->ifaces.set.follow)
		pr_info("interface %s is up\n", name);
	else if (up)
		pr_warn("interface %s is up again\n", name);
	else if (cap->ifaces.set.follow)
		pr_info("interface %s went down; capturing on\n", name);
	else
		pr_warn("interface %s went down; capturing on\n", name);
}

static void on_no_room(void *arg, const struct ps_link_event *ev)
{
	const struct ps_capture *cap = arg;

	pr_warn("not capturing on %s: the capture has room for %d interfaces (--max-ifaces)\n",
		ev->name, cap->ifaces.set.room);
}

static const struct ps_ifset_ops capture_ops = { on_add, on_remove, on_updown, on_no_room };

/* -i any's or a pattern's line: which it found, as a list while it is
 * short; said once they are attached, after each interface's own line, as
 * tcpdump's "listening on" means ready. */
static void follow_line(struct ps_capture *cap)
{
	const struct ps_ifset *s = &cap->ifaces.set;
	int found = s->n - s->n_named;
	char list[8 * (IF_NAMESIZE + 2)] = "";

	if (!found)
		snprintf(list, sizeof(list), "%s",
			 s->n_named ? "the named interfaces only" : "none yet");
	else if (found > 8)
		snprintf(list, sizeof(list), "%d interfaces", found);
	for (int i = s->n_named; i < s->n && found <= 8; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
			 i > s->n_named ? ", " : "", cap->ifaces.ifs[i].name);
	snprintf(cap->ifaces.follow_line, sizeof(cap->ifaces.follow_line),
		 "-i %s: capturing on %s\n", s->follow, list);
}

/* Every interface there is, the set's to replay; how many, or -errno
 * (logged). */
static int list_now(struct ps_link_event **now)
{
	int n = ps_link_list(now);

	if (n < 0)
		pr_err("cannot list the interfaces: %s\n", strerror(-n));
	return n;
}

/*
 * The room for interfaces at once (the kernel's maps are sized for as
 * many): as --max-ifaces says; without it, these, and following (or with
 * a configuration a reload may change) PS_FOLLOW_IFACES or twice these.
 */
static int room_for(const struct ps_capture *cap)
{
	int n = cap->ifaces.set.n, room = cap->cfg.max_ifaces;

	if (!room && (cap->ifaces.set.follow || cap->cfg.reloadable))
		room = 2 * n > PS_FOLLOW_IFACES ? 2 * n : PS_FOLLOW_IFACES;
	return room < n ? n : room < 1 ? 1 : room;
}

/* The set's start: every interface there is, named ones first. */
static int start_set(struct ps_capture *cap, const struct ps_link_event *now, int n)
{
	struct ps_ifset_ops ops = capture_ops;
	struct ps_netdev_nl nl;
	char msg[128] = "";
	int err;

	ops.arg = cap;
	ps_netdev_nl_open(&nl);
	cap->ifaces.nl = &nl;
	err = ps_ifset_start(&cap->ifaces.set, &ops, now, n, msg, sizeof(msg));
	cap->ifaces.nl = NULL;
	ps_netdev_nl_close(&nl);
	if (msg[0])
		pr_err("%s\n", msg);
	else if (err == -ENOMEM)
		pr_err("cannot keep the interfaces: %s\n", strerror(ENOMEM));
	return err;
}

int ps_capture_resolve(struct ps_capture *cap)
{
	struct ps_link_event *now = NULL;
	char msg[128];
	int n, err;

	err = ps_ifset_init(&cap->ifaces.set, cap->cfg.ifaces, cap->cfg.n_ifaces, msg, sizeof(msg));
	if (err) {
		pr_err("%s\n", msg);
		return err;
	}
	/* Following: the filter's raw IP part, where the expression has
	 * one, for those to come without a link-layer header. */
	if (cap->ifaces.set.follow && cap->filter)
		ps_filter_build_raw(cap->filter, msg, sizeof(msg));
	n = list_now(&now);
	err = n < 0 ? n : start_set(cap, now, n);
	free(now);
	if (err)
		return err;
	if (cap->ifaces.set.follow)
		follow_line(cap);
	cap_plan_hooks(cap);
	if (ps_ifset_set_room(&cap->ifaces.set, room_for(cap))) {
		pr_err("cannot keep %d interfaces: %s\n", room_for(cap), strerror(ENOMEM));
		return -ENOMEM;
	}
	err = ensure_ifs(cap, cap->ifaces.set.room);
	if (err)
		return err;
	return ps_context_resolve(&cap->ctx, &cap->cfg.context);
}

void cap_rescan(struct ps_capture *cap)
{
	struct ps_link_event *now = NULL;
	int n = ps_link_list(&now);

	if (n < 0)
		pr_warn("cannot list the interfaces: %s\n", strerror(-n));
	else
		ps_ifset_replay(&cap->ifaces.set, now, n);
	free(now);
}

void cap_read_link_events(struct ps_capture *cap)
{
	struct ps_link_event ev[32];
	int n;

	while ((n = ps_linkwatch_read(cap->run.link_fd, ev, 32)) != 0) {
		if (n == -ENOBUFS) {
			cap_rescan(cap); /* news were lost: as if each told us */
			continue;
		}
		if (n < 0) {
			pr_warn("cannot read interface events: %s\n", strerror(-n));
			return;
		}
		for (int i = 0; i < n; i++) {
			/* A deletion first takes a member down: say only that
			 * it went. */
			if (!ev[i].up && !ev[i].gone &&
			    ps_ifset_slot_of(&cap->ifaces.set, ev[i].ifindex) >= 0 &&
			    ps_link_state(ev[i].ifindex) == -ENODEV)
				ev[i].gone = true;
			ps_ifset_event(&cap->ifaces.set, &ev[i]);
		}
		if (n < 32)
			return;
	}
}

void cap_ifaces_reload(struct ps_capture *cap, const struct ps_capture_cfg *cfg)
{
	cap->cfg.ifaces = cfg->ifaces;
	cap->cfg.n_ifaces = cfg->n_ifaces;
	/* Those left out go; those now in come (as if each had just told
	 * us), and those refused before are asked about again. */
	ps_ifset_want(&cap->ifaces.set, cfg->ifaces, cfg->n_ifaces);
	cap_rescan(cap);
	for (int i = 0; i < cfg->n_ifaces; i++)
		if (!ps_ifset_follows(cfg->ifaces[i]) &&
		    ps_ifset_slot_named(&cap->ifaces.set, cfg->ifaces[i]) < 0)
			pr_warn("unknown interface '%s'; capturing on the others\n",
				cfg->ifaces[i]);
}

bool cap_all_gone(const struct ps_capture *cap)
{
	return !cap->ifaces.set.follow && !ps_ifset_count(&cap->ifaces.set);
}

void cap_ifaces_start(struct ps_capture *cap)
{
	struct ps_cap_ifaces *f = &cap->ifaces;

	for (int i = 0; i < f->set.n; i++)
		ps_report_iface(f->ifs[i].name, f->ifs[i].hooks, cap->cfg.snaplen);
	if (f->follow_line[0])
		pr_warn("%s", f->follow_line);
	if (!f->set.n)
		pr_warn("capturing on no interface yet: waiting for -i %s\n", f->set.follow);
	/* From here on, one that comes is attached at once; those that came
	 * between the listing and the link watch now. */
	f->started = true;
	if (f->set.follow)
		cap_rescan(cap);
}

void cap_ifaces_free(struct ps_cap_ifaces *f)
{
	ps_ifset_free(&f->set);
	free(f->ifs);
	f->ifs = NULL;
	f->ifs_room = 0;
}
