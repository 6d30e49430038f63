// SPDX-License-Identifier: GPL-2.0-only
/*
 * pktsample: capture packets at XDP and TC hooks into annotated pcapng.
 * This file wires the modules together; each step logs its own failure.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>
#include <net/if.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>

#include "attach.h"
#include "bpfmaps.h"
#include "cli.h"
#include "clock.h"
#include "collector.h"
#include "filter.h"
#include "log.h"
#include "pcapng.h"
#include "pktsample.h"
#include "sampling.h"
#include "splice.h"
#include "pktsample_tc.skel.h"
#include "pktsample_xdp.skel.h"

#define EXIT_RUNTIME 1
#define EXIT_USAGE 2
#define POLL_MS 100

static volatile int stop_requested;
static volatile int abort_requested;

static void on_signal(int sig)
{
	(void)sig;
	if (stop_requested)
		abort_requested = 1; /* second signal: skip the drain */
	stop_requested = 1;
}

static int install_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal }; /* no SA_RESTART */

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL) ||
	    sigaction(SIGHUP, &sa, NULL))
		return -errno;
	signal(SIGPIPE, SIG_IGN); /* a closed pipe is a write error */
	return 0;
}

static bool have_privileges(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2] = { 0 };

	if (syscall(SYS_capget, &h, d))
		return false;
#define HAS(cap) (d[(cap) / 32].effective & (1u << ((cap) % 32)))
	return HAS(CAP_NET_ADMIN) &&
	       (HAS(CAP_SYS_ADMIN) || (HAS(CAP_BPF) && HAS(CAP_PERFMON)));
#undef HAS
}

static uint64_t read_ns(clockid_t clock)
{
	return (uint64_t)ps_clock_read_ns(clock, NULL);
}

static const char *const hook_descriptions[PS_HOOK_MAX] = {
	[PS_HOOK_XDP] = "xdp ingress",
	[PS_HOOK_TC_INGRESS] = "tc ingress",
	[PS_HOOK_TC_EGRESS] = "tc egress",
};

struct output {
	const char *path;
	int fd;
	bool created; /* we made the file: remove it if setup fails */
};

static int output_open(struct output *out, const char *path)
{
	struct stat st;

	out->path = strcmp(path, "-") ? path : "stdout";
	out->created = false;
	if (!strcmp(path, "-")) {
		if (isatty(STDOUT_FILENO)) {
			pr_err("refusing to write pcapng to a terminal; redirect stdout or use -w FILE\n");
			return -ENOTTY;
		}
		out->fd = STDOUT_FILENO;
		return 0;
	}
	out->created = stat(path, &st) != 0;
	/* No O_TRUNC: an existing file is only emptied once capture starts. */
	out->fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (out->fd < 0) {
		int err = -errno;

		pr_err("cannot write %s: %s\n", path, strerror(-err));
		return err;
	}
	return 0;
}

static int output_start(struct output *out)
{
	struct stat st;

	if (out->fd != STDOUT_FILENO && !fstat(out->fd, &st) &&
	    S_ISREG(st.st_mode) && ftruncate(out->fd, 0)) {
		int err = -errno;

		pr_err("cannot truncate %s: %s\n", out->path, strerror(-err));
		return err;
	}
	out->created = false;
	return 0;
}

static void output_close(struct output *out)
{
	if (out->fd > STDOUT_FILENO) {
		close(out->fd);
		if (out->created)
			unlink(out->path);
	}
	out->fd = -1;
}

struct capture {
	const struct ps_opts *o;
	const struct ps_filter *filter; /* NULL: capture everything */
	int ifindex[PS_MAX_IFACES];
	enum ps_xdp_mode xdp_mode[PS_MAX_IFACES]; /* auto resolved per device */
	struct ps_target targets[PS_MAX_IFACES * PS_HOOK_MAX];
	int n_targets;
	struct ps_maps maps;
	struct pktsample_xdp *xdp;
	struct pktsample_tc *tc;
	struct ps_attachments att;
	struct output out;
	struct pcapng_writer *w;
	struct ps_collector *col;
	struct ps_sampling smp;
	uint32_t ring_bytes; /* --transport ringbuf: the ring's size */
	struct ps_ticker ticker; /* clock-driven sampling */
	uint64_t start_ns;
};

