// SPDX-License-Identifier: GPL-2.0-only
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>
#include "log.h"

static int max_level = PS_LOG_WARN;
static bool errors_only;
static FILE *side_log;

void ps_log_set_verbosity(int verbosity)
{
	max_level = PS_LOG_WARN + verbosity;
}

void ps_log_errors_only(FILE *log)
{
	errors_only = true;
	side_log = log;
}

static void vlog(enum ps_log_level level, const char *prefix, const char *fmt,
		 va_list ap)
{
	if ((int)level > max_level)
		return;
	if (side_log) {
		va_list copy;

		va_copy(copy, ap);
		fputs(prefix, side_log);
		vfprintf(side_log, fmt, copy);
		fflush(side_log);
		va_end(copy);
	}
	if (errors_only && level != PS_LOG_ERROR)
		return;
	fputs(prefix, stderr);
	vfprintf(stderr, fmt, ap);
}

void ps_log_text(const char *text)
{
	if (side_log) {
		fputs(text, side_log);
		fflush(side_log);
	}
	if (!errors_only)
		fputs(text, stderr);
}

void ps_log(enum ps_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(level, "pktsample: ", fmt, ap);
	va_end(ap);
}

/* Library warnings are mostly expected fallbacks (e.g. no dispatcher):
 * show them with -v, their info/debug lines with -vv. */
static enum ps_log_level lib_level(int is_warn)
{
	return is_warn ? PS_LOG_INFO : PS_LOG_DEBUG;
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	vlog(lib_level(level == LIBBPF_WARN), "", fmt, ap);
	return 0;
}

static int libxdp_print(enum libxdp_print_level level, const char *fmt,
			va_list ap)
{
	vlog(lib_level(level == LIBXDP_WARN), "", fmt, ap);
	return 0;
}

void ps_log_hook_libs(void)
{
	libbpf_set_print(libbpf_print);
	libxdp_set_print(libxdp_print);
}
