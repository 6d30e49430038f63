/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Reading capture files for -r: pcap (either byte order, micro- or
 * nanosecond) and pcapng (any byte order, several sections, EPB, SPB and
 * the obsolete PB), with what libpcap's reader does not expose: which
 * interface each packet came from (its name and, in our files, its hook),
 * and the EPB's flags, comment, packet id and drop count.
 *
 * Every record comes back with its raw bytes, so -r FILE -w OUT can copy
 * the file's own header blocks and the selected packets unchanged: the
 * copy keeps the format and every annotation of the original.
 *
 * ps_capread_parse_block() is pure (bytes in, record out) and never trusts a
 * length it reads; ps_capread_next() adds the file reading.
 */
#ifndef PS_CAPREAD_H
#define PS_CAPREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* A block larger than this is taken for corruption. */
#define PS_CAPREAD_MAX_BLOCK (16u << 20)
#define PS_CAPREAD_MAX_IFS 4096

struct ps_capread_if {
	int linktype;
	uint32_t snaplen;
	char name[64];
	const char *hook; /* our IDBs name the hook in if_description */
	uint64_t tsresol; /* units per second */
	int64_t tsoffset; /* seconds */
};

enum ps_capread_kind {
	PS_REC_PACKET,
	PS_REC_OTHER, /* file header, SHB, IDB, ISB, ...: copied as they are */
};

struct ps_capread_rec {
	enum ps_capread_kind kind;
	const uint8_t *raw; /* the record or block as in the file */
	size_t raw_len;
	/* PS_REC_PACKET: */
	const struct ps_capread_if *iface;
	uint64_t ts_ns;
	const uint8_t *data;
	uint32_t cap_len, wire_len;
	int direction;	   /* 0 unknown, 1 inbound, 2 outbound */
	char comment[256]; /* first opt_comment, "" if none */
	bool has_id, has_drops;
	uint64_t id, drops;
};

struct ps_capread {
	FILE *f;
	const char *path;
	bool ng;		      /* pcapng (else pcap) */
	bool swap;		      /* the current section/file is byte-swapped */
	bool started;		      /* the pcap file header was handed out */
	struct ps_capread_if pcap_if; /* pcap: the one interface */
	struct ps_capread_if *ifs;    /* pcapng: the current section's */
	int n_ifs;
	uint8_t *buf;
	size_t buf_cap;
	uint64_t offset; /* of the record being read, for messages */
};

/* Open path ("-": stdin) and read its magic. 0, or -errno with a line in err. */
int ps_capread_open(struct ps_capread *r, const char *path, char *err, size_t errlen);
/* Next record: 1, 0 at the end, or -errno with a line in err. */
int ps_capread_next(struct ps_capread *r, struct ps_capread_rec *rec, char *err, size_t errlen);
void ps_capread_close(struct ps_capread *r);

/* Parse one pcapng block (buf, len: the whole block, already in memory).
 * Updates the section's state (byte order, interfaces). 0 or -EINVAL. */
int ps_capread_parse_block(struct ps_capread *r, const uint8_t *buf, size_t len,
			   struct ps_capread_rec *rec, char *err, size_t errlen);

#endif
