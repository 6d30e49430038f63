// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bpfmaps.h"
#include "log.h"

void ps_maps_close(struct ps_maps *m)
{
	int *fds[] = { &m->events_fd, &m->counters_fd, &m->cpu_seq_fd, &m->sampler_fd,
		       &m->ring_fd };

	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}

static int map_create(enum bpf_map_type type, const char *name,
		      uint32_t key_size, uint32_t value_size, uint32_t max)
{
	int fd = bpf_map_create(type, name, key_size, value_size, max, NULL);
	int err = -errno; /* before logging can change errno */

	if (fd >= 0)
		return fd;
	pr_err("cannot create BPF map %s: %s\n", name, strerror(-err));
	return err;
}

int ps_maps_create(struct ps_maps *m, uint32_t ring_bytes)
{
	m->events_fd = m->counters_fd = m->cpu_seq_fd = m->sampler_fd = -1;
	m->ring_fd = -1;
	m->iface_count = 0;
	m->ncpus = libbpf_num_possible_cpus();
	if (m->ncpus <= 0) {
		pr_err("cannot count possible CPUs: %s\n", strerror(-m->ncpus));
		return m->ncpus ? m->ncpus : -EINVAL;
	}
	m->events_fd = map_create(BPF_MAP_TYPE_PERF_EVENT_ARRAY, "events",
				  sizeof(uint32_t), sizeof(uint32_t), m->ncpus);
	m->counters_fd = map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "counters",
				    sizeof(uint32_t), sizeof(struct ps_counters),
				    PS_COUNTER_SLOTS);
	m->cpu_seq_fd = map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "cpu_seq",
				   sizeof(uint32_t), sizeof(uint64_t), 1);
	m->sampler_fd = map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "sampler",
				   sizeof(uint32_t), sizeof(struct ps_sampler), 1);
	m->ring_fd = map_create(BPF_MAP_TYPE_RINGBUF, "ring", 0, 0,
				ring_bytes ? ring_bytes : (uint32_t)sysconf(_SC_PAGESIZE));
	if (m->events_fd < 0 || m->counters_fd < 0 || m->cpu_seq_fd < 0 ||
	    m->sampler_fd < 0 || m->ring_fd < 0) {
		int err = m->events_fd < 0 ? m->events_fd :
			  m->counters_fd < 0 ? m->counters_fd :
			  m->cpu_seq_fd < 0 ? m->cpu_seq_fd :
			  m->sampler_fd < 0 ? m->sampler_fd : m->ring_fd;
		ps_maps_close(m);
		return err;
	}
	return 0;
}

int ps_maps_reuse(const struct ps_maps *m, struct bpf_object *obj)
{
	static const char *const names[] = { "events", "counters", "cpu_seq", "sampler",
					     "ring" };
	const int fds[] = { m->events_fd, m->counters_fd, m->cpu_seq_fd, m->sampler_fd,
			    m->ring_fd };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct bpf_map *map = bpf_object__find_map_by_name(obj, names[i]);
		int err;

		if (!map) {
			pr_err("BPF object %s has no map %s\n",
			       bpf_object__name(obj), names[i]);
			return -ENOENT;
		}
		err = bpf_map__reuse_fd(map, fds[i]);
		if (err) {
			pr_err("cannot share map %s: %s\n", names[i], strerror(-err));
			return err;
		}
	}
	return 0;
}

/* The slot of ifindex in the list, or -ENOENT. */
static int iface_slot(const struct ps_maps *m, uint32_t ifindex)
{
	for (uint32_t i = 0; i < m->iface_count; i++)
		if (m->ifindexes[i] == ifindex)
			return (int)i;
	return -ENOENT;
}

int ps_maps_add_iface(struct ps_maps *m, uint32_t ifindex)
{
	if (iface_slot(m, ifindex) >= 0)
		return 0;
	if (m->iface_count == PS_MAX_IFACES) {
		pr_err("cannot add counters: at most %d interfaces\n", PS_MAX_IFACES);
		return -E2BIG;
	}
	/* The array's entries start zeroed: nothing to write. */
	m->ifindexes[m->iface_count++] = ifindex;
	return 0;
}

void ps_counters_add(struct ps_counters *sum, const struct ps_counters *c)
{
	sum->seen += c->seen;
	sum->filtered += c->filtered;
	sum->sampled_out += c->sampled_out;
	sum->rate_limited += c->rate_limited;
	sum->emitted += c->emitted;
	sum->output_errors += c->output_errors;
}

int ps_maps_read_counter(const struct ps_maps *m, uint32_t ifindex,
			 unsigned int hook, struct ps_counters *sum)
{
	int slot = iface_slot(m, ifindex);
	struct ps_counters *v;
	uint32_t key;
	int err = 0;

	memset(sum, 0, sizeof(*sum));
	if (slot < 0 || hook >= PS_HOOK_MAX)
		return -ENOENT;
	key = (uint32_t)slot * PS_HOOK_MAX + hook;
	v = calloc(m->ncpus, sizeof(*v));
	if (!v)
		return -ENOMEM;
	if (bpf_map_lookup_elem(m->counters_fd, &key, v)) {
		err = -errno;
		goto out;
	}
	for (int i = 0; i < m->ncpus; i++)
		ps_counters_add(sum, &v[i]);
out:
	free(v);
	return err;
}

int ps_maps_read_sampler(const struct ps_maps *m, struct ps_sampler *per_cpu)
{
	uint32_t zero = 0;

	if (bpf_map_lookup_elem(m->sampler_fd, &zero, per_cpu))
		return -errno;
	return 0;
}
