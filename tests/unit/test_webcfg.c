// SPDX-License-Identifier: GPL-2.0-only
/*
 * --metrics-web-config's file, as exporter-toolkit writes it: what it
 * parses to, and each way it is refused with its line and its reason
 * (webcfg.h). The files it names are read relative to its directory.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "webcfg.h"

#define HASH "$2y$10$7EqJtq98hPqEX7fNZaFWoOhi5BWX4Z3Z1ZK/1d2ZbLWKpoLVXj5Ge"

static int parse(const char *text, struct ps_webcfg *c, char *err)
{
	return ps_webcfg_parse(text, strlen(text), c, err, 256);
}

static void exporter_toolkits_file(void **state)
{
	struct ps_webcfg c;
	char err[256];

	(void)state;
	assert_int_equal(parse("# a comment\n"
			       "tls_server_config:\n"
			       "  cert_file: server.crt\n"
			       "  key_file: \"/etc/k.key\"\n"
			       "basic_auth_users:\n"
			       "  prometheus: " HASH "\n"
			       "  'alice': '" HASH "'\n",
			       &c, err),
			 0);
	assert_string_equal(c.cert_file, "server.crt");
	assert_string_equal(c.key_file, "/etc/k.key");
	assert_int_equal(c.n_users, 2);
	assert_string_equal(c.users[0].name, "prometheus");
	assert_string_equal(c.users[1].name, "alice");
	assert_string_equal(c.users[1].hash, HASH);
	ps_webcfg_free(&c);
	/* Flow style is YAML too. */
	assert_int_equal(parse("{basic_auth_users: {bob: '" HASH "'}}", &c, err), 0);
	assert_int_equal(c.n_users, 1);
	ps_webcfg_free(&c);
}

static void nothing_is_no_tls_and_no_users(void **state)
{
	static const char *const empty[] = {
		"", "# nothing\n", "---\n", "~\n", "basic_auth_users:\n", "basic_auth_users: {}\n"
	};
	struct ps_webcfg c;
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(empty) / sizeof(empty[0]); i++) {
		assert_int_equal(parse(empty[i], &c, err), 0);
		assert_null(c.cert_file);
		assert_int_equal(c.n_users, 0);
		ps_webcfg_free(&c);
	}
}

static void refused_with_line_and_reason(void **state)
{
	static const struct {
		const char *text, *why;
	} bad[] = {
		{ "tls_server_config:\n  cert_file: a\n  client_auth_type: RequireAndVerifyClientCert\n",
		  "line 3: client_auth_type: not supported by pktsample" },
		{ "http_server_config:\n  http2: false\n",
		  "line 1: http_server_config: not supported" },
		{ "tls_server_config:\n  cert_file: a\n",
		  "tls_server_config needs cert_file and key_file" },
		{ "tls_server_config:\n", "tls_server_config needs cert_file and key_file" },
		{ "basic_auth_users:\n  bob: secret\n",
		  "line 2: basic_auth_users: bob's password is not a bcrypt hash" },
		{ "basic_auth_users:\n  bob: " HASH "\n  bob: " HASH "\n",
		  "line 3: basic_auth_users: 'bob' is given twice" },
		{ "basic_auth_users:\n  bob:\n",
		  "line 2: a user's password hash: expected a string" },
		{ "basic_auth_users:\n  - bob\n", "line 2: basic_auth_users: expected a mapping" },
		{ "tls_server_config: {cert_file: a, cert_file: b, key_file: c}\n",
		  "cert_file is given twice" },
		{ "basic_auth_users: {}\nbasic_auth_users: {}\n",
		  "line 2: basic_auth_users is given twice" },
		{ "users:\n", "line 1: unknown key 'users'" },
		{ "- a\n", "line 1: expected a mapping" },
		{ "basic_auth_users: {}\n---\nbasic_auth_users: {}\n", "one document only" },
		{ "basic_auth_users:\n  bob: 'x\n", "line 3: found unexpected end of stream" },
		{ "a: &x 1\nb: *x\n", "unknown key 'a'" },
	};
	struct ps_webcfg c;
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(parse(bad[i].text, &c, err), -22);
		if (!strstr(err, bad[i].why))
			fail_msg("'%s': said '%s', not '%s'", bad[i].text, err, bad[i].why);
		assert_null(c.cert_file);
		assert_null(c.users);
	}
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void files_read_beside_it(void **state)
{
	char dir[] = "/tmp/test_webcfg.XXXXXX", path[64], crt[64], key[64], err[512];
	struct ps_webcfg c;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/web.yml", dir);
	snprintf(crt, sizeof(crt), "%s/s.crt", dir);
	snprintf(key, sizeof(key), "%s/s.key", dir);
	write_file(path, "tls_server_config:\n  cert_file: s.crt\n  key_file: s.key\n");
	write_file(crt, "CERT");
	write_file(key, "KEY");
	assert_int_equal(ps_webcfg_load(path, &c, err, sizeof(err)), 0);
	assert_string_equal(c.cert_file, crt);
	assert_string_equal(c.cert_pem, "CERT");
	assert_string_equal(c.key_pem, "KEY");
	ps_webcfg_free(&c);
	unlink(key);
	assert_int_equal(ps_webcfg_load(path, &c, err, sizeof(err)), -2);
	assert_non_null(strstr(err, "cannot read"));
	assert_non_null(strstr(err, "s.key: No such file"));
	assert_null(c.cert_pem);
	write_file(path, "bogus: 1\n");
	assert_int_equal(ps_webcfg_load(path, &c, err, sizeof(err)), -22);
	assert_non_null(strstr(err, "web.yml: line 1: unknown key 'bogus'"));
	unlink(path);
	unlink(crt);
	assert_int_equal(ps_webcfg_load(path, &c, err, sizeof(err)), -2);
	assert_non_null(strstr(err, "web.yml: No such file"));
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(exporter_toolkits_file),
		cmocka_unit_test(nothing_is_no_tls_and_no_users),
		cmocka_unit_test(refused_with_line_and_reason),
		cmocka_unit_test(files_read_beside_it),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
