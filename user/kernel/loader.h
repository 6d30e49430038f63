/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The loader: the one place that opens, configures and loads pktsample's
 * BPF object (xdp/, tc/, trace/, cgroup/ and perf/, linked into one object and
 * embedded as a skeleton). The binary, every BPF test and the bench load
 * through it, so they run exactly what ships.
 *
 * Open -> rodata knobs -> map sizes -> programs by autoload -> filter
 * splice -> load. The maps belong to the object; the ingest reads the
 * output map, the report reads the counters through ps_loader_read_*().
 */
#ifndef PS_LOADER_H
#define PS_LOADER_H

#include <stdbool.h>
#include <stdint.h>
#include "counters.h"
#include "ifslots.h"
#include "pktsample.h"

struct bpf_object;
struct bpf_program;
struct pktsample;
struct ps_filter;
struct ps_sampling;

/* The programs of the object. */
enum ps_prog {
	PS_PROG_XDP = PS_HOOK_XDP,
	PS_PROG_TC_INGRESS = PS_HOOK_TC_INGRESS,
	PS_PROG_TC_EGRESS = PS_HOOK_TC_EGRESS,
	PS_PROG_TICK,	   /* clock-driven sampling's tick (perf_event) */
	PS_PROG_XDP_SKB,   /* the XDP hook for generic (skb) mode: no frags */
	PS_PROG_XDP_DEV,   /* native, bound to one device: the driver's VLAN tag */
	PS_PROG_XDP_ENTRY, /* fentry on another XDP program */
	PS_PROG_XDP_EXIT,  /* fexit on it */
	PS_PROG_DROP,	   /* the drop hook: raw tracepoint kfree_skb */
	PS_PROG_MAX,
};

/* Who packets belong to (bpf/context.bpf.h): the knobs. */
struct ps_ctx_knobs {
	bool enabled;	     /* fill ps_meta's context; the rest needs it */
	unsigned int filter; /* PS_CTXF_* */
	uint32_t pid;
	char comm[PS_COMM_LEN];
	const uint64_t *cgroups; /* PS_CTXF_CGROUP: the cgroup ids wanted */
	size_t n_cgroups;
	size_t cgroups_room; /* the map's size, if more (a filter that follows) */
};

/*
 * Sockets whose owner the kernel keeps (an LRU map: older ones go first;
 * the kernel fills all of it at the start). A filter by owner looks at it
 * on every packet, so a socket's owner must stay while its packets come;
 * without one, only until its first packet's owner is put in words (who.h),
 * and a socket whose owner went before is found by a scan.
 */
#define PS_OWNERS_MAX 16384
#define PS_OWNERS_UNFILTERED 4096
/* The packets followed at once (--packet-id path). An entry outlives its
 * packet until the LRU takes it back: room for a flood's last few
 * milliseconds, more than a packet spends in the host. */
#define PS_PATHS_MAX 8192

struct ps_load_opts {
	unsigned int hooks; /* PS_HOOK_BIT() set: the hook programs to load */
	uint32_t snaplen;   /* 0: PS_SNAPLEN_MAX */
	/* How many interfaces may have counters at once (ps_loader_add_iface);
	 * 0: one. */
	uint32_t max_ifaces;
	const struct ps_sampling *sampling; /* NULL: every matching packet */
	const struct ps_filter *filter;	    /* NULL: no filter */
	unsigned int transport;		    /* enum ps_transport */
	uint32_t ring_bytes;		    /* ringbuf: each ring (ps_buffer_plan()) */
	/* With the XDP hook: which XDP programs. xdp_native: PS_PROG_XDP,
	 * multi-buffer aware, for native attach; xdp_skb: PS_PROG_XDP_SKB, for
	 * generic attach, where a multi-buffer program would make the kernel
	 * copy every skb (and lose its MAC header for everyone after XDP). */
	bool xdp_native, xdp_skb;
	/* Non-zero: load PS_PROG_XDP_DEV alone, bound to this device, so that
	 * it reads the VLAN tag the driver stripped (with maps_from: the main
	 * loader's maps), where the kernel has the kfunc (kfeatures.h). */
	uint32_t xdp_dev_ifindex;
	/* Non-NULL: load the xdp-entry and xdp-exit programs o->hooks asks
	 * for, and only those, on the function trace_func of the XDP program
	 * trace_prog_fd (with maps_from: the main loader's maps). */
	const char *trace_func;
	int trace_prog_fd;
	bool sflow_pool; /* --sflow: number the candidates (ps_meta.pool) */
	/* The drop hook: the captured interfaces' network namespace (its
	 * inode), and the reason that is no drop (SKB_CONSUMED) or ~0. */
	uint32_t drop_netns_ino;
	uint32_t drop_skip_reason;
	const struct ps_ctx_knobs *ctx; /* NULL: no attribution */
	/* Give each packet one id at every hook (--packet-id path,
	 * bpf/path.bpf.h). The key is the skb's address, a pointer the
	 * verifier lets a program keep as a number with CAP_PERFMON or
	 * CAP_SYS_ADMIN, which every capture has (ps_have_privileges). */
	bool paths;
	/* NULL: the object makes its own maps. Else share those of a loaded
	 * loader (same output buffers, counters and sampler state): the bench
	 * runs many configurations against one reader. */
	const struct ps_loader *maps_from;
};

