// SPDX-License-Identifier: GPL-2.0-only
/* --config, SIGHUP and systemd; see service.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config.h"
#include "log.h"
#include "notify.h"
#include "options.h"
#include "service.h"

/* The arguments made of the file and the command line live as long as the
 * options that point into them. */
struct cfg_args {
	struct ps_config file;
	char **argv;
};

/*
 * What the running capture has of --config; a reload swaps it. The first
 * file's arguments stay as long as the capture: what cannot change without
 * a restart (the output's name, the rotation's command) was set up with
 * their strings, and the outputs keep them.
 */
static struct {
	int argc;
	char **argv; /* the command line */
	struct ps_opts *opts;
	struct cfg_args first; /* the first file's */
	struct cfg_args args;  /* a reload's */
	bool reloaded;	       /* args hold a reload's */
} configured;

static void free_args(struct cfg_args *a)
{
	ps_config_free(&a->file);
	free(a->argv);
	a->argv = NULL;
}

/* Two optional strings the same, NULL as "". */
static bool same_str(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

/* 0, or -EINVAL with the one line said ("FILE:LINE: why" for a setting). */
static int parse_with_config(int argc, char **argv, const char *path, struct ps_opts *o,
			     struct cfg_args *a, const char *after)
{
	char err[512];
	int n, bad = -1;

	memset(a, 0, sizeof(*a));
	if (ps_config_read(path, &a->file, err, sizeof(err))) {
		pr_err("%s%s\n", err, after);
		return -EINVAL;
	}
	n = a->file.n;
	a->argv = calloc((size_t)(argc + n + 1), sizeof(*a->argv));
	if (!a->argv) {
		pr_err("cannot read %s: %s\n", path, strerror(ENOMEM));
		free_args(a);
		return -ENOMEM;
	}
	a->argv[0] = argv[0];
	memcpy(a->argv + 1, a->file.args, (size_t)n * sizeof(*a->argv));
	memcpy(a->argv + 1 + n, argv + 1, (size_t)(argc - 1) * sizeof(*a->argv));
	if (ps_cli_parse_at(argc + n, a->argv, o, err, sizeof(err), &bad) ||
	    ps_cli_check(o, err, sizeof(err))) {
		if (bad >= 1 && bad <= n)
			pr_err("%s:%d: %s%s\n", path, a->file.lines[bad - 1], err, after);
		else
			pr_err("%s: %s%s\n", path, err, after);
		free_args(a);
		return -EINVAL;
	}
	return 0;
}

int ps_service_load(int argc, char **argv, const char *path, struct ps_opts **opts)
{
	struct ps_opts *c = calloc(1, sizeof(*c));

	if (!c) {
		pr_err("cannot read %s: %s\n", path, strerror(ENOMEM));
		return -ENOMEM;
	}
	if (parse_with_config(argc, argv, path, c, &configured.first, "")) {
		free(c);
		return -EINVAL;
	}
	configured.argc = argc;
	configured.argv = argv;
	configured.opts = c;
	*opts = c;
	return 0;
}

void ps_service_ready(const struct ps_capture *cap)
{
	int n = ps_ifset_count(&cap->ifaces.set);
	char text[128];

	snprintf(text, sizeof(text), "READY=1\nSTATUS=capturing on %d interface%s", n,
		 n == 1 ? "" : "s");
	ps_notify(text);
}

/* The new file's filter, compiled into *filter (NULL: none); 0, or -1 with
 * the one line said (the file's mistake). */
static int reload_filter(const struct ps_opts *o, struct ps_filter **filter, const char *keep)
{
	char why[512], *expr = NULL;

	*filter = NULL;
	if (!ps_options_have_filter(o))
		return 0;
	if (ps_options_filter_expr(o, &expr))
		return -1; /* said */
	*filter = calloc(1, sizeof(**filter));
	if (!*filter) {
		pr_err("%s: %s%s\n", o->config, strerror(ENOMEM), keep);
		free(expr);
		return -1;
	}
	/* The filter owns expr from here on, built or not. */
	if (ps_filter_build(*filter, expr, o->snaplen, why, sizeof(why))) {
		pr_err("%s: %s%s\n", o->config, why, keep);
		return -1;
	}
	return 0;
}

/* The new options o (and their arguments) are the running ones now. */
static void adopt(struct ps_opts *o, struct cfg_args *args)
{
	ps_log_set_verbosity(o->verbosity);
	pr_warn("%s: configuration read again\n", o->config);
	if (configured.reloaded)
		free_args(&configured.args);
	configured.reloaded = true;
	free(configured.opts);
	configured.opts = o;
	configured.args = *args;
}

void ps_service_reload(struct ps_capture *cap)
{
	static const char keep[] = "; keeping the running configuration";
	struct ps_opts *o = calloc(1, sizeof(*o)), *old = configured.opts;
	struct ps_filter *filter = NULL;
	struct ps_capture_cfg cfg;
	struct cfg_args args;

	ps_notify_reloading();
	if (!o ||
	    parse_with_config(configured.argc, configured.argv, old->config, o, &args, keep)) {
		free(o);
		ps_service_ready(cap);
		return;
	}
	if (reload_filter(o, &filter, keep))
		goto out;
	ps_options_capture_cfg(o, &cfg);
	if (!same_str(o->netns, old->netns) || !same_str(o->user, old->user)) {
		pr_err("the new configuration changes netns or relinquish-privileges, which needs a "
		       "restart%s\n",
		       keep);
	} else if (!ps_capture_reload(cap, &cfg, filter)) {
		if (cap->filter == filter)
			filter = NULL; /* the capture's now */
		adopt(o, &args);
		o = NULL;
	}
out:
	if (filter) {
		ps_filter_free(filter);
		free(filter);
	}
	if (o) {
		free_args(&args);
		free(o);
	}
	ps_service_ready(cap);
}

void ps_service_end(void)
{
	if (configured.reloaded)
		free_args(&configured.args);
	free_args(&configured.first);
	free(configured.opts);
	memset(&configured, 0, sizeof(configured));
}
