// SPDX-License-Identifier: GPL-2.0-only
/*
 * The capture's interfaces: the capture subscribes to its interface set
 * (user/app/ifset.h), which replays the interfaces there are at the start
 * and tells, while it runs, which come, go, go down and come up. Here each
 * piece of that news becomes what the capture does: one that comes is
 * resolved (its device, link type, hooks), then handed to the rest of the
 * capture through the callbacks capture.c gave (struct ps_cap_iface_ops:
 * at the start, what the programs need before they load; later, its
 * kernel slot, targets, hooks and outputs); one that goes is let go the
 * same way. See capture_int.h.
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

/* f->ifs holds at least n entries (a slot the set may give): 0 or
 * -ENOMEM (logged). */
static int ensure_ifs(struct ps_cap_ifaces *f, int n)
{
	struct ps_cap_iface *ifs;

	if (n <= f->ifs_room)
		return 0;
	ifs = realloc(f->ifs, (size_t)n * sizeof(*ifs));
	if (!ifs) {
		pr_err("cannot keep %d interfaces: %s\n", n, strerror(ENOMEM));
		return -ENOMEM;
	}
	memset(ifs + f->ifs_room, 0, (size_t)(n - f->ifs_room) * sizeof(*ifs));
	f->ifs = ifs;
	f->ifs_room = n;
	return 0;
}

/* Slot i's entry, fresh, for ev's interface. */
static struct ps_cap_iface *take_slot(struct ps_cap_ifaces *f, int i,
				      const struct ps_link_event *ev)
{
	struct ps_cap_iface *ifc = &f->ifs[i];

	memset(ifc, 0, sizeof(*ifc));
	snprintf(ifc->name, sizeof(ifc->name), "%s", ev->name);
	ifc->ifindex = ev->ifindex;
	return ifc;
}

/*
 * One interface's facts and what follows from them: its link type (a
 * device pktsample cannot write is refused), its hooks (without --hook or
 * -Q: tc-ingress and tc-egress, tc-egress alone on lo) and XDP mode.
 */
static int resolve_one(struct ps_cap_ifaces *f, int i, bool later)
{
	struct ps_cap_iface *ifc = &f->ifs[i];
	struct ps_device *d = &ifc->dev;
	struct ps_hook_plan plan;
	char msg[512], hooks[64];

	if (ps_device_probe(d, ifc->ifindex, f->nl)) {
		pr_err("unknown interface '%s'\n", ifc->name);
		return -ENODEV;
	}
	ps_hook_plan(d, &f->ho, later ? &f->loaded : NULL, &plan);
	ifc->linktype = plan.linktype;
	if (ifc->linktype < 0) {
		pr_err("cannot capture on %s: its link type (ARPHRD %d) is not one pktsample can "
		       "write (Ethernet, or raw IP for devices without a link-layer header)\n",
		       d->name, d->arphrd);
		return -EPROTONOSUPPORT;
	}
	ifc->xdp_mode = plan.xdp_mode;
	pr_info("%s\n", plan.line);
	/* Packets that start at the IP header meet the expression compiled
	 * for raw IP: a device without a link-layer header, and drops from
	 * before a packet had one (drop-ip). */
	if (f->filter &&
	    (ifc->linktype == PS_LINKTYPE_RAW ||
	     ((plan.hooks | plan.missing) & PS_HOOK_BIT(PS_HOOK_DROP_IP))) &&
	    (later ? !f->filter->raw.cbpf : ps_filter_build_raw(f->filter, msg, sizeof(msg)))) {
		static const char bad[] = "bad filter expression: ";

		if (later)
			snprintf(msg, sizeof(msg), "it does not apply to raw IP");
		pr_err("cannot capture on %s with this filter: %s, and there %s\n", d->name,
		       ifc->linktype == PS_LINKTYPE_RAW ?
			       "it has no link-layer header" :
			       "drops from before a packet had a link-layer header start at IP",
		       strncmp(msg, bad, sizeof(bad) - 1) ? msg : msg + sizeof(bad) - 1);
		return -EINVAL;
	}
	ifc->hooks = plan.hooks;
	ifc->later = later;
	if (later) {
		/* The programs are loaded: what they do not cover is not
		 * done, and said. */
		if (plan.missing) {
			ps_hooks_format(plan.missing, hooks, sizeof(hooks));
			pr_warn("%s: not at %s, which the capture did not load at its start\n",
				d->name, hooks);
		}
		return ifc->hooks ? 0 : -EOPNOTSUPP;
	}
	/* What the programs need of it before they load (the XDP program
	 * xdp-entry and xdp-exit trace). */
	return f->ops.resolved(f->ops.arg, i);
}

/*
 * Interface i is let go: what was attached there detached (or gone with
 * it), its kernel slot freed, its last counters kept in its targets (their
 * outputs still answer for it, and the summary counts it). The entry is
 * free for one to come.
 */
