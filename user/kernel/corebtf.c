// SPDX-License-Identifier: GPL-2.0-only
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <linux/btf.h>
#include <bpf/btf.h>
#include "corebtf.h"

/* BTF_KIND_* of newer headers than Debian 12's build may have. */
#define KIND_DECL_TAG 17
#define KIND_TYPE_TAG 18
#define KIND_ENUM64 19
#define KIND_MAX 19

/* Deeper than any path or typedef chain of a real kernel: the bound that
 * keeps a malformed BTF's cycles from recursing for ever. */
#define MAX_DEPTH 32
/* (composite, member) pairs the paths reach, and types copied: a few each. */
#define MAX_NEEDS 64
/* Members looked at per path: task_struct has 250, and anonymous structs
 * nest a few deep; a BTF whose anonymous members nest in each other by
 * the thousand is refused, not searched for hours. */
#define MAX_VISITS (1u << 16)

/*
 * The raw BTF as read: each type's record found by its id, from the record
 * of every STRIDE-th type on. An index of every type would be half a
 * megabyte for a kernel's, and its pages' first touch alone cost more than
 * the walk of all the types (doc/performance.md#start-up).
 */
#define STRIDE_SHIFT 6
struct raw {
	const uint8_t *types;
	uint32_t types_len;
	const char *strs;
	uint32_t strs_len;
	uint32_t *off; /* off[k]: the record of type (k << STRIDE_SHIFT) + 1 */
	uint32_t n;    /* types, void included */
};

/* A member the paths reach: member `index` of composite `id`. */
struct need {
	uint32_t id, index;
};

struct cut {
	const struct raw *r;
	struct need needs[MAX_NEEDS];
	size_t n_needs;
	uint32_t visits;			 /* members looked at for this path */
	uint32_t from[MAX_NEEDS], to[MAX_NEEDS]; /* types copied: old id, new id */
	size_t n_copied;
	struct btf *out;
};

/* A string of the string section, or NULL past its end or unterminated. */
static const char *str_at(const struct raw *r, uint32_t off)
{
	if (off >= r->strs_len || !memchr(r->strs + off, '\0', r->strs_len - off))
		return NULL;
	return r->strs + off;
}

/* The bytes that follow a type's header, by its kind; -1: a kind unknown. */
static long extra_of(const struct btf_type *t)
{
	uint32_t vlen = BTF_INFO_VLEN(t->info);

	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_INT:
	case BTF_KIND_VAR:
	case KIND_DECL_TAG:
		return 4;
	case BTF_KIND_ARRAY:
		return 12;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_DATASEC:
	case KIND_ENUM64:
		return 12L * vlen;
	case BTF_KIND_ENUM:
	case BTF_KIND_FUNC_PROTO:
		return 8L * vlen;
	case BTF_KIND_PTR:
	case BTF_KIND_FWD:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC:
	case BTF_KIND_FLOAT:
	case KIND_TYPE_TAG:
		return 0;
	default:
		return -1;
	}
}

/* The record at `at` (one raw_open checked), copied into *t: where the
 * next one starts. */
static uint32_t record_at(const struct raw *r, uint32_t at, struct btf_type *t)
{
	memcpy(t, r->types + at, sizeof(*t));
	return at + (uint32_t)(sizeof(*t) + (size_t)extra_of(t));
}

/* Where type id's record starts (id checked: 1..n-1, so every record on
 * the way was checked by raw_open). */
static uint32_t type_off(const struct raw *r, uint32_t id)
{
	uint32_t i = id - 1, at = r->off[i >> STRIDE_SHIFT];
	struct btf_type t;

	for (uint32_t k = i & ~((1u << STRIDE_SHIFT) - 1); k < i; k++)
		at = record_at(r, at, &t);
	return at;
}

/* Type id's header (copied: a fuzzer's bytes need not be aligned). */
static bool type_at(const struct raw *r, uint32_t id, struct btf_type *t)
{
	if (id == 0 || id >= r->n)
		return false;
	memcpy(t, r->types + type_off(r, id), sizeof(*t));
	return true;
}

