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

/* The owner's records after the header: extended_user, the owner the
 * sender, and extended_socket_ipv4. */
static void flow_sample_with_owner(void **state)
{
	static const uint8_t header[4] = { 1, 2, 3, 4 };
	struct ps_sflow_agent agent = { .family = AF_INET, .addr = { 10, 0, 0, 1 } };
	struct ps_sflow_flow f = {
		.seq = 1,
		.source_id = 3,
		.rate = 1,
		.pool = 1,
		.output = 3,
		.frame_length = 60,
		.header = header,
		.header_len = 4,
		.has_socket = true,
		.socket = { .proto = 6,
			    .local = { 192, 0, 2, 1 },
			    .remote = { 192, 0, 2, 2 },
			    .local_port = 40000,
			    .remote_port = 443 },
		.user = "pid=42 comm=curl",
		.user_is_src = true,
	};
	struct ps_sflow_dgram d;
	uint8_t want[256];
	size_t n = unhex("00000005 00000001 0a000001 00000000 00000001 00000000 00000001"
			 /* flow_sample, 128 bytes */
			 "00000001 00000080"
			 "00000001 00000003 00000001 00000001 00000000 00000000 00000003"
			 "00000003" /* three records */
			 "00000001 00000014 00000001 0000003c 00000000 00000004 01020304"
			 /* extended_user: format 1004; 32 bytes */
			 "000003ec 00000020"
			 "0000006a 00000010 7069643d343220636f6d6d3d6375726c" /* UTF-8, 16 bytes */
			 "00000000 00000000"
			 /* extended_socket_ipv4: enterprise 0, format 2100; 20 bytes */
			 "00000834 00000014"
			 "00000006 c0000201 c0000202 00009c40 000001bb",
			 want);

	(void)state;
	ps_sflow_begin(&d, &agent, 1, 0);
	assert_int_equal(ps_sflow_flow_bytes(&f), 8 + 128);
	assert_int_equal(ps_sflow_add_flow(&d, &f), 0);
	assert_int_equal(d.len, n);
	assert_memory_equal(d.buf, want, n);
}

/* A drop as hsflowd's dropmon sends one: discarded_packet (0,5) with the
 * header, the function and the kernel's reason (sFlow's drop notification
 * spec, 2020). */
static void discarded_packet_event(void **state)
{
	static const uint8_t header[4] = { 0x45, 0, 0, 0x1c };
	struct ps_sflow_agent agent = { .family = AF_INET, .addr = { 10, 0, 0, 1 } };
	struct ps_sflow_discard e = {
		.seq = 7,
		.ds_index = 3,
		.drops = 2,
		.input = 3,
		.reason = ps_sflow_drop_reason("NO_SOCKET"),
		.header_protocol = PS_SFLOW_HEADER_IPV4,
		.frame_length = 28,
		.header = header,
		.header_len = 4,
		.function = "udp_rcv+0x1f",
		.linux_reason = "NO_SOCKET",
	};
	struct ps_sflow_dgram d;
	uint8_t want[256];
	size_t n = unhex("00000005 00000001 0a000001 00000000 00000001 00000000 00000001"
			 /* discarded_packet: format 5, 108 bytes */
			 "00000005 0000006c"
			 /* seq, ds_class 0, ds_index 3, drops 2, input 3, output 0,
			  * reason 3 (port_unreachable), three records */
			 "00000007 00000000 00000003 00000002 00000003 00000000 00000003"
			 "00000003"
			 /* sampled_header: IPv4 (11), 28 bytes long, 4 of them */
			 "00000001 00000014 0000000b 0000001c 00000000 00000004 4500001c"
			 /* extended_function (1038): "udp_rcv+0x1f", 12 bytes */
			 "0000040e 00000010 0000000c 7564705f7263762b30783166"
			 /* extended_linux_reason (1042): "NO_SOCKET", 9 bytes + pad */
			 "00000412 00000010 00000009 4e4f5f534f434b4554000000",
			 want);

	(void)state;
	ps_sflow_begin(&d, &agent, 1, 0);
	assert_int_equal(ps_sflow_add_discard(&d, &e), 0);
	assert_int_equal(d.len, n);
	assert_memory_equal(d.buf, want, n);
	/* No room: the datagram stays as it was. */
	d.len = sizeof(d.buf) - 40;
	assert_int_equal(ps_sflow_add_discard(&d, &e), -ENOSPC);
	assert_int_equal(d.len, sizeof(d.buf) - 40);
}

static void drop_reasons_in_sflow_terms(void **state)
{
	(void)state;
	assert_int_equal(ps_sflow_drop_reason("NO_SOCKET"), PS_SFLOW_DROP_PORT_UNREACHABLE);
	assert_int_equal(ps_sflow_drop_reason("NETFILTER_DROP"), PS_SFLOW_DROP_ACL);
	assert_int_equal(ps_sflow_drop_reason("TC_EGRESS"), PS_SFLOW_DROP_ACL);
	assert_int_equal(ps_sflow_drop_reason("SOCKET_RCVBUFF"), PS_SFLOW_DROP_NO_BUFFER_SPACE);
	assert_int_equal(ps_sflow_drop_reason("IP_CSUM"), PS_SFLOW_DROP_UNKNOWN);
	assert_int_equal(ps_sflow_drop_reason(NULL), PS_SFLOW_DROP_UNKNOWN);
}

