// SPDX-License-Identifier: GPL-2.0-only
/*
 * --metrics' server on loopback (metrics_http.h): nothing is served before
 * the first text, then every scrape gets the latest whole text while new
 * ones are published from another thread (ThreadSanitizer runs this in
 * tests/tsan.sh), other paths and methods get 404 and 405, users need
 * their password, and a connection past its deadline is cut off. Slow
 * and hostile clients over the network: tests/integration/it_metrics.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <cmocka.h>
#include "metrics_http.h"

static int port_of(const struct ps_metrics *m)
{
	struct sockaddr_in sin;
	socklen_t sl = sizeof(sin);

	assert_int_equal(getsockname(m->fd, (struct sockaddr *)&sin, &sl), 0);
	return ntohs(sin.sin_port);
}

static void open_loopback(struct ps_metrics *m, struct ps_webcfg *web)
{
	struct ps_addr a;

	assert_int_equal(ps_addr_parse("127.0.0.1:1", true, 0, &a), 0);
	a.port = 0; /* any free one */
	assert_int_equal(ps_metrics_open(m, &a, web), 0);
}

static int connect_to(int port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_true(fd >= 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	return fd;
}

/* One request, the whole answer into buf (the server closes). */
static void ask(int port, const char *req, char *buf, size_t len)
{
	int fd = connect_to(port);
	size_t n = 0;
	ssize_t r;

	assert_int_equal(send(fd, req, strlen(req), 0), (ssize_t)strlen(req));
	while (n < len - 1 && (r = recv(fd, buf + n, len - 1 - n, 0)) > 0)
		n += (size_t)r;
	buf[n] = '\0';
	close(fd);
}

static char *text(const char *s)
{
	char *t = strdup(s);

	assert_non_null(t);
	return t;
}

struct publisher {
	struct ps_metrics *m;
	int rounds;
};

static void *publish_many(void *arg)
{
	struct publisher *p = arg;

	for (int i = 0; i < p->rounds; i++)
		ps_metrics_publish(p->m, text(i % 2 ? "a_metric 1\n" : "a_metric 2\n"), 11);
	return NULL;
}

static void serves_the_latest_text(void **state)
{
	struct ps_metrics m;
	struct publisher p = { &m, 2000 };
	pthread_t t;
	char buf[4096];
	int port;

	(void)state;
	open_loopback(&m, NULL);
	port = port_of(&m);
	ps_metrics_publish(&m, text("a_metric 0\n"), 11);
	ask(port, "GET /metrics HTTP/1.0\r\n\r\n", buf, sizeof(buf));
	assert_non_null(strstr(buf, " 200 OK"));
	assert_non_null(strstr(buf, "text/plain; version=0.0.4"));
	assert_non_null(strstr(buf, "\r\n\r\na_metric 0\n"));
	/* Scrapes while texts come and go: each one whole. */
	assert_int_equal(pthread_create(&t, NULL, publish_many, &p), 0);
	for (int i = 0; i < 50; i++) {
		ask(port, "GET /metrics HTTP/1.0\r\n\r\n", buf, sizeof(buf));
		assert_true(strstr(buf, "\r\n\r\na_metric 1\n") ||
			    strstr(buf, "\r\n\r\na_metric 2\n") ||
			    strstr(buf, "\r\n\r\na_metric 0\n"));
	}
	pthread_join(t, NULL);
	ask(port, "GET / HTTP/1.0\r\n\r\n", buf, sizeof(buf));
	assert_non_null(strstr(buf, " 404 "));
	ask(port, "POST /metrics HTTP/1.0\r\nContent-Length: 0\r\n\r\n", buf, sizeof(buf));
	assert_non_null(strstr(buf, " 405 "));
	assert_non_null(strstr(buf, "Allow: GET, HEAD"));
	ps_metrics_close(&m);
	ps_metrics_close(&m); /* twice is harmless */
}

/* bob:s3cret, the hash made by crypt(3) with bcrypt's cost 4. */
#define BOB_HASH "$2b$04$cpC4G5p0Jb/gTgT/ghjeR.3ZgVovfiJKqa1.T7rvXOb9SMnrIeva2"

static void users_need_their_password(void **state)
{
	struct ps_webcfg web = { 0 };
	struct ps_webcfg_user bob = { strdup("bob"), strdup(BOB_HASH) };
	struct ps_metrics m;
	char buf[4096];
	int port;

	(void)state;
	web.users = malloc(sizeof(bob));
	assert_non_null(web.users);
	web.users[0] = bob;
	web.n_users = 1;
	open_loopback(&m, &web);
	port = port_of(&m);
	ps_metrics_publish(&m, text("a_metric 0\n"), 11);
	ask(port, "GET /metrics HTTP/1.0\r\n\r\n", buf, sizeof(buf));
	assert_non_null(strstr(buf, " 401 "));
	assert_non_null(strstr(buf, "WWW-Authenticate: Basic realm=\"pktsample\""));
	/* bob:wrong */
	ask(port, "GET /metrics HTTP/1.0\r\nAuthorization: Basic Ym9iOndyb25n\r\n\r\n", buf,
	    sizeof(buf));
	assert_non_null(strstr(buf, " 401 "));
	/* bob:s3cret, twice (the second from what the first left) */
	for (int i = 0; i < 2; i++) {
		ask(port, "GET /metrics HTTP/1.0\r\nAuthorization: Basic Ym9iOnMzY3JldA==\r\n\r\n",
		    buf, sizeof(buf));
		assert_non_null(strstr(buf, " 200 "));
	}
	ps_metrics_close(&m);
}

static void cut_off_at_the_deadline(void **state)
{
	struct ps_metrics m;
	char c;
	int fd;

	(void)state;
	open_loopback(&m, NULL);
	ps_metrics_publish(&m, text("a_metric 0\n"), 11);
	fd = connect_to(port_of(&m));
	assert_int_equal(send(fd, "GET /me", 7, 0), 7);
	/* Not before its time... */
	ps_metrics_enforce_deadlines(&m);
	assert_int_equal(m.cut, 0);
	sleep(PS_METRICS_DEADLINE_S + 1);
	ps_metrics_enforce_deadlines(&m);
	assert_int_equal(m.cut, 1);
	/* ...then closed, with nothing said. */
	assert_int_equal(recv(fd, &c, 1, 0), 0);
	close(fd);
	ps_metrics_close(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(serves_the_latest_text),
		cmocka_unit_test(users_need_their_password),
		cmocka_unit_test(cut_off_at_the_deadline),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
