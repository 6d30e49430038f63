/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The capture's parts, private to user/app/capture.c and its cap_*.c:
 * capture.c keeps the session's steps (init, resolve, setup, loop,
 * reload, finish, teardown) and calls down into
 *   cap_ifaces.c    the interfaces: the subscriber of the interface set
 *                   (ifset.h), and the link watch and listings it replays
 *   cap_programs.c  the programs: loaded, attached, a reload's swapped in
 *   cap_outputs.c   the targets, the ingest and its sinks, one failure policy
 *   cap_stats.c     the counters, --stats, --metrics, the closing summary
 *   cap_loop.c      the run loop: what it waits on, and in which order
 * Interfaces that come later are attached and given outputs through
 * cap_programs.c and cap_outputs.c; nothing calls back up into capture.c.
 */
#ifndef PS_CAPTURE_INT_H
#define PS_CAPTURE_INT_H

#include "capture.h"
#include "linkwatch.h"

/* cap_ifaces.c */
/* No interface left, and none to come: the capture ends (exit 1). */
bool cap_all_gone(const struct ps_capture *cap);
/* Every interface there is, as if each had just told us (following: the
 * ones missed while rtnetlink's news were lost, or before it listened). */
void cap_rescan(struct ps_capture *cap);
/* What rtnetlink told us; if it dropped news, ask about every interface. */
void cap_read_link_events(struct ps_capture *cap);
/* A reload's interfaces and patterns: those left out go, those now in
 * come, and those refused before are asked about again. */
void cap_ifaces_reload(struct ps_capture *cap, const struct ps_capture_cfg *cfg);

/* Each part's state: made ready, started, let go. */
void cap_ifaces_start(struct ps_capture *cap); /* the lines, and those that came */
void cap_ifaces_free(struct ps_cap_ifaces *f);
void cap_kern_init(struct ps_cap_kern *k, const struct ps_capture_cfg *cfg);
/* Every attachment let go (the guardian leaves), the clock's ticker
 * stopped; again in cap_kern_free. */
void cap_kern_release(struct ps_cap_kern *k);
void cap_kern_free(struct ps_capture *cap);
void cap_out_free(struct ps_cap_out *o);
void cap_stats_init(struct ps_cap_stats *st);
/* The capture's start: its time, the first metrics, --stats' clock. */
void cap_stats_start(struct ps_capture *cap, uint64_t now_ns);
void cap_stats_free(struct ps_cap_stats *st);
void cap_run_init(struct ps_cap_run *r);
void cap_run_free(struct ps_cap_run *r);

/* cap_loop.c */
/* The run loop and what it runs (user/util/runloop.h): opened before
 * anything is attached, so an interface that vanishes meanwhile is seen.
 * 0 or -errno, logged. */
int cap_open_loop(struct ps_capture *cap);

/* cap_programs.c */
/* perf buffers, or the ring where perf events are closed to us. */
int cap_choose_transport(struct ps_capture *cap);
/* Where TC may attach through clsact, the guardian (guardian.h). */
int cap_start_guardian(struct ps_capture *cap);
int cap_load_programs(struct ps_capture *cap);
/* The hooks the programs are loaded for (kern.hooks): every interface's,
 * and following, those of interfaces to come. */
void cap_plan_hooks(struct ps_capture *cap);
/* Interface i (or every one at the start) in the kernel's ifaces map, which
 * the hooks count and capture by: 0, or -E2BIG (said: an error at the
 * start, a warning later) or -errno. */
int cap_add_kernel_iface(struct ps_capture *cap, int i, bool later);
int cap_add_kernel_ifaces(struct ps_capture *cap);
/* Interface i went: detached (or gone with it), out of the kernel's map,
 * its last counters into final; its programs and traced program let go. */
void cap_kern_iface_gone(struct ps_capture *cap, int i, bool vanished,
			 struct ps_counters final[PS_HOOK_MAX]);
/* Every interface's hooks: XDP lower devices first, tracing, drop, TC. */
int cap_attach_all(struct ps_capture *cap);
/* Interface i's hooks, as at the start (XDP, then TC): one that came. */
int cap_attach_iface(struct ps_capture *cap, int i);
void cap_set_promiscuous(struct ps_capture *cap);
/* A reload's new filter or sampling (smp: with the capture's seed), in
 * place on every hook at once; the capture then owns filter. */
int cap_swap_programs(struct ps_capture *cap, struct ps_filter *filter,
		      const struct ps_sampling *smp);

/* cap_outputs.c */
/* One target per (interface, hook), with room for max_ifaces. */
int cap_plan_targets(struct ps_capture *cap);
/* Interface i's targets, taken (before it is attached); 0 or -E2BIG. */
int cap_take_targets(struct ps_capture *cap, int i);
/* What each target's IDB says: the hook, how attached, the sampling. */
void cap_describe_targets(struct ps_capture *cap);
void cap_describe_target_idb(struct ps_capture *cap, int t);
/* Interface i attached: its targets' IDBs, and sFlow samplers. */
int cap_open_targets(struct ps_capture *cap, int i);
/* The ingest, its sinks in order (file, printed lines, sFlow), buffers. */
int cap_open_ingest(struct ps_capture *cap);
/* Interface ifindex went: its targets keep its last counters (final), and
 * its file's interfaces say why they end. */
void cap_out_iface_gone(struct ps_capture *cap, int ifindex,
			const struct ps_counters final[PS_HOOK_MAX]);
/* The sampling's words for the IDBs and each packet (out.sampling,
 * out.tag). */
void cap_out_describe_sampling(struct ps_capture *cap);
/* After a reload's new filter or sampling: those words anew, and the
 * file's interfaces anew after the old ones' last statistics. */
int cap_out_renew(struct ps_capture *cap);
/* An output's error ended the capture: one line, or none where the
 * reader left (as tcpdump's | head); the error to end with, or 0. */
int cap_output_failed(struct ps_capture *cap, int err);
/* The file could not be written (err): one line, unless the reader (an
 * extcap's Wireshark) left; 0 then, else err. */
int cap_write_failed(const struct ps_capture *cap, int err);

/* cap_stats.c */
/* One --stats line, at monotonic now_ns. */
void cap_stats_line(struct ps_capture *cap, uint64_t now_ns);
/* --metrics at a reload: the slot a new address opens in (its server
 * thread knows it by address), then served from it. */
struct ps_metrics *cap_stats_spare_metrics(struct ps_cap_stats *st);
void cap_stats_serve_from(struct ps_cap_stats *st, struct ps_metrics *m);
/* The kernel's exact counters, for the outputs (ISBs, sFlow). */
struct ps_counter_src cap_counter_src(struct ps_capture *cap);
/* Target t's counters: the kernel's, or, its interface gone, as they
 * were then. 0 or -errno. */
int cap_target_counters(const struct ps_capture *cap, int t, struct ps_counters *c);
/* Packets of target t (or of all, t < 0) in every file so far; printing
 * only, what was printed. */
uint64_t cap_written_total(const struct ps_capture *cap, int t);
/* The text --metrics serves, made anew from every counter. */
void cap_publish_metrics(struct ps_capture *cap, uint64_t now_ns);
/* One --stats line. */
void cap_print_stats(struct ps_capture *cap, uint64_t written, uint64_t prev_written,
		     uint64_t elapsed_ns);
/* --sample-interval's clock, per CPU. */
void cap_report_clock(const struct ps_capture *cap);
/* The closing lines: stages (-v), the ingest's, the summary, drops, sFlow. */
void cap_summary(struct ps_capture *cap);

#endif
