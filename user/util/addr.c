// SPDX-License-Identifier: GPL-2.0-only
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "addr.h"

int ps_addr_parse(const char *s, bool with_port, uint16_t default_port, struct ps_addr *a)
{
	char host[INET6_ADDRSTRLEN + 2];
	const char *port = NULL;
	size_t n;

	memset(a, 0, sizeof(*a));
	a->port = default_port;
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

socklen_t ps_addr_sockaddr(const struct ps_addr *a, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (a->family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(a->port);
		memcpy(&s6->sin6_addr, a->addr, 16);
		return sizeof(*s6);
	}
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

	s4->sin_family = AF_INET;
	s4->sin_port = htons(a->port);
	memcpy(&s4->sin_addr, a->addr, 4);
	return sizeof(*s4);
}

void ps_addr_format(const struct ps_addr *a, char *buf, size_t len)
{
	char ip[INET6_ADDRSTRLEN] = "?";

	inet_ntop(a->family, a->addr, ip, sizeof(ip));
	snprintf(buf, len, a->family == AF_INET6 ? "[%s]:%u" : "%s:%u", ip, a->port);
}
