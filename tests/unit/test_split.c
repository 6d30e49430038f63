// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <arpa/inet.h>
#include <cmocka.h>
#include "split.h"

/* A raw sample as the kernel lays it out: meta, packet, padding so that
 * 4 (raw size field) + raw size is a multiple of 8. */
static size_t make_sample(uint8_t *buf, const struct ps_meta *m, const uint8_t *pkt)
{
	size_t sum = sizeof(*m) + m->cap_len;
	size_t raw = ((sum + 4 + 7) & ~(size_t)7) - 4;

	memcpy(buf, m, sizeof(*m));
	memcpy(buf + sizeof(*m), pkt, m->cap_len);
	memset(buf + sum, 0xee, raw - sum);
	return raw;
}

static struct ps_meta meta(uint32_t cap, uint32_t wire)
{
	return (struct ps_meta){ .ts_ns = 123,
				 .seq = 7,
				 .ifindex = 3,
				 .wire_len = wire,
				 .cap_len = cap,
				 .verdict = 2,
				 .cpu = 1,
				 .version = PS_META_VERSION,
				 .hook = PS_HOOK_XDP };
}

static void splits_every_padding(void **state)
{
	uint8_t pkt[64], buf[256];

	(void)state;
	for (size_t i = 0; i < sizeof(pkt); i++)
		pkt[i] = i;
	/* caplen 0..15 covers all eight paddings */
	for (uint32_t cap = 0; cap < 16; cap++) {
		struct ps_meta in = meta(cap, 64), out;
		size_t raw = make_sample(buf, &in, pkt);
		const uint8_t *p;

		assert_int_equal(ps_split_sample(buf, raw, &out, &p), 0);
		assert_memory_equal(&in, &out, sizeof(in));
		assert_ptr_equal(p, buf + sizeof(in));
		assert_memory_equal(p, pkt, cap);
	}
}

static void splits_unaligned_raw(void **state)
{
	/* In the ring the raw data starts 4 bytes past an 8-byte boundary. */
	uint64_t storage[40];
	uint8_t *buf = (uint8_t *)storage + 4, pkt[20] = { 1, 2, 3 };
	struct ps_meta in = meta(20, 20), out;
	const uint8_t *p;
	size_t raw = make_sample(buf, &in, pkt);

	(void)state;
	assert_int_equal(ps_split_sample(buf, raw, &out, &p), 0);
	assert_int_equal(out.ts_ns, 123);
	assert_int_equal(out.seq, 7);
}

static void rejects_malformed(void **state)
{
	uint8_t pkt[64] = { 0 }, buf[256];
	struct ps_meta m, out;
	const uint8_t *p;
	size_t raw;

	(void)state;
	m = meta(10, 64);
	raw = make_sample(buf, &m, pkt);
	assert_int_equal(ps_split_sample(buf, sizeof(m) - 1, &out, &p), -EPROTO);
	assert_int_equal(ps_split_sample(NULL, raw, &out, &p), -EPROTO);
	/* raw too short for cap_len */
	assert_int_equal(ps_split_sample(buf, sizeof(m) + 9, &out, &p), -EPROTO);
	/* raw longer than any padding explains */
	assert_int_equal(ps_split_sample(buf, sizeof(m) + 10 + 8, &out, &p), -EPROTO);

	m = meta(10, 64);
	m.version = PS_META_VERSION + 1;
	raw = make_sample(buf, &m, pkt);
	assert_int_equal(ps_split_sample(buf, raw, &out, &p), -EPROTO);

	m = meta(10, 64);
	m.hook = PS_HOOK_MAX;
	raw = make_sample(buf, &m, pkt);
	assert_int_equal(ps_split_sample(buf, raw, &out, &p), -EPROTO);

	m = meta(10, 9); /* captured more than the packet had */
	raw = make_sample(buf, &m, pkt);
	assert_int_equal(ps_split_sample(buf, raw, &out, &p), -EPROTO);
}

