// SPDX-License-Identifier: GPL-2.0-only
/* --metrics' server on libmicrohttpd; see metrics_http.h. */
#define _GNU_SOURCE /* explicit_bzero */
#include <crypt.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <microhttpd.h>
#include "log.h"
#include "metrics_http.h"

/* Successes remembered, so that scrapes every 15 s cost no bcrypt each. */
#define PS_METRICS_AUTH_CACHE 8

/* A connection's place in the deadline list (under m->lock). */
struct ps_metrics_conn {
	int fd;
	uint64_t deadline_ns; /* its request must be whole by then */
	bool cut;	      /* shut down at the deadline, once */
	struct ps_metrics_conn *next, **pprev;
};

/* One daemon and what it serves with: a reload's new web configuration
 * gets a new one, so that no thread reads a configuration being freed. */
struct ps_metrics_srv {
	struct ps_metrics *m;
	struct MHD_Daemon *daemon;
	struct ps_webcfg web;
	pthread_mutex_t lock; /* the cache */
	struct {
		char *key; /* "user\0password" that passed */
		size_t len;
	} auth_ok[PS_METRICS_AUTH_CACHE];
	unsigned int auth_next;
};

/* An unknown user's password is checked against this, so that a wrong
 * name takes as long as a wrong password (bcrypt of random text). */
static const char no_user_hash[] = "$2y$10$7EqJtq98hPqEX7fNZaFWoOhi5BWX4Z3Z1ZK/1d2ZbLWKpoLVXj5Ge";

/*
 * libmicrohttpd, and GnuTLS with it, cost resident memory the moment they
 * are loaded (their constructors and relocations), which a capture that
 * serves no metrics should not pay: loaded only by a capture that serves
 * them, as systemd loads its optional libraries.
 * The calls below go through mhd.
 */
#define MHD_SONAME "libmicrohttpd.so.12"
static struct {
	struct MHD_Daemon *(*start_daemon)(unsigned int flags, uint16_t port,
					   MHD_AcceptPolicyCallback apc, void *apc_cls,
					   MHD_AccessHandlerCallback dh, void *dh_cls, ...);
	void (*stop_daemon)(struct MHD_Daemon *d);
	struct MHD_Response *(*create_response_from_buffer)(size_t size, void *buffer,
							    enum MHD_ResponseMemoryMode mode);
	void (*destroy_response)(struct MHD_Response *r);
	enum MHD_Result (*add_response_header)(struct MHD_Response *r, const char *header,
					       const char *content);
	enum MHD_Result (*queue_response)(struct MHD_Connection *c, unsigned int status,
					  struct MHD_Response *r);
	enum MHD_Result (*queue_basic_auth_fail_response)(struct MHD_Connection *c,
							  const char *realm,
							  struct MHD_Response *r);
	char *(*basic_auth_get_username_password)(struct MHD_Connection *c, char **password);
	void (*free)(void *p);
	const union MHD_ConnectionInfo *(*get_connection_info)(struct MHD_Connection *c,
							       enum MHD_ConnectionInfoType type,
							       ...);
	enum MHD_Result (*is_feature_supported)(enum MHD_FEATURE feature);
} mhd;
static pthread_once_t mhd_once = PTHREAD_ONCE_INIT;
static const char *mhd_error; /* why it could not be loaded; NULL */