/* The socket of a frame: addresses and ports, the local side chosen. */
static void socket_of_frames(void **state)
{
	uint8_t v4[64] = {
		[12] = 0x81, [13] = 0x00, [16] = 0x08, [17] = 0x00, [18] = 0x45, [27] = 17
	};
	uint8_t v6[64] = { [0] = 0x60,	[6] = 6,     [23] = 1,	  [39] = 2,
			   [40] = 0x01, [41] = 0xbb, [42] = 0x9c, [43] = 0x40 };
	struct ps_sflow_socket s;

	(void)state;
	/* VLAN-tagged IPv4 UDP 10.0.0.1:53 -> 10.0.0.2:5353 */
	memcpy(v4 + 30, "\x0a\0\0\x01\x0a\0\0\x02\x00\x35\x14\xe9", 12);
	assert_int_equal(ps_sflow_socket_of(v4, sizeof(v4), false, true, &s), 0);
	assert_false(s.v6);
	assert_int_equal(s.proto, 17);
	assert_memory_equal(s.local, "\x0a\0\0\x01", 4);
	assert_int_equal(s.local_port, 53);
	assert_int_equal(s.remote_port, 5353);
	assert_int_equal(ps_sflow_socket_of(v4, sizeof(v4), false, false, &s), 0);
	assert_memory_equal(s.local, "\x0a\0\0\x02", 4);
	assert_int_equal(s.local_port, 5353);
	/* raw IPv6 TCP ::1 port 443 -> ::2 port 40000, the destination local */
	assert_int_equal(ps_sflow_socket_of(v6, sizeof(v6), true, false, &s), 0);
	assert_true(s.v6);
	assert_int_equal(s.proto, 6);
	assert_int_equal(s.local[15], 2);
	assert_int_equal(s.local_port, 40000);
	assert_int_equal(s.remote_port, 443);
	/* too short, a fragment, not TCP or UDP: none */
	for (uint32_t len = 0; len < 42; len++)
		assert_int_equal(ps_sflow_socket_of(v4, len, false, true, &s), -ENOENT);
	v4[24] = 0x01; /* a later fragment (offset 2048 bytes) */
	assert_int_equal(ps_sflow_socket_of(v4, sizeof(v4), false, true, &s), -ENOENT);
	v4[24] = 0;
	v4[27] = 1; /* ICMP */
	assert_int_equal(ps_sflow_socket_of(v4, sizeof(v4), false, true, &s), -ENOENT);
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
	struct ps_addr a;

	(void)state;
	assert_int_equal(ps_addr_parse("192.0.2.9", true, PS_SFLOW_PORT, &a), 0);
	assert_int_equal(a.family, AF_INET);
	assert_int_equal(a.port, 6343);
	assert_int_equal(ps_addr_parse("192.0.2.9:9999", true, PS_SFLOW_PORT, &a), 0);
	assert_int_equal(a.port, 9999);
	assert_int_equal(ps_addr_parse("2001:db8::1", true, PS_SFLOW_PORT, &a), 0);
	assert_int_equal(a.family, AF_INET6);
	assert_int_equal(a.port, 6343);
	assert_int_equal(ps_addr_parse("[2001:db8::1]:7000", true, PS_SFLOW_PORT, &a), 0);
	assert_int_equal(a.port, 7000);
	assert_int_equal(a.addr[15], 1);
	assert_int_equal(ps_addr_parse("collector.example", true, PS_SFLOW_PORT, &a), -EINVAL);
	assert_int_equal(ps_addr_parse("192.0.2.9:0", true, PS_SFLOW_PORT, &a), -EINVAL);
	assert_int_equal(ps_addr_parse("192.0.2.9:65536", true, PS_SFLOW_PORT, &a), -EINVAL);
	assert_int_equal(ps_addr_parse("192.0.2.9: 1", true, PS_SFLOW_PORT, &a), -EINVAL);
	assert_int_equal(ps_addr_parse("[2001:db8::1]x", true, PS_SFLOW_PORT, &a), -EINVAL);
	assert_int_equal(ps_addr_parse("192.0.2.9:1", false, PS_SFLOW_PORT, &a), -EINVAL);
	assert_int_equal(ps_addr_parse("", true, PS_SFLOW_PORT, &a), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(flow_sample_datagram),
		cmocka_unit_test(flow_sample_with_owner),
		cmocka_unit_test(discarded_packet_event),
		cmocka_unit_test(drop_reasons_in_sflow_terms),
		cmocka_unit_test(socket_of_frames),
		cmocka_unit_test(counters_sample_datagram),
		cmocka_unit_test(datagram_splits_at_the_size_limit),
		cmocka_unit_test(collector_addresses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
