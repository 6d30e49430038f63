/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The owners of sockets that already exist: the socket-owner program
 * (cgroup/sock_owner.bpf.c) sees sockets being made, not those made
 * before pktsample started, nor those a listener accepts (the kernel makes
 * them, in softirq). As ss -p: the kernel's socket list (sock_diag: cookie
 * and inode of every TCP and UDP socket of this network namespace, and of
 * every other one a process is in, where we may enter it; ping's sockets,
 * ICMP datagram and raw, from /proc/PID/net), and /proc/PID/fd (which
 * process holds which inode). A ping or raw socket's cookie is asked of
 * the socket, through a copy of its holder's descriptor (pidfd_getfd),
 * closed at once. Read-only: nothing the scanned processes
 * or sockets see changes (sock_diag or SO_COOKIE gives a socket that had
 * none its cookie, as ss does).
 */
#ifndef PS_SOCKSCAN_H
#define PS_SOCKSCAN_H

#include <stddef.h>
#include <stdint.h>
#include "pktsample.h"

/* A process's owner entry as /proc tells it: pid, comm, cgroup, netns
 * (tid = pid). cgroup_root: the cgroup v2 mount ("" if none). 0 or -errno
 * (-ENOENT: it is gone). */
int ps_proc_owner(uint32_t pid, const char *cgroup_root, struct ps_owner *o);

/*
 * Scan, and call found() for every socket of this namespace some process
 * holds (the first process found holding it). Returns the number found, or
 * -errno if the socket list cannot be read. Processes that vanish or that
 * we may not look into are skipped.
 */
int ps_sockscan(const char *cgroup_root,
		void (*found)(void *arg, uint64_t cookie, const struct ps_owner *o), void *arg);

#endif