static void load_mhd(void)
{
	static const char *const names[] = {
		"MHD_start_daemon",
		"MHD_stop_daemon",
		"MHD_create_response_from_buffer",
		"MHD_destroy_response",
		"MHD_add_response_header",
		"MHD_queue_response",
		"MHD_queue_basic_auth_fail_response",
		"MHD_basic_auth_get_username_password",
		"MHD_free",
		"MHD_get_connection_info",
		"MHD_is_feature_supported",
	};
	void **slots = (void **)&mhd;
	void *dl = dlopen(MHD_SONAME, RTLD_NOW | RTLD_LOCAL);

	_Static_assert(sizeof(mhd) == sizeof(names) / sizeof(names[0]) * sizeof(void *),
		       "one name for each of mhd's functions");
	if (!dl) {
		mhd_error = dlerror();
		return;
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!(slots[i] = dlsym(dl, names[i]))) {
			mhd_error = dlerror();
			return; /* dl stays: nothing else can use it */
		}
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t deadline_from_now(void)
{
	return now_ns() + PS_METRICS_DEADLINE_S * 1000000000ull;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *upload_data,
				  size_t *upload_size, void **req_cls);

/* Will GnuTLS take web's certificate and key (and do they match)? Asked
 * of a daemon that listens nowhere, so that a bad pair is one line before
 * anything is attached, not a server that never comes. */
static bool tls_usable(const struct ps_webcfg *web)
{
	struct MHD_Daemon *d = mhd.start_daemon(MHD_USE_TLS | MHD_USE_NO_LISTEN_SOCKET, 0, NULL,
						NULL, on_request, NULL, MHD_OPTION_HTTPS_MEM_CERT,
						web->cert_pem, MHD_OPTION_HTTPS_MEM_KEY,
						web->key_pem, MHD_OPTION_END);

	if (d)
		mhd.stop_daemon(d);
	return d != NULL;
}

int ps_metrics_check_web(const struct ps_webcfg *web, const char *tail)
{
	if (!web->cert_pem)
		return 0;
	pthread_once(&mhd_once, load_mhd);
	if (mhd_error) {
		pr_err("cannot serve metrics: %s%s\n", mhd_error, tail);
		return -ENOENT;
	}
	if (!mhd.is_feature_supported(MHD_FEATURE_TLS)) {
		pr_err("cannot serve metrics over TLS: this libmicrohttpd was built without it%s\n",
		       tail);
		return -ENOTSUP;
	}
	if (!tls_usable(web)) {
		pr_err("cannot serve metrics over TLS: %s is not a PEM certificate with %s its "
		       "unencrypted key%s\n",
		       web->cert_file, web->key_file, tail);
		return -EINVAL;
	}
	return 0;
}

int ps_metrics_open(struct ps_metrics *m, const struct ps_addr *addr, struct ps_webcfg *web)
{
	struct sockaddr_storage ss;
	socklen_t sl = ps_addr_sockaddr(addr, &ss);
	char where[64];
	int one = 1, err;

	memset(m, 0, sizeof(*m));
	m->fd = -1;
	if (web) {
		m->web = *web;
		memset(web, 0, sizeof(*web));
	}
	pthread_once(&mhd_once, load_mhd);
	if (mhd_error) {
		pr_err("cannot serve metrics: %s\n", mhd_error);
		ps_webcfg_free(&m->web);
		return -ENOENT;
	}
	ps_addr_format(addr, where, sizeof(where));
	m->fd = socket(addr->family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (m->fd < 0 || setsockopt(m->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(m->fd, (struct sockaddr *)&ss, sl) || listen(m->fd, PS_METRICS_CONNECTIONS))
		goto fail;
	pthread_mutex_init(&m->lock, NULL);
	return 0;
fail:
	err = -errno;
	pr_err("cannot serve metrics on %s: %s\n", where, strerror(-err));
	if (m->fd >= 0)
		close(m->fd);
	m->fd = -1;
	ps_webcfg_free(&m->web);
	return err;
}

/* a[0..la) and b[0..lb) equal, in a time that says nothing of how much of
 * them matched (a remembered password, a hash). */
static bool same_secret(const void *a, size_t la, const void *b, size_t lb)
{
	const unsigned char *x = a, *y = b;
	unsigned char d = la != lb;

	for (size_t i = 0; i < la && i < lb; i++)
		d |= (unsigned char)(x[i] ^ y[i]);
	return !d;
}

/* "user\0password", as the cache keeps a success; its length in *len. */
static char *cache_key(const char *user, const char *pass, size_t *len)
{
	size_t lu = strlen(user), lp = strlen(pass);
	char *k = malloc(lu + lp + 2);

	if (k) {
		memcpy(k, user, lu + 1);
		memcpy(k + lu + 1, pass, lp + 1);
	}
	*len = lu + lp + 2;
	return k;
}

static void forget(char *key, size_t len)
{
	if (key)
		explicit_bzero(key, len); /* a password: not left in freed memory */
	free(key);
}

static bool cached(struct ps_metrics_srv *s, const char *key, size_t len)
{
	bool hit = false;

	pthread_mutex_lock(&s->lock);
	for (int i = 0; i < PS_METRICS_AUTH_CACHE && !hit; i++)
		hit = s->auth_ok[i].key &&
		      same_secret(s->auth_ok[i].key, s->auth_ok[i].len, key, len);
	pthread_mutex_unlock(&s->lock);
	return hit;
}

/* s keeps key, the oldest success forgotten. */
static void remember(struct ps_metrics_srv *s, char *key, size_t len)
{
	char *old;
	size_t old_len;

	pthread_mutex_lock(&s->lock);
	old = s->auth_ok[s->auth_next].key;
	old_len = s->auth_ok[s->auth_next].len;
	s->auth_ok[s->auth_next].key = key;
	s->auth_ok[s->auth_next].len = len;
	s->auth_next = (s->auth_next + 1) % PS_METRICS_AUTH_CACHE;
	pthread_mutex_unlock(&s->lock);
	forget(old, old_len);
}

/* Does user:pass match a bcrypt hash of the web configuration's? */
static bool password_ok(struct ps_metrics_srv *s, const char *user, const char *pass)
{
	const char *hash = no_user_hash;
	struct crypt_data *cd;
	bool known = false, ok = false;
	size_t len;
	char *key = cache_key(user, pass, &len);

	if (!key)
		return false;
	if (cached(s, key, len)) {
		forget(key, len);
		return true;
	}
	for (size_t i = 0; i < s->web.n_users && !known; i++)
		if (!strcmp(s->web.users[i].name, user)) {
			hash = s->web.users[i].hash;
			known = true;
		}
	cd = calloc(1, sizeof(*cd)); /* 32 KiB: not on a server thread's stack */
	if (cd) {
		const char *h = crypt_r(pass, hash, cd);

		ok = known && h && same_secret(h, strlen(h), hash, strlen(hash));
		explicit_bzero(cd, sizeof(*cd)); /* derived from the password */
		free(cd);
	}
	if (ok)
		remember(s, key, len);
	else
		forget(key, len);
	return ok;
}

static bool authorized(struct ps_metrics_srv *s, struct MHD_Connection *c)
{
	char *pass = NULL, *user;
	bool ok;

	if (!s->web.n_users)
		return true;
	user = mhd.basic_auth_get_username_password(c, &pass);
	ok = user && pass && password_ok(s, user, pass);
	if (pass)
		explicit_bzero(pass, strlen(pass));
	mhd.free(user);
	mhd.free(pass);
	return ok;
}

/* A response with no body, a status and maybe one header. */
static enum MHD_Result answer_empty(struct MHD_Connection *c, unsigned int status,
				    const char *header, const char *value)
{
	struct MHD_Response *r = mhd.create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	if (header)
		mhd.add_response_header(r, header, value);
	ret = mhd.queue_response(c, status, r);
	mhd.destroy_response(r);
	return ret;
}

static enum MHD_Result answer_unauthorized(struct MHD_Connection *c)
{
	struct MHD_Response *r = mhd.create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	ret = mhd.queue_basic_auth_fail_response(c, "pktsample", r);
	mhd.destroy_response(r);
	return ret;
}

/* The request, once its headers are in: who asks, how, and what. */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *upload_data,
				  size_t *upload_size, void **req_cls)
{
	struct ps_metrics_srv *s = cls;
	struct ps_metrics *m = s->m;
	enum MHD_Result ret;

	(void)version;
	(void)upload_data;
	(void)upload_size;
	(void)req_cls;
	if (!authorized(s, c))
		return answer_unauthorized(c);
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return answer_empty(c, MHD_HTTP_METHOD_NOT_ALLOWED, MHD_HTTP_HEADER_ALLOW,
				    "GET, HEAD");
	if (strcmp(url, "/metrics"))
		return answer_empty(c, MHD_HTTP_NOT_FOUND, NULL, NULL);
	/* Queued takes its own reference: a new text may come meanwhile. */
	pthread_mutex_lock(&m->lock);
	ret = mhd.queue_response(c, MHD_HTTP_OK, m->page);
	pthread_mutex_unlock(&m->lock);
	return ret;
}

/* Connections into and out of the deadline list. */
static void on_connection(void *cls, struct MHD_Connection *c, void **socket_ctx,
			  enum MHD_ConnectionNotificationCode code)
{
	struct ps_metrics *m = cls;
	struct ps_metrics_conn *k = *socket_ctx;
	const union MHD_ConnectionInfo *info;

	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		info = mhd.get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
		k = calloc(1, sizeof(*k));
		if (!k || !info) {
			free(k);
			return; /* no deadline but libmicrohttpd's idle one */
		}
		k->fd = info->connect_fd;
		k->deadline_ns = deadline_from_now();
		pthread_mutex_lock(&m->lock);
		k->next = m->conns;
		if (k->next)
			k->next->pprev = &k->next;
		k->pprev = &m->conns;
		m->conns = k;
		pthread_mutex_unlock(&m->lock);
		*socket_ctx = k;
		return;
	}
	/* Closed: before libmicrohttpd closes the socket, so that no
	 * deadline can shut down a number the kernel has given anew. */
	if (!k)
		return;
	pthread_mutex_lock(&m->lock);
	*k->pprev = k->next;
	if (k->next)
		k->next->pprev = k->pprev;
	pthread_mutex_unlock(&m->lock);
	free(k);
	*socket_ctx = NULL;
}

/* A request answered: the connection's next one gets its own deadline. */
static void on_completed(void *cls, struct MHD_Connection *c, void **req_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct ps_metrics *m = cls;
	const union MHD_ConnectionInfo *info =
		mhd.get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct ps_metrics_conn *k = info ? info->socket_context : NULL;

	(void)req_cls;
	(void)toe;
	if (!k)
		return;
	pthread_mutex_lock(&m->lock);
	k->deadline_ns = deadline_from_now();
	pthread_mutex_unlock(&m->lock);
}

void ps_metrics_enforce_deadlines(struct ps_metrics *m)
{
	uint64_t now = now_ns();

	if (m->fd < 0)
		return;
	pthread_mutex_lock(&m->lock);
	for (struct ps_metrics_conn *k = m->conns; k; k = k->next)
		if (!k->cut && k->deadline_ns < now) {
			/* The connection's thread sees its end and closes it. */
			shutdown(k->fd, SHUT_RDWR);
			k->cut = true;
			m->cut++;
		}
	pthread_mutex_unlock(&m->lock);
}

/* libmicrohttpd's complaints (a client's bad TLS, say): -v's business. */
static void on_log(void *cls, const char *fmt, va_list ap)
{
	char line[256];

	(void)cls;
	vsnprintf(line, sizeof(line), fmt, ap);
	line[strcspn(line, "\n")] = '\0';
	pr_debug("metrics: %s\n", line);
}

static void free_server(struct ps_metrics_srv *s)
{
	if (!s)
		return;
	/* Stopping joins every connection's thread: none is left. */
	if (s->daemon)
		mhd.stop_daemon(s->daemon);
	for (int i = 0; i < PS_METRICS_AUTH_CACHE; i++)
		forget(s->auth_ok[i].key, s->auth_ok[i].len);
	ps_webcfg_free(&s->web);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

/* A server on a dup of m's socket that takes web; NULL, logged (and web
 * freed). */
static struct ps_metrics_srv *start_server(struct ps_metrics *m, struct ps_webcfg *web)
{
	unsigned int flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD |
			     MHD_USE_POLL | MHD_USE_ERROR_LOG;
	struct ps_metrics_srv *s = calloc(1, sizeof(*s));
	int fd = fcntl(m->fd, F_DUPFD_CLOEXEC, 3);
	struct MHD_OptionItem tls[] = {
		{ MHD_OPTION_HTTPS_MEM_CERT, 0, web->cert_pem },
		{ MHD_OPTION_HTTPS_MEM_KEY, 0, web->key_pem },
		{ MHD_OPTION_END, 0, NULL },
	};

	if (!s || fd < 0) {
		pr_err("cannot serve metrics: %s\n", strerror(s ? errno : ENOMEM));
		if (fd >= 0)
			close(fd);
		free(s);
		ps_webcfg_free(web);
		return NULL;
	}
	s->m = m;
	s->web = *web;
	memset(web, 0, sizeof(*web));
	pthread_mutex_init(&s->lock, NULL);
	if (s->web.cert_pem)
		flags |= MHD_USE_TLS;
	s->daemon = mhd.start_daemon(flags, 0, NULL, NULL, on_request, s,
				     MHD_OPTION_EXTERNAL_LOGGER, on_log, NULL,
				     MHD_OPTION_LISTEN_SOCKET, fd, MHD_OPTION_CONNECTION_LIMIT,
				     (unsigned int)PS_METRICS_CONNECTIONS,
				     MHD_OPTION_CONNECTION_TIMEOUT,
				     (unsigned int)PS_METRICS_DEADLINE_S * 2,
				     MHD_OPTION_THREAD_STACK_SIZE, (size_t)(512 << 10),
				     MHD_OPTION_NOTIFY_CONNECTION, on_connection, m,
				     MHD_OPTION_NOTIFY_COMPLETED, on_completed, m, MHD_OPTION_ARRAY,
				     s->web.cert_pem ? tls : tls + 2, MHD_OPTION_END);
	if (s->daemon)
		return s;
	/* libmicrohttpd closed the socket it was given. */
	pr_err("cannot serve metrics: libmicrohttpd would not start%s\n",
	       s->web.cert_pem ? " (is the key the certificate's?)" : "");
	free_server(s);
	return NULL;
}

void ps_metrics_publish(struct ps_metrics *m, char *body, size_t len)
{
	struct MHD_Response *r, *old;

	if (m->fd < 0) {
		free(body);
		return;
	}
	r = mhd.create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(body);
		return;
	}
	mhd.add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				"text/plain; version=0.0.4; charset=utf-8");
	pthread_mutex_lock(&m->lock);
	old = m->page;
	m->page = r;
	pthread_mutex_unlock(&m->lock);
	if (old)
		mhd.destroy_response(old); /* freed when its last scrape is sent */
	/* Served from the first text on: a scrape never sees none. */
	if (!m->srv)
		m->srv = start_server(m, &m->web);
}

