// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "errmsg.h"
#include "capread.h"
#include "hooks.h"

#define PCAP_MAGIC_US 0xa1b2c3d4u
#define PCAP_MAGIC_NS 0xa1b23c4du
#define PCAPNG_SHB 0x0a0d0d0au
#define PCAPNG_BOM 0x1a2b3c4du
#define PCAPNG_IDB 1u
#define PCAPNG_PB 2u /* obsolete Packet Block */
#define PCAPNG_SPB 3u
#define PCAPNG_EPB 6u

static uint16_t rd16(const struct ps_capread *r, const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return r->swap ? __builtin_bswap16(v) : v;
}

static uint32_t rd32(const struct ps_capread *r, const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return r->swap ? __builtin_bswap32(v) : v;
}

static uint64_t rd64(const struct ps_capread *r, const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return r->swap ? __builtin_bswap64(v) : v;
}

static uint32_t pad4(uint32_t n)
{
	return (n + 3) & ~3u;
}

/* Timestamp units to ns, without overflow for any resolution. */
static uint64_t to_ns(const struct ps_capread_if *i, uint64_t ticks)
{
	unsigned __int128 ns = (unsigned __int128)ticks * 1000000000u / i->tsresol;

	ns += (unsigned __int128)(__int128)i->tsoffset * 1000000000;
	return (uint64_t)ns;
}

static int grow(struct ps_capread *r, size_t need)
{
	uint8_t *b;

	if (need <= r->buf_cap)
		return 0;
	b = realloc(r->buf, need);
	if (!b)
		return -ENOMEM;
	r->buf = b;
	r->buf_cap = need;
	return 0;
}

/* Our IDBs say which hook in if_description (user/kernel/hooks.c), around
 * another XDP program followed by " of PROGRAM (id N)". */
static const char *hook_of(const char *description)
{
	for (unsigned int h = 0; h < PS_HOOK_MAX; h++) {
		size_t n = strlen(ps_hook_description(h));

		if (!strncmp(description, ps_hook_description(h), n) &&
		    (!description[n] || !strncmp(description + n, " of ", 4)))
			return ps_hook_name(h);
	}
	return NULL;
}

/* Options from p to end: calls back for each; 0, or -EINVAL if one runs
 * past the block. */
struct opt {
	uint16_t code, len;
	const uint8_t *val;
};

static int next_opt(const struct ps_capread *r, const uint8_t **p, const uint8_t *end,
		    struct opt *o)
{
	if (end - *p < 4)
		return 0;
	o->code = rd16(r, *p);
	o->len = rd16(r, *p + 2);
	if (o->code == 0)
		return 0;
	if ((size_t)(end - *p - 4) < o->len)
		return -EINVAL;
	o->val = *p + 4;
	*p += 4 + pad4(o->len);
	if (*p > end)
		*p = end;
	return 1;
}

static void copy_str(char *dst, size_t size, const struct opt *o)
{
	size_t n = strnlen((const char *)o->val, o->len);

	if (n >= size)
		n = size - 1;
	memcpy(dst, o->val, n);
	dst[n] = 0;
}

