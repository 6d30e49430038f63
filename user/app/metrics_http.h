/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * --metrics ADDR:PORT's server: the latest text (metrics.h) on /metrics,
 * served by libmicrohttpd with a thread per connection, so that no client
 * (silent, slow, or costing a bcrypt check) holds up another or the
 * capture, and the capture never waits for a scrape.
 *
 * What a server owes its users:
 *  - a deadline for each whole request (PS_METRICS_DEADLINE_S from the
 *    connection, or from the end of its previous request): a client that
 *    trickles its headers is cut off at it, not at each read;
 *  - at most PS_METRICS_CONNECTIONS connections at once, more refused by
 *    the kernel's backlog and libmicrohttpd rather than queued behind;
 *  - headers and request line within libmicrohttpd's memory limit (a
 *    100 kB request line gets its error status, not our memory);
 *  - with --metrics-web-config (webcfg.h): TLS, and basic authentication
 *    against bcrypt hashes; a success is remembered so that Prometheus'
 *    scrapes every 15 s do not each cost a bcrypt, and an unknown user
 *    costs the same as a wrong password.
 */
#ifndef PS_METRICS_HTTP_H
#define PS_METRICS_HTTP_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "addr.h"
#include "webcfg.h"

#define PS_METRICS_DEADLINE_S 5
#define PS_METRICS_CONNECTIONS 128

struct ps_metrics_conn;
struct ps_metrics_srv;
struct MHD_Response;

struct ps_metrics {
	int fd;			       /* listening (ours; a daemon gets a dup); -1 */
	struct ps_webcfg web;	       /* TLS and users, until the server takes them */
	struct ps_metrics_srv *srv;    /* serving, from the first text on */
	pthread_mutex_t lock;	       /* what follows, shared with the servers */
	struct MHD_Response *page;     /* the latest text */
	struct ps_metrics_conn *conns; /* open, with their deadlines */
	uint64_t cut;		       /* cut off at the deadline */
};

/* Can web's TLS be served: libmicrohttpd has TLS, and GnuTLS takes web's
 * certificate with its key? 0, or -errno logged (tail after the reason),
 * so that a bad pair is one line before anything is attached or changed. */
int ps_metrics_check_web(const struct ps_webcfg *web, const char *tail);
/* Listen on addr, to serve with web (webcfg.h; taken, also on failure;
 * NULL: plain HTTP, no users). -errno, logged in one line (the port is
 * taken, say). */
int ps_metrics_open(struct ps_metrics *m, const struct ps_addr *addr, struct ps_webcfg *web);
/* The text scrapes get from now on; m takes body (malloc'ed). The first
 * one starts the server. */
void ps_metrics_publish(struct ps_metrics *m, char *body, size_t len);
/* Cut off the connections past their deadline; called once a second. */
void ps_metrics_enforce_deadlines(struct ps_metrics *m);
/* A reload's web configuration (loaded, taken) on the same address:
 * served by a new daemon on the same socket, the old one stopped. 0 (also
 * when nothing changed), or -errno, logged, the running one kept. */
int ps_metrics_reconfigure(struct ps_metrics *m, struct ps_webcfg *web);
/* Stop answering and let go of everything; safe when never opened. */
void ps_metrics_close(struct ps_metrics *m);

#endif
