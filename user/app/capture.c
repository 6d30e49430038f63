// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
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
	for (int i = 0; i < PS_MAX_IFACES; i++)
		cap->xdp_target[i].fd = -1;
	cap->smp = cfg->smp;
	cap->drops.consumed = UINT32_MAX; /* no names yet, and no reason to skip */
	cap->metrics.fd = -1;
	/* A fresh seed per run: which flows are chosen varies between runs. */
	if (getrandom(&cap->smp.seed, sizeof(cap->smp.seed), 0) != sizeof(cap->smp.seed))
		cap->smp.seed = (uint32_t)read_ns(CLOCK_MONOTONIC);
}

/*
 * -i any: every interface that is up, but lo (whose packets are the host
 * talking to itself) only when named as well. The named ones come first.
 */
static int expand_any(struct ps_capture *cap)
{
	struct if_nameindex *all = if_nameindex(), *p;
	char list[512] = "";
	int err = 0;

	if (!all) {
		err = -errno;
		pr_err("cannot list the interfaces for -i any: %s\n", strerror(-err));
		return err;
	}
	for (p = all; p->if_index && !err; p++) {
		int flags = ps_link_flags((int)p->if_index);
		bool named = false;

		for (int i = 0; i < cap->n_ifaces; i++)
			named |= !strcmp(cap->ifaces[i], p->if_name);
		if (named || flags < 0 || !(flags & IFF_UP) || (flags & IFF_LOOPBACK))
			continue;
		if (cap->n_ifaces == PS_MAX_IFACES) {
			pr_err("-i any: more than %d interfaces are up; name them with -i instead\n",
			       PS_MAX_IFACES);
			err = -E2BIG;
			break;
		}
		snprintf(cap->any_names[cap->n_ifaces], IF_NAMESIZE, "%s", p->if_name);
		cap->ifaces[cap->n_ifaces] = cap->any_names[cap->n_ifaces];
		cap->n_ifaces++;
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
			 *list ? ", " : "", p->if_name);
	}
	if_freenameindex(all);
	if (!err && !cap->n_ifaces) {
		pr_err("-i any: no interface is up\n");
		err = -ENODEV;
	}
	if (!err)
		pr_warn("-i any: capturing on %s\n", *list ? list : "the named interfaces only");
	return err;
}

/*
 * xdp-entry and xdp-exit on interface i: the XDP program there, which the
 * kernel must let us trace (the probe in ps_device_probe said). Refused in
 * one line, before anything is loaded, where there is none or it cannot be.
 */
