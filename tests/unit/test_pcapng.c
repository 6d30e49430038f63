// SPDX-License-Identifier: GPL-2.0-only
/*
 * pcapng writer: blocks byte for byte, then files read back with libpcap.
 * `test_pcapng --write-sample FILE` writes the annotated sample that
 * pcapng_tshark.sh checks with Wireshark's own reader.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <pcap/pcap.h>
#include <cmocka.h>
#include "pcapng.h"
#include "support/pcapng_epb.h"
#include "support/pcapng_walk.h"

#define LE16(x) (x) & 0xff, ((x) >> 8) & 0xff
#define LE32(x) LE16((x)&0xffff), LE16(((x) >> 16) & 0xffff)
#define LE64(x) LE32((uint32_t)(x)), LE32((uint32_t)((uint64_t)(x) >> 32))

static int mem_fd(void)
{
	int fd = memfd_create("pcapng", 0);

	assert_true(fd >= 0);
	return fd;
}

static size_t contents(int fd, uint8_t *buf, size_t size)
{
	ssize_t n = pread(fd, buf, size, 0);

	assert_true(n >= 0);
	return n;
}

#define assert_written(fd, expect)                                \
	do {                                                      \
		uint8_t got[4096];                                \
		size_t n = contents(fd, got, sizeof(got));        \
		assert_int_equal(n, sizeof(expect));              \
		assert_memory_equal(got, expect, sizeof(expect)); \
	} while (0)

static void shb_bytes(void **state)
{
	/* The bytes as the format lays them out. */
	/* clang-format off */
	static const uint8_t expect[] = {
		LE32(0x0A0D0D0A), LE32(76), LE32(0x1A2B3C4D), LE16(1), LE16(0),
		LE64(UINT64_MAX),
		LE16(2), LE16(6), 'x', '8', '6', '_', '6', '4', 0, 0,
		LE16(3), LE16(5), 'L', 'i', 'n', 'u', 'x', 0, 0, 0,
		LE16(4), LE16(15), 'p', 'k', 't', 's', 'a', 'm', 'p', 'l', 'e',
		' ', '0', '.', '1', '.', '0', 0,
		LE32(0), LE32(76),
	};
	/* clang-format on */
	int fd = mem_fd();
	struct pcapng_writer *w = pcapng_writer_new(fd, 0);

	(void)state;
	assert_int_equal(pcapng_write_shb(w, &(struct pcapng_shb){ .hardware = "x86_64",
								   .os = "Linux",
								   .userappl = "pktsample 0.1.0" }),
			 0);
	assert_int_equal(pcapng_writer_free(w), 0);
	assert_written(fd, expect);
	close(fd);
}

static void idb_bytes(void **state)
{
	/* The bytes as the format lays them out. */
	/* clang-format off */
	static const uint8_t expect[] = {
		LE32(1), LE32(56), LE16(1), LE16(0), LE32(128),
		LE16(2), LE16(4), 'e', 't', 'h', '0',
		LE16(3), LE16(11), 'x', 'd', 'p', ' ', 'i', 'n', 'g', 'r', 'e', 's', 's', 0,
		LE16(9), LE16(1), 9, 0, 0, 0,
		LE32(0), LE32(56),
	};
	/* clang-format on */
	int fd = mem_fd();
	struct pcapng_writer *w = pcapng_writer_new(fd, 0);

	(void)state;
	assert_int_equal(pcapng_write_idb(w, &(struct pcapng_idb){ .linktype = 1,
								   .snaplen = 128,
								   .name = "eth0",
								   .description = "xdp ingress" }),
			 0);
	assert_int_equal(pcapng_write_idb(w, &(struct pcapng_idb){ .linktype = 1 }), 1);
	assert_int_equal(pcapng_writer_free(w), 0);
	{
		uint8_t got[4096];
		size_t n = contents(fd, got, sizeof(got));

		/* second IDB: no name/description, tsresol only */
		assert_int_equal(n, sizeof(expect) + 8 + 8 + 8 + 4 + 4);
		assert_memory_equal(got, expect, sizeof(expect));
	}
	close(fd);
}

