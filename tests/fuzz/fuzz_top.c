// SPDX-License-Identifier: GPL-2.0-only
/*
 * --top's naming of packets (user/top/topkey.h) from arbitrary frames: the
 * first byte picks the link type and the hook, the rest is the frame.
 * Never read past it; every row named, and ranked.
 */
#include <stdlib.h>
#include <string.h>
#include "hooks.h"
#include "linktype.h"
#include "target.h"
#include "topkey.h"
#include "who.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int linktypes[4] = { PS_LINKTYPE_ETHERNET, PS_LINKTYPE_RAW,
					  PS_LINKTYPE_RAW_DLT, PS_LINKTYPE_LINUX_SLL };
	struct ps_target tg = { .ifname = "eth0", .ifindex = 2 };
	struct ps_meta m = { 0 };
	struct ps_who who = { .known = true, .pid = 1, .comm = "x" };
	struct ps_drop_words dw = { .reason = "NO_SOCKET" };
	struct ps_sink_pkt p = { .t = &tg, .m = &m };
	const struct ps_top_row *rows[8];
	uint8_t *frame;
	struct ps_top t;

	if (!size)
		return 0;
	tg.linktype = linktypes[data[0] & 3];
	m.hook = tg.hook = (data[0] >> 2) % PS_HOOK_MAX;
	p.who = data[0] & 0x80 ? &who : NULL;
	p.drop = ps_hook_is_drop(m.hook) ? &dw : NULL;
	/* A copy of its own size, so that a read past it is caught. */
	frame = malloc(size - 1 ? size - 1 : 1);
	if (!frame)
		return 0;
	memcpy(frame, data + 1, size - 1);
	p.data = frame;
	p.cap_len = p.wire_len = (uint32_t)(size - 1);
	ps_top_init(&t);
	ps_top_add(&t, &p, 1);
	ps_top_tick(&t, 1000000000ull);
	for (int g = 0; g < PS_TOP_NGROUPS; g++) {
		size_t n = ps_top_sorted(&t, (enum ps_top_group)g, PS_TOP_BY_BYTES, rows, 8);

		for (size_t i = 0; i < n; i++)
			if (!rows[i]->name[0] ||
			    !memchr(rows[i]->name, '\0', sizeof(rows[i]->name)))
				abort();
	}
	ps_top_free(&t);
	free(frame);
	return 0;
}
