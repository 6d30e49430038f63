// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include "log.h"
#include "pktsample.h"
#include "source.h"

/* The largest perf record: its size field is 16 bits. */
#define PERF_RECORD_MAX 0x10000u
/* The largest sample a ring record holds: ps_meta and the largest snap
 * length (bpf/output.bpf.h). */
#define RING_RECORD_MAX (sizeof(struct ps_meta) + PS_SNAPLEN_MAX)

static void source_reset(struct ps_source *s)
{
	memset(s, 0, sizeof(*s));
	s->fd = -1;
	s->cpu = s->last_cpu = -1;
}

int ps_source_open_perf(struct ps_source *s, int cpu, const struct perf_event_attr *attr,
			unsigned int pages, int map_fd)
{
	long page_size = sysconf(_SC_PAGESIZE);
	struct perf_event_mmap_page *up;
	int err;

	source_reset(s);
	s->kind = PS_SOURCE_PERF;
	s->cpu = s->last_cpu = cpu;
	s->fd = (int)syscall(__NR_perf_event_open, attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (s->fd < 0)
		return -errno;
	s->map_len = ((size_t)pages + 1) * page_size;
	s->map = mmap(NULL, s->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, 0);
	if (s->map == MAP_FAILED) {
		err = -errno;
		s->map = NULL;
		goto fail;
	}
	s->bounce = malloc(PERF_RECORD_MAX);
	if (!s->bounce) {
		err = -ENOMEM;
		goto fail;
	}
	up = s->map;
	s->head = (volatile uint64_t *)&up->data_head;
	s->tail = (volatile uint64_t *)&up->data_tail;
	s->data = (uint8_t *)s->map + page_size;
	s->mask = (uint64_t)pages * page_size - 1;
	s->read = s->released = *s->tail;
	if (bpf_map_update_elem(map_fd, &cpu, &s->fd, BPF_ANY)) {
		err = -errno;
		goto fail;
	}
	if (ioctl(s->fd, PERF_EVENT_IOC_ENABLE, 0)) {
		err = -errno;
		goto fail;
	}
	return 0;
fail:
	ps_source_close(s);
	return err;
}

int ps_source_open_memory(struct ps_source *s, int cpu, void *area, size_t data_bytes)
{
	struct perf_event_mmap_page *up = area;

	source_reset(s);
	s->kind = PS_SOURCE_PERF;
	s->cpu = s->last_cpu = cpu;
	s->bounce = malloc(PERF_RECORD_MAX);
	if (!s->bounce)
		return -ENOMEM;
	s->head = (volatile uint64_t *)&up->data_head;
	s->tail = (volatile uint64_t *)&up->data_tail;
	s->data = (uint8_t *)(up + 1);
	s->mask = data_bytes - 1;
	s->read = s->released = *s->tail;
	return 0;
}

int ps_source_open_ring_memory(struct ps_source *s, int cpu, void *area, size_t data_bytes)
{
	uint64_t *pos = area;

	source_reset(s);
	s->kind = PS_SOURCE_RING;
	s->cpu = s->last_cpu = cpu;
	s->tail = &pos[0];
	s->head = &pos[1];
	s->data = (uint8_t *)(pos + 2);
	s->mask = data_bytes - 1;
	s->read = s->released = *s->tail;
	return 0;
}

/* Map the ring map fd of ring_bytes into s. 0 or -errno. */
static int map_ring(struct ps_source *s, int fd, uint32_t ring_bytes)
{
	long page_size = sysconf(_SC_PAGESIZE);

	/* The consumer's page, which we write, then the producer's page and
	 * the data, read-only. The kernel would map the data twice in a row,
	 * so that no record wraps; mapped once, each page counts once in the
	 * RSS and is mapped once at the start, at the default -B a visible
	 * part of both (doc/performance.md#start-up), and the rare record
	 * that wraps is copied whole, as a perf buffer's is. */
	s->bounce = malloc(ring_bytes < RING_RECORD_MAX ? ring_bytes : RING_RECORD_MAX);
	if (!s->bounce)
		return -ENOMEM;
	s->pos_map = mmap(NULL, page_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (s->pos_map == MAP_FAILED) {
		s->pos_map = NULL;
		return -errno;
	}
	s->map_len = (size_t)page_size + (size_t)ring_bytes;
	s->map = mmap(NULL, s->map_len, PROT_READ, MAP_SHARED, fd, page_size);
	if (s->map == MAP_FAILED) {
		s->map = NULL;
		return -errno;
	}
	s->tail = s->pos_map;
	s->head = s->map;
	s->data = (uint8_t *)s->map + page_size;
	s->mask = ring_bytes - 1;
	s->read = s->released = *s->tail;
	return 0;
}

int ps_source_open_ring(struct ps_source *s, int cpu, uint32_t ring_bytes)
{
	int err;

	source_reset(s);
	s->kind = PS_SOURCE_RING;
	s->cpu = s->last_cpu = cpu;
	s->fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "ps_ring", 0, 0, ring_bytes, NULL);
	if (s->fd < 0) {
		err = -errno;
		s->fd = -1;
		goto fail;
	}
	err = map_ring(s, s->fd, ring_bytes);
	if (err)
		ps_source_close(s);
fail:
	/* A ring's pages are charged to the capture's memory cgroup; perf
	 * buffers' are not (doc/performance.md#transport). */
	if (err)
		pr_err("cannot make the BPF ring buffer of CPU %d (%u KiB): %s%s\n", cpu,
		       ring_bytes / 1024, strerror(-err),
		       err == -ENOMEM ?
			       " (rings are charged to the capture's memory cgroup: a "
			       "smaller buffer may fit, or the perf buffers, which are not)" :
			       "");
	return err;
}

/*
 * In one batch: the kernel waits for an RCU grace period after each
 * update of a map of maps, so that no program still runs with the old
 * value, and ring by ring those waits add up to a visible part of the
 * start; a batch takes a fraction of that (doc/performance.md#start-up).
 * A kernel without batches for this map (before 5.6, or its map type)
 * has them put in one by one.
 */
int ps_source_publish_rings(int rings_fd, const struct ps_source *src, int n, const bool *online)
{
	uint32_t *keys = NULL, count = 0;
	int *fds = NULL, err = 0, slots = 0;

	for (int i = 0; i < n; i++)
		slots += src[i].last_cpu - src[i].cpu + 1;
	keys = calloc((size_t)slots + 1, sizeof(*keys));
	fds = calloc((size_t)slots + 1, sizeof(*fds));
	if (!keys || !fds) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (int i = 0; i < n; i++)
		for (int cpu = src[i].cpu; cpu <= src[i].last_cpu; cpu++) {
			if (!online[cpu])
				continue;
			keys[count] = (uint32_t)cpu;
			fds[count++] = src[i].fd;
		}
	slots = (int)count;
	if (!count || !bpf_map_update_batch(rings_fd, keys, fds, &count, NULL))
		goto cleanup;
	for (int i = 0; i < slots && !err; i++)
		if (bpf_map_update_elem(rings_fd, &keys[i], &fds[i], BPF_ANY))
			err = -errno;
cleanup:
	if (err)
		pr_err("cannot put the BPF ring buffers in the programs' map: %s\n",
		       strerror(-err));
	free(keys);
	free(fds);
	return err;
}

void ps_source_close(struct ps_source *s)
{
	long page_size = sysconf(_SC_PAGESIZE);

	if (s->map)
		munmap(s->map, s->map_len);
	if (s->pos_map)
		munmap(s->pos_map, page_size);
	if (s->fd >= 0)
		close(s->fd);
	free(s->bounce);
	source_reset(s);
}

uint64_t ps_source_head(const struct ps_source *s)
{
	return __atomic_load_n(s->head, __ATOMIC_ACQUIRE);
}

struct perf_sample_raw {
	struct perf_event_header header;
	uint32_t size;
	uint8_t data[];
};

struct perf_lost {
	struct perf_event_header header;
	uint64_t id;
	uint64_t lost;
};

/*
 * The next record's header and metadata, asked for while this one is
 * handled: another CPU's core wrote them, so each is a cache miss, and a
 * flood's records come one after another (the reader's time per record in
 * `perf record` was mostly its first read of the metadata).
 */
static inline void prefetch_next(const struct ps_source *s)
{
	const uint8_t *next = s->data + (s->read & s->mask);

	__builtin_prefetch(next);
	__builtin_prefetch(next + 64);
}

/* len bytes at offset off of the data: in place, or copied whole into the
 * bounce buffer where they wrap around its end. */
static const uint8_t *whole(struct ps_source *s, uint64_t off, uint64_t len)
{
	uint64_t room = s->mask + 1 - off;

	if (len <= room)
		return s->data + off;
	memcpy(s->bounce, s->data + off, room);
	memcpy(s->bounce + room, s->data, len - room);
	return s->bounce;
}

static enum ps_source_next perf_next(struct ps_source *s, uint64_t upto, struct ps_source_rec *rec)
{
	while (s->read < upto) {
		uint64_t off = s->read & s->mask;
		/* Records are 8-byte aligned and the data area is pages: a
		 * header never wraps, the rest may. */
		const struct perf_event_header *h = (const void *)(s->data + off);
		uint32_t size = h->size;
		const uint8_t *p;

		if (size < sizeof(*h) || size % 8) {
			/* The kernel writes whole, aligned records: what is
			 * left cannot be parsed, and is skipped. */
			s->corrupt += upto - s->read;
			s->read = upto;
			break;
		}
		if (s->read + size > upto)
			break; /* upto was a budget, not the producer: next time */
		p = whole(s, off, size);
		rec->pos = s->read;
		s->read += size;
		prefetch_next(s);
		if (h->type == PERF_RECORD_SAMPLE) {
			const struct perf_sample_raw *r = (const void *)p;

			if (size < sizeof(*r) || r->size > size - sizeof(*r)) {
				rec->raw = NULL; /* malformed: the caller counts it */
				rec->size = 0;
			} else {
				rec->raw = r->data;
				rec->size = r->size;
			}
			return PS_SOURCE_SAMPLE;
		}
		if (h->type == PERF_RECORD_LOST && size >= sizeof(struct perf_lost))
			s->lost += ((const struct perf_lost *)p)->lost;
	}
	return PS_SOURCE_END;
}

/* What a ring record of header length word len takes of the ring. */
static uint32_t ring_rec_size(uint32_t len)
{
	return ((len & ~BPF_RINGBUF_DISCARD_BIT) + BPF_RINGBUF_HDR_SZ + 7) & ~7u;
}

static enum ps_source_next ring_next(struct ps_source *s, uint64_t upto, struct ps_source_rec *rec)
{
	while (s->read < upto) {
		const uint8_t *h = s->data + (s->read & s->mask);
		uint32_t len = __atomic_load_n((const uint32_t *)h, __ATOMIC_ACQUIRE);
		uint32_t size;

		if (len & BPF_RINGBUF_BUSY_BIT)
			return PS_SOURCE_BUSY;
		size = ring_rec_size(len);
		rec->pos = s->read;
		s->read += size;
		prefetch_next(s);
		if (!(len & BPF_RINGBUF_DISCARD_BIT)) {
			/* Its data is mapped once: the sample may wrap (the
			 * 8-byte header at an 8-byte offset never does). */
			rec->raw = whole(s, (rec->pos + BPF_RINGBUF_HDR_SZ) & s->mask, len);
			rec->size = len;
			return PS_SOURCE_SAMPLE;
		}
	}
	return PS_SOURCE_END;
}

uint64_t ps_source_ring_scan(const struct ps_source *s, uint64_t from, uint64_t upto, uint32_t off,
			     void (*each)(void *arg, uint32_t v, uint64_t pos), void *arg)
{
	uint64_t at = from;

	while (at < upto) {
		const uint8_t *h = s->data + (at & s->mask);
		uint32_t len = __atomic_load_n((const uint32_t *)h, __ATOMIC_ACQUIRE), v;

		if (len & BPF_RINGBUF_BUSY_BIT)
			break;
		/* A record starts 8-aligned and the area is a power of two:
		 * a 4-aligned field never wraps. */
		if (!(len & BPF_RINGBUF_DISCARD_BIT) && len >= off + sizeof(v)) {
			memcpy(&v, s->data + ((at + BPF_RINGBUF_HDR_SZ + off) & s->mask),
			       sizeof(v));
			each(arg, v, at);
		}
		at += ring_rec_size(len);
	}
	return at;
}

enum ps_source_next ps_source_next(struct ps_source *s, uint64_t upto, struct ps_source_rec *rec)
{
	return s->kind == PS_SOURCE_PERF ? perf_next(s, upto, rec) : ring_next(s, upto, rec);
}

void ps_source_release(struct ps_source *s, uint64_t pos)
{
	/* Not checked against s->read: with reader threads that is another
	 * thread's; the merge gives back only what a reader reported read. */
	if (pos <= s->released)
		return;
	s->released = pos;
	__atomic_store_n(s->tail, pos, __ATOMIC_RELEASE);
}

int ps_cpu_list_parse(const char *list, bool *online, int n)
{
	const char *p = list;
	int count = 0;

	if (online)
		memset(online, 0, (size_t)n * sizeof(*online));
	while (*p && *p != '\n') {
		char *end;
		long a = strtol(p, &end, 10), b = a;

		if (end == p || a < 0)
			return -EINVAL;
		p = end;
		if (*p == '-') {
			b = strtol(p + 1, &end, 10);
			if (end == p + 1 || b < a)
				return -EINVAL;
			p = end;
		}
		count += (int)(b - a + 1);
		for (long i = a; online && i <= b && i < n; i++)
			online[i] = true;
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			return -EINVAL;
	}
	return count;
}

int ps_online_cpus(bool *online, int n)
{
	char list[4096] = "";
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");
	int count = -EINVAL;

	if (f) {
		if (fgets(list, sizeof(list), f))
			count = ps_cpu_list_parse(list, online, n);
		fclose(f);
	}
	if (count <= 0) {
		for (int i = 0; online && i < n; i++)
			online[i] = true;
		count = n > 0 ? n : 1;
	}
	return count;
}