static int parse_idb(struct ps_capread *r, const uint8_t *b, size_t len, char *err, size_t errlen)
{
	const uint8_t *p = b + 16, *end = b + len - 4;
	struct ps_capread_if *i, *grown;
	struct opt o;
	char desc[64] = "";
	int ret;

	if (len < 20)
		return ps_fail(err, errlen, "an interface block of %zu bytes", len);
	if (r->n_ifs >= PS_CAPREAD_MAX_IFS)
		return ps_fail(err, errlen, "more than %d interfaces", PS_CAPREAD_MAX_IFS);
	grown = realloc(r->ifs, (r->n_ifs + 1) * sizeof(*r->ifs));
	if (!grown)
		return -ENOMEM;
	r->ifs = grown;
	i = &r->ifs[r->n_ifs];
	memset(i, 0, sizeof(*i));
	i->linktype = rd16(r, b + 8);
	i->snaplen = rd32(r, b + 12);
	i->tsresol = 1000000;
	while ((ret = next_opt(r, &p, end, &o)) > 0) {
		switch (o.code) {
		case 2:
			copy_str(i->name, sizeof(i->name), &o);
			break;
		case 3:
			copy_str(desc, sizeof(desc), &o);
			break;
		case 9:
			if (o.len != 1)
				break;
			if (o.val[0] & 0x80) {
				if ((o.val[0] & 0x7f) > 63)
					return ps_fail(err, errlen, "a time resolution of 2^-%u s",
						       o.val[0] & 0x7f);
				i->tsresol = 1ull << (o.val[0] & 0x7f);
			} else {
				if (o.val[0] > 19)
					return ps_fail(err, errlen, "a time resolution of 10^-%u s",
						       o.val[0]);
				i->tsresol = 1;
				for (int k = 0; k < o.val[0]; k++)
					i->tsresol *= 10;
			}
			break;
		case 14:
			if (o.len == 8)
				i->tsoffset = (int64_t)rd64(r, o.val);
			break;
		}
	}
	if (ret < 0)
		return ps_fail(err, errlen, "an interface option runs past its block");
	i->hook = hook_of(desc);
	r->n_ifs++;
	return 0;
}

static int parse_epb_opts(const struct ps_capread *r, const uint8_t *p, const uint8_t *end,
			  struct ps_capread_rec *rec, char *err, size_t errlen)
{
	struct opt o;
	int ret;

	while ((ret = next_opt(r, &p, end, &o)) > 0) {
		switch (o.code) {
		case 1:
			if (!rec->comment[0])
				copy_str(rec->comment, sizeof(rec->comment), &o);
			break;
		case 2:
			if (o.len == 4)
				rec->direction = (int)(rd32(r, o.val) & 3);
			break;
		case 4:
			if (o.len == 8)
				rec->has_drops = true, rec->drops = rd64(r, o.val);
			break;
		case 5:
			if (o.len == 8)
				rec->has_id = true, rec->id = rd64(r, o.val);
			break;
		}
	}
	if (ret < 0)
		return ps_fail(err, errlen, "a packet option runs past its block");
	if (rec->direction == 3)
		rec->direction = 0;
	return 0;
}

int ps_capread_parse_block(struct ps_capread *r, const uint8_t *b, size_t len,
			   struct ps_capread_rec *rec, char *err, size_t errlen)
{
	uint32_t type, cap, if_id;
	uint64_t ticks;

