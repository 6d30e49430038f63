/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The command line as main.c takes it: parse, then Wireshark's options
 * into the command line's, then the rules across options; *req says what
 * Wireshark asked (PS_EXTCAP_NONE for the shell's own command lines).
 */
#ifndef PS_TEST_PARSE_ARGS_H
#define PS_TEST_PARSE_ARGS_H

#include "cli.h"
#include "extcap.h"

static inline int ps_test_parse(int argc, char **argv, struct ps_opts *o,
				enum ps_extcap_request *req, char *err, size_t errlen)
{
	int ret = ps_cli_parse(argc, argv, o, err, errlen);

	*req = PS_EXTCAP_NONE;
	if (ret || o->help || o->version || o->list_interfaces)
		return ret;
	if (ps_extcap_requested(o) && (ret = ps_extcap_apply(o, req, err, errlen)))
		return ret;
	if (*req && *req != PS_EXTCAP_CAPTURE)
		return 0;
	return ps_cli_check(o, err, errlen);
}

#endif