static int find_xdp_target(struct ps_capture *cap, int i)
{
	const struct ps_device *d = &cap->dev[i];
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
	err = ps_xdp_target_find(d->ifindex, &cap->xdp_target[i]);
	if (!err && cap->xdp_target[i].id != d->xdp_prog_id)
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
static int resolve_one(struct ps_capture *cap, int i, const struct ps_netdev_nl *nl)
{
	const struct ps_capture_cfg *o = &cap->cfg;
	struct ps_device *d = &cap->dev[i];
	char msg[512], why[256], hooks[64];
	unsigned int ingress;
	int err;

	if (ps_device_probe(d, cap->ifindex[i], nl)) {
		pr_err("unknown interface '%s'\n", cap->ifaces[i]);
		return -ENODEV;
	}
	cap->linktype[i] = ps_linktype_of(d->arphrd);
	if (cap->linktype[i] < 0) {
		pr_err("cannot capture on %s: its link type (ARPHRD %d) is not one pktsample can "
		       "write (Ethernet, or raw IP for devices without a link-layer header)\n",
		       d->name, d->arphrd);
		return -EPROTONOSUPPORT;
	}
	cap->xdp_mode[i] = o->xdp_mode == PS_XDP_AUTO ? ps_device_xdp_mode(d) : o->xdp_mode;
	ingress = ps_device_default_ingress(d, why, sizeof(why));
	if (o->hooks_given) {
		cap->if_hooks[i] = o->hooks;
		pr_info("%s: link type %s; hooks as asked\n", d->name,
			ps_linktype_name(cap->linktype[i]));
	} else {
		cap->if_hooks[i] = PS_HOOK_BIT(PS_HOOK_TC_EGRESS) | ingress;
		ps_hooks_format(ingress, hooks, sizeof(hooks));
		pr_info("%s: link type %s; ingress at %s: %s\n", d->name,
			ps_linktype_name(cap->linktype[i]), hooks, why);
	}
	/* Packets that start at the IP header meet the expression compiled
	 * for raw IP: a device without a link-layer header, and drops from
	 * before a packet had one (drop-ip). */
	if (cap->filter &&
	    (cap->linktype[i] == PS_LINKTYPE_RAW ||
	     (cap->if_hooks[i] & PS_HOOK_BIT(PS_HOOK_DROP_IP))) &&
	    ps_filter_build_raw(cap->filter, msg, sizeof(msg))) {
		static const char bad[] = "bad filter expression: ";

		pr_err("cannot capture on %s with this filter: %s, and there %s\n", d->name,
		       cap->linktype[i] == PS_LINKTYPE_RAW ?
			       "it has no link-layer header" :
			       "drops from before a packet had a link-layer header start at IP",
		       strncmp(msg, bad, sizeof(bad) - 1) ? msg : msg + sizeof(bad) - 1);
		return -EINVAL;
	}
	if (cap->if_hooks[i] & PS_HOOKS_XDP_TRACE) {
		err = find_xdp_target(cap, i);
		if (err)
			return err;
	}
	cap->hooks |= cap->if_hooks[i];
	return 0;
}

int ps_capture_resolve(struct ps_capture *cap)
{
	struct ps_netdev_nl nl;
	bool any = false;
	int err = 0;

	cap->n_ifaces = 0;
	for (int i = 0; i < cap->cfg.n_ifaces; i++) {
		if (!strcmp(cap->cfg.ifaces[i], "any"))
			any = true;
		else
			cap->ifaces[cap->n_ifaces++] = cap->cfg.ifaces[i];
	}
	if (any) {
		err = expand_any(cap);
		if (err)
			return err;
	}
	for (int i = 0; i < cap->n_ifaces; i++) {
		const char *name = cap->ifaces[i];

		cap->ifindex[i] = strlen(name) < IF_NAMESIZE ? if_nametoindex(name) : 0;
		if (!cap->ifindex[i]) {
			pr_err("unknown interface '%s'\n", name);
			return -ENODEV;
		}
	}
	ps_netdev_nl_open(&nl);
	for (int i = 0; i < cap->n_ifaces && !err; i++)
		err = resolve_one(cap, i, &nl);
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
 * (auto may need either). */
static void xdp_programs_needed(const struct ps_capture *cap, bool need[2])
{
	need[0] = need[1] = false;
	for (int i = 0; i < cap->n_ifaces; i++) {
		if (!(cap->if_hooks[i] & PS_HOOK_BIT(PS_HOOK_XDP)))
			continue;
		need[0] |= cap->xdp_mode[i] != PS_XDP_SKB;
		need[1] |= cap->xdp_mode[i] != PS_XDP_NATIVE;
	}
}

/* The counter slots and one target per (interface, hook). */
static int plan_targets(struct ps_capture *cap, struct ps_iface_list *ifaces)
{
	for (int i = 0; i < cap->n_ifaces; i++) {
		if (ps_iface_list_add(ifaces, cap->ifindex[i])) {
			pr_err("cannot capture on %s: at most %d interfaces\n", cap->ifaces[i],
			       PS_MAX_IFACES);
			return -E2BIG;
		}
		if (cap->linktype[i] == PS_LINKTYPE_RAW)
			ps_iface_list_set_raw(ifaces, cap->ifindex[i]);
		for (unsigned int h = 0; h < PS_HOOK_MAX; h++)
			if (cap->if_hooks[i] & PS_HOOK_BIT(h))
				cap->targets[cap->n_targets++] = (struct ps_target){
					.ifname = cap->ifaces[i],
					.ifindex = cap->ifindex[i],
					.hook = h,
					/* drop-ip's packets start at the IP
					 * header on every device. */
					.linktype = h == PS_HOOK_DROP_IP ? PS_LINKTYPE_RAW :
									   cap->linktype[i]
				};
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
	const struct ps_device *d = &cap->dev[i];

	if (!(cap->if_hooks[i] & PS_HOOK_BIT(PS_HOOK_XDP)) || cap->xdp_mode[i] == PS_XDP_SKB ||
	    d->xdp_rx_vlan != 1 || cap->cfg.xdp_attach != PS_XDP_VIA_LINK ||
	    !ps_loader_has_xdp_vlan_meta())
		return;
	lo.xdp_dev_ifindex = (uint32_t)d->ifindex;
	lo.maps_from = &cap->loader;
	if (ps_loader_load(&cap->dev_loader[i], &lo))
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
	const struct ps_xdp_target *t = &cap->xdp_target[i];

	if (!(cap->if_hooks[i] & PS_HOOKS_XDP_TRACE))
		return 0;
	for (int j = 0; j < i; j++)
		if (cap->trace_loader[j].skel && cap->xdp_target[j].id == t->id)
			return 0;
	lo.hooks = cap->if_hooks[i];
	lo.trace_func = t->func;
	lo.trace_prog_fd = t->fd;
	lo.maps_from = &cap->loader;
	return ps_loader_load(&cap->trace_loader[i], &lo);
}

static int load_programs(struct ps_capture *cap, const struct ps_iface_list *ifaces)
{
	const struct ps_capture_cfg *o = &cap->cfg;
	struct ps_load_opts lo = {
		.hooks = cap->hooks,
		.snaplen = o->snaplen,
		.ifaces = ifaces,
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
	lo.xdp_native = need[0];
	lo.xdp_skb = need[1];
	if (cap->transport == PS_TRANSPORT_RINGBUF)
		lo.ring_bytes = cap->bufs.ring_kib * 1024;
	/* Loaded here, not inside libxdp's attach, so a filter the verifier
	 * refuses is reported as such before anything is attached. */
	err = ps_loader_load(&cap->loader, &lo);
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
		if (cap->ifindex[i] == ifindex)
			return i;
	return -1;
}

/* Has every captured device below interface i got its XDP already? */
static bool lowers_attached(const struct ps_capture *cap, const bool *done, int i)
{
	for (int j = 0; j < cap->n_ifaces; j++)
		if (j != i && !done[j] && ps_device_is_below(&cap->dev[j], cap->ifindex[i]))
			return false;
	return true;
}

/*
 * XDP first on the devices below, then on those above them: the kernel
 * refuses XDP on a port or lower device once its bridge, macvlan or VLAN
 * holds XDP, not the other way round. Round r attaches the devices r
 * levels up; devices stack fewer levels than there are interfaces.
 */
static int attach_xdp_all(struct ps_capture *cap)
{
	bool done[PS_MAX_IFACES];
	int err;

	for (int i = 0; i < cap->n_ifaces; i++)
		done[i] = !(cap->if_hooks[i] & PS_HOOK_BIT(PS_HOOK_XDP));
	for (int round = 0; round < cap->n_ifaces; round++)
		for (int i = 0; i < cap->n_ifaces; i++) {
			if (done[i] || !lowers_attached(cap, done, i))
				continue;
			if (cap->stop->requested)
				return -EINTR;
			err = ps_attach_xdp(&cap->att, &cap->dev[i], cap->xdp_mode[i],
					    ps_loader_prog_fd(&cap->dev_loader[i],
							      PS_PROG_XDP_DEV));
			if (err)
				return err;
			done[i] = true;
		}
	return 0;
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
			int fd = ps_loader_prog_fd(&cap->trace_loader[i], progs[k]);

			if (fd >= 0)
				err = ps_attach_xdp_trace(&cap->att, fd, &cap->dev[i], hooks[k]);
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
	/* tcx everywhere: the guardian has nothing to look after. */
	if (!err && cap->att.guard_fd >= 0 && !ps_attach_has_clsact(&cap->att)) {
		close(cap->att.guard_fd);
		cap->att.guard_fd = -1;
	}
	/* Said once all is attached: a failed start's one line stays one. */
	for (int i = 0; !err && i < cap->n_ifaces; i++)
		ps_attach_warn_xdp_cost(&cap->att, &cap->dev[i]);
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
			 cap->xdp_target[i].name, cap->xdp_target[i].id);
	else
		snprintf(buf, len, "%s", ps_hook_description(tg->hook));
}

/* What each target's IDB says: the hook and how it was attached, the
 * sampling. */
static void describe_targets(struct ps_capture *cap)
{
	for (int t = 0; t < cap->n_targets; t++) {
		struct ps_capfile_iface *fi = &cap->file_ifaces[t];

		ps_report_idb_comment(fi->comment, sizeof(fi->comment), cap->targets[t].hook,
				      attached_via(cap, &cap->targets[t]), cap->sampling);
		describe_target(cap, &cap->targets[t], fi->description, sizeof(fi->description));
	}
}

/* Packets of target t (or of all, t < 0) in every file so far; printing
 * only, what was printed. */
static uint64_t written_total(const struct ps_capture *cap, int t)
{
	uint64_t n = 0;

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
	const struct ps_counter_src counters = ps_loader_counter_src(&cap->loader);
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
		if (ps_link_state(cap->ifindex[i]) == 0) {
			cap->down[i] = true;
			pr_warn("interface %s is down; capturing anyway\n", cap->ifaces[i]);
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
		err = ps_promisc_add(cap->promisc_fd, cap->ifindex[i]);
		if (err)
			pr_warn("cannot put %s into promiscuous mode: %s; capturing without it\n",
				cap->ifaces[i], strerror(-err));
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
	for (int i = 0; i < cap->n_targets; i++) {
		t[i].ifname = cap->targets[i].ifname;
		t[i].hook = ps_hook_name(cap->targets[i].hook);
		ps_loader_read_counter(&cap->loader, cap->targets[i].ifindex, cap->targets[i].hook,
				       &t[i].c);
		t[i].written = written_total(cap, i);
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
		ps_metrics_publish(&cap->metrics, body, len);
	}
	free(t);
}

int ps_capture_setup(struct ps_capture *cap)
{
	struct ps_iface_list ifaces = { 0 };
	int err;

	if (ps_sampling_active(&cap->smp))
		ps_sampling_describe(&cap->smp, cap->sampling, sizeof(cap->sampling));
	err = choose_transport(cap);
	/* Before anything is loaded: a kernel without the drop tracepoint or
	 * BTF is one line. */
	if (!err && (cap->hooks & PS_HOOKS_DROP))
		err = ps_dropnames_load(&cap->drops);
	if (!err)
		err = plan_targets(cap, &ifaces);
	if (!err)
		err = start_guardian(cap);
	if (!err)
		err = load_programs(cap, &ifaces);
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
		err = ps_metrics_open(&cap->metrics, &cap->cfg.metrics_addr);
	if (!err)
		err = attach_all(cap);
	if (!err)
		set_promiscuous(cap);
	if (!err && cap->smp.mode == PS_SAMPLE_CLOCK)
		err = ps_ticker_start(&cap->ticker, ps_loader_prog(&cap->loader, PS_PROG_TICK),
				      cap->smp.interval_ns);
	if (!err && cap->file) {
		const struct ps_counter_src counters = ps_loader_counter_src(&cap->loader);

		describe_targets(cap);
		err = ps_capfile_start(cap->file, cap->targets, cap->file_ifaces, cap->n_targets,
				       cap->loader.ncpus, &counters, read_ns(CLOCK_MONOTONIC));
	}
	if (err == -EINTR)
		pr_err("interrupted during setup\n");
	if (!err) {
		cap->start_time_s = (double)read_ns(CLOCK_REALTIME) / 1e9;
		if (cap->metrics.fd >= 0)
			publish_metrics(cap, read_ns(CLOCK_MONOTONIC));
		ps_report_start(cap->ifaces, cap->n_ifaces, cap->if_hooks, cap->cfg.snaplen,
				cap->att.xdp_single_prog, cap->sampling);
	}
	return err;
}

/* Every (interface, hook)'s counters, summed. */
static void sum_counters(const struct ps_capture *cap, struct ps_counters *all)
{
	memset(all, 0, sizeof(*all));
	for (int i = 0; i < cap->n_targets; i++) {
		struct ps_counters c;

		if (!ps_loader_read_counter(&cap->loader, cap->targets[i].ifindex,
					    cap->targets[i].hook, &c))
			ps_counters_add(all, &c);
	}
}

static void link_changed(struct ps_capture *cap, const struct ps_link_event *ev)
{
	int i = slot_of(cap, ev->ifindex), left = 0;
	const char *name;

	if (i < 0 || cap->gone[i])
		return;
	name = cap->ifaces[i];
	/* A deletion first takes the interface down: say only that it went. */
	if (ev->gone || (!ev->up && ps_link_state(ev->ifindex) == -ENODEV)) {
		cap->gone[i] = true;
		ps_attach_forget(&cap->att, ev->ifindex);
		if (cap->file)
			ps_capfile_mark_gone(cap->file, ev->ifindex);
		pr_err("interface %s disappeared\n", name);
		for (int j = 0; j < cap->n_ifaces; j++)
			left += !cap->gone[j];
		cap->all_gone = !left;
		return;
	}
	if (ev->up == !cap->down[i])
		return;
	cap->down[i] = !ev->up;
	if (ev->up)
		pr_warn("interface %s is up again\n", name);
	else
		pr_warn("interface %s went down; capturing on\n", name);
}

/* What rtnetlink told us; if it dropped news, ask about every interface. */
static void read_link_events(struct ps_capture *cap)
{
	struct ps_link_event ev[32];
	int n;

	while ((n = ps_linkwatch_read(cap->link_fd, ev, 32)) != 0) {
		if (n == -ENOBUFS) {
			n = 0;
			for (int i = 0; i < cap->n_ifaces; i++) {
				int st = ps_link_state(cap->ifindex[i]);

				ev[n++] = (struct ps_link_event){ .ifindex = cap->ifindex[i],
								  .gone = st == -ENODEV,
								  .up = st == 1 };
			}
		} else if (n < 0) {
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
	/* Monotonic: a wall-clock step must not stretch or cut the capture. */
	uint64_t deadline = cap->cfg.duration_ms ?
				    read_ns(CLOCK_MONOTONIC) + cap->cfg.duration_ms * 1000000ull :
				    0;
	uint64_t period = cap->cfg.stats_ms * 1000000ull, last = read_ns(CLOCK_MONOTONIC), now;
	uint64_t prev_written = 0;
	int err = 0;

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
		if (period && now - last >= period) {
			uint64_t written = written_total(cap, -1);

			print_stats(cap, written, prev_written, now - last);
			prev_written = written;
			last = now;
		}
		if (cap->metrics.fd >= 0 && now - cap->metrics_at_ns >= 1000000000ull)
			publish_metrics(cap, now);
		if (deadline && now >= deadline)
			break;
	}
	return err;
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
	memset(all, 0, sizeof(*all));
	for (int t = 0; t < cap->n_targets; t++) {
		struct ps_target *tg = &cap->targets[t];
		struct ps_counters c;
		char line[320];

		if (ps_loader_read_counter(&cap->loader, tg->ifindex, tg->hook, &c))
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

	for (int i = 0; i < cap->in->n_src; i++)
		if (cap->in->src[i].corrupt)
			pr_warn("perf buffer of CPU %d: %llu bytes were no record, skipped\n",
				cap->in->src[i].cpu, (unsigned long long)cap->in->src[i].corrupt);
	if (cap->in->malformed || cap->in->unknown)
		pr_warn("%llu malformed and %llu unexpected samples ignored\n",
			(unsigned long long)cap->in->malformed,
			(unsigned long long)cap->in->unknown);
	if (cap->in->forced)
		pr_warn("%llu packets written before their place in time was certain "
			"(the reorder memory was full); the file may be out of order\n",
			(unsigned long long)cap->in->forced);
	pr_info("merge: %llu rounds, at most %llu KiB held, %llu packets out of order, "
		"%llu copied out of a full buffer\n",
		(unsigned long long)cap->in->rounds,
		(unsigned long long)cap->in->order.peak_held >> 10,
		(unsigned long long)cap->in->order.late, (unsigned long long)cap->in->unpinned);
	if (cap->transport == PS_TRANSPORT_RINGBUF)
		pr_info("ring buffer: %llu sequence gaps\n", (unsigned long long)cap->in->seq_gaps);
	else
		pr_info("perf buffer: %llu lost records reported, %llu sequence gaps\n",
			(unsigned long long)ps_ingest_lost_total(cap->in),
			(unsigned long long)cap->in->seq_gaps);
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
		ps_loader_close(&cap->dev_loader[i]);
		ps_loader_close(&cap->trace_loader[i]);
		ps_xdp_target_close(&cap->xdp_target[i]);
	}
	ps_loader_close(&cap->loader);
	ps_dropnames_free(&cap->drops);
	ps_metrics_close(&cap->metrics);
	if (cap->link_fd >= 0)
		close(cap->link_fd);
	if (cap->loop_fd >= 0)
		close(cap->loop_fd);
	if (cap->promisc_fd >= 0)
		close(cap->promisc_fd); /* the memberships go with it */
	cap->link_fd = cap->loop_fd = cap->promisc_fd = -1;
}
