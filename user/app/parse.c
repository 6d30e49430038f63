// SPDX-License-Identifier: GPL-2.0-only
/* Numbers, durations, sizes and hook lists as users type them (cli.h):
 * pure, for the command line and --config alike. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

/* The decimal number s starts with, into *x, *end after it; -EINVAL where s
 * starts with no digit (strtoull would skip blanks and take a sign) or the
 * number does not fit. */
static int leading_number(const char *s, unsigned long long *x, char **end)
{
	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*x = strtoull(s, end, 10);
	return errno ? -EINVAL : 0;
}

int ps_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *v)
{
	unsigned long long x;
	char *end;

	if (leading_number(s, &x, &end) || *end || x < min || x > max)
		return -EINVAL;
	*v = x;
	return 0;
}

int ps_parse_hooks(const char *s, unsigned int *mask)
{
	unsigned int m = 0;
	const char *p = s;

	while (p && *p) {
		size_t n = strcspn(p, ",");
		unsigned int h;

		for (h = 0; h < PS_HOOK_MAX; h++)
			if (strlen(ps_hook_name(h)) == n && !strncmp(p, ps_hook_name(h), n))
				break;
		if (h == PS_HOOK_MAX)
			return -EINVAL;
		/* Where a drop's bytes start is the packet's business: drop
		 * takes both. */
		m |= h == PS_HOOK_DROP ? PS_HOOKS_DROP : 1u << h;
		p += n;
		if (*p == ',' && !*++p)
			return -EINVAL; /* a trailing comma: an item is missing */
	}
	if (!m)
		return -EINVAL;
	*mask = m;
	return 0;
}

int ps_parse_duration_ms(const char *s, uint64_t *ms)
{
	static const struct {
		const char *suffix;
		uint64_t ms;
	} units[] = {
		{ "", 1000 }, { "s", 1000 }, { "ms", 1 }, { "m", 60000 }, { "h", 3600000 },
	};
	unsigned long long x;
	char *end;
	size_t i;

	if (leading_number(s, &x, &end))
		return -EINVAL;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].suffix))
			continue;
		if (x == 0 || x > UINT64_MAX / units[i].ms)
			return -EINVAL;
		*ms = x * units[i].ms;
		return 0;
	}
	return -EINVAL;
}

int ps_parse_file_size(const char *s, uint64_t *bytes)
{
	static const struct {
		char suffix;
		uint64_t unit;
	} units[] = {
		{ '\0', 1000000 }, { 'k', 1024 },    { 'K', 1024 },    { 'm', 1 << 20 },
		{ 'M', 1 << 20 },  { 'g', 1 << 30 }, { 'G', 1 << 30 },
	};
	unsigned long long x;
	char *end;

	if (leading_number(s, &x, &end) || !x || (*end && end[1]))
		return -EINVAL;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (*end == units[i].suffix) {
			if (x > UINT64_MAX / units[i].unit)
				return -EINVAL;
			*bytes = x * units[i].unit;
			return 0;
		}
	return -EINVAL;
}
