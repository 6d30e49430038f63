/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Containers from cgroup v2 paths, as the runtimes name their cgroups:
 *
 *   docker     .../docker-<id>.scope (systemd driver), /docker/<id> (cgroupfs)
 *   podman     .../libpod-<id>.scope, /libpod_parent/libpod-<id>
 *   containerd .../cri-containerd-<id>.scope, /containerd/.../<id>
 *   CRI-O      .../crio-<id>.scope
 *   Kubernetes .../kubepods-...-pod<uid>.slice (or /kubepods/.../pod<uid>),
 *              when no container is below it
 *   systemd    the innermost .service or .scope unit otherwise
 *
 * Pure: no file is read. The id is the runtime's 64-hex-digit id, shown
 * (and matched) by its first 12 digits as `docker ps` does.
 */
#ifndef PS_CONTAINER_H
#define PS_CONTAINER_H

#include <stdbool.h>
#include <stddef.h>

enum ps_container_kind {
	PS_CONTAINER_NONE = 0,
	PS_CONTAINER_DOCKER,
	PS_CONTAINER_PODMAN,
	PS_CONTAINER_CONTAINERD,
	PS_CONTAINER_CRIO,
	PS_CONTAINER_K8S_POD,
	PS_CONTAINER_UNIT,
};

struct ps_container {
	enum ps_container_kind kind;
	char id[128]; /* the full id, pod uid or unit name */
};

/* What the cgroup path (relative to the cgroup v2 mount, "/a/b") belongs
 * to; kind NONE if nothing. */
void ps_container_of_path(const char *path, struct ps_container *c);
/* "docker:0123456789ab", "pod:<uid>", "unit:nginx.service"; "" for NONE. */
void ps_container_name(const struct ps_container *c, char *buf, size_t len);
/* Does what (an id, or a prefix of one of at least 4 characters; the
 * name as ps_container_name() gives it; a unit's name; a pod's uid) name c? */
bool ps_container_matches(const struct ps_container *c, const char *what);

#endif
