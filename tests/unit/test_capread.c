// SPDX-License-Identifier: GPL-2.0-only
/*
 * -r's reader: our own pcapng (what the writer makes) read back with every
 * annotation; pcapng and pcap in the other byte order and at nanoseconds;
 * and malformed files refused with one line that says where.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "capread.h"
#include "pcapng.h"
#include "support/pcapng_epb.h"

static char path[] = "/tmp/test_capread.XXXXXX";

static void write_file(const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, len, f), len);
	fclose(f);
}

/* Read the whole file; returns the number of packets, checks raw sizes. */
static int read_all(struct ps_capread_rec *recs, int max, char *err, size_t errlen, int *ret)
{
	struct ps_capread r;
	struct ps_capread_rec rec;
	int n = 0;

	*ret = ps_capread_open(&r, path, err, errlen);
	if (*ret)
		goto out;
	while ((*ret = ps_capread_next(&r, &rec, err, errlen)) > 0)
		if (rec.kind == PS_REC_PACKET && n < max) {
			recs[n] = rec;
			recs[n].raw = NULL; /* points into the reader's buffer */
			recs[n].data = NULL;
			recs[n].iface = NULL;
			n++;
		}
out:
	ps_capread_close(&r);
	return n;
}

static void our_own_file(void **state)
{
	int fd = open(path, O_WRONLY | O_TRUNC);
	struct pcapng_writer *w = pcapng_writer_new(fd, 0);
	const uint8_t frame[60] = { 1, 2, 3 };
	struct ps_capread r;
	struct ps_capread_rec rec;
	char err[256];
	size_t total = 0;
	int packets = 0, ret;

	(void)state;
	assert_non_null(w);
	assert_int_equal(pcapng_write_shb(w, &(struct pcapng_shb){ .userappl = "test" }), 0);
	assert_int_equal(pcapng_write_idb(w, &(struct pcapng_idb){ .linktype = 1,
								   .snaplen = 128,
								   .name = "veth0",
								   .description = "xdp ingress" }),
			 0);
	assert_int_equal(pcapng_write_idb(w, &(struct pcapng_idb){ .linktype = 1,
								   .snaplen = 128,
								   .name = "veth0",
								   .description = "tc egress" }),
			 1);
	for (int i = 0; i < 4; i++)
		assert_int_equal(pcapng_write_epb(w,
						  &(struct pcapng_epb){
							  .if_id = (uint32_t)(i & 1),
							  .ts_ns = 1700000000123456789ull +
								   (uint64_t)i,
							  .cap_len = 41 + (uint32_t)i,
							  .wire_len = 1000,
							  .data = frame,
							  .direction = i & 1 ? PCAPNG_DIR_OUTBOUND :
									       PCAPNG_DIR_INBOUND,
							  .has_packet_id = true,
							  .packet_id = 77 + (uint64_t)i,
							  .drop_count = (uint64_t)i,
							  .comment = i & 1 ? "hook=tc-egress" :
									     "hook=xdp",
						  }),
				 0);
	assert_int_equal(pcapng_write_isb(w, &(struct pcapng_isb){ .if_id = 0, .usr_deliv = 2 }),
			 0);
	assert_int_equal(pcapng_writer_free(w), 0);
	close(fd);

	assert_int_equal(ps_capread_open(&r, path, err, sizeof(err)), 0);
	while ((ret = ps_capread_next(&r, &rec, err, sizeof(err))) > 0) {
		total += rec.raw_len;
		if (rec.kind != PS_REC_PACKET)
			continue;
		assert_string_equal(rec.iface->name, "veth0");
		assert_string_equal(rec.iface->hook, packets & 1 ? "tc-egress" : "xdp");
		assert_int_equal(rec.ts_ns, 1700000000123456789ull + (uint64_t)packets);
		assert_int_equal(rec.cap_len, 41 + packets);
		assert_int_equal(rec.wire_len, 1000);
		assert_memory_equal(rec.data, frame, rec.cap_len);
		assert_int_equal(rec.direction, packets & 1 ? 2 : 1);
		assert_string_equal(rec.comment, packets & 1 ? "hook=tc-egress" : "hook=xdp");
		assert_true(rec.has_id);
		assert_int_equal(rec.id, 77 + packets);
		assert_int_equal(rec.has_drops, packets > 0);
		packets++;
	}
	assert_int_equal(ret, 0);
	assert_int_equal(packets, 4);
	ps_capread_close(&r);
	fd = open(path, O_RDONLY);
	assert_int_equal(total, lseek(fd, 0, SEEK_END)); /* every byte handed out once */
	close(fd);
}

