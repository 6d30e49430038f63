/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The pure modules' refusal (user/util/log.h's convention): one line of reason
 * into the caller's buffer, and -EINVAL.
 */
#ifndef PS_ERRMSG_H
#define PS_ERRMSG_H

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

__attribute__((format(printf, 3, 4))) static inline int ps_fail(char *err, size_t len,
								const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

#endif
