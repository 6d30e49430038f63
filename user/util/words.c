// SPDX-License-Identifier: GPL-2.0-only
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "words.h"

static const char *const keys[PS_WORD_N] = {
#define PS_WORD_KEY(name, key) [PS_WORD_##name] = key,
	PS_WORDS(PS_WORD_KEY)
#undef PS_WORD_KEY
};

const char *ps_word_key(enum ps_word w)
{
	return (unsigned)w < PS_WORD_N ? keys[w] : "?";
}

int ps_word_put(char *buf, size_t len, int n, enum ps_word w, const char *fmt, ...)
{
	size_t room;
	va_list ap;

	if (n < 0 || (size_t)n >= len)
		return n;
	n += snprintf(buf + n, len - (size_t)n, "%s%s=", n ? " " : "", ps_word_key(w));
	/* Past the end: only the length the value would have. */
	room = n >= 0 && (size_t)n < len ? len - (size_t)n : 0;
	va_start(ap, fmt);
	n += vsnprintf(room ? buf + n : NULL, room, fmt, ap);
	va_end(ap);
	return n;
}

const char *ps_word_get(const char *words, enum ps_word w, char *buf, size_t len)
{
	const char *key = ps_word_key(w);
	size_t klen = strlen(key);

	for (const char *at = words; (at = strstr(at, key)); at += klen) {
		size_t n;

		if ((at != words && at[-1] != ' ') || at[klen] != '=')
			continue;
		at += klen + 1;
		n = strcspn(at, " ");
		if (!n || n >= len)
			return NULL;
		memcpy(buf, at, n);
		buf[n] = '\0';
		return buf;
	}
	return NULL;
}
