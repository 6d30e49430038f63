/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a new configuration changes against the running one (SIGHUP with
 * --config): pure, unit-tested (tests/unit/test_reload_diff.c). A setting
 * is applied live, needs new programs (the filter, the sampling: swapped
 * in place on every hook), or needs a restart (named in the one line the
 * capture says).
 */
#ifndef PS_RELOAD_DIFF_H
#define PS_RELOAD_DIFF_H

#include <stdbool.h>
#include "capture_cfg.h"
#include "hookplan.h"

struct ps_reload_diff {
	/* The first setting that only a restart can change, as the user
	 * writes it ("snaplen", ...); NULL: none. */
	const char *restart;
	bool programs; /* the filter or the sampling: new programs */
	bool metrics;  /* --metrics turned on or off, or to another address */
	/* The hook settings are written otherwise and mean the same: the new
	 * ones are the capture's, for the interfaces that come. */
	bool hooks;
};

/* What the running capture has, for what its hook settings mean. */
struct ps_reload_run {
	const struct ps_capture_cfg *cfg;
	const char *filter;		 /* its expression; NULL: none */
	const struct ps_hook_have *have; /* its interfaces */
	size_t n_have;
	const struct ps_hooks_loaded *loaded; /* its programs, as hooks */
};

/* run: the running capture; next: the new configuration and its filter. */
void ps_reload_diff(const struct ps_reload_run *run, const struct ps_capture_cfg *next,
		    const char *next_filter, struct ps_reload_diff *d);

#endif
