// SPDX-License-Identifier: GPL-2.0-only
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "config.h"

/* The largest file read: a configuration, not a data set. */
#define PS_CONFIG_MAX (1u << 20)

void ps_config_free(struct ps_config *c)
{
	for (int i = 0; i < c->n; i++)
		free(c->args[i]);
	free(c->args);
	free(c->lines);
	c->args = NULL;
	c->lines = NULL;
	c->n = 0;
}

static int add(struct ps_config *c, const char *name, size_t nlen, const char *value, size_t vlen,
	       int line)
{
	char **args = realloc(c->args, (size_t)(c->n + 1) * sizeof(*args));
	int *lines;
	char *a;

	if (!args)
		return -ENOMEM;
	c->args = args;
	lines = realloc(c->lines, (size_t)(c->n + 1) * sizeof(*lines));
	if (!lines)
		return -ENOMEM;
	c->lines = lines;
	a = malloc(2 + nlen + 1 + vlen + 1);
	if (!a)
		return -ENOMEM;
	memcpy(a, "--", 2);
	memcpy(a + 2, name, nlen);
	a[2 + nlen] = '\0';
	if (value) {
		a[2 + nlen] = '=';
		memcpy(a + 3 + nlen, value, vlen);
		a[3 + nlen + vlen] = '\0';
	}
	c->args[c->n] = a;
	c->lines[c->n++] = line;
	return 0;
}

/* One line (without its newline): nothing, a comment, or a setting. */
static int parse_line(struct ps_config *c, const char *p, const char *end, int line, char *err,
		      size_t errlen)
{
	const char *name, *value = NULL;
	size_t nlen, vlen = 0;
	char key[64];
	int kind;

	while (p < end && isspace((unsigned char)*p))
		p++;
	while (end > p && isspace((unsigned char)end[-1]))
		end--;
	if (p == end || *p == '#')
		return 0;
	name = p;
	while (p < end && !isspace((unsigned char)*p))
		p++;
	nlen = (size_t)(p - name);
	while (p < end && isspace((unsigned char)*p))
		p++;
	if (p < end) {
		value = p;
		vlen = (size_t)(end - p);
	}
	if (memchr(name, '\0', nlen) || (value && memchr(value, '\0', vlen))) {
		snprintf(err, errlen, "%d: a NUL byte", line);
		return -EINVAL;
	}
	snprintf(key, sizeof(key), "%.*s", (int)(nlen < 63 ? nlen : 63), name);
	kind = nlen < sizeof(key) ? ps_cli_setting(key) : -ENOENT;
	if (kind == -ENOENT) {
		snprintf(err, errlen, "%d: unknown setting '%s'", line, key);
		return -EINVAL;
	}
	if (kind == -EPERM) {
		snprintf(err, errlen, "%d: '%s' is not a setting for a configuration file", line,
			 key);
		return -EINVAL;
	}
	if (kind == 1 && !value) {
		snprintf(err, errlen, "%d: '%s' needs a value", line, key);
		return -EINVAL;
	}
	if (kind == 0 && value) {
		snprintf(err, errlen, "%d: '%s' takes no value", line, key);
		return -EINVAL;
	}
	return add(c, name, nlen, value, vlen, line);
}

int ps_config_parse(const char *text, size_t len, struct ps_config *c, char *err, size_t errlen)
{
	const char *p = text, *end = text + len;
	int line = 1, ret = 0;

	memset(c, 0, sizeof(*c));
	err[0] = '\0';
	while (p < end && !ret) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;

		ret = parse_line(c, p, eol, line++, err, errlen);
		p = nl ? nl + 1 : end;
	}
	if (ret == -ENOMEM)
		snprintf(err, errlen, "%s", strerror(ENOMEM));
	if (ret)
		ps_config_free(c);
	return ret;
}

int ps_config_read(const char *path, struct ps_config *c, char *err, size_t errlen)
{
	FILE *f = fopen(path, "re");
	char *text, why[256];
	size_t n;
	int ret;

	memset(c, 0, sizeof(*c));
	if (!f) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	text = malloc(PS_CONFIG_MAX + 1);
	n = text ? fread(text, 1, PS_CONFIG_MAX + 1, f) : 0;
	ret = !text ? -ENOMEM : ferror(f) ? -EIO : n > PS_CONFIG_MAX ? -EFBIG : 0;
	fclose(f);
	if (ret)
		snprintf(err, errlen, "%s: %s", path,
			 ret == -EFBIG ? "larger than 1 MiB: not a configuration" : strerror(-ret));
	else if ((ret = ps_config_parse(text, n, c, why, sizeof(why))))
		snprintf(err, errlen, "%s%s%s", path, ret == -ENOMEM ? ": " : ":", why);
	free(text);
	return ret;
}
