// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "dropnames.h"
#include "log.h"
#include "pktsample.h"

/* The reasons' prefixes in the enum: SKB_DROP_REASON_NO_SOCKET, and the
 * two that are no drop, SKB_NOT_DROPPED_YET and SKB_CONSUMED. */
static const char *strip(const char *name)
{
	static const char *const prefixes[] = { "SKB_DROP_REASON_", "SKB_" };

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return name + strlen(prefixes[i]);
	return name;
}

int ps_dropnames_add_btf(struct ps_dropnames *d, const struct btf *btf)
{
	int id = btf__find_by_name_kind(btf, "skb_drop_reason", BTF_KIND_ENUM);
	const struct btf_type *t;
	const struct btf_enum *e;
	uint32_t max = 0;

	if (id < 0)
		return -ENOENT;
	t = btf__type_by_id(btf, id);
	e = btf_enum(t);
	d->consumed = UINT32_MAX;
	/* Values below the subsystem bits only: the MAX marker bounds them. */
	for (int i = 0; i < btf_vlen(t); i++)
		if ((uint32_t)e[i].val < 0x10000 && (uint32_t)e[i].val + 1 > max)
			max = (uint32_t)e[i].val + 1;
	d->reasons = calloc(max ? max : 1, sizeof(*d->reasons));
	if (!d->reasons)
		return -ENOMEM;
	d->n_reasons = max;
	for (int i = 0; i < btf_vlen(t); i++) {
		const char *name = btf__name_by_offset(btf, e[i].name_off);
		uint32_t v = (uint32_t)e[i].val;

		if (!name || v >= max)
			continue;
		if (!strcmp(name, "SKB_CONSUMED"))
			d->consumed = v;
		/* The marker past the last reason is none. */
		if (!strcmp(name, "SKB_DROP_REASON_MAX") || d->reasons[v])
			continue;
		d->reasons[v] = strdup(strip(name));
		if (!d->reasons[v])
			return -ENOMEM;
	}
	return 0;
}

int ps_dropnames_add_unexplained(struct ps_dropnames *d)
{
	const uint32_t v = PS_DROP_REASON_NOT_SPECIFIED;

	d->consumed = UINT32_MAX;
	d->reasons = calloc(v + 1, sizeof(*d->reasons));
	if (!d->reasons)
		return -ENOMEM;
	d->n_reasons = v + 1;
	d->reasons[v] = strdup("NOT_SPECIFIED");
	return d->reasons[v] ? 0 : -ENOMEM;
}

static int by_addr(const void *a, const void *b)
{
	const struct ps_ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

int ps_dropnames_add_kallsyms(struct ps_dropnames *d, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	size_t cap_syms = 0, cap_names = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *line_end = nl ? nl : end;
		char line[256], type, name[200];
		unsigned long long addr;
		size_t n = (size_t)(line_end - p), need;

		if (n < sizeof(line)) {
			memcpy(line, p, n);
			line[n] = '\0';
			/* "ffffffff81000000 T _stext [module]" */
			if (sscanf(line, "%llx %c %199s", &addr, &type, name) == 3 && addr &&
			    (type == 't' || type == 'T')) {
				need = strlen(name) + 1;
				if (d->n_syms == cap_syms) {
					struct ps_ksym *s;

					cap_syms = cap_syms ? cap_syms * 2 : 4096;
					s = realloc(d->syms, cap_syms * sizeof(*s));
					if (!s)
						return -ENOMEM;
					d->syms = s;
				}
				if (d->sym_names_len + need > cap_names) {
					char *s;

					cap_names = (d->sym_names_len + need) * 2;
					s = realloc(d->sym_names, cap_names);
					if (!s)
						return -ENOMEM;
					d->sym_names = s;
				}
				memcpy(d->sym_names + d->sym_names_len, name, need);
				d->syms[d->n_syms++] = (struct ps_ksym){
					.addr = addr, .name = (uint32_t)d->sym_names_len
				};
				d->sym_names_len += need;
			}
		}
		p = line_end + 1;
	}
	if (d->n_syms)
		qsort(d->syms, d->n_syms, sizeof(*d->syms), by_addr);
	return 0;
}

