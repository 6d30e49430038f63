/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * An address and port as users type them (--sflow, --sflow-agent,
 * --metrics): 192.0.2.1, 192.0.2.1:6343, 2001:db8::1, [2001:db8::1]:6343.
 * Parsing and printing are pure.
 */
#ifndef PS_ADDR_H
#define PS_ADDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

struct ps_addr {
	int family; /* AF_INET or AF_INET6 */
	uint8_t addr[16];
	uint16_t port;
};

/* ADDR[:PORT] (with_port: a port may follow, else default_port); 0 or
 * -EINVAL. */
int ps_addr_parse(const char *s, bool with_port, uint16_t default_port, struct ps_addr *a);
/* As a socket address; its length. */
socklen_t ps_addr_sockaddr(const struct ps_addr *a, struct sockaddr_storage *ss);
/* "192.0.2.1:6343", "[2001:db8::1]:6343". */
void ps_addr_format(const struct ps_addr *a, char *buf, size_t len);

#endif
