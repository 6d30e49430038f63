/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * --metrics-web-config FILE: TLS and basic authentication for the metrics
 * endpoint, in the format of Prometheus' exporter web configuration
 * (exporter-toolkit's web-config.yml), so that one file serves
 * node_exporter and pktsample alike:
 *
 *   tls_server_config:
 *     cert_file: server.crt      # PEM, the chain after the certificate
 *     key_file: server.key       # PEM, unencrypted
 *   basic_auth_users:
 *     prometheus: $2y$10$...     # bcrypt hashes only
 *
 * Relative file names are relative to the configuration's directory, as
 * exporter-toolkit resolves them. Keys it knows and pktsample does not do
 * (client certificates, TLS versions, ciphers, HTTP headers) are refused
 * by name rather than ignored: a file that asks for client certificates
 * must not quietly serve without them. An empty file is no TLS and no
 * authentication.
 *
 * ps_webcfg_parse is pure (unit-tested in tests/unit/test_webcfg.c and
 * fuzzed); ps_webcfg_load reads the files, before privileges are dropped.
 */
#ifndef PS_WEBCFG_H
#define PS_WEBCFG_H

#include <stddef.h>

struct ps_webcfg_user {
	char *name;
	char *hash; /* bcrypt: $2a$, $2b$ or $2y$ */
};

struct ps_webcfg {
	char *cert_file, *key_file; /* both or neither */
	struct ps_webcfg_user *users;
	size_t n_users;
	/* ps_webcfg_load: the files' contents, NUL-terminated */
	char *cert_pem, *key_pem;
};

/* text[0..len) into c (zeroed first). 0, or -EINVAL with one line in err
 * ("line 3: ..."), or -ENOMEM; c is freed on failure. Never exits. */
int ps_webcfg_parse(const char *text, size_t len, struct ps_webcfg *c, char *err, size_t errlen);

/* path read and parsed, the certificate and key read (relative to path's
 * directory). 0, or -errno with one line in err naming the file. */
int ps_webcfg_load(const char *path, struct ps_webcfg *c, char *err, size_t errlen);

void ps_webcfg_free(struct ps_webcfg *c);

#endif
