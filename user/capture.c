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
#include <bpf/libbpf.h>
#include "capture.h"
#include "cli.h"
#include "clock.h"
#include "counters.h"
#include "filter.h"
#include "log.h"
#include "pcapng.h"
#include "report.h"

#define POLL_MS 100

static uint64_t read_ns(clockid_t clock)
{
	return (uint64_t)ps_clock_read_ns(clock, NULL);
}

void ps_capture_init(struct ps_capture *cap, const struct ps_opts *o,
		     const struct ps_filter *filter, struct ps_stop *stop)
{
	memset(cap, 0, sizeof(*cap));
	cap->o = o;
	cap->filter = filter;
	cap->stop = stop;
	cap->out.fd = -1;
	ps_sampling_from_opts(o, &cap->smp);
	/* A fresh seed per run: which flows are chosen varies between runs. */
	if (getrandom(&cap->smp.seed, sizeof(cap->smp.seed), 0) != sizeof(cap->smp.seed))
		cap->smp.seed = (uint32_t)read_ns(CLOCK_MONOTONIC);
}

int ps_capture_resolve(struct ps_capture *cap)
{
	for (int i = 0; i < cap->o->n_ifaces; i++) {
		const char *name = cap->o->ifaces[i];

		cap->ifindex[i] = strlen(name) < IF_NAMESIZE ? if_nametoindex(name) : 0;
		if (!cap->ifindex[i]) {
			pr_err("unknown interface '%s'\n", name);
			return -ENODEV;
		}
		cap->xdp_mode[i] = ps_xdp_resolve_mode(cap->o->xdp_mode, name);
	}
	return 0;
}

/*
 * The XDP program is multi-buffer aware unless every interface gets skb
 * mode: there the generic hook linearizes a non-frags program's packet in
 * place, which is cheaper than the page-pool copy it makes for a frags
 * program (+3% sender rate on a 64 B veth flood, bench/e2e.sh).
 */
static bool xdp_needs_frags(const struct ps_capture *cap)
{
	for (int i = 0; i < cap->o->n_ifaces; i++)
		if (cap->xdp_mode[i] != PS_XDP_SKB)
			return true;
	return false;
}

/* The counter slots and one target per (interface, hook). */
static int plan_targets(struct ps_capture *cap, struct ps_iface_list *ifaces)
{
	const struct ps_opts *o = cap->o;

	for (int i = 0; i < o->n_ifaces; i++) {
		if (ps_iface_list_add(ifaces, cap->ifindex[i])) {
			pr_err("cannot capture on %s: at most %d interfaces\n", o->ifaces[i],
			       PS_MAX_IFACES);
			return -E2BIG;
		}
		for (unsigned int h = 0; h < PS_HOOK_MAX; h++)
			if (o->hooks & PS_HOOK_BIT(h))
				cap->targets[cap->n_targets++] = (struct ps_target){
					.ifname = o->ifaces[i], .ifindex = cap->ifindex[i],
					.hook = h };
	}
	return 0;
}

static int load_programs(struct ps_capture *cap, const struct ps_iface_list *ifaces)
{
	const struct ps_opts *o = cap->o;
	struct ps_load_opts lo = {
		.hooks = o->hooks,
		.snaplen = o->snaplen,
		.ifaces = ifaces,
		.sampling = &cap->smp,
		.filter = cap->filter,
		.transport = o->transport,
		.xdp_frags = xdp_needs_frags(cap),
	};
	int err;

	if (o->transport == PS_TRANSPORT_RINGBUF)
		lo.ring_bytes = ps_ring_bytes(o->buffer_kib, libbpf_num_possible_cpus(),
					      sysconf(_SC_PAGESIZE));
	if ((o->hooks & PS_HOOK_BIT(PS_HOOK_XDP)) && !lo.xdp_frags)
		pr_info("xdp: loading without multi-buffer support: "
			"every XDP interface is in skb mode\n");
	/* Loaded here, not inside libxdp's attach, so a filter the verifier
	 * refuses is reported as such before anything is attached. */
	err = ps_loader_load(&cap->loader, &lo);
	if (err || !(o->hooks & PS_HOOK_BIT(PS_HOOK_XDP)))
		return err;
	return ps_attach_prepare_xdp(&cap->att, ps_loader_object(&cap->loader),
				     bpf_program__name(ps_loader_prog(&cap->loader, PS_PROG_XDP)));
}

