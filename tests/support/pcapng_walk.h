/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A minimal pcapng reader for tests: walks blocks and their options so a
 * test can check what libpcap does not expose (ISB counters, every EPB
 * option). Host byte order only, like the writer.
 */
#ifndef PCAPNG_WALK_H
#define PCAPNG_WALK_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct pn_block {
	uint32_t type;
	uint32_t len;	     /* total block length */
	const uint8_t *data; /* the whole block */
};

/* Next block at *off; returns 1, 0 at the end, -1 if malformed. */
static inline int pn_next(const uint8_t *buf, size_t size, size_t *off, struct pn_block *b)
{
	uint32_t trailer;

	if (*off == size)
		return 0;
	if (size - *off < 12)
		return -1;
	memcpy(&b->type, buf + *off, 4);
	memcpy(&b->len, buf + *off + 4, 4);
	if (b->len < 12 || b->len % 4 || b->len > size - *off)
		return -1;
	memcpy(&trailer, buf + *off + b->len - 4, 4);
	if (trailer != b->len)
		return -1;
	b->data = buf + *off;
	*off += b->len;
	return 1;
}

/* Where a block's options start (after its fixed part). */
static inline size_t pn_opts_offset(const struct pn_block *b)
{
	uint32_t caplen;

	switch (b->type) {
	case 0x0A0D0D0A:
		return 8 + 16;
	case 1:
		return 8 + 8;
	case 5:
		return 8 + 12;
	case 0x80000001: /* Apple's process information block */
		return 8 + 4;
	case 6:
		memcpy(&caplen, b->data + 20, 4);
		return 8 + 20 + ((caplen + 3) & ~3u);
	default:
		return b->len - 4;
	}
}

/* The nth (0-based) option with this code; returns its length or -1. */
static inline int pn_opt(const struct pn_block *b, uint16_t code, int nth, const uint8_t **val)
{
	size_t off = pn_opts_offset(b), end = b->len - 4;

	*val = NULL;
	while (off + 4 <= end) {
		uint16_t c, l;

		memcpy(&c, b->data + off, 2);
		memcpy(&l, b->data + off + 2, 2);
		if (c == 0 || off + 4 + l > end)
			break;
		if (c == code && nth-- == 0) {
			*val = b->data + off + 4;
			return l;
		}
		off += 4 + ((l + 3u) & ~3u);
	}
	return -1;
}

static inline uint64_t pn_u64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

#endif