static int resolve_ifaces(struct capture *cap)
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
static bool xdp_needs_frags(const struct capture *cap)
{
	for (int i = 0; i < cap->o->n_ifaces; i++)
		if (cap->xdp_mode[i] != PS_XDP_SKB)
			return true;
	return false;
}

static int open_failed(const char *what)
{
	int err = errno ? -errno : -EINVAL; /* before logging can change it */

	pr_err("cannot open the %s BPF object: %s\n", what, strerror(-err));
	return err;
}

static int load_failed(const struct capture *cap, const char *what, int err)
{
	if (cap->filter)
		pr_err("cannot load the %s programs with this filter: %s; the kernel's verifier "
		       "rejected it or it is too complex (-v for the verifier log)\n",
		       what, strerror(-err));
	else
		pr_err("cannot load the %s programs: %s (-v for the verifier log)\n",
		       what, strerror(-err));
	return err;
}

/* Filter knob and splice entry for an opened, not yet loaded object. */
static int prepare_filter(struct capture *cap, struct bpf_object *obj,
			  __u32 *enabled_knob, const struct ps_ebpf *body)
{
	int err;

	if (!cap->filter)
		return 0;
	*enabled_knob = 1;
	err = ps_splice_set(obj, body);
	if (err)
		pr_err("cannot prepare the filter: %s\n", strerror(-err));
	return err;
}

/* Open (and load) the BPF objects the chosen hooks need, sharing our maps. */
static int open_objects(struct capture *cap)
{
	const struct ps_opts *o = cap->o;
	DECLARE_LIBXDP_OPTS(xdp_program_opts, xopts);
	int err;

	if (o->hooks & (1u << PS_HOOK_XDP)) {
		cap->xdp = pktsample_xdp__open();
		if (!cap->xdp)
			return open_failed("XDP");
		cap->xdp->rodata->snaplen = o->snaplen;
		PS_SAMPLING_SET_RODATA(cap->xdp->rodata, &cap->smp);
		PS_MAPS_SET_RODATA(cap->xdp->rodata, &cap->maps);
		cap->xdp->rodata->transport = o->transport;
		/* As with the perf buffers: wake the reader at a quarter full. */
		cap->xdp->rodata->ring_wakeup_bytes = cap->ring_bytes / 4;
		/* One clock program is enough: XDP's, or TC's if no XDP. */
		bpf_program__set_autoload(cap->xdp->progs.pktsample_tick,
					  cap->smp.mode == PS_SAMPLE_CLOCK);
		err = ps_maps_reuse(&cap->maps, cap->xdp->obj);
		if (!err)
			err = prepare_filter(cap, cap->xdp->obj,
					     &cap->xdp->rodata->filter_enabled,
					     cap->filter ? &cap->filter->xdp : NULL);
		if (err)
			return err;
		/* libxdp reads the flag from here too when it attaches. */
		if (!xdp_needs_frags(cap)) {
			pr_info("xdp: loading without multi-buffer support: "
				"every XDP interface is in skb mode\n");
			bpf_program__set_flags(cap->xdp->progs.pktsample_xdp,
					       bpf_program__flags(cap->xdp->progs.pktsample_xdp) &
					       ~BPF_F_XDP_HAS_FRAGS);
		}
		/* Load here, not inside libxdp's attach, so a filter the
		 * verifier refuses is reported as such before any attach. */
		err = pktsample_xdp__load(cap->xdp);
		if (err)
			return load_failed(cap, "XDP", err);
		xopts.obj = cap->xdp->obj;
		xopts.prog_name = "pktsample_xdp";
		cap->att.xdp_prog = xdp_program__create(&xopts);
		err = libxdp_get_error(cap->att.xdp_prog);
		if (err) {
			cap->att.xdp_prog = NULL;
			pr_err("cannot prepare the XDP program: %s\n", strerror(-err));
			return err;
		}
	}
	if (o->hooks & ((1u << PS_HOOK_TC_INGRESS) | (1u << PS_HOOK_TC_EGRESS))) {
		cap->tc = pktsample_tc__open();
		if (!cap->tc)
			return open_failed("TC");
		cap->tc->rodata->snaplen = o->snaplen;
		PS_SAMPLING_SET_RODATA(cap->tc->rodata, &cap->smp);
		PS_MAPS_SET_RODATA(cap->tc->rodata, &cap->maps);
		cap->tc->rodata->transport = o->transport;
		/* As with the perf buffers: wake the reader at a quarter full. */
		cap->tc->rodata->ring_wakeup_bytes = cap->ring_bytes / 4;
		bpf_program__set_autoload(cap->tc->progs.pktsample_tick,
					  cap->smp.mode == PS_SAMPLE_CLOCK && !cap->xdp);
		err = ps_maps_reuse(&cap->maps, cap->tc->obj);
		if (!err)
			err = prepare_filter(cap, cap->tc->obj,
					     &cap->tc->rodata->filter_enabled,
					     cap->filter ? &cap->filter->tc : NULL);
		if (err)
			return err;
		err = pktsample_tc__load(cap->tc);
		if (err)
			return load_failed(cap, "TC", err);
	}
	return 0;
}