static int attach_all(struct ps_capture *cap)
{
	int err;

	for (int t = 0; t < cap->n_targets; t++) {
		const struct ps_target *tg = &cap->targets[t];
		int i;

		if (cap->stop->requested)
			return -EINTR;
		if (tg->hook == PS_HOOK_XDP) {
			for (i = 0; cap->ifindex[i] != tg->ifindex; i++)
				;
			err = ps_attach_xdp(&cap->att, tg->ifindex, tg->ifname,
					    cap->xdp_mode[i]);
		} else {
			err = ps_attach_tc(&cap->att, ps_loader_prog_fd(&cap->loader, tg->hook),
					   tg->ifindex, tg->ifname, tg->hook, cap->o->tc_mode);
		}
		if (err)
			return err;
	}
	return 0;
}

static const char *attached_via(const struct ps_capture *cap, const struct ps_target *tg)
{
	for (int i = 0; i < cap->att.n; i++)
		if (cap->att.list[i].ifindex == tg->ifindex && cap->att.list[i].hook == tg->hook)
			return ps_attach_kind_name(&cap->att.list[i]);
	return "?";
}

static int write_headers(struct ps_capture *cap, const char *sampling)
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
		char comment[320];
		int id;

		ps_report_idb_comment(comment, sizeof(comment), tg->hook,
				      attached_via(cap, tg), sampling);
		id = pcapng_write_idb(cap->w, &(struct pcapng_idb){
			.linktype = PCAPNG_LINKTYPE_ETHERNET,
			.snaplen = cap->o->snaplen,
			.name = tg->ifname,
			.description = ps_hook_description(tg->hook),
			.filter = cap->filter ? cap->filter->expr : NULL,
			.comment = comment,
		});
		if (id < 0)
			err = id;
		else
			tg->if_id = id;
	}
	if (err)
		pr_err("cannot write %s: %s\n", cap->out.path, strerror(-err));
	return err;
}

static int open_collector(struct ps_capture *cap)
{
	const struct ps_opts *o = cap->o;
	int err;

	cap->w = pcapng_writer_new(cap->out.fd, 0);
	cap->col = calloc(1, sizeof(*cap->col));
	if (!cap->w || !cap->col) {
		pr_err("cannot set up the collector: %s\n", strerror(ENOMEM));
		return -ENOMEM;
	}
	pcapng_writer_set_abort(cap->w, &cap->stop->abort);
	err = ps_collector_init(cap->col, cap->w, cap->targets, cap->n_targets,
				cap->loader.ncpus, o->snaplen, o->count);
	if (err)
		return err;
	ps_sampling_tag(&cap->smp, cap->col->tag, sizeof(cap->col->tag));
	cap->col->epb_verdict = o->epb_verdict;
	/* After the load (the maps are the object's), before any attach. */
	if (o->transport == PS_TRANSPORT_RINGBUF)
		return ps_collector_open_ring(cap->col, ps_loader_ring_fd(&cap->loader),
					      ps_loader_emit_state_fd(&cap->loader),
					      ps_ring_bytes(o->buffer_kib, cap->loader.ncpus,
							    sysconf(_SC_PAGESIZE)));
	return ps_collector_open(cap->col, ps_loader_events_fd(&cap->loader),
				 ps_loader_emit_state_fd(&cap->loader), o->buffer_kib);
}

