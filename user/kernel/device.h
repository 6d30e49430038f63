/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a device is, and what that means for a capture on it: its link type
 * (as tcpdump chooses it), the ingress hook a default capture uses and why,
 * the XDP mode --xdp-mode auto takes, and what an XDP attach would cost
 * there. The rules are pure functions of the facts (unit-tested in
 * tests/unit/test_device.c); ps_device_probe() looks the facts up.
 */
#ifndef PS_DEVICE_H
#define PS_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <net/if.h>
#include "linktype.h"
#include "hooks.h"

struct ps_device {
	int ifindex;
	char name[IF_NAMESIZE];
	unsigned int flags; /* IFF_* */
	int arphrd;	    /* ARPHRD_* (the device's hardware type); -1 unknown */
	char driver[32];    /* as ethtool -i shows it; "" unknown */
	int xdp_native;	    /* driver XDP (netdev xdp-features): 1, 0, -1 unknown */
	/* The driver hands native XDP the VLAN tag it strips (netdev
	 * xdp-rx-metadata-features: vlan-tag, 6.8+): 1, 0, -1 unknown. */
	int xdp_rx_vlan;
	int rx_vlan_offload; /* tags held out of band on receive: 1, 0, -1 unknown */
	/* The devices directly above it (bridge or bond master, macvlan,
	 * VLAN: sysfs upper_*), by ifindex. */
	int uppers[8];
	int n_uppers;
	/* An XDP program already on the device (someone else's: a load
	 * balancer, a DDoS filter, libxdp's dispatcher), 0 none; its name
	 * (user/kernel/xdptrace.h), and whether this kernel lets fentry/fexit trace
	 * it: 1, 0 (xdp_trace_why says why), -1 not asked. */
	uint32_t xdp_prog_id;
	char xdp_prog_name[96];
	int xdp_traceable;
	char xdp_trace_why[96];
};

/*
 * The link type of a device of hardware type arphrd, as libpcap picks it:
 * Ethernet for Ethernet-like devices and lo, RAW for devices whose packets
 * start at the IP header (tun, wireguard, ipip, sit, ip6tnl, gre, ppp);
 * -1 for those pktsample cannot write.
 */
int ps_linktype_of(int arphrd);
/* "EN10MB", "RAW" (tcpdump's names); "?" otherwise. */
const char *ps_linktype_name(int linktype);

/*
 * The ingress hooks a capture on d uses unless told, as a PS_HOOK_BIT()
 * set: tc-ingress; xdp-entry and xdp-exit where another XDP program is
 * attached and the kernel lets us trace it (what it does to each packet
 * is what a user of such a host wants to see, as with xdpdump); none on
 * lo, where tc-egress alone sees each packet once. In why the reason, a
 * short phrase for -D and -v.
 */
unsigned int ps_device_default_ingress(const struct ps_device *d, char *why, size_t len);

/*
 * The XDP mode --xdp-mode auto uses on d: skb on veth (cheaper there than
 * native, which also turns off the peer's TSO), native where the driver
 * has XDP, skb where it has none, auto (try native, then skb) if unknown.
 */
enum ps_xdp_mode ps_device_xdp_mode(const struct ps_device *d);

/*
 * What an XDP attach in mode (native or skb) costs on d, one sentence for
 * the warning an explicit --hook xdp gets.
 */
const char *ps_device_xdp_cost(const struct ps_device *d, enum ps_xdp_mode mode);

/*
 * The netdev generic-netlink family (6.3+) for xdp-features: open once for
 * many probes. fd -1 / family 0 when the kernel lacks it.
 */
struct ps_netdev_nl {
	int fd;
	uint16_t family;
};
void ps_netdev_nl_open(struct ps_netdev_nl *nl);
void ps_netdev_nl_close(struct ps_netdev_nl *nl);

/*
 * Look up the facts of ifindex (name, flags, type, driver, XDP support,
 * VLAN offload, upper devices, an XDP program there and whether it can be
 * traced); nl may be NULL (xdp_native stays unknown). 0, or -ENODEV.
 */
int ps_device_probe(struct ps_device *d, int ifindex, const struct ps_netdev_nl *nl);

/* Is upper one of d's upper devices? */
bool ps_device_is_below(const struct ps_device *d, int upper);

#endif
