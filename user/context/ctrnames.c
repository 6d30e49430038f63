// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <jansson.h>
#include "ctrnames.h"

/* Records past this size are no runtime's: not read. */
#define RECORD_MAX (64u << 20)

/* s into an empty dst, as one word of a comment: blanks and '=' become '_'
 * (the comment's words are split at blanks and read as key=value). */
static void put_word(char *dst, size_t len, const char *s)
{
	size_t i;

	if (!s || dst[0])
		return;
	for (i = 0; i + 1 < len && s[i]; i++)
		dst[i] = (unsigned char)s[i] <= ' ' || s[i] == '=' ? '_' : s[i];
	dst[i] = '\0';
}

static const char *str_at(json_t *obj, const char *key)
{
	return json_string_value(json_object_get(obj, key));
}

/* Kubernetes' labels (cri-dockerd's) or annotations (CRI-O's, and what
 * podman is given as CRI-O writes them). */
static void k8s_keys(json_t *obj, struct ps_ctr_names *n)
{
	put_word(n->pod, sizeof(n->pod), str_at(obj, "io.kubernetes.pod.name"));
	put_word(n->pod_ns, sizeof(n->pod_ns), str_at(obj, "io.kubernetes.pod.namespace"));
	put_word(n->k8s_container, sizeof(n->k8s_container),
		 str_at(obj, "io.kubernetes.container.name"));
}

int ps_ctr_names_docker(const char *json, size_t len, struct ps_ctr_names *n)
{
	json_t *root = json_loadb(json, len, 0, NULL), *config;
	const char *name;

	if (!json_is_object(root)) {
		json_decref(root);
		return -EINVAL;
	}
	name = str_at(root, "Name");
	/* Docker keeps the name with a leading '/'; docker ps shows none. */
	if (name && name[0] == '/')
		name++;
	put_word(n->name, sizeof(n->name), name);
	config = json_object_get(root, "Config");
	put_word(n->image, sizeof(n->image), str_at(config, "Image"));
	k8s_keys(json_object_get(config, "Labels"), n);
	json_decref(root);
	return 0;
}

int ps_ctr_names_oci(const char *json, size_t len, struct ps_ctr_names *n)
{
	json_t *root = json_loadb(json, len, 0, NULL), *a;

	if (!json_is_object(root)) {
		json_decref(root);
		return -EINVAL;
	}
	a = json_object_get(root, "annotations");
	k8s_keys(a, n);
	put_word(n->image, sizeof(n->image), str_at(a, "io.kubernetes.cri-o.ImageName"));
	/* containerd's CRI. */
	put_word(n->pod, sizeof(n->pod), str_at(a, "io.kubernetes.cri.sandbox-name"));
	put_word(n->pod_ns, sizeof(n->pod_ns), str_at(a, "io.kubernetes.cri.sandbox-namespace"));
	put_word(n->k8s_container, sizeof(n->k8s_container),
		 str_at(a, "io.kubernetes.cri.container-name"));
	put_word(n->image, sizeof(n->image), str_at(a, "io.kubernetes.cri.image-name"));
	/* nerdctl (2.0 on) copies its labels here. */
	put_word(n->name, sizeof(n->name), str_at(a, "nerdctl/name"));
	json_decref(root);
	return 0;
}

int ps_ctr_names_storage(const char *json, size_t len, const char *id, struct ps_ctr_names *n)
{
	json_t *root = json_loadb(json, len, 0, NULL), *c;
	size_t i;
	int err = -ENOENT;

	if (!json_is_array(root)) {
		json_decref(root);
		return -EINVAL;
	}
	json_array_foreach(root, i, c)
	{
		const char *meta;
		json_t *m;

		if (!json_is_object(c) || strcmp(str_at(c, "id") ?: "", id))
			continue;
		put_word(n->name, sizeof(n->name),
			 json_string_value(json_array_get(json_object_get(c, "names"), 0)));
		/* The image's name is in the metadata: JSON in a string. */
		meta = str_at(c, "metadata");
		m = meta ? json_loads(meta, 0, NULL) : NULL;
		put_word(n->image, sizeof(n->image), str_at(m, "image-name"));
		json_decref(m);
		err = 0;
		break;
	}
	json_decref(root);
	return err;
}

