/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A container's names as its runtime's own records on disk say them, with
 * no daemon asked (doc/design.md#container-names):
 *
 *   docker      /var/lib/docker/containers/<id>/config.v2.json: Name,
 *               Config.Image, and the io.kubernetes.* labels cri-dockerd
 *               gives a Kubernetes container
 *   podman      containers/storage's records (containers.json and
 *               volatile-containers.json: names, and the image in their
 *               metadata), and the container's OCI config, whose
 *               annotations may carry a pod's (CRI-O's keys)
 *   CRI-O       the OCI config in containers/storage:
 *               io.kubernetes.pod.name, io.kubernetes.pod.namespace,
 *               io.kubernetes.container.name, io.kubernetes.cri-o.ImageName
 *   containerd  the task bundle's OCI config,
 *               /run/containerd/io.containerd.runtime.v2.task/<ns>/<id>/:
 *               CRI's io.kubernetes.cri.* annotations, nerdctl's
 *               nerdctl/name
 *
 * The parsers are pure: they take a file's bytes. ps_ctr_names_read reads
 * the files, under a root of the caller's ("" for the host's: the tests
 * give a tree of their own). A runtime that is not installed has no files:
 * one failed open.
 */
#ifndef PS_CTRNAMES_H
#define PS_CTRNAMES_H

#include <stddef.h>
#include "container.h"

struct ps_ctr_names {
	char name[64];	 /* the runtime's name for it ("shopweb"); "" */
	char image[128]; /* its image, as it was asked for ("bb:1"); "" */
	/* A Kubernetes container's: its pod, the pod's namespace, its name in
	 * the pod ("" for the pod's sandbox, and where it is none). */
	char pod[64], pod_ns[64], k8s_container[64];
};

/* Docker's config.v2.json. 0, or -EINVAL (not such a file). */
int ps_ctr_names_docker(const char *json, size_t len, struct ps_ctr_names *n);
/* An OCI runtime config's annotations (CRI-O's, containerd CRI's,
 * nerdctl's), into what n does not have yet. 0, or -EINVAL. */
int ps_ctr_names_oci(const char *json, size_t len, struct ps_ctr_names *n);
/* containers/storage's list of containers: the name and image of the one
 * whose id is id, into what n does not have yet. 0, -ENOENT (not in the
 * list), or -EINVAL. */
int ps_ctr_names_storage(const char *json, size_t len, const char *id, struct ps_ctr_names *n);

/* The names of c from its runtime's records under root: 0 (n says what
 * they had), -ENOENT (no record of it: a runtime not installed, a
 * container gone, a kind that has none), or -errno. n is cleared first. */
int ps_ctr_names_read(const char *root, const struct ps_container *c, struct ps_ctr_names *n);

#endif
