// SPDX-License-Identifier: GPL-2.0-only
#define _GNU_SOURCE /* F_GETPIPE_SZ */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include "pcapng.h"

#define BT_SHB 0x0A0D0D0Au
#define BT_IDB 0x00000001u
#define BT_EPB 0x00000006u
#define BT_ISB 0x00000005u
/* Apple's process information block (a local-use type, as its tcpdump
 * writes it): the process id, then its name and path as options. EPBs
 * point at one by its index in the section (EPB_PIB_INDEX). */
#define BT_PIB 0x80000001u
#define PIB_NAME 2
#define PIB_PATH 3

#define OPT_ENDOFOPT 0
#define OPT_COMMENT 1
#define SHB_HARDWARE 2
#define SHB_OS 3
#define SHB_USERAPPL 4
#define IF_NAME 2
#define IF_DESCRIPTION 3
#define IF_TSRESOL 9
#define IF_FILTER 11
#define EPB_FLAGS 2
#define EPB_DROPCOUNT 4
#define EPB_PACKETID 5
#define EPB_QUEUE 6
#define EPB_VERDICT 7
#define EPB_PROCESSID_THREADID 8 /* the pcapng draft's: pid, tid (u32 each) */
#define EPB_PIB_INDEX 0x8001	 /* Apple's, local use: the PIB's index */
#define ISB_STARTTIME 2
#define ISB_ENDTIME 3
#define ISB_IFRECV 4
#define ISB_IFDROP 5
#define ISB_FILTERACCEPT 6
#define ISB_USRDELIV 8

/* The blocks are stored here and handed to the kernel from here while the
 * caches still hold them: 64 KiB, not 1 MiB (doc/performance.md#writer).
 * Borrowed packet bytes do not take its room; a flush hands on at most
 * BORROWED_MAX of them, so that a run of large packets is not a write each. */
#define DEFAULT_BUF_SIZE (1u << 16)
#define BORROWED_MAX (1u << 20)
/* How long a stopped capture waits, in all, for a full output to drain. */
#define STOP_GRACE_MS 500
/* Room for any block's header, options and trailer, packet data aside. */
#define BLOCK_OVERHEAD_MAX 4096u

/* A piece of the output: of the buffer (ext NULL: buf + off) or borrowed. */
struct seg {
	const uint8_t *ext;
	size_t off, len;
};

/* Packet bytes from this size on are borrowed, smaller ones copied: a
 * piece of a writev costs about what copying this much does. */
#define BORROW_MIN 512u
/* Pieces per flush (IOV_MAX is 1024). */
#define SEGS_MAX 1024u

/* Where a block ends in the output, and whose packet it is (EPBs). */
struct block_end {
	uint64_t end;
	int32_t if_id; /* -1: not a packet block */
};

struct pcapng_writer {
	int fd;
	int error; /* first write error, sticky */
	const volatile int *abort;
	int64_t grace_end_ms; /* a non-blocking output: give up at this time */
	uint32_t n_ifaces;
	uint32_t n_pibs;  /* process information blocks in this section */
	uint64_t bytes;	  /* handed to the writer */
	uint64_t flushed; /* accepted by fd */
	uint64_t good;	  /* after an error: bytes of whole blocks in the output */
	off_t base;	  /* fd's offset when the writer began (regular files) */
	bool regular;	  /* a regular file: truncated back on an error */
	bool pipe;	  /* a pipe: unread bytes are not written */
	/* Pipes: how much the reader may have left unread: the pipe's size,
	 * and at least the most an unprivileged reader can make it (1 MiB). */
	uint64_t keep;
	uint64_t trimmed_end; /* where the last block that left the log ended */
	/* The ends of the blocks that may still not reach the output: those
	 * buffered, and on a pipe those it may hold. A ring, oldest first. */
	struct block_end *log;
	size_t log_head, log_n, log_cap;
	uint64_t *if_sent; /* per interface: packet blocks handed to the writer */
	uint32_t if_cap;
	size_t len, size;
	uint8_t *buf;
	/*
	 * Borrowed packet bytes (pcapng_writer_borrow): the output is then
	 * the buffer cut into pieces with the borrowed bytes in between,
	 * written by one writev per flush. seg_start: where the buffer's
	 * piece still open begins.
	 */
	bool borrow;
	struct seg *segs;
	size_t n_segs, segs_cap, seg_start, borrowed;
};

