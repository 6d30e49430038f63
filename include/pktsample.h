/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The kernel/user ABI of pktsample: everything the BPF programs and
 * user space must agree on. Fixed-width types and explicit padding only, so
 * the layout is the same for clang -target bpf and for the host compiler.
 */
#ifndef PKTSAMPLE_H
#define PKTSAMPLE_H

#include <linux/types.h>

#define PS_META_VERSION 5

/* Where a packet was seen. Also the index into per-hook arrays. */
enum ps_hook {
	PS_HOOK_XDP = 0,
	PS_HOOK_TC_INGRESS = 1,
	PS_HOOK_TC_EGRESS = 2,
	/* Around another program's XDP program (fentry/fexit on it): what it
	 * was given, and what it returned with its verdict. */
	PS_HOOK_XDP_ENTRY = 3,
	PS_HOOK_XDP_EXIT = 4,
	/* Packets the kernel frees as dropped (the kfree_skb tracepoint), with
	 * the drop reason: from the MAC header where the skb has one (drop),
	 * else from the network header (drop-ip, written as raw IP). */
	PS_HOOK_DROP = 5,
	PS_HOOK_DROP_IP = 6,
	PS_HOOK_MAX = 7,
};

/* ps_meta.flags */
#define PS_F_VLAN_OOB (1U << 0) /* skb carries a VLAN tag out of band (TC) */
#define PS_F_CLOCK_FALLBACK \
	(1U << 1) /* clock mode: taken because the CPU's clock missed its tick */
/* Perf transport: a continuation, the packet's bytes from chunk_off on, of
 * the sample this CPU emitted just before (same seq); see PS_PERF_CHUNK. */
#define PS_F_CONT (1U << 2)
/* Context: the socket the skb carries is no TCP or UDP socket over IP (a
 * packet socket, a raw one): a scan of the sockets that exist
 * (user/context/sockscan.c) cannot find its owner, only the socket hook.
 * Set only where the hook found no owner for it. */
#define PS_F_SOCK_NOT_INET (1U << 3)
/* pkt_id is the packet's across the capture's hooks (bpf/path.bpf.h): the
 * id of its first record, which every later record of it carries. */
#define PS_F_PATH (1U << 4)

/*
 * One perf sample is this struct followed by cap_len packet bytes, appended
 * by the kernel (bpf_perf_event_output with BPF_F_CTXLEN_MASK set). The raw
 * sample size the kernel reports is padded up so that the whole record is
 * a multiple of 8 bytes: use cap_len, never the raw size, for the packet.
 */
struct ps_meta {
	__u64 ts_ns;	/* bpf_ktime_get_ns(): CLOCK_MONOTONIC */
	__u64 seq;	/* per-CPU sample sequence: a gap means lost samples */
	__u32 ifindex;	/* interface the hook is attached to */
	__u32 cpu;	/* CPU the program ran on */
	__u32 wire_len; /* full packet length incl. non-linear data */
	__u32 cap_len;	/* packet bytes appended after this struct */
	__s32 verdict;	/* what the program returns: XDP_* or TC_ACT_*; at
			  * xdp-exit the traced program's XDP_*; at xdp-entry
			  * PS_VERDICT_NONE; at drop and drop-ip the kernel's
			  * enum skb_drop_reason */
	/* --sflow: this packet's place among the packets its hook let
	 * through the filter (1, 2, ...; low 32 bits), from one counter all
	 * CPUs share: sFlow's sample_pool, exact for every sample. 0 without
	 * --sflow. */
	__u32 pool;
	__u8 version; /* PS_META_VERSION */
	__u8 hook;    /* enum ps_hook */
	__u8 flags;   /* PS_F_* */
	/* Bytes in front of the IP header that the hook was given and that
	 * are not the packet's: a raw-IP device's tc-ingress on kernels whose
	 * tunnels leave the outer headers there (5.10; tc/ctx_skb.bpf.h).
	 * Counted in cap_len and wire_len; the ingest strips them. */
	__u8 net_off;
	__u16 vlan_tci;	  /* out-of-band tag (host order), if PS_F_VLAN_OOB */
	__u16 vlan_proto; /* out-of-band TPID (network order), if PS_F_VLAN_OOB */
	__u32 chunk_off;  /* PS_F_CONT: where these bytes start in the packet */
	__u16 rx_queue;	  /* XDP/tc-ingress: rx queue; tc-egress: skb queue (the
			   * kernel numbers queues in 16 bits) */
	__u8 ctx;	  /* enum ps_ctx */
	__u8 pad1;
	/* Who the packet belongs to (--context, on by default): the local
	 * socket it was sent from or is for, that socket's cgroup v2, and the
	 * process that made the socket (struct ps_owner). 0 = not known; ctx
	 * says how they were found, or why not. */
	__u64 sock_cookie;
	__u64 cgroup_id;
	__u32 pid; /* the owner's process (tgid, as the host's pid namespace sees it) */
	__u32 tid; /* the thread that sent it, where the hook ran in it; else the
		    * thread that made the socket */
	/* drop, drop-ip: the kernel address the skb was freed from (the
	 * tracepoint's location; user space names it from kallsyms). 0 else. */
	__u64 location;
	/* PS_F_PATH: the packet's id at every hook of the capture, that of
	 * its first record there (CPU << 48 | seq); 0 else. */
	__u64 pkt_id;
};
_Static_assert(sizeof(struct ps_meta) == 96, "ps_meta is kernel/user ABI");

