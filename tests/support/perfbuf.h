/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * For tests, the fuzzer and the bench: a perf buffer or a BPF ring in
 * memory, written as the kernel writes them (user/ingest/source.h's
 * ps_source_open_memory() and ps_source_open_ring_memory() read them), and
 * the two sink operations a sink that only looks at packets does not need.
 */
#ifndef PS_TEST_PERFBUF_H
#define PS_TEST_PERFBUF_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include "pktsample.h"
#include "sink.h"

/*
 * Append a PERF_RECORD_SAMPLE of m and m->cap_len bytes of `fill` at *pos
 * of data (data_bytes long, not wrapping), the raw size padded as the
 * kernel pads it. False if it does not fit.
 */
static inline bool ps_test_perf_put(uint8_t *data, uint64_t data_bytes, uint64_t *pos,
				    const struct ps_meta *m, uint8_t fill)
{
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE };
	uint32_t raw;

	h.size = (uint16_t)((sizeof(h) + 4 + sizeof(*m) + m->cap_len + 7) & ~7u);
	raw = h.size - sizeof(h) - 4;
	if (*pos + h.size > data_bytes)
		return false;
	memcpy(data + *pos, &h, sizeof(h));
	memcpy(data + *pos + sizeof(h), &raw, 4);
	memcpy(data + *pos + sizeof(h) + 4, m, sizeof(*m));
	memset(data + *pos + sizeof(h) + 4 + sizeof(*m), fill, m->cap_len);
	*pos += h.size;
	return true;
}

/* Append a BPF ring record of m and its packet bytes (each `fill`), as
 * bpf_ringbuf_reserve() and submit leave it: an 8-byte header, the
 * sample, padding to 8; false if it does not fit. */
static inline bool ps_test_ring_put(uint8_t *data, uint64_t data_bytes, uint64_t *pos,
				    const struct ps_meta *m, uint8_t fill)
{
	uint32_t len = (uint32_t)sizeof(*m) + m->cap_len, pg_off = 0;
	uint64_t size = (BPF_RINGBUF_HDR_SZ + len + 7) & ~7ull;

	if (*pos + size > data_bytes)
		return false;
	memcpy(data + *pos, &len, 4);
	memcpy(data + *pos + 4, &pg_off, 4);
	memcpy(data + *pos + BPF_RINGBUF_HDR_SZ, m, sizeof(*m));
	memset(data + *pos + BPF_RINGBUF_HDR_SZ + sizeof(*m), fill, m->cap_len);
	*pos += size;
	return true;
}

/* Append a PERF_RECORD_LOST of `lost` samples; false if it does not fit. */
static inline bool ps_test_perf_put_lost(uint8_t *data, uint64_t data_bytes, uint64_t *pos,
					 uint64_t lost)
{
	struct perf_event_header h = { .type = PERF_RECORD_LOST, .size = 24 };
	uint64_t id = 0;

	if (*pos + h.size > data_bytes)
		return false;
	memcpy(data + *pos, &h, sizeof(h));
	memcpy(data + *pos + 8, &id, 8);
	memcpy(data + *pos + 16, &lost, 8);
	*pos += h.size;
	return true;
}

static inline int ps_test_sink_round(struct ps_sink *s)
{
	(void)s;
	return 0;
}

static inline int ps_test_sink_close(struct ps_sink *s, bool ok)
{
	(void)s;
	(void)ok;
	return 0;
}

#endif
