/* SPDX-License-Identifier: GPL-2.0-only */
/* Turning one raw perf sample back into metadata + packet bytes. */
#ifndef PS_SPLIT_H
#define PS_SPLIT_H

#include <stddef.h>
#include <stdint.h>
#include "pktsample.h"

/*
 * Split a PERF_RECORD_SAMPLE's raw data into its metadata and the packet
 * bytes that follow it. The kernel pads raw_size so the record is 8-byte
 * aligned, so raw_size may exceed sizeof(meta) + cap_len by up to 7 bytes.
 * Returns 0, or -EPROTO for a sample whose version, hook or sizes do not add
 * up (*meta is then undefined).
 */
int ps_split_sample(const void *raw, size_t raw_size, struct ps_meta *meta, const uint8_t **pkt);

#define PS_VLAN_HLEN 4
#define PS_ETH_ADDRS_LEN 12

/*
 * Write the frame as it was on the wire into out (capacity cap_len + 4):
 * without the net_off bytes the hook was given in front of it, and if the
 * skb carried its VLAN tag out of band, with the tag put back after the
 * MAC addresses, as libpcap does for AF_PACKET. Sets *cap_len and
 * *wire_len; the result is truncated to snaplen. Returns the frame to use:
 * out when a tag was inserted, else pkt (past net_off) itself, no copy.
 */
const uint8_t *ps_frame_on_wire(const struct ps_meta *meta, const uint8_t *pkt, uint8_t *out,
				uint32_t snaplen, uint32_t *cap_len, uint32_t *wire_len);

#endif