static void epb_bytes_with_every_option(void **state)
{
	/* The bytes as the format lays them out. */
	/* clang-format off */
	static const uint8_t expect[] = {
		LE32(6), LE32(108), LE32(0), LE32(1), LE32(2), LE32(5), LE32(60),
		1, 2, 3, 4, 5, 0, 0, 0,
		LE16(2), LE16(4), LE32(1),                 /* flags: inbound */
		LE16(6), LE16(4), LE32(3),                 /* queue */
		LE16(7), LE16(9), 2, LE64(2), 0, 0, 0,     /* verdict: XDP_PASS */
		LE16(1), LE16(5), 'h', 'e', 'l', 'l', 'o', 0, 0, 0,
		/* per packet, after the options that repeat */
		LE16(5), LE16(8), LE64(0x0001000000000007ull), /* packet id */
		LE16(4), LE16(8), LE64(5),                 /* drop count */
		LE32(108),             /* no end of options: the length ends them */
	};
	/* clang-format on */
	const uint8_t data[] = { 1, 2, 3, 4, 5 };
	int fd = mem_fd();
	struct pcapng_writer *w = pcapng_writer_new(fd, 0);

	(void)state;
	assert_int_equal(pcapng_write_epb(w,
					  &(struct pcapng_epb){ .if_id = 0,
								.ts_ns = 0x0000000100000002ull,
								.cap_len = 5,
								.wire_len = 60,
								.data = data,
								.direction = PCAPNG_DIR_INBOUND,
								.has_queue = true,
								.queue = 3,
								.has_packet_id = true,
								.packet_id = 0x0001000000000007ull,
								.has_verdict = true,
								.verdict_type = PCAPNG_VERDICT_XDP,
								.verdict = 2,
								.drop_count = 5,
								.comment = "hello" }),
			 0);
	assert_int_equal(pcapng_writer_free(w), 0);
	assert_written(fd, expect);
	close(fd);
}

static void epb_minimal_and_negative_tc_verdict(void **state)
{
	/* The bytes as the format lays them out. */
	/* clang-format off */
	static const uint8_t expect[] = {
		LE32(6), LE32(56), LE32(1), LE32(0), LE32(9), LE32(0), LE32(64),
		LE16(2), LE16(4), LE32(2),                 /* flags: outbound */
		LE16(7), LE16(9), 1, LE64(-1), 0, 0, 0,    /* TC_ACT_UNSPEC */
		LE32(56),
	};
	/* clang-format on */
	int fd = mem_fd();
	struct pcapng_writer *w = pcapng_writer_new(fd, 0);

	(void)state;
	assert_int_equal(pcapng_write_epb(w,
					  &(struct pcapng_epb){ .if_id = 1,
								.ts_ns = 9,
								.cap_len = 0,
								.wire_len = 64,
								.data = "",
								.direction = PCAPNG_DIR_OUTBOUND,
								.has_verdict = true,
								.verdict_type = PCAPNG_VERDICT_TC,
								.verdict = -1 }),
			 0);
	assert_int_equal(pcapng_writer_free(w), 0);
	assert_written(fd, expect);
	close(fd);
}

/*
 * The collector's path: options encoded once and reused give the same bytes
 * as options encoded from the fields; a comment over the limit is cut.
 */
