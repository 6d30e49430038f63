// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/epoll.h>
#include <bpf/libbpf.h>
#include "capture.h"
#include "cli.h"
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

void ps_capture_init(struct ps_capture *cap, const struct ps_opts *o,
		     struct ps_filter *filter, struct ps_stop *stop)
{
	memset(cap, 0, sizeof(*cap));
	cap->link_fd = -1;
	cap->loop_fd = -1;
	cap->promisc_fd = -1;
	cap->att.guard_fd = -1;
	cap->transport = o->transport;
	cap->o = o;
	cap->filter = filter;
	cap->stop = stop;
	cap->out.fd = -1;
	for (int i = 0; i < PS_MAX_IFACES; i++)
		cap->xdp_target[i].fd = -1;
	ps_sampling_from_opts(o, &cap->smp);
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
		       "there to trace (--hook xdp captures at XDP itself)\n", d->name);
		return -EOPNOTSUPP;
	}
	if (d->xdp_traceable != 1) {
		pr_err("cannot trace XDP program %u (%s) on %s: %s; --hook tc-ingress sees what "
		       "it passes\n", d->xdp_prog_id, d->xdp_prog_name, d->name,
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
	const struct ps_opts *o = cap->o;
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
	if (cap->linktype[i] == PS_LINKTYPE_RAW && cap->filter &&
	    ps_filter_build_raw(cap->filter, msg, sizeof(msg))) {
		static const char bad[] = "bad filter expression: ";

		pr_err("cannot capture on %s with this filter: %s has no link-layer header, and "
		       "there %s\n", d->name, d->name,
		       strncmp(msg, bad, sizeof(bad) - 1) ? msg : msg + sizeof(bad) - 1);
		return -EINVAL;
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
	for (int i = 0; i < cap->o->n_ifaces; i++) {
		if (!strcmp(cap->o->ifaces[i], "any"))
			any = true;
		else
			cap->ifaces[cap->n_ifaces++] = cap->o->ifaces[i];
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
	return err;
}

int ps_capture_open_output(struct ps_capture *cap)
{
	const struct ps_opts *o = cap->o;
	int err;

	if (!o->output)
		return 0; /* printing only */
	ps_rotate_init(&cap->rot, o->output, o->file_size, o->rotate_seconds * 1000000000ull,
		       o->file_count, read_ns(CLOCK_MONOTONIC));
	if (!ps_rotate_active(&cap->rot))
		return ps_output_open(&cap->out, o->output);
	err = ps_rotate_name(&cap->rot, time(NULL), cap->path, sizeof(cap->path));
	if (err) {
		pr_err("cannot name a file after '%s': %s\n", o->output,
		       err == -EINVAL ? "strftime(3) makes an empty name of it" : strerror(-err));
		return err;
	}
	return ps_output_open(&cap->out, cap->path);
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
					.ifname = cap->ifaces[i], .ifindex = cap->ifindex[i],
					.hook = h, .linktype = cap->linktype[i] };
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
	    d->xdp_rx_vlan != 1 || cap->o->xdp_attach != PS_XDP_VIA_LINK ||
	    !ps_loader_has_xdp_vlan_meta())
		return;
	lo.xdp_dev_ifindex = (uint32_t)d->ifindex;
	lo.maps_from = &cap->loader;
	if (ps_loader_load(&cap->dev_loader[i], &lo))
		pr_warn("xdp: %s: the program that reads the driver's VLAN tags did not load; "
			"capturing without them\n", d->name);
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
	const struct ps_opts *o = cap->o;
	struct ps_load_opts lo = {
		.hooks = cap->hooks,
		.snaplen = o->snaplen,
		.ifaces = ifaces,
		.sampling = &cap->smp,
		.filter = cap->filter,
		.transport = cap->transport,
		.sflow_pool = o->sflow.n_collectors > 0,
	};
	bool need[2];
	const char *names[2];
	int fds[2], err;

	xdp_programs_needed(cap, need);
	lo.xdp_native = need[0];
	lo.xdp_skb = need[1];
	if (cap->transport == PS_TRANSPORT_RINGBUF)
		lo.ring_bytes = ps_ring_bytes(o->buffer_kib, libbpf_num_possible_cpus(),
					      sysconf(_SC_PAGESIZE));
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
					    ps_loader_prog_fd(&cap->dev_loader[i], PS_PROG_XDP_DEV));
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
	if (!tc || cap->o->tc_mode == PS_TC_TCX)
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
	for (int t = 0; !err && t < cap->n_targets; t++) {
		const struct ps_target *tg = &cap->targets[t];

		if (!ps_hook_is_tc(tg->hook))
			continue;
		if (cap->stop->requested)
			return -EINTR;
		err = ps_attach_tc(&cap->att, ps_loader_prog_fd(&cap->loader, tg->hook),
				   tg->ifindex, tg->ifname, tg->hook, cap->o->tc_mode,
				   cap->o->tc_position);
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
		if (cap->att.list[i].hook == tg->hook &&
		    (cap->att.list[i].ifindex == tg->ifindex || ps_hook_is_xdp_trace(tg->hook)))
			return ps_attach_kind_name(&cap->att.list[i]);
	return "?";
}

/*
 * An IDB's if_description: the hook, as -r reads it back (user/capread.c),
 * and around another XDP program that program, by name and id.
 */
static void describe_target(const struct ps_capture *cap, const struct ps_target *tg,
			    char *buf, size_t len)
{
	int i = slot_of(cap, tg->ifindex);

	if (i >= 0 && ps_hook_is_xdp_trace(tg->hook))
		snprintf(buf, len, "%s of %s (id %u)", ps_hook_description(tg->hook),
			 cap->xdp_target[i].name, cap->xdp_target[i].id);
	else
		snprintf(buf, len, "%s", ps_hook_description(tg->hook));
}

/* The writer for the output file just opened; a second signal makes a
 * blocked write give up. */
static int open_writer(struct ps_capture *cap)
{
	cap->w = pcapng_writer_new(cap->out.fd, 0);
	if (!cap->w) {
		pr_err("cannot set up the writer for %s: %s\n", cap->out.path, strerror(ENOMEM));
		return -ENOMEM;
	}
	pcapng_writer_set_abort(cap->w, &cap->stop->abort);
	return 0;
}

/* A file's first blocks: the section, and one IDB per target (so every
 * file of a rotation has the same interface ids). */
static int write_file_headers(struct ps_capture *cap)
{
	struct utsname u;
	char os[sizeof(u.sysname) + sizeof(u.release) + 2];
	struct pcapng_shb shb = { .userappl = "pktsample " PKTSAMPLE_VERSION };
	int err;

	if (!uname(&u)) {
		snprintf(os, sizeof(os), "%s %s", u.sysname, u.release);
		shb.os = os;
		shb.hardware = u.machine;
	}
	err = pcapng_write_shb(cap->w, &shb);
	for (int t = 0; !err && t < cap->n_targets; t++) {
		struct ps_target *tg = &cap->targets[t];
		char comment[320], description[160];
		int id;

		ps_report_idb_comment(comment, sizeof(comment), tg->hook,
				      attached_via(cap, tg), cap->sampling);
		describe_target(cap, tg, description, sizeof(description));
		id = pcapng_write_idb(cap->w, &(struct pcapng_idb){
			.linktype = (uint16_t)tg->linktype,
			.snaplen = cap->o->snaplen,
			.name = tg->ifname,
			.description = description,
			.filter = cap->filter ? cap->filter->expr : NULL,
			.comment = comment,
		});
		if (id < 0)
			err = id;
		else
			tg->if_id = id;
	}
	if (err)
		pr_err("cannot write %s: %s\n", cap->out.path, pcapng_strerror(err));
	cap->file_start_ns = read_ns(CLOCK_REALTIME);
	return err;
}

/*
 * One ISB per (interface, hook) for the file being closed: what its hook
 * saw, dropped and let through while this file was the output, and the
 * packets in this file. The counters then start over for the next file.
 */
static int write_isbs(struct ps_capture *cap)
{
	uint64_t end_ns = read_ns(CLOCK_REALTIME);
	int err = 0;

	for (int t = 0; t < cap->n_targets && !err; t++) {
		struct ps_target *tg = &cap->targets[t];
		uint64_t written = pcapng_writer_packets(cap->w, (int)tg->if_id);
		struct ps_counters now, c;
		char line[320], comment[360];
		int rerr = ps_loader_read_counter(&cap->loader, tg->ifindex, tg->hook, &now);

		if (rerr) {
			pr_warn("cannot read the counters of %s %s: %s\n", tg->ifname,
				ps_hook_name(tg->hook), strerror(-rerr));
			continue;
		}
		ps_counters_sub(&c, &now, &cap->file_base[t]);
		cap->file_base[t] = now;
		ps_report_stages(line, sizeof(line), &c, written);
		snprintf(comment, sizeof(comment), "%s%s",
			 cap->gone[slot_of(cap, tg->ifindex)] ? "interface disappeared; " : "", line);
		err = pcapng_write_isb(cap->w, &(struct pcapng_isb){
			.if_id = tg->if_id, .ts_ns = end_ns,
			.start_ns = cap->file_start_ns, .end_ns = end_ns,
			.if_recv = c.seen, .if_drop = c.output_errors,
			.has_filter_accept = cap->filter || ps_sampling_active(&cap->smp),
			.filter_accept = c.seen - c.filtered,
			.usr_deliv = written,
			.comment = comment,
		});
	}
	return err;
}

/* Packets of target t (or of all, t < 0) in every file so far. */
static uint64_t written_total(const struct ps_capture *cap, int t)
{
	uint64_t n = 0;

	if (!cap->o->output) { /* printing only: what was printed */
		for (int i = 0; i < cap->n_targets; i++)
			if (t < 0 || i == t)
				n += cap->targets[i].written;
		return n;
	}
	for (int i = 0; i < cap->n_targets; i++)
		if (t < 0 || i == t)
			n += cap->closed_written[i] + (cap->w ?
			     pcapng_writer_packets(cap->w, (int)cap->targets[i].if_id) : 0);
	return n;
}

/*
 * Close the current file (its ISBs, then -z on it) and go on in the next,
 * which the rotation state already names. Packets still held by the merge
 * go to the new file: none is lost or written twice.
 */
static int rotate_file(struct ps_capture *cap)
{
	char closed[PATH_MAX];
	int err;

	/* Flushed first: the ISBs count the packets that are in the file. */
	err = pcapng_flush(cap->w);
	if (!err)
		err = write_isbs(cap);
	if (!err)
		err = pcapng_flush(cap->w);
	if (err) {
		pr_err("cannot write %s: %s\n", cap->out.path, pcapng_strerror(err));
		return err;
	}
	for (int t = 0; t < cap->n_targets; t++)
		cap->closed_written[t] += pcapng_writer_packets(cap->w, (int)cap->targets[t].if_id);
	pcapng_writer_free(cap->w);
	cap->w = cap->col->w = NULL;
	ps_output_close(&cap->out);
	snprintf(closed, sizeof(closed), "%s", cap->path);
	if (cap->o->postrotate_cmd)
		ps_rotate_run_cmd(cap->o->postrotate_cmd, closed);

	err = ps_rotate_name(&cap->rot, time(NULL), cap->path, sizeof(cap->path));
	if (err) {
		pr_err("cannot name the file after %s: %s\n", closed, strerror(-err));
		return err;
	}
	/* Opened as the first file was; emptied at once (a ring reuses names). */
	err = ps_output_open(&cap->out, cap->path);
	if (!err)
		err = ps_output_start(&cap->out);
	if (!err)
		err = open_writer(cap);
	if (err)
		return err;
	cap->col->w = cap->w;
	pr_info("now writing %s\n", cap->path);
	return write_file_headers(cap);
}

/* -C: called by the collector before a packet goes to a full file. */
static int file_full(void *arg)
{
	struct ps_capture *cap = arg;

	ps_rotate_next_size(&cap->rot);
	return rotate_file(cap);
}

/* sFlow's sample_pool and drops: the kernel's exact counters. */
static int read_counters(void *arg, uint32_t ifindex, unsigned int hook, struct ps_counters *c)
{
	struct ps_capture *cap = arg;

	return ps_loader_read_counter(&cap->loader, ifindex, hook, c);
}

static int open_collector(struct ps_capture *cap)
{
	const struct ps_opts *o = cap->o;
	int err;

	cap->col = calloc(1, sizeof(*cap->col));
	if (!cap->col) {
		pr_err("cannot set up the collector: %s\n", strerror(ENOMEM));
		return -ENOMEM;
	}
	err = o->output ? open_writer(cap) : 0;
	if (err)
		return err;
	err = ps_collector_init(cap->col, cap->w, cap->targets, cap->n_targets,
				cap->loader.ncpus, o->snaplen, o->count);
	if (err)
		return err;
	if (o->sflow.n_collectors) {
		cap->sflow = calloc(1, sizeof(*cap->sflow));
		if (!cap->sflow) {
			pr_err("cannot set up sFlow: %s\n", strerror(ENOMEM));
			return -ENOMEM;
		}
		err = ps_sflowexp_open(cap->sflow, &o->sflow, cap->targets, cap->n_targets);
		if (err)
			return err;
		cap->sflow->read_counters = read_counters;
		cap->sflow->read_arg = cap;
		cap->col->sflow = cap->sflow;
	}
	/* Without -w the packets are printed, unless they go out as sFlow. */
	if ((!o->output && !o->sflow.n_collectors) || o->print) {
		struct ps_print_opts po;

		cap->printer = malloc(sizeof(*cap->printer));
		if (!cap->printer) {
			pr_err("cannot set up the printer: %s\n", strerror(ENOMEM));
			return -ENOMEM;
		}
		ps_cli_print_opts(o, &po);
		if (o->line_buffered)
			setvbuf(stdout, NULL, _IOLBF, 0);
		ps_printer_init(cap->printer, &po, stdout);
		cap->col->printer = cap->printer;
	}
	ps_sampling_tag(&cap->smp, cap->col->tag, sizeof(cap->col->tag));
	cap->col->epb_verdict = o->epb_verdict;
	if (cap->rot.size_limit) {
		cap->col->file_limit = cap->rot.size_limit;
		cap->col->file_full = file_full;
		cap->col->file_arg = cap;
	}
	/* After the load (the maps are the object's), before any attach. */
	if (cap->transport == PS_TRANSPORT_RINGBUF)
		return ps_collector_open_ring(cap->col, ps_loader_ring_fd(&cap->loader),
					      ps_loader_emit_state_fd(&cap->loader),
					      ps_ring_bytes(o->buffer_kib, cap->loader.ncpus,
							    sysconf(_SC_PAGESIZE)));
	return ps_collector_open(cap->col, ps_loader_events_fd(&cap->loader),
				 ps_loader_emit_state_fd(&cap->loader), o->buffer_kib);
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
	ev.data.fd = ps_collector_epoll_fd(cap->col);
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

	if (cap->o->no_promisc)
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
		       "'sysctl kernel.perf_event_paranoid=2'\n", why);
		return -EACCES;
	}
	if (cap->transport != PS_TRANSPORT_PERF)
		return 0;
	if (cap->o->transport_given) {
		pr_err("--transport perf needs perf events: %s; --transport ringbuf needs none, "
		       "or 'sysctl kernel.perf_event_paranoid=2'\n", why);
		return -EACCES;
	}
	cap->transport = PS_TRANSPORT_RINGBUF;
	pr_info("transport: ringbuf, as %s\n", why);
	return 0;
}