bool ps_dropnames_has(const struct ps_dropnames *d, const char *name)
{
	for (uint32_t v = 0; v < d->n_reasons; v++)
		if (d->reasons[v] && !strcmp(d->reasons[v], name))
			return true;
	return false;
}

const char *ps_dropnames_reason(const struct ps_dropnames *d, uint32_t reason, char *buf,
				size_t len)
{
	if (reason < d->n_reasons && d->reasons[reason])
		return d->reasons[reason];
	if (reason >> 16)
		snprintf(buf, len, "SUBSYS_%u_0x%x", reason >> 16, reason & 0xffff);
	else
		snprintf(buf, len, "REASON_%u", reason);
	return buf;
}

void ps_dropnames_at(const struct ps_dropnames *d, uint64_t addr, char *buf, size_t len)
{
	size_t lo = 0, hi = d->n_syms;

	/* The last symbol at or below addr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo) {
		snprintf(buf, len, "0x%" PRIx64, addr);
		return;
	}
	snprintf(buf, len, "%s+0x%" PRIx64, d->sym_names + d->syms[lo - 1].name,
		 addr - d->syms[lo - 1].addr);
}

static int read_file(const char *path, char **text, size_t *len)
{
	size_t cap = 1 << 20, n = 0;
	char *buf = malloc(cap);
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = 0;

	if (fd < 0 || !buf) {
		err = fd < 0 ? -errno : -ENOMEM;
		goto out;
	}
	for (;;) {
		ssize_t r;

		if (n == cap) {
			char *b = realloc(buf, cap * 2);

			if (!b) {
				err = -ENOMEM;
				goto out;
			}
			buf = b;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = -errno;
			goto out;
		}
		if (!r)
			break;
		n += (size_t)r;
	}
	*text = buf;
	*len = n;
	buf = NULL;
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return err;
}

int ps_dropnames_load(struct ps_dropnames *d)
{
	struct btf *vmlinux;
	char *text = NULL;
	size_t len = 0;
	int err;

	memset(d, 0, sizeof(*d));
	d->consumed = UINT32_MAX;
	vmlinux = btf__load_vmlinux_btf();
	err = libbpf_get_error(vmlinux);
	if (err) {
		pr_err("cannot capture drops: the kernel has no BTF (/sys/kernel/btf/vmlinux) to "
		       "read its drop reasons from\n");
		return -ENOENT;
	}
	/* The raw tracepoint's type. Its reason argument came with the enum
	 * (5.17); before, every drop is unexplained (kfeatures.h says so). */
	if (btf__find_by_name_kind(vmlinux, "btf_trace_kfree_skb", BTF_KIND_TYPEDEF) < 0) {
		pr_err("cannot capture drops: the kernel has no kfree_skb tracepoint\n");
		btf__free(vmlinux);
		return -ENOENT;
	}
	err = ps_dropnames_add_btf(d, vmlinux);
	if (err == -ENOENT)
		err = ps_dropnames_add_unexplained(d);
	btf__free(vmlinux);
	if (err) {
		pr_err("cannot read the kernel's drop reasons: %s\n", strerror(-err));
		ps_dropnames_free(d);
		return err;
	}
	/* Without kallsyms (or with its addresses hidden) places show as
	 * addresses: no reason to refuse the capture. */
	err = read_file("/proc/kallsyms", &text, &len);
	if (!err)
		err = ps_dropnames_add_kallsyms(d, text, len);
	free(text);
	if (err == -ENOMEM) {
		pr_err("cannot read the kernel's symbols: %s\n", strerror(ENOMEM));
		ps_dropnames_free(d);
		return err;
	}
	if (!d->n_syms)
		pr_warn("drop: the kernel's symbols are not readable; places are addresses\n");
	return 0;
}

void ps_dropnames_free(struct ps_dropnames *d)
{
	for (uint32_t i = 0; d->reasons && i < d->n_reasons; i++)
		free(d->reasons[i]);
	free(d->reasons);
	free(d->syms);
	free(d->sym_names);
	memset(d, 0, sizeof(*d));
	d->consumed = UINT32_MAX;
}