static void epb_preencoded_options_match_fields(void **state)
{
	static char long_comment[PCAPNG_COMMENT_MAX + 100];
	const uint8_t data[] = { 9, 8, 7, 6, 5, 4, 3 };
	struct pcapng_epb e = {
		.if_id = 2,
		.ts_ns = 123456789,
		.cap_len = 7,
		.wire_len = 1500,
		.data = data,
		.direction = PCAPNG_DIR_OUTBOUND,
		.has_queue = true,
		.queue = 5,
		.has_packet_id = true,
		.packet_id = 42,
		.has_verdict = true,
		.verdict_type = PCAPNG_VERDICT_TC,
		.verdict = -1,
		.drop_count = 3,
		.comment = long_comment,
	};
	struct pcapng_epb_opts opts;
	uint8_t a[4096], b[4096];
	size_t na, nb;
	int fa = mem_fd(), fb = mem_fd();
	struct pcapng_writer *wa = pcapng_writer_new(fa, 0);
	struct pcapng_writer *wb = pcapng_writer_new(fb, 0);

	(void)state;
	memset(long_comment, 'c', sizeof(long_comment) - 1);
	pcapng_epb_opts_encode(&opts, &e);
	/* flags 8 + queue 8 + verdict 16 + the comment cut to the limit */
	assert_int_equal(opts.len, 8 + 8 + 16 + 4 + PCAPNG_COMMENT_MAX);
	assert_int_equal(pcapng_write_epb(wa, &e), 0);
	e.opts = &opts;
	for (int i = 0; i < 2; i++) { /* reused, with a new id and no drops */
		assert_int_equal(pcapng_write_epb(wb, &e), 0);
		e.packet_id++;
		e.drop_count = 0;
	}
	assert_int_equal(pcapng_writer_free(wa), 0);
	assert_int_equal(pcapng_writer_free(wb), 0);
	na = contents(fa, a, sizeof(a));
	nb = contents(fb, b, sizeof(b));
	assert_int_equal(na, 28 + 8 + opts.len + 12 + 12 + 4);
	assert_int_equal(nb, na + na - 12);
	assert_memory_equal(a, b, na);
	/* the second block: packet id 43, no drop count */
	assert_int_equal(b[na + 28 + 8 + opts.len], 5);
	assert_int_equal(b[na + 28 + 8 + opts.len + 4], 43);
	/* the block's length next: no end of options */
	assert_int_equal(b[na + 28 + 8 + opts.len + 12], (na - 12) & 0xff);
	close(fa);
	close(fb);
}

static void isb_bytes(void **state)
{
	/* The bytes as the format lays them out. */
	/* clang-format off */
	static const uint8_t expect[] = {
		LE32(5), LE32(88), LE32(1), LE32(0xA), LE32(0xB),
		LE16(2), LE16(8), LE32(0x11), LE32(0x22),  /* start: high, low */
		LE16(3), LE16(8), LE32(0x33), LE32(0x44),  /* end */
		LE16(4), LE16(8), LE64(1000),              /* ifrecv */
		LE16(5), LE16(8), LE64(7),                 /* ifdrop */
		LE16(8), LE16(8), LE64(993),               /* usrdeliv */
		LE32(0), LE32(88),
	};
	/* clang-format on */
	int fd = mem_fd();
	struct pcapng_writer *w = pcapng_writer_new(fd, 0);

	(void)state;
	assert_int_equal(pcapng_write_isb(w,
					  &(struct pcapng_isb){ .if_id = 1,
								.ts_ns = 0x0000000A0000000Bull,
								.start_ns = 0x0000001100000022ull,
								.end_ns = 0x0000003300000044ull,
								.if_recv = 1000,
								.if_drop = 7,
								.usr_deliv = 993 }),
			 0);
	assert_int_equal(pcapng_writer_free(w), 0);
	assert_written(fd, expect);
	close(fd);
}

/* A small section: two interfaces, packets of 60, 9000 and 1 bytes. */
static uint8_t big[9000];

