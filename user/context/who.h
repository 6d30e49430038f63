/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Who a packet belongs to, in words: the hooks give each packet its socket
 * cookie, cgroup id, pid and thread (ps_meta), the owners map what made the
 * socket (struct ps_owner); here they become the process's name, its
 * container (from the cgroup path: container.h, and by name from its
 * runtime's records: ctrnames.h) and its network namespace
 * (by name where `ip netns` named it). Kept per socket and per process, so
 * a packet costs a lookup in memory; the kernel's map is asked once per
 * socket, and sockets it does not know (made before the capture, or
 * accepted) are looked for once more, as ss -p would find them, when a
 * packet first names them: such scans PS_WHO_RESCAN_MS apart at least, and
 * further where one is long (ps_who_rescan_gap_ns).
 */
#ifndef PS_WHO_H
#define PS_WHO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "cgroupfs.h"
#include "ctrnames.h"
#include "pktsample.h"

#define PS_WHO_RESCAN_MS 2000
/* A scan walks every process's file descriptors: on a host of many
 * processes with many sockets it is most of a capture's start, and
 * rescans as often as packets ask for them would take a good share of a
 * CPU (doc/performance.md#owners). Scans are spaced so that they take at
 * most 1/PS_WHO_RESCAN_SHARE of a CPU. */
#define PS_WHO_RESCAN_SHARE 50

/* The least time from a scan that cost scan_cpu_ns of CPU to the next. */
uint64_t ps_who_rescan_gap_ns(uint64_t scan_cpu_ns);

/* One packet's owner, as the outputs show it. */
struct ps_who {
	uint8_t ctx; /* enum ps_ctx */
	bool known;  /* the owner (pid, comm) is known */
	uint32_t pid, tid;
	char comm[PS_COMM_LEN];
	char container[144];	   /* container.h's name ("docker:<id>"); "" if none */
	struct ps_ctr_names names; /* what its runtime's records call it */
	/* One number per container (by ps_who_container_label), pod and
	 * Kubernetes namespace, worked out once a cgroup: what --top groups
	 * by. 0: none. */
	uint64_t container_key, pod_key, k8s_ns_key;
	char cgroup[128]; /* the cgroup path where there is no container; "" */
	char netns[48];	  /* "host", a name `ip netns` knows, or the inode */
	uint32_t proc;	  /* the process's number in this capture (1, 2, ...); 0 */
};

struct ps_who_table;

/* owners_fd: the owners map (may be -1: nothing but what the packets say).
 * cg: the cgroup v2 tree, walked (or failed: root ""), which the table
 * takes over (*cg is left empty). records_root: where the container
 * runtimes' records are (ctrnames.h; "" for /). NULL on -ENOMEM. */
struct ps_who_table *ps_who_new(int owners_fd, struct ps_cgroup_index *cg,
				const char *records_root);
void ps_who_free(struct ps_who_table *t);
/* Find and record the owners of the sockets that exist now (sockscan.h),
 * into the owners map too, where the map has none. The number found, or
 * -errno. */
int ps_who_scan(struct ps_who_table *t);
/* How many scans the table has made: at the start, and for a TCP or UDP
 * socket a packet named that no scan since its first packet had found. */
unsigned long ps_who_scans(const struct ps_who_table *t);
/* How many cgroups' words the table holds: those its packets named, let
 * go when a walk of the tree no longer finds them. */
size_t ps_who_cgroups(const struct ps_who_table *t);
/* What m says, in words: the table's, valid until the next call (a
 * packet like the previous ones costs a compare). */
const struct ps_who *ps_who_resolve(struct ps_who_table *t, const struct ps_meta *m);
/* The comment words for w: "pid=… comm=… container=… netns=…" (a
 * container by its name and image where its runtime's records name it, a
 * Kubernetes one by "pod=<namespace>/<pod> container=<name>", then
 * "cid=<runtime>:<id>"); with why, an owner that is not known says why in
 * "owner=none:no-socket" and the like (ps_who_why); "" with attribution
 * off. Returns what snprintf returns. Pure. */
int ps_who_format(const struct ps_who *w, char *buf, size_t len, bool why);
/* Why a packet of hook context ctx (enum ps_ctx) has no known owner
 * ("none:no-socket", "unknown:socket-not-found": doc/guide.md lists
 * them); NULL if known, or with attribution off. Pure. */
const char *ps_who_why(uint8_t ctx, bool known);
/* w's container in a few words: the name its runtime gives it
 * ("shopweb"), a Kubernetes one's namespace, pod and name
 * ("shop/cart-7d9f/cart"), else its id ("docker:1cd6e7c7d83e"), else the
 * cgroup's path; "(none)". Pure. */
void ps_who_container_label(const struct ps_who *w, char *buf, size_t len);

#endif