	memset(rec, 0, sizeof(*rec));
	rec->kind = PS_REC_OTHER;
	rec->raw = b;
	rec->raw_len = len;
	if (len < 12 || len % 4)
		return ps_fail(err, errlen, "a block of %zu bytes", len);
	type = rd32(r, b);
	if (rd32(r, b + len - 4) != len)
		return ps_fail(err, errlen, "a block whose two lengths differ");
	switch (type) {
	case PCAPNG_SHB:
		if (len < 28)
			return ps_fail(err, errlen, "a section header of %zu bytes", len);
		r->n_ifs = 0; /* interfaces are per section */
		return 0;
	case PCAPNG_IDB:
		return parse_idb(r, b, len, err, errlen);
	case PCAPNG_EPB:
	case PCAPNG_PB:
		if (len < 32)
			return ps_fail(err, errlen, "a packet block of %zu bytes", len);
		if_id = type == PCAPNG_EPB ? rd32(r, b + 8) : rd16(r, b + 8);
		cap = rd32(r, b + 20);
		if (cap > len - 32 || 28 + pad4(cap) > len - 4)
			return ps_fail(err, errlen, "a packet of %u bytes in a block of %zu", cap,
				       len);
		if (if_id >= (uint32_t)r->n_ifs)
			return ps_fail(err, errlen,
				       "a packet of interface %u, which no block describes", if_id);
		rec->kind = PS_REC_PACKET;
		rec->iface = &r->ifs[if_id];
		ticks = (uint64_t)rd32(r, b + 12) << 32 | rd32(r, b + 16);
		rec->ts_ns = to_ns(rec->iface, ticks);
		rec->data = b + 28;
		rec->cap_len = cap;
		rec->wire_len = rd32(r, b + 24);
		if (type == PCAPNG_PB) {
			rec->has_drops = true;
			rec->drops = rd16(r, b + 10);
			return 0;
		}
		return parse_epb_opts(r, b + 28 + pad4(cap), b + len - 4, rec, err, errlen);
	case PCAPNG_SPB:
		if (len < 16)
			return ps_fail(err, errlen, "a simple packet block of %zu bytes", len);
		if (r->n_ifs == 0)
			return ps_fail(err, errlen,
				       "a packet of interface 0, which no block describes");
		rec->kind = PS_REC_PACKET;
		rec->iface = &r->ifs[0];
		rec->wire_len = rd32(r, b + 8);
		cap = (uint32_t)len - 16;
		if (rec->wire_len < cap)
			cap = rec->wire_len;
		if (rec->iface->snaplen && rec->iface->snaplen < cap)
			cap = rec->iface->snaplen;
		rec->data = b + 12;
		rec->cap_len = cap;
		return 0;
	default:
		return 0;
	}
}

/* Read n bytes; 1, 0 at a clean end (nothing read), or -EINVAL. */
static int read_exact(struct ps_capread *r, void *p, size_t n, bool eof_ok, char *err,
		      size_t errlen)
{
	size_t got = fread(p, 1, n, r->f);

	if (got == n)
		return 1;
	if (ferror(r->f))
		return ps_fail(err, errlen, "%s: %s", r->path, strerror(errno)), -EIO;
	if (got == 0 && eof_ok)
		return 0;
	return ps_fail(err, errlen, "%s: the file ends inside a record at offset %llu", r->path,
		       (unsigned long long)r->offset);
}

int ps_capread_open(struct ps_capread *r, const char *path, char *err, size_t errlen)
{
	uint32_t magic;
	int ret;

	memset(r, 0, sizeof(*r));
	r->path = strcmp(path, "-") ? path : "stdin";
	r->f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	if (!r->f) {
		ret = -errno;
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
		return ret;
	}
	if (grow(r, 64 << 10))
		return ps_fail(err, errlen, "cannot read %s: %s", path, strerror(ENOMEM)), -ENOMEM;
	ret = read_exact(r, r->buf, 4, true, err, errlen);
	if (ret <= 0) {
		if (ret == 0)
			ps_fail(err, errlen, "%s is empty", r->path);
		return -EINVAL;
	}
	memcpy(&magic, r->buf, 4);
	if (magic == PCAPNG_SHB) {
		r->ng = true;
		return 0;
	}
	if (magic == PCAP_MAGIC_US || magic == PCAP_MAGIC_NS ||
	    magic == __builtin_bswap32(PCAP_MAGIC_US) ||
	    magic == __builtin_bswap32(PCAP_MAGIC_NS)) {
		r->swap = magic != PCAP_MAGIC_US && magic != PCAP_MAGIC_NS;
		ret = read_exact(r, r->buf + 4, 20, false, err, errlen);
		if (ret <= 0)
			return -EINVAL;
		r->pcap_if.linktype = (int)(rd32(r, r->buf + 20) & 0xffff);
		r->pcap_if.snaplen = rd32(r, r->buf + 16);
		r->pcap_if.tsresol = magic == PCAP_MAGIC_NS ||
						     magic == __builtin_bswap32(PCAP_MAGIC_NS) ?
					     1000000000 :
					     1000000;
		return 0;
	}
	return ps_fail(err, errlen, "%s is neither pcap nor pcapng", r->path);
}