/* A record's packet id (pcapng's epb_packetid): its CPU in the top 16
 * bits, that CPU's sequence below; unique in a capture. */
static inline __u64 ps_packet_id(__u32 cpu, __u64 seq)
{
	return (__u64)cpu << 48 | (seq & 0xffffffffffffull);
}
#define PS_NET_OFF_MAX 0xffu /* ps_meta.net_off's largest */

/* ps_meta.ctx: how the hook found the packet's local socket, or why not. */
enum ps_ctx {
	PS_CTX_OFF = 0,	      /* attribution off (--context off) */
	PS_CTX_SKB = 1,	      /* the socket it was sent from (TC egress) */
	PS_CTX_LOOKUP = 2,    /* the local socket it is for (bpf_sk*_lookup_*) */
	PS_CTX_NO_SOCKET = 3, /* TCP/UDP with no local socket: forwarded, bridged,
			       * or to a port nothing listens on */
	PS_CTX_NOT_L4 = 4,    /* nothing to look up by: not TCP or UDP over IP
			       * (ARP, ICMP, a fragment, IPv6 extension headers) */
	PS_CTX_UNNAMED = 5,   /* a local socket found that has no cookie yet (one a
			       * listener accepted, until it first sends) */
	PS_CTX_SENDER = 6,    /* no local socket: the skb still carries its
			       * sender's, from another namespace of this host
			       * (over a veth): that sender's (TC ingress) */
	PS_CTX_MAX = 7,
};

/*
 * A socket's owner, kept per socket cookie (the owners map): written by
 * the cgroup/sock_create program for sockets made while pktsample runs,
 * and by user space for sockets that existed before (or were accepted,
 * which no creation hook sees). Read by the hooks to fill ps_meta.pid and
 * to filter (--pid, --comm), and by user space for the rest.
 */
#define PS_COMM_LEN 16
struct ps_owner {
	__u32 pid;	 /* tgid */
	__u32 tid;	 /* the thread that made the socket */
	__u64 cgroup_id; /* cgroup v2 id of that thread, then */
	__u32 netns_ino; /* its network namespace (the /proc/PID/ns/net inode) */
	__u32 pad0;
	char comm[PS_COMM_LEN];
};
_Static_assert(sizeof(struct ps_owner) == 40, "ps_owner is kernel/user ABI");

/* The context filter (rodata ctx_filter): which of these must hold. */
#define PS_CTXF_PID (1U << 0)	 /* the owner's pid is ctx_pid */
#define PS_CTXF_COMM (1U << 1)	 /* the owner's comm is ctx_comm */
#define PS_CTXF_CGROUP (1U << 2) /* the socket's cgroup is in the ctx_cgroups map */

