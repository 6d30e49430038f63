// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sFlow v5 encoder against datagrams worked out by hand from the
 * specification (sflow_version_5.txt: sample_datagram_v5, flow_sample,
 * sampled_header, counters_sample, if_counters), word by word.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <cmocka.h>
#include "sflow.h"

/* Expected bytes from a hex string; spaces are for reading. */
static size_t unhex(const char *s, uint8_t *out)
{
	size_t n = 0;

	for (; *s; s++) {
		unsigned int v;

		if (*s == ' ' || *s == '\n')
			continue;
		sscanf(s, "%2x", &v);
		out[n++] = (uint8_t)v;
		s++;
	}
	return n;
}

static void flow_sample_datagram(void **state)
{
	static const uint8_t header[14] = { 0x02, 0, 0, 0, 0,	 0x0b, 0x02,
					    0,	  0, 0, 0, 0x0a, 0x08, 0x00 };
	struct ps_sflow_agent agent = { .family = AF_INET,
					.addr = { 10, 0, 0, 1 },
					.sub_agent = 2 };
	struct ps_sflow_dgram d;
	uint8_t want[256];
	size_t n = unhex(
		/* sample_datagram_v5 */
		"00000005"	    /* version */
		"00000001 0a000001" /* agent: IPv4 10.0.0.1 */
		"00000002"	    /* sub_agent_id */
		"00000007"	    /* sequence_number */
		"000003e8"	    /* uptime: 1000 ms */
		"00000001"	    /* one sample */
		/* flow_sample: enterprise 0, format 1; 72 bytes */
		"00000001 00000048"
		"00000001" /* sequence_number */
		"00000003" /* source_id: type 0, ifIndex 3 */
		"0000000a" /* sampling_rate 10 */
		"00000064" /* sample_pool 100 */
		"00000002" /* drops 2 */
		"00000003" /* input ifIndex 3 */
		"00000000" /* output unknown */
		"00000001" /* one record */
		/* sampled_header: enterprise 0, format 1; 32 bytes */
		"00000001 00000020"
		"00000001" /* header_protocol: ETHERNET-ISO88023 */
		"0000003c" /* frame_length 60 */
		"00000000" /* stripped */
		"0000000e" /* header length 14, then the bytes padded to 16 */
		"02000000000b 02000000000a 0800 0000",
		want);

	(void)state;
	ps_sflow_begin(&d, &agent, 7, 1000);
	assert_int_equal(ps_sflow_add_flow(&d, &(struct ps_sflow_flow){ .seq = 1,
									.source_id = 3,
									.rate = 10,
									.pool = 100,
									.drops = 2,
									.input = 3,
									.output = 0,
									.frame_length = 60,
									.header = header,
									.header_len = 14 }),
			 0);
	assert_int_equal(d.len, n);
	assert_memory_equal(d.buf, want, n);
}

static void counters_sample_datagram(void **state)
{
	struct ps_sflow_agent agent = { .family = AF_INET6,
					.addr = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 } };
	struct ps_sflow_dgram d;
	uint8_t want[256];
	size_t n = unhex("00000005"
			 "00000002 20010db8000000000000000000000001" /* agent: IPv6 */
			 "00000000 00000001 00000000" /* sub-agent 0, sequence 1, uptime 0 */
			 "00000001"
			 /* counters_sample: enterprise 0, format 2; 108 bytes */
			 "00000002 0000006c"
			 "00000005" /* sequence_number */
			 "00000002" /* source_id: ifIndex 2 */
			 "00000001" /* one record */
			 /* if_counters: enterprise 0, format 1; 88 bytes */
			 "00000001 00000058"
			 "00000002"	    /* ifIndex */
			 "00000006"	    /* ifType: ethernetCsmacd */
			 "000000003b9aca00" /* ifSpeed: 1 Gb/s */
			 "00000001"	    /* ifDirection: full duplex */
			 "00000003"	    /* ifStatus: admin and oper up */
			 "0000000100000002" /* ifInOctets */
			 "00000003 00000004 ffffffff 00000005 00000006 00000007"
			 "0000000800000009" /* ifOutOctets */
			 "0000000a ffffffff ffffffff 0000000b 0000000c"
			 "00000001", /* ifPromiscuousMode */
			 want);

	(void)state;
	ps_sflow_begin(&d, &agent, 1, 0);
	assert_int_equal(ps_sflow_add_counters(&d,
					       &(struct ps_sflow_ifcounters){
						       .seq = 5,
						       .source_id = 2,
						       .if_index = 2,
						       .if_type = 6,
						       .if_speed = 1000000000,
						       .if_direction = 1,
						       .if_status = 3,
						       .in_octets = 0x100000002ull,
						       .in_ucast = 3,
						       .in_mcast = 4,
						       .in_bcast = PS_SFLOW_UNKNOWN32,
						       .in_discards = 5,
						       .in_errors = 6,
						       .in_unknown_protos = 7,
						       .out_octets = 0x800000009ull,
						       .out_ucast = 10,
						       .out_mcast = PS_SFLOW_UNKNOWN32,
						       .out_bcast = PS_SFLOW_UNKNOWN32,
						       .out_discards = 11,
						       .out_errors = 12,
						       .promiscuous = 1 }),
			 0);
	assert_int_equal(d.len, n);
	assert_memory_equal(d.buf, want, n);
}

