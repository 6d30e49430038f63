/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The knobs and maps every pktsample program shares. The programs are
 * compiled one entry file at a time (xdp/, tc/, trace/, cgroup/, perf/) and linked
 * into one object (bpftool gen object); each entry file includes this
 * header, so every definition here is __weak and the linker keeps one.
 * The loader (user/kernel/loader.c) sets the knobs between open and load.
 */
#ifndef PS_MAPS_BPF_H
#define PS_MAPS_BPF_H

#include <stdbool.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "pktsample.h"

/* ---- rodata knobs ---- */
const volatile __u32 snaplen __weak = PS_SNAPLEN_MAX;
const volatile __u32 filter_enabled __weak = 0;		 /* 0: the filter call is dead code */
const volatile __u32 sample_mode __weak = PS_SAMPLE_ALL; /* enum ps_sample_mode */
const volatile __u32 sample_threshold __weak = 0;   /* random, flow: keep if hash < this (2^32/N) */
const volatile __u64 sample_every __weak = 1;	    /* count: keep every Nth */
const volatile __u32 flow_seed __weak = 0;	    /* flow: varies which flows are chosen */
const volatile __u64 sample_interval_ns __weak = 0; /* clock: the tick period */
const volatile __u64 rate_cost_ns __weak = 0;	    /* rate cap: 1e9 / max rate; 0 = no cap */
const volatile __u64 rate_burst_ns __weak = 0;	    /* rate cap: bucket size, in ns of credit */
const volatile __u32 transport __weak = PS_TRANSPORT_PERF; /* enum ps_transport */
/* ringbuf: wake the reader each time this much more is written (a power of two) */
const volatile __u64 ring_wakeup_bytes __weak = 0;
const volatile __u32 pool_enabled __weak = 0; /* --sflow: number the candidates */

/* Who a packet belongs to (bpf/context.bpf.h). */
const volatile __u32 ctx_enabled __weak = 0;	       /* fill ps_meta's context */
const volatile __u32 ctx_task_helpers __weak = 0;      /* TC may call bpf_get_current_pid_tgid() */
const volatile __u32 ctx_filter __weak = 0;	       /* PS_CTXF_* */
const volatile __u32 ctx_pid __weak = 0;	       /* --pid */
const volatile char ctx_comm[PS_COMM_LEN] __weak = {}; /* --comm */

/* The drop hook (trace/pktsample_drop.bpf.c). */
const volatile __u32 drop_netns_ino __weak = 0;		   /* the captured interfaces' netns */
const volatile __u32 drop_skip_reason __weak = 0xffffffff; /* SKB_CONSUMED where it exists */
const volatile __u32 drop_reason_arg __weak = 1;	   /* kfree_skb has the reason (5.17+) */

/* XDP (xdp/ctx_xdp.bpf.h): the kernel has multi-buffer XDP's helpers (5.18+). */
const volatile __u32 xdp_frags __weak = 1;

/* ---- maps ---- */
struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} events SEC(".maps") __weak;

/*
 * --transport ringbuf: a BPF ring buffer per CPU, as the perf buffers are,
 * so CPUs never contend for one ring's lock and each reader thread owns its
 * rings; or, where -B gives a CPU too little, one per group of CPUs, at
 * each of their entries (user/ingest/ingest.h, PS_RING_SHARED_BELOW_KIB).
 * The loader sizes the array (possible CPUs); the ingest makes the rings,
 * each its CPUs' share of -B, and puts them in (user/ingest/source.c). The
 * template's size is no constraint: the kernel matches an inner ring by
 * its type.
 */
struct ps_ring_of_cpu {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct ps_ring_of_cpu);
} rings SEC(".maps") __weak;

/*
 * --transport ringbuf: where a CPU's record is put together before
 * bpf_ringbuf_output() copies it into the ring (bpf/output.bpf.h).
 * Keyed by CPU: a per-CPU map's value holds at most 32 KiB. The loader
 * gives it an entry per possible CPU for the ring transport, and one of 8
 * bytes otherwise (the value's size is the map's, not its BTF type's, so
 * that it may change; the perf transport's programs never reach it). No
 * BTF type for the key either: given a key's type and no value's, 6.18
 * refused the map (EINVAL) and libbpf made it again without BTF, a
 * warning under -v and a second map_create at every start.
 */