static inline uint32_t pad4(uint32_t n)
{
	return (n + 3) & ~3u;
}

struct pcapng_writer *pcapng_writer_new(int fd, size_t buf_size)
{
	struct pcapng_writer *w = calloc(1, sizeof(*w));
	struct stat st;

	if (!w)
		return NULL;
	w->fd = fd;
	w->size = buf_size ? buf_size : DEFAULT_BUF_SIZE;
	if (w->size < BLOCK_OVERHEAD_MAX)
		w->size = BLOCK_OVERHEAD_MAX;
	w->buf = malloc(w->size);
	if (!w->buf) {
		free(w);
		return NULL;
	}
	if (!fstat(fd, &st)) {
		w->regular = S_ISREG(st.st_mode);
		w->pipe = S_ISFIFO(st.st_mode);
	}
	w->base = w->regular ? lseek(fd, 0, SEEK_CUR) : 0;
	if (w->base < 0)
		w->regular = false;
	if (w->pipe) {
		int n = fcntl(fd, F_GETPIPE_SZ);

		w->keep = n > (1 << 20) ? (uint64_t)n : 1u << 20;
	}
	return w;
}

void pcapng_writer_set_abort(struct pcapng_writer *w, const volatile int *flag)
{
	w->abort = flag;
}

/* log_cap is a power of two: a mask, not a division, once per packet. */
static struct block_end *log_at(const struct pcapng_writer *w, size_t i)
{
	return &w->log[(w->log_head + i) & (w->log_cap - 1)];
}

/* Note where a block ends; -ENOMEM only if the log cannot grow. */
static int log_block(struct pcapng_writer *w, int32_t if_id)
{
	if (w->log_n == w->log_cap) {
		size_t cap = w->log_cap ? 2 * w->log_cap : 1024;
		struct block_end *nl = malloc(cap * sizeof(*nl));

		if (!nl)
			return -ENOMEM;
		for (size_t i = 0; i < w->log_n; i++)
			nl[i] = *log_at(w, i);
		free(w->log);
		w->log = nl;
		w->log_cap = cap;
		w->log_head = 0;
	}
	*log_at(w, w->log_n++) = (struct block_end){ .end = w->bytes, .if_id = if_id };
	if (if_id >= 0) {
		if ((uint32_t)if_id >= w->if_cap) {
			uint32_t cap = (uint32_t)if_id + 16;
			uint64_t *ns = realloc(w->if_sent, cap * sizeof(*ns));

			if (!ns)
				return -ENOMEM;
			memset(ns + w->if_cap, 0, (cap - w->if_cap) * sizeof(*ns));
			w->if_sent = ns;
			w->if_cap = cap;
		}
		w->if_sent[if_id]++;
	}
	return 0;
}

/* Blocks that are surely in the output leave the log. */
static void log_trim(struct pcapng_writer *w)
{
	uint64_t safe = w->flushed > w->keep ? w->flushed - w->keep : 0;

	while (w->log_n && log_at(w, 0)->end <= safe) {
		w->trimmed_end = log_at(w, 0)->end;
		w->log_head = (w->log_head + 1) & (w->log_cap - 1);
		w->log_n--;
	}
}

/*
 * After a write error: the output holds the blocks that ended within what
 * fd accepted (less what a pipe's reader left unread). Cut a regular file
 * back to them, so it ends on a whole block.
 */
