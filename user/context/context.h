/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Whom packets belong to, for one capture: the options (--context, --pid,
 * --comm, --cgroup, --container, --pod, --k8s-namespace) checked and turned into the hooks' knobs
 * (loader.h: struct ps_ctx_knobs), then, once the programs are loaded,
 * the socket-owner program attached and the sockets that exist already
 * found, so that the first packet is attributed and filtered too.
 */
#ifndef PS_CONTEXT_H
#define PS_CONTEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <limits.h>
#include <stdint.h>
#include "cgroupfs.h"
#include "loader.h"
#include "who.h"

struct ps_context_cfg {
	bool enabled;
	uint32_t pid;	       /* --pid; 0: none */
	const char *comm;      /* --comm; NULL: none */
	const char *cgroup;    /* --cgroup */
	const char *container; /* --container */
	const char *pod;       /* --pod: [NAMESPACE/]NAME */
	const char *k8s_ns;    /* --k8s-namespace */
	const char *host_root; /* --host-root: the runtimes' records under it */
	bool wait;	       /* an agent: a name that matches nothing yet waits */
};

/* A filter by name follows containers made during the capture: so many
 * cgroups may join it beyond those chosen at the start. */
#define PS_CTX_FOLLOW_ROOM 1024

struct ps_ctx_byname;
struct ps_cgfollow;

struct ps_context {
	struct ps_ctx_knobs knobs;
	uint64_t *cgroups; /* knobs.cgroups */
	/* The cgroup v2 tree as resolve walked it (and its error), until
	 * the who table takes it over. */
	struct ps_cgroup_index cg;
	int cg_err;
	struct ps_who_table *who;
	char records_root[PATH_MAX]; /* --host-root; "" for / */
	/* --container, --pod, --k8s-namespace: what they name, followed
	 * through the cgroup tree's changes; NULL for the other filters. */
	struct ps_ctx_byname *byname;
	struct ps_cgfollow *follow;
};

/* Check the filters against the host: -ENOENT (logged) for a process,
 * cgroup or container that is not there; -EOPNOTSUPP without cgroup v2
 * where a filter needs it. Nothing is touched. */
int ps_context_resolve(struct ps_context *c, const struct ps_context_cfg *cfg);
/* After l is loaded with c->knobs: the owners of sockets made from now on
 * (the socket-owner program, as a link) and of those that exist. 0 or
 * -errno, logged. */
int ps_context_start(struct ps_context *c, struct ps_loader *l);
/* A filter by name's changes (readable when the cgroup tree changed; -1
 * where nothing is followed), taken in: 0 or -errno, logged. */
int ps_context_follow_fd(const struct ps_context *c);
int ps_context_follow(struct ps_context *c);
void ps_context_free(struct ps_context *c);

#endif