static void release_iface(struct ps_cap_ifaces *f, int i, bool vanished)
{
	f->ops.went(f->ops.arg, i, vanished);
	f->ifs[i].ifindex = 0; /* free */
}

/*
 * An interface that came while capturing (or was renamed into a pattern,
 * or came up for -i any): resolved as at the start, then given to the
 * rest of the capture (a kernel slot, targets, its hooks, outputs).
 * Anything that goes wrong is said where it failed, and the capture goes
 * on with the others.
 */
static int iface_new(struct ps_cap_ifaces *f, int i)
{
	struct ps_cap_iface *ifc = &f->ifs[i];
	struct ps_netdev_nl nl;
	int err;

	ps_netdev_nl_open(&nl);
	f->nl = &nl;
	err = resolve_one(f, i, true);
	f->nl = NULL;
	ps_netdev_nl_close(&nl);
	if (!err)
		err = f->ops.came(f->ops.arg, i);
	if (err) {
		release_iface(f, i, false);
		return err;
	}
	ps_report_iface(ifc->name, ifc->hooks, f->snaplen);
	return 0;
}

/* The set's news, as the capture's subscriber. At the start an interface
 * is resolved only: programs, targets and attachments follow for all. */
static int on_add(void *arg, int i, const struct ps_link_event *ev)
{
	struct ps_cap_ifaces *f = arg;
	int err = ensure_ifs(f, i + 1);

	if (err)
		return err;
	take_slot(f, i, ev);
	if (f->started)
		return iface_new(f, i);
	err = resolve_one(f, i, false);
	if (err)
		f->ifs[i].ifindex = 0;
	return err;
}

static void on_remove(void *arg, int i, enum ps_ifset_why why)
{
	struct ps_cap_ifaces *f = arg;
	const char *name = f->ifs[i].name;

	/* Following, interfaces come and go all day: a warning, not an error. */
	if (why == PS_IFSET_VANISHED && f->set.follow)
		pr_warn("interface %s disappeared\n", name);
	else if (why == PS_IFSET_VANISHED)
		pr_err("interface %s disappeared\n", name);
	else
		pr_warn("no longer capturing on %s: the configuration leaves it out\n", name);
	release_iface(f, i, why == PS_IFSET_VANISHED);
}

static void on_updown(void *arg, int i, bool up)
{
	struct ps_cap_ifaces *f = arg;
	const char *name = f->ifs[i].name;

	/* Following, interfaces come up and go down all day: -v says. */
	if (up && f->set.follow)
		pr_info("interface %s is up\n", name);
	else if (up)
		pr_warn("interface %s is up again\n", name);
	else if (f->set.follow)
		pr_info("interface %s went down; capturing on\n", name);
	else
		pr_warn("interface %s went down; capturing on\n", name);
}

static void on_no_room(void *arg, const struct ps_link_event *ev)
{
	const struct ps_cap_ifaces *f = arg;

	pr_warn("not capturing on %s: the capture has room for %d interfaces (--max-ifaces)\n",
		ev->name, f->set.room);
}

static const struct ps_ifset_ops capture_ops = { on_add, on_remove, on_updown, on_no_room };

/* -i any's or a pattern's line: which it found, as a list while it is
 * short; said once they are attached, after each interface's own line, as
 * tcpdump's "listening on" means ready. */
