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
	m->ncpus = libbpf_num_possible_cpus();
	if (m->ncpus <= 0) {
		pr_err("cannot count possible CPUs: %s\n", strerror(-m->ncpus));
		return m->ncpus ? m->ncpus : -EINVAL;
	}
	m->events_fd = map_create(BPF_MAP_TYPE_PERF_EVENT_ARRAY, "events",
				  sizeof(uint32_t), sizeof(uint32_t), m->ncpus);
	m->counters_fd = map_create(BPF_MAP_TYPE_PERCPU_HASH, "counters",
				    sizeof(struct ps_counter_key),
				    sizeof(struct ps_counters),
				    PS_COUNTERS_MAX_ENTRIES);
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

int ps_maps_add_counter(const struct ps_maps *m, uint32_t ifindex,
			unsigned int hook)
{
	struct ps_counter_key key = { .ifindex = ifindex, .hook = hook };
	struct ps_counters *zero = calloc(m->ncpus, sizeof(*zero));
	int err;

	if (!zero)
		return -ENOMEM;
	err = bpf_map_update_elem(m->counters_fd, &key, zero, BPF_NOEXIST);
	err = err ? -errno : 0;
	free(zero);
	if (err && err != -EEXIST) {
		pr_err("cannot add counters: %s\n", strerror(-err));
		return err;
	}
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
	struct ps_counter_key key = { .ifindex = ifindex, .hook = hook };
	struct ps_counters *v = calloc(m->ncpus, sizeof(*v));
	int err = 0;

	memset(sum, 0, sizeof(*sum));
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