int ps_capture_setup(struct ps_capture *cap)
{
	struct ps_iface_list ifaces = { 0 };
	int err;

	if (ps_sampling_active(&cap->smp))
		ps_sampling_describe(&cap->smp, cap->sampling, sizeof(cap->sampling));
	err = choose_transport(cap);
	if (!err)
		err = plan_targets(cap, &ifaces);
	if (!err)
		err = start_guardian(cap);
	if (!err)
		err = load_programs(cap, &ifaces);
	if (!err)
		err = open_collector(cap);
	if (!err)
		err = open_loop(cap);
	if (!err)
		err = attach_all(cap);
	if (!err)
		set_promiscuous(cap);
	if (!err && cap->smp.mode == PS_SAMPLE_CLOCK)
		err = ps_ticker_start(&cap->ticker, ps_loader_prog(&cap->loader, PS_PROG_TICK),
				      cap->smp.interval_ns);
	if (!err && cap->w)
		err = ps_output_start(&cap->out);
	if (!err && cap->w)
		err = write_file_headers(cap);
	if (err == -EINTR)
		pr_err("interrupted during setup\n");
	if (!err) {
		/* -G's timer runs from here, not from the first packet. */
		cap->rot.next_ns = read_ns(CLOCK_MONOTONIC) + cap->rot.interval_ns;
		ps_report_start(cap->ifaces, cap->n_ifaces, cap->if_hooks,
				cap->o->snaplen, cap->att.xdp_single_prog, cap->sampling);
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
								  .gone = st == -ENODEV, .up = st == 1 };
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
	return cap->o->extcap.req == PS_EXTCAP_CAPTURE &&
	       (err == -EPIPE || (cap->stop->requested &&
				  (err == -ETIMEDOUT || err == -EAGAIN || err == -EINTR)));
}

