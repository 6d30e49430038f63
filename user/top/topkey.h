/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One packet into --top's counts (topagg.h): its row in every grouping,
 * named the first time the row is made. Pure: reads the packet alone.
 *   process    "curl (4242)", or why there is none: "(no local socket)",
 *              "(not TCP/UDP)", "(socket not found)", "(context off)"
 *   container  its container's name, else its cgroup's path, "(none)"
 *   flow       "10.0.0.1:40000 <> 10.0.0.2:443 tcp": this host's end
 *              first (the source going out, the destination coming in), so
 *              that both ways are one row; "arp", "ethertype 0x88cc"
 *   interface  "eth0 tc-ingress"
 *   drop reason  "NO_SOCKET" (the drop hooks' packets alone)
 *   path       "tc-ingress@eth0 > tc-egress@eth1": a followed packet's
 *              record by the hook that wrote the one before it (the
 *              packets that went from one to the other), "tc-ingress@eth0"
 *              for a packet's first (where packets came in)
 */
#ifndef PS_TOPKEY_H
#define PS_TOPKEY_H

#include <stdint.h>
#include "sink.h"
#include "topagg.h"

/* Which way p went, by its hook. */
enum ps_top_dir ps_top_dir_of(unsigned int hook);
/* p counted (as weight packets: sampled 1 in weight) in every grouping. */
void ps_top_add(struct ps_top *t, const struct ps_sink_pkt *p, uint32_t weight);

#endif