static void settle_error(struct pcapng_writer *w)
{
	uint64_t good = w->flushed;
	int unread = 0;

	if (w->pipe && w->error == -EPIPE && !ioctl(w->fd, FIONREAD, &unread) && unread > 0)
		good = (uint64_t)unread < good ? good - (uint64_t)unread : 0;
	/* Blocks older than the log ended at or before trimmed_end <= good. */
	w->good = w->trimmed_end;
	for (size_t i = w->log_n; i-- > 0;)
		if (log_at(w, i)->end <= good) {
			w->good = log_at(w, i)->end;
			break;
		}
	if (w->regular && w->good < w->flushed)
		(void)!ftruncate(w->fd, w->base + (off_t)w->good);
}

/*
 * A non-blocking output that is full: the stop made it non-blocking (see
 * pcapng.h). Wait for room for what is left of STOP_GRACE_MS, in all.
 */
static int wait_writable(struct pcapng_writer *w)
{
	struct pollfd pfd = { .fd = w->fd, .events = POLLOUT };
	struct timespec ts;
	int64_t now, left;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
	if (!w->grace_end_ms)
		w->grace_end_ms = now + STOP_GRACE_MS;
	left = w->grace_end_ms - now;
	if (left <= 0 || (w->abort && *w->abort))
		return -ETIMEDOUT;
	if (poll(&pfd, 1, (int)left) == 0)
		return -ETIMEDOUT;
	return 0; /* room, an error to be seen by write, or a signal */
}

const char *pcapng_strerror(int err)
{
	if (err == -ETIMEDOUT)
		return "the reader took nothing more after the stop";
	return strerror(-err);
}

/* Write iov[0..n) whole, or fail with the error sticky; iov is used up. */
static int write_iov(struct pcapng_writer *w, struct iovec *iov, int n)
{
	while (n && !w->error) {
		ssize_t r;

		if (!iov->iov_len) {
			iov++;
			n--;
			continue;
		}
		r = writev(w->fd, iov, n);
		if (r < 0) {
			if (errno == EINTR && !(w->abort && *w->abort))
				continue;
			if (errno == EAGAIN) {
				w->error = wait_writable(w);
				if (!w->error)
					continue;
				settle_error(w);
				break;
			}
			w->error = -errno;
			settle_error(w);
			break;
		}
		if (r == 0) { /* a regular file that cannot grow */
			w->error = -ENOSPC;
			settle_error(w);
			break;
		}
		w->flushed += r;
		while (n && (size_t)r >= iov->iov_len) {
			r -= iov->iov_len;
			iov++;
			n--;
		}
		if (n) {
			iov->iov_base = (uint8_t *)iov->iov_base + r;
			iov->iov_len -= r;
		}
	}
	return w->error;
}

/* Close the buffer's open piece. */
static void seg_close(struct pcapng_writer *w)
{
	if (w->len > w->seg_start)
		w->segs[w->n_segs++] = (struct seg){ .off = w->seg_start,
						     .len = w->len - w->seg_start };
	w->seg_start = w->len;
}

int pcapng_flush(struct pcapng_writer *w)
{
	struct iovec iov[SEGS_MAX + 1];
	int err, n = 0;

	if (!w->n_segs) {
		iov[0] = (struct iovec){ .iov_base = w->buf, .iov_len = w->len };
		err = write_iov(w, iov, 1);
	} else {
		seg_close(w);
		for (size_t i = 0; i < w->n_segs; i++)
			iov[n++] = (struct iovec){
				.iov_base = w->segs[i].ext ? (void *)w->segs[i].ext :
							     w->buf + w->segs[i].off,
				.iov_len = w->segs[i].len,
			};
		err = write_iov(w, iov, n);
	}
	w->len = w->seg_start = w->borrowed = w->n_segs = 0;
	if (!err)
		log_trim(w);
	return err;
}

int pcapng_writer_borrow(struct pcapng_writer *w)
{
	if (!w->segs) {
		w->segs = calloc(SEGS_MAX, sizeof(*w->segs));
		if (!w->segs)
			return -ENOMEM;
	}
	w->borrow = true;
	return 0;
}

int pcapng_writer_free(struct pcapng_writer *w)
{
	int err;

	if (!w)
		return 0;
	err = pcapng_flush(w);
	free(w->segs);
	free(w->log);
	free(w->if_sent);
	free(w->buf);
	free(w);
	return err;
}

