/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Hooks and attach modes: the names users type and read, shared by the
 * parser, the loader, attach, the ingest and the report. The hook enum
 * itself is kernel/user ABI (include/pktsample.h).
 */
#ifndef PS_HOOKS_H
#define PS_HOOKS_H

#include <stdbool.h>
#include <stddef.h>
#include "pktsample.h"

/* A set of hooks: bit i is enum ps_hook i. */
#define PS_HOOK_BIT(h) (1u << (h))
#define PS_HOOKS_TC (PS_HOOK_BIT(PS_HOOK_TC_INGRESS) | PS_HOOK_BIT(PS_HOOK_TC_EGRESS))
/* Around another program's XDP program: its entry and its exit. */
#define PS_HOOKS_XDP_TRACE (PS_HOOK_BIT(PS_HOOK_XDP_ENTRY) | PS_HOOK_BIT(PS_HOOK_XDP_EXIT))
/* Packets the kernel drops: --hook drop asks for both. */
#define PS_HOOKS_DROP (PS_HOOK_BIT(PS_HOOK_DROP) | PS_HOOK_BIT(PS_HOOK_DROP_IP))
/* Without --hook or -Q. Not XDP: on no device kind we know does an XDP
 * attach leave the device and the traffic as they were (user/kernel/device.h). */
#define PS_HOOKS_DEFAULT (PS_HOOK_BIT(PS_HOOK_TC_INGRESS) | PS_HOOK_BIT(PS_HOOK_TC_EGRESS))

/* --xdp-mode and --tc-mode */
enum ps_xdp_mode { PS_XDP_AUTO, PS_XDP_NATIVE, PS_XDP_SKB };
/* PS_TC_AUTO_MANY is auto's choice for many interfaces, never the user's:
 * each tcx link made or closed waits for an RCU grace period under the
 * RTNL lock (tcx_entry_sync()), one link after another whatever the
 * threads (doc/performance.md#start-up); a clsact filter waits for none.
 * So clsact, but tcx on a hook that has tcx programs already, where only
 * tcx keeps our place before or after them. */
enum ps_tc_mode { PS_TC_AUTO, PS_TC_TCX, PS_TC_CLSACT, PS_TC_AUTO_MANY };
/* --tc-position: before or after the programs (filters) already on a TC
 * hook; wire: where tcpdump's tap is, before them at ingress (what
 * arrived) and after them at egress (what leaves). */
enum ps_tc_position { PS_TC_WIRE, PS_TC_FIRST, PS_TC_LAST };
/* --xdp-attach: a BPF link (the default) or libxdp (its dispatcher) */
enum ps_xdp_attach { PS_XDP_VIA_LINK, PS_XDP_VIA_LIBXDP };
/* --packet-id: one id per packet at every hook it meets (path), or each
 * record's CPU and sequence (cpu); auto: path where a packet can meet more
 * than one of the capture's hooks (ps_packet_id_paths). */
enum ps_packet_id { PS_PKTID_AUTO, PS_PKTID_PATH, PS_PKTID_CPU };

/* "xdp", "tc-ingress", "tc-egress", "xdp-entry", "xdp-exit", "drop",
 * "drop-ip" (what --hook takes: drop means both); "?" out of range. */
const char *ps_hook_name(unsigned int hook);
/* A set of hooks as --hook takes it ("tc-ingress,tc-egress"); "none" if empty. */
void ps_hooks_format(unsigned int hooks, char *buf, size_t len);
/*
 * Does a capture of hooks on up to ifaces interfaces at once follow each
 * packet across them (--packet-id mode)? auto: where a packet can meet two
 * of them: on two interfaces, at the drop hook and another, at xdp-entry
 * and xdp-exit; one interface's ingress and egress see a packet once (but
 * where it is sent back out the way it came). Pure.
 */
bool ps_packet_id_paths(enum ps_packet_id mode, unsigned int hooks, int ifaces);

/* An XDP verdict as a word: "aborted", "drop", "pass", "tx", "redirect";
 * "unknown" for anything else. */
const char *ps_xdp_verdict_name(int verdict);
/* "xdp ingress", "tc ingress", "tc egress", ... (pcapng if_description). */
const char *ps_hook_description(unsigned int hook);

static inline bool ps_hook_is_tc(unsigned int hook)
{
	return hook == PS_HOOK_TC_INGRESS || hook == PS_HOOK_TC_EGRESS;
}

/* xdp-entry or xdp-exit: around another program's XDP program. */
static inline bool ps_hook_is_xdp_trace(unsigned int hook)
{
	return hook == PS_HOOK_XDP_ENTRY || hook == PS_HOOK_XDP_EXIT;
}

/* drop or drop-ip: a packet the kernel freed as dropped. */
static inline bool ps_hook_is_drop(unsigned int hook)
{
	return hook == PS_HOOK_DROP || hook == PS_HOOK_DROP_IP;
}

#endif
