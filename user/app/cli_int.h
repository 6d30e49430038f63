/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Between the parser's table (cli.c) and the files that hold some of its
 * options' setters: each takes the option's value into *o, or returns
 * -EINVAL with one line in err.
 */
#ifndef PS_CLI_INT_H
#define PS_CLI_INT_H

#include "cli.h"

int ps_cli_set_sflow(struct ps_opts *o, const char *a, char *err, size_t len);
int ps_cli_set_sflow_agent(struct ps_opts *o, const char *a, char *err, size_t len);
int ps_cli_set_sflow_header(struct ps_opts *o, const char *a, char *err, size_t len);
int ps_cli_set_sflow_counters(struct ps_opts *o, const char *a, char *err, size_t len);
int ps_cli_set_sflow_burst(struct ps_opts *o, const char *a, char *err, size_t len);
int ps_cli_set_flight(struct ps_opts *o, const char *a, char *err, size_t len);
int ps_cli_set_flight_size(struct ps_opts *o, const char *a, char *err, size_t len);
int ps_cli_set_trigger(struct ps_opts *o, const char *a, char *err, size_t len);
int ps_cli_set_after(struct ps_opts *o, const char *a, char *err, size_t len);
int ps_cli_set_holdoff(struct ps_opts *o, const char *a, char *err, size_t len);
int ps_cli_set_incidents(struct ps_opts *o, const char *a, char *err, size_t len);

#endif