struct ps_ring_scratch {
	struct ps_meta meta;
	__u8 data[PS_SNAPLEN_MAX];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct ps_ring_scratch));
} ring_scratch SEC(".maps") __weak;

/* The captured interfaces: ifindex -> slot (include/pktsample.h). The
 * loader sizes it and the two arrays below; user space fills it. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ps_iface);
} ifaces SEC(".maps") __weak;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PS_HOOK_MAX);
	__type(key, __u32);
	__type(value, struct ps_counters);
} counters SEC(".maps") __weak;

/* Per CPU: the next sample's sequence number, and whether one is in flight. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ps_emit_state);
} emit_state SEC(".maps") __weak;

/* The tuple of a TCP or UDP packet over IP, for the socket lookup
 * (bpf/context.bpf.h). */
struct ps_l4 {
	struct bpf_sock_tuple tuple;
	__u32 tuple_len;
	__u8 proto; /* IPPROTO_TCP or IPPROTO_UDP */
};

#define PS_SOCK_COMMON_READ 128 /* bytes of sock_common read: skc_cookie is at 88 on 6.1 to 6.18 */

/*
 * Per CPU: what a program puts together and has no stack for (512 bytes,
 * shared with the spliced filter). The perf transport's record, ps_meta
 * and bytes copied from the packet (a continuation, PS_PERF_CONT; or the
 * drop hook's whole record); before the output, in the record's bytes,
 * the context's socket lookup: its tuple, and the bytes of a socket's
 * sock_common read for its cookie. One program runs at a time on a CPU,
 * and the lookup is over before the output begins.
 */
struct ps_scratch {
	struct ps_meta meta;
	union {
		__u8 data[PS_PERF_CONT];
		struct {
			struct ps_l4 l4;
			__u8 sock[PS_SOCK_COMMON_READ] __attribute__((aligned(8)));
		} lookup;
	};
};
_Static_assert(sizeof(struct ps_scratch) == PS_PERF_CONT_RECORD,
	       "the record, and a per-CPU map's value holds at most 32 KiB");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ps_scratch);
} scratch SEC(".maps") __weak;

/* Per-CPU sampler state, shared by the hooks and the clock tick program. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ps_sampler);
} sampler SEC(".maps") __weak;

/* Socket cookie -> its owner (include/pktsample.h). LRU: sockets come and
 * go without telling; the loader sizes it. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1);
	__type(key, __u64);
	__type(value, struct ps_owner);
} owners SEC(".maps") __weak;

/* --cgroup, --container: the cgroup ids whose sockets are wanted (a
 * directory and those below it, as the capture started). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u64);
	__type(value, __u8);
} ctx_cgroups SEC(".maps") __weak;

/*
 * --sflow: per (interface, hook), the packets that passed the filter, in
 * one counter shared by all CPUs (an atomic add, only when pool_enabled):
 * each sample carries its exact place in it (ps_meta.pool).
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, PS_HOOK_MAX);
	__type(key, __u32);
	__type(value, __u64);
} pools SEC(".maps") __weak;

/* The drop hook's packets by reason (PS_DROP_REASON_SLOTS), counted as
 * seen: before the filter and the sampler. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PS_DROP_REASON_SLOTS);
	__type(key, __u32);
	__type(value, __u64);
} drop_reasons SEC(".maps") __weak;

/* The captured interface ifindex is, or NULL for one we do not capture on. */
static __always_inline const struct ps_iface *ps_iface_of(__u32 ifindex)
{
	return bpf_map_lookup_elem(&ifaces, &ifindex);
}

/* The counter entry of (interface, hook), and whether the interface has no
 * link-layer header: 0 for an interface we do not capture on (NULL). */
static __always_inline int ps_slot_of(const struct ps_iface *i, __u32 hook, __u32 *key, bool *raw)
{
	if (!i)
		return 0;
	*key = i->slot * PS_HOOK_MAX + hook;
	/* drop-ip's packets start at the IP header, whatever the device's
	 * link type. */
	*raw = (i->flags & PS_IFACE_RAW) || hook == PS_HOOK_DROP_IP;
	return 1;
}

#endif /* PS_MAPS_BPF_H */
