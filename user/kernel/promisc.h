/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Promiscuous mode while we capture, as tcpdump (unless -p): one AF_PACKET
 * socket, bound to no protocol so it receives nothing, holding a
 * PACKET_MR_PROMISC membership per interface. The kernel counts such
 * memberships and drops them with the socket, so the interface's
 * promiscuity goes back to what it was however pktsample ends, SIGKILL
 * included (IFF_PROMISC set with an ioctl would stay).
 */
#ifndef PS_PROMISC_H
#define PS_PROMISC_H

/* The socket (needs CAP_NET_RAW): fd, or -errno. */
int ps_promisc_open(void);
/* Make ifindex promiscuous while fd is open: 0 or -errno. */
int ps_promisc_add(int fd, int ifindex);

#endif