/* The header checked and every type's record found: 0 or -EINVAL/-ENOMEM. */
static int raw_open(struct raw *r, const void *data, size_t len)
{
	struct btf_header h;
	uint32_t cap = 1024, at = 0;

	memset(r, 0, sizeof(*r));
	if (len < sizeof(h))
		return -EINVAL;
	memcpy(&h, data, sizeof(h));
	if (h.magic != BTF_MAGIC || h.version != BTF_VERSION || h.hdr_len < sizeof(h) ||
	    h.hdr_len > len || (uint64_t)h.type_off + h.type_len > len - h.hdr_len ||
	    (uint64_t)h.str_off + h.str_len > len - h.hdr_len)
		return -EINVAL;
	r->types = (const uint8_t *)data + h.hdr_len + h.type_off;
	r->types_len = h.type_len;
	r->strs = (const char *)data + h.hdr_len + h.str_off;
	r->strs_len = h.str_len;
	r->off = malloc(cap * sizeof(*r->off));
	if (!r->off)
		return -ENOMEM;
	r->n = 1; /* id 0 is void */
	while (at < r->types_len) {
		struct btf_type t;
		long extra;

		if (r->types_len - at < sizeof(t))
			return -EINVAL;
		memcpy(&t, r->types + at, sizeof(t));
		extra = extra_of(&t);
		if (extra < 0 || (uint64_t)r->types_len - at - sizeof(t) < (uint64_t)extra)
			return -EINVAL;
		if (!((r->n - 1) & ((1u << STRIDE_SHIFT) - 1))) {
			uint32_t k = (r->n - 1) >> STRIDE_SHIFT;

			if (k == cap) {
				uint32_t *more = realloc(r->off, 2 * cap * sizeof(*r->off));

				if (!more)
					return -ENOMEM;
				r->off = more;
				cap *= 2;
			}
			r->off[k] = at;
		}
		r->n++;
		at += (uint32_t)(sizeof(t) + (size_t)extra);
	}
	return 0;
}

/* Member i of the composite whose record starts at rec (type_off of an id
 * checked), copied. */
static void member_at(const struct raw *r, uint32_t rec, uint32_t i, struct btf_member *m)
{
	memcpy(m, r->types + rec + sizeof(struct btf_type) + (size_t)i * sizeof(*m), sizeof(*m));
}

static bool is_composite(const struct btf_type *t)
{
	return BTF_INFO_KIND(t->info) == BTF_KIND_STRUCT ||
	       BTF_INFO_KIND(t->info) == BTF_KIND_UNION;
}

/* Past typedefs and qualifiers, as libbpf looks: the type, or 0. */
static uint32_t skip_mods(const struct raw *r, uint32_t id, struct btf_type *t)
{
	for (int depth = 0; depth < MAX_DEPTH; depth++) {
		if (!type_at(r, id, t))
			return 0;
		switch (BTF_INFO_KIND(t->info)) {
		case BTF_KIND_TYPEDEF:
		case BTF_KIND_VOLATILE:
		case BTF_KIND_CONST:
		case BTF_KIND_RESTRICT:
		case KIND_TYPE_TAG:
			id = t->type;
			break;
		default:
			return id;
		}
	}
	return 0;
}

/*
 * The struct each path starts at, in one pass over every type: roots[i]
 * its id. 0, or -ENOENT (one is not there), -ENOTUNIQ (two have a name),
 * -EINVAL (a path without a member).
 */
static int find_roots(const struct raw *r, const char *const *paths, size_t n, uint32_t *roots)
{
	size_t lens[MAX_NEEDS];

	for (size_t i = 0; i < n; i++) {
		const char *dot = strchr(paths[i], '.');

		if (!dot || dot == paths[i])
			return -EINVAL;
		lens[i] = (size_t)(dot - paths[i]);
		roots[i] = 0;
	}
	/* Every struct of the kernel is looked at: its name compared
	 * in place, its bytes only as far as they can match. */
	for (uint32_t id = 1, at = 0; id < r->n; id++) {
		struct btf_type t;
		const char *s;

		at = record_at(r, at, &t);
		if (BTF_INFO_KIND(t.info) != BTF_KIND_STRUCT || !t.name_off ||
		    t.name_off >= r->strs_len)
			continue;
		s = r->strs + t.name_off;
		for (size_t i = 0; i < n; i++) {
			size_t len = lens[i];

			if (s[0] != paths[i][0] || r->strs_len - t.name_off <= len || s[len] ||
			    memcmp(s, paths[i], len))
				continue;
			if (roots[i] && roots[i] != id)
				return -ENOTUNIQ;
			roots[i] = id;
		}
	}
	for (size_t i = 0; i < n; i++)
		if (!roots[i])
			return -ENOENT;
	return 0;
}

