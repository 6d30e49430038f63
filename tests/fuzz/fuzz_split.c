// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sample splitter on arbitrary perf records (our programs never make
 * such records, but the splitter must not trust them), then the frame as
 * it was on the wire and the timestamp conversion.
 */
#include <stdlib.h>
#include <string.h>
#include "clock.h"
#include "split.h"

static uint8_t out[PS_SNAPLEN_MAX + 4];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ps_clock clock = { 0 };
	struct ps_meta m;
	const uint8_t *pkt, *frame;
	uint32_t cap, wire, snaplen;

	if (size < 8)
		return 0;
	memcpy(&clock.offset_ns, data, 8);
	snaplen = (uint32_t)(data[0] | data[1] << 8) % PS_SNAPLEN_MAX + 1;
	data += 8;
	size -= 8;
	if (ps_split_sample(data, size, &m, &pkt))
		return 0;
	if (m.cap_len > m.wire_len || pkt < data || pkt + m.cap_len > data + size)
		abort();
	frame = ps_frame_on_wire(&m, pkt, out, snaplen, &cap, &wire);
	if (cap > wire || (frame == out && cap > snaplen))
		abort();
	(void)ps_clock_to_realtime(&clock, m.ts_ns);
	return 0;
}