static void write_sample(struct pcapng_writer *w)
{
	static const uint32_t lens[] = { 60, 9000, 1 };

	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (uint8_t)(i * 7);
	assert_int_equal(pcapng_write_shb(w, &(struct pcapng_shb){ .hardware = "x86_64",
								   .os = "Linux",
								   .userappl = "pktsample test" }),
			 0);
	assert_int_equal(pcapng_write_idb(w, &(struct pcapng_idb){ .linktype = 1,
								   .snaplen = 65460,
								   .name = "veth0",
								   .description = "xdp ingress",
								   .comment = "sample" }),
			 0);
	assert_int_equal(pcapng_write_idb(w, &(struct pcapng_idb){ .linktype = 1,
								   .snaplen = 65460,
								   .name = "veth0",
								   .description = "tc egress" }),
			 1);
	for (size_t i = 0; i < 3; i++) {
		bool xdp = i != 1;

		assert_int_equal(pcapng_write_epb(w,
						  &(struct pcapng_epb){
							  .if_id = xdp ? 0 : 1,
							  .ts_ns = 1700000000123456789ull + i,
							  .cap_len = lens[i],
							  .wire_len = lens[i] + (i == 2 ? 99 : 0),
							  .data = big,
							  .direction = xdp ? PCAPNG_DIR_INBOUND :
									     PCAPNG_DIR_OUTBOUND,
							  .has_queue = true,
							  .queue = 3,
							  .has_packet_id = true,
							  .packet_id = 100 + i,
							  .has_verdict = true,
							  .verdict_type = xdp ? PCAPNG_VERDICT_XDP :
										PCAPNG_VERDICT_TC,
							  .verdict = xdp ? 2 : -1,
							  .drop_count = i == 2 ? 4 : 0,
							  .comment =
								  xdp ? "hook=xdp cpu=1 queue=3" :
									"hook=tc-egress cpu=0 queue=3",
						  }),
				 0);
	}
	for (uint32_t id = 0; id < 2; id++)
		assert_int_equal(pcapng_write_isb(w,
						  &(struct pcapng_isb){
							  .if_id = id,
							  .ts_ns = 1700000001000000000ull,
							  .start_ns = 1700000000000000000ull,
							  .end_ns = 1700000001000000000ull,
							  .if_recv = 10,
							  .if_drop = 4,
							  .usr_deliv = 2 }),
				 0);
}

static void read_back_with_libpcap(const char *path)
{
	char err[PCAP_ERRBUF_SIZE];
	static const uint32_t lens[] = { 60, 9000, 1 };
	struct pcap_pkthdr *h;
	const u_char *d;
	pcap_t *p;

	p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, err);
	if (!p)
		fail_msg("libpcap: %s", err);
	assert_int_equal(pcap_datalink(p), DLT_EN10MB);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(pcap_next_ex(p, &h, &d), 1);
		assert_int_equal(h->caplen, lens[i]);
		assert_int_equal(h->len, lens[i] + (i == 2 ? 99 : 0));
		assert_int_equal(h->ts.tv_sec, 1700000000);
		assert_int_equal(h->ts.tv_usec, 123456789 + i); /* ns precision */
		assert_memory_equal(d, big, lens[i]);
	}
	assert_int_equal(pcap_next_ex(p, &h, &d), PCAP_ERROR_BREAK);
	pcap_close(p);
}

static void roundtrip(size_t buf_size)
{
	char path[] = "/tmp/pcapng-test-XXXXXX";
	int fd = mkstemp(path);
	struct pcapng_writer *w;

	assert_true(fd >= 0);
	w = pcapng_writer_new(fd, buf_size);
	write_sample(w);
	assert_int_equal(pcapng_writer_free(w), 0);
	read_back_with_libpcap(path);
	close(fd);
	unlink(path);
}

static void roundtrip_default_buffer(void **state)
{
	(void)state;
	roundtrip(0);
}

static void roundtrip_tiny_buffer_grows_for_jumbo(void **state)
{
	(void)state;
	roundtrip(1); /* clamped to the minimum; the 9000-byte block grows it */
}

static void write_error_is_sticky(void **state)
{
	int fds[2];
	struct pcapng_writer *w;

	(void)state;
	signal(SIGPIPE, SIG_IGN);
	assert_int_equal(pipe(fds), 0);
	close(fds[0]);
	w = pcapng_writer_new(fds[1], 0);
	assert_int_equal(pcapng_write_shb(w, &(struct pcapng_shb){ 0 }), 0);
	assert_int_equal(pcapng_flush(w), -EPIPE);
	assert_int_equal(pcapng_write_idb(w, &(struct pcapng_idb){ .linktype = 1 }), -EPIPE);
	assert_int_equal(pcapng_writer_free(w), -EPIPE);
	close(fds[1]);
}

/* Where each block of write_sample() ends: SHB, IDB, IDB, 3 EPBs, 2 ISBs. */
static size_t sample_ends(size_t *ends, size_t max)
{
	static uint8_t file[32768];
	int fd = mem_fd();
	struct pcapng_writer *w = pcapng_writer_new(fd, 0);
	size_t size, off = 0, n = 0;
	struct pn_block b;

	write_sample(w);
	assert_int_equal(pcapng_writer_free(w), 0);
	size = contents(fd, file, sizeof(file));
	close(fd);
	while (n < max && pn_next(file, size, &off, &b) == 1)
		ends[n++] = off;
	assert_int_equal(off, size);
	return n;
}

