// SPDX-License-Identifier: GPL-2.0-only
#define _GNU_SOURCE /* memmem */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include "container.h"

#define ID_LEN 64
#define SHORT_ID 12

static bool all_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i]))
			return false;
	return true;
}

/* comp (len n) is PREFIX<64 hex>SUFFIX: the id into id. */
static bool id_between(const char *comp, size_t n, const char *prefix, const char *suffix, char *id)
{
	size_t p = strlen(prefix), s = strlen(suffix);

	if (n != p + ID_LEN + s || strncmp(comp, prefix, p) ||
	    strncmp(comp + p + ID_LEN, suffix, s))
		return false;
	if (!all_hex(comp + p, ID_LEN))
		return false;
	memcpy(id, comp + p, ID_LEN);
	id[ID_LEN] = '\0';
	return true;
}

static bool ends_with(const char *comp, size_t n, const char *suffix)
{
	size_t s = strlen(suffix);

	return n > s && !strncmp(comp + n - s, suffix, s);
}

/* A container's cgroup: the runtime and the id. */
static enum ps_container_kind container_of(const char *comp, size_t n, const char *parent,
					   size_t pn, char *id)
{
	if (id_between(comp, n, "docker-", ".scope", id))
		return PS_CONTAINER_DOCKER;
	if (id_between(comp, n, "libpod-", ".scope", id) || id_between(comp, n, "libpod-", "", id))
		return PS_CONTAINER_PODMAN;
	if (id_between(comp, n, "cri-containerd-", ".scope", id))
		return PS_CONTAINER_CONTAINERD;
	if (id_between(comp, n, "crio-", ".scope", id))
		return PS_CONTAINER_CRIO;
	if (id_between(comp, n, "", "", id)) {
		/* cgroupfs drivers: the bare id, under the runtime's folder. */
		if (pn == 6 && !strncmp(parent, "docker", 6))
			return PS_CONTAINER_DOCKER;
		return PS_CONTAINER_CONTAINERD;
	}
	return PS_CONTAINER_NONE;
}

/* A Kubernetes pod's cgroup: kubepods-besteffort-pod<uid>.slice (systemd
 * driver, the uid's dashes as underscores) or pod<uid> (cgroupfs). */
static bool pod_of(const char *comp, size_t n, char *uid, size_t len)
{
	const char *p = NULL, *end = comp + n;
	size_t l;

	if (n > 3 && !strncmp(comp, "pod", 3)) {
		p = comp + 3;
	} else {
		if (!ends_with(comp, n, ".slice") || !memmem(comp, n, "kubepods", 8))
			return false;
		end -= 6;
		for (const char *q = comp; q + 4 <= end; q++)
			if (!strncmp(q, "-pod", 4))
				p = q + 4;
		if (!p)
			return false;
	}
	l = (size_t)(end - p);
	if (l < 32 || l >= len)
		return false;
	for (size_t i = 0; i < l; i++) {
		if (!isxdigit((unsigned char)p[i]) && p[i] != '-' && p[i] != '_')
			return false;
		uid[i] = p[i] == '_' ? '-' : p[i];
	}
	uid[l] = '\0';
	return true;
}

void ps_container_of_path(const char *path, struct ps_container *c)
{
	const char *comps[64];
	size_t lens[64];
	int n = 0;
	char pod[sizeof(c->id)] = "", unit[sizeof(c->id)] = "";

	memset(c, 0, sizeof(*c));
	for (const char *s = path; *s && n < 64;) {
		size_t l;

		while (*s == '/')
			s++;
		l = strcspn(s, "/");
		if (l) {
			comps[n] = s;
			lens[n++] = l;
		}
		s += l;
	}
	for (int i = n - 1; i >= 0; i--) {
		enum ps_container_kind k = container_of(comps[i], lens[i], i ? comps[i - 1] : "",
							i ? lens[i - 1] : 0, c->id);

		if (k != PS_CONTAINER_NONE) {
			c->kind = k;
			return;
		}
		if (!pod[0])
			pod_of(comps[i], lens[i], pod, sizeof(pod));
		if (!unit[0] && lens[i] < sizeof(unit) &&
		    (ends_with(comps[i], lens[i], ".service") ||
		     ends_with(comps[i], lens[i], ".scope"))) {
			memcpy(unit, comps[i], lens[i]);
			unit[lens[i]] = '\0';
		}
	}
	if (pod[0]) {
		c->kind = PS_CONTAINER_K8S_POD;
		snprintf(c->id, sizeof(c->id), "%s", pod);
	} else if (unit[0]) {
		c->kind = PS_CONTAINER_UNIT;
		snprintf(c->id, sizeof(c->id), "%s", unit);
	}
}

static const char *kind_name(enum ps_container_kind k)
{
	switch (k) {
	case PS_CONTAINER_DOCKER:
		return "docker";
	case PS_CONTAINER_PODMAN:
		return "podman";
	case PS_CONTAINER_CONTAINERD:
		return "containerd";
	case PS_CONTAINER_CRIO:
		return "crio";
	case PS_CONTAINER_K8S_POD:
		return "pod";
	case PS_CONTAINER_UNIT:
		return "unit";
	default:
		return "";
	}
}

static bool is_runtime(enum ps_container_kind k)
{
	return k >= PS_CONTAINER_DOCKER && k <= PS_CONTAINER_CRIO;
}

void ps_container_name(const struct ps_container *c, char *buf, size_t len)
{
	if (c->kind == PS_CONTAINER_NONE)
		snprintf(buf, len, "%s", "");
	else if (is_runtime(c->kind))
		snprintf(buf, len, "%s:%.*s", kind_name(c->kind), SHORT_ID, c->id);
	else
		snprintf(buf, len, "%s:%s", kind_name(c->kind), c->id);
}

bool ps_container_matches(const struct ps_container *c, const char *what)
{
	char name[sizeof(c->id) + 16];
	size_t n = strlen(what);

	if (c->kind == PS_CONTAINER_NONE || !n)
		return false;
	ps_container_name(c, name, sizeof(name));
	if (!strcmp(what, name) || !strcmp(what, c->id))
		return true;
	/* An id's prefix, as docker and podman accept one. */
	return is_runtime(c->kind) && n >= 4 && n <= ID_LEN && !strncmp(c->id, what, n);
}
