// SPDX-License-Identifier: GPL-2.0-only
/* The metrics endpoint's web configuration; see webcfg.h. */
#define _GNU_SOURCE /* asprintf */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>
#include "webcfg.h"

/* Files it reads are small: a configuration, a certificate chain, a key. */
#define FILE_MAX (1u << 20)

struct parser {
	yaml_parser_t p;
	yaml_event_t ev;
	bool have; /* ev holds an event to delete */
	char *err;
	size_t errlen;
};

static int fail(struct parser *ps, const char *fmt, const char *what)
	__attribute__((format(printf, 2, 0)));
static int fail(struct parser *ps, const char *fmt, const char *what)
{
	int n = snprintf(ps->err, ps->errlen, "line %zu: ", ps->ev.start_mark.line + 1);

	if (n >= 0 && (size_t)n < ps->errlen)
		snprintf(ps->err + n, ps->errlen - (size_t)n, fmt, what);
	return -EINVAL;
}

/* The next event into ps->ev. */
static int next(struct parser *ps)
{
	if (ps->have)
		yaml_event_delete(&ps->ev);
	ps->have = yaml_parser_parse(&ps->p, &ps->ev);
	if (ps->have)
		return 0;
	snprintf(ps->err, ps->errlen, "line %zu: %s", ps->p.problem_mark.line + 1,
		 ps->p.problem ? ps->p.problem : "not YAML");
	return -EINVAL;
}

static const char *scalar(const struct parser *ps)
{
	return (const char *)ps->ev.data.scalar.value;
}

/* A plain ~, null or nothing: YAML's null, as in "basic_auth_users:". */
static bool is_null(const struct parser *ps)
{
	static const char *const nulls[] = { "", "~", "null", "Null", "NULL" };

	if (ps->ev.type != YAML_SCALAR_EVENT || ps->ev.data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	for (size_t i = 0; i < sizeof(nulls) / sizeof(nulls[0]); i++)
		if (!strcmp(scalar(ps), nulls[i]))
			return true;
	return false;
}

/* A string value: a scalar, not null. *out takes a copy. */
static int take_string(struct parser *ps, const char *key, char **out)
{
	int err = next(ps);

	if (err)
		return err;
	if (ps->ev.type != YAML_SCALAR_EVENT || is_null(ps))
		return fail(ps, "%s: expected a string", key);
	if (*out)
		return fail(ps, "%s is given twice", key);
	*out = strdup(scalar(ps));
	return *out ? 0 : -ENOMEM;
}

/* After a key: its value opens a mapping (1), or is null (0). */
static int open_mapping(struct parser *ps, const char *key)
{
	int err = next(ps);

	if (err)
		return err;
	if (ps->ev.type == YAML_MAPPING_START_EVENT)
		return 1;
	if (is_null(ps))
		return 0;
	return fail(ps, "%s: expected a mapping", key);
}

/* Keys of exporter-toolkit's that pktsample does not do: refused by name. */
static bool known_elsewhere(const char *key)
{
	static const char *const keys[] = {
		"client_auth_type",
		"client_ca_file",
		"client_allowed_sans",
		"min_version",
		"max_version",
		"cipher_suites",
		"curve_preferences",
		"prefer_server_cipher_suites",
		"cert",
		"key",
		"http_server_config",
		"rate_limit",
	};

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(key, keys[i]))
			return true;
	return false;
}

static int unknown_key(struct parser *ps, const char *key)
{
	return fail(ps,
		    known_elsewhere(key) ? "%s: not supported by pktsample (only "
					   "tls_server_config's cert_file and key_file, and "
					   "basic_auth_users)" :
					   "unknown key '%s'",
		    key);
}

/* The key of a mapping's next entry into key; 1, or 0 at the mapping's end. */
static int next_key(struct parser *ps, char *key, size_t len)
{
	int err = next(ps);

	if (err)
		return err;
	if (ps->ev.type == YAML_MAPPING_END_EVENT)
		return 0;
	if (ps->ev.type != YAML_SCALAR_EVENT)
		return fail(ps, "%s", "expected a key");
	snprintf(key, len, "%s", scalar(ps));
	return 1;
}

static int parse_tls(struct parser *ps, struct ps_webcfg *c)
{
	char key[64];
	int r = open_mapping(ps, "tls_server_config");

	while (r > 0 && (r = next_key(ps, key, sizeof(key))) > 0) {
		if (!strcmp(key, "cert_file"))
			r = take_string(ps, "cert_file", &c->cert_file);
		else if (!strcmp(key, "key_file"))
			r = take_string(ps, "key_file", &c->key_file);
		else
			r = unknown_key(ps, key);
		r = r ? r : 1;
	}
	if (r < 0)
		return r;
	if (!c->cert_file || !c->key_file)
		return fail(ps, "%s", "tls_server_config needs cert_file and key_file");
	return 0;
}

/* What exporter-toolkit takes: bcrypt, as htpasswd -B and mkpasswd make. */
static bool is_bcrypt(const char *h)
{
	return strlen(h) == 60 && h[0] == '$' && h[1] == '2' && strchr("aby", h[2]) && h[3] == '$';
}

static int add_user(struct parser *ps, struct ps_webcfg *c, const char *name)
{
	struct ps_webcfg_user *u;
	int err;

	for (size_t i = 0; i < c->n_users; i++)
		if (!strcmp(c->users[i].name, name))
			return fail(ps, "basic_auth_users: '%s' is given twice", name);
	u = realloc(c->users, (c->n_users + 1) * sizeof(*u));
	if (!u)
		return -ENOMEM;
	c->users = u;
	u = &c->users[c->n_users];
	*u = (struct ps_webcfg_user){ .name = strdup(name) };
	if (!u->name)
		return -ENOMEM;
	c->n_users++;
	err = take_string(ps, "a user's password hash", &u->hash);
	if (!err && !is_bcrypt(u->hash))
		return fail(ps,
			    "basic_auth_users: %s's password is not a bcrypt hash ($2y$..., as "
			    "htpasswd -nBC 10 makes)",
			    name);
	return err;
}