/* Two configurations that serve alike. */
static bool same_web(const struct ps_webcfg *a, const struct ps_webcfg *b)
{
	if (!a->cert_pem != !b->cert_pem || a->n_users != b->n_users)
		return false;
	if (a->cert_pem && (strcmp(a->cert_pem, b->cert_pem) || strcmp(a->key_pem, b->key_pem)))
		return false;
	for (size_t i = 0; i < a->n_users; i++)
		if (strcmp(a->users[i].name, b->users[i].name) ||
		    strcmp(a->users[i].hash, b->users[i].hash))
			return false;
	return true;
}

int ps_metrics_reconfigure(struct ps_metrics *m, struct ps_webcfg *web)
{
	struct ps_metrics_srv *s;

	if (m->fd < 0 || same_web(web, m->srv ? &m->srv->web : &m->web)) {
		ps_webcfg_free(web);
		return 0;
	}
	if (!m->srv) { /* not serving yet: it starts with the new one */
		ps_webcfg_free(&m->web);
		m->web = *web;
		memset(web, 0, sizeof(*web));
		return 0;
	}
	/* Both accept on the socket until the old one stops. */
	s = start_server(m, web);
	if (!s)
		return -EINVAL;
	free_server(m->srv);
	m->srv = s;
	return 0;
}

void ps_metrics_close(struct ps_metrics *m)
{
	if (m->fd < 0)
		return;
	free_server(m->srv);
	m->srv = NULL;
	close(m->fd);
	m->fd = -1;
	if (m->page)
		mhd.destroy_response(m->page);
	m->page = NULL;
	ps_webcfg_free(&m->web);
	pthread_mutex_destroy(&m->lock);
}