uint64_t pcapng_writer_packets(const struct pcapng_writer *w, int if_id)
{
	uint64_t upto = w->error ? w->good : w->flushed, n = 0;

	if (if_id < 0) {
		for (uint32_t i = 0; i < w->if_cap; i++)
			n += w->if_sent[i];
	} else if ((uint32_t)if_id < w->if_cap) {
		n = w->if_sent[if_id];
	}
	for (size_t i = w->log_n; i-- > 0;) {
		const struct block_end *b = log_at(w, i);

		if (b->end <= upto)
			break;
		if (b->if_id >= 0 && (if_id < 0 || b->if_id == if_id))
			n--;
	}
	return n;
}

int pcapng_writer_error(const struct pcapng_writer *w)
{
	return w->error;
}

uint64_t pcapng_writer_good_bytes(const struct pcapng_writer *w)
{
	return w->error ? w->good : w->flushed;
}

uint64_t pcapng_bytes(const struct pcapng_writer *w)
{
	return w->bytes;
}

/*
 * Block assembly happens in place in the output buffer: reserve() makes room
 * for a block of at most `max` bytes, the put_* helpers append, and
 * finish() fills in the total length at both ends.
 */
struct block {
	struct pcapng_writer *w;
	size_t start;
};

static int reserve(struct pcapng_writer *w, size_t max)
{
	if (w->error)
		return w->error;
	if ((w->len + max > w->size || w->borrowed >= BORROWED_MAX) && pcapng_flush(w))
		return w->error;
	if (max > w->size) {
		uint8_t *nb = realloc(w->buf, max);

		if (!nb)
			return -ENOMEM;
		w->buf = nb;
		w->size = max;
	}
	return 0;
}

static void put(struct pcapng_writer *w, const void *p, size_t n)
{
	memcpy(w->buf + w->len, p, n);
	w->len += n;
}

static void put_u16(struct pcapng_writer *w, uint16_t v)
{
	put(w, &v, 2);
}
static void put_u32(struct pcapng_writer *w, uint32_t v)
{
	put(w, &v, 4);
}

/* A timestamp in if_tsresol units, high word first, as EPB and ISB want. */
static void put_ts(struct pcapng_writer *w, uint64_t ts)
{
	put_u32(w, (uint32_t)(ts >> 32));
	put_u32(w, (uint32_t)ts);
}

/* Encodes one option at p, padded to 4 bytes; returns the end. Inline: the
 * packet path's 8-byte options then take no call and no padding. */
static inline __attribute__((always_inline)) uint8_t *enc_opt(uint8_t *p, uint16_t code,
							      const void *v, uint16_t n)
{
	uint16_t pad = pad4(n) - n;

	memcpy(p, &code, 2);
	memcpy(p + 2, &n, 2);
	memcpy(p + 4, v, n);
	memset(p + 4 + n, 0, pad);
	return p + 4 + n + pad;
}

static void put_opt(struct pcapng_writer *w, uint16_t code, const void *p, uint16_t n)
{
	w->len = enc_opt(w->buf + w->len, code, p, n) - w->buf;
}

/* A string option's length: 0 for none, longer strings are cut. */
static uint16_t opt_strlen(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	return n > PCAPNG_COMMENT_MAX ? PCAPNG_COMMENT_MAX : n;
}

static void put_opt_str(struct pcapng_writer *w, uint16_t code, const char *s)
{
	uint16_t n = opt_strlen(s);

	if (n)
		put_opt(w, code, s, n);
}

static void put_opt_u64(struct pcapng_writer *w, uint16_t code, uint64_t v)
{
	put_opt(w, code, &v, 8);
}

static void put_opt_ts(struct pcapng_writer *w, uint16_t code, uint64_t ts)
{
	uint32_t v[2] = { (uint32_t)(ts >> 32), (uint32_t)ts };

	put_opt(w, code, v, 8);
}