static int need(struct cut *c, uint32_t id, uint32_t index)
{
	for (size_t i = 0; i < c->n_needs; i++)
		if (c->needs[i].id == id && c->needs[i].index == index)
			return 0;
	if (c->n_needs == MAX_NEEDS)
		return -ENOMEM;
	c->needs[c->n_needs++] = (struct need){ .id = id, .index = index };
	return 0;
}

/*
 * The member named name in composite id, directly or in its anonymous
 * structs and unions (the first in member order, as libbpf takes it):
 * each member on the way needed, the member's type id in *type.
 * 0, or -ENOENT, or an error.
 */
static int find_member(struct cut *c, uint32_t id, const char *name, size_t name_len, int depth,
		       uint32_t *type)
{
	const struct raw *r = c->r;
	struct btf_type t;
	uint32_t rec;

	if (depth >= MAX_DEPTH || !type_at(r, id, &t) || !is_composite(&t))
		return -ENOENT;
	rec = type_off(r, id);
	for (uint32_t i = 0; i < BTF_INFO_VLEN(t.info); i++) {
		struct btf_member m;
		struct btf_type mt;
		const char *s;
		uint32_t mid;
		int err;

		if (++c->visits > MAX_VISITS)
			return -EINVAL;
		member_at(r, rec, i, &m);
		if (!m.name_off) {
			mid = skip_mods(r, m.type, &mt);
			if (!mid || !is_composite(&mt))
				continue;
			err = find_member(c, mid, name, name_len, depth + 1, type);
			if (err == -ENOENT)
				continue;
			return err ? err : need(c, id, i);
		}
		s = str_at(r, m.name_off);
		if (s && !strncmp(s, name, name_len) && !s[name_len]) {
			*type = m.type;
			return need(c, id, i);
		}
	}
	return -ENOENT;
}

/* One path, from its struct (root) member by member. */
static int walk(struct cut *c, uint32_t root, const char *path)
{
	const char *dot = strchr(path, '.');
	struct btf_type t;
	uint32_t id = root, type;

	c->visits = 0;
	for (path = dot + 1; *path; path = dot + 1) {
		size_t len;
		int err;

		dot = strchrnul(path, '.');
		len = (size_t)(dot - path);
		err = len ? find_member(c, id, path, len, 0, &type) : -EINVAL;
		if (err)
			return err;
		if (!*dot)
			return 0;
		id = skip_mods(c->r, type, &t);
		if (!id || !is_composite(&t))
			return -ENOENT;
	}
	return -EINVAL;
}

static int copy_type(struct cut *c, uint32_t id, int depth);

/* A struct or union with the members asked for, after their types. */
static int copy_composite(struct cut *c, uint32_t id, const struct btf_type *t, int depth)
{
	const struct raw *r = c->r;
	const char *name = t->name_off ? str_at(r, t->name_off) : NULL;
	uint32_t rec = type_off(r, id);
	int types[MAX_NEEDS], made;
	uint32_t which[MAX_NEEDS];
	size_t n = 0;

	if (t->name_off && !name)
		return -EINVAL;
	for (size_t i = 0; i < c->n_needs; i++)
		if (c->needs[i].id == id)
			which[n++] = c->needs[i].index;
	for (size_t i = 0; i < n; i++) {
		struct btf_member m;

		member_at(r, rec, which[i], &m);
		types[i] = copy_type(c, m.type, depth + 1);
		if (types[i] < 0)
			return types[i];
	}
	made = BTF_INFO_KIND(t->info) == BTF_KIND_STRUCT ? btf__add_struct(c->out, name, t->size) :
							   btf__add_union(c->out, name, t->size);
	for (size_t i = 0; made > 0 && i < n; i++) {
		struct btf_member m;
		const char *mname;
		uint32_t bit = 0, bits = 0;
		int err;

		member_at(r, rec, which[i], &m);
		mname = m.name_off ? str_at(r, m.name_off) : NULL;
		if (m.name_off && !mname)
			return -EINVAL;
		bit = BTF_INFO_KFLAG(t->info) ? BTF_MEMBER_BIT_OFFSET(m.offset) : m.offset;
		bits = BTF_INFO_KFLAG(t->info) ? BTF_MEMBER_BITFIELD_SIZE(m.offset) : 0;
		err = btf__add_field(c->out, mname, types[i], bit, bits);
		if (err)
			return err;
	}
	return made;
}