/* 128-byte headers: a sample takes 192 bytes, 28 + 7 x 192 = 1372; an
 * eighth would make 1564 > 1400, so it goes into the next datagram and this
 * one is left as it was. */
static void datagram_splits_at_the_size_limit(void **state)
{
	struct ps_sflow_agent agent = { .family = AF_INET, .addr = { 127, 0, 0, 1 } };
	uint8_t header[128] = { 0 };
	struct ps_sflow_flow f = { .rate = 1, .header = header, .header_len = 128 };
	struct ps_sflow_dgram d, before;
	int i;

	(void)state;
	assert_int_equal(ps_sflow_flow_size(128), 192);
	ps_sflow_begin(&d, &agent, 1, 0);
	for (i = 0; i < 7; i++) {
		f.seq = (uint32_t)i + 1;
		assert_int_equal(ps_sflow_add_flow(&d, &f), 0);
	}
	assert_int_equal(d.len, 1372);
	before = d;
	assert_int_equal(ps_sflow_add_flow(&d, &f), -ENOSPC);
	assert_memory_equal(&d, &before, sizeof(d));
	assert_memory_equal(d.buf + 24, "\0\0\0\7", 4); /* seven samples */
	/* A header that does not fill a word is padded: 129 bytes take 132. */
	assert_int_equal(ps_sflow_flow_size(129), 196);
}

static void collector_addresses(void **state)
{
	struct ps_sflow_addr a;

	(void)state;
	assert_int_equal(ps_sflow_parse_addr("192.0.2.9", true, &a), 0);
	assert_int_equal(a.family, AF_INET);
	assert_int_equal(a.port, 6343);
	assert_int_equal(ps_sflow_parse_addr("192.0.2.9:9999", true, &a), 0);
	assert_int_equal(a.port, 9999);
	assert_int_equal(ps_sflow_parse_addr("2001:db8::1", true, &a), 0);
	assert_int_equal(a.family, AF_INET6);
	assert_int_equal(a.port, 6343);
	assert_int_equal(ps_sflow_parse_addr("[2001:db8::1]:7000", true, &a), 0);
	assert_int_equal(a.port, 7000);
	assert_int_equal(a.addr[15], 1);
	assert_int_equal(ps_sflow_parse_addr("collector.example", true, &a), -EINVAL);
	assert_int_equal(ps_sflow_parse_addr("192.0.2.9:0", true, &a), -EINVAL);
	assert_int_equal(ps_sflow_parse_addr("192.0.2.9:65536", true, &a), -EINVAL);
	assert_int_equal(ps_sflow_parse_addr("192.0.2.9: 1", true, &a), -EINVAL);
	assert_int_equal(ps_sflow_parse_addr("[2001:db8::1]x", true, &a), -EINVAL);
	assert_int_equal(ps_sflow_parse_addr("192.0.2.9:1", false, &a), -EINVAL);
	assert_int_equal(ps_sflow_parse_addr("", true, &a), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(flow_sample_datagram),
		cmocka_unit_test(counters_sample_datagram),
		cmocka_unit_test(datagram_splits_at_the_size_limit),
		cmocka_unit_test(collector_addresses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
