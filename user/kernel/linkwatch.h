/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Interfaces that go away or go down while we capture: an rtnetlink socket
 * subscribed to link events, read from the capture loop. Parsing is pure
 * (ps_linkwatch_parse) so the message handling is unit-tested.
 */
#ifndef PS_LINKWATCH_H
#define PS_LINKWATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ps_link_event {
	int ifindex;
	char name[16]; /* IFLA_IFNAME (IF_NAMESIZE); "" if the message had none */
	bool loopback; /* IFF_LOOPBACK */
	bool gone;     /* RTM_DELLINK: deleted, or moved to another namespace */
	bool up;       /* IFF_UP (administratively up) */
};

/* The link events in one netlink datagram, at most max; how many. */
int ps_linkwatch_parse(const void *buf, size_t len, struct ps_link_event *ev, int max);

/* A non-blocking socket subscribed to RTMGRP_LINK: fd, or -errno. */
int ps_linkwatch_open(void);
/*
 * Events that have arrived, at most max: how many (0: none for now), or
 * -ENOBUFS when the kernel dropped some (look at every interface again).
 */
int ps_linkwatch_read(int fd, struct ps_link_event *ev, int max);

/* Every interface there is, as link events (name, up, loopback), into
 * *now (malloc'ed, the caller's to free); how many, or -errno. */
int ps_link_list(struct ps_link_event **now);
/* The interface's flags (IFF_*), or -ENODEV (gone) / -errno. */
int ps_link_flags(int ifindex);
/* Is ifindex up? 1 up, 0 down, -ENODEV gone. */
int ps_link_state(int ifindex);

/*
 * The id of the XDP program on ifindex (0: none): 0 or -errno. One
 * RTM_GETLINK for that interface; libbpf's bpf_xdp_query dumps every
 * link for each call, which over hundreds of interfaces made -i any's
 * start quadratic. ps_link_parse_xdp reads the answer (pure): 0, the
 * kernel's -errno, or -ENODEV if it has no such link.
 */
int ps_link_xdp_prog_id(int ifindex, uint32_t *id);
/* Ask rtnetlink socket fd about ifindex alone (RTM_GETLINK, sequence seq):
 * 0 or -errno. The answer is the caller's to read. */
int ps_link_ask(int fd, int ifindex, uint32_t seq);
int ps_link_parse_xdp(const void *buf, size_t len, int ifindex, uint32_t *id);

#endif