/* Type id copied into the cut (once): its new id, or -errno. */
static int copy_type(struct cut *c, uint32_t id, int depth)
{
	const struct raw *r = c->r;
	struct btf_type t;
	uint32_t enc;
	int made;

	if (!id)
		return 0;
	if (depth >= MAX_DEPTH)
		return -EINVAL;
	id = skip_mods(r, id, &t);
	if (!id)
		return -EINVAL;
	for (size_t i = 0; i < c->n_copied; i++)
		if (c->from[i] == id)
			return (int)c->to[i];
	if (c->n_copied == MAX_NEEDS)
		return -ENOMEM;
	switch (BTF_INFO_KIND(t.info)) {
	case BTF_KIND_INT:
		memcpy(&enc, r->types + type_off(r, id) + sizeof(t), sizeof(enc));
		if (BTF_INT_OFFSET(enc) || !str_at(r, t.name_off))
			return -ENOTSUP;
		made = btf__add_int(c->out, str_at(r, t.name_off), (size_t)t.size,
				    BTF_INT_ENCODING(enc));
		break;
	case BTF_KIND_PTR:
		made = btf__add_ptr(c->out, 0);
		break;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		made = copy_composite(c, id, &t, depth);
		break;
	default:
		return -ENOTSUP;
	}
	if (made < 0)
		return made;
	c->from[c->n_copied] = id;
	c->to[c->n_copied++] = (uint32_t)made;
	return made;
}

struct btf *ps_corebtf_cut(const void *raw, size_t len, const char *const *paths, size_t n)
{
	struct raw r;
	struct cut c = { .r = &r };
	uint32_t roots[MAX_NEEDS];
	int err = raw_open(&r, raw, len);

	if (!err && n > MAX_NEEDS)
		err = -E2BIG;
	if (!err)
		err = find_roots(&r, paths, n, roots);
	for (size_t i = 0; !err && i < n; i++)
		err = walk(&c, roots[i], paths[i]);
	if (!err) {
		c.out = btf__new_empty();
		err = c.out ? 0 : -ENOMEM;
	}
	for (size_t i = 0; !err && i < n; i++) {
		int id = copy_type(&c, roots[i], 0);

		err = id < 0 ? id : 0;
	}
	free(r.off);
	if (err) {
		btf__free(c.out);
		errno = -err;
		return NULL;
	}
	return c.out;
}

/* The kernel's BTF: mapped (6.16+), else read; *len its size. */
static void *kernel_btf(size_t *len, bool *mapped)
{
	int fd = open("/sys/kernel/btf/vmlinux", O_RDONLY | O_CLOEXEC);
	struct stat st;
	uint8_t *p = NULL;
	size_t got = 0;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || st.st_size <= 0)
		goto out;
	*len = (size_t)st.st_size;
	p = mmap(NULL, *len, PROT_READ, MAP_PRIVATE, fd, 0);
	*mapped = p != MAP_FAILED;
	if (*mapped)
		goto out;
	p = malloc(*len);
	while (p && got < *len) {
		ssize_t r = read(fd, p + got, *len - got);

		if (r <= 0) {
			free(p);
			p = NULL;
			break;
		}
		got += (size_t)r;
	}
out:
	close(fd);
	return p;
}

int ps_corebtf_kernel_fd(const char *const *paths, size_t n)
{
	bool mapped = false;
	size_t len = 0;
	void *raw = kernel_btf(&len, &mapped);
	struct btf *cut;
	const void *bytes;
	__u32 size;
	int fd, err = 0;

	if (!raw)
		return errno ? -errno : -EIO;
	cut = ps_corebtf_cut(raw, len, paths, n);
	if (!cut)
		err = -errno;
	if (mapped)
		munmap(raw, len);
	else
		free(raw);
	if (err)
		return err;
	bytes = btf__raw_data(cut, &size);
	fd = bytes ? memfd_create("pktsample-core-btf", MFD_CLOEXEC) : -1;
	if (fd < 0 || write(fd, bytes, size) != (ssize_t)size) {
		err = fd < 0 && !bytes ? -ENOMEM : -errno;
		if (fd >= 0)
			close(fd);
		fd = err ? err : -EIO;
	}
	btf__free(cut);
	return fd;
}
