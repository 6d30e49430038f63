/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Where samples come from, read in place: the kernel's per-CPU perf
 * buffers, or BPF ring buffers, each a CPU's or a group's (consecutive
 * CPUs: user/ingest/ingest.h, PS_RING_SHARED_BELOW_KIB). A record is
 * handed out as a pointer into the mapped buffer, and the kernel may not
 * reuse its bytes until the ingest releases them, after every output has
 * taken them: that is what lets a packet go from the kernel's buffer to
 * the file without a copy in between (libbpf's readers hand the space back
 * as soon as the callback returns, so they cannot).
 *
 * Positions are the kernel's: byte offsets that only grow. A source reads
 * forward from `read`; `ps_source_release(s, pos)` gives the kernel back
 * everything before pos, which must be the start of a record not yet
 * written (or `read`).
 *
 * A record that wraps around the end of its buffer (perf's, or a ring's:
 * its data is mapped once, not twice as the kernel offers) is copied whole
 * into the source's bounce buffer: at most one such record per lap, and
 * the next can only come once it is released, so one bounce buffer is
 * enough.
 */
#ifndef PS_SOURCE_H
#define PS_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "wake.h"

struct perf_event_attr;

enum ps_source_kind {
	PS_SOURCE_PERF,
	PS_SOURCE_RING,
};

struct ps_source {
	enum ps_source_kind kind;
	int fd;	      /* perf: the event; ring: the map (ours, closed with it) */
	int cpu;      /* its CPU (a ring's group: the first) */
	int last_cpu; /* a ring's group: the last (perf: cpu) */
	void *map;
	size_t map_len;
	void *pos_map;			/* ring: the consumer's page (writable) */
	volatile uint64_t *head, *tail; /* the producer's and consumer's positions */
	uint8_t *data;			/* the data area */
	uint64_t mask;			/* its size - 1 */
	uint64_t read;			/* the next record to read */
	uint64_t scanned;		/* ring: looked at (not read) up to here */
	uint64_t released;		/* what the kernel has back */
	uint8_t *bounce;		/* perf: a record that wraps, whole */
	uint64_t lost;			/* perf: PERF_RECORD_LOST totals */
	uint64_t corrupt;		/* bytes skipped that were no record */
};

/* One record, as next() hands it out. */
struct ps_source_rec {
	const uint8_t *raw; /* the sample: ps_meta and packet bytes */
	uint32_t size;	    /* its bytes (perf: the raw size, padded) */
	uint64_t pos;	    /* where the record starts */
};

enum ps_source_next {
	PS_SOURCE_SAMPLE, /* *rec is a sample */
	PS_SOURCE_END,	  /* read up to `upto` */
	PS_SOURCE_BUSY,	  /* ring: the next record is still being written */
};

/*
 * Open CPU cpu's perf buffer of `pages` data pages (a power of two) with
 * attr, and put it in the PERF_EVENT_ARRAY map_fd at that CPU. 0 or -errno.
 */
int ps_source_open_perf(struct ps_source *s, int cpu, const struct perf_event_attr *attr,
			unsigned int pages, int map_fd);
/* A perf buffer in memory (tests): `area` holds a struct
 * perf_event_mmap_page and then data_bytes (a power of two) of records,
 * laid out as the kernel lays them out. 0 or -ENOMEM. */
int ps_source_open_memory(struct ps_source *s, int cpu, void *area, size_t data_bytes);
/* A BPF ring in memory (benchmarks, tests): `area` holds the consumer's
 * and the producer's positions (two uint64_t), then data_bytes (a power of
 * two) of records as the kernel lays them out, none across the end (it
 * has no bounce buffer). 0. */
int ps_source_open_ring_memory(struct ps_source *s, int cpu, void *area, size_t data_bytes);
/* Make CPU cpu's BPF ring buffer of ring_bytes (a power of two, at least a
 * page) and map it. 0 or -errno, logged. */
int ps_source_open_ring(struct ps_source *s, int cpu, uint32_t ring_bytes);
/* Put the n rings of src (ps_source_open_ring) in the ARRAY_OF_MAPS
 * rings_fd, each at every online CPU from its cpu to its last_cpu: their
 * programs write into them from then on. 0 or -errno, logged. */
int ps_source_publish_rings(int rings_fd, const struct ps_source *src, int n, const bool *online);
void ps_source_close(struct ps_source *s);

/* Where the producer is now: a round reads up to it and no further. */
uint64_t ps_source_head(const struct ps_source *s);
/*
 * The next record that ends by upto (perf) or starts before it (ring; a
 * ring record may end past it). Records other than samples are dealt with
 * here (perf's LOST adds to s->lost; a discarded ring record is skipped).
 * A sample's bytes stay valid until released.
 */
enum ps_source_next ps_source_next(struct ps_source *s, uint64_t upto, struct ps_source_rec *rec);
/*
 * A ring's records from `from` on, up to `upto` or the first still being
 * written, looked at and not read: for each sample, the 32-bit field at
 * byte off of it (a multiple of 4, within the sample) and where its
 * record starts, handed to each(). Where it stopped.
 */
uint64_t ps_source_ring_scan(const struct ps_source *s, uint64_t from, uint64_t upto, uint32_t off,
			     void (*each)(void *arg, uint32_t v, uint64_t pos), void *arg);
/* Give the kernel back everything before pos (which must have been read). */
void ps_source_release(struct ps_source *s, uint64_t pos);

/* The CPUs in a list such as /sys/devices/system/cpu/online ("0-3,6"):
 * sets online[i] for each i < n listed (online may be NULL). Pure; how
 * many are listed, or -EINVAL. */
int ps_cpu_list_parse(const char *list, bool *online, int n);
/* The online CPUs, as above (all n if the list cannot be read). */
int ps_online_cpus(bool *online, int n);

#endif