static int attach_all(struct capture *cap)
{
	const struct ps_opts *o = cap->o;
	int err;

	for (int t = 0; t < cap->n_targets; t++) {
		struct ps_target *tg = &cap->targets[t];
		int fd, i;

		if (stop_requested)
			return -EINTR;
		if (tg->hook == PS_HOOK_XDP) {
			for (i = 0; cap->ifindex[i] != tg->ifindex; i++)
				;
			err = ps_attach_xdp(&cap->att, tg->ifindex, tg->ifname,
					    cap->xdp_mode[i]);
		} else {
			fd = bpf_program__fd(tg->hook == PS_HOOK_TC_INGRESS ?
						     cap->tc->progs.pktsample_tc_ingress :
						     cap->tc->progs.pktsample_tc_egress);
			err = ps_attach_tc(&cap->att, fd, tg->ifindex, tg->ifname,
					   tg->hook, o->tc_mode);
		}
		if (err)
			return err;
	}
	return 0;
}

static int write_headers(struct capture *cap)
{
	struct utsname u;
	char os[sizeof(u.sysname) + sizeof(u.release) + 2];
	struct pcapng_shb shb = { .userappl = "pktsample " PKTSAMPLE_VERSION };
	char how[200];
	int err;

	if (!uname(&u)) {
		snprintf(os, sizeof(os), "%s %s", u.sysname, u.release);
		shb.os = os;
		shb.hardware = u.machine;
	}
	/* The same sampling description goes into every interface's comment. */
	ps_sampling_describe(&cap->smp, how, sizeof(how));
	err = pcapng_write_shb(cap->w, &shb);
	for (int t = 0; !err && t < cap->n_targets; t++) {
		struct ps_target *tg = &cap->targets[t];
		const struct ps_attachment *att = NULL;
		char comment[320];
		int id;

		for (int i = 0; i < cap->att.n; i++)
			if (cap->att.list[i].ifindex == tg->ifindex &&
			    cap->att.list[i].hook == tg->hook)
				att = &cap->att.list[i];
		snprintf(comment, sizeof(comment), "pktsample %s hook, attached via %s%s%s",
			 ps_hook_name(tg->hook), att ? ps_attach_kind_name(att) : "?",
			 ps_sampling_active(&cap->smp) ? "; " : "",
			 ps_sampling_active(&cap->smp) ? how : "");
		id = pcapng_write_idb(cap->w, &(struct pcapng_idb){
			.linktype = PCAPNG_LINKTYPE_ETHERNET,
			.snaplen = cap->o->snaplen,
			.name = tg->ifname,
			.description = hook_descriptions[tg->hook],
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

/*
 * One ring serves every CPU, so it gets what the per-CPU perf buffers would
 * have together: -B times the CPUs, as a power of two, at most 1 GiB.
 */
static uint32_t ring_bytes(uint32_t buffer_kib)
{
	int ncpus = libbpf_num_possible_cpus();
	uint64_t want = (uint64_t)buffer_kib * 1024 * (ncpus > 0 ? ncpus : 1);
	uint64_t bytes = (uint64_t)sysconf(_SC_PAGESIZE);

	while (bytes < want && bytes < (1ull << 30))
		bytes <<= 1;
	return (uint32_t)bytes;
}

static int setup(struct capture *cap)
{
	const struct ps_opts *o = cap->o;
	int err;

	cap->maps.events_fd = cap->maps.counters_fd = cap->maps.cpu_seq_fd = -1;
	cap->maps.sampler_fd = cap->maps.ring_fd = -1;
	if (o->transport == PS_TRANSPORT_RINGBUF)
		cap->ring_bytes = ring_bytes(o->buffer_kib);
	err = ps_maps_create(&cap->maps, cap->ring_bytes);
	if (err)
		return err;
	for (int i = 0; i < o->n_ifaces; i++) {
		err = ps_maps_add_iface(&cap->maps, cap->ifindex[i]);
		if (err)
			return err;
		for (unsigned int h = 0; h < PS_HOOK_MAX; h++)
			if (o->hooks & (1u << h))
				cap->targets[cap->n_targets++] = (struct ps_target){
					.ifname = o->ifaces[i], .ifindex = cap->ifindex[i],
					.hook = h };
	}

	cap->w = pcapng_writer_new(cap->out.fd, 0);
	cap->col = calloc(1, sizeof(*cap->col));
	if (!cap->w || !cap->col)
		return -ENOMEM;
	pcapng_writer_set_abort(cap->w, &abort_requested);
	err = ps_collector_init(cap->col, cap->w, cap->targets, cap->n_targets,
				cap->maps.ncpus, o->snaplen, o->count);
	if (err)
		return err;
	ps_sampling_tag(&cap->smp, cap->col->tag, sizeof(cap->col->tag));
	/* Buffers first: a sample emitted before they exist would be lost. */
	if (o->transport == PS_TRANSPORT_RINGBUF)
		err = ps_collector_open_ring(cap->col, cap->maps.ring_fd);
	else
		err = ps_collector_open(cap->col, cap->maps.events_fd, o->buffer_kib);
	if (err)
		return err;
	err = open_objects(cap);
	if (err)
		return err;
	err = attach_all(cap);
	if (err)
		return err;
	if (cap->smp.mode == PS_SAMPLE_CLOCK) {
		err = ps_ticker_start(&cap->ticker, cap->xdp ? cap->xdp->progs.pktsample_tick :
							       cap->tc->progs.pktsample_tick,
				      cap->smp.interval_ns);
		if (err)
			return err;
	}
	err = output_start(&cap->out);
	if (err)
		return err;
	return write_headers(cap);
}

static void announce(const struct capture *cap)
{
	char hooks[64] = "";

	for (unsigned int h = 0; h < PS_HOOK_MAX; h++)
		if (cap->o->hooks & (1u << h)) {
			if (*hooks)
				strcat(hooks, ",");
			strcat(hooks, ps_hook_name(h));
		}
	if (cap->att.xdp_single_prog)
		pr_warn("note: libxdp's multi-program dispatcher is not available here; "
			"XDP attached as a single program (no other XDP program can share the interface)\n");
	if (ps_sampling_active(&cap->smp)) {
		char how[200];

		ps_sampling_describe(&cap->smp, how, sizeof(how));
		pr_warn("%s\n", how);
	}
	for (int i = 0; i < cap->o->n_ifaces; i++)
		pr_warn("capturing on %s (%s), snaplen %u\n", cap->o->ifaces[i],
			hooks, cap->o->snaplen);
}

/* Counters summed over every (interface, hook) we attached. */
struct totals {
	struct ps_counters c;
	uint64_t written;
};

static void sum_counters(const struct capture *cap, struct totals *t)
{
	memset(t, 0, sizeof(*t));
	for (int i = 0; i < cap->n_targets; i++) {
		struct ps_counters c;

		if (!ps_maps_read_counter(&cap->maps, cap->targets[i].ifindex,
					  cap->targets[i].hook, &c))
			ps_counters_add(&t->c, &c);
	}
	t->written = cap->col->written;
}

/* --stats: one line per period, and the rate of writes over it. */
static void print_stats(const struct capture *cap, struct totals *prev,
			uint64_t elapsed_ns)
{
	struct totals t;
	uint64_t est;

	sum_counters(cap, &t);
	est = ps_sampling_estimate(&cap->smp, t.c.emitted + t.c.output_errors);
	fprintf(stderr, "stats: seen %llu matched %llu sampled %llu written %llu lost %llu "
			"rate %.0f/s",
		(unsigned long long)t.c.seen,
		(unsigned long long)(t.c.seen - t.c.filtered),
		(unsigned long long)(t.c.emitted + t.c.output_errors),
		(unsigned long long)t.written,
		(unsigned long long)t.c.output_errors,
		elapsed_ns ? (t.written - prev->written) * 1e9 / elapsed_ns : 0.0);
	if (ps_sampling_active(&cap->smp) && est)
		fprintf(stderr, " est-total %llu", (unsigned long long)est);
	fputc('\n', stderr);
	*prev = t;
}

static int capture_loop(struct capture *cap)
{
	/* Monotonic: a wall-clock step must not stretch or cut the capture. */
	uint64_t deadline = cap->o->duration_ms ?
		read_ns(CLOCK_MONOTONIC) + cap->o->duration_ms * 1000000ull : 0;
	uint64_t period = cap->o->stats_ms * 1000000ull, last = read_ns(CLOCK_MONOTONIC), now;
	struct totals prev = { 0 };
	int err = 0;

	while (!stop_requested && !cap->col->done) {
		err = ps_collector_poll(cap->col, POLL_MS);
		if (err) {
			if (cap->col->error)
				pr_err("cannot write %s: %s\n", cap->out.path,
				       strerror(-err));
			else
				pr_err("reading the perf buffers failed: %s\n",
				       strerror(-err));
			break;
		}
		now = read_ns(CLOCK_MONOTONIC);
		if (period && now - last >= period) {
			print_stats(cap, &prev, now - last);
			last = now;
		}
		if (deadline && now >= deadline)
			break;
	}
	return err;
}

/* Detach first so the counters stop moving, then drain, then account. */
/*
 * Clock-driven sampling: which CPUs' clocks ticked, and whether the event
 * ran all the time it was enabled (a multiplexed or stalled clock thins
 * samples; say so rather than let the rate look wrong).
 */
static void report_clock(const struct capture *cap)
{
	struct ps_sampler *per_cpu = calloc(cap->maps.ncpus, sizeof(*per_cpu));

	if (!per_cpu || ps_maps_read_sampler(&cap->maps, per_cpu)) {
		free(per_cpu);
		return;
	}
	for (int i = 0; i < cap->ticker.n; i++) {
		const struct ps_sampler *s = &per_cpu[cap->ticker.cpu[i]];
		double running = s->enabled_ns ? 100.0 * s->running_ns / s->enabled_ns : 0;

		if (running && running < 99.0)
			pr_warn("clock sampling: CPU %d's clock ran %.1f%% of the time it was enabled "
				"(multiplexed)\n", cap->ticker.cpu[i], running);
		if (s->fallbacks)
			pr_warn("clock sampling: CPU %d's clock ticked %llu times, late or not at all "
				"for %llu samples, taken in place of the missed ticks\n",
				cap->ticker.cpu[i], (unsigned long long)s->ticks,
				(unsigned long long)s->fallbacks);
		pr_info("clock sampling: CPU %d: %llu ticks, running %.1f%% of enabled, "
			"%llu fallback samples\n", cap->ticker.cpu[i],
			(unsigned long long)s->ticks, running,
			(unsigned long long)s->fallbacks);
	}
	free(per_cpu);
}

/* Detach first so the counters stop moving, then drain, then account. */
static int finish(struct capture *cap, int loop_err)
{
	struct ps_counters all = { 0 };
	uint64_t end_ns, est;
	int err = loop_err;

	ps_detach_all(&cap->att);
	if (cap->smp.mode == PS_SAMPLE_CLOCK)
		report_clock(cap);
	ps_ticker_stop(&cap->ticker);
	if (!abort_requested && !err)
		err = ps_collector_drain(cap->col);
	end_ns = read_ns(CLOCK_REALTIME);

	for (int t = 0; t < cap->n_targets; t++) {
		struct ps_target *tg = &cap->targets[t];
		struct ps_counters c;
		char line[320];

		if (ps_maps_read_counter(&cap->maps, tg->ifindex, tg->hook, &c))
			continue;
		ps_counters_add(&all, &c);
		/*
		 * Every stage, so a reader can check the sums and scale back:
		 * seen = filtered-out + sampled-out + rate-limited + emitted,
		 * emitted = written + lost (lost: the perf buffer was full).
		 */
		snprintf(line, sizeof(line),
			 "seen=%llu filtered-out=%llu sampled-out=%llu rate-limited=%llu "
			 "emitted=%llu written=%llu lost=%llu",
			 (unsigned long long)c.seen, (unsigned long long)c.filtered,
			 (unsigned long long)c.sampled_out,
			 (unsigned long long)c.rate_limited,
			 (unsigned long long)(c.emitted + c.output_errors),
			 (unsigned long long)tg->written,
			 (unsigned long long)c.output_errors);
		if (!err)
			err = pcapng_write_isb(cap->w, &(struct pcapng_isb){
				.if_id = tg->if_id, .ts_ns = end_ns,
				.start_ns = cap->start_ns, .end_ns = end_ns,
				.if_recv = c.seen, .if_drop = c.output_errors,
				.has_filter_accept = cap->filter || ps_sampling_active(&cap->smp),
				.filter_accept = c.seen - c.filtered,
				.usr_deliv = tg->written,
				.comment = line,
			});
		pr_info("%s %s: %s\n", tg->ifname, ps_hook_name(tg->hook), line);
	}
	if (!err)
		err = pcapng_flush(cap->w);
	if (err && err != loop_err)
		pr_err("cannot write %s: %s\n", cap->out.path, strerror(-err));

	if (cap->col->malformed || cap->col->unknown)
		pr_warn("%llu malformed and %llu unexpected samples ignored\n",
			(unsigned long long)cap->col->malformed,
			(unsigned long long)cap->col->unknown);
	if (cap->o->transport == PS_TRANSPORT_RINGBUF)
		pr_info("ring buffer: %llu sequence gaps\n",
			(unsigned long long)cap->col->seq_gaps);
	else
		pr_info("perf buffer: %llu lost records reported, %llu sequence gaps\n",
			(unsigned long long)ps_collector_lost_total(cap->col),
			(unsigned long long)cap->col->seq_gaps);
	fprintf(stderr, "%llu packets captured\n%llu packets seen by hooks\n",
		(unsigned long long)cap->col->written, (unsigned long long)all.seen);
	if (cap->filter)
		fprintf(stderr, "%llu packets matched the filter\n",
			(unsigned long long)(all.seen - all.filtered));
	if (cap->smp.mode != PS_SAMPLE_ALL)
		fprintf(stderr, "%llu packets sampled out\n",
			(unsigned long long)all.sampled_out);
	if (cap->smp.max_rate)
		fprintf(stderr, "%llu packets over --max-rate\n",
			(unsigned long long)all.rate_limited);
	fprintf(stderr, "%llu packets lost in %s buffer\n",
		(unsigned long long)all.output_errors,
		cap->o->transport == PS_TRANSPORT_RINGBUF ? "ring" : "perf");
	est = ps_sampling_estimate(&cap->smp, all.emitted + all.output_errors);
	if (cap->smp.bpf_mode != PS_SAMPLE_ALL && est)
		fprintf(stderr, "~%llu matching packets estimated from the samples (x%llu)\n",
			(unsigned long long)est, (unsigned long long)cap->smp.n);
	return err;
}

static void teardown(struct capture *cap)
{
	ps_detach_all(&cap->att);
	ps_ticker_stop(&cap->ticker);
	if (cap->col)
		ps_collector_free(cap->col);
	free(cap->col);
	if (cap->w)
		pcapng_writer_free(cap->w);
	xdp_program__close(cap->att.xdp_prog);
	if (cap->xdp)
		ps_splice_forget(cap->xdp->obj);
	if (cap->tc)
		ps_splice_forget(cap->tc->obj);
	pktsample_xdp__destroy(cap->xdp);
	pktsample_tc__destroy(cap->tc);
	ps_maps_close(&cap->maps);
	output_close(&cap->out);
}

static int run(const struct ps_opts *o, const struct ps_filter *filter)
{
	struct capture cap = { .o = o, .filter = filter, .out = { .fd = -1 } };
	int err;

	ps_sampling_from_opts(o, &cap.smp);
	/* A fresh seed per run: which flows are chosen varies between runs. */
	if (getrandom(&cap.smp.seed, sizeof(cap.smp.seed), 0) != sizeof(cap.smp.seed))
		cap.smp.seed = (uint32_t)read_ns(CLOCK_MONOTONIC);

	if (resolve_ifaces(&cap))
		return EXIT_USAGE;
	if (!have_privileges()) {
		pr_err("need root, or CAP_BPF, CAP_PERFMON and CAP_NET_ADMIN, to attach BPF programs\n");
		return EXIT_RUNTIME;
	}
	err = output_open(&cap.out, o->output);
	if (err)
		return err == -ENOTTY ? EXIT_USAGE : EXIT_RUNTIME;
	if (install_signals()) {
		pr_err("cannot install signal handlers: %s\n", strerror(errno));
		output_close(&cap.out);
		return EXIT_RUNTIME;
	}

	err = ps_splice_register();
	if (!err)
		err = setup(&cap);
	if (err) {
		if (err == -EINTR)
			pr_err("interrupted during setup\n");
		teardown(&cap);
		return EXIT_RUNTIME;
	}
	cap.start_ns = read_ns(CLOCK_REALTIME);
	announce(&cap);
	err = finish(&cap, capture_loop(&cap));
	teardown(&cap);
	return err ? EXIT_RUNTIME : 0;
}

/* The filter from the arguments or -F, compiled and translated. */
static int build_filter(const struct ps_opts *o, struct ps_filter *f)
{
	char err[512];
	char *expr;
	int ret;

	if (o->filter_file) {
		ret = ps_filter_read_file(o->filter_file, &expr, err, sizeof(err));
		if (ret) {
			pr_err("%s\n", err);
			return ret;
		}
	} else {
		expr = ps_filter_join(o->filter_words, o->n_filter_words);
		if (!expr)
			return -ENOMEM;
	}
	ret = ps_filter_build(f, expr, o->snaplen, err, sizeof(err));
	if (ret)
		pr_err("%s\n", err);
	return ret;
}

int main(int argc, char **argv)
{
	struct ps_opts o;
	char err[256];

	if (ps_cli_parse(argc, argv, &o, err, sizeof(err))) {
		fprintf(stderr, "pktsample: %s (see --help)\n", err);
		return EXIT_USAGE;
	}
	if (o.help) {
		ps_cli_usage(stdout);
		return 0;
	}
	if (o.version) {
		printf("pktsample %s (libbpf %s, libxdp)\n", PKTSAMPLE_VERSION,
		       libbpf_version_string());
		return 0;
	}
	ps_log_set_verbosity(o.verbosity);
	ps_log_hook_libs();
	if (o.filter_file || o.n_filter_words) {
		struct ps_filter filter = { 0 };
		int ret;

		if (build_filter(&o, &filter)) {
			ps_filter_free(&filter);
			return EXIT_USAGE;
		}
		if (o.dump_filter) {
			ps_filter_dump(stdout, &filter);
			ret = fflush(stdout) ? EXIT_RUNTIME : 0;
		} else {
			ret = run(&o, &filter);
		}
		ps_filter_free(&filter);
		return ret;
	}
	return run(&o, NULL);
}