static void begin(struct block *b, struct pcapng_writer *w, uint32_t type)
{
	b->w = w;
	b->start = w->len;
	put_u32(w, type);
	put_u32(w, 0); /* length, patched by finish() */
}

static void finish(struct block *b, bool has_opts)
{
	struct pcapng_writer *w = b->w;
	uint32_t total;

	if (has_opts) {
		put_u16(w, OPT_ENDOFOPT);
		put_u16(w, 0);
	}
	total = w->len - b->start + 4;
	memcpy(w->buf + b->start + 4, &total, 4);
	put_u32(w, total);
	w->bytes += total;
	if (log_block(w, -1) && !w->error)
		w->error = -ENOMEM;
}

static size_t str_room(const char *s)
{
	return s ? 4 + pad4(opt_strlen(s)) : 0;
}

int pcapng_write_shb(struct pcapng_writer *w, const struct pcapng_shb *shb)
{
	struct block b;
	int err;

	err = reserve(w, 28 + str_room(shb->hardware) + str_room(shb->os) +
				 str_room(shb->userappl) + 4);
	if (err)
		return err;
	begin(&b, w, BT_SHB);
	put_u32(w, 0x1A2B3C4D);
	put_u16(w, 1);
	put_u16(w, 0);
	put(w, &(uint64_t){ UINT64_MAX }, 8); /* section length unknown */
	put_opt_str(w, SHB_HARDWARE, shb->hardware);
	put_opt_str(w, SHB_OS, shb->os);
	put_opt_str(w, SHB_USERAPPL, shb->userappl);
	finish(&b, true);
	w->n_ifaces = 0; /* interface ids are per section, and PIB indexes */
	w->n_pibs = 0;
	return 0;
}

int pcapng_write_idb(struct pcapng_writer *w, const struct pcapng_idb *idb)
{
	static const uint8_t tsresol = 9;
	struct block b;
	int err;

	err = reserve(w, 20 + str_room(idb->name) + str_room(idb->description) + 4 +
				 str_room(idb->filter) + 8 + str_room(idb->comment) + 4);
	if (err)
		return err;
	begin(&b, w, BT_IDB);
	put_u16(w, idb->linktype);
	put_u16(w, 0);
	put_u32(w, idb->snaplen);
	put_opt_str(w, IF_NAME, idb->name);
	put_opt_str(w, IF_DESCRIPTION, idb->description);
	if (idb->filter) {
		/* if_filter: one byte of filter type (0 = libpcap string) */
		size_t n = strlen(idb->filter) > 1023 ? 1023 : strlen(idb->filter);
		uint8_t f[1024];

		f[0] = 0;
		memcpy(f + 1, idb->filter, n);
		put_opt(w, IF_FILTER, f, n + 1);
	}
	/* if_tsresol before opt_comment: scapy 2.5 stops reading a block's
	 * options at a comment without a line break, and would then take our
	 * nanoseconds for microseconds (tests/integration/it_roundtrip.sh). */
	put_opt(w, IF_TSRESOL, &tsresol, 1);
	put_opt_str(w, OPT_COMMENT, idb->comment);
	finish(&b, true);
	return w->n_ifaces++;
}

void pcapng_epb_opts_encode(struct pcapng_epb_opts *o, const struct pcapng_epb *e)
{
	uint32_t flags = e->direction & 3;
	uint16_t comment_len = opt_strlen(e->comment);
	uint8_t *p = o->buf;

	p = enc_opt(p, EPB_FLAGS, &flags, 4);
	if (e->has_queue)
		p = enc_opt(p, EPB_QUEUE, &e->queue, 4);
	if (e->has_verdict) {
		uint8_t v[9];

		v[0] = e->verdict_type;
		memcpy(v + 1, &e->verdict, 8);
		p = enc_opt(p, EPB_VERDICT, v, 9);
	}
	if (e->has_process) {
		uint32_t v[2] = { e->pid, e->tid };

		p = enc_opt(p, EPB_PROCESSID_THREADID, v, 8);
	}
	if (e->has_pib)
		p = enc_opt(p, EPB_PIB_INDEX, &e->pib, 4);
	if (comment_len)
		p = enc_opt(p, OPT_COMMENT, e->comment, comment_len);
	o->len = p - o->buf;
}