/* The file at root/path, whole, into a malloc'd *buf. 0 or -errno. */
static int slurp(const char *root, const char *path, char **buf, size_t *len)
{
	char full[PATH_MAX];
	FILE *f;
	long size;
	int err = 0;

	*buf = NULL;
	if ((size_t)snprintf(full, sizeof(full), "%s%s", root, path) >= sizeof(full))
		return -ENAMETOOLONG;
	f = fopen(full, "re");
	if (!f)
		return -errno;
	if (fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		err = -errno;
		goto cleanup;
	}
	if ((unsigned long)size > RECORD_MAX) {
		err = -EFBIG;
		goto cleanup;
	}
	*buf = malloc((size_t)size + 1);
	if (!*buf) {
		err = -ENOMEM;
		goto cleanup;
	}
	*len = fread(*buf, 1, (size_t)size, f);
	if (ferror(f)) {
		err = -EIO;
		free(*buf);
		*buf = NULL;
	}
cleanup:
	fclose(f);
	return err;
}

typedef int (*parse_fn)(const char *json, size_t len, struct ps_ctr_names *n);

/* Parse root/path with parse, if it is there. 0, or -errno. */
static int read_with(const char *root, const char *path, parse_fn parse, struct ps_ctr_names *n)
{
	char *buf;
	size_t len;
	int err = slurp(root, path, &buf, &len);

	if (!err)
		err = parse(buf, len, n);
	free(buf);
	return err;
}

/* containers/storage's records of id: the persistent list, then the
 * volatile ones (podman's --rm containers, CRI-O's), on disk and in /run. */
static int read_storage(const char *root, const char *id, struct ps_ctr_names *n)
{
	static const char *const lists[] = {
		"/var/lib/containers/storage/overlay-containers/containers.json",
		"/var/lib/containers/storage/overlay-containers/volatile-containers.json",
		"/run/containers/storage/overlay-containers/volatile-containers.json",
	};
	int err = -ENOENT;

	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]) && err; i++) {
		char *buf;
		size_t len;

		if (slurp(root, lists[i], &buf, &len))
			continue;
		err = ps_ctr_names_storage(buf, len, id, n);
		free(buf);
	}
	return err;
}

/* A container in containers/storage (podman, CRI-O): its OCI config, in
 * the runtime's static directory or in /run, then the storage records. */
static int read_libpod(const char *root, const char *id, struct ps_ctr_names *n)
{
	static const char *const dirs[] = { "/var/lib", "/run" };
	char path[PATH_MAX];
	int err = -ENOENT;

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]) && err; i++) {
		snprintf(path, sizeof(path),
			 "%s/containers/storage/overlay-containers/%s/userdata/config.json",
			 dirs[i], id);
		err = read_with(root, path, ps_ctr_names_oci, n);
	}
	if (!read_storage(root, id, n))
		err = 0;
	return err;
}

/* A containerd task's bundle, in whichever of containerd's namespaces. */
static int read_containerd(const char *root, const char *id, struct ps_ctr_names *n)
{
	const char *tasks = "/run/containerd/io.containerd.runtime.v2.task";
	char dir[PATH_MAX], path[PATH_MAX];
	struct dirent *d;
	DIR *ns;
	int err = -ENOENT;

	snprintf(dir, sizeof(dir), "%s%s", root, tasks);
	ns = opendir(dir);
	if (!ns)
		return -ENOENT;
	while (err && (d = readdir(ns))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/%s/config.json", tasks, d->d_name, id);
		err = read_with(root, path, ps_ctr_names_oci, n);
	}
	closedir(ns);
	return err;
}

int ps_ctr_names_read(const char *root, const struct ps_container *c, struct ps_ctr_names *n)
{
	char path[PATH_MAX];

	memset(n, 0, sizeof(*n));
	switch (c->kind) {
	case PS_CONTAINER_DOCKER:
		snprintf(path, sizeof(path), "/var/lib/docker/containers/%s/config.v2.json", c->id);
		return read_with(root, path, ps_ctr_names_docker, n);
	case PS_CONTAINER_PODMAN:
	case PS_CONTAINER_CRIO:
		return read_libpod(root, c->id, n);
	case PS_CONTAINER_CONTAINERD:
		return read_containerd(root, c->id, n);
	default:
		return -ENOENT;
	}
}
