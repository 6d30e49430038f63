// SPDX-License-Identifier: GPL-2.0-only
#define _GNU_SOURCE /* accept4, memmem */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/time.h>
#include "log.h"
#include "metrics.h"

#define ULL(x) ((unsigned long long)(x))

/* snprintf that keeps counting past the end, as the result promises. */
static void put(char *buf, size_t len, size_t *at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void put(char *buf, size_t len, size_t *at, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(*at < len ? buf + *at : NULL, *at < len ? len - *at : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		*at += (size_t)n;
}

/* A label value as the format wants it: backslash, quote and newline escaped. */
static void put_label(char *buf, size_t len, size_t *at, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			put(buf, len, at, "\\%c", *s);
		else if (*s == '\n')
			put(buf, len, at, "\\n");
		else
			put(buf, len, at, "%c", *s);
	}
}

static void put_family(char *buf, size_t len, size_t *at, const char *name, const char *type,
		       const char *help)
{
	put(buf, len, at, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* The per-(interface, hook) counters, one family each. */
static const struct {
	const char *name, *help;
} stages[] = {
	{ "pktsample_packets_seen_total", "Packets the hook ran on." },
	{ "pktsample_packets_filtered_out_total",
	  "Packets that did not match the filter expression or the context filters." },
	{ "pktsample_packets_sampled_out_total",
	  "Packets that matched, not chosen by the sampler." },
	{ "pktsample_packets_rate_limited_total", "Packets chosen, over the --max-rate budget." },
	{ "pktsample_packets_emitted_total", "Packets the hook handed to the kernel's buffer." },
	{ "pktsample_packets_lost_total", "Packets lost because the kernel's buffer was full." },
	{ "pktsample_packets_written_total", "Packets every output took." },
};

static uint64_t stage_value(const struct ps_metrics_target *t, size_t i)
{
	const struct ps_counters *c = &t->c;
	const uint64_t v[] = { c->seen,
			       c->filtered,
			       c->sampled_out,
			       c->rate_limited,
			       c->emitted + c->output_errors,
			       c->output_errors,
			       t->written };

	return v[i];
}

size_t ps_metrics_format(char *buf, size_t len, const struct ps_metrics_view *v)
{
	/* sFlow's counters (with --sflow), one family each. */
	const struct {
		const char *name, *help;
		uint64_t value;
	} sflow[] = {
		{ "pktsample_sflow_samples_total", "sFlow samples and events made.",
		  v->sflow_samples },
		{ "pktsample_sflow_datagrams_total", "sFlow datagrams made.", v->sflow_datagrams },
		{ "pktsample_sflow_sent_total", "sFlow datagrams sent, once per collector.",
		  v->sflow_sent },
		{ "pktsample_sflow_send_errors_total",
		  "sFlow datagrams a collector's socket refused.", v->sflow_failed },
		{ "pktsample_sflow_dropped_total",
		  "sFlow datagrams dropped: they came faster than --sflow-burst lets them leave.",
		  v->sflow_dropped },
	};
	size_t at = 0;

	if (len)
		buf[0] = '\0';
	put_family(buf, len, &at, "pktsample_start_time_seconds", "gauge",
		   "Unix time the capture started.");
	put(buf, len, &at, "pktsample_start_time_seconds %.3f\n", v->start_time_s);
	for (size_t i = 0; v->n_targets && i < sizeof(stages) / sizeof(stages[0]); i++) {
		put_family(buf, len, &at, stages[i].name, "counter", stages[i].help);
		for (size_t t = 0; t < v->n_targets; t++) {
			put(buf, len, &at, "%s{interface=\"", stages[i].name);
			put_label(buf, len, &at, v->targets[t].ifname);
			put(buf, len, &at, "\",hook=\"%s\"} %llu\n", v->targets[t].hook,
			    ULL(stage_value(&v->targets[t], i)));
		}
	}
	if (v->n_drops) {
		put_family(buf, len, &at, "pktsample_kernel_drops_total", "counter",
			   "Packets the kernel dropped on the captured interfaces, by reason "
			   "(--hook drop).");
		for (size_t i = 0; i < v->n_drops; i++) {
			put(buf, len, &at, "pktsample_kernel_drops_total{reason=\"");
			put_label(buf, len, &at, v->drops[i].reason);
			put(buf, len, &at, "\"} %llu\n", ULL(v->drops[i].n));
		}
	}
	for (size_t i = 0; v->sflow && i < sizeof(sflow) / sizeof(sflow[0]); i++) {
		put_family(buf, len, &at, sflow[i].name, "counter", sflow[i].help);
		put(buf, len, &at, "%s %llu\n", sflow[i].name, ULL(sflow[i].value));
	}
	return at;
}

int ps_metrics_open(struct ps_metrics *m, const struct ps_addr *addr)
{
	struct sockaddr_storage ss;
	socklen_t sl = ps_addr_sockaddr(addr, &ss);
	char where[64];
	int one = 1, err;

	memset(m, 0, sizeof(*m));
	m->fd = -1;
	ps_addr_format(addr, where, sizeof(where));
	m->fd = socket(addr->family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (m->fd < 0 || setsockopt(m->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(m->fd, (struct sockaddr *)&ss, sl) || listen(m->fd, 16))
		goto fail;
	pthread_mutex_init(&m->lock, NULL);
	return 0;
fail:
	err = -errno;
	pr_err("cannot serve metrics on %s: %s\n", where, strerror(-err));
	if (m->fd >= 0)
		close(m->fd);
	m->fd = -1;
	return err;
}

/* The request, read until its headers end: GET or HEAD (*head), and
 * whether its path is /metrics. 0; 1 for another method; -1 for no
 * request (the client left, or said nothing for too long). */
static int read_request(int c, bool *head, bool *found)
{
	char req[4096];
	const char *path;
	size_t n = 0;

	while (n < sizeof(req) - 1 && !memmem(req, n, "\r\n\r\n", 4)) {
		ssize_t r = recv(c, req + n, sizeof(req) - 1 - n, 0);

		if (r <= 0)
			return -1;
		n += (size_t)r;
	}
	req[n] = '\0';
	*head = !strncmp(req, "HEAD ", 5);
	if (!*head && strncmp(req, "GET ", 4))
		return 1;
	path = req + (*head ? 5 : 4);
	*found = !strncmp(path, "/metrics", 8) && (path[8] == ' ' || path[8] == '?');
	return 0;
}

static void send_all(int c, const char *p, size_t len)
{
	while (len) {
		ssize_t w = send(c, p, len, MSG_NOSIGNAL);

		if (w <= 0)
			return;
		p += w;
		len -= (size_t)w;
	}
}

static void answer(struct ps_metrics *m, int c)
{
	bool head = false, found = false;
	char hdr[256];
	char *body = NULL;
	size_t len = 0;
	int r = read_request(c, &head, &found);

	if (r < 0)
		return;
	if (r > 0) {
		snprintf(hdr, sizeof(hdr),
			 "HTTP/1.1 405 Method Not Allowed\r\nAllow: GET, HEAD\r\n"
			 "Content-Length: 0\r\nConnection: close\r\n\r\n");
		send_all(c, hdr, strlen(hdr));
		return;
	}
	if (!found) {
		snprintf(hdr, sizeof(hdr),
			 "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n"
			 "Connection: close\r\n\r\n");
		send_all(c, hdr, strlen(hdr));
		return;
	}
	/* A copy: the capture may publish anew while this one is sent. */
	pthread_mutex_lock(&m->lock);
	body = malloc(m->body_len + 1);
	if (body) {
		len = m->body_len;
		memcpy(body, m->body, len);
		m->scrapes++;
	}
	pthread_mutex_unlock(&m->lock);
	if (!body)
		return;
	snprintf(hdr, sizeof(hdr),
		 "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\n"
		 "Content-Length: %zu\r\nConnection: close\r\n\r\n",
		 len);
	send_all(c, hdr, strlen(hdr));
	if (!head)
		send_all(c, body, len);
	free(body);
}

/* The server's thread: one connection at a time, none allowed to wait
 * long (a client that says nothing is let go after 2 s). */
static void *serve(void *arg)
{
	struct ps_metrics *m = arg;
	const struct timeval limit = { .tv_sec = 2 };

	for (;;) {
		int c = accept4(m->fd, NULL, NULL, SOCK_CLOEXEC);

		if (c < 0) {
			if (errno == EINTR || errno == ECONNABORTED || errno == EMFILE ||
			    errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
				continue;
			break; /* shut down: the capture ends */
		}
		setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof(limit));
		setsockopt(c, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof(limit));
		answer(m, c);
		close(c);
	}
	return NULL;
}

void ps_metrics_publish(struct ps_metrics *m, char *body, size_t len)
{
	char *old;

	if (m->fd < 0) {
		free(body);
		return;
	}
	pthread_mutex_lock(&m->lock);
	old = m->body;
	m->body = body;
	m->body_len = len;
	pthread_mutex_unlock(&m->lock);
	free(old);
	/* Served from the first text on: a scrape never sees none. */
	if (!m->running && !pthread_create(&m->thread, NULL, serve, m))
		m->running = true;
}

void ps_metrics_close(struct ps_metrics *m)
{
	if (m->fd < 0)
		return;
	/* A listening socket shut down wakes its accept() with an error. */
	shutdown(m->fd, SHUT_RDWR);
	if (m->running)
		pthread_join(m->thread, NULL);
	close(m->fd);
	m->fd = -1;
	m->running = false;
	pthread_mutex_destroy(&m->lock);
	free(m->body);
	m->body = NULL;
}
