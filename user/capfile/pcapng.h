/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A small pcapng writer (libpcap reads pcapng but cannot write it): section
 * header, interface descriptions, enhanced packet blocks with the options
 * pktsample annotates, and interface statistics. Blocks are assembled in a
 * large buffer and written with few syscalls. Host byte order throughout, as
 * the format allows (the SHB's magic tells readers which).
 */
#ifndef PS_PCAPNG_H
#define PS_PCAPNG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PCAPNG_LINKTYPE_ETHERNET 1

/* epb_flags direction bits */
#define PCAPNG_DIR_UNKNOWN 0
#define PCAPNG_DIR_INBOUND 1
#define PCAPNG_DIR_OUTBOUND 2

/* epb_verdict types */
#define PCAPNG_VERDICT_HW 0
#define PCAPNG_VERDICT_TC 1
#define PCAPNG_VERDICT_XDP 2

struct pcapng_writer;

struct pcapng_shb {
	const char *hardware; /* NULL = omit */
	const char *os;
	const char *userappl;
};

struct pcapng_idb {
	uint16_t linktype;
	uint32_t snaplen;
	const char *name;	 /* if_name */
	const char *description; /* if_description */
	const char *filter;	 /* if_filter (libpcap syntax), NULL = omit */
	const char *comment;	 /* opt_comment, NULL = omit */
				 /* if_tsresol is always 9: nanoseconds */
};

struct pcapng_epb {
	uint32_t if_id;
	uint64_t ts_ns;
	uint32_t cap_len;
	uint32_t wire_len;
	const void *data;
	uint32_t direction; /* PCAPNG_DIR_* */
	bool has_queue;
	uint32_t queue;
	bool has_packet_id;
	uint64_t packet_id;
	bool has_verdict;
	uint8_t verdict_type; /* PCAPNG_VERDICT_TC or _XDP */
	int64_t verdict;
	bool has_process; /* epb_processid_threadid */
	uint32_t pid, tid;
	bool has_pib; /* the process's information block (pcapng_write_pib) */
	uint32_t pib;
	uint64_t drop_count; /* omitted when 0 */
	const char *comment; /* NULL = omit */
	/* For the tests' pcapng_write_epb (tests/support/pcapng_epb.h): the
	 * options above but packet id and drop count, already encoded
	 * (pcapng_epb_opts_encode); NULL = encode them from the fields. */
	const struct pcapng_epb_opts *opts;
};

/*
 * An EPB's flags, queue, verdict, process and comment, encoded once. Consecutive
 * packets of one CPU and hook mostly share them, so a capture encodes them
 * when they change and copies them per packet; only the packet id and the
 * drop count are encoded for each packet.
 */
#define PCAPNG_COMMENT_MAX 1024u /* longer comments are cut */
struct pcapng_epb_opts {
	uint32_t len;
	uint8_t buf[8 + 8 + 16 + 12 + 8 + 4 + PCAPNG_COMMENT_MAX];
};
void pcapng_epb_opts_encode(struct pcapng_epb_opts *o, const struct pcapng_epb *e);

/*
 * A packet whose options are already encoded: the capture's hot path
 * (pcapng_write_packet). Only what changes per packet is here, so the
 * caller fills every field and nothing is zeroed first.
 */
struct pcapng_packet {
	uint32_t if_id;
	uint32_t cap_len, wire_len;
	bool has_packet_id;
	uint64_t ts_ns;
	const void *data;
	uint64_t packet_id;
	uint64_t drop_count; /* omitted when 0 */
	const struct pcapng_epb_opts *opts;
};

struct pcapng_isb {
	uint32_t if_id;
	uint64_t ts_ns;
	uint64_t start_ns;
	uint64_t end_ns;
	uint64_t if_recv;
	uint64_t if_drop;
	bool has_filter_accept; /* a filter ran: write isb_filteraccept */
	uint64_t filter_accept;
	uint64_t usr_deliv;
	const char *comment; /* opt_comment, NULL = omit */
};

/*
 * fd is not closed by the writer. buf_size 0 picks the default.
 *
 * A write error (ENOSPC, EPIPE, EIO, ...) is sticky and leaves the output
 * ending at the last whole block: a regular file is truncated back to it;
 * on a pipe, what the reader never read (FIONREAD after EPIPE) does not
 * count as written. pcapng_writer_packets() then counts only the packets in
 * those whole blocks.
 */
struct pcapng_writer *pcapng_writer_new(int fd, size_t buf_size);
/*
 * While *flag is non-zero, a write interrupted by a signal gives up with
 * -EINTR instead of retrying: a second Ctrl-C must not wait on a stuck pipe.
 */
void pcapng_writer_set_abort(struct pcapng_writer *w, const volatile int *flag);
/*
 * A non-blocking fd (the first stop signal makes a pipe output one, so no
 * write can hold the capture) gets 500 ms in all to take what is left;
 * then -ETIMEDOUT, a write error like any other.
 */
const char *pcapng_strerror(int err); /* strerror, and -ETIMEDOUT as above */
/* Flushes; returns 0 or the first write error seen (-errno). */
int pcapng_writer_free(struct pcapng_writer *w);

int pcapng_write_shb(struct pcapng_writer *w, const struct pcapng_shb *shb);
/* Returns the new interface id (0, 1, ...) or -errno. */
int pcapng_write_idb(struct pcapng_writer *w, const struct pcapng_idb *idb);
int pcapng_write_packet(struct pcapng_writer *w, const struct pcapng_packet *pkt);
int pcapng_write_isb(struct pcapng_writer *w, const struct pcapng_isb *isb);
/*
 * A process information block (Apple's, which Wireshark 4.0 skips and
 * newer Wireshark shows): the process, once per section, before the
 * packets that name it (pcapng_epb.pib). Returns its index or -errno.
 */
int pcapng_write_pib(struct pcapng_writer *w, uint32_t pid, const char *name, const char *path);
int pcapng_flush(struct pcapng_writer *w);
/*
 * From now on an EPB's packet bytes (from 512 bytes up) are not copied into
 * the buffer but written from where they are, by writev: the caller keeps
 * them valid and unchanged until the next pcapng_flush() (or until a write
 * call that may flush returns: any of them may). 0 or -ENOMEM.
 */
int pcapng_writer_borrow(struct pcapng_writer *w);
/* Bytes handed to the writer so far (written or buffered). */
uint64_t pcapng_bytes(const struct pcapng_writer *w);
/*
 * Packet blocks that reached the output whole: of interface if_id, or of
 * all with if_id < 0. Without an error, those written out so far (buffered
 * blocks are not, until the next flush).
 */
uint64_t pcapng_writer_packets(const struct pcapng_writer *w, int if_id);
/* The first write error (-errno), or 0. */
int pcapng_writer_error(const struct pcapng_writer *w);
/* After an error: bytes of whole blocks in the output. */
uint64_t pcapng_writer_good_bytes(const struct pcapng_writer *w);

#endif