int ps_capture_setup(struct ps_capture *cap)
{
	struct ps_iface_list ifaces = { 0 };
	char sampling[200] = ""; /* the same for every IDB and the start note */
	int err;

	if (ps_sampling_active(&cap->smp))
		ps_sampling_describe(&cap->smp, sampling, sizeof(sampling));
	err = plan_targets(cap, &ifaces);
	if (!err)
		err = load_programs(cap, &ifaces);
	if (!err)
		err = open_collector(cap);
	if (!err)
		err = attach_all(cap);
	if (!err && cap->smp.mode == PS_SAMPLE_CLOCK)
		err = ps_ticker_start(&cap->ticker, ps_loader_prog(&cap->loader, PS_PROG_TICK),
				      cap->smp.interval_ns);
	if (!err)
		err = ps_output_start(&cap->out);
	if (!err)
		err = write_headers(cap, sampling);
	if (err == -EINTR)
		pr_err("interrupted during setup\n");
	if (!err) {
		cap->start_ns = read_ns(CLOCK_REALTIME);
		ps_report_start(cap->o->ifaces, cap->o->n_ifaces, cap->o->hooks,
				cap->o->snaplen, cap->att.xdp_single_prog, sampling);
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

int ps_capture_loop(struct ps_capture *cap)
{
	/* Monotonic: a wall-clock step must not stretch or cut the capture. */
	uint64_t deadline = cap->o->duration_ms ?
		read_ns(CLOCK_MONOTONIC) + cap->o->duration_ms * 1000000ull : 0;
	uint64_t period = cap->o->stats_ms * 1000000ull, last = read_ns(CLOCK_MONOTONIC), now;
	uint64_t prev_written = 0;
	int err = 0;

	while (!cap->stop->requested && !cap->col->done) {
		err = ps_collector_poll(cap->col, POLL_MS);
		if (err) {
			if (cap->col->error)
				pr_err("cannot write %s: %s\n", cap->out.path, strerror(-err));
			else
				pr_err("reading the perf buffers failed: %s\n", strerror(-err));
			break;
		}
		now = read_ns(CLOCK_MONOTONIC);
		if (period && now - last >= period) {
			/* Written: in the file, as the summary and the ISBs count. */
			uint64_t written = pcapng_writer_packets(cap->w, -1);
			struct ps_counters c;
			char line[256];

			sum_counters(cap, &c);
			ps_report_stats(line, sizeof(line), &c, written, prev_written,
					now - last, &cap->smp);
			fprintf(stderr, "%s\n", line);
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

/* One ISB per (interface, hook) with every stage; the same stages with -v. */
static int write_statistics(struct ps_capture *cap, struct ps_counters *all,
			    bool write_isbs)
{
	uint64_t end_ns = read_ns(CLOCK_REALTIME);
	int err = 0;

	memset(all, 0, sizeof(*all));
	for (int t = 0; t < cap->n_targets; t++) {
		struct ps_target *tg = &cap->targets[t];
		struct ps_counters c;
		char line[320];
		int rerr = ps_loader_read_counter(&cap->loader, tg->ifindex, tg->hook, &c);

		if (rerr) {
			pr_warn("cannot read the counters of %s %s: %s\n", tg->ifname,
				ps_hook_name(tg->hook), strerror(-rerr));
			continue;
		}
		ps_counters_add(all, &c);
		/* What reached the file: the drain flushed everything before. */
		ps_report_stages(line, sizeof(line), &c,
				 pcapng_writer_packets(cap->w, (int)tg->if_id));
		if (write_isbs && !err)
			err = pcapng_write_isb(cap->w, &(struct pcapng_isb){
				.if_id = tg->if_id, .ts_ns = end_ns,
				.start_ns = cap->start_ns, .end_ns = end_ns,
				.if_recv = c.seen, .if_drop = c.output_errors,
				.has_filter_accept = cap->filter || ps_sampling_active(&cap->smp),
				.filter_accept = c.seen - c.filtered,
				.usr_deliv = pcapng_writer_packets(cap->w, (int)tg->if_id),
				.comment = line,
			});
		pr_info("%s %s: %s\n", tg->ifname, ps_hook_name(tg->hook), line);
	}
	return err;
}

/* Detach first so the counters stop moving, then drain, then account. */
int ps_capture_finish(struct ps_capture *cap, int loop_err)
{
	struct ps_summary sum = {
		.written = 0, .filter = cap->filter != NULL, .smp = &cap->smp,
		.transport = cap->o->transport,
	};
	char text[512];
	int err = loop_err;

	ps_detach_all(&cap->att);
	if (cap->smp.mode == PS_SAMPLE_CLOCK)
		report_clock(cap);
	ps_ticker_stop(&cap->ticker);
	if (!cap->stop->abort && !err)
		err = ps_collector_drain(cap->col);

	if (!err)
		err = write_statistics(cap, &sum.all, true);
	else
		write_statistics(cap, &sum.all, false);
	if (!err)
		err = pcapng_flush(cap->w);
	if (err && err != loop_err)
		pr_err("cannot write %s: %s\n", cap->out.path, strerror(-err));

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
	if (cap->o->transport == PS_TRANSPORT_RINGBUF)
		pr_info("ring buffer: %llu sequence gaps\n",
			(unsigned long long)cap->col->seq_gaps);
	else
		pr_info("perf buffer: %llu lost records reported, %llu sequence gaps\n",
			(unsigned long long)ps_collector_lost_total(cap->col),
			(unsigned long long)cap->col->seq_gaps);
	/* Only what is whole in the file counts as captured. */
	sum.written = pcapng_writer_packets(cap->w, -1);
	if (pcapng_writer_error(cap->w)) {
		sum.write_error = true;
		sum.lost_to_write = sum.all.emitted > sum.written ? sum.all.emitted - sum.written : 0;
	}
	ps_report_summary(text, sizeof(text), &sum);
	fputs(text, stderr);
	return err;
}

void ps_capture_teardown(struct ps_capture *cap)
{
	ps_attach_release(&cap->att);
	ps_ticker_stop(&cap->ticker);
	if (cap->col)
		ps_collector_free(cap->col);
	free(cap->col);
	cap->col = NULL;
	if (cap->w)
		pcapng_writer_free(cap->w);
	cap->w = NULL;
	ps_loader_close(&cap->loader);
	ps_output_close(&cap->out);
}
