/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What privilege pktsample has and needs, and -Z USER: once the programs
 * are attached, the buffers mapped and the first file open, become USER (supplementary groups, gid, uid, all four of each)
 * with no capability left, except CAP_NET_ADMIN when a clsact filter must
 * still be removed at exit (tcx and XDP links need none: closing their fds
 * detaches them), and CAP_BPF on a kernel that checks it at every bpf()
 * command (struct ps_keep_caps). Everything else after the drop needs no
 * privilege: reading the mapped buffers and the maps through fds opened
 * before (from 6.1 at least, the kernel checks privilege when an fd is made, not
 * when it is used), link fds, rtnetlink notifications, and files created
 * as USER.
 */
#ifndef PS_PRIVDROP_H
#define PS_PRIVDROP_H

#include <stdbool.h>
#include <sys/types.h>

struct ps_user {
	char name[64];
	uid_t uid;
	gid_t gid;
};

/* Enough to capture: CAP_NET_ADMIN, and CAP_SYS_ADMIN or CAP_BPF with
 * CAP_PERFMON (what `pktsample` needs with file capabilities). */
bool ps_have_privileges(void);
/*
 * May this process open perf events (perf buffers, the clock of
 * --sample-interval)? Not where kernel.perf_event_paranoid is above 2, as
 * Debian's kernels have it, without CAP_SYS_ADMIN: there the ring buffer
 * transport, which needs none, is the way.
 */
bool ps_perf_events_allowed(void);

/* USER by name or number; -ENOENT if the system has no such user. */
int ps_user_lookup(const char *name, struct ps_user *u);
/* The capabilities -Z keeps: CAP_NET_ADMIN where clsact filters are to be
 * removed at exit; CAP_BPF where the kernel refuses every bpf() command to
 * a process without it while kernel.unprivileged_bpf_disabled is set
 * (5.10: the maps' counters and owners would go unread). */
struct ps_keep_caps {
	bool net_admin;
	bool bpf;
};

/* Become u, keeping those of keep and no other. 0 or -errno, logged. */
int ps_privdrop(const struct ps_user *u, const struct ps_keep_caps *keep);

#endif