struct ps_loader {
	struct pktsample *skel;
	struct ps_ifslots slots;     /* the interfaces with counters */
	int ncpus;		     /* possible CPUs: the per-CPU maps' width */
	struct bpf_link *owner_link; /* the socket-owner program's; NULL */
};

/*
 * Open, configure and load. 0, or -errno with the reason logged (a filter
 * the verifier refuses says so; -v shows the verifier's log). On failure
 * nothing is left to close, but ps_loader_close() is safe all the same.
 */
int ps_loader_load(struct ps_loader *l, const struct ps_load_opts *o);
void ps_loader_close(struct ps_loader *l);

/* A loaded program (NULL / -ENOENT if it was not loaded). */
struct bpf_program *ps_loader_prog(const struct ps_loader *l, enum ps_prog p);
int ps_loader_prog_fd(const struct ps_loader *l, enum ps_prog p);
struct bpf_object *ps_loader_object(const struct ps_loader *l);
int ps_loader_events_fd(const struct ps_loader *l); /* PERF_EVENT_ARRAY */
int ps_loader_rings_fd(const struct ps_loader *l);  /* ARRAY_OF_MAPS: CPU -> RINGBUF */
/* Per-CPU struct ps_emit_state: sequence numbers and in-flight marks. */
int ps_loader_emit_state_fd(const struct ps_loader *l);

/*
 * The interfaces whose packets the hooks count and capture (a loader with
 * its own maps only). add: the slot ifindex gets in the ifaces map (raw: no
 * link-layer header); idempotent; -E2BIG when max_ifaces are there.
 * remove: its last counters into final (PS_HOOK_MAX entries), then the
 * slot is free for another; -ENOENT if it had none. 0 or -errno; the
 * map's failures are logged.
 */
int ps_loader_add_iface(struct ps_loader *l, uint32_t ifindex, bool raw);
int ps_loader_remove_iface(struct ps_loader *l, uint32_t ifindex, struct ps_counters *final);

/* One (interface, hook)'s counters summed over all CPUs; -ENOENT for an
 * interface without counters. */
int ps_loader_read_counter(const struct ps_loader *l, uint32_t ifindex, unsigned int hook,
			   struct ps_counters *sum);
/* The sampler state of every possible CPU (per_cpu has ncpus entries). */
int ps_loader_read_sampler(const struct ps_loader *l, struct ps_sampler *per_cpu);

/* The drop hook's packets by reason, summed over all CPUs: counts has
 * PS_DROP_REASON_SLOTS entries. 0 or -errno. */
int ps_loader_read_drop_reasons(const struct ps_loader *l, uint64_t *counts);

/* The owners map (struct ps_owner per socket cookie), or -ENOENT. */
int ps_loader_owners_fd(const struct ps_loader *l);
/* The cgroup filter's map (ps_ctx_knobs.cgroups), for a filter that
 * follows containers to change. */
int ps_loader_ctx_cgroups_fd(const struct ps_loader *l);
/*
 * Attach the socket-owner program (loaded with o->ctx enabled) to the
 * cgroup v2 root cgroup_root, as a link: it goes when pktsample does,
 * however it ends. 0 or -errno, not logged: whether that ends the capture
 * is the caller's to say.
 */
int ps_loader_attach_owner(struct ps_loader *l, const char *cgroup_root);

#endif