/* Every block of a file is whole, up to its end. */
static size_t whole_blocks(const char *path, size_t *packets)
{
	static uint8_t file[32768];
	FILE *f = fopen(path, "rb");
	size_t size, off = 0;
	struct pn_block b;
	int r;

	assert_non_null(f);
	size = fread(file, 1, sizeof(file), f);
	fclose(f);
	*packets = 0;
	while ((r = pn_next(file, size, &off, &b)) == 1)
		*packets += b.type == 6;
	assert_int_equal(r, 0); /* no partial block at the end */
	return size;
}

/*
 * A file that cannot grow (RLIMIT_FSIZE stands in for a full disk): the
 * write stops in the middle of the 9000-byte block; the file is cut back
 * to the block before, and only the packets in it count.
 */
static void full_file(bool borrow)
{
	char path[] = "/tmp/pcapng-full-XXXXXX";
	size_t ends[16], packets;
	struct rlimit old, lim;
	struct pcapng_writer *w;
	int fd;

	assert_int_equal(sample_ends(ends, 16), 8);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = ends[4] - 100; /* inside the second packet block */
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	w = pcapng_writer_new(fd, 0);
	if (borrow) /* the limit falls inside the borrowed 9000 bytes */
		assert_int_equal(pcapng_writer_borrow(w), 0);
	write_sample(w);
	assert_int_equal(pcapng_flush(w), -EFBIG);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	assert_int_equal(pcapng_writer_error(w), -EFBIG);
	assert_int_equal(pcapng_writer_good_bytes(w), ends[3]);
	assert_int_equal(pcapng_writer_packets(w, -1), 1);
	assert_int_equal(pcapng_writer_packets(w, 0), 1);
	assert_int_equal(pcapng_writer_packets(w, 1), 0);
	assert_int_equal(whole_blocks(path, &packets), ends[3]);
	assert_int_equal(packets, 1);
	pcapng_writer_free(w);
	close(fd);
	unlink(path);
}

static void full_file_ends_on_a_whole_block(void **state)
{
	(void)state;
	full_file(false);
}

static void full_file_ends_on_a_whole_block_borrowed(void **state)
{
	(void)state;
	full_file(true);
}

/*
 * Borrowed packet bytes (written by writev from where they are) make the
 * same file as copied ones, whether the buffer flushes once or at every
 * block, and the bytes are read at the flush, not before.
 */
static void borrowed_bytes_make_the_same_file(void **state)
{
	static uint8_t copied[32768], borrowed[32768];
	size_t sizes[] = { 0, 1 }, n_copied, n;

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		int fd = mem_fd();
		struct pcapng_writer *w = pcapng_writer_new(fd, sizes[i]);

		write_sample(w);
		assert_int_equal(pcapng_writer_free(w), 0);
		n_copied = contents(fd, copied, sizeof(copied));
		close(fd);

		fd = mem_fd();
		w = pcapng_writer_new(fd, sizes[i]);
		assert_int_equal(pcapng_writer_borrow(w), 0);
		write_sample(w);
		assert_int_equal(pcapng_writer_free(w), 0);
		n = contents(fd, borrowed, sizeof(borrowed));
		close(fd);
		assert_int_equal(n, n_copied);
		assert_memory_equal(borrowed, copied, n);
	}
}

/*
 * `pktsample -w - | head -c N`: bytes the pipe accepted but its reader
 * never read are not in anyone's file, so they do not count.
 */
