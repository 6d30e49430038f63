/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Leveled logging to stderr; libbpf/libxdp chatter is demoted to -v/-vv.
 *
 * The error convention, everywhere in user/:
 * - Pure modules (cli, split, clock, pcapng encoding, cbpf/xlate, filter,
 *   sampling's arithmetic, report's text, the splicer's image surgery) never
 *   print and never exit: they return 0 or -errno and, where a user needs a
 *   reason, fill a caller's error buffer with one line.
 * - System modules (loader, attach, ingest, output, capture, the
 *   ticker, splice's load hooks) log one line with pr_err() where the
 *   failure happens, naming what failed and why, then return -errno; their
 *   callers only pass the error up.
 * - main.c turns the result into the exit status: 2 usage, 1 runtime.
 * So every failure reaches the user exactly once, as one line.
 */
#ifndef PS_LOG_H
#define PS_LOG_H

#include <stdio.h>

enum ps_log_level {
	PS_LOG_ERROR = 0, /* always shown */
	PS_LOG_WARN = 1,  /* always shown */
	PS_LOG_INFO = 2,  /* -v */
	PS_LOG_DEBUG = 3, /* -vv */
};

void ps_log_set_verbosity(int verbosity); /* number of -v */
/* Under systemd, stderr may be the journal ($JOURNAL_STREAM names it):
 * then each line starts with its syslog priority (<3> error, <4> warning,
 * <6> info, <7> debug) instead of "pktsample: ", which journald keeps as
 * the entry's PRIORITY. */
void ps_log_detect_journal(void);
/*
 * As a Wireshark extcap, stderr is for errors only (Wireshark shows
 * anything there as an error): warnings, notes and the summary go to log
 * (with errors too), or nowhere if log is NULL.
 */
void ps_log_errors_only(FILE *log);
/* Text for the user that is not an error (the summary, --stats lines). */
void ps_log_text(const char *text);
void ps_log_hook_libs(void); /* route libbpf/libxdp output here */
void ps_log(enum ps_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define pr_err(...) ps_log(PS_LOG_ERROR, __VA_ARGS__)
#define pr_warn(...) ps_log(PS_LOG_WARN, __VA_ARGS__)
#define pr_info(...) ps_log(PS_LOG_INFO, __VA_ARGS__)
#define pr_debug(...) ps_log(PS_LOG_DEBUG, __VA_ARGS__)

#endif