/* A write error ends the capture: one line, unless the reader left. */
static int write_failed(const struct ps_capture *cap, int err)
{
	if (reader_left(cap, err))
		return 0;
	pr_err("cannot write %s: %s\n", cap->out.path, pcapng_strerror(err));
	return err;
}

/*
 * The printed lines could not be written. A reader that left (| head) or,
 * after a stop, one that takes nothing more, ends the capture as tcpdump's
 * does, without an error; anything else is one line and exit 1.
 */
static int print_failed(struct ps_capture *cap)
{
	int err = cap->col->print_error;

	if (err == -EPIPE || (cap->stop->requested && (err == -EAGAIN || err == -EINTR)))
		return 0;
	pr_err("cannot print to stdout: %s\n", strerror(-err));
	return err;
}

int ps_capture_loop(struct ps_capture *cap)
{
	/* Monotonic: a wall-clock step must not stretch or cut the capture. */
	uint64_t deadline = cap->o->duration_ms ?
		read_ns(CLOCK_MONOTONIC) + cap->o->duration_ms * 1000000ull : 0;
	uint64_t period = cap->o->stats_ms * 1000000ull, last = read_ns(CLOCK_MONOTONIC), now;
	uint64_t prev_written = 0;
	int err = 0;

	while (!cap->stop->requested && !cap->col->done) {
		struct epoll_event ev[4];
		int n = epoll_wait(cap->loop_fd, ev, 4, POLL_MS);

		for (int i = 0; i < n; i++)
			if (ev[i].data.fd == cap->link_fd)
				read_link_events(cap);
		err = ps_collector_poll(cap->col, 0);
		if (err) {
			if (cap->col->error)
				err = write_failed(cap, err);
			else if (cap->col->print_error)
				err = print_failed(cap);
			else
				pr_err("reading the perf buffers failed: %s\n", strerror(-err));
			break;
		}
		if (cap->all_gone)
			break;
		now = read_ns(CLOCK_MONOTONIC);
		switch (ps_rotate_time_due(&cap->rot, now)) {
		case 1:
			err = rotate_file(cap);
			break;
		case -1:
			pr_warn("maximum file limit reached: %u\n", cap->rot.max_files);
			return 0;
		}
		if (err)
			break;
		if (period && now - last >= period) {
			/* Written: in the files, as the summary and the ISBs count. */
			uint64_t written = written_total(cap, -1);
			struct ps_counters c;
			char line[298]; /* room for sFlow's part and the newline */

			sum_counters(cap, &c);
			ps_report_stats(line, sizeof(line) - 40, &c, written, prev_written,
					now - last, &cap->smp);
			if (cap->sflow)
				snprintf(line + strlen(line), 40, " sflow sent %llu failed %llu",
					 (unsigned long long)cap->sflow->sent,
					 (unsigned long long)cap->sflow->send_errors);
			strcat(line, "\n");
			ps_log_text(line);
			prev_written = written;
			last = now;
		}
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
		.written = 0, .filter = cap->filter != NULL, .smp = &cap->smp,
		.transport = cap->transport,
	};
	char text[512], *sflow_line = NULL;
	int err = loop_err, detach_err;

	detach_err = ps_detach_all(&cap->att);
	if (cap->smp.mode == PS_SAMPLE_CLOCK)
		report_clock(cap);
	ps_ticker_stop(&cap->ticker);
	if (!cap->stop->abort && !err && !cap->col->print_error) {
		err = ps_collector_drain(cap->col);
		if (err && cap->col->print_error && !cap->col->error)
			err = print_failed(cap);
		else if (err)
			err = write_failed(cap, err);
	}
	if (!err && cap->w && !pcapng_writer_error(cap->w)) {
		err = write_isbs(cap);
		if (!err)
			err = pcapng_flush(cap->w);
		if (err)
			err = write_failed(cap, err);
	}
	if (cap->sflow) {
		char line[200];

		ps_sflowexp_close(cap->sflow, true);
		snprintf(line, sizeof(line),
			 "%llu sFlow samples in %llu datagrams: %llu sent, %llu failed\n",
			 (unsigned long long)cap->sflow->samples,
			 (unsigned long long)cap->sflow->datagrams,
			 (unsigned long long)cap->sflow->sent,
			 (unsigned long long)cap->sflow->send_errors);
		sflow_line = strdup(line);
	}
	report_stages(cap, &sum.all);
	if (cap->o->postrotate_cmd && !err)
		ps_rotate_run_cmd(cap->o->postrotate_cmd, cap->path);

	if (cap->col->malformed || cap->col->unknown)
		pr_warn("%llu malformed and %llu unexpected samples ignored\n",
			(unsigned long long)cap->col->malformed,
			(unsigned long long)cap->col->unknown);
	if (cap->col->forced)
		pr_warn("%llu packets written before their place in time was certain "
			"(the reorder memory was full); the file may be out of order\n",
			(unsigned long long)cap->col->forced);
	pr_info("merge: %llu rounds, at most %llu KiB held, %llu packets out of order\n",
		(unsigned long long)cap->col->rounds,
		(unsigned long long)cap->col->order.peak_held >> 10,
		(unsigned long long)cap->col->order.late);
	if (cap->transport == PS_TRANSPORT_RINGBUF)
		pr_info("ring buffer: %llu sequence gaps\n",
			(unsigned long long)cap->col->seq_gaps);
	else
		pr_info("perf buffer: %llu lost records reported, %llu sequence gaps\n",
			(unsigned long long)ps_collector_lost_total(cap->col),
			(unsigned long long)cap->col->seq_gaps);
	/* Only what is whole in the files counts as captured. */
	sum.written = written_total(cap, -1);
	if (cap->o->output && (!cap->w || pcapng_writer_error(cap->w))) {
		sum.write_error = true;
		sum.lost_to_write = sum.all.emitted > sum.written ? sum.all.emitted - sum.written : 0;
	}
	ps_report_summary(text, sizeof(text), &sum);
	ps_log_text(text);
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
	if (cap->col)
		ps_collector_free(cap->col);
	free(cap->col);
	cap->col = NULL;
	if (cap->w)
		pcapng_writer_free(cap->w);
	cap->w = NULL;
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
	ps_output_close(&cap->out);
	if (cap->link_fd >= 0)
		close(cap->link_fd);
	if (cap->loop_fd >= 0)
		close(cap->loop_fd);
	if (cap->promisc_fd >= 0)
		close(cap->promisc_fd); /* the memberships go with it */
	cap->link_fd = cap->loop_fd = cap->promisc_fd = -1;
}