static inline uint8_t *st32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
	return p + 4;
}

/* The hot path of a capture: stores straight into the buffer, one copy per
 * part, no per-field calls. */
int pcapng_write_packet(struct pcapng_writer *w, const struct pcapng_packet *e)
{
	const struct pcapng_epb_opts *o = e->opts;
	bool borrow = w->borrow && e->cap_len >= BORROW_MIN;
	uint32_t total, pad = pad4(e->cap_len) - e->cap_len;
	uint8_t *p;
	int err;

	total = 28 + pad4(e->cap_len) + o->len + (e->has_packet_id ? 12 : 0) +
		(e->drop_count ? 12 : 0) + 4;
	if (borrow && w->n_segs + 2 >= SEGS_MAX && pcapng_flush(w))
		return w->error;
	err = reserve(w, borrow ? total - e->cap_len : total);
	if (err)
		return err;
	p = w->buf + w->len;
	p = st32(p, BT_EPB);
	p = st32(p, total);
	p = st32(p, e->if_id);
	p = st32(p, (uint32_t)(e->ts_ns >> 32));
	p = st32(p, (uint32_t)e->ts_ns);
	p = st32(p, e->cap_len);
	p = st32(p, e->wire_len);
	if (borrow) {
		/* The packet's bytes stay where they are until the flush. */
		w->len = p - w->buf;
		seg_close(w);
		w->segs[w->n_segs++] = (struct seg){ .ext = e->data, .len = e->cap_len };
		w->borrowed += e->cap_len;
	} else {
		memcpy(p, e->data, e->cap_len);
		p += e->cap_len;
	}
	/* The padding: four zero bytes, of which the options (at least
	 * epb_flags) overwrite those past it. */
	st32(p, 0);
	p += pad;
	memcpy(p, o->buf, o->len);
	p += o->len;
	if (e->has_packet_id)
		p = enc_opt(p, EPB_PACKETID, &e->packet_id, 8);
	if (e->drop_count)
		p = enc_opt(p, EPB_DROPCOUNT, &e->drop_count, 8);
	/* No opt_endofopt: the block's length ends the options, as the
	 * format allows and every reader handles; 4 bytes of each packet. */
	p = st32(p, total);
	w->len = p - w->buf;
	w->bytes += total;
	if (log_block(w, (int32_t)e->if_id) && !w->error)
		w->error = -ENOMEM;
	return w->error;
}

int pcapng_write_pib(struct pcapng_writer *w, uint32_t pid, const char *name, const char *path)
{
	struct block b;
	int err;

	err = reserve(w, 16 + str_room(name) + str_room(path) + 4);
	if (err)
		return err;
	begin(&b, w, BT_PIB);
	put_u32(w, pid);
	put_opt_str(w, PIB_NAME, name);
	put_opt_str(w, PIB_PATH, path);
	finish(&b, true);
	return (int)w->n_pibs++;
}

int pcapng_write_isb(struct pcapng_writer *w, const struct pcapng_isb *s)
{
	struct block b;
	int err;

	err = reserve(w, 20 + 6 * 12 + 4 + 4 + str_room(s->comment));
	if (err)
		return err;
	begin(&b, w, BT_ISB);
	put_u32(w, s->if_id);
	put_ts(w, s->ts_ns);
	put_opt_ts(w, ISB_STARTTIME, s->start_ns);
	put_opt_ts(w, ISB_ENDTIME, s->end_ns);
	put_opt_u64(w, ISB_IFRECV, s->if_recv);
	put_opt_u64(w, ISB_IFDROP, s->if_drop);
	if (s->has_filter_accept)
		put_opt_u64(w, ISB_FILTERACCEPT, s->filter_accept);
	put_opt_u64(w, ISB_USRDELIV, s->usr_deliv);
	put_opt_str(w, OPT_COMMENT, s->comment);
	finish(&b, true);
	return 0;
}