/* Around another XDP program the description names it after the hook
 * ("xdp exit of lb (id 5)"); a description that merely starts alike is
 * not ours. */
static void hooks_around_an_xdp_program(void **state)
{
	static const char *const desc[] = { "xdp entry of lb (id 5)", "xdp exit of lb (id 5)",
					    "xdp exits", "tc ingress" };
	static const char *const want[] = { "xdp-entry", "xdp-exit", NULL, "tc-ingress" };
	int fd = open(path, O_WRONLY | O_TRUNC);
	struct pcapng_writer *w = pcapng_writer_new(fd, 0);
	const uint8_t frame[60] = { 1 };
	struct ps_capread r;
	struct ps_capread_rec rec;
	char err[256];
	int n = 0;

	(void)state;
	assert_int_equal(pcapng_write_shb(w, &(struct pcapng_shb){ .userappl = "test" }), 0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(pcapng_write_idb(w,
						  &(struct pcapng_idb){ .linktype = 1,
									.snaplen = 128,
									.name = "eth0",
									.description = desc[i] }),
				 i);
	for (int i = 0; i < 4; i++)
		assert_int_equal(pcapng_write_epb(w, &(struct pcapng_epb){ .if_id = (uint32_t)i,
									   .cap_len = 60,
									   .wire_len = 60,
									   .data = frame }),
				 0);
	assert_int_equal(pcapng_writer_free(w), 0);
	close(fd);
	assert_int_equal(ps_capread_open(&r, path, err, sizeof(err)), 0);
	while (ps_capread_next(&r, &rec, err, sizeof(err)) > 0) {
		if (rec.kind != PS_REC_PACKET)
			continue;
		if (want[n])
			assert_string_equal(rec.iface->hook, want[n]);
		else
			assert_null(rec.iface->hook);
		n++;
	}
	assert_int_equal(n, 4);
	ps_capread_close(&r);
}

/* Big-endian blocks, as a SPARC or a PowerPC writes them. */
static size_t be_block(uint8_t *b, uint32_t type, const uint8_t *body, uint32_t body_len)
{
	uint32_t len = 12 + body_len;

	b[0] = (uint8_t)(type >> 24), b[1] = (uint8_t)(type >> 16);
	b[2] = (uint8_t)(type >> 8), b[3] = (uint8_t)type;
	b[4] = (uint8_t)(len >> 24), b[5] = (uint8_t)(len >> 16);
	b[6] = (uint8_t)(len >> 8), b[7] = (uint8_t)len;
	memcpy(b + 8, body, body_len);
	memcpy(b + 8 + body_len, b + 4, 4);
	return len;
}

static void other_byte_order_and_resolution(void **state)
{
	static const uint8_t shb[] = { 0x1a, 0x2b, 0x3c, 0x4d, 0,    1,	   0,	 0,
				       0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	/* linktype 1, snaplen 96, if_name "eth9", if_tsresol 9, end */
	static const uint8_t idb[] = { 0,   1,	 0, 0, 0, 0, 0, 96, 0, 2, 0, 4, 'e', 't',
				       'h', '9', 0, 9, 0, 1, 9, 0,  0, 0, 0, 0, 0,   0 };
	/* if 0, ts 0x00000001:0x00000002 ns, caplen 4, len 60, data, epb_flags out */
	static const uint8_t epb[] = { 0, 0, 0, 0, 0, 0, 0, 1,	0,    0,    0,	  2,
				       0, 0, 0, 4, 0, 0, 0, 60, 0xde, 0xad, 0xbe, 0xef,
				       0, 2, 0, 4, 0, 0, 0, 2,	0,    0,    0,	  0 };
	/* classic pcap, big-endian, nanoseconds, one record */
	static const uint8_t pcap[] = { 0xa1, 0xb2, 0x3c, 0x4d, 0, 2, 0,  4,	0,    0, 0,
					0,    0,    0,	  0,	0, 0, 0,  0xff, 0xff, 0, 0,
					0,    1,    0,	  0,	0, 5, 0,  0,	0,    7, 0,
					0,    0,    2,	  0,	0, 0, 64, 0xab, 0xcd };
	uint8_t file[256];
	size_t n = 0;
	struct ps_capread_rec recs[2];
	char err[256];
	int ret;

	(void)state;
	n += be_block(file + n, 0x0a0d0d0a, shb, sizeof(shb));
	n += be_block(file + n, 1, idb, sizeof(idb));
	n += be_block(file + n, 6, epb, sizeof(epb));
	write_file(file, n);
	assert_int_equal(read_all(recs, 2, err, sizeof(err), &ret), 1);
	assert_int_equal(ret, 0);
	assert_int_equal(recs[0].ts_ns, (1ull << 32) + 2);
	assert_int_equal(recs[0].cap_len, 4);
	assert_int_equal(recs[0].wire_len, 60);
	assert_int_equal(recs[0].direction, 2);

	write_file(pcap, sizeof(pcap));
	assert_int_equal(read_all(recs, 2, err, sizeof(err), &ret), 1);
	assert_int_equal(ret, 0);
	assert_int_equal(recs[0].ts_ns, 5000000007ull);
	assert_int_equal(recs[0].cap_len, 2);
	assert_int_equal(recs[0].wire_len, 64);
}

static void malformed_files_say_where(void **state)
{
	static const uint8_t shb[] = { 0x0a, 0x0d, 0x0d, 0x0a, 28, 0, 0,    0,	  0x4d, 0x3c,
				       0x2b, 0x1a, 1,	 0,    0,  0, 0xff, 0xff, 0xff, 0xff,
				       0xff, 0xff, 0xff, 0xff, 28, 0, 0,    0 };
	/* an EPB of interface 5, which nothing described */
	static const uint8_t epb_no_if[] = { 6, 0, 0, 0, 32, 0, 0, 0, 5, 0, 0, 0, 0,  0, 0, 0,
					     0, 0, 0, 0, 0,  0, 0, 0, 0, 0, 0, 0, 32, 0, 0, 0 };
	/* a block whose trailing length differs */
	static const uint8_t bad_trailer[] = { 9, 0, 0, 0, 16, 0, 0, 0, 0, 0, 0, 0, 20, 0, 0, 0 };
	/* a pcap record cut short */
	static const uint8_t cut_pcap[] = { 0xd4, 0xc3, 0xb2, 0xa1, 2, 0,    4,	   0, 0, 0, 0,
					    0,	  0,	0,    0,    0, 0xff, 0xff, 0, 0, 1, 0,
					    0,	  0,	1,    0,    0, 0,    0,	   0, 0, 0, 100,
					    0,	  0,	0,    100,  0, 0,    0,	   1 };
	struct {
		const uint8_t *tail;
		size_t len;
		bool with_shb;
		const char *want;
	} cases[] = {
		{ epb_no_if, sizeof(epb_no_if), true,
		  "interface 5, which no block describes at offset 28" },
		{ bad_trailer, sizeof(bad_trailer), true, "two lengths differ at offset 28" },
		{ cut_pcap, sizeof(cut_pcap), false, "the file ends inside a record at offset 24" },
		{ shb, 12, false, "the file ends inside a record" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint8_t file[128];
		size_t n = 0;
		struct ps_capread_rec recs[1];
		char err[256] = "";
		int ret;

		if (cases[i].with_shb) {
			memcpy(file, shb, sizeof(shb));
			n = sizeof(shb);
		}
		memcpy(file + n, cases[i].tail, cases[i].len);
		write_file(file, n + cases[i].len);
		read_all(recs, 1, err, sizeof(err), &ret);
		if (ret >= 0 || !strstr(err, cases[i].want) || strchr(err, '\n'))
			fail_msg("case %zu: ret %d, '%s', want '%s'", i, ret, err, cases[i].want);
	}
}

static int setup(void **state)
{
	int fd = mkstemp(path);

	(void)state;
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(our_own_file),
		cmocka_unit_test(hooks_around_an_xdp_program),
		cmocka_unit_test(other_byte_order_and_resolution),
		cmocka_unit_test(malformed_files_say_where),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
