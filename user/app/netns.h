/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * --netns: capture in another network namespace from the host, as
 * `ip netns exec NAME pktsample ...` would, without the user switching:
 * this process joins the namespace, and gets a mount namespace of its own
 * whose /sys shows that namespace's devices (as ip netns exec does), with
 * the cgroup v2 hierarchy mounted again under it. Nothing outside this
 * process changes.
 */
#ifndef PS_NETNS_H
#define PS_NETNS_H

/* spec: a name under /run/netns (ip netns), a path to a namespace file,
 * or a process id (its namespace). 0, or -ENOENT / -EINVAL (logged: not
 * a network namespace) or another -errno (logged). */
int ps_netns_enter(const char *spec);

#endif