/*
 * The drop hook's packets counted by reason, in a per-CPU array indexed by
 * the kernel's enum skb_drop_reason; a reason past the last slot (one of a
 * subsystem's, bits 16 and up) is counted in the last.
 */
#define PS_DROP_REASON_SLOTS 256
/* SKB_DROP_REASON_NOT_SPECIFIED, in every kernel that has the enum: the
 * reason of every drop where kfree_skb has none (before 5.17). */
#define PS_DROP_REASON_NOT_SPECIFIED 2

/* The largest snap length, and the default: tcpdump's. A GSO or BIG TCP
 * super-packet is up to this long (IPv6 BIG TCP: 185,000 at most). */
#define PS_SNAPLEN_MAX 262144u

/*
 * A perf record is a perf_event_header (whose size field is 16 bits), a u32
 * raw size and the raw data, padded to 8 bytes. The largest record is thus
 * 0xfff8 bytes, and the most packet bytes that fit next to ps_meta is
 * PS_PERF_CHUNK. A longer packet's sample (ps_meta with the whole cap_len,
 * and its first PS_PERF_CHUNK bytes, appended by the kernel) is followed
 * on the same CPU by continuations: ps_meta again (same seq, PS_F_CONT,
 * chunk_off) and up to PS_PERF_CONT bytes, copied from the packet through
 * a per-CPU scratch buffer of PS_PERF_CONT_RECORD bytes (a per-CPU map
 * value is at most 32 KiB).
 */
#define PS_PERF_RECORD_MAX 0xfff8u
#define PS_PERF_CHUNK (PS_PERF_RECORD_MAX - 8u - 4u - (unsigned)sizeof(struct ps_meta))
_Static_assert(PS_PERF_CHUNK == 65420, "a perf record's packet bytes follow from ps_meta");
#define PS_PERF_CONT_RECORD 32768u
#define PS_PERF_CONT (PS_PERF_CONT_RECORD - (unsigned)sizeof(struct ps_meta))
#define PS_PERF_CONTS_MAX ((PS_SNAPLEN_MAX - PS_PERF_CHUNK + PS_PERF_CONT - 1) / PS_PERF_CONT)
_Static_assert(PS_PERF_CONTS_MAX == 7, "continuations of the longest packet");

/*
 * The captured interfaces: a hash map (ifaces) from ifindex to this. An
 * interface's slot is its place in the per-CPU counters array and the
 * pools array: entry slot * PS_HOOK_MAX + hook. The loader sizes all three
 * for as many interfaces as the capture may hold at once (--max-ifaces);
 * user space adds an interface as it attaches there and removes it when
 * the interface goes, and a freed slot is used again. Arrays behind the
 * lookup, not per-CPU hashes keyed by ifindex: those were most of what the
 * program costs a packet it does not keep, and one plain hash lookup is
 * cheap (doc/performance.md#the-programs-per-packet).
 */
struct ps_iface {
	__u32 slot;
	__u32 flags; /* PS_IFACE_* */
};
_Static_assert(sizeof(struct ps_iface) == 8, "ps_iface is ABI");
/* No link-layer header: its packets start at IP and meet the filter
 * compiled for raw IP. */
#define PS_IFACE_RAW (1U << 0)

/*
 * Every packet a hook sees ends in exactly one of the last five stages:
 * seen = filtered + sampled_out + rate_limited + emitted + output_errors.
 */
struct ps_counters {
	__u64 seen;	     /* packets the hook ran on */
	__u64 filtered;	     /* did not match the filter expression */
	__u64 sampled_out;   /* matched, not chosen by the sampler */
	__u64 rate_limited;  /* chosen, over the --max-rate budget */
	__u64 emitted;	     /* samples handed to the perf buffer */
	__u64 output_errors; /* bpf_perf_event_output failed (buffer full) */
};
_Static_assert(sizeof(struct ps_counters) == 48, "ps_counters is ABI");

/*
 * Per-CPU emit state (a PERCPU_ARRAY of one entry). seq numbers the samples
 * a CPU emits: a gap means lost samples. in_flight is non-zero from just
 * before a sample's timestamp is taken until its output call has returned:
 * the ingest reads it to know which CPUs may still deliver a sample
 * stamped before a given time (user/ingest/order.h explains the reasoning).
 */
