// SPDX-License-Identifier: GPL-2.0-only
/*
 * The capture's run loop (user/util/runloop.h): what it waits on and runs,
 * in this order each round: the link watch, a retry where room was freed,
 * the buffers (a round of the ingest), sFlow's bursts, rotation, the
 * flight recorder's clock and SIGUSR2, --top, --stats,
 * --metrics, --duration, and a reload asked by SIGHUP. See capture_int.h.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include "capture_int.h"
#include "clock.h"
#include "log.h"
#include "sflowexp.h"

/* The longest the loop sleeps: a quiet CPU's packets wait at most this. */
#define IDLE_MS 100
/* A source's "the loop ends, and the capture with it, without an error". */
#define END 2
_Static_assert(END != PS_CAPTURE_RELOAD, "the loop's two endings");

static int run_link(void *arg, uint64_t now)
{
	struct ps_capture *cap = arg;

	(void)now;
	cap_read_link_events(&cap->ifaces, cap->run.link_fd);
	return 0;
}

/* Room again for one refused for the lack of it: look once more. */
static int run_retry(void *arg, uint64_t now)
{
	(void)now;
	cap_retry(arg);
	return 0;
}

/* A round of the ingest; an output's error, -c, or no interface left end
 * the capture. */
static int run_ingest(void *arg, uint64_t now)
{
	struct ps_capture *cap = arg;
	int err = ps_ingest_poll(cap->out.in, 0);

	(void)now;
	if (err && ps_ingest_error(cap->out.in, NULL)) {
		err = cap_output_failed(&cap->out, err, cap->stop->requested);
		return err ? err : END;
	}
	if (err) {
		pr_err("reading the perf buffers failed: %s\n", strerror(-err));
		return err;
	}
	return ps_ingest_done(cap->out.in) || cap_all_gone(&cap->ifaces) ? END : 0;
}

/* While the merge holds packets it cannot place yet: PS_INGEST_HOLD_MS, not the idle
 * wait (user/ingest/ingest.h, ps_ingest_wait_ms). */
static uint64_t ingest_due(void *arg, uint64_t now)
{
	const struct ps_capture *cap = arg;
	int ms = ps_ingest_wait_ms(cap->out.in, IDLE_MS);

	return ms < IDLE_MS ? now + (uint64_t)ms * 1000000ull : 0;
}

static int run_sflow(void *arg, uint64_t now)
{
	ps_sflowexp_tick(arg, now);
	return 0;
}

static uint64_t sflow_due(void *arg, uint64_t now)
{
	(void)now;
	return ps_sflowexp_next_ns(arg);
}

/* -G: rotated if due; -W's last file complete ends the capture. */
static int run_file(void *arg, uint64_t now)
{
	int err = ps_capfile_tick(arg, now);

	return err == 1 ? END : err;
}

/* What the merge may still hold of an incident's last packets when the
 * clock is past it: a quiet link's incident ends this much later. */
#define FLIGHT_HOLD_NS 1000000000ull

/* The packets' own clock at monotonic mono_ns (user/ingest/clock.h: the
 * offset to the wall clock taken once, at the start), so that a step of
 * the wall clock neither cuts an incident short nor lets the window go. */
static uint64_t packet_time(const struct ps_cap_out *o, uint64_t mono_ns)
{
	return ps_clock_to_realtime(&o->in->clock, mono_ns);
}

/* --flight: SIGUSR2's incident, old packets let go, an incident over
 * written; --incidents reached ends the capture. */
static int run_flight(void *arg, uint64_t now)
{
	struct ps_capture *cap = arg;
	int err;

	if (cap->stop->trigger) {
		cap->stop->trigger = 0;
		ps_flight_trigger_now(cap->out.flight, packet_time(&cap->out, now));
	}
	err = ps_flight_tick(cap->out.flight, packet_time(&cap->out, now), FLIGHT_HOLD_NS);
	if (err < 0) {
		err = cap_write_failed(&cap->out, err, cap->stop->requested);
		return err ? err : END;
	}
	return err ? END : 0;
}

/* The end of an incident under way, on the loop's (monotonic) clock. */
static uint64_t flight_due(void *arg, uint64_t now)
{
	const struct ps_capture *cap = arg;
	const struct ps_cap_out *o = &cap->out;
	uint64_t due = ps_flight_due_ns(o->flight, FLIGHT_HOLD_NS), t = packet_time(o, now);

	if (!due)
		return 0;
	return now + (due > t ? due - t : 0);
}

static int run_stats(void *arg, uint64_t now)
{
	struct ps_capture *cap = arg;

	cap_stats_line(&cap->stats, &cap->out, &cap->kern, &cap->smp, now);
	return 0;
}

static uint64_t stats_due(void *arg, uint64_t now)
{
	const struct ps_capture *cap = arg;

	(void)now;
	return cap->cfg.stats_ms ? cap->stats.stats_at_ns + cap->cfg.stats_ms * 1000000ull : 0;
}

