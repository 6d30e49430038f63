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
#define FORMAT_SAMPLED_HEADER 1
#define FORMAT_IF_COUNTERS 1
#define HEADER_PROTOCOL_ETHERNET 1
#define IF_COUNTERS_LEN 88u

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

int ps_sflow_add_flow(struct ps_sflow_dgram *d, const struct ps_sflow_flow *f)
{
	uint32_t size = ps_sflow_flow_size(f->header_len);

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
	put32(d, 1); /* one record: the sampled header */
	put32(d, FORMAT_SAMPLED_HEADER);
	put32(d, 16 + pad4(f->header_len));
	put32(d, HEADER_PROTOCOL_ETHERNET);
	put32(d, f->frame_length);
	put32(d, f->stripped);
	put32(d, f->header_len);
	put_opaque(d, f->header, f->header_len);
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

int ps_sflow_parse_addr(const char *s, bool with_port, struct ps_sflow_addr *a)
{
	char host[INET6_ADDRSTRLEN + 2];
	const char *port = NULL;
	size_t n;

	memset(a, 0, sizeof(*a));
	a->port = PS_SFLOW_PORT;
	if (!s || !*s)
		return -EINVAL;
	if (s[0] == '[') { /* [IPv6]:port */
		const char *end = strchr(s, ']');

		if (!end || (end[1] && end[1] != ':') || (end[1] == ':' && !with_port))
			return -EINVAL;
		n = (size_t)(end - s - 1);
		port = end[1] ? end + 2 : NULL;
		if (n >= sizeof(host))
			return -EINVAL;
		memcpy(host, s + 1, n);
		host[n] = 0;
	} else {
		const char *colon = strchr(s, ':');

		/* One colon: IPv4:port; more: a bare IPv6 address. */
		if (colon && !strchr(colon + 1, ':')) {
			if (!with_port)
				return -EINVAL;
			port = colon + 1;
			n = (size_t)(colon - s);
		} else {
			n = strlen(s);
		}
		if (n >= sizeof(host))
			return -EINVAL;
		memcpy(host, s, n);
		host[n] = 0;
	}
	if (inet_pton(AF_INET, host, a->addr) == 1)
		a->family = AF_INET;
	else if (inet_pton(AF_INET6, host, a->addr) == 1)
		a->family = AF_INET6;
	else
		return -EINVAL;
	if (port) {
		char *end;
		unsigned long v;

		if (*port < '0' || *port > '9')
			return -EINVAL;
		errno = 0;
		v = strtoul(port, &end, 10);
		if (errno || *end || v == 0 || v > 65535)
			return -EINVAL;
		a->port = (uint16_t)v;
	}
	return 0;
}
