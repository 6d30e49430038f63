/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * For tests, the fuzzer and the bench: a perf buffer in memory, written as
 * the kernel writes it (user/ingest/source.h's ps_source_open_memory()
 * reads it), and the two sink operations a sink that only looks at packets
 * does not need.
 */
#ifndef PS_TEST_PERFBUF_H
#define PS_TEST_PERFBUF_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
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
