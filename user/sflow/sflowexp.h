/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sFlow export (--sflow): a sink (user/ingest/sink.h) that gets every sample the
 * ingest places;
 * this module turns them into sFlow v5 flow samples (user/sflow/sflow.h), adds a
 * counters sample per interface every --sflow-counters seconds, and sends
 * the datagrams to every ingest with sendmmsg, once per ingest round
 * (and a partly filled datagram at the latest a second after its first
 * sample). A failed send is counted and never stops the capture.
 *
 * Samplers. Each (interface, hook) is its own sampler with exact numbers
 * from the kernel: sample_pool is the packets at that hook that could have
 * been sampled (those the filter let through), counted by one counter all
 * CPUs share, and every sample carries its own place in it (ps_meta.pool):
 * a ingest that divides pool differences by sequence differences (as
 * pmacct's sfacctd does) gets the true rate. drops is the samples that
 * found the buffer full, from the kernel's counter, read once a round. sFlow names a data source by ifIndex alone,
 * so the hooks are told apart by sub-agent: sub-agent 0 is XDP, 1 TC
 * ingress, 2 TC egress (the hook's number, include/pktsample.h); each
 * has its own datagram sequence. The interface counters go with sub-agent 0.
 *
 * Drops. The drop hooks' packets (sub-agents 5 and 6) go out at once as
 * discarded_packet events with the kernel's reason and where it dropped
 * them, as hsflowd's dropmon module sends them; their drops field counts
 * the events of that data source not sent (sampled out, over --max-rate,
 * lost in the buffer).
 */
#ifndef PS_SFLOWEXP_H
#define PS_SFLOWEXP_H

#include <stdint.h>
#include "pktsample.h"
#include "sflow.h"
#include "sink.h"
#include "target.h"

/*
 * Pacing. Finished datagrams wait in a ring and leave in bursts of at most
 * cfg.burst (--sflow-burst) datagrams, a burst every PS_SFLOW_GAP_NS: a
 * flood's hundreds of datagrams reach the collector spread out, which a
 * busy collector with a default socket buffer keeps up with (sent in one
 * burst, most of them were lost there: tests/integration/it_sflow_load.sh).
 * The ring holds PS_SFLOW_RING datagrams, half a second of bursts at the
 * default; a datagram that finds it full is dropped and counted
 * (paced_out).
 */
#define PS_SFLOW_GAP_NS 1000000ull
#define PS_SFLOW_RING 4096

/* Per (interface, hook): the sampler's state. */
struct ps_sflow_sampler {
	uint32_t seq;
	uint32_t counter_seq; /* the interface's counters, in its first target's */
	uint32_t pool, drops;
	uint32_t not_sent; /* drop hooks: events sampled out, over the cap, or lost */
	uint64_t read_round;
	bool started;
	/* The latest sample, held back until the next (or a second). */
	bool holding;
	uint64_t held_ns;
	struct ps_sflow_flow held;
	uint8_t header[PS_SFLOW_HEADER_MAX];
	char user[PS_SFLOW_USER_MAX + 1]; /* held.user points here */
};

struct ps_sflow_exp {
	struct ps_sink sink; /* ps_sflowexp_sink */
	struct ps_sflow_config cfg;
	int fd[PS_SFLOW_MAX_COLLECTORS];
	int nl_fd; /* rtnetlink, for the interface counters */
	uint32_t nl_seq;
	struct ps_sflow_agent agent;
	uint64_t start_ns; /* CLOCK_MONOTONIC: uptime 0 */
	const struct ps_target *targets;
	int n_targets;
	struct ps_sflow_sampler *samplers; /* one per target */
	int room;			   /* samplers' length */
	/* The datagram being filled for each sub-agent (hook). */
	struct ps_sflow_dgram open[PS_HOOK_MAX];
	bool is_open[PS_HOOK_MAX];
	uint64_t opened_ns[PS_HOOK_MAX];
	uint32_t dgram_seq[PS_HOOK_MAX];
	uint64_t next_counters_ns;
	/* Finished datagrams, waiting for their burst (a ring). */
	struct ps_sflow_dgram *ring;
	uint32_t ring_head, n_queued;
	uint64_t next_send_ns; /* the next burst not before this */
	uint64_t round;
	/* The kernel's counters of one (interface, hook). */
	struct ps_counter_src counters;
	/* Accounting: summary and --stats. */
	uint64_t samples, datagrams, sent, send_errors;
	uint64_t refused;   /* port unreachables reported: nothing listened */
	uint64_t paced_out; /* datagrams the ring had no room for */
};

/* Sockets to the collectors (the agent address: --sflow-agent, or the
 * source the kernel picks towards the first one). 0 or -errno, logged. */
int ps_sflowexp_open(struct ps_sflow_exp *x, const struct ps_sflow_config *cfg,
		     const struct ps_target *targets, int n_targets,
		     const struct ps_counter_src *counters);
/*
 * A new configuration (SIGHUP): the collectors, agent address, header
 * bytes, counter interval, burst and rate (the sampling's N) of cfg. Samplers,
 * sequence numbers and uptime go on as they were: a collector sees the
 * same agent continue. 0 (nothing to do, or done), or -errno logged, with
 * the old configuration still in place.
 */
int ps_sflowexp_reconfigure(struct ps_sflow_exp *x, const struct ps_sflow_config *cfg);
/* The capture follows interfaces. end: target t's interface is gone and
 * another takes it over: its last sample goes out. add: target t is a new
 * interface's, and there are n_targets: its sampler starts afresh (its
 * data source is the new ifindex). 0 or -ENOMEM, logged. */
void ps_sflowexp_end_target(struct ps_sflow_exp *x, int t);
int ps_sflowexp_add_target(struct ps_sflow_exp *x, int t, int n_targets);
/* The exporter as a capture's sink (user/ingest/sink.h): packet takes
 * one placed sample (its place in the pool is the sample's ps_meta.pool),
 * round sends the counters when due and what is ready, close is
 * ps_sflowexp_close with flush; sending never fails the capture. */
struct ps_sink *ps_sflowexp_sink(struct ps_sflow_exp *x);
/* Send the burst that is due at monotonic now_ns, if any; and how long
 * until the next one (ms, for the capture's wait), -1 if none waits. */
int ps_sflowexp_tick(struct ps_sflow_exp *x, uint64_t now_ns);
/* When the next burst is due (monotonic ns); 0 if none waits. */
uint64_t ps_sflowexp_next_ns(const struct ps_sflow_exp *x);
/* With flush (the capture ended): the last counters, and everything still
 * open sent (paced: at most PS_SFLOW_RING / burst ms). Then the sockets
 * are closed. */
void ps_sflowexp_close(struct ps_sflow_exp *x, bool flush);

#endif
