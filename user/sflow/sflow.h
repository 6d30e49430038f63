/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sFlow version 5 datagrams (sflow.org, "sFlow Version 5", July 2004): XDR,
 * big-endian, every opaque padded to 4 bytes. Pure: structures in, bytes
 * out, into a caller's buffer of PS_SFLOW_MTU bytes; unit-tested byte for
 * byte against datagrams worked out by hand from the specification.
 *
 *   datagram        version 5, agent address, sub-agent, sequence, uptime,
 *                   samples
 *   flow_sample     (0,1): sequence, source_id, sampling_rate, sample_pool,
 *                   drops, input, output, records
 *     sampled_header (0,1): protocol 1 (Ethernet), frame_length, stripped,
 *                   header
 *   counters_sample (0,2): sequence, source_id, records
 *     generic_interface_counters (0,1): 88 bytes (if_counters)
 *   discarded_packet (0,5) (sFlow's drop notifications, 2020): sequence,
 *                   ds_class, ds_index, drops, input, output, reason,
 *                   records: sampled_header, extended_user,
 *                   extended_function (0,1038), extended_linux_reason
 *                   (0,1042), as hsflowd's dropmon module sends them
 */
#ifndef PS_SFLOW_H
#define PS_SFLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "addr.h"

/* Datagrams stay under this, as the issue and hsflowd's default ask. */
#define PS_SFLOW_MTU 1400u
#define PS_SFLOW_PORT 6343
#define PS_SFLOW_HEADER_MAX 1024u
#define PS_SFLOW_UNKNOWN32 0xffffffffu /* a counter the host does not have */
#define PS_SFLOW_UNKNOWN64 0xffffffffffffffffull

#define PS_SFLOW_MAX_COLLECTORS 8
/* --sflow-burst: datagrams sent back to back, at most (user/sflow/sflowexp.h). */
#define PS_SFLOW_BURST_DEFAULT 8
#define PS_SFLOW_BURST_MAX 64

struct ps_sflow_config {
	struct ps_addr collectors[PS_SFLOW_MAX_COLLECTORS];
	int n_collectors;
	bool has_agent;
	struct ps_addr agent;
	uint32_t rate;	       /* 1 in rate */
	uint32_t header_bytes; /* --sflow-header */
	uint32_t counters_s;   /* --sflow-counters */
	uint32_t burst;	       /* --sflow-burst: datagrams back to back, at most */
};

struct ps_sflow_agent {
	int family;	  /* AF_INET or AF_INET6 */
	uint8_t addr[16]; /* network order */
	uint32_t sub_agent;
};

/* A packet's local socket (sFlow's extended_socket_ipv4/ipv6, which
 * hsflowd's application modules send): local is the side that owns it. */
struct ps_sflow_socket {
	bool v6;
	uint32_t proto;		       /* IPPROTO_TCP or IPPROTO_UDP */
	uint8_t local[16], remote[16]; /* network order; IPv4 in the first 4 */
	uint32_t local_port, remote_port;
};

/* The frame's TCP or UDP ports and addresses (Ethernet with at most one
 * VLAN tag, or raw IP), local being the source if local_is_src. 0, or
 * -ENOENT for anything else. Pure. */
int ps_sflow_socket_of(const uint8_t *frame, uint32_t len, bool raw, bool local_is_src,
		       struct ps_sflow_socket *s);

#define PS_SFLOW_USER_MAX 200 /* bytes of an extended_user string */

struct ps_sflow_flow {
	uint32_t seq;		/* per data source */
	uint32_t source_id;	/* type 0 (ifIndex) << 24 | ifIndex */
	uint32_t rate;		/* 1 in rate */
	uint32_t pool;		/* packets that could have been sampled */
	uint32_t drops;		/* samples lost before they were sent */
	uint32_t input, output; /* ifIndex, 0 if unknown */
	uint32_t frame_length;
	uint32_t stripped;
	const uint8_t *header;
	uint32_t header_len;
	/* Whom the packet belongs to, as two more records: the owner's words
	 * (pid=... comm=...) as extended_user, the source user if the owner
	 * sent it, else the destination user; and its local socket. */
	bool has_socket;
	struct ps_sflow_socket socket;
	const char *user; /* NULL: none; at most PS_SFLOW_USER_MAX bytes go */
	bool user_is_src;
};

/* sFlow's drop_reason codes (the drop notification spec's enum). */
#define PS_SFLOW_DROP_PORT_UNREACHABLE 3
#define PS_SFLOW_DROP_DST_NET_UNKNOWN 6
#define PS_SFLOW_DROP_UNKNOWN 256
#define PS_SFLOW_DROP_TTL_EXCEEDED 257
#define PS_SFLOW_DROP_ACL 258
#define PS_SFLOW_DROP_NO_BUFFER_SPACE 259

/* The sampled header's protocol (sFlow's header_protocol). */
#define PS_SFLOW_HEADER_ETHERNET 1
#define PS_SFLOW_HEADER_IPV4 11
#define PS_SFLOW_HEADER_IPV6 12

#define PS_SFLOW_STRING_MAX 64 /* bytes of a function or reason string */

/* A packet the kernel dropped, as a discarded_packet event. */
struct ps_sflow_discard {
	uint32_t seq;		  /* per data source */
	uint32_t ds_index;	  /* ifIndex (ds_class 0) */
	uint32_t drops;		  /* events not sent: sampled out, over the rate cap, lost */
	uint32_t input, output;	  /* ifIndex, 0 if unknown */
	uint32_t reason;	  /* PS_SFLOW_DROP_* */
	uint32_t header_protocol; /* PS_SFLOW_HEADER_* */
	uint32_t frame_length;
	const uint8_t *header;
	uint32_t header_len;
	const char *user; /* extended_user, the owner's words; NULL: none */
	bool user_is_src;
	const char *function;	  /* extended_function: where; NULL: none */
	const char *linux_reason; /* extended_linux_reason: the kernel's reason; NULL */
};

/* sFlow's reason for the kernel's (its name without the enum's prefix,
 * "NO_SOCKET"): the few that have a match, else PS_SFLOW_DROP_UNKNOWN. */
uint32_t ps_sflow_drop_reason(const char *linux_reason);

/* generic_interface_counters (sFlow's if_counters). */
struct ps_sflow_ifcounters {
	uint32_t seq;
	uint32_t source_id;
	uint32_t if_index, if_type;
	uint64_t if_speed;
	uint32_t if_direction; /* 0 unknown, 1 full, 2 half duplex */
	uint32_t if_status;    /* bit 0 admin up, bit 1 oper up */
	uint64_t in_octets;
	uint32_t in_ucast, in_mcast, in_bcast, in_discards, in_errors, in_unknown_protos;
	uint64_t out_octets;
	uint32_t out_ucast, out_mcast, out_bcast, out_discards, out_errors;
	uint32_t promiscuous;
};

struct ps_sflow_dgram {
	uint8_t buf[PS_SFLOW_MTU];
	uint32_t len;
	uint32_t n_samples;
	uint32_t n_samples_at; /* where the sample count goes */
};

/* Start a datagram. */
void ps_sflow_begin(struct ps_sflow_dgram *d, const struct ps_sflow_agent *a, uint32_t seq,
		    uint32_t uptime_ms);
/* Add a sample; -ENOSPC if it does not fit (the datagram is unchanged). */
int ps_sflow_add_flow(struct ps_sflow_dgram *d, const struct ps_sflow_flow *f);
int ps_sflow_add_counters(struct ps_sflow_dgram *d, const struct ps_sflow_ifcounters *c);
int ps_sflow_add_discard(struct ps_sflow_dgram *d, const struct ps_sflow_discard *e);
/* Bytes a flow sample with a header of header_len bytes takes. */
uint32_t ps_sflow_flow_size(uint32_t header_len);
/* The flow sample's bytes with the records f has beyond the header. */
uint32_t ps_sflow_flow_bytes(const struct ps_sflow_flow *f);

#endif
