// SPDX-License-Identifier: GPL-2.0-only
/*
 * Benchmark of a design (issue 65): the capture file's enhanced packet block
 * built whole by the program in a BPF ring, header, bytes, options and
 * trailer, so that user space writes ring memory out as it stands
 * (bench/kblock.c). Only what the kernel knows goes in: the direction, the
 * queue and the packet id, the options pktsample writes for a packet with no
 * owner, so the blocks are byte for byte the size of pktsample's own.
 */
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>

/* pcapng: the enhanced packet block and the options it carries here. */
#define KB_EPB 6
#define KB_EPB_FLAGS 2
#define KB_EPB_QUEUE 6
#define KB_EPB_PACKETID 5
#define KB_FLAGS_INBOUND 1
#define KB_HDR 28
#define KB_OPTS (8 + 8 + 12)
#define KB_SNAP_MAX 256

const volatile __u64 ts_offset; /* CLOCK_REALTIME less CLOCK_MONOTONIC, ns */
const volatile __u32 snaplen = 128;
const volatile __u64 wakeup_bytes = 2u << 20;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
} ring SEC(".maps");

/* Per CPU: the sequence of its packet ids, and the blocks it could not put
 * in the ring. */
struct kb_cpu {
	__u64 seq;
	__u64 lost;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kb_cpu);
} cpus SEC(".maps");

struct kb_opts {
	__u16 flags_code, flags_len;
	__u32 flags;
	__u16 queue_code, queue_len;
	__u32 queue;
	__u16 id_code, id_len;
	__u32 id_lo, id_hi; /* 4-aligned in the block: two halves */
	__u32 trailer;
};

SEC("tc")
int kblock_tc_ingress(struct __sk_buff *skb)
{
	__u8 bytes[KB_SNAP_MAX + 4] = {};
	__u32 zero = 0, cap, room, total;
	struct bpf_dynptr dp;
	struct kb_cpu *c;
	__u64 ts, id, prod;
	__u32 hdr[7];
	struct kb_opts o;

	c = bpf_map_lookup_elem(&cpus, &zero);
	if (!c)
		return TC_ACT_UNSPEC;
	cap = skb->len < snaplen ? skb->len : snaplen;
	if (cap > KB_SNAP_MAX || cap == 0)
		return TC_ACT_UNSPEC;
	room = (cap + 3) & ~3u;
	total = KB_HDR + room + KB_OPTS + 4;
	ts = bpf_ktime_get_ns() + ts_offset;
	id = ((__u64)bpf_get_smp_processor_id() << 48) | c->seq++;

	hdr[0] = KB_EPB;
	hdr[1] = total;
	hdr[2] = 0;
	hdr[3] = ts >> 32;
	hdr[4] = (__u32)ts;
	hdr[5] = cap;
	hdr[6] = skb->len;
	o = (struct kb_opts){
		.flags_code = KB_EPB_FLAGS,
		.flags_len = 4,
		.flags = KB_FLAGS_INBOUND,
		.queue_code = KB_EPB_QUEUE,
		.queue_len = 4,
		.queue = skb->queue_mapping ? skb->queue_mapping - 1 : 0,
		.id_code = KB_EPB_PACKETID,
		.id_len = 8,
		.id_lo = (__u32)id,
		.id_hi = id >> 32,
		.trailer = total,
	};
	if (bpf_skb_load_bytes(skb, 0, bytes, cap))
		return TC_ACT_UNSPEC;

	/* Wake the reader as the producer passes each multiple of the mark,
	 * as pktsample's rings do (bpf/output.bpf.h). */
	prod = bpf_ringbuf_query(&ring, BPF_RB_PROD_POS);
	if (bpf_ringbuf_reserve_dynptr(&ring, total, 0, &dp)) {
		c->lost++;
		bpf_ringbuf_discard_dynptr(&dp, 0);
		return TC_ACT_UNSPEC;
	}
	if (bpf_dynptr_write(&dp, 0, hdr, sizeof(hdr), 0) ||
	    bpf_dynptr_write(&dp, KB_HDR, bytes, room, 0) ||
	    bpf_dynptr_write(&dp, KB_HDR + room, &o, sizeof(o), 0)) {
		c->lost++;
		bpf_ringbuf_discard_dynptr(&dp, 0);
		return TC_ACT_UNSPEC;
	}
	bpf_ringbuf_submit_dynptr(&dp, ((prod + ((total + 8 + 7) & ~7u)) ^ prod) >= wakeup_bytes ?
					       BPF_RB_FORCE_WAKEUP :
					       BPF_RB_NO_WAKEUP);
	return TC_ACT_UNSPEC;
}

char LICENSE[] SEC("license") = "GPL";
