// SPDX-License-Identifier: GPL-2.0-only
/*
 * --top's options: the live ranking, plain tables or the full screen, its
 * grouping and order; and what they need of each other and of stdout.
 * Pure, as the rest of the parser (cli_opt.h).
 */
#include <string.h>
#include "cli_opt.h"
#include "errmsg.h"
#include "topagg.h"

static int set_top_batch(struct ps_opts *o, const char *a, char *err, size_t len)
{
	(void)a, (void)err, (void)len;
	o->top_batch = o->top_opts = true;
	return 0;
}

/* --top-group and --top-sort: one of the words, in enum order. */
static int set_top_word(unsigned int *to, const char *const *words, int n, const char *opt,
			const char *a, char *err, size_t len)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(a, words[i])) {
			*to = (unsigned int)i;
			return 0;
		}
	char list[128] = "";
	size_t at = 0;

	for (int i = 0; i < n && at < sizeof(list); i++)
		at += (size_t)snprintf(list + at, sizeof(list) - at, "%s%s",
				       i == 0	  ? "" :
				       i == n - 1 ? " or " :
						    ", ",
				       words[i]);
	return ps_fail(err, len, "bad %s '%s': use %s", opt, a, list);
}

static int set_top_group(struct ps_opts *o, const char *a, char *err, size_t len)
{
	static const char *const words[PS_TOP_NGROUPS] = { "process",	"container", "flow",
							   "interface", "drop",	     "pod",
							   "namespace", "path" };

	o->top_opts = true;
	return set_top_word(&o->top_group, words, PS_TOP_NGROUPS, "--top-group", a, err, len);
}

static int set_top_sort(struct ps_opts *o, const char *a, char *err, size_t len)
{
	static const char *const words[PS_TOP_NSORTS] = { "bytes", "packets", "drops", "name" };

	o->top_opts = true;
	return set_top_word(&o->top_sort, words, PS_TOP_NSORTS, "--top-sort", a, err, len);
}

static const struct cli_opt rows[] = {
	{ "top", 0, no_argument, NULL,
	  "a live ranking, every second, of who sends, where to and what is dropped (keys: "
	  "g grouping, s sort, p pause, / filter, q quit); with -w, the file too",
	  FLAG(top), LIVE, NOCONF },
	{ "batch", 0, no_argument, NULL,
	  "with --top: a plain table every second, as top -b (so too when stdout is no terminal)",
	  set_top_batch, LIVE, NOCONF },
	{ "top-group", 0, required_argument, "BY",
	  "with --top: rows by process (default), container, flow, interface, drop (reason), "
	  "pod or namespace (Kubernetes'), or path (a followed packet's hook before to this one)",
	  set_top_group, LIVE, NOCONF },
	{ "top-sort", 0, required_argument, "KEY",
	  "with --top: most bytes first (default), or packets, drops, name", set_top_sort, LIVE,
	  NOCONF },
};
const struct cli_table cli_top_table = CLI_TABLE(rows);

int cli_check_top(const struct ps_opts *o, char *err, size_t errlen)
{
	if (o->top_opts && !o->top)
		return ps_fail(err, errlen, "--batch, --top-group and --top-sort go with --top");
	if (o->top && (o->print || (o->output && !strcmp(o->output, "-"))))
		return ps_fail(err, errlen, "--top and %s would both write to stdout",
			       o->print ? "--print" : "-w -");
	return 0;
}
