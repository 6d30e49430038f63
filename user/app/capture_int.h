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
 * Each part is handed the parts it reads and writes only its own (struct
 * ps_capture: ifaces, kern, out, stats, run). Reading goes down: the
 * programs read the interfaces, the outputs the programs' attachments, the
 * counts the outputs and the kernel's counters; the loop runs them all.
 * Where something goes back up (an interface that comes or goes, the
 * outputs asking for the kernel's counters), capture.c hands callbacks.
 */
#ifndef PS_CAPTURE_INT_H
#define PS_CAPTURE_INT_H

#include "capture.h"
#include "linkwatch.h"

/* cap_ifaces.c */
/* Ready, with what the interfaces are resolved by (cfg's hooks and XDP
 * mode, the filter) and what to tell of each one that comes or goes. */
void cap_ifaces_init(struct ps_cap_ifaces *f, const struct ps_capture_cfg *cfg,
		     struct ps_filter *filter, const struct ps_cap_iface_ops *ops);
/* -i's interfaces (want[0..n)), each one there is resolved and ops'
 * resolved told; following, which, in a line said at the start. 0 or
 * -errno, logged. */
int cap_ifaces_resolve(struct ps_cap_ifaces *f, const char *const *want, int n);
/* The room for interfaces at once (the kernel's maps are sized for as
 * many), from --max-ifaces (max, 0: none) and whether a reload may bring
 * more. 0 or -ENOMEM, logged. */
int cap_ifaces_make_room(struct ps_cap_ifaces *f, int max, bool reloadable);
/* No interface left, and none to come: the capture ends (exit 1). */
bool cap_all_gone(const struct ps_cap_ifaces *f);
/* Every interface there is, as if each had just told us (following: the
 * ones missed while rtnetlink's news were lost, or before it listened). */
void cap_rescan(struct ps_cap_ifaces *f);
/* Where room was freed since one was refused for the lack of it: those
 * refused asked about again. */
void cap_retry(struct ps_cap_ifaces *f);
/* What rtnetlink told on link_fd; if it dropped news, ask about every
 * interface. */
void cap_read_link_events(struct ps_cap_ifaces *f, int link_fd);
/* A reload's interfaces and patterns (want[0..n)), resolved by cfg's
 * hooks and filter: those left out go, those now in come, and those
 * refused before are asked about again. */
void cap_ifaces_reload(struct ps_cap_ifaces *f, const struct ps_capture_cfg *cfg,
		       struct ps_filter *filter);
/* The lines, and those that came meanwhile; from here on one that comes
 * is resolved for what was loaded and attached at once. */
void cap_ifaces_start(struct ps_cap_ifaces *f, const struct ps_hooks_loaded *loaded);
void cap_ifaces_free(struct ps_cap_ifaces *f);

/* cap_programs.c */
void cap_kern_init(struct ps_cap_kern *k, const struct ps_capture_cfg *cfg);
/* Room for the programs' own of n interface slots; 0 or -ENOMEM, logged. */
int cap_kern_make_room(struct ps_cap_kern *k, int n);
/* At the start, interface slot i (ifc) resolved: with xdp-entry or
 * xdp-exit, the XDP program there to trace. 0 or -errno, logged. */
int cap_kern_iface_resolved(struct ps_cap_kern *k, int i, const struct ps_cap_iface *ifc);
/* perf buffers, or the ring where perf events are closed to us. */
int cap_choose_transport(struct ps_cap_kern *k, const struct ps_capture_cfg *cfg,
			 const struct ps_sampling *smp);
/* Where TC may attach through clsact, the guardian (guardian.h). */
int cap_start_guardian(struct ps_cap_kern *k, const struct ps_cap_ifaces *f,
		       enum ps_tc_mode tc_mode);
/* The programs, built from the options, the sampling, the filter and
 * whom packets belong to (knobs). */
int cap_load_programs(struct ps_cap_kern *k, const struct ps_cap_ifaces *f,
		      const struct ps_capture_cfg *cfg, const struct ps_sampling *smp,
		      struct ps_filter *filter, const struct ps_ctx_knobs *knobs);
/* The hooks the programs are loaded for (kern.hooks): every interface's,
 * and following, those of interfaces to come. */
void cap_plan_hooks(struct ps_cap_kern *k, const struct ps_cap_ifaces *f,
		    const struct ps_capture_cfg *cfg);
/* Interface ifc (or every one of f at the start) in the kernel's ifaces
 * map, which the hooks count and capture by: 0, or -E2BIG (said: an error
 * at the start, a warning later) or -errno. */
int cap_add_kernel_iface(struct ps_cap_kern *k, const struct ps_cap_iface *ifc, bool later);
int cap_add_kernel_ifaces(struct ps_cap_kern *k, const struct ps_cap_ifaces *f);
/* Interface slot i (ifindex) went: detached (or gone with it), out of the
 * kernel's map, its last counters into final; its programs and traced
 * program let go. */
void cap_kern_iface_gone(struct ps_cap_kern *k, int i, int ifindex, bool vanished,
			 struct ps_counters final[PS_HOOK_MAX]);
/* Every interface's hooks: XDP lower devices first, tracing, drop, TC
 * (-EINTR once stop is requested). */
int cap_attach_all(struct ps_cap_kern *k, const struct ps_cap_ifaces *f,
		   const struct ps_capture_cfg *cfg, const struct ps_stop *stop);
/* Interface ifc's hooks, as at the start (XDP, then TC): one that came. */
int cap_attach_iface(struct ps_cap_kern *k, const struct ps_cap_iface *ifc,
		     enum ps_tc_position tc_position);
/* Every interface in promiscuous mode (tcpdump's way, unless -p). */
void cap_set_promiscuous(struct ps_cap_kern *k, const struct ps_cap_ifaces *f);
/* A reload's new filter or sampling (smp: with the capture's seed), in
 * place on every hook at once; kern then owns filter. */
int cap_swap_programs(struct ps_cap_kern *k, const struct ps_cap_ifaces *f,
		      const struct ps_capture_cfg *cfg, const struct ps_ctx_knobs *knobs,
		      struct ps_filter *filter, const struct ps_sampling *smp);
/* --hook drop: the reasons' and places' names, before anything is
 * loaded. 0 or -errno, logged. */
int cap_load_drop_names(struct ps_cap_kern *k);
/* --sample-interval's ticker on every CPU (none for another sampling). */
int cap_start_clock(struct ps_cap_kern *k, const struct ps_sampling *smp);
/* Every hook detached, so the counters stop moving: 0 or the first
 * error. */
int cap_detach_all(struct ps_cap_kern *k);
void cap_stop_clock(struct ps_cap_kern *k);
/* Every attachment let go (the guardian leaves), the clock's ticker
 * stopped; again in cap_kern_free. */
void cap_kern_release(struct ps_cap_kern *k);
void cap_kern_free(struct ps_cap_kern *k);

/* cap_outputs.c */
void cap_out_init(struct ps_cap_out *o, const struct ps_capture_cfg *cfg);
/* The (first) output file, of cfg's -w, saying the filter and the
 * sampling; abort: a stop that skips the drain. */
int cap_out_open_file(struct ps_cap_out *o, const struct ps_capture_cfg *cfg,
		      const struct ps_filter *filter, const struct ps_sampling *smp,
		      volatile sig_atomic_t *abort);
/* One target per (interface, hook) of f, with room for its set's room. */
int cap_plan_targets(struct ps_cap_out *o, const struct ps_cap_ifaces *f);
/* Interface ifc's targets, taken (before it is attached); 0 or -E2BIG. */
int cap_take_targets(struct ps_cap_out *o, const struct ps_cap_iface *ifc);
/* What each target's IDB says: the hook, how attached (k), the sampling;
 * around a traced XDP program, which (k, by f's slot). */
void cap_describe_targets(struct ps_cap_out *o, const struct ps_cap_ifaces *f,
			  const struct ps_cap_kern *k);
/* Interface ifindex attached: its targets' IDBs, and sFlow samplers. */
int cap_open_targets(struct ps_cap_out *o, const struct ps_cap_ifaces *f,
		     const struct ps_cap_kern *k, int ifindex);
/* The ingest on k's buffers, its sinks in order (file, printed lines,
 * sFlow, --top); counters: the kernel's exact ones (sFlow's pools). */
int cap_open_ingest(struct ps_cap_out *o, const struct ps_cap_kern *k,
		    const struct ps_capture_cfg *cfg, const struct ps_sampling *smp,
		    const struct ps_counter_src *counters);
/* Whom packets belong to (who) and the drops' names, for the sinks. */
void cap_out_set_context(struct ps_cap_out *o, struct ps_who_table *who,
			 const struct ps_dropnames *drops);
/* The file's headers: a section, an IDB per target (described by f and
 * k); none without -w. */
int cap_out_start_file(struct ps_cap_out *o, const struct ps_cap_ifaces *f,
		       const struct ps_cap_kern *k, const struct ps_counter_src *counters);
/* The end: drained (unless abort, or err, the loop's, or an output failed
 * already), then closed (the last ISBs, sFlow's last datagrams). The
 * first error, said as cap_output_failed says it. */
int cap_out_finish(struct ps_cap_out *o, int err, bool abort, bool stopping);
/* A reload's sFlow settings (its collectors, agent, ...); where a
 * collector cannot be reached, sFlow goes on to those it had (said). */
void cap_out_reload_sflow(struct ps_cap_out *o, const struct ps_sflow_config *cfg);
/* Interface ifindex went: its targets keep its last counters (final), and
 * its file's interfaces say why they end. */
void cap_out_iface_gone(struct ps_cap_out *o, int ifindex,
			const struct ps_counters final[PS_HOOK_MAX]);
/* The sampling's words for the IDBs and each packet (out.sampling,
 * out.tag). */
void cap_out_describe_sampling(struct ps_cap_out *o, const struct ps_sampling *smp);
/* After a reload's new filter or sampling: those words anew, and the
 * file's interfaces anew after the old ones' last statistics. */
int cap_out_renew(struct ps_cap_out *o, const struct ps_cap_ifaces *f, const struct ps_cap_kern *k,
		  const struct ps_filter *filter, const struct ps_sampling *smp);
/* An output's error ended the capture (stopping: a stop was asked): one
 * line, or none where the reader left (as tcpdump's | head); the error to
 * end with, or 0. */
int cap_output_failed(const struct ps_cap_out *o, int err, bool stopping);
/* The file could not be written (err): one line, unless the reader (an
 * extcap's Wireshark) left; 0 then, else err. */
int cap_write_failed(const struct ps_cap_out *o, int err, bool stopping);
void cap_out_free(struct ps_cap_out *o);

/* cap_stats.c */
void cap_stats_init(struct ps_cap_stats *st);
/* The capture's start: its time, the first metrics, --stats' clock. */
void cap_stats_start(struct ps_cap_stats *st, const struct ps_cap_out *o,
		     const struct ps_cap_kern *k, uint64_t now_ns);
/* One --stats line, at monotonic now_ns. */
void cap_stats_line(struct ps_cap_stats *st, const struct ps_cap_out *o,
		    const struct ps_cap_kern *k, const struct ps_sampling *smp, uint64_t now_ns);
/* --metrics' server, where cfg asks for it: its web configuration read,
 * then its port. 0 or -errno, logged. */
int cap_stats_open_metrics(struct ps_cap_stats *st, const struct ps_capture_cfg *cfg);
/* A reload's --metrics (cfg; moved: its address changed), in two steps.
 * What can fail, leaving everything as it was: a new address's server
 * opened in the other slot (its server thread knows it by address) but
 * not yet used, or the web configuration read anew (a renewed
 * certificate is taken); -errno, logged with tail. Then applied (the new
 * slot served, or the running server given the web configuration), or
 * dropped where the reload fails after. */
int cap_stats_reload_prepare(struct ps_cap_stats *st, const struct ps_capture_cfg *cfg, bool moved,
			     const char *tail);
void cap_stats_reload_apply(struct ps_cap_stats *st, const struct ps_capture_cfg *cfg, bool moved);
void cap_stats_reload_drop(struct ps_cap_stats *st);
/* The kernel's counters of (ifindex, hook) as its target has them: the
 * kernel's, or, the interface gone, as they were then. 0 or -errno
 * (-ENOENT: no such target). */
int cap_read_counters(const struct ps_cap_out *o, const struct ps_cap_kern *k, uint32_t ifindex,
		      unsigned int hook, struct ps_counters *c);
/* --metrics, once a second: the text it serves made anew from every
 * counter, and the requests past their deadline cut. */
void cap_serve_metrics(struct ps_cap_stats *st, const struct ps_cap_out *o,
		       const struct ps_cap_kern *k, uint64_t now_ns);
/* --sample-interval's clock, per CPU. */
void cap_report_clock(const struct ps_cap_kern *k);
/* The closing lines: stages (-v), the ingest's, the summary, drops, sFlow
 * (filtered: a filter was given). */
void cap_summary(const struct ps_cap_out *o, const struct ps_cap_kern *k,
		 const struct ps_sampling *smp, bool filtered);
void cap_stats_free(struct ps_cap_stats *st);

/* cap_loop.c: the run loop, the top of the parts (it runs each of them,
 * and so is handed the capture). */
/* The run loop and what it runs (user/util/runloop.h): opened before
 * anything is attached, so an interface that vanishes meanwhile is seen.
 * 0 or -errno, logged. */
int cap_open_loop(struct ps_capture *cap);
void cap_run_init(struct ps_cap_run *r);
void cap_run_free(struct ps_cap_run *r);

#endif