static void pipe_counts_only_what_the_reader_read(void **state)
{
	uint8_t sink[32768];
	size_t ends[16];
	struct pcapng_writer *w;
	int fds[2];

	(void)state;
	assert_int_equal(sample_ends(ends, 16), 8);
	signal(SIGPIPE, SIG_IGN);
	assert_int_equal(pipe(fds), 0);
	w = pcapng_writer_new(fds[1], 0);
	write_sample(w);
	assert_int_equal(pcapng_flush(w), 0);
	assert_int_equal(pcapng_writer_packets(w, -1), 3);
	/* The reader takes the first packet block and a bit, then leaves. */
	assert_int_equal(read(fds[0], sink, ends[3] + 10), (ssize_t)(ends[3] + 10));
	close(fds[0]);
	assert_int_equal(pcapng_write_epb(w, &(struct pcapng_epb){ .cap_len = 1, .data = big }), 0);
	assert_int_equal(pcapng_flush(w), -EPIPE);
	assert_int_equal(pcapng_writer_good_bytes(w), ends[3]);
	assert_int_equal(pcapng_writer_packets(w, -1), 1);
	assert_int_equal(pcapng_writer_packets(w, 1), 0);
	pcapng_writer_free(w);
	close(fds[1]);
}

/*
 * After a stop, the output is non-blocking: a reader that takes nothing
 * more gives the writer 500 ms in all, then -ETIMEDOUT, and only the
 * blocks wholly in the pipe count.
 */
static void stopped_output_gives_up(void **state)
{
	struct pcapng_writer *w;
	struct timespec t0, t1;
	uint64_t ms;
	int fds[2];

	(void)state;
	assert_int_equal(pipe(fds), 0);
	assert_int_equal(fcntl(fds[1], F_SETFL, O_NONBLOCK), 0);
	w = pcapng_writer_new(fds[1], 0);
	write_sample(w);
	for (int i = 0; i < 100; i++) /* more than the 64 KiB pipe */
		assert_int_equal(pcapng_write_epb(w, &(struct pcapng_epb){ .cap_len = 1000,
									   .data = big }),
				 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(pcapng_flush(w), -ETIMEDOUT);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
	assert_true(ms >= 450 && ms < 2000);
	assert_true(pcapng_writer_packets(w, -1) > 3 && pcapng_writer_packets(w, -1) < 103);
	assert_true(pcapng_writer_good_bytes(w) <= 65536);
	assert_string_equal(pcapng_strerror(-ETIMEDOUT),
			    "the reader took nothing more after the stop");
	/* Sticky: nothing more is tried. */
	assert_int_equal(pcapng_flush(w), -ETIMEDOUT);
	pcapng_writer_free(w);
	close(fds[0]);
	close(fds[1]);
}

static void counts_bytes(void **state)
{
	int fd = mem_fd();
	struct pcapng_writer *w = pcapng_writer_new(fd, 0);

	(void)state;
	write_sample(w);
	assert_int_equal(pcapng_flush(w), 0);
	assert_int_equal(pcapng_bytes(w), lseek(fd, 0, SEEK_END));
	pcapng_writer_free(w);
	close(fd);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(shb_bytes),
		cmocka_unit_test(idb_bytes),
		cmocka_unit_test(epb_bytes_with_every_option),
		cmocka_unit_test(epb_minimal_and_negative_tc_verdict),
		cmocka_unit_test(epb_preencoded_options_match_fields),
		cmocka_unit_test(isb_bytes),
		cmocka_unit_test(roundtrip_default_buffer),
		cmocka_unit_test(roundtrip_tiny_buffer_grows_for_jumbo),
		cmocka_unit_test(write_error_is_sticky),
		cmocka_unit_test(counts_bytes),
		cmocka_unit_test(full_file_ends_on_a_whole_block),
		cmocka_unit_test(full_file_ends_on_a_whole_block_borrowed),
		cmocka_unit_test(borrowed_bytes_make_the_same_file),
		cmocka_unit_test(pipe_counts_only_what_the_reader_read),
		cmocka_unit_test(stopped_output_gives_up),
	};

	if (argc == 3 && !strcmp(argv[1], "--write-sample")) {
		FILE *f = fopen(argv[2], "w");
		struct pcapng_writer *w;

		if (!f)
			return perror(argv[2]), 1;
		w = pcapng_writer_new(fileno(f), 0);
		write_sample(w);
		if (pcapng_writer_free(w))
			return 1;
		return fclose(f) ? 1 : 0;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