static void restores_vlan_tag(void **state)
{
	uint8_t pkt[60], out[64];
	struct ps_meta m = meta(60, 60);
	uint32_t cap, wire;
	const uint8_t *f;

	(void)state;
	for (size_t i = 0; i < sizeof(pkt); i++)
		pkt[i] = i;
	m.hook = PS_HOOK_TC_INGRESS;
	m.flags = PS_F_VLAN_OOB;
	m.vlan_proto = htons(0x8100);
	m.vlan_tci = (3 << 13) | 100; /* PCP 3, VID 100 */

	f = ps_frame_on_wire(&m, pkt, out, PS_SNAPLEN_MAX, &cap, &wire);
	assert_ptr_equal(f, out);
	assert_int_equal(cap, 64);
	assert_int_equal(wire, 64);
	assert_memory_equal(f, pkt, 12);
	assert_int_equal(f[12], 0x81);
	assert_int_equal(f[13], 0x00);
	assert_int_equal(f[14], 0x60);
	assert_int_equal(f[15], 100);
	assert_memory_equal(f + 16, pkt + 12, 48);

	/* 802.1ad outer tag keeps its TPID */
	m.vlan_proto = htons(0x88a8);
	f = ps_frame_on_wire(&m, pkt, out, PS_SNAPLEN_MAX, &cap, &wire);
	assert_int_equal(f[12], 0x88);
	assert_int_equal(f[13], 0xa8);

	/* truncated back to the snap length, wire length still grows */
	f = ps_frame_on_wire(&m, pkt, out, 62, &cap, &wire);
	assert_int_equal(cap, 62);
	assert_int_equal(wire, 64);

	/* the tag's position was not captured: frame as is */
	m.cap_len = 8;
	f = ps_frame_on_wire(&m, pkt, out, 8, &cap, &wire);
	assert_ptr_equal(f, pkt);
	assert_int_equal(cap, 8);
	assert_int_equal(wire, 64);
}

/* A corrupt wire length near 2^32 with a tag: no wrap below the capture. */
static void vlan_restore_does_not_wrap_the_wire_length(void **state)
{
	uint8_t pkt[60] = { 0 }, out[64];
	struct ps_meta m = meta(60, 60);
	uint32_t cap, wire;

	(void)state;
	m.flags = PS_F_VLAN_OOB;
	m.wire_len = UINT32_MAX - 1;
	ps_frame_on_wire(&m, pkt, out, PS_SNAPLEN_MAX, &cap, &wire);
	assert_int_equal(cap, 64);
	assert_int_equal(wire, UINT32_MAX);
}

static void untagged_frame_is_not_copied(void **state)
{
	uint8_t pkt[60] = { 0 }, out[64];
	struct ps_meta m = meta(60, 1500);
	uint32_t cap, wire;

	(void)state;
	assert_ptr_equal(ps_frame_on_wire(&m, pkt, out, 60, &cap, &wire), pkt);
	assert_int_equal(cap, 60);
	assert_int_equal(wire, 1500);
}

/* A tunnel's tc-ingress on 5.10: the outer headers in front are not the
 * packet's, and neither length counts them. */
static void strips_what_lies_before_the_network_header(void **state)
{
	uint8_t pkt[84], out[88], buf[256];
	struct ps_meta m = meta(84, 1534), got;
	uint32_t cap, wire;
	const uint8_t *f, *p;

	(void)state;
	for (size_t i = 0; i < sizeof(pkt); i++)
		pkt[i] = i;
	m.hook = PS_HOOK_TC_INGRESS;
	m.net_off = 34; /* ipip: the lower Ethernet and outer IPv4 headers */
	f = ps_frame_on_wire(&m, pkt, out, 50, &cap, &wire);
	assert_ptr_equal(f, pkt + 34);
	assert_int_equal(cap, 50);
	assert_int_equal(wire, 1500);

	/* It cannot be more than was captured. */
	m.net_off = 85;
	assert_int_equal(ps_split_sample(buf, make_sample(buf, &m, pkt), &got, &p), -EPROTO);
	m.net_off = 84;
	assert_int_equal(ps_split_sample(buf, make_sample(buf, &m, pkt), &got, &p), 0);
	f = ps_frame_on_wire(&got, p, out, PS_SNAPLEN_MAX, &cap, &wire);
	assert_int_equal(cap, 0);
	assert_int_equal(wire, 1450);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(splits_every_padding),
		cmocka_unit_test(splits_unaligned_raw),
		cmocka_unit_test(rejects_malformed),
		cmocka_unit_test(restores_vlan_tag),
		cmocka_unit_test(vlan_restore_does_not_wrap_the_wire_length),
		cmocka_unit_test(untagged_frame_is_not_copied),
		cmocka_unit_test(strips_what_lies_before_the_network_header),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
