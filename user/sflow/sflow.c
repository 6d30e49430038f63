// SPDX-License-Identifier: GPL-2.0-only
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "sflow.h"

#define SFLOW_VERSION 5
#define ADDR_IP_V4 1
#define ADDR_IP_V6 2
#define FORMAT_FLOW_SAMPLE 1 /* enterprise 0 */
#define FORMAT_COUNTERS_SAMPLE 2
#define FORMAT_DISCARDED_PACKET 5
#define FORMAT_SAMPLED_HEADER 1
#define FORMAT_IF_COUNTERS 1
#define IF_COUNTERS_LEN 88u
#define FORMAT_EXTENDED_USER 1004
#define FORMAT_SOCKET4 2100
#define FORMAT_SOCKET6 2101
#define FORMAT_EXTENDED_FUNCTION 1038
#define FORMAT_EXTENDED_LINUX_REASON 1042
#define CHARSET_UTF8 106 /* the IANA MIBenum */

static uint32_t pad4(uint32_t n)
{
	return (n + 3) & ~3u;
}

static void put32_at(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static void put32(struct ps_sflow_dgram *d, uint32_t v)
{
	put32_at(d->buf + d->len, v);
	d->len += 4;
}

static void put64(struct ps_sflow_dgram *d, uint64_t v)
{
	put32(d, (uint32_t)(v >> 32));
	put32(d, (uint32_t)v);
}

static void put_opaque(struct ps_sflow_dgram *d, const uint8_t *p, uint32_t n)
{
	memcpy(d->buf + d->len, p, n);
	memset(d->buf + d->len + n, 0, pad4(n) - n);
	d->len += pad4(n);
}

void ps_sflow_begin(struct ps_sflow_dgram *d, const struct ps_sflow_agent *a, uint32_t seq,
		    uint32_t uptime_ms)
{
	d->len = 0;
	d->n_samples = 0;
	put32(d, SFLOW_VERSION);
	if (a->family == AF_INET6) {
		put32(d, ADDR_IP_V6);
		put_opaque(d, a->addr, 16);
	} else {
		put32(d, ADDR_IP_V4);
		put_opaque(d, a->addr, 4);
	}
	put32(d, a->sub_agent);
	put32(d, seq);
	put32(d, uptime_ms);
	d->n_samples_at = d->len;
	put32(d, 0);
}

static void count_sample(struct ps_sflow_dgram *d)
{
	put32_at(d->buf + d->n_samples_at, ++d->n_samples);
}

uint32_t ps_sflow_flow_size(uint32_t header_len)
{
	/* sample tag + length, 7 fields, record count, record tag + length,
	 * protocol, frame length, stripped, header length, header */
	return 8 + 28 + 4 + 8 + 16 + pad4(header_len);
}

static uint32_t user_len(const struct ps_sflow_flow *f)
{
	size_t n = f->user ? strlen(f->user) : 0;

	return n > PS_SFLOW_USER_MAX ? PS_SFLOW_USER_MAX : (uint32_t)n;
}

uint32_t ps_sflow_flow_bytes(const struct ps_sflow_flow *f)
{
	uint32_t size = ps_sflow_flow_size(f->header_len);

	if (f->has_socket)
		size += 8 + (f->socket.v6 ? 44 : 20);
	if (f->user)
		size += 8 + 16 + pad4(user_len(f));
	return size;
}

static void put_socket(struct ps_sflow_dgram *d, const struct ps_sflow_socket *k)
{
	uint32_t alen = k->v6 ? 16 : 4;

	put32(d, k->v6 ? FORMAT_SOCKET6 : FORMAT_SOCKET4);
	put32(d, 4 + 2 * alen + 8);
	put32(d, k->proto);
	put_opaque(d, k->local, alen);
	put_opaque(d, k->remote, alen);
	put32(d, k->local_port);
	put32(d, k->remote_port);
}

/* extended_user: a charset and a string for each side; the owner's side
 * has the words (n bytes of user), the other none. */
static void put_user(struct ps_sflow_dgram *d, const char *user, uint32_t n, bool user_is_src)
{
	put32(d, FORMAT_EXTENDED_USER);
	put32(d, 16 + pad4(n));
	for (int side = 0; side < 2; side++) {
		bool mine = (side == 0) == user_is_src;

		put32(d, mine ? CHARSET_UTF8 : 0);
		put32(d, mine ? n : 0);
		if (mine)
			put_opaque(d, (const uint8_t *)user, n);
	}
}

/* sampled_header (0,1). */
static void put_header(struct ps_sflow_dgram *d, uint32_t protocol, uint32_t frame_length,
		       uint32_t stripped, const uint8_t *header, uint32_t header_len)
{
	put32(d, FORMAT_SAMPLED_HEADER);
	put32(d, 16 + pad4(header_len));
	put32(d, protocol);
	put32(d, frame_length);
	put32(d, stripped);
	put32(d, header_len);
	put_opaque(d, header, header_len);
}

int ps_sflow_add_flow(struct ps_sflow_dgram *d, const struct ps_sflow_flow *f)
{
	uint32_t size = ps_sflow_flow_bytes(f);

	if (d->len + size > sizeof(d->buf))
		return -ENOSPC;
	put32(d, FORMAT_FLOW_SAMPLE);
	put32(d, size - 8);
	put32(d, f->seq);
	put32(d, f->source_id);
	put32(d, f->rate);
	put32(d, f->pool);
	put32(d, f->drops);
	put32(d, f->input);
	put32(d, f->output);
	/* The records: the sampled header, the owner, its socket. Wireshark
	 * 4.0 does not skip a record it does not know (the socket) by its
	 * length: what follows one would be misread, so it goes last. */
	put32(d, 1 + f->has_socket + (f->user != NULL));
	put_header(d, PS_SFLOW_HEADER_ETHERNET, f->frame_length, f->stripped, f->header,
		   f->header_len);
	if (f->user)
		put_user(d, f->user, user_len(f), f->user_is_src);
	if (f->has_socket)
		put_socket(d, &f->socket);
	count_sample(d);
	return 0;
}

int ps_sflow_add_counters(struct ps_sflow_dgram *d, const struct ps_sflow_ifcounters *c)
{
	uint32_t size = 8 + 12 + 8 + IF_COUNTERS_LEN;

	if (d->len + size > sizeof(d->buf))
		return -ENOSPC;
	put32(d, FORMAT_COUNTERS_SAMPLE);
	put32(d, size - 8);
	put32(d, c->seq);
	put32(d, c->source_id);
	put32(d, 1); /* one record: the generic interface counters */
	put32(d, FORMAT_IF_COUNTERS);
	put32(d, IF_COUNTERS_LEN);
	put32(d, c->if_index);
	put32(d, c->if_type);
	put64(d, c->if_speed);
	put32(d, c->if_direction);
	put32(d, c->if_status);
	put64(d, c->in_octets);
	put32(d, c->in_ucast);
	put32(d, c->in_mcast);
	put32(d, c->in_bcast);
	put32(d, c->in_discards);
	put32(d, c->in_errors);
	put32(d, c->in_unknown_protos);
	put64(d, c->out_octets);
	put32(d, c->out_ucast);
	put32(d, c->out_mcast);
	put32(d, c->out_bcast);
	put32(d, c->out_discards);
	put32(d, c->out_errors);
	put32(d, c->promiscuous);
	count_sample(d);
	return 0;
}

int ps_sflow_socket_of(const uint8_t *frame, uint32_t len, bool raw, bool local_is_src,
		       struct ps_sflow_socket *s)
{
	const uint8_t *p = frame, *end = frame + len, *l4;
	uint32_t type;
	uint8_t proto;

	memset(s, 0, sizeof(*s));
	if (raw) {
		if (len < 1)
			return -ENOENT;
		type = (p[0] >> 4) == 4 ? 0x0800 : (p[0] >> 4) == 6 ? 0x86dd : 0;
	} else {
		if (len < 14)
			return -ENOENT;
		type = (uint32_t)p[12] << 8 | p[13];
		p += 14;
		if ((type == 0x8100 || type == 0x88a8) && end - p >= 4) {
			type = (uint32_t)p[2] << 8 | p[3];
			p += 4;
		}
	}
	if (type == 0x0800) {
		uint32_t ihl;

		if (end - p < 20 || (p[0] >> 4) != 4 || (ihl = (p[0] & 15u) * 4) < 20 ||
		    (uint32_t)(end - p) < ihl)
			return -ENOENT;
		if ((p[6] & 0x1f) || p[7]) /* a fragment after the first */
			return -ENOENT;
		proto = p[9];
		memcpy(local_is_src ? s->local : s->remote, p + 12, 4);
		memcpy(local_is_src ? s->remote : s->local, p + 16, 4);
		l4 = p + ihl;
	} else if (type == 0x86dd) {
		if (end - p < 40)
			return -ENOENT;
		proto = p[6];
		s->v6 = true;
		memcpy(local_is_src ? s->local : s->remote, p + 8, 16);
		memcpy(local_is_src ? s->remote : s->local, p + 24, 16);
		l4 = p + 40;
	} else {
		return -ENOENT;
	}
	if ((proto != 6 && proto != 17) || end - l4 < 4)
		return -ENOENT;
	s->proto = proto;
	s->local_port = local_is_src ? (uint32_t)l4[0] << 8 | l4[1] : (uint32_t)l4[2] << 8 | l4[3];
	s->remote_port = local_is_src ? (uint32_t)l4[2] << 8 | l4[3] : (uint32_t)l4[0] << 8 | l4[1];
	return 0;
}

uint32_t ps_sflow_drop_reason(const char *linux_reason)
{
	static const struct {
		const char *name;
		uint32_t code;
	} map[] = {
		{ "NO_SOCKET", PS_SFLOW_DROP_PORT_UNREACHABLE },
		{ "IP_NOROUTE", PS_SFLOW_DROP_DST_NET_UNKNOWN },
		{ "IP_OUTNOROUTES", PS_SFLOW_DROP_DST_NET_UNKNOWN },
		{ "NETFILTER_DROP", PS_SFLOW_DROP_ACL },
		{ "TC_INGRESS", PS_SFLOW_DROP_ACL },
		{ "TC_EGRESS", PS_SFLOW_DROP_ACL },
		{ "XDP", PS_SFLOW_DROP_ACL },
		{ "SOCKET_RCVBUFF", PS_SFLOW_DROP_NO_BUFFER_SPACE },
		{ "PROTO_MEM", PS_SFLOW_DROP_NO_BUFFER_SPACE },
		{ "QDISC_DROP", PS_SFLOW_DROP_NO_BUFFER_SPACE },
		{ "CPU_BACKLOG", PS_SFLOW_DROP_NO_BUFFER_SPACE },
		{ "FULL_RING", PS_SFLOW_DROP_NO_BUFFER_SPACE },
	};

	for (size_t i = 0; linux_reason && i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(linux_reason, map[i].name))
			return map[i].code;
	return PS_SFLOW_DROP_UNKNOWN;
}

static uint32_t string_len(const char *s, uint32_t max)
{
	size_t n = s ? strlen(s) : 0;

	return n > max ? max : (uint32_t)n;
}

/* A string record (extended_function, extended_linux_reason). */
static void put_string_record(struct ps_sflow_dgram *d, uint32_t format, const char *s, uint32_t n)
{
	put32(d, format);
	put32(d, 4 + pad4(n));
	put32(d, n);
	put_opaque(d, (const uint8_t *)s, n);
}

int ps_sflow_add_discard(struct ps_sflow_dgram *d, const struct ps_sflow_discard *e)
{
	uint32_t user = string_len(e->user, PS_SFLOW_USER_MAX);
	uint32_t fn = string_len(e->function, PS_SFLOW_STRING_MAX);
	uint32_t why = string_len(e->linux_reason, PS_SFLOW_STRING_MAX);
	/* tag + length, 7 fields, the record count, then the records */
	uint32_t size = 8 + 28 + 4 + 8 + 16 + pad4(e->header_len);

	if (e->user)
		size += 8 + 16 + pad4(user);
	if (e->function)
		size += 8 + 4 + pad4(fn);
	if (e->linux_reason)
		size += 8 + 4 + pad4(why);
	if (d->len + size > sizeof(d->buf))
		return -ENOSPC;
	put32(d, FORMAT_DISCARDED_PACKET);
	put32(d, size - 8);
	put32(d, e->seq);
	put32(d, 0); /* ds_class: ifIndex */
	put32(d, e->ds_index);
	put32(d, e->drops);
	put32(d, e->input);
	put32(d, e->output);
	put32(d, e->reason);
	put32(d, 1 + (e->user != NULL) + (e->function != NULL) + (e->linux_reason != NULL));
	put_header(d, e->header_protocol, e->frame_length, 0, e->header, e->header_len);
	if (e->user)
		put_user(d, e->user, user, e->user_is_src);
	if (e->function)
		put_string_record(d, FORMAT_EXTENDED_FUNCTION, e->function, fn);
	if (e->linux_reason)
		put_string_record(d, FORMAT_EXTENDED_LINUX_REASON, e->linux_reason, why);
	count_sample(d);
	return 0;
}
