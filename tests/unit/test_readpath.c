// SPDX-License-Identifier: GPL-2.0-only
/*
 * -r --path (user/app/readpath.h): a packet's records joined by their id
 * into one line, its places in order with the time between them and a
 * drop's reason; printed in the order of first records, once a drop ends
 * a packet, a second goes by without another record of it, or the file
 * ends; -c counts packets.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>
#include "linktype.h"
#include "readpath.h"

/* An Ethernet frame: IPv4 UDP 192.0.2.2.1000 > 198.51.100.2.9, 4 bytes. */
static const uint8_t frame[] = {
	0x02, 0,  0,	0,    0, 2, 0x02, 0,  0, 0, 0,	 1,   0x08, 0x00, 0x45, 0,
	0,    32, 0,	1,    0, 0, 64,	  17, 0, 0, 192, 0,   2,    2,	  198,	51,
	100,  2,  0x03, 0xe8, 0, 9, 0,	  12, 0, 0, 't', 'e', 's',  't',
};

static const struct ps_capread_if if_a = { .linktype = PS_LINKTYPE_ETHERNET,
					   .name = "paA",
					   .hook = "tc-ingress" };
static const struct ps_capread_if if_b = { .linktype = PS_LINKTYPE_ETHERNET,
					   .name = "paB",
					   .hook = "tc-egress" };
static const struct ps_capread_if if_drop = { .linktype = PS_LINKTYPE_ETHERNET,
					      .name = "paA",
					      .hook = "drop" };

static struct ps_capread_rec rec(const struct ps_capread_if *i, uint64_t ts_ns, bool has_id,
				 uint64_t id, const char *comment)
{
	struct ps_capread_rec r = {
		.kind = PS_REC_PACKET,
		.iface = i,
		.ts_ns = ts_ns,
		.data = frame,
		.cap_len = sizeof(frame),
		.wire_len = sizeof(frame),
		.has_id = has_id,
		.id = id,
	};

	snprintf(r.comment, sizeof(r.comment), "%s", comment);
	return r;
}

struct out {
	char *buf;
	size_t len;
	FILE *f;
	struct ps_printer pr;
	struct ps_readpath *rp;
};

static void open_out(struct out *o, uint64_t limit)
{
	const struct ps_print_opts opts = { .ts = PS_TS_UNIX };

	o->f = open_memstream(&o->buf, &o->len);
	assert_non_null(o->f);
	ps_printer_init(&o->pr, &opts, o->f);
	o->rp = ps_readpath_new(&o->pr, limit);
	assert_non_null(o->rp);
}

static int add(struct out *o, struct ps_capread_rec r)
{
	return ps_readpath_add(o->rp, &r);
}

static const char *lines(struct out *o)
{
	fflush(o->f);
	return o->buf;
}

static void close_out(struct out *o)
{
	ps_readpath_free(o->rp);
	ps_printer_free(&o->pr);
	fclose(o->f);
	free(o->buf);
}

#define UDP "IP 192.0.2.2.1000 > 198.51.100.2.9: UDP, length 4\n"

static void records_of_a_packet_make_one_line(void **state)
{
	struct out o;

	(void)state;
	open_out(&o, 0);
	assert_int_equal(add(&o, rec(&if_a, 1000000000, true, 7, "hook=tc-ingress")), 0);
	/* Another packet between: its own line, after the first's. */
	assert_int_equal(add(&o, rec(&if_a, 1000010000, true, 8, "hook=tc-ingress")), 0);
	assert_int_equal(add(&o, rec(&if_b, 1000023482, true, 7, "hook=tc-egress")), 0);
	assert_string_equal(lines(&o), "");
	assert_int_equal(ps_readpath_finish(o.rp), 0);
	assert_string_equal(lines(&o), "1.000000 tc-ingress@paA +23.482us tc-egress@paB " UDP
				       "1.000010 tc-ingress@paA " UDP);
	close_out(&o);
}

static void a_drop_ends_a_packet_with_its_reason(void **state)
{
	struct out o;

	(void)state;
	open_out(&o, 0);
	add(&o, rec(&if_a, 2000000000, true, 9, ""));
	add(&o, rec(&if_drop, 2000031000, true, 9, "hook=drop drop=IP_NOROUTE at=ip_error"));
	assert_string_equal(lines(&o),
			    "2.000000 tc-ingress@paA +31.000us drop@paA IP_NOROUTE " UDP);
	/* A record of that id after its drop is another packet. */
	add(&o, rec(&if_b, 2000040000, true, 9, ""));
	ps_readpath_finish(o.rp);
	assert_string_equal(lines(&o), "2.000000 tc-ingress@paA +31.000us drop@paA IP_NOROUTE " UDP
				       "2.000040 tc-egress@paB " UDP);
	close_out(&o);
}

static void a_quiet_second_prints_and_order_holds(void **state)
{
	struct out o;

	(void)state;
	open_out(&o, 0);
	/* Without an id: a packet of its own, printed at once. */
	add(&o, rec(&if_a, 1000000000, false, 0, ""));
	assert_string_equal(lines(&o), "1.000000 tc-ingress@paA " UDP);
	add(&o, rec(&if_a, 3000000000, true, 1, ""));
	/* Ended, but after a packet still open: it waits. */
	add(&o, rec(&if_a, 3000000100, true, 2, ""));
	add(&o, rec(&if_drop, 3000000200, true, 2, "drop=NO_SOCKET"));
	assert_string_equal(lines(&o), "1.000000 tc-ingress@paA " UDP);
	/* A second after packet 1's last record, both go. */
	add(&o, rec(&if_a, 4000000001, true, 3, ""));
	assert_string_equal(lines(&o), "1.000000 tc-ingress@paA " UDP "3.000000 tc-ingress@paA " UDP
				       "3.000000 tc-ingress@paA +0.100us drop@paA NO_SOCKET " UDP);
	close_out(&o);
}

static void the_count_is_of_packets(void **state)
{
	struct out o;

	(void)state;
	open_out(&o, 2);
	assert_int_equal(add(&o, rec(&if_a, 1000000000, true, 1, "")), 0);
	assert_int_equal(add(&o, rec(&if_b, 1000000100, true, 1, "")), 0);
	assert_int_equal(add(&o, rec(&if_a, 1000000200, true, 2, "")), 0);
	assert_int_equal(add(&o, rec(&if_a, 1000000300, true, 3, "")), 0);
	assert_int_equal(ps_readpath_finish(o.rp), 1);
	assert_string_equal(lines(&o), "1.000000 tc-ingress@paA +0.100us tc-egress@paB " UDP
				       "1.000000 tc-ingress@paA " UDP);
	close_out(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(records_of_a_packet_make_one_line),
		cmocka_unit_test(a_drop_ends_a_packet_with_its_reason),
		cmocka_unit_test(a_quiet_second_prints_and_order_holds),
		cmocka_unit_test(the_count_is_of_packets),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