/* Once a second: a new text, and the requests past their deadline cut. */
static int run_metrics(void *arg, uint64_t now)
{
	struct ps_capture *cap = arg;

	cap_serve_metrics(&cap->stats, &cap->out, &cap->kern, now);
	return 0;
}

/* Once a second, while it serves (a reload may start or stop it). */
static uint64_t metrics_due(void *arg, uint64_t now)
{
	const struct ps_cap_stats *st = &((const struct ps_capture *)arg)->stats;

	(void)now;
	return st->metrics->fd >= 0 ? st->metrics_at_ns + 1000000000ull : 0;
}

/* --top: its keys and its interval. q ends the capture as -c would; a
 * terminal gone or a table unwritable, as the printed lines' would. */
static int run_top(void *arg, uint64_t now)
{
	int err = ps_topview_run(arg, now);

	if (err == 1)
		return END;
	if (err == -EPIPE || err == -EIO)
		return END;
	if (err)
		pr_err("cannot show --top: %s\n", strerror(-err));
	return err;
}

static uint64_t top_due(void *arg, uint64_t now)
{
	(void)now;
	return ps_topview_due(arg);
}

static int run_deadline(void *arg, uint64_t now)
{
	(void)arg, (void)now;
	return END;
}

static uint64_t deadline_due(void *arg, uint64_t now)
{
	const struct ps_cap_run *r = arg;

	(void)now;
	return r->deadline_ns;
}

static int run_follow(void *arg, uint64_t now)
{
	(void)now;
	return ps_context_follow(arg);
}

static int run_reload(void *arg, uint64_t now)
{
	struct ps_stop *stop = arg;

	(void)now;
	if (!stop->reload)
		return 0;
	stop->reload = 0;
	return PS_CAPTURE_RELOAD;
}

/* What the loop runs, in this order each round; each source is handed
 * the part it runs, or the capture where it runs several. */
static int add_sources(struct ps_capture *cap)
{
	struct ps_cap_out *o = &cap->out;
	const struct ps_run_src src[] = {
		{ cap->run.link_fd, false, run_link, NULL, cap },
		/* Before the packets: a container's cgroup joins the filter
		 * before its first packet does. */
		{ ps_context_follow_fd(&cap->ctx), false,
		  ps_context_follow_fd(&cap->ctx) >= 0 ? run_follow : NULL, NULL, &cap->ctx },
		{ -1, true, run_retry, NULL, &cap->ifaces },
		{ ps_ingest_epoll_fd(o->in), true, run_ingest, ingest_due, cap },
		{ -1, true, o->sflow ? run_sflow : NULL, sflow_due, o->sflow },
		{ -1, true, o->file ? run_file : NULL, NULL, o->file },
		{ -1, true, o->flight ? run_flight : NULL, flight_due, cap },
		{ o->top ? ps_topview_fd(o->top) : -1, false, o->top ? run_top : NULL, top_due,
		  o->top },
		{ -1, false, run_stats, stats_due, cap },
		{ -1, false, run_metrics, metrics_due, cap },
		{ -1, false, run_deadline, deadline_due, &cap->run },
		{ -1, true, run_reload, NULL, cap->stop },
	};
	int err = 0;

	for (size_t i = 0; !err && i < sizeof(src) / sizeof(src[0]); i++)
		if (src[i].run) /* some only with their option */
			err = ps_runloop_add(&cap->run.loop, &src[i]);
	return err;
}

int cap_open_loop(struct ps_capture *cap)
{
	int err;

	cap->run.link_fd = ps_linkwatch_open();
	err = cap->run.link_fd < 0 ? cap->run.link_fd : ps_runloop_init(&cap->run.loop, IDLE_MS);
	if (!err)
		err = add_sources(cap);
	if (err) {
		pr_err("cannot set up the capture loop: %s\n", strerror(-err));
		return err;
	}
	for (int i = 0; i < cap->ifaces.set.n; i++)
		if (cap->ifaces.ifs[i].ifindex && !cap->ifaces.set.m[i].up)
			pr_warn("interface %s is down; capturing anyway\n",
				cap->ifaces.ifs[i].name);
	return 0;
}

int ps_capture_loop(struct ps_capture *cap)
{
	int ret;

	/* Monotonic: a wall-clock step must not stretch or cut the capture.
	 * Once: a reload comes back here, the clocks running on. */
	if (!cap->run.loop_started) {
		uint64_t now = ps_clock_mono_ns();

		cap->run.loop_started = true;
		cap->run.deadline_ns = cap->cfg.duration_ms ?
					       now + cap->cfg.duration_ms * 1000000ull :
					       0;
	}
	ret = ps_runloop_run(&cap->run.loop, &cap->stop->requested);
	return ret == END ? 0 : ret;
}

void cap_run_init(struct ps_cap_run *r)
{
	r->link_fd = -1;
	r->loop.epoll_fd = -1;
}

void cap_run_free(struct ps_cap_run *r)
{
	if (r->link_fd >= 0)
		close(r->link_fd);
	r->link_fd = -1;
	ps_runloop_free(&r->loop);
}
