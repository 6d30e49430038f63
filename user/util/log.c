// SPDX-License-Identifier: GPL-2.0-only
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>
#include "log.h"

static int max_level = PS_LOG_WARN;
static bool errors_only;
static FILE *side_log;
static bool journal; /* stderr is the journal's: each line gets its priority */

/* syslog's priority of each level, as journald reads it (sd-daemon(3)). */
static const char *const journal_prefix[] = { "<3>", "<4>", "<6>", "<7>" };

void ps_log_detect_journal(void)
{
	const char *env = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	journal = env && sscanf(env, "%llu:%llu", &dev, &ino) == 2 && !fstat(STDERR_FILENO, &st) &&
		  (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

void ps_log_set_verbosity(int verbosity)
{
	max_level = PS_LOG_WARN + verbosity;
}

void ps_log_errors_only(FILE *log)
{
	errors_only = true;
	side_log = log;
}

/*
 * One message, one line: a control character that came in with user input
 * (an interface name with a newline, say) is written escaped, \n or \xNN;
 * only the final newline is kept.
 */
static void put_line(FILE *f, const char *prefix, const char *msg)
{
	size_t n = strlen(msg);
	bool nl = n && msg[n - 1] == '\n';

	fputs(prefix, f);
	for (size_t i = 0; i + nl < n; i++) {
		unsigned char c = (unsigned char)msg[i];

		if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\x%02x", c);
		else
			fputc(c, f);
	}
	if (nl || (f == stderr && journal))
		fputc('\n', f); /* a journal line ends: the next has its priority */
}

/* Text of several lines to stderr, each with prefix (the journal's). */
static void put_lines(const char *prefix, const char *text)
{
	while (*text) {
		const char *nl = strchr(text, '\n');
		size_t n = nl ? (size_t)(nl - text) : strlen(text);

		fprintf(stderr, "%s%.*s\n", prefix, (int)n, text);
		text += n + (nl != NULL);
	}
}

/* raw: libbpf's and libxdp's text (a verifier log spans lines). */
static void vlog(enum ps_log_level level, const char *prefix, bool raw, const char *fmt, va_list ap)
{
	char line[2048], *msg = line, *big = NULL;
	va_list again;
	int n;

	if ((int)level > max_level)
		return;
	/* A verifier log runs to megabytes: its end, where the reason is,
	 * must not be cut. */
	va_copy(again, ap);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	if (raw && n >= (int)sizeof(line) && (big = malloc((size_t)n + 1))) {
		vsnprintf(big, (size_t)n + 1, fmt, again);
		msg = big;
	}
	va_end(again);
	if (side_log) {
		if (raw)
			fprintf(side_log, "%s%s", prefix, msg);
		else
			put_line(side_log, prefix, msg);
		fflush(side_log);
	}
	if (!errors_only || level == PS_LOG_ERROR) {
		if (journal && raw)
			put_lines(journal_prefix[level], msg);
		else if (journal)
			put_line(stderr, journal_prefix[level], msg);
		else if (raw)
			fprintf(stderr, "%s%s", prefix, msg);
		else
			put_line(stderr, prefix, msg);
	}
	free(big);
}

void ps_log_text(const char *text)
{
	if (side_log) {
		fputs(text, side_log);
		fflush(side_log);
	}
	if (!errors_only && journal)
		put_lines(journal_prefix[PS_LOG_INFO], text);
	else if (!errors_only)
		fputs(text, stderr);
}

void ps_log(enum ps_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(level, "pktsample: ", false, fmt, ap);
	va_end(ap);
}

/* Library warnings are mostly expected fallbacks (e.g. no dispatcher):
 * show them with -v, their info/debug lines with -vv. */
static enum ps_log_level lib_level(int is_warn)
{
	return is_warn ? PS_LOG_INFO : PS_LOG_DEBUG;
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	vlog(lib_level(level == LIBBPF_WARN), "", true, fmt, ap);
	return 0;
}

static int libxdp_print(enum libxdp_print_level level, const char *fmt, va_list ap)
{
	vlog(lib_level(level == LIBXDP_WARN), "", true, fmt, ap);
	return 0;
}

void ps_log_hook_libs(void)
{
	libbpf_set_print(libbpf_print);
	libxdp_set_print(libxdp_print);
}