static int parse_users(struct parser *ps, struct ps_webcfg *c)
{
	char name[256];
	int r = open_mapping(ps, "basic_auth_users");

	while (r > 0 && (r = next_key(ps, name, sizeof(name))) > 0) {
		if (!*name)
			return fail(ps, "%s", "basic_auth_users: a user without a name");
		r = add_user(ps, c, name);
		r = r ? r : 1;
	}
	return r;
}

static int parse_top(struct parser *ps, struct ps_webcfg *c)
{
	bool tls = false, users = false;
	char key[64];
	int r;

	if ((r = next(ps)) || (r = next(ps)))
		return r; /* the stream's start, then the document's */
	if (ps->ev.type == YAML_STREAM_END_EVENT)
		return 0; /* an empty file */
	if ((r = next(ps)))
		return r;
	if (is_null(ps))
		return 0;
	if (ps->ev.type != YAML_MAPPING_START_EVENT)
		return fail(ps, "%s", "expected a mapping (tls_server_config, basic_auth_users)");
	while ((r = next_key(ps, key, sizeof(key))) > 0) {
		bool *seen = !strcmp(key, "tls_server_config") ? &tls :
			     !strcmp(key, "basic_auth_users")  ? &users :
								 NULL;

		if (!seen)
			return unknown_key(ps, key);
		if (*seen)
			return fail(ps, "%s is given twice", key);
		*seen = true;
		r = seen == &tls ? parse_tls(ps, c) : parse_users(ps, c);
		if (r)
			return r;
	}
	if (r < 0)
		return r;
	if ((r = next(ps)))
		return r;
	if (ps->ev.type != YAML_DOCUMENT_END_EVENT || (r = next(ps)))
		return r ? r : fail(ps, "%s", "one document only");
	return ps->ev.type == YAML_STREAM_END_EVENT ? 0 : fail(ps, "%s", "one document only");
}

int ps_webcfg_parse(const char *text, size_t len, struct ps_webcfg *c, char *err, size_t errlen)
{
	struct parser ps = { .err = err, .errlen = errlen };
	int r;

	memset(c, 0, sizeof(*c));
	if (errlen)
		err[0] = '\0';
	if (!yaml_parser_initialize(&ps.p))
		return -ENOMEM;
	yaml_parser_set_input_string(&ps.p, (const unsigned char *)text, len);
	r = parse_top(&ps, c);
	if (ps.have)
		yaml_event_delete(&ps.ev);
	yaml_parser_delete(&ps.p);
	if (r == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	if (r)
		ps_webcfg_free(c);
	return r;
}

/* path's whole content, NUL-terminated, into *out. 0 or -errno. */
static int read_all(const char *path, char **out)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t n = 0;
	int err = 0;

	*out = NULL;
	if (!f)
		return -errno;
	buf = malloc(FILE_MAX + 1);
	if (!buf)
		err = -ENOMEM;
	else if ((n = fread(buf, 1, FILE_MAX + 1, f)) > FILE_MAX)
		err = -EFBIG;
	else if (ferror(f))
		err = -EIO;
	fclose(f);
	if (err) {
		free(buf);
		return err;
	}
	buf[n] = '\0';
	*out = buf;
	return 0;
}

/* name, relative to the directory of base when it is relative. */
static char *beside(const char *base, const char *name)
{
	const char *slash = strrchr(base, '/');
	char *p;

	if (name[0] == '/' || !slash)
		return strdup(name);
	if (asprintf(&p, "%.*s/%s", (int)(slash - base), base, name) < 0)
		return NULL;
	return p;
}

/* c's cert_file or key_file (made absolute) read into *pem. */
static int read_pem(const char *path, char **file, char **pem, char *err, size_t errlen)
{
	char *full = beside(path, *file);
	int r;

	if (!full)
		return -ENOMEM;
	free(*file);
	*file = full;
	r = read_all(full, pem);
	if (r)
		snprintf(err, errlen, "%s: cannot read %s: %s", path, full, strerror(-r));
	return r;
}

int ps_webcfg_load(const char *path, struct ps_webcfg *c, char *err, size_t errlen)
{
	char *text, why[200];
	int r = read_all(path, &text);

	memset(c, 0, sizeof(*c));
	if (r) {
		snprintf(err, errlen, "%s: %s", path, strerror(-r));
		return r;
	}
	r = ps_webcfg_parse(text, strlen(text), c, why, sizeof(why));
	free(text);
	if (r) {
		snprintf(err, errlen, "%s: %s", path, why);
		return r;
	}
	if (c->cert_file && ((r = read_pem(path, &c->cert_file, &c->cert_pem, err, errlen)) ||
			     (r = read_pem(path, &c->key_file, &c->key_pem, err, errlen))))
		ps_webcfg_free(c);
	return r;
}

void ps_webcfg_free(struct ps_webcfg *c)
{
	for (size_t i = 0; i < c->n_users; i++) {
		free(c->users[i].name);
		free(c->users[i].hash);
	}
	free(c->users);
	free(c->cert_file);
	free(c->key_file);
	free(c->cert_pem);
	if (c->key_pem) /* a secret: not left in freed memory */
		explicit_bzero(c->key_pem, strlen(c->key_pem));
	free(c->key_pem);
	memset(c, 0, sizeof(*c));
}
