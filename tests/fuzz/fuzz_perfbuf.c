// SPDX-License-Identifier: GPL-2.0-only
/*
 * A perf buffer's bytes as the ingest reads them in place
 * (user/ingest/source.c and the reader in ingest.c): records of any size
 * and type, records that wrap around the buffer's end, long packets'
 * continuations that fit or do not. Input: [tail u32][data...]: the data
 * fill a 128 KiB buffer from offset tail on (wrapping), the producer's head
 * is where they end. Whatever the bytes, the reader neither reads outside
 * the buffer nor loses count: every sample handed to the sink is whole
 * (cap_len bytes, readable), and the buffer is given back up to what was
 * read.
 */
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include "ingest.h"
#include "support/perfbuf.h"

#define NCPUS 2
#define DATA_BYTES (1u << 17)

static uint64_t sum;

static int packet(struct ps_sink *s, const struct ps_sink_pkt *p)
{
	(void)s;
	/* Read every byte: ASan checks they are there. */
	for (uint32_t i = 0; i < p->cap_len; i++)
		sum += p->data[i];
	if (p->cap_len > p->wire_len)
		abort();
	return 0;
}

static const struct ps_sink_ops ops = { packet, ps_test_sink_round, ps_test_sink_close };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ps_target targets[2] = {
		{ .ifname = "veth0", .ifindex = 5, .hook = PS_HOOK_XDP },
		{ .ifname = "veth0", .ifindex = 5, .hook = PS_HOOK_TC_EGRESS },
	};
	struct ps_sink sink = { .ops = &ops };
	struct ps_ingest c;
	struct ps_source src;
	struct perf_event_mmap_page *up;
	uint8_t *area;
	uint32_t tail;
	size_t n;

	if (size < 4)
		return 0;
	memcpy(&tail, data, 4);
	tail &= (DATA_BYTES - 1) & ~7u; /* the kernel's records are 8-byte aligned */
	data += 4;
	n = size - 4 < DATA_BYTES ? size - 4 : DATA_BYTES;
	n &= ~(size_t)7;
	area = calloc(1, sizeof(*up) + DATA_BYTES);
	if (!area)
		abort();
	up = (void *)area;
	for (size_t i = 0; i < n; i++)
		area[sizeof(*up) + ((tail + i) & (DATA_BYTES - 1))] = data[i];
	up->data_tail = tail;
	up->data_head = tail + n;
	if (ps_ingest_init(&c, targets, 2, NCPUS, 262144, 0) || ps_ingest_add_sink(&c, &sink) ||
	    ps_source_open_memory(&src, 0, area, DATA_BYTES) || ps_ingest_open_sources(&c, &src, 1))
		abort();
	if (ps_ingest_drain(&c))
		abort();
	if (c.src[0].released != c.src[0].read || c.src[0].read > tail + n)
		abort();
	ps_ingest_close(&c, true);
	ps_ingest_free(&c);
	free(area);
	return 0;
}