static void follow_line(struct ps_cap_ifaces *f)
{
	const struct ps_ifset *s = &f->set;
	int found = s->n - s->n_named;
	char list[8 * (IF_NAMESIZE + 2)] = "";

	if (!found)
		snprintf(list, sizeof(list), "%s",
			 s->n_named ? "the named interfaces only" : "none yet");
	else if (found > 8)
		snprintf(list, sizeof(list), "%d interfaces", found);
	for (int i = s->n_named; i < s->n && found <= 8; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
			 i > s->n_named ? ", " : "", f->ifs[i].name);
	snprintf(f->follow_line, sizeof(f->follow_line), "-i %s: capturing on %s\n", s->follow,
		 list);
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
static int room_for(const struct ps_cap_ifaces *f, int max, bool reloadable)
{
	int n = f->set.n, room = max;

	if (!room && (f->set.follow || reloadable))
		room = 2 * n > PS_FOLLOW_IFACES ? 2 * n : PS_FOLLOW_IFACES;
	return room < n ? n : room < 1 ? 1 : room;
}

/* The set's start: every interface there is, named ones first. */
static int start_set(struct ps_cap_ifaces *f, const struct ps_link_event *now, int n)
{
	struct ps_ifset_ops ops = capture_ops;
	struct ps_netdev_nl nl;
	char msg[128] = "";
	int err;

	ops.arg = f;
	ps_netdev_nl_open(&nl);
	f->nl = &nl;
	err = ps_ifset_start(&f->set, &ops, now, n, msg, sizeof(msg));
	f->nl = NULL;
	ps_netdev_nl_close(&nl);
	if (msg[0])
		pr_err("%s\n", msg);
	else if (err == -ENOMEM)
		pr_err("cannot keep the interfaces: %s\n", strerror(ENOMEM));
	return err;
}

void cap_ifaces_init(struct ps_cap_ifaces *f, const struct ps_capture_cfg *cfg,
		     struct ps_filter *filter, const struct ps_cap_iface_ops *ops)
{
	f->ho = (struct ps_hook_opts){ cfg->hooks_given, cfg->hooks, cfg->xdp_mode };
	f->snaplen = cfg->snaplen;
	f->filter = filter;
	f->ops = *ops;
}

int cap_ifaces_resolve(struct ps_cap_ifaces *f, const char *const *want, int n_want)
{
	struct ps_link_event *now = NULL;
	char msg[128];
	int n, err;

	err = ps_ifset_init(&f->set, want, n_want, msg, sizeof(msg));
	if (err) {
		pr_err("%s\n", msg);
		return err;
	}
	/* Following: the filter's raw IP part, where the expression has
	 * one, for those to come without a link-layer header. */
	if (f->set.follow && f->filter)
		ps_filter_build_raw(f->filter, msg, sizeof(msg));
	n = list_now(&now);
	err = n < 0 ? n : start_set(f, now, n);
	free(now);
	if (err)
		return err;
	if (f->set.follow)
		follow_line(f);
	return 0;
}

int cap_ifaces_make_room(struct ps_cap_ifaces *f, int max, bool reloadable)
{
	int room = room_for(f, max, reloadable);

	if (ps_ifset_set_room(&f->set, room)) {
		pr_err("cannot keep %d interfaces: %s\n", room, strerror(ENOMEM));
		return -ENOMEM;
	}
	return ensure_ifs(f, f->set.room);
}

void cap_rescan(struct ps_cap_ifaces *f)
{
	struct ps_link_event *now = NULL;
	int n = ps_link_list(&now);

	if (n < 0)
		pr_warn("cannot list the interfaces: %s\n", strerror(-n));
	else
		ps_ifset_replay(&f->set, now, n);
	free(now);
}

void cap_retry(struct ps_cap_ifaces *f)
{
	if (!f->set.retry_due)
		return;
	ps_ifset_forget_refused(&f->set);
	cap_rescan(f);
}

void cap_read_link_events(struct ps_cap_ifaces *f, int link_fd)
{
	struct ps_link_event ev[32];
	int n;

	while ((n = ps_linkwatch_read(link_fd, ev, 32)) != 0) {
		if (n == -ENOBUFS) {
			cap_rescan(f); /* news were lost: as if each told us */
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
			    ps_ifset_slot_of(&f->set, ev[i].ifindex) >= 0 &&
			    ps_link_state(ev[i].ifindex) == -ENODEV)
				ev[i].gone = true;
			ps_ifset_event(&f->set, &ev[i]);
		}
		if (n < 32)
			return;
	}
}

void cap_ifaces_reload(struct ps_cap_ifaces *f, const struct ps_capture_cfg *cfg,
		       struct ps_filter *filter)
{
	f->ho = (struct ps_hook_opts){ cfg->hooks_given, cfg->hooks, cfg->xdp_mode };
	f->filter = filter;
	/* Those left out go; those now in come (as if each had just told
	 * us), and those refused before are asked about again. */
	ps_ifset_want(&f->set, cfg->ifaces, cfg->n_ifaces);
	cap_rescan(f);
	for (int i = 0; i < cfg->n_ifaces; i++)
		if (!ps_ifset_follows(cfg->ifaces[i]) &&
		    ps_ifset_slot_named(&f->set, cfg->ifaces[i]) < 0)
			pr_warn("unknown interface '%s'; capturing on the others\n",
				cfg->ifaces[i]);
}

bool cap_all_gone(const struct ps_cap_ifaces *f)
{
	return !f->set.follow && !ps_ifset_count(&f->set);
}

void cap_ifaces_start(struct ps_cap_ifaces *f, const struct ps_hooks_loaded *loaded)
{
	for (int i = 0; i < f->set.n; i++)
		ps_report_iface(f->ifs[i].name, f->ifs[i].hooks, f->snaplen);
	if (f->follow_line[0])
		pr_warn("%s", f->follow_line);
	if (!f->set.n)
		pr_warn("capturing on no interface yet: waiting for -i %s\n", f->set.follow);
	/* From here on, one that comes is resolved for what was loaded and
	 * attached at once; those that came between the listing and the
	 * link watch now. */
	f->loaded = *loaded;
	f->started = true;
	if (f->set.follow)
		cap_rescan(f);
}

void cap_ifaces_free(struct ps_cap_ifaces *f)
{
	ps_ifset_free(&f->set);
	free(f->ifs);
	f->ifs = NULL;
	f->ifs_room = 0;
}
