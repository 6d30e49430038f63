/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The options (user/app/cli.h) turned into what the modules take: the
 * capture's configuration, and the filter expression (from the arguments
 * or -F) compiled. Shared by main.c and the service (user/app/service.h).
 */
#ifndef PS_OPTIONS_H
#define PS_OPTIONS_H

#include "capture_cfg.h"
#include "cli.h"
#include "filter.h"

/* What the capture takes of the options. */
void ps_options_capture_cfg(const struct ps_opts *o, struct ps_capture_cfg *c);
/* Does o give a filter expression (words or -F)? */
bool ps_options_have_filter(const struct ps_opts *o);
/* The filter expression from the arguments or -F, malloc'ed into *expr; 0
 * or -errno, the one line said. */
int ps_options_filter_expr(const struct ps_opts *o, char **expr);
/* ... compiled and translated into f (which owns it then); 0 or -errno,
 * the one line said. */
int ps_options_build_filter(const struct ps_opts *o, struct ps_filter *f);

#endif
