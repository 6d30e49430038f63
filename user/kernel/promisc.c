// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <sys/socket.h>
#include <linux/if_packet.h>
#include "promisc.h"

int ps_promisc_open(void)
{
	/* Protocol 0: the socket is on no packet's delivery path. */
	int fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);

	return fd < 0 ? -errno : fd;
}

int ps_promisc_add(int fd, int ifindex)
{
	struct packet_mreq mr = { .mr_ifindex = ifindex, .mr_type = PACKET_MR_PROMISC };

	return setsockopt(fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr, sizeof(mr)) ? -errno : 0;
}