struct ps_emit_state {
	__u64 seq;
	__u64 in_flight;
};
_Static_assert(sizeof(struct ps_emit_state) == 16, "ps_emit_state is ABI");

/* How samples leave the kernel (--transport). */
enum ps_transport {
	PS_TRANSPORT_PERF = 0,	  /* bpf_perf_event_output, payload appended */
	PS_TRANSPORT_RINGBUF = 1, /* bpf_ringbuf_reserve + load_bytes */
};

/* How packets are chosen, after the filter (rodata sample_mode). */
enum ps_sample_mode {
	PS_SAMPLE_ALL = 0,    /* every matching packet */
	PS_SAMPLE_RANDOM = 1, /* each with probability 1/N */
	PS_SAMPLE_COUNT = 2,  /* every Nth per CPU */
	PS_SAMPLE_FLOW = 3,   /* all packets of 1 in N flows (symmetric 5-tuple hash) */
	PS_SAMPLE_CLOCK = 4,  /* the first packet after each clock tick, per CPU */
};

/*
 * Per-CPU sampler state (a PERCPU_ARRAY of one entry, shared by the hook
 * programs and the clock tick program).
 */
struct ps_sampler {
	__u64 count;	    /* count mode: packets since the last one chosen */
	__u64 credit_ns;    /* rate cap: token bucket credit, in ns */
	__u64 refill_ns;    /* rate cap: when credit was last added */
	__u64 armed;	    /* clock mode: a tick is waiting for a packet */
	__u64 ticks;	    /* clock mode: ticks seen on this CPU */
	__u64 last_tick_ns; /* clock mode: bpf_ktime_get_ns() of the last tick */
	__u64 enabled_ns;   /* clock mode: the perf event's enabled time ... */
	__u64 running_ns;   /* ... and running time, at the last tick */
	/* Clock mode's schedule. A tick at least half an interval after the
	 * last sampled slot arms a sample and becomes the slot; a CPU whose
	 * clock does not tick on time has a packet 1.5 intervals after the
	 * slot taken instead, and the slot moves on by one interval. */
	__u64 slot_ns;	      /* the time the last sample stands for */
	__u64 fallback_at_ns; /* when the last fallback sample was taken */
	__u64 fallbacks;      /* samples taken by the fallback */
	__u64 rng;	      /* random mode: xorshift64* state (0: not seeded yet) */
};
_Static_assert(sizeof(struct ps_sampler) == 96, "ps_sampler is ABI");

/*
 * ELF sections of the hook programs. Not libbpf's "xdp"/"tc": user space
 * registers its own load handlers for these names, to splice the filter in
 * (user/filter/splice.h), and libxdp's own "xdp" programs must not meet them.
 */
#define PS_SEC_XDP "pktsample/xdp"
#define PS_SEC_TC "pktsample/tc"
/* fentry and fexit on another XDP program, its target set at load. */
#define PS_SEC_XDP_ENTRY "pktsample/xdp_entry"
#define PS_SEC_XDP_EXIT "pktsample/xdp_exit"
/* The drop hook: a raw tracepoint program on kfree_skb. */
#define PS_SEC_DROP "pktsample/drop"
/* The socket-owner program (user space attaches it to the cgroup v2 root). */
#define PS_SEC_SOCK_CREATE "cgroup/sock_create"

/*
 * The filter's vlan argument at TC when the skb holds its tag out of band:
 * bit 32 set, TPID (host order) in bits 16-31, TCI in bits 0-15. 0 = none.
 */
#define PS_FILTER_VLAN_PRESENT (1ULL << 32)

/* Return codes the hooks use: observe, never change the packet's fate. */
#define PS_XDP_VERDICT 2   /* XDP_PASS */
#define PS_TC_VERDICT (-1) /* TC_ACT_UNSPEC == TCX_NEXT: run what follows */
/* xdp-entry: no verdict yet (the traced program has not run). */
#define PS_VERDICT_NONE (-1)

#endif /* PKTSAMPLE_H */