static int next_pcap(struct ps_capread *r, struct ps_capread_rec *rec, char *err, size_t errlen)
{
	uint32_t incl, frac;
	int ret;

	memset(rec, 0, sizeof(*rec));
	if (!r->started) {
		r->started = true;
		rec->kind = PS_REC_OTHER;
		rec->raw = r->buf;
		rec->raw_len = 24;
		r->offset = 24;
		return 1;
	}
	ret = read_exact(r, r->buf, 16, true, err, errlen);
	if (ret <= 0)
		return ret;
	incl = rd32(r, r->buf + 8);
	if (incl > PS_CAPREAD_MAX_BLOCK)
		return ps_fail(err, errlen, "%s: a record of %u bytes at offset %llu", r->path,
			       incl, (unsigned long long)r->offset);
	if (grow(r, 16 + (size_t)incl))
		return -ENOMEM;
	ret = read_exact(r, r->buf + 16, incl, false, err, errlen);
	if (ret <= 0)
		return ret < 0 ? ret : -EINVAL;
	frac = rd32(r, r->buf + 4);
	rec->kind = PS_REC_PACKET;
	rec->raw = r->buf;
	rec->raw_len = 16 + (size_t)incl;
	rec->iface = &r->pcap_if;
	rec->ts_ns = (uint64_t)rd32(r, r->buf) * 1000000000ull +
		     (uint64_t)frac * (1000000000ull / r->pcap_if.tsresol);
	rec->data = r->buf + 16;
	rec->cap_len = incl;
	rec->wire_len = rd32(r, r->buf + 12);
	r->offset += rec->raw_len;
	return 1;
}

int ps_capread_next(struct ps_capread *r, struct ps_capread_rec *rec, char *err, size_t errlen)
{
	uint32_t len, bom;
	size_t have = 8;
	int ret;

	if (!r->ng)
		return next_pcap(r, rec, err, errlen);
	if (!r->started) {
		/* The magic is already in the buffer. */
		r->started = true;
		ret = read_exact(r, r->buf + 4, 4, false, err, errlen);
	} else {
		ret = read_exact(r, r->buf, 8, true, err, errlen);
	}
	if (ret <= 0)
		return ret;
	if (!memcmp(r->buf, "\x0a\x0d\x0d\x0a", 4)) {
		/* A section header: its byte-order mark says how to read on. */
		if (read_exact(r, r->buf + 8, 4, false, err, errlen) <= 0)
			return -EINVAL;
		memcpy(&bom, r->buf + 8, 4);
		if (bom != PCAPNG_BOM && bom != __builtin_bswap32(PCAPNG_BOM))
			return ps_fail(err, errlen,
				       "%s: a section header without a byte-order mark at offset %llu",
				       r->path, (unsigned long long)r->offset);
		r->swap = bom != PCAPNG_BOM;
		have = 12;
	}
	len = rd32(r, r->buf + 4);
	if (len < 12 || len % 4 || len > PS_CAPREAD_MAX_BLOCK || len < have)
		return ps_fail(err, errlen, "%s: a block of %u bytes at offset %llu", r->path, len,
			       (unsigned long long)r->offset);
	if (grow(r, len))
		return -ENOMEM;
	if (read_exact(r, r->buf + have, len - have, false, err, errlen) <= 0)
		return -EINVAL;
	ret = ps_capread_parse_block(r, r->buf, len, rec, err, errlen);
	if (ret) {
		char why[200];

		snprintf(why, sizeof(why), "%s", err);
		ps_fail(err, errlen, "%s: %s at offset %llu", r->path, why,
			(unsigned long long)r->offset);
		return ret;
	}
	r->offset += len;
	return 1;
}

void ps_capread_close(struct ps_capread *r)
{
	if (r->f && r->f != stdin)
		fclose(r->f);
	r->f = NULL;
	free(r->buf);
	r->buf = NULL;
	free(r->ifs);
	r->ifs = NULL;
}
